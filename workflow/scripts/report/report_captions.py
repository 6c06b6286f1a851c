"""results/report/captions/<name>.rst: each report item's description completed with what this run
measured for its claims, the verdicts and (for the summary) the run's provenance; a caption that names a panel
or a quantity its figure does not draw stops the job (crlrepro.studies.summary.caption_problems)."""

from pathlib import Path

from crlrepro.runtime.artifacts import read_figure_texts, read_table
from crlrepro.studies.summary import caption_problems, claims_caption
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
claims = read_table(snakemake.input.summary)
templates = {Path(path).stem: (path, Path(path).read_text()) for path in snakemake.input.templates}
figures = {Path(path).stem: path for path in snakemake.input.figures}
problems = []
for name, spec in run.params["captions"].items():
    if name in figures:
        source, text = templates[spec["template"]]
        problems += [
            f"{source} (caption of {figures[name]}): {problem}"
            for problem in caption_problems(text, read_figure_texts(figures[name]))
        ]
if problems:
    raise ValueError("captions that do not match their figures:\n  " + "\n  ".join(problems))
for (_, spec), path in zip(run.params["captions"].items(), snakemake.output, strict=True):
    shown = claims if spec["experiments"] == "all" else claims[claims["experiment"].isin(spec["experiments"])]
    summary = spec["experiments"] == "all"
    run.write_text(
        claims_caption(templates[spec["template"]][1], shown, run.provenance() if summary else None, list_claims=not summary),
        path,
    )
