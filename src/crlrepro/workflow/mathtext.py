"""Mathematics in the project's plain text, rendered on the documentation site.

The summaries, reasons, docstrings and pages write formulas in a plain form that reads in a terminal and in a CSV:
Unicode letters and operators, ``_`` and ``^`` with braces or parentheses for a group (``Σ_{i>D} λ_i``,
``(D+1)^(1−γ)``, ``e^{s/τ}``, ``t_{1−α/k, n−1}``). The site keeps that text as its source and marks each formula for
the KaTeX it serves (:func:`mark_math_html`, run by the site's build on every page): a formula is found from a *seed*,
a word holding a sub- or superscript or a TeX command, extended over the words beside it that read as mathematics
(operators, single letters, numbers, bracketed groups), and turned into TeX (:func:`plain_to_tex`: ``^(x)`` becomes
``^{x}``, ``~`` becomes ``\\sim``). Text between dollar signs is TeX already and is left to pymdownx.arithmatex. Code,
preformatted text, scripts and mathematics already marked are never touched.
"""

from __future__ import annotations

import html
import re

__all__ = ["StarredSymbols", "formula_spans", "makeExtension", "mark_math_html", "plain_to_tex"]

_GREEK_OR_SYMBOL = (
    "\u00b2\u00b3\u00b9\u00bc-\u00be\u0370-\u03ff\u1d00-\u1dbf\u2070-\u209f\u2100-\u214f\u2190-\u22ff\u27c0-\u27ef\u2a00-\u2aff"
)
# A seed: a sub/superscript with a group, a TeX command, or a sub/superscript on a one-letter or Greek base.
_SEED = re.compile(
    rf"[_^][{{(]|\\[A-Za-z]+|(?:^|[^A-Za-z0-9_])[A-Za-z{_GREEK_OR_SYMBOL}][\u0300-\u036f]?[_^][A-Za-z0-9{_GREEK_OR_SYMBOL}*]"
)
# A word that reads as mathematics beside a seed: operators, one letter (with marks, primes, stars), numbers,
# Greek, or anything holding brackets and math symbols but no run of three plain letters.
_FUNCTIONS = ("log", "exp", "max", "min", "sup", "inf", "cos", "sin", "tanh", "det", "mean", "argmax", "argmin")
_MATHY = re.compile(
    rf"^(?:[(\[{{|]*(?:{'|'.join(_FUNCTIONS)})(?![A-Za-z])[^\s]*|[=<>≤≥≈≍∝≠±+\-−·×/|‖~∼→↦∈⊂∘⊗]+|[A-Za-z{_GREEK_OR_SYMBOL}][\u0300-\u036f]?['′*]*|[0-9.,]+"
    rf"|(?=.*[(){{}}\[\]{_GREEK_OR_SYMBOL}=<>≤≥_^·+−/|])(?!.*[A-Za-z]{{3}})[^\s]+)$"
)
_TRAILING = ",;:."
_IDENTIFIER = re.compile(r"[A-Za-z]{2,}_[A-Za-z]{2,}")  # snake_case: a name from the code, not a subscript
_GROUPED = re.compile(r"[_^][{(]")


def _is_seed(word: str) -> bool:
    if "$" in word or "://" in word:
        return False
    if _IDENTIFIER.search(word) and not _GROUPED.search(word):
        return False
    return bool(_SEED.search(" " + word))


_OPENERS, _CLOSERS = "([{", ")]}"


