# C2 (paper 1, Thm 3.4): calibration along trainings and along score families, paper 1's small-t Tsybakov exponent,
# the figure and claims.
# Each rule's params are the config keys it reads, declared once in crlrepro.studies.calibration.RULE_KEYS.


rule calibration_train:
    input:
        library("calibration_train"),
    output:
        # one job per D runs all seeds (one interpreter start-up instead of one per model)
        expand(f"{RESULTS}/consistency/calibration/D{{{{D}}}}_seed{{seed}}.csv", seed=config["seeds"]),
    log:
        f"{RESULTS}/logs/calibration_train/D{{D}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/calibration_train/D{{D}}.tsv"
    wildcard_constraints:
        D=r"\d+",
    conda:
        CONDA_ENV
    resources:
        gpu=gpu_request(),
    params:
        **keys("calibration_train"),
    script:
        "../scripts/calibration/calibration_train.py"


rule calibration_table:
    input:
        library("calibration_table"),
        points=calibration_points(),
    output:
        table=f"{RESULTS}/consistency/calibration.csv",
        fit=f"{RESULTS}/consistency/calibration_fit.json",
    log:
        f"{RESULTS}/logs/calibration_table.log",
    benchmark:
        f"{RESULTS}/benchmarks/calibration_table.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("calibration_table"),
    script:
        "../scripts/calibration/calibration_table.py"


rule calibration_families:
    input:
        library("calibration_families"),
    output:
        table=f"{RESULTS}/consistency/calibration_families.csv",
        fits=f"{RESULTS}/consistency/calibration_families_fit.csv",
    log:
        f"{RESULTS}/logs/calibration_families.log",
    benchmark:
        f"{RESULTS}/benchmarks/calibration_families.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("calibration_families"),
    script:
        "../scripts/calibration/calibration_families.py"


rule calibration_search:
    input:
        library("calibration_search"),
    output:
        table=f"{RESULTS}/consistency/calibration_search.csv",
        summary=f"{RESULTS}/consistency/calibration_search_summary.json",
    log:
        f"{RESULTS}/logs/calibration_search.log",
    benchmark:
        f"{RESULTS}/benchmarks/calibration_search.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("calibration_search"),
    script:
        "../scripts/calibration/calibration_search.py"


rule tsybakov_small_t:
    input:
        library("tsybakov_small_t"),
    output:
        f"{RESULTS}/consistency/tsybakov_small_t.json",
    log:
        f"{RESULTS}/logs/tsybakov_small_t.log",
    benchmark:
        f"{RESULTS}/benchmarks/tsybakov_small_t.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("tsybakov_small_t"),
    script:
        "../scripts/calibration/tsybakov_small_t.py"


rule figure_calibration:
    input:
        library("figure_calibration"),
        table=rules.calibration_table.output.table,
        fit=rules.calibration_table.output.fit,
        tsybakov=rules.tsybakov_small_t.output[0],
        families=rules.calibration_families.output.table,
    output:
        png=report(f"{RESULTS}/figures/calibration.png", caption=caption("calibration"), category="Paper 1"),
        pdf=f"{RESULTS}/figures/calibration.pdf",
    log:
        f"{RESULTS}/logs/figure_calibration.log",
    benchmark:
        f"{RESULTS}/benchmarks/figure_calibration.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("figure_calibration"),
        style=figure_style("calibration"),
    script:
        "../scripts/calibration/figure_calibration.py"


rule claims_c2:
    input:
        library("claims_c2"),
        table=rules.calibration_table.output.table,
        fit=rules.calibration_table.output.fit,
        tsybakov=rules.tsybakov_small_t.output[0],
        families=rules.calibration_families.output.fits,
        search=rules.calibration_search.output.table,
        search_summary=rules.calibration_search.output.summary,
        paper_values=PAPER_VALUES,
    output:
        f"{RESULTS}/claims/C2.csv",
    log:
        f"{RESULTS}/logs/claims_c2.log",
    benchmark:
        f"{RESULTS}/benchmarks/claims_c2.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("claims_c2"),
    script:
        "../scripts/calibration/claims_c2.py"
