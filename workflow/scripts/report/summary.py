"""results/summary.{csv,md,html}: every experiment's claims, in the registry's order, grouped by paper."""

from crlrepro.claims.verdicts import CLAIM_NOT_APPLICABLE
from crlrepro.runtime.artifacts import read_table
from crlrepro.studies.summary import collect_summary, machine_text, summary_html, summary_markdown
from crlrepro.workflow.pipeline import ScriptRun
from crlrepro.workflow.publish import machine

run = ScriptRun(snakemake)
table = collect_summary([read_table(path) for path in snakemake.input.claims])
run.write_table(table, snakemake.output.csv, missing=CLAIM_NOT_APPLICABLE)
table = read_table(snakemake.output.csv)  # the Markdown and HTML are what the CSV says (crlrepro.workflow.publish checks the md)
# what made it: the scale, the commit its sidecar records, this machine
context = {"scale": snakemake.params.scale, "commit": run.provenance()["git_commit"], "machine": machine_text(machine())}
run.write_text(summary_markdown(table, context), snakemake.output.md)
run.write_text(summary_html(table), snakemake.output.html)
