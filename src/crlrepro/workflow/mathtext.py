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

__all__ = [
    "StarredSymbols",
    "display_tex",
    "formula_spans",
    "makeExtension",
    "mark_display_math",
    "mark_math_html",
    "plain_to_tex",
]

_GREEK_OR_SYMBOL = (
    "\u00b2\u00b3\u00b9\u00bc-\u00be\u0370-\u03ff\u1d00-\u1dbf\u2070-\u209f\u2100-\u214f\u2190-\u22ff\u27c0-\u27ef\u2a00-\u2aff"
)
# A seed: a sub/superscript with a group, a TeX command, a sub/superscript on a one-letter or Greek base, a power of a
# number (2^a, 10^−22) or of a bracket ((L − L*)^r).
_SEED = re.compile(
    rf"[_^][{{(]|\\[A-Za-z]+|(?:^|[^A-Za-z0-9_])[A-Za-z{_GREEK_OR_SYMBOL}][\u0300-\u036f]?[_^][A-Za-z0-9{_GREEK_OR_SYMBOL}*]"
    rf"|(?:^|[^A-Za-z0-9_.])[0-9]+\^[A-Za-z0-9−\-+½]|\)\^[A-Za-z0-9−\-+½]"
)
# A word that reads as mathematics beside a seed: operators, one letter (with marks, primes, stars), numbers,
# Greek, or anything holding brackets and math symbols but no run of three plain letters.
_FUNCTIONS = ("log", "exp", "max", "min", "sup", "inf", "cos", "sin", "tanh", "det", "mean", "argmax", "argmin")
_MATHY = re.compile(
    rf"^(?:[(\[{{|]*(?:{'|'.join(_FUNCTIONS)})(?![A-Za-z])[^\s]*|[=<>≤≥≈≍∝≠±+\-−·×/|‖~∼→↦∈⊂∘⊗]+"
    rf"|[A-Za-z{_GREEK_OR_SYMBOL}][\u0300-\u036f]?['′*]*|[−\-]?[0-9][0-9.,]*(?:e[-+−]?[0-9]+)?[×%]?|[A-Z]{{2,}}[(‖][^\s]*"
    rf"|(?=.*[(){{}}\[\]{_GREEK_OR_SYMBOL}=<>≤≥_^·+−/|‖])(?!.*[A-Za-z]{{3}})[^\s]+)$"
)
_TRAILING = ",;:."
_IDENTIFIER = re.compile(r"[A-Za-z]{2,}_[A-Za-z]{2,}")  # snake_case: a name from the code, not a subscript
_GROUPED = re.compile(r"[_^][{(]")


_CODE_LIKE = re.compile(rf'[A-Za-z]\.[A-Za-z_]|"|(?<![A-Za-z])(?!(?:{"|".join(_FUNCTIONS)})\()[a-z]{{3,}}\(')


def _is_seed(word: str) -> bool:
    """A word that starts a formula: a sub- or superscript, or a TeX command, in a word that is not code (a dotted or
    snake_case name, a quoted string, a call of a function with a name of three or more letters)."""
    if "$" in word or "://" in word or _CODE_LIKE.search(word):
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


def _unmatched(text: str) -> list[int]:
    """Positions of the brackets of ``text`` that nothing closes or opens (any closer closes any opener: ``[0, 1)``)."""
    openers, closers = [], []
    for k, ch in enumerate(text):
        if ch in _OPENERS:
            openers.append(k)
        elif ch in _CLOSERS:
            (openers.pop() if openers else closers.append(k))
    return sorted(openers + closers)


_LEADING_OPERATOR = "=<>≤≥≈≍∝≠±+·×/|‖~∼→↦∈⊂∘⊗ "
_TRAILING_OPERATOR = _LEADING_OPERATOR.replace("×", "") + "−-"  # 8.52× keeps its times
_PROSE_SUFFIX = re.compile(r"(?:'s|-[a-z]{2,}(?:-[a-z]+)*)$")


def _trim(text: str, s: int, e: int, seed: tuple[int, int]) -> tuple[int, int]:
    """Shrink ``text[s:e]`` to a formula: punctuation and prose suffixes off its end, brackets of the prose cut off
    (a bracket left of the seed moves the start past it, one right of it moves the end before it), operators with
    nothing on one side off its ends."""
    for _ in range(len(text)):
        before = (s, e)
        while e > s and text[e - 1] in _TRAILING:
            e -= 1
        suffix = _PROSE_SUFFIX.search(text[s:e])
        if suffix:
            e = s + suffix.start()
        for p in _unmatched(text[s:e]):
            if s + p < seed[0]:
                s = s + p + 1
            else:
                e = min(e, s + p)
                break
        while e > s and text[e - 1] in _TRAILING_OPERATOR:
            e -= 1
        while s < e and text[s] in _LEADING_OPERATOR:
            s += 1
        if (s, e) == before:
            break
    return s, e


