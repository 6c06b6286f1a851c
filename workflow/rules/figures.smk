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
            caption="../report/gmm_spectrum.rst",
            category="Paper 2: approximation",
        ),
        pdf=f"{RESULTS}/figures/gmm_spectrum.pdf",
    params:
        gmm=gmm_params(),
        tau=config["tau"],
    log:
        f"{RESULTS}/logs/figure_gmm_spectrum.log",
    conda:
        CONDA_ENV
    threads: 1
    script:
        "../scripts/figure_gmm_spectrum.py"


rule figure_gmm_mlp:
    input:
        library("figure_gmm_mlp"),
        table=rules.gmm_mlp_table.output[0],
        paper_values=PAPER_VALUES,
    output:
        png=report(f"{RESULTS}/figures/gmm_mlp.png", caption="../report/gmm_mlp.rst", category="Paper 2: approximation"),
        pdf=f"{RESULTS}/figures/gmm_mlp.pdf",
    params:
        gmm=gmm_params(),
        tau=config["tau"],
    log:
        f"{RESULTS}/logs/figure_gmm_mlp.log",
    conda:
        CONDA_ENV
    threads: 1
    script:
        "../scripts/figure_gmm_mlp.py"


rule figure_lcgm:
    input:
        library("figure_lcgm"),
        table=rules.lcgm_table.output.table,
        elbow=rules.lcgm_table.output.elbow,
    output:
        png=report(f"{RESULTS}/figures/lcgm.png", caption="../report/lcgm.rst", category="Paper 2: approximation"),
        pdf=f"{RESULTS}/figures/lcgm.pdf",
    log:
        f"{RESULTS}/logs/figure_lcgm.log",
    conda:
        CONDA_ENV
    threads: 1
    script:
        "../scripts/figure_lcgm.py"


rule figure_tsybakov:
    input:
        library("figure_tsybakov"),
        table=rules.tsybakov.output.table,
        cdf=rules.tsybakov.output.cdf,
        paper_values=PAPER_VALUES,
    output:
        png=report(f"{RESULTS}/figures/tsybakov.png", caption="../report/tsybakov.rst", category="Paper 2: approximation"),
        pdf=f"{RESULTS}/figures/tsybakov.pdf",
    params:
        gmm=gmm_params(),
    log:
        f"{RESULTS}/logs/figure_tsybakov.log",
    conda:
        CONDA_ENV
    threads: 1
    script:
        "../scripts/figure_tsybakov.py"
