"""The job grid: which job trains which point of an experiment, from the validated config.

Paper 1's sweeps share points (the m sweep's n with the n sweep's m, a budget split on the n sweep), which are
trained once by the first sweep that lists them; A3's sensitivity grid evaluates D = K everywhere and the elbow's D on
the cross through the configured setting, reusing A3's own models at its centre; paper 3's run specs are shared
between S1, S2 and S4 (the reference run is trained once). The rules (workflow/rules/common.smk), the cost
estimates (:mod:`crlrepro.workflow.config`) and the tables read the grid from here, so a job's outputs and its table's
rows are the same list.
"""

from __future__ import annotations

__all__ = ["SSL_EXPERIMENTS", "SWEEPS", "lcgm_sensitivity_dims", "lcgm_sensitivity_points", "lcgm_sensitivity_reused",
           "ssl_experiment_specs", "sweep_owner", "sweep_points", "sweep_sources", "sweep_trained_points"]

SWEEPS = ("m", "n", "budget")


def sweep_points(sweep: str, consistency: dict) -> list[tuple[int, int]]:
    """The (n, m) of one paper-1 sweep of the config's ``consistency`` block: ``m`` (scaling.m_sweep:
    m varies at fixed n), ``n`` (scaling.n_sweep: n varies at fixed m) or ``budget`` (n = total / m)."""
    scaling, budget = consistency["scaling"], consistency["budget"]
    if sweep == "m":
        return [(int(scaling["m_sweep"]["n"]), int(m)) for m in sorted(scaling["m_sweep"]["ms"])]
    if sweep == "n":
        return [(int(n), int(scaling["n_sweep"]["m"])) for n in sorted(scaling["n_sweep"]["ns"])]
    if sweep == "budget":
        total = int(budget["total"])
        if any(total % int(m) for m in budget["ms"]):
            raise ValueError(f"consistency.budget.ms: every m must divide consistency.budget.total = {total}, got {budget['ms']}")
        return [(total // int(m), int(m)) for m in sorted(budget["ms"])]
    raise ValueError(f"unknown sweep {sweep!r}; expected one of {', '.join(SWEEPS)}")


def sweep_owner(point: tuple[int, int], consistency: dict) -> str:
    """The sweep whose job trains ``point`` = (n, m): the first of SWEEPS (m, n, budget) that lists it. A point two
    sweeps share (the m sweep's n with the n sweep's m, a budget split on the n sweep) is trained once, with the
    same seeds and model, so its rows are those either job would write."""
    for sweep in SWEEPS:
        if tuple(point) in sweep_points(sweep, consistency):
            return sweep
    raise ValueError(f"no sweep of the consistency block lists (n, m) = {tuple(point)}")


def sweep_trained_points(sweep: str, consistency: dict) -> list[tuple[int, int]]:
    """The points of ``sweep`` its own job trains (:func:`sweep_owner`): none of an earlier sweep's."""
    return [point for point in sweep_points(sweep, consistency) if sweep_owner(point, consistency) == sweep]


def sweep_sources(sweeps, consistency: dict) -> list[str]:
    """The sweeps (in SWEEPS order) whose run tables hold every point of ``sweeps``."""
    owners = {sweep_owner(point, consistency) for sweep in sweeps for point in sweep_points(sweep, consistency)}
    return [sweep for sweep in SWEEPS if sweep in owners]


def lcgm_sensitivity_dims(lcgm: dict, i: int, j: int) -> list[int]:
    """The D evaluated at point (i, j) of ``lcgm.sensitivity`` (the i-th noise_y, the j-th separation): D = K, and
    ``elbow_dims`` too on the cross through the configured (noise_y, separation)."""
    grid = lcgm["sensitivity"]
    on_cross = grid["noise_y"][i] == lcgm["noise_y"] or grid["separation"][j] == lcgm["separation"]
    return sorted({int(lcgm["classes"]), *(int(d) for d in grid.get("elbow_dims", []) if on_cross)})


def lcgm_sensitivity_reused(lcgm: dict, i: int, j: int) -> list[int]:
    """The D of point (i, j) that A3's own sweep has already trained: at the grid's centre (the configured noise_y
    and separation) the sensitivity model of D with the first seed is A3's model of D with that seed, the same
    data, initialisation and steps, so it is read from there instead of trained twice."""
    grid = lcgm["sensitivity"]
    if grid["noise_y"][i] != lcgm["noise_y"] or grid["separation"][j] != lcgm["separation"]:
        return []
    return [d for d in lcgm_sensitivity_dims(lcgm, i, j) if d in {int(dim) for dim in lcgm["dims"]}]


def lcgm_sensitivity_points(lcgm: dict) -> list[list]:
    """Every model of ``lcgm.sensitivity`` as [noise_y, separation, D], sorted: the exact set its table must hold."""
    grid = lcgm["sensitivity"]
    return sorted([float(grid["noise_y"][i]), float(grid["separation"][j]), d]
                  for i in range(len(grid["noise_y"])) for j in range(len(grid["separation"]))
                  for d in lcgm_sensitivity_dims(lcgm, i, j))


SSL_EXPERIMENTS = ("S1", "S2", "S3", "S4")


def ssl_experiment_specs(experiment: str, view: dict) -> list[tuple[str, str, str, str, str]]:
    """(balance, augmentation, similarity, loss, λ/ν as text) of every paper-3 run of one experiment,
    from the config's ``supervised_view`` block. The reference run (full data, base augmentation,
    cosine, balanced loss with λ/ν = 1, i.e. InfoNCE) is shared by S1, S2 and S4, so it is trained once;
    S1 adds the paper's loss variants (``loss_variants``) at weight 1, and the supervised prototype
    objective (with labels, λ = 1) when listed there."""
    ratio = lambda r: f"{float(r):g}"  # noqa: E731
    if experiment == "S1":
        return ([("full", "base", "cosine", "balanced", ratio(r)) for r in sorted(view["ratios"])]
                + [("full", "base", "cosine", loss, "1") for loss in view.get("loss_variants", [])])
    if experiment == "S2":
        return [("full", "base", s, "balanced", "1") for s in view["similarities"]]
    if experiment == "S3":
        return [("uniform", "base", "cosine", "balanced", "1"), ("long_tailed", "base", "cosine", "balanced", "1")]
    if experiment == "S4":
        return [("full", a, "cosine", "balanced", "1") for a in view["augmentations"]]
    raise ValueError(f"unknown paper-3 experiment {experiment!r}; expected one of {', '.join(SSL_EXPERIMENTS)}")
