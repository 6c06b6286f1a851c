"""Formulas of the plain text found and marked for KaTeX: whole formulas, never the prose around them, never code."""

from crlrepro.workflow.mathtext import formula_spans, mark_math_html, plain_to_tex


def _formulas(text):
    return [text[s:e] for s, e in formula_spans(text)]


def test_a_formula_is_found_whole_and_the_prose_around_it_is_left():
    assert _formulas("tail sum Σ_{i>D} λ_i, D=1") == ["Σ_{i>D} λ_i"]
    assert _formulas("Sec. 3: inf over rank-D scores of L − L* ≤ C(α, B)·Σ_{i>D} λ_i (best of s_D and") == [
        "L − L* ≤ C(α, B)·Σ_{i>D} λ_i",
        "s_D",
    ]
    assert _formulas("(noise, t_{1−α/k, n−1}·sd/√n)") == ["t_{1−α/k, n−1}·sd/√n"]
    assert _formulas("no tail fits c + a·m^(−r) (the last 4: χ² p = 8.5e-18 < 0.05)") == ["c + a·m^(−r)"]
    assert _formulas("p(x, y) = e^{k(x−y)}/Z with") == ["p(x, y) = e^{k(x−y)}/Z"]


def test_a_formula_keeps_its_commas_numbers_and_brackets_and_leaves_the_prose_ones():
    assert _formulas("Jensen): −s(f(t(x)), E_T f(T(x))) ≤ −s(z, μ_y) where") == ["−s(f(t(x)), E_T f(T(x))) ≤ −s(z, μ_y)"]
    assert _formulas("excess L(s_D) − L* = 0.03808); holds") == ["L(s_D) − L* = 0.03808"]
    assert _formulas("(E_x e^{PMI(x, y')} = 1 for every y')") == ["E_x e^{PMI(x, y')} = 1"]
    assert _formulas("r of E* − AUC(m) = c + a·m^(−r) here") == ["E* − AUC(m) = c + a·m^(−r)"]
    assert _formulas("the P_Y-mass and P_X's law") == ["P_Y", "P_X"]
    spans = formula_spans("a_j = A·j^(−γ/2), b_j = B·j^(−γ/2)")
    assert all(e1 <= s2 for (_, e1), (s2, _) in zip(spans, spans[1:], strict=False))  # never overlapping


def test_names_from_the_code_and_plain_prose_are_not_formulas():
    assert _formulas("the tail_share of results_dir, piecewise.X_SCAN_POINTS and (negatives_sampling/m_scrl, a job)") == []
    assert _formulas('keys scaling.m_sweep, "t_max" and alignment(D_min)') == []
    assert _formulas("a plain sentence (with a parenthesis), 3 numbers and no mathematics.") == []


def test_the_plain_form_becomes_tex():
    assert plain_to_tex("c + a·m^(−r)") == "c + a·m^{−r}"
    assert plain_to_tex("μ_small + e^{PMI_ab}") == "μ_{\\mathrm{small}} + e^{\\mathrm{PMI}_{ab}}"
    assert plain_to_tex("m^−1 n^−½ N^−0.63") == "m^{−1} n^{−½} N^{−0.63}"
    assert plain_to_tex("L* = 1.80e-6") == "L^{*} = \\text{1.80e-6}"  # the optimum's star raised, never the operator
    assert plain_to_tex("E* − E(s) ≈ C (L − L*)^r") == "E^{*} − E(s) ≈ C (L − L^{*})^r"
    assert plain_to_tex("(P_y K)* f") == "(P_y K)^{*} f"  # an adjoint
    assert plain_to_tex("a * b") == "a * b"  # a star between spaces is left as written
    assert plain_to_tex("E_x KL(p ‖ q) + AB") == "E_x \\mathrm{KL}(p ‖ q) + AB"  # a divergence's name upright
    assert plain_to_tex("#{i : λ_i > 0}") == "\\#\\{i : λ_i > 0\\}"
    assert plain_to_tex("E_{(x,y)~p} log x, 5% & #") == "E_{(x,y)\\sim p} \\log  x, 5\\% \\& \\#"
    assert plain_to_tex("mean_{r'} f") == "\\operatorname{mean}_{r'} f"


