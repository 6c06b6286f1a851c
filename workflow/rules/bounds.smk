# Evaluation across runs: A2 and A3 tables, the A3 elbow, and the A4 noise exponent.


rule gmm_mlp_table:
    input:
        library("gmm_mlp_table"),
        models=gmm_mlp_models(),
    output:
        f"{RESULTS}/approximation/gmm_mlp.csv",
    params:
        gmm=gmm_params(),
        tau=config["tau"],
        nodes=config["approximation"]["quadrature_nodes"],
    log:
        f"{RESULTS}/logs/gmm_mlp_table.log",
    conda:
        CONDA_ENV
    threads: 1
    script:
        "../scripts/gmm_mlp_table.py"


rule lcgm_table:
    input:
        library("lcgm_table"),
        models=lcgm_models(),
    output:
        table=f"{RESULTS}/approximation/lcgm_probe.csv",
        elbow=f"{RESULTS}/approximation/lcgm_elbow.json",
    params:
        lcgm=config["lcgm"],
        tau=config["tau"],
    log:
        f"{RESULTS}/logs/lcgm_table.log",
    conda:
        CONDA_ENV
    threads: 1
    script:
        "../scripts/lcgm_table.py"


rule tsybakov:
    input:
        library("tsybakov"),
    output:
        table=f"{RESULTS}/approximation/tsybakov.csv",
        cdf=f"{RESULTS}/approximation/tsybakov_cdf.csv",
    params:
        gmm=gmm_params(),
        tsybakov=config["tsybakov"],
    log:
        f"{RESULTS}/logs/tsybakov.log",
    benchmark:
        f"{RESULTS}/benchmarks/tsybakov.tsv"
    conda:
        CONDA_ENV
    threads: 1
    script:
        "../scripts/tsybakov.py"


rule oracle:
    input:
        library("oracle"),
    output:
        oracle=f"{RESULTS}/consistency/oracle.json",
        convergence=f"{RESULTS}/consistency/oracle_convergence.csv",
    params:
        gmm=gmm_params(),
        tau=config["tau"],
        oracle=config["consistency"]["oracle"],
    log:
        f"{RESULTS}/logs/oracle.log",
    benchmark:
        f"{RESULTS}/benchmarks/oracle.tsv"
    conda:
        CONDA_ENV
    threads: 1
    script:
        "../scripts/oracle.py"


rule oce_identity:
    input:
        library("oce_identity"),
    output:
        f"{RESULTS}/consistency/oce_identity.csv",
    params:
        oce=config["consistency"]["oce"],
    log:
        f"{RESULTS}/logs/oce_identity.log",
    conda:
        CONDA_ENV
    threads: 1
    script:
        "../scripts/oce_identity.py"
