# A1 (paper 2, Table 1, columns 1-2): the spectrum of the GMM's PMI operator, its convergence study, the figure and claims;
# the polynomial-decay corollary on a second distribution (views on the circle).
# Each rule's params are the config keys it reads, declared once in crlrepro.studies.gmm_spectrum.RULE_KEYS.


rule gmm_spectrum:
    input:
        library("gmm_spectrum"),
    output:
        spectrum=f"{RESULTS}/approximation/gmm_spectrum.csv",
        truncation=f"{RESULTS}/approximation/gmm_truncation.csv",
    log:
        f"{RESULTS}/logs/gmm_spectrum.log",
    benchmark:
        f"{RESULTS}/benchmarks/gmm_spectrum.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("gmm_spectrum"),
    script:
        "../scripts/gmm_spectrum/gmm_spectrum.py"


rule gmm_convergence:
    input:
        library("gmm_convergence"),
    output:
        f"{RESULTS}/approximation/gmm_convergence.csv",
    log:
        f"{RESULTS}/logs/gmm_convergence.log",
    benchmark:
        f"{RESULTS}/benchmarks/gmm_convergence.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("gmm_convergence"),
    script:
        "../scripts/gmm_spectrum/gmm_convergence.py"


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
    params:
        **keys("figure_gmm_spectrum"),
        style=figure_style("gmm_spectrum"),
    script:
        "../scripts/gmm_spectrum/figure_gmm_spectrum.py"


rule claims_a1:
    input:
        library("claims_a1"),
        truncation=rules.gmm_spectrum.output.truncation,
        convergence=rules.gmm_convergence.output[0],
        spectrum=rules.gmm_spectrum.output.spectrum,
        polynomial=f"{RESULTS}/approximation/polynomial_spectrum.csv",
        paper_values=PAPER_VALUES,
    output:
        f"{RESULTS}/claims/A1.csv",
    log:
        f"{RESULTS}/logs/claims_a1.log",
    benchmark:
        f"{RESULTS}/benchmarks/claims_a1.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("claims_a1"),
        setting=claim_setting("A1"),
    script:
        "../scripts/gmm_spectrum/claims_a1.py"


rule polynomial_spectrum:
    input:
        library("polynomial_spectrum"),
    output:
        f"{RESULTS}/approximation/polynomial_spectrum.csv",
    log:
        f"{RESULTS}/logs/polynomial_spectrum.log",
    benchmark:
        f"{RESULTS}/benchmarks/polynomial_spectrum.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("polynomial_spectrum"),
    script:
        "../scripts/gmm_spectrum/polynomial_spectrum.py"