def _words(text: str) -> list[tuple[int, int]]:
    """Whitespace-separated words, a TeX group kept whole (``t_{1−α/k, n−1}·sd`` and ``x^(a b)`` are one word; a
    parenthesis of the prose is not a group)."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text[i].isspace():
            i += 1
            continue
        start, depth = i, 0
        while i < n and (depth > 0 or not text[i].isspace()):
            if text[i] == "{" or (text[i] == "(" and i > 0 and text[i - 1] in "_^"):
                depth += 1
            elif depth and text[i] in "})":
                depth -= 1
            i += 1
        out.append((start, i))
    return out


def _depth(text: str) -> int:
    depth = 0
    for ch in text:
        depth += (ch in _OPENERS) - (ch in _CLOSERS)
    return depth


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        if ch in _OPENERS:
            depth += 1
        elif ch in _CLOSERS:
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def formula_spans(text: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` of each formula in plain ``text``: each seed word extended over the mathematical words
    beside it, trailing punctuation and unbalanced brackets at the ends left out."""
    words = _words(text)
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(words):
        start, end = words[i]
        word = text[start:end]
        if not _is_seed(word):
            i += 1
            continue
        lo = i
        while lo > 0:
            closing = _depth(text[words[lo][0] : words[i][1]]) < 0  # a bracket closes that opened before: "C(α, B)·Σ"
            prev = text[words[lo - 1][0] : words[lo - 1][1]]
            if not _MATHY.match(prev.rstrip(_TRAILING)) or (prev[-1] in _TRAILING and not closing):
                break
            lo -= 1
        hi = i
        while hi + 1 < len(words):
            open_ = _depth(text[words[lo][0] : words[hi][1]]) > 0  # inside a bracket: a comma is the formula's
            if not open_ and text[words[hi][1] - 1] in _TRAILING:
                break
            nxt = text[words[hi + 1][0] : words[hi + 1][1]]
            if not (_MATHY.match(nxt.rstrip(_TRAILING)) or _is_seed(nxt)):
                break
            hi += 1
        # a bracket of the prose taken in at either end: give back whole words until the formula balances
        while not _balanced(text[words[lo][0] : words[hi][1]].rstrip(_TRAILING)) and (lo < i or hi > i):
            if lo < i and (_depth(text[words[lo][0] : words[hi][1]]) < 0 or hi == i):
                lo += 1
            else:
                hi -= 1
        s, e = words[lo][0], words[hi][1]
        while e > s and text[e - 1] in _TRAILING:
            e -= 1
        while e > s and not _balanced(text[s:e]) and text[e - 1] in _CLOSERS:  # "λ_i)" at the end of a parenthesis
            e -= 1
        while e > s and not _balanced(text[s:e]) and text[s] in _OPENERS:
            s += 1
        formula = text[s:e]
        if e > s and _balanced(formula) and any(_is_seed(formula[a:b]) for a, b in _words(formula)):
            spans.append((s, e))
        i = hi + 1
    return spans