def formula_spans(text: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` of each formula in plain ``text``, in order and never overlapping: each seed word
    (:func:`_is_seed`) extended over the mathematical words beside it, then trimmed (:func:`_trim`)."""
    words = _words(text)
    spans: list[tuple[int, int]] = []
    i, first_free = 0, 0
    while i < len(words):
        start, end = words[i]
        if not _is_seed(text[start:end]):
            i += 1
            continue
        lo = i
        while lo > first_free:
            closing = _depth(text[words[lo][0] : words[i][1]]) < 0  # a bracket closes that opened before: "C(α, B)·Σ"
            prev = text[words[lo - 1][0] : words[lo - 1][1]]
            inside = _depth(prev) > 0  # "−s(f(t(x)), E_T": the comma is the formula's
            if not _MATHY.match(prev.rstrip(_TRAILING)) or (prev[-1] in _TRAILING and not closing and not inside):
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
        seed = (start + len(text[start:end]) - len(text[start:end].lstrip(_OPENERS)), end)  # "(E_x": the seed is E_x
        s, e = _trim(text, words[lo][0], words[hi][1], seed)
        formula = text[s:e]
        if e > s and _balanced(formula) and any(_is_seed(formula[a:b]) for a, b in _words(formula)):
            spans.append((s, e))
        i, first_free = hi + 1, hi + 1
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


def plain_to_tex(formula: str) -> str:
    """The TeX for a formula in the plain form: ``^(…)``/``_(…)`` become ``^{…}``/``_{…}``; a sub- or superscript of
    several characters, or a signed one, is grouped (``μ_small`` → ``μ_{\\mathrm{small}}``, ``m^−1`` → ``m^{−1}``);
    a word of three or more letters, or two capitals before a bracket (``KL(``), is set upright (``\\mathrm{PMI}``;
    ``log``, ``max``, … as TeX's operators); a star after a symbol or a bracket is raised (``L*`` →
    ``L^{*}``, ``(P K)*`` → ``(P K)^{*}``); braces
    that are not a script's are shown (``\\{ \\}``); ``~`` becomes ``\\sim``; ``%``, ``#`` and ``&`` are escaped.
    Unicode letters and operators stay (KaTeX reads them)."""
    out, i, n = [], 0, len(formula)
    while i < n:
        ch = formula[i]
        if ch == "\\":  # a TeX command already written as such
            command = re.match(r"\\[A-Za-z]+|\\.", formula[i:])
            out.append(command.group(0))
            i += command.end()
            continue
        if ch in "_^" and i + 1 < n:
            if formula[i + 1] in "({":
                end = _group(formula, i + 1)
                out.append(f"{ch}{{{plain_to_tex(formula[i + 2 : end - 1])}}}")
                i = end
                continue
            script = re.match(r"[−\-+][0-9.½¼¾]+|[−\-+][A-Za-z]|[A-Za-z0-9]{2,}", formula[i + 1 :])
            if script:
                out.append(f"{ch}{{{plain_to_tex(script.group(0))}}}")
                i += 1 + script.end()
                continue
        number = re.match(r"[0-9][0-9.]*e[-+−][0-9]+", formula[i:]) if ch.isdigit() else None
        if number and (i == 0 or not formula[i - 1].isalnum()):  # 1.80e-6 as printed, not 1.80·e − 6
            out.append(f"\\text{{{number.group(0)}}}")
            i += number.end()
            continue
        after = formula[i + 1 : i + 2]
        if (
            ch == "*"
            and out
            and (
                re.search(r"(?:[A-Za-z\u0370-\u03ff'′}]|\\mathrm\{[A-Za-z]+\})$", out[-1])
                or (out[-1] == ")" and not after.isalnum())
            )
        ):  # the optimum's star on its symbol (E*, L*, s*(x, y)) or an adjoint ((P_y K)*), raised: never the operator ∗
            out.append("^{*}")
            i += 1
            continue
        if ch.isascii() and ch.isalpha():
            word = re.match(r"[A-Za-z]+", formula[i:]).group(0)
            if word in _FUNCTIONS:
                out.append(f"\\operatorname{{{word}}}" if word in ("mean", "argmax", "argmin") else f"\\{word} ")
            elif len(word) >= 3 or (word.isupper() and len(word) == 2 and formula[i + 2 : i + 3] == "("):
                # a name (PMI, AUC; KL( as a divergence), upright, not an italic product of letters
                out.append(f"\\mathrm{{{word}}}")
            else:
                out.append(word)
            i += len(word)
            continue
        out.append({"~": r"\sim ", "%": r"\%", "#": r"\#", "&": r"\&", "{": r"\{", "}": r"\}"}.get(ch, ch))
        i += 1
    return "".join(out)


_SKIP = {"code", "pre", "script", "style", "kbd", "textarea", "svg", "math"}
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)([^>]*)>")


_TEXT_ESCAPES = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "_": r"\_", "^": r"\^{}", "%": r"\%", "#": r"\#",
                 "&": r"\&", "$": r"\$", "~": r"\~{}"}  # fmt: skip


_PROSE_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]+[,.;:]?")  # two letters or more: one letter is a symbol


def _text(prose: str) -> str:
    """What lies between the formulas of a displayed line: a word as ``\\text{…}`` (its TeX characters escaped),
    any other token (a symbol, a number, a bracket) as mathematics (:func:`plain_to_tex`), a space as a space and a
    run of spaces as a quad."""
    parts = []
    for piece in re.split(r"( +)", prose):
        if piece.startswith("  "):
            parts.append(r"\qquad ")
        elif piece == " ":
            parts.append(r"\ ")
        elif _PROSE_WORD.fullmatch(piece):
            parts.append(r"\text{" + "".join(_TEXT_ESCAPES.get(ch, ch) for ch in piece) + "}")
        elif piece:
            parts.append(plain_to_tex(piece))
    return "".join(parts)


def display_tex(block: str) -> str | None:
    """A preformatted block of the plain form as one display formula (its lines left-aligned, prose between the
    formulas as text, runs of spaces as quads), or None where it is not mathematics: a line without a formula, or
    formulas covering less than half the block's characters."""
    lines = [line.rstrip() for line in block.strip("\n").splitlines()]
    if not lines or len(lines) > 12:
        return None
    out, covered, total = [], 0, 0
    for line in lines:
        if not line.strip():
            continue
        spans = formula_spans(line)
        if not spans:
            return None
        covered += sum(len(line[a:b].replace(" ", "")) for a, b in spans)
        total += len(line.replace(" ", ""))
        tex, last = [], 0
        for a, b in spans:
            tex.append(_text(line[last:a]))
            tex.append(plain_to_tex(line[a:b]))
            last = b
        tex.append(_text(line[last:]))
        out.append("".join(tex))
    if not out or covered < total / 2:
        return None
    return r"\begin{array}{l}" + r" \\ ".join(out) + r"\end{array}"


_PRE = re.compile(r"<pre><code>(.*?)</code></pre>", re.S)


def mark_display_math(page: str) -> str:
    """``page`` (HTML) with each preformatted block without a language (a docstring's indented formula) that reads as
    mathematics (:func:`display_tex`) marked as a display formula for KaTeX, as pymdownx.arithmatex marks one
    (``<div class="arithmatex">\\[…\\]</div>``); other blocks, and code with a language, are left as they are."""

    def convert(match):
        tex = display_tex(html.unescape(match.group(1)))
        return match.group(0) if tex is None else f'<div class="arithmatex">\\[{html.escape(tex, quote=False)}\\]</div>'

    return _PRE.sub(convert, page)


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
    italics between the two stars; likewise an underscore right after an accent, an operator or a closing bracket
    (``λ̂_i``, ``∫_0^1``, ``Σ_{j=1}``) is a subscript, never emphasis. Code is left alone (Markdown's code spans come
    first)."""

    def __new__(cls, **kwargs):
        import markdown
        from markdown.inlinepatterns import InlineProcessor
        from markdown.util import AtomicString

        class _Star(InlineProcessor):
            def handleMatch(self, m, data):  # noqa: N802 (Python-Markdown's name)
                return AtomicString(m.group(0)), m.start(0), m.end(0)

        class _Extension(markdown.Extension):
            def extendMarkdown(self, md):  # noqa: N802
                # priority above emphasis (60) and below code spans, escapes and links
                md.inlinePatterns.register(_Star(_STARRED, md), "crlrepro_starred_symbol", 65)
                md.inlinePatterns.register(_Star(_SUBSCRIPT, md), "crlrepro_subscript", 65)

        return _Extension(**kwargs)


def makeExtension(**kwargs):  # noqa: N802 (Python-Markdown's entry point)
    return StarredSymbols(**kwargs)


_STARRED = rf"(?<![*A-Za-z0-9_{_GREEK_OR_SYMBOL}])([A-Za-z\u0370-\u03ff][\u0300-\u036f]?)\*(?![*A-Za-z0-9])"
_SUBSCRIPT = r"(?<=[\u0300-\u036f\u2190-\u22ff)\]}])_"
