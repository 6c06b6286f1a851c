"""C2: Thm 3.4 searched adversarially, scores with a large regret / bound ratio (crlrepro.theory.calibration_search)."""

from crlrepro.runtime.artifacts import write_artifact_json
from crlrepro.theory.calibration_search import adversarial_calibration_search
from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
search = run.params["search"]
table, error = adversarial_calibration_search(
    LatentClassGMM.from_config(run.params["gmm"]),
    run.params["tau"],
    nodes=search["nodes"],
    inner_nodes=search["inner_nodes"],
    levels=search["levels"],
    widths=search["widths"],
    epsilons=search["epsilons"],
    knots=search["knots"],
    starts=search["starts"],
    evaluations=search["evaluations"],
    seed=search["seed"],
    log=run.log.info,
)
best = table.loc[table["ratio"].idxmax()]
run.log.info("largest ratio %.4g (%s: %s); its regret's error %.3g", best["ratio"], best["family"], best["parameters"], error)
run.write_table(table, snakemake.output.table)
write_artifact_json(
    {"largest_ratio": float(best["ratio"]), "regret_error": error, "scores": int(len(table))},
    snakemake.output.summary,
    run.provenance(),
)