def _group(text: str, i: int) -> int:
    """The index just past the bracket group opening at ``text[i]``."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] in _OPENERS:
            depth += 1
        elif text[j] in _CLOSERS:
            depth -= 1
            if depth == 0:
                return j + 1
    return len(text)


_FUNCTION = re.compile(rf"(?<![A-Za-z\\])({'|'.join(sorted(_FUNCTIONS, key=len, reverse=True))})(?![A-Za-z])")


def plain_to_tex(formula: str) -> str:
    """The TeX for a formula in the plain form: ``^(…)``/``_(…)`` become ``^{…}``/``_{…}``, a sub- or superscript
    of several letters or digits is grouped (``μ_small`` → ``μ_{small}``), ``~`` becomes ``\\sim``, ``%``, ``#`` and ``&``
    are escaped; Unicode letters and operators stay (KaTeX reads them)."""
    out, i = [], 0
    while i < len(formula):
        ch = formula[i]
        if ch in "_^" and i + 1 < len(formula) and formula[i + 1] == "(":
            end = _group(formula, i + 1)
            out.append(f"{ch}{{{plain_to_tex(formula[i + 2 : end - 1])}}}")
            i = end
            continue
        run = re.match(r"[A-Za-z0-9]{2,}", formula[i + 1 :]) if ch in "_^" else None
        if run:
            out.append(f"{ch}{{{run.group(0)}}}")
            i += 1 + run.end()
            continue
        function = _FUNCTION.match(formula, i)
        if function and (i == 0 or not formula[i - 1].isalpha()):
            name = function.group(1)
            out.append(f"\\operatorname{{{name}}}" if name in ("mean", "argmax", "argmin") else f"\\{name} ")
            i = function.end()
            continue
        out.append({"~": r"\sim ", "%": r"\%", "#": r"\#", "&": r"\&"}.get(ch, ch))
        i += 1
    return "".join(out)


_SKIP = {"code", "pre", "script", "style", "kbd", "textarea", "svg", "math"}
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)([^>]*)>")


def mark_math_html(page: str) -> str:
    """``page`` (HTML) with each formula of its text (:func:`formula_spans`) marked for KaTeX as pymdownx.arithmatex
    marks inline mathematics (``<span class="arithmatex">\\(…\\)</span>``), outside code, preformatted text, scripts,
    styles and mathematics already marked."""
    out, depth, last = [], [], 0
    for m in _TAG.finditer(page):
        text = page[last : m.start()]
        out.append(text if depth else _mark_text(text))
        closing, name, attrs = m.group(1), m.group(2).lower(), m.group(3)
        skip = name in _SKIP or (name in ("span", "div") and "arithmatex" in attrs)
        if depth:
            if closing and name == depth[-1][0]:
                depth[-1][1] -= 1
                if depth[-1][1] == 0:
                    depth.pop()
            elif not closing and name == depth[-1][0] and not attrs.rstrip().endswith("/"):
                depth[-1][1] += 1
        elif skip and not closing and not attrs.rstrip().endswith("/"):
            depth.append([name, 1])
        out.append(m.group(0))
        last = m.end()
    tail = page[last:]
    out.append(tail if depth else _mark_text(tail))
    return "".join(out)


def _mark_text(escaped: str) -> str:
    if not escaped.strip():
        return escaped
    text = html.unescape(escaped)
    spans = formula_spans(text)
    if not spans:
        return escaped
    out, last = [], 0
    for s, e in spans:
        out.append(html.escape(text[last:s], quote=False))
        out.append(f'<span class="arithmatex">\\({html.escape(plain_to_tex(text[s:e]), quote=False)}\\)</span>')
        last = e
    out.append(html.escape(text[last:], quote=False))
    return "".join(out)


class StarredSymbols:
    """A Python-Markdown extension for the site (``crlrepro.workflow.mathtext:StarredSymbols`` in mkdocs.yml): a star
    right after a one-letter symbol (``L*``, ``E*``, ``s*``, ``λ*``: the optimum, as the papers write it) is that
    symbol's star, never the start or end of emphasis, so ``(L(s) − L*)`` … ``E*`` in a docstring is not set in
    italics between the two stars. Code is left alone (Markdown's code spans come first)."""

    def __new__(cls, **kwargs):
        import markdown
        from markdown.inlinepatterns import InlineProcessor
        from markdown.util import AtomicString

        class _Star(InlineProcessor):
            def handleMatch(self, m, data):  # noqa: N802 (Python-Markdown's name)
                return AtomicString(m.group(1) + "*"), m.start(0), m.end(0)

        class _Extension(markdown.Extension):
            def extendMarkdown(self, md):  # noqa: N802
                # priority above emphasis (60) and below code spans, escapes and links
                md.inlinePatterns.register(_Star(_STARRED, md), "crlrepro_starred_symbol", 65)

        return _Extension(**kwargs)


def makeExtension(**kwargs):  # noqa: N802 (Python-Markdown's entry point)
    return StarredSymbols(**kwargs)


_STARRED = rf"(?<![*A-Za-z0-9_{_GREEK_OR_SYMBOL}])([A-Za-z\u0370-\u03ff][\u0300-\u036f]?)\*(?![*A-Za-z0-9])"
