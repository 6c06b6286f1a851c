"""Publish this scale: its summary, claims tables and figures, checked, with a provenance file, into
docs/results/<scale>/ (crlrepro.publish.publish_scale)."""

from pathlib import Path

from crlrepro.pipeline import ScriptRun
from crlrepro.publish import publish_scale

run = ScriptRun(snakemake)
destination = Path(snakemake.output.provenance).parent
record = publish_scale(run.params["results"], destination, run.params["published"], scale=run.params["scale"],
                       config=run.params["config"], repository=Path(snakemake.scriptdir))
run.log.info("published %d files of scale %s into %s (commit %s, %d recorded runs)", len(record["files"]),
             record["scale"], destination, record["git_commit"], len(record["runs"]))
