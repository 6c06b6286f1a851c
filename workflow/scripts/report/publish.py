"""Publish this scale: its summary, claims tables and figures, checked, with a provenance file, into
docs/results/<scale>/ (crlrepro.workflow.publish.publish_scale)."""

from pathlib import Path

from crlrepro.workflow.pipeline import ScriptRun
from crlrepro.workflow.publish import publish_scale

run = ScriptRun(snakemake)
destination = Path(snakemake.output.provenance).parent
# The results folder is the inputs' common prefix (not a hard-coded parameter: Snakemake's lint asks for paths to
# come from the job's files, which also keeps this right under a remote or non-shared file system).
first, relative = snakemake.input.files[0], run.params["published"][0]
if not first.endswith("/" + relative):
    raise ValueError(f"{first}: expected the published file {relative} under this scale's results folder")
results = first[: -len(relative) - 1]
record = publish_scale(
    results,
    destination,
    run.params["published"],
    scale=run.params["scale"],
    config=run.params["config"],
    repository=Path(snakemake.scriptdir),
)
run.log.info(
    "published %d files of scale %s into %s (commit %s, %d recorded runs)",
    len(record["files"]),
    record["scale"],
    destination,
    record["git_commit"],
    len(record["runs"]),
)
