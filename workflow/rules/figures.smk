# Figures: plotting only, so restyling never recomputes.


rule figure_gmm_spectrum:
    input:
        library("plots", "reference", "artifacts"),
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
