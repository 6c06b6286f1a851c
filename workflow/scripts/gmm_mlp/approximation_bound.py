"""Paper 2, Sec. 3: per D, the best rank-D excess risk (s_D and the trained MLPs) against the spectral tail and
the bound's constant under the density-ratio bound α and ‖s_D‖∞ ≤ B; and how the spectrum decays."""

import pandas as pd

from crlrepro.runtime.artifacts import read_table
from crlrepro.theory.gmm import LatentClassGMM
from crlrepro.theory.spectral import DECAY_NOT_APPLICABLE, approximation_bound_table, eigenvalue_decay, pmi_spectrum
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
p = run.params
gmm = LatentClassGMM.from_config(p["gmm"])
run.write_table(
    approximation_bound_table(gmm, p["tau"], p["dims"], p["nodes"], trained=read_table(snakemake.input.trained)),
    snakemake.output.bound,
)
eigenvalues = pmi_spectrum(gmm, p["nodes"]).eigenvalues
groups, fits = eigenvalue_decay(eigenvalues, group=2)  # paper 2's symmetric GMM has its eigenvalues in pairs
run.write_table(
    pd.concat([eigenvalue_decay(eigenvalues, group=1)[1], fits], ignore_index=True),
    snakemake.output.decay,
    missing=DECAY_NOT_APPLICABLE,
)
run.write_table(groups, snakemake.output.groups, missing=DECAY_NOT_APPLICABLE)
