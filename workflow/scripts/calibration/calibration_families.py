"""C2 on score families (spectral truncations, perturbed Bayes scores): regret against excess risk per member on a
fine rule, the regret's error from a rule with half the nodes, and each family's exponent at its end nearest the
Bayes score."""

from crlrepro.experiments.calibration import FAMILY_FIT_NOT_APPLICABLE, calibration_table, family_exponents, score_family_table
from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
p, f = run.params, run.params["families"]
gmm = LatentClassGMM.from_config(p["gmm"])
tables = []
for nodes in (f["nodes"], f["nodes"] // 2):
    run.log.info("score families on %d nodes per view, %d inner", nodes, f["inner_nodes"])
    members = score_family_table(
        gmm,
        p["tau"],
        dims=f["dims"],
        epsilons=f["epsilons"],
        perturbations=f["perturbations"],
        nodes=nodes,
        inner_nodes=f["inner_nodes"],
    )
    tables.append(calibration_table(members, gmm, p["tau"], nodes=nodes, inner_nodes=f["inner_nodes"]))
table, coarse = tables
table["regret_error"] = (table["excess_auc"] - coarse["excess_auc"]).abs()
table["excess_loss_error"] = (table["excess_loss"] - coarse["excess_loss"]).abs()
fits = family_exponents(table, tail=f["tail"], max_relative_error=f["max_relative_error"])
for row in fits.itertuples():
    run.log.info(
        "%s: exponent %.4g, local slopes [%.4g, %.4g] over %d of %d usable members",
        row.model,
        row.exponent,
        row.low,
        row.high,
        row.points_used,
        row.usable,
    )
run.write_table(table, snakemake.output.table)
run.write_table(fits, snakemake.output.fits, missing=FAMILY_FIT_NOT_APPLICABLE)
