"""Adapter between Snakemake's ``snakemake`` script object and the library.

Workflow scripts stay thin::

    run = ScriptRun(snakemake)          # stderr → the rule's log, threads from the rule
    table = some_library_function(**run.params)
    run.write_table(table, snakemake.output.table)
"""

from __future__ import annotations

import logging
import sys

import pandas as pd

from crlrepro import artifacts
from crlrepro.device import configure_threads, select_device


class ScriptRun:
    def __init__(self, snakemake, *, seed=None, device: str = "cpu"):
        self.snakemake = snakemake
        self.params = dict(snakemake.params.items())
        self.seed = seed
        if snakemake.log:
            sys.stderr = open(snakemake.log[0], "w", buffering=1)
        logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
        self.log = logging.getLogger(snakemake.rule)
        configure_threads(snakemake.threads)
        self.device = select_device(device)
        self.log.info("rule %s, wildcards %s, threads %d, device %s, params %s", snakemake.rule,
                      dict(snakemake.wildcards.items()), snakemake.threads, self.device, self.params)

    def provenance(self) -> dict:
        return artifacts.provenance(
            config=self.snakemake.config,
            params=self.params,
            rule=self.snakemake.rule,
            seed=self.seed,
            device=self.device,
            threads=self.snakemake.threads,
        )

    def write_table(self, table: pd.DataFrame, path) -> None:
        artifacts.write_table(table, path, self.provenance())
        self.log.info("wrote %s (%d rows)", path, len(table))
