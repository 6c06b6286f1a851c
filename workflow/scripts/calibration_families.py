"""C2 on score families (spectral truncations, perturbed Bayes scores): regret against excess risk per member,
and each family's exponent."""

import numpy as np

from crlrepro.calibration import calibration_table, family_exponents, score_family_table
from crlrepro.gmm import LatentClassGMM
from crlrepro.pipeline import ScriptRun

run = ScriptRun(snakemake)
p, c = run.params, run.params["calibration"]
f = c["families"]
gmm = LatentClassGMM.from_config(p["gmm"])
members = score_family_table(gmm, p["tau"], dims=f["dims"], epsilons=f["epsilons"], perturbations=f["perturbations"],
                             nodes=c["nodes"], inner_nodes=c["inner_nodes"])
table = calibration_table(members, gmm, p["tau"], nodes=c["nodes"], inner_nodes=c["inner_nodes"])
fits = family_exponents(table, c["bootstrap"], np.random.default_rng(c["seed"]), floor=c["regret_floor"])
for row in fits.itertuples():
    run.log.info("%s: exponent %.4g [%.4g, %.4g] over %d members", row.model, row.exponent, row.low, row.high, row.points_used)
run.write_table(table, snakemake.output.table)
run.write_table(fits, snakemake.output.fits)
