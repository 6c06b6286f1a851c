"""results/report/captions/<name>.rst: each report item's description completed with what this run
measured for its claims, the verdicts and (for the summary) the run's provenance."""

from pathlib import Path

from crlrepro.artifacts import read_table, write_text
from crlrepro.pipeline import ScriptRun
from crlrepro.summary import claims_caption

run = ScriptRun(snakemake)
claims = read_table(snakemake.input.summary)
templates = {Path(path).stem: Path(path).read_text() for path in snakemake.input.templates}
for (name, spec), path in zip(run.params["captions"].items(), snakemake.output):
    shown = claims if spec["experiments"] == "all" else claims[claims["experiment"].isin(spec["experiments"])]
    summary = spec["experiments"] == "all"
    write_text(claims_caption(templates[spec["template"]], shown, run.provenance() if summary else None,
                              list_claims=not summary), path)
    run.log.info("wrote %s (%d claims)", path, len(shown))
