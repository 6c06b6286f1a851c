"""A1: eigenvalues of the PMI operator and the truncation table (tail sums, excess risks)."""

import pandas as pd

from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.theory.spectral import pmi_spectrum, truncation_table
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
p = run.params
gmm = LatentClassGMM.from_config(p["gmm"])

eigenvalues = pmi_spectrum(gmm, p["nodes"]).eigenvalues[: p["num_eigenvalues"]]
spectrum = pd.DataFrame({"index": range(1, eigenvalues.size + 1), "eigenvalue": eigenvalues})
run.write_table(spectrum, snakemake.output.spectrum)
run.write_table(truncation_table(gmm, p["tau"], p["dims"], p["nodes"]), snakemake.output.truncation)
