# C3 and C4 (paper 1, Thm 4.5 and Sec. 5): the fixed-score deviations, the sweeps' trainings (shared by the fixed budget),
# their tables, figures and claims.
# Each rule's params are the config keys it reads, declared once in crlrepro.studies.scaling.RULE_KEYS.


rule deviation_train:
    input:
        library("deviation_train"),
    output:
        inner=f"{RESULTS}/consistency/deviation/inner_draws.csv",
        inbatch=f"{RESULTS}/consistency/deviation/inbatch_draws.csv",
        outer=f"{RESULTS}/consistency/deviation/outer_draws.csv",
    log:
        f"{RESULTS}/logs/deviation_train.log",
    benchmark:
        f"{RESULTS}/benchmarks/deviation_train.tsv"
    conda:
        CONDA_ENV
    resources:
        gpu=gpu_request(),
    params:
        **keys("deviation_train"),
    script:
        "../scripts/scaling/deviation_train.py"


rule deviation_table:
    input:
        library("deviation_table"),
        inner=f"{RESULTS}/consistency/deviation/inner_draws.csv",
        inbatch=f"{RESULTS}/consistency/deviation/inbatch_draws.csv",
        outer=f"{RESULTS}/consistency/deviation/outer_draws.csv",
        paper_values=PAPER_VALUES,
    output:
        deviations=f"{RESULTS}/consistency/deviation.csv",
        slopes=f"{RESULTS}/consistency/deviation_slopes.csv",
    log:
        f"{RESULTS}/logs/deviation_table.log",
    benchmark:
        f"{RESULTS}/benchmarks/deviation_table.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("deviation_table"),
    script:
        "../scripts/scaling/deviation_table.py"


rule scaling_train:
    input:
        library("scaling_train"),
    output:
        # the sweep's points that no earlier sweep lists (sweep_trained_points): a shared point is trained once
        f"{RESULTS}/consistency/runs/{{sweep}}_{{regime}}.csv",
    log:
        f"{RESULTS}/logs/scaling_train/{{sweep}}_{{regime}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/scaling_train/{{sweep}}_{{regime}}.tsv"
    priority: CHAIN_FIRST
    conda:
        CONDA_ENV
    resources:
        gpu=gpu_request(),
    params:
        **keys("scaling_train"),
        points=lambda wildcards: sweep_trained_points(wildcards.sweep, config["consistency"], wildcards.regime),
        seeds=lambda wildcards: sweep_seeds(wildcards.sweep, config["consistency"]),
    script:
        "../scripts/scaling/scaling_train.py"


rule scaling_table:
    input:
        library("scaling_table"),
        runs=scaling_runs(["m", "n"]),
        paper_values=PAPER_VALUES,
    output:
        table=f"{RESULTS}/consistency/scaling.csv",
        slopes=f"{RESULTS}/consistency/scaling_slopes.csv",
    log:
        f"{RESULTS}/logs/scaling_table.log",
    benchmark:
        f"{RESULTS}/benchmarks/scaling_table.tsv"
    priority: CHAIN_FIRST
    conda:
        CONDA_ENV
    params:
        **keys("scaling_table"),
    script:
        "../scripts/scaling/scaling_table.py"


rule figure_scaling:
    input:
        library("figure_scaling"),
        table=rules.scaling_table.output.table,
        slopes=rules.scaling_table.output.slopes,
        deviations=rules.deviation_table.output.deviations,
        deviation_slopes=rules.deviation_table.output.slopes,
        oracle=rules.oracle_table.output.oracle,
        gap_rates=f"{RESULTS}/consistency/gap_rates.csv",
        auc_rates=f"{RESULTS}/consistency/auc_rates.csv",
        gain=scaling_runs(["gain"]),
    output:
        png=report(f"{RESULTS}/figures/scaling.png", caption=caption("scaling"), category="Paper 1"),
        pdf=f"{RESULTS}/figures/scaling.pdf",
    log:
        f"{RESULTS}/logs/figure_scaling.log",
    benchmark:
        f"{RESULTS}/benchmarks/figure_scaling.tsv"
    conda:
        CONDA_ENV
    params:
        style=figure_style("scaling"),
    script:
        "../scripts/scaling/figure_scaling.py"


rule gap_rates:
    input:
        library("gap_rates"),
        table=rules.scaling_table.output.table,
        second=scaling_runs(["n2"]),
        gain=scaling_runs(["gain"]),
        oracle=rules.oracle_table.output.oracle,
        paper_values=PAPER_VALUES,
    output:
        rates=f"{RESULTS}/consistency/gap_rates.csv",
        differences=f"{RESULTS}/consistency/rate_differences.csv",
        auc_rates=f"{RESULTS}/consistency/auc_rates.csv",
    log:
        f"{RESULTS}/logs/gap_rates.log",
    benchmark:
        f"{RESULTS}/benchmarks/gap_rates.tsv"
    priority: CHAIN_FIRST
    conda:
        CONDA_ENV
    params:
        **keys("gap_rates"),
    script:
        "../scripts/scaling/gap_rates.py"


rule claims_c3:
    input:
        library("claims_c3"),
        deviation_slopes=rules.deviation_table.output.slopes,
        table=rules.scaling_table.output.table,
        slopes=rules.scaling_table.output.slopes,
        gap_rates=rules.gap_rates.output.rates,
        rate_differences=rules.gap_rates.output.differences,
        auc_rates=rules.gap_rates.output.auc_rates,
        oracle=rules.oracle_table.output.oracle,
        paper_values=PAPER_VALUES,
    output:
        f"{RESULTS}/claims/C3.csv",
    log:
        f"{RESULTS}/logs/claims_c3.log",
    benchmark:
        f"{RESULTS}/benchmarks/claims_c3.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("claims_c3"),
    script:
        "../scripts/scaling/claims_c3.py"


rule budget_table:
    input:
        library("budget_table"),
        runs=scaling_runs(["budget"]),
    output:
        table=f"{RESULTS}/consistency/budget.csv",
        fit=f"{RESULTS}/consistency/budget_fit.csv",
    log:
        f"{RESULTS}/logs/budget_table.log",
    benchmark:
        f"{RESULTS}/benchmarks/budget_table.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("budget_table"),
    script:
        "../scripts/scaling/budget_table.py"


rule figure_budget:
    input:
        library("figure_budget"),
        table=rules.budget_table.output.table,
        fit=rules.budget_table.output.fit,
    output:
        png=report(f"{RESULTS}/figures/budget.png", caption=caption("budget"), category="Paper 1"),
        pdf=f"{RESULTS}/figures/budget.pdf",
    log:
        f"{RESULTS}/logs/figure_budget.log",
    benchmark:
        f"{RESULTS}/benchmarks/figure_budget.tsv"
    conda:
        CONDA_ENV
    params:
        style=figure_style("budget"),
    script:
        "../scripts/scaling/figure_budget.py"


rule claims_c4:
    input:
        library("claims_c4"),
        table=rules.budget_table.output.table,
        fit=rules.budget_table.output.fit,
    output:
        f"{RESULTS}/claims/C4.csv",
    log:
        f"{RESULTS}/logs/claims_c4.log",
    benchmark:
        f"{RESULTS}/benchmarks/claims_c4.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("claims_c4"),
    script:
        "../scripts/scaling/claims_c4.py"
