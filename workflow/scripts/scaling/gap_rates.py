"""C3: the rate r of the trained model's gap with its floor, c + a·x^(−r), on each sweep's asymptotic window (the
longest tail the form fits), beside Thm 4.5's exponents; and the two seed-paired differences of rates the theorem
implies (the n-rate at two values of m, SCRL's m-rate against SSCRL's); and the rate at which the retrieval AUC
approaches its plateau in m and in n (Sec. 5's marginal gains; in n on the marginal-gain design where the config
declares one, its own n and fresh seeds)."""

import pandas as pd

from crlrepro.claims.reference import paper_values
from crlrepro.experiments.rate_fits import (
    AUC_RATES_NOT_APPLICABLE,
    GAP_RATES_NOT_APPLICABLE,
    RATE_DIFFERENCES_NOT_APPLICABLE,
    auc_deficit_rate_table,
    gap_rate_table,
    rate_difference_table,
)
from crlrepro.runtime.artifacts import read_json, read_table
from crlrepro.studies.scaling import sweep_rows_by_regime
from crlrepro.workflow.pipeline import ScriptRun

run = ScriptRun(snakemake)
table = read_table(snakemake.input.table)
if snakemake.input.second:  # the n sweep at the second m: its rows from the run tables that hold its points
    runs = pd.concat([read_table(path) for path in snakemake.input.second], ignore_index=True)
    points = run.params["second"]["n2"]
    table = pd.concat([table, sweep_rows_by_regime(runs, "n2", points, run.params["seeds"])], ignore_index=True)
gain = run.params["gain"]  # the marginal-gain design (n_sweep.gain): the n rows of the marginal gains read it alone
design = None
if snakemake.input.gain:
    runs = pd.concat([read_table(path) for path in snakemake.input.gain], ignore_index=True)
    design = sweep_rows_by_regime(runs, "gain", gain["points"], gain["seeds"])
reference = paper_values("C3", snakemake.input.paper_values)
exponents = {axis: {regime: -float(slope) for regime, slope in reference[f"slope_{axis}"].items()} for axis in ("m", "n")}
seed = int(table["seed"].min())
e_star = float(read_json(snakemake.input.oracle)["E_star"])  # the points read are those whose models trained
run.write_table(
    gap_rate_table(table, exponents, run.params["bootstrap"], seed=seed, e_star=e_star),
    snakemake.output.rates,
    missing=GAP_RATES_NOT_APPLICABLE,
)
run.write_table(
    rate_difference_table(table, run.params["bootstrap"], seed=seed, e_star=e_star),
    snakemake.output.differences,
    missing=RATE_DIFFERENCES_NOT_APPLICABLE,
)
run.write_table(
    auc_deficit_rate_table(
        table if design is None else pd.concat([table, design], ignore_index=True),
        e_star,
        exponents,
        run.params["bootstrap"],
        seed,
        sweeps=None if design is None else {"n": "gain"},
    ),
    snakemake.output.auc_rates,
    missing=AUC_RATES_NOT_APPLICABLE,
)
