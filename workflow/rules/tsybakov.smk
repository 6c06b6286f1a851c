# A4 (paper 2, Sec. 6): the Tsybakov exponent by Monte Carlo and exactly, the figure and claims.
# Each rule's params are the config keys it reads, declared once in crlrepro.studies.tsybakov.RULE_KEYS.


rule tsybakov_table:
    input:
        library("tsybakov_table"),
    output:
        table=f"{RESULTS}/approximation/tsybakov.csv",
        cdf=f"{RESULTS}/approximation/tsybakov_cdf.csv",
    log:
        f"{RESULTS}/logs/tsybakov_table.log",
    benchmark:
        f"{RESULTS}/benchmarks/tsybakov_table.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("tsybakov_table"),
    script:
        "../scripts/tsybakov/tsybakov_table.py"


rule tsybakov_exact:
    input:
        library("tsybakov_exact"),
        cdf=rules.tsybakov_table.output.cdf,
    output:
        curve=f"{RESULTS}/approximation/tsybakov_exact.csv",
        limit=f"{RESULTS}/approximation/tsybakov_limit.json",
        windows=f"{RESULTS}/approximation/tsybakov_windows.csv",
        check=f"{RESULTS}/approximation/tsybakov_mc_check.csv",
    log:
        f"{RESULTS}/logs/tsybakov_exact.log",
    benchmark:
        f"{RESULTS}/benchmarks/tsybakov_exact.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("tsybakov_exact"),
    script:
        "../scripts/tsybakov/tsybakov_exact.py"


rule figure_tsybakov:
    input:
        library("figure_tsybakov"),
        table=rules.tsybakov_table.output.table,
        cdf=rules.tsybakov_table.output.cdf,
        curve=rules.tsybakov_exact.output.curve,
        limit=rules.tsybakov_exact.output.limit,
        windows=rules.tsybakov_exact.output.windows,
        paper_values=PAPER_VALUES,
    output:
        png=report(f"{RESULTS}/figures/tsybakov.png", caption=caption("tsybakov"), category="Paper 2: approximation"),
        pdf=f"{RESULTS}/figures/tsybakov.pdf",
    log:
        f"{RESULTS}/logs/figure_tsybakov.log",
    benchmark:
        f"{RESULTS}/benchmarks/figure_tsybakov.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("figure_tsybakov"),
        style=figure_style("tsybakov"),
    script:
        "../scripts/tsybakov/figure_tsybakov.py"


rule claims_a4:
    input:
        library("claims_a4"),
        table=rules.tsybakov_table.output.table,
        curve=rules.tsybakov_exact.output.curve,
        limit=rules.tsybakov_exact.output.limit,
        windows=rules.tsybakov_exact.output.windows,
        check=rules.tsybakov_exact.output.check,
        paper_values=PAPER_VALUES,
    output:
        f"{RESULTS}/claims/A4.csv",
    log:
        f"{RESULTS}/logs/claims_a4.log",
    benchmark:
        f"{RESULTS}/benchmarks/claims_a4.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("claims_a4"),
        setting=claim_setting("A4"),
    script:
        "../scripts/tsybakov/claims_a4.py"
