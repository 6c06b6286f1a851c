# Figures: plotting only, so restyling never recomputes.


rule figure_gmm_spectrum:
    input:
        library("figure_gmm_spectrum"),
        spectrum=rules.gmm_spectrum.output.spectrum,
        truncation=rules.gmm_spectrum.output.truncation,
        paper_values=PAPER_VALUES,
    output:
        png=report(
            f"{RESULTS}/figures/gmm_spectrum.png",
            caption=caption("gmm_spectrum"),
            category="Paper 2: approximation",
        ),
        pdf=f"{RESULTS}/figures/gmm_spectrum.pdf",
    log:
        f"{RESULTS}/logs/figure_gmm_spectrum.log",
    benchmark:
        f"{RESULTS}/benchmarks/figure_gmm_spectrum.tsv"
    conda:
        CONDA_ENV
    threads: 1
    params:
        style=figure_style("gmm_spectrum"),
        gmm=gmm_params(),
        tau=config["tau"],
    script:
        "../scripts/figure_gmm_spectrum.py"


rule figure_gmm_mlp:
    input:
        library("figure_gmm_mlp"),
        table=rules.gmm_mlp_table.output[0],
        minima=rules.l2_minima.output[0],
        bound=rules.approximation_bound.output.bound,
        decay=rules.approximation_bound.output.decay,
        groups=rules.approximation_bound.output.groups,
        paper_values=PAPER_VALUES,
    output:
        png=report(f"{RESULTS}/figures/gmm_mlp.png", caption=caption("gmm_mlp"), category="Paper 2: approximation"),
        pdf=f"{RESULTS}/figures/gmm_mlp.pdf",
    log:
        f"{RESULTS}/logs/figure_gmm_mlp.log",
    benchmark:
        f"{RESULTS}/benchmarks/figure_gmm_mlp.tsv"
    conda:
        CONDA_ENV
    threads: 1
    params:
        style=figure_style("gmm_mlp"),
        gmm=gmm_params(),
        tau=config["tau"],
    script:
        "../scripts/figure_gmm_mlp.py"


rule figure_lcgm:
    input:
        library("figure_lcgm"),
        table=rules.lcgm_table.output.table,
        elbow=rules.lcgm_table.output.elbow,
        spectrum=rules.lcgm_spectrum.output.spectrum,
        noise=rules.lcgm_spectrum.output.noise,
        rank=rules.lcgm_spectrum.output.summary,
        sensitivity=rules.lcgm_sensitivity.output.table,
        sensitivity_elbows=rules.lcgm_sensitivity.output.elbows,
    output:
        png=report(f"{RESULTS}/figures/lcgm.png", caption=caption("lcgm"), category="Paper 2: approximation"),
        pdf=f"{RESULTS}/figures/lcgm.pdf",
    log:
        f"{RESULTS}/logs/figure_lcgm.log",
    benchmark:
        f"{RESULTS}/benchmarks/figure_lcgm.tsv"
    conda:
        CONDA_ENV
    threads: 1
    params:
        style=figure_style("lcgm"),
    script:
        "../scripts/figure_lcgm.py"


rule figure_tsybakov:
    input:
        library("figure_tsybakov"),
        table=rules.tsybakov.output.table,
        cdf=rules.tsybakov.output.cdf,
        curve=rules.tsybakov_exact.output.curve,
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
    threads: 1
    params:
        style=figure_style("tsybakov"),
        gmm=gmm_params(),
        tolerance=config["tsybakov"]["exact"]["tolerance"],
    script:
        "../scripts/figure_tsybakov.py"


rule figure_calibration:
    input:
        library("figure_calibration"),
        table=rules.calibration.output.table,
        fit=rules.calibration.output.fit,
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
    threads: 1
    params:
        style=figure_style("calibration"),
        tau=config["tau"],
    script:
        "../scripts/figure_calibration.py"


rule figure_scaling:
    input:
        library("figure_scaling"),
        table=rules.scaling.output.table,
        slopes=rules.scaling.output.slopes,
        deviations=rules.deviation.output.deviations,
        deviation_slopes=rules.deviation.output.slopes,
        oracle=rules.oracle.output.oracle,
    output:
        png=report(f"{RESULTS}/figures/scaling.png", caption=caption("scaling"), category="Paper 1"),
        pdf=f"{RESULTS}/figures/scaling.pdf",
    log:
        f"{RESULTS}/logs/figure_scaling.log",
    benchmark:
        f"{RESULTS}/benchmarks/figure_scaling.tsv"
    conda:
        CONDA_ENV
    threads: 1
    params:
        style=figure_style("scaling"),
    script:
        "../scripts/figure_scaling.py"


rule figure_budget:
    input:
        library("figure_budget"),
        table=rules.budget.output.table,
        fit=rules.budget.output.fit,
    output:
        png=report(f"{RESULTS}/figures/budget.png", caption=caption("budget"), category="Paper 1"),
        pdf=f"{RESULTS}/figures/budget.pdf",
    log:
        f"{RESULTS}/logs/figure_budget.log",
    benchmark:
        f"{RESULTS}/benchmarks/figure_budget.tsv"
    conda:
        CONDA_ENV
    threads: 1
    params:
        style=figure_style("budget"),
    script:
        "../scripts/figure_budget.py"
