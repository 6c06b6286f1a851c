"""The benchmark suite's own logic (benchmarks/): how it reads Snakemake's output and the benchmark
files, and when it reports a missed target. The measurements themselves run in `benchmarks/run.py`."""

import sys
from pathlib import Path

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import common  # noqa: E402
import pipeline  # noqa: E402

SNAKEMAKE_LOG = """Building DAG of jobs...
Job stats:
job                count
---------------  -------
all                    1
figure_tsybakov        1
total                  2

[Sun Nov 29 18:00:00 2026]
localrule figure_tsybakov:
    input: results/tsybakov/tsybakov.csv
    jobid: 12
[Sun Nov 29 18:00:03 2026]
Finished jobid: 12 (Rule: figure_tsybakov)
1 of 2 steps (50%) done
[Sun Nov 29 18:00:03 2026]
localrule all:
    jobid: 0
2 of 2 steps (100%) done
"""


def test_reads_the_jobs_and_rules_a_run_executed():
    assert pipeline.executed_rules(SNAKEMAKE_LOG) == ["figure_tsybakov"]
    assert pipeline.jobs_run(SNAKEMAKE_LOG) == 2
    assert pipeline.jobs_run("Building DAG of jobs...\nNothing to be done (all requested files are present and up to date).") == 0
    assert pipeline.executed_rules("rule ssl_train:\n  jobid: 3\nrule ssl_train:\n  jobid: 4\n") == ["ssl_train", "ssl_train"]


def test_reads_the_benchmark_files(tmp_path):
    bench = tmp_path / "results" / "benchmarks"
    (bench / "ssl_train").mkdir(parents=True)
    header = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
    (bench / "ssl_train" / "full_seed0.tsv").write_text(header + "12.5\t0:00:12\t790.1\t3601\t763\t775\t0\t73\t86.9\t11.9\n")
    (bench / "oracle.tsv").write_text(header + "19.0\t0:00:19\t-\t-\t-\t-\t-\t-\t-\t18.0\n")
    jobs = pipeline.rule_times(tmp_path).set_index("rule")
    assert jobs.loc["ssl_train", "job"] == "full_seed0" and jobs.loc["ssl_train", "max_rss_mib"] == pytest.approx(790.1)
    assert jobs.loc["oracle", "seconds"] == 19.0 and pd.isna(jobs.loc["oracle", "max_rss_mib"])
    assert pipeline.cpu_per_thread(jobs).to_dict() == pytest.approx({"ssl_train": 11.9 / 12.5, "oracle": 18.0 / 19.0})


def test_only_measured_misses_fail_and_the_table_says_so():
    frame = common.table([common.row("a", "met", 1.0, 2.0, 2.0, ">= 2x", True),
                          common.row("b", "missed", 1.0, 1.5, 1.5, ">= 2x", False),
                          common.row("gpu", "not measured here", None, 3.0, None, "where a GPU is lent", None)])
    assert list(common.failed(frame)["measure"]) == ["missed"]
    text = common.markdown(frame)
    assert "| b | missed | 1 | 1.5 | 1.5 | >= 2x | **no** |" in text
    assert "| gpu | not measured here | — | 3 | — | where a GPU is lent | — |" in text
