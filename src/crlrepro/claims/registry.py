"""The one registry of experiments and claims: everything the workflow lists is derived from it.

For each experiment: its paper and section, the rules that compute it, its result files, its claims
table, figure and report caption; for each claim: its statement, its kind (see
:mod:`crlrepro.claims.verdicts`), the paper's value (the key in ``paper_values.yaml``), the config keys its
comparability depends on (each must equal the paper's setting) and the keys the paper leaves
unreported. The workflow's targets, per-paper target rules, local rules, claims tables, report
captions, the summary's order and the config schema's list of figure names all come from here.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "A2_UNREPORTED", "all_targets", "claim_tables", "ClaimSpec", "diagnostic", "Experiment", "experiment", "EXPERIMENT_ORDER",
    "experiment_targets", "EXPERIMENTS", "experiments_of", "figure_styles", "local_rules", "OPTIMISER", "Paper", "PAPERS",
    "published_files", "RECIPE", "report_captions", "ROLES", "SCALES_FILES", "SUMMARY_FILES"
]

RECIPE = ("training.batch_size", "training.hidden", "training.layers")  # paper 2's stated training recipe
OPTIMISER = ("training.learning_rate", "training.weight_decay")  # AdamW's, not in the summary (nor the cosine decay)
A2_UNREPORTED = ("approximation.train_samples", "approximation.fresh_pairs", *OPTIMISER)


@dataclass(frozen=True)
class Paper:
    number: int
    title: str
    venue: str


PAPERS = {
    2: Paper(2, "Approximation in Contrastive Representation Learning", "NeurIPS 2026"),
    1: Paper(1, "Statistical Consistency and Generalization of Contrastive Representation Learning", "ICML 2026"),
    3: Paper(3, "Understanding Self-supervised Contrastive Learning through Supervised Objectives", "TMLR 2025"),
}


ROLES = ("claim", "diagnostic")


@dataclass(frozen=True)
class ClaimSpec:
    """One registered row (or family of rows) of a claims table. ``role``: ``claim`` when it tests a statement the
    paper makes (or a theorem's inequality on measured quantities), ``diagnostic`` for our own checks, context
    numbers, checks of our simulator, rows the paper gives no number or statement for, and rows that cannot fail
    in their setting; ``why`` says why a row is a diagnostic (the summary shows it). Only claims are counted in the
    headline, the per-paper counts and the report captions."""
    key: str
    statement: str
    kind: str
    paper_value: str | None = None
    depends_on: tuple[str, ...] = ()
    unreported: tuple[str, ...] = ()
    role: str = "claim"
    why: str = ""


def diagnostic(spec: ClaimSpec, why: str) -> ClaimSpec:
    """``spec`` as a diagnostic, with the reason it is not a test of the paper."""
    return ClaimSpec(spec.key, spec.statement, spec.kind, spec.paper_value, spec.depends_on, spec.unreported,
                     "diagnostic", why)


@dataclass(frozen=True)
class Experiment:
    id: str
    paper: int
    section: str
    title: str
    rules: tuple[str, ...]
    tables: tuple[str, ...]
    claims_rule: str
    claims: tuple[ClaimSpec, ...]
    figure: str | None = None
    figure_rule: str | None = None
    style: str | None = None
    caption: str | None = None
    seeds: str | None = None  # the config key listing the seeds its models are trained with (None: none are)

    @property
    def claims_table(self) -> str:
        return f"claims/{self.id}.csv"

    def claim(self, key: str) -> ClaimSpec:
        for spec in self.claims:
            if spec.key == key:
                return spec
        raise KeyError(f"{self.id} has no claim {key!r}; it has {[c.key for c in self.claims]}")


def _ssl(experiment: str, title: str, claims: tuple[ClaimSpec, ...],
         rules=("image_views", "ssl_train", "ssl_eval", "ssl_baselines", "ssl_table")) -> Experiment:
    return Experiment(experiment, 3, "Sec. 5 (experiments)", title, rules, (f"supervised_view/{experiment}.csv",),
                      "claims_ssl", claims, figure=experiment, figure_rule="figure_ssl", style="ssl", caption="supervised_view",
                      seeds="supervised_view.seeds")


_SSL_DATA = ("supervised_view.data.name",)

EXPERIMENTS: tuple[Experiment, ...] = (
    Experiment(
        "A1", 2, "Table 1, columns 1-2", "spectrum of the PMI operator of the GMM and its truncations",
        ("gmm_spectrum", "gmm_convergence"),
        ("approximation/gmm_spectrum.csv", "approximation/gmm_truncation.csv", "approximation/gmm_convergence.csv"),
        "claims_a1",
        (ClaimSpec("tail_sum", "tail sum Σ_{i>D} λ_i", "value", "tail_sum", ("gmm",)),
         ClaimSpec("trunc_excess_risk", "excess risk L(s_D) − L* of the rank-D truncation", "value", "trunc_excess_risk",
                   ("tau", "gmm"))),
        figure="gmm_spectrum", figure_rule="figure_gmm_spectrum", style="gmm_spectrum", caption="gmm_spectrum"),
    Experiment(
        "A2", 2, "Table 1, columns 3-4", "two-tower MLPs on the GMM",
        ("gmm_mlp_train", "gmm_mlp_table", "gmm_mlp_samples_train", "gmm_mlp_samples_table", "l2_minima",
         "approximation_bound"),
        ("approximation/gmm_mlp.csv", "approximation/gmm_mlp_samples.csv", "approximation/l2_minima.csv",
         "approximation/approximation_bound.csv", "approximation/spectrum_decay.csv"), "claims_a2",
        (ClaimSpec("excess_risk", "MLP excess risk L(s_w) − L*", "value", "excess_risk",
                   ("tau", "gmm", "approximation.epochs", *RECIPE), A2_UNREPORTED),
         ClaimSpec("l2_distance", "MLP L2 distance to τ·PMI (x-only shift removed)", "value", "l2_distance",
                   ("tau", "gmm", "approximation.epochs", *RECIPE), A2_UNREPORTED),
         diagnostic(ClaimSpec("excess_risk_decreases", "MLP excess risk decreases with D", "direction"),
                   "the summary states no ordering beyond Table 1's values, which the value rows test; over nested model classes the first steps (D = 1 → 2 → 4) cannot fail here, their decrease far above the smallest detectable difference (the power column), and the last step (D = 4 → 8) measures our training's noise more than the paper"),
         ClaimSpec("l2_distance_decreases", "MLP L2 distance decreases with D", "direction"),
         diagnostic(ClaimSpec("l2_floor", "the paper's L2 column is attainable under this definition of the distance: at every D "
                   "the smallest distance any rank-D score reaches is at most the paper's value", "bound"),
                   "our check of which definition of the L2 distance can reach the paper's column at all, not a statement of the paper"),
         diagnostic(ClaimSpec("converged_in_samples", "the excess risk has settled in the training budget: the last doubling of "
                   "the pairs per epoch (and so of the steps) moves it by less than its value row's interval half-width", "bound"),
                   "a check of our setting, not of the paper: the paper reports no sample size, and this row says whether "
                   "the value rows measure the recipe's limit or this scale's budget"),
         ClaimSpec("approx_bound", "Sec. 3: inf over rank-D scores of L − L* ≤ C(α, B)·Σ_{i>D} λ_i (best of s_D and the "
                   "trained MLPs; B = ‖s_D‖∞)", "bound")),
        figure="gmm_mlp", figure_rule="figure_gmm_mlp", style="gmm_mlp", caption="gmm_mlp",
        seeds="approximation.seeds"),
    Experiment(
        "A3", 2, "Sec. 6, LCGM findings (Prop. 5.6)", "probes of the LCGM two-tower model and the elbow at D = K",
        ("lcgm_train", "lcgm_table", "lcgm_spectrum", "lcgm_sensitivity_table"),  # (+ lcgm_sensitivity_train_ny<i>, per row)
        ("approximation/lcgm_probe.csv", "approximation/lcgm_elbow.json", "approximation/lcgm_spectrum.csv",
         "approximation/lcgm_rank.json", "approximation/lcgm_sensitivity.csv", "approximation/lcgm_sensitivity_elbow.csv"),
        "claims_a3",
        (ClaimSpec("r2_f", "probe R² of f(x) → p(z|x) at D = K", "value", "r2_f",
                   ("tau", "lcgm.classes", "lcgm.dim_x", "lcgm.dim_y", "lcgm.epochs", *RECIPE),
                   ("lcgm.noise_x", "lcgm.noise_y", "lcgm.separation", "lcgm.train_samples", *OPTIMISER)),
         ClaimSpec("r2_g", "probe R² of g(y) → log p(z|y)/π_k at D = K", "value", "r2_g",
                   ("tau", "lcgm.classes", "lcgm.dim_x", "lcgm.dim_y", "lcgm.epochs", *RECIPE),
                   ("lcgm.noise_x", "lcgm.noise_y", "lcgm.separation", "lcgm.train_samples", *OPTIMISER)),
         ClaimSpec("r2_order", "R² of f above R² of g at D = K (the paper's ordering)", "direction"),
         ClaimSpec("elbow", "the elbow of the D sweep lies at D = K (the operator's rank)", "value", "elbow",
                   ("lcgm.classes",)),
         diagnostic(ClaimSpec("rank_k", "Prop. 5.6: the PMI operator has rank K, seen in its own spectrum (held-out Monte-Carlo "
                   "Nyström: eigenvalues of T*T above a floor)", "value"),
                   "checks our LCGM simulator's operator (its rank is K by construction), not a measurement of the paper's")),
        figure="lcgm", figure_rule="figure_lcgm", style="lcgm", caption="lcgm",
        seeds="seeds"),
    Experiment(
        "A4", 2, "Sec. 6, Tsybakov findings", "the density-ratio Tsybakov exponent of the GMM",
        ("tsybakov_table", "tsybakov_exact"),
        ("approximation/tsybakov.csv", "approximation/tsybakov_cdf.csv", "approximation/tsybakov_exact.csv",
         "approximation/tsybakov_windows.csv", "approximation/tsybakov_mc_check.csv"), "claims_a4",
        (ClaimSpec("mu_hat", "Tsybakov exponent μ̂ (log-log slope of F(t) over a fit window)", "value", "mu_hat", ("gmm",),
                   ("tsybakov.window",)),
         diagnostic(ClaimSpec("rate", "the paper's μ̂ is admissible (F(t) ≤ c t^μ̂ for all t > 0): the condition under which its "
                   "calibration exponent (μ̂+1)/(μ̂+2) holds", "bound", "rate", ("gmm",)),
                   "one-sided and far from its edge: admissibility passes any μ̂ below the small-t limit μ₀ of F's local slope, "
                   "so it tests only that the paper's μ̂ is not above μ₀, not its value (A4.mu_hat does)"),
         ClaimSpec("rate_arithmetic", "the paper's rate is (μ̂+1)/(μ̂+2) of its own μ̂", "identity", "rate"),
         diagnostic(ClaimSpec("monte_carlo", "the exact F(t) (quadrature) agrees with the Monte-Carlo CDF", "identity"),
                   "checks our quadrature of F(t) against our own Monte Carlo")),
        figure="tsybakov", figure_rule="figure_tsybakov", style="tsybakov", caption="tsybakov"),
    Experiment(
        "C1", 1, "Sec. 3 (Lemmas 3.2-3.3)", "population oracles: I(X;Y), L* = −τ I, the Bayes AUC E*",
        ("oracle_table",), ("consistency/oracle.json", "consistency/oracle_convergence.csv"), "claims_c1",
        (diagnostic(ClaimSpec("monte_carlo", "quadrature oracle agrees with an independent Monte-Carlo estimate", "identity"),
                   "checks our oracles' numerics against our own Monte Carlo (the L* rows repeat the I(X;Y) rows: L* = −τ I)"),
         diagnostic(ClaimSpec("converged", "quadrature oracle converged to the configured significant digits", "identity"),
                   "checks the convergence of our own quadrature"))),
    Experiment(
        "C2", 1, "Thm 3.4", "calibration along training: E* − E(s) ≤ √(2/τ·(L − L*))",
        ("calibration_train", "calibration_table", "calibration_families", "tsybakov_small_t"),
        ("consistency/calibration.csv", "consistency/calibration_fit.json", "consistency/calibration_families.csv",
         "consistency/calibration_families_fit.csv", "consistency/tsybakov_small_t.json"), "claims_c2",
        (diagnostic(ClaimSpec("bound", "E* − E(s) ≤ √(2/τ·(L(s) − L*)) at every checkpoint", "bound"),
                   "cannot fail here: the worst regret/bound ratio (its measured value) is far below 1, so it would pass a theorem off by a large factor; a ratio above 1 would contradict Thm 3.4"),
         ClaimSpec("exponent_half", "exponent of E* − E(s) in L − L* is at least the bound's ½", "rate", "exponent"),
         ClaimSpec("exponent_sqrt", "E* − E(s) follows √(L − L*), not a linear law (Sec. 5: exponent ½, two-sided)", "rate",
                   "exponent"),
         ClaimSpec("exponent_tsybakov", "exponent of E* − E(s) in L − L* is at least paper 2's (μ+1)/(μ+2), μ this "
                   "mixture's small-t Tsybakov exponent (exact F)", "rate"),
         ClaimSpec("family", "paper 2's accelerated calibration along a family of scores approaching the Bayes score: "
                   "exponent at least (μ+1)/(μ+2)", "rate"),
         diagnostic(ClaimSpec("family_perturbed", "paper 2's accelerated calibration along smooth perturbations of the "
                              "Bayes score: exponent at least (μ+1)/(μ+2)", "rate"),
                    "cannot fail on smooth perturbation paths: a smooth perturbation is no worst case (regret ∝ ε^{1+μ}, "
                    "excess ∝ ε²: its exponent is near (1+μ)/2 by construction), so only a badly wrong inequality "
                    "would fail here")),
        figure="calibration", figure_rule="figure_calibration", style="calibration", caption="calibration",
        seeds="seeds"),
    Experiment(
        "C3", 1, "Thm 4.5 and Sec. 5", "negatives and anchors: SCRL vs SSCRL",
        ("deviation_train", "deviation_table", "scaling_train", "scaling_table"),
        ("consistency/deviation.csv", "consistency/deviation_slopes.csv", "consistency/scaling.csv",
         "consistency/scaling_slopes.csv"), "claims_c3",
        (diagnostic(ClaimSpec("inner_rate", "the inner term's deviation at fixed scores (sup over the family) decays at Thm 4.5's rate",
                   "rate", "slope_m"),
                   "checks our Jensen-bias simulator at fixed scores, not the sup over w of Thm 4.5"),
         diagnostic(ClaimSpec("outer_rate", "the outer term's deviation at fixed scores (sup over the family) decays at Thm 4.5's rate",
                   "rate", "slope_n"),
                   "checks our simulator at fixed scores, not the sup over w of Thm 4.5"),
         diagnostic(ClaimSpec("inbatch_rate", "in-batch negatives (CLIP, SimCLR): the inner term's deviation at fixed scores (sup over "
                   "the family) decays as SCRL's m^{-1}: each anchor's negatives are iid P_Y draws independent of it "
                   "(derived here, not the paper's statement)", "rate"),
                   "derived here, not the paper's statement; checks our simulator at fixed scores"),
         diagnostic(ClaimSpec("inbatch_within_sscrl", "in-batch negatives, which the paper files under SSCRL (eq. 8): the inner "
                   "term's deviation decays at least as fast as SSCRL's bound m^{-1/2}", "rate"),
                   "checks our simulator at fixed scores, not the sup over w of Thm 4.5"),
         diagnostic(ClaimSpec("gap_rate", "trained model's gap |L(ŵ) − L̂_S(ŵ)| decays at least as fast as the bound", "rate"),
                   "a slope fitted over a curve that is flat and then plunges is no rate: to be re-posed on its asymptotic region by a stated rule"),
         ClaimSpec("auc_grows_with_m", "downstream AUC higher with more negatives", "direction"),
         ClaimSpec("recall_grows_with_m", "downstream recall@1 higher with more negatives", "direction"),
         ClaimSpec("auc_grows_with_n", "downstream AUC higher with more anchors", "direction"),
         ClaimSpec("recall_grows_with_n", "downstream recall@1 higher with more anchors", "direction"),
         ClaimSpec("scrl_steeper_in_m", "SCRL's retrieval AUC approaches its plateau faster in m than SSCRL's (Sec. 5: "
                   "'steeper marginal gain, consistent with O(1/m)'; the plateau read as the Bayes AUC E*)", "direction")),
        figure="scaling", figure_rule="figure_scaling", style="scaling", caption="scaling",
        seeds="consistency.scaling.seeds"),
    Experiment(
        "C4", 1, "Sec. 5 (fixed budget)", "a fixed budget N = n·m split in several ways",
        ("scaling_train", "budget_table"), ("consistency/budget.csv", "consistency/budget_fit.csv"), "claims_c4",
        (ClaimSpec("extreme_not_best", "an extreme split (fewest or most negatives) is beaten by an interior one", "direction"),
         diagnostic(ClaimSpec("recommended_beats_neighbours", "the split the regime's bound shape recommends beats its grid neighbours",
                   "direction"),
                   "the paper gives no allocation rule: the recommendation is our fit's")),
        figure="budget", figure_rule="figure_budget", style="budget", caption="budget",
        seeds="consistency.scaling.seeds"),
    Experiment(
        "C5", 1, "Lemma 4.2", "the OCE rewrite of the log-mean-exp",
        ("oce_identity",), ("consistency/oce_identity.csv",), "claims_c5",
        (ClaimSpec("oce", "OCE identity (Lemma 4.2), minimised over |μ| ≤ 2B for scores |s| ≤ B", "identity"),
         ClaimSpec("constraint", "the minimiser over |μ| ≤ 2B is the closed form μ* = τ log mean e^{Δ/τ} (inside the "
                   "constraint when |s| ≤ B)", "identity"))),
    _ssl("S1", "balanced contrastive loss: λ/ν against InfoNCE; the loss variants; the bounds of Sec. 4",
         (ClaimSpec("balanced_beats_infonce", "some λ/ν ≠ 1 fixed in advance beats InfoNCE (λ/ν = 1)", "direction"),
          diagnostic(ClaimSpec("variant", "the paper's loss variants against InfoNCE (the summary states no ordering)", "value"),
                   "the summary states no ordering of the variants: a verdict word means nothing here"),
          diagnostic(ClaimSpec("supervised_reference", "the supervised prototype objective the paper derives from (with labels) against "
                    "InfoNCE: a reference, not a claim of the paper", "value"),
                   "a reference with labels, not a claim of the paper"),
          ClaimSpec("attraction_bound", "Thm 4.4 (attraction, Jensen): −s(f(t(x)), E_T f(T(x))) ≤ −E_T s(f(t(x)), f(T(x))), "
                    "on trained features, at every view of every test image", "bound"),
          ClaimSpec("repulsion_bound", "Thm 4.6 (repulsion): max_{y'≠y} s(f(t(x)), μ̂_{y'}) ≤ E_{T'}[(1/να) log E_{X'} "
                    "exp(α s)] + (1/να) log n, on trained features, at every anchor (n = the number of classes and ν = "
                    "supervised_view.bound_nu: the summary defines neither)", "bound"))),
    _ssl("S2", "similarity: cosine vs dot vs negative Euclidean",
         (ClaimSpec("accuracy", "top-1 accuracy per similarity", "value", "linear_top1", _SSL_DATA),
          ClaimSpec("cosine_beats", "cosine with normalisation beats the other similarity", "direction"))),
    _ssl("S3", "data balance: uniform vs Pareto long-tailed of equal size",
         (ClaimSpec("accuracy", "top-1 accuracy per training set", "value", "linear_top1", _SSL_DATA),
          ClaimSpec("uniform_beats_long_tailed", "balanced training data beat long-tailed data of the same size, overall "
                    "and on the tail classes", "direction"))),
    _ssl("S4", "prototype representation bias: base / no blur / + rotation",
         (ClaimSpec("accuracy", "top-1 accuracy per augmentation", "value", "linear_top1", _SSL_DATA),
          ClaimSpec("bias", "prototype representation bias per augmentation (unit-normalised features, ≤ 2)", "value",
                    "prototype_bias", _SSL_DATA),
          ClaimSpec("bias_raw", "prototype representation bias per augmentation, un-normalised features", "value",
                    "prototype_bias", _SSL_DATA),
          ClaimSpec("accuracy_order", "accuracy ordering base > no_blur > plus_rotation, pair by pair", "direction"),
          ClaimSpec("bias_order", "bias ordering base < no_blur < plus_rotation, pair by pair (the bias relative to "
                    "the prototypes' spread, scale-invariant)", "direction"))),
)

EXPERIMENT_ORDER = tuple(e.id for e in EXPERIMENTS)
SUMMARY_FILES = ("summary.csv", "summary.md", "summary.html")
SCALES_FILES = ("scales.csv", "scales.html")  # this run beside the other published scales (rule scales_table)


def experiment(identifier: str) -> Experiment:
    for e in EXPERIMENTS:
        if e.id == identifier:
            return e
    raise KeyError(f"unknown experiment {identifier!r}; known: {', '.join(EXPERIMENT_ORDER)}")


def experiments_of(paper: int) -> tuple[Experiment, ...]:
    if paper not in PAPERS:
        raise KeyError(f"unknown paper {paper!r}; known: {sorted(PAPERS)}")
    return tuple(e for e in EXPERIMENTS if e.paper == paper)


def figure_styles() -> list[str]:
    """The figure names a style override may use (``figures.overrides.<name>``)."""
    return list(dict.fromkeys(e.style for e in EXPERIMENTS if e.style))


def report_captions() -> dict[str, dict]:
    """Report item → its caption template and the experiments whose claims it shows."""
    captions: dict[str, dict] = {}
    for e in EXPERIMENTS:
        if e.figure:
            captions.setdefault(e.figure, {"template": e.caption, "experiments": []})["experiments"].append(e.id)
    captions["summary"] = {"template": "summary", "experiments": "all"}
    return captions


def local_rules() -> list[str]:
    """Rules that turn finished tables into figures, verdicts and captions (seconds each): on a
    cluster they run on the submitting host instead of paying for a queue pass."""
    rules = [r for e in EXPERIMENTS for r in (e.claims_rule, e.figure_rule) if r]
    return list(dict.fromkeys(["all", *(f"paper{p}" for p in PAPERS), "summary", "scales_table", "report_captions", "publish",
                                *rules]))


def claim_tables(results: str) -> list[str]:
    return [f"{results}/{e.claims_table}" for e in EXPERIMENTS]


def experiment_targets(results: str, experiments=EXPERIMENTS) -> list[str]:
    """Every result file, figure (PNG and PDF) and claims table of ``experiments``."""
    files = []
    for e in experiments:
        files += [f"{results}/{t}" for t in e.tables]
        files += [f"{results}/figures/{e.figure}.{ext}" for ext in ("png", "pdf")] if e.figure else []
        files.append(f"{results}/{e.claims_table}")
    return list(dict.fromkeys(files))


def published_files() -> list[str]:
    """What `snakemake publish` copies into docs/results/<scale>/ (paths relative to the results folder): the summary
    (Markdown and CSV), every experiment's claims table and every figure (PNG)."""
    files = ["summary.md", "summary.csv", *(e.claims_table for e in EXPERIMENTS)]
    files += [f"figures/{e.figure}.png" for e in EXPERIMENTS if e.figure]
    return list(dict.fromkeys(files))


def all_targets(results: str) -> list[str]:
    """What `snakemake` builds by default: every experiment, the summary, the scales side by side and the report
    captions."""
    return [*experiment_targets(results), *(f"{results}/{f}" for f in (*SUMMARY_FILES, *SCALES_FILES)),
            *(f"{results}/report/captions/{name}.rst" for name in report_captions())]