def test_a_power_of_a_number_or_a_bracket_starts_a_formula():
    text = "what remains is Δ/(2^a − 1)); up to 10^20 at the nodes, 2^−n on its side, (L − L*)^r at the end; v1.2^3"
    assert [text[a:b] for a, b in formula_spans(text)] == ["Δ/(2^a − 1)", "10^20", "2^−n", "(L − L*)^r"]


def test_html_text_is_marked_but_code_scripts_and_marked_math_are_not():
    page = (
        "<p>the sum Σ_{i&gt;D} λ_i</p><pre><code>x_{1} = 2</code></pre><script>a_{b}</script>"
        '<span class="arithmatex">\\(y_{2}\\)</span><p>after <code>z_{3}</code> w_{4}</p>'
    )
    marked = mark_math_html(page)
    assert marked.count('<span class="arithmatex">') == 3
    assert '<span class="arithmatex">\\(Σ_{i&gt;D} λ_i\\)</span>' in marked
    assert "<pre><code>x_{1} = 2</code></pre><script>a_{b}</script>" in marked
    assert '<code>z_{3}</code> <span class="arithmatex">\\(w_{4}\\)</span>' in marked
    assert mark_math_html("<p>no formula here</p>") == "<p>no formula here</p>"


def test_a_symbols_star_is_never_emphasis_and_emphasis_still_works():
    import markdown

    from crlrepro.workflow.mathtext import StarredSymbols

    md = markdown.Markdown(extensions=[StarredSymbols()])
    html = md.convert("the ratio (E* − E(s)) / √((2/τ)(L(s) − L*)) is at most 1 for every *s*, and λ* too")
    assert "(E* − E(s))" in html and "L*))" in html and "λ*" in html and "<em>s</em>" in html
    assert html.count("<em>") == 1
    assert md.convert("*why* and **bold** and `L*`") == "<p><em>why</em> and <strong>bold</strong> and <code>L*</code></p>"
    text = "(L(s) − L*)) is at most 1 for every s, with E(s) (s*y) the score"
    assert "<em>" in markdown.Markdown().convert(text)  # without it, the text between the stars is set in italics
    assert "<em>" not in md.convert(text) and "L*))" in md.convert(text)
    underscores = "λ̂_i = σ_i(M)² and ∫_0^1 e^{k(t)} dt, Σ_{j=1}^{J} a_j_"
    assert "<em>" in markdown.Markdown().convert(underscores)
    assert "<em>" not in md.convert(underscores) and "∫_0^1" in md.convert(underscores)
    assert md.convert("an _emphasised_ word") == "<p>an <em>emphasised</em> word</p>"


def test_a_displayed_formula_is_typeset_and_code_or_prose_blocks_are_not():
    from crlrepro.workflow.mathtext import display_tex, mark_display_math

    tex = display_tex("log Σ_j e^{a_j} = M + log Σ_j e^{a_j − M},    M = max_j a_j, with M finite\n")
    assert tex.startswith(r"\begin{array}{l}\log  Σ_j e^{a_j} = M + \log  Σ_j e^{a_j − M},\qquad M = \max _j a_j")
    assert tex.endswith(r"\ \text{with}\ M\ \text{finite}\end{array}")
    assert display_tex("run = ScriptRun(snakemake)   # the rule's log\n") is None  # no formula: code
    assert display_tex("every term is in (0, 1] and one of them is 1, so the sum x_1 is\n") is None  # mostly prose
    page = "<pre><code>log Σ_j e^{a_j} = M\n</code></pre><pre><code class='language-python'>x_1 = 2</code></pre>"
    marked = mark_display_math(page)
    assert marked.startswith('<div class="arithmatex">\\[\\begin{array}{l}\\log  Σ_j e^{a_j} = M\\end{array}\\]</div>')
    assert marked.endswith("<pre><code class='language-python'>x_1 = 2</code></pre>")
