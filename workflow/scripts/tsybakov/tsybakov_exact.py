"""A4 exact: F(t) by quadrature with its local slope and the slope's small-t limit μ₀ (the admissible exponent, read by
the claims and the figure), the fit windows scanned for the paper's μ̂, and the Monte-Carlo CDF of rule tsybakov
checked against it."""

import numpy as np
import pandas as pd

from crlrepro.runtime.artifacts import read_table, write_artifact_json
from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.theory.tsybakov import (
    admissible_exponent,
    exact_gap_curve,
    gap_cdf,
    monte_carlo_agreement,
    window_slope,
    windows_matching,
)
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
c = run.params["tsybakov"]
e = c["exact"]
gmm = LatentClassGMM.from_config(run.params["gmm"])
run.log.info("exact F(t) on [%g, %g], %d points per decade", *e["t_range"], e["points_per_decade"])
curve = exact_gap_curve(gmm, *e["t_range"], e["points_per_decade"])
run.log.info(
    "local slope d log F / d log t by %s",
    {"density": "t F'/F (r(x, ·) monotone for every x)", "difference": "a five-point difference of log F"}[
        curve.attrs["slope_method"]
    ],
)
run.log.info("window scan: t_min from %g to %g, widths %s decades", *e["window_starts"], e["window_widths"])
# the slopes only: which of them match the paper's μ̂ (and within what tolerance) is for the claims to say
windows = windows_matching(
    gmm, 0.0, 0.0, tuple(e["window_starts"]), e["window_widths"], points_per_decade=e["points_per_decade"], known=curve
).drop(columns="matches")
t_min, t_max = c["window"]
configured = {
    "t_min": t_min,
    "t_max": t_max,
    "width": float(np.log10(t_max / t_min)),
    "points": c["grid_points"],
    "slope": window_slope(gmm, c["window"], c["grid_points"]),
}
windows = pd.concat([windows.assign(configured=False), pd.DataFrame([{**configured, "configured": True}])], ignore_index=True)
run.log.info("configured window [%g, %g]: exact slope %.6g", t_min, t_max, configured["slope"])
mc = read_table(snakemake.input.cdf)
exact = gap_cdf(gmm, mc["t"].to_numpy())
check = mc.rename(columns={"cdf": "cdf_monte_carlo"}).assign(cdf_exact=exact)
check["z"] = monte_carlo_agreement(exact, check["cdf_monte_carlo"].to_numpy(), c["samples"])
run.log.info("Monte Carlo vs exact: max |z| = %.3g over %d t", check["z"].abs().max(), len(check))
ordered = curve.sort_values("t")
limit = admissible_exponent(ordered["t"].to_numpy(), ordered["local_slope"].to_numpy())
run.log.info("small-t limit of the local slope μ₀ = %.6g [%.6g, %.6g]", limit["limit"], limit["low"], limit["high"])
run.write_table(curve, snakemake.output.curve)
write_artifact_json(limit, snakemake.output.limit, run.provenance())
run.write_table(windows, snakemake.output.windows)
run.write_table(check, snakemake.output.check)
