# Spectral analysis of the PMI operator (paper 2, A1): cheap, deterministic quadrature.


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
    threads: 1
    params:
        gmm=gmm_params(),
        tau=config["tau"],
        dims=config["approximation"]["dims"],
        nodes=config["approximation"]["quadrature_nodes"],
        num_eigenvalues=config["approximation"]["num_eigenvalues"],
    script:
        "../scripts/gmm_spectrum.py"


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
    threads: 1
    params:
        gmm=gmm_params(),
        tau=config["tau"],
        dims=config["approximation"]["dims"],
        nodes_list=config["approximation"]["convergence_nodes"],
        support_widths=config["approximation"]["support_widths"],
    script:
        "../scripts/gmm_convergence.py"


rule l2_minima:
    input:
        library("l2_minima"),
    output:
        f"{RESULTS}/approximation/l2_minima.csv",
    log:
        f"{RESULTS}/logs/l2_minima.log",
    benchmark:
        f"{RESULTS}/benchmarks/l2_minima.tsv"
    conda:
        CONDA_ENV
    threads: 1
    params:
        gmm=gmm_params(),
        tau=config["tau"],
        dims=config["approximation"]["dims"],
        nodes=config["approximation"]["quadrature_nodes"],
    script:
        "../scripts/l2_minima.py"


rule lcgm_spectrum:
    input:
        library("lcgm_spectrum"),
    output:
        spectrum=f"{RESULTS}/approximation/lcgm_spectrum.csv",
        noise=f"{RESULTS}/approximation/lcgm_spectrum_noise.csv",
        summary=f"{RESULTS}/approximation/lcgm_rank.json",
    log:
        f"{RESULTS}/logs/lcgm_spectrum.log",
    benchmark:
        f"{RESULTS}/benchmarks/lcgm_spectrum.tsv"
    conda:
        CONDA_ENV
    threads: 1
    params:
        lcgm=lcgm_model(),
        spectrum=config["lcgm"]["spectrum"],
    script:
        "../scripts/lcgm_spectrum.py"
