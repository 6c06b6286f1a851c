# C5 (paper 1, Lemmas 4.2 and 4.3): the OCE identity, the stability of its minimiser and their claims.
# Each rule's params are the config keys it reads, declared once in crlrepro.studies.oce.RULE_KEYS.


rule oce_identity:
    input:
        library("oce_identity"),
    output:
        f"{RESULTS}/consistency/oce_identity.csv",
    log:
        f"{RESULTS}/logs/oce_identity.log",
    benchmark:
        f"{RESULTS}/benchmarks/oce_identity.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("oce_identity"),
    script:
        "../scripts/oce/oce_identity.py"


rule oce_stability:
    input:
        library("oce_stability"),
    output:
        f"{RESULTS}/consistency/oce_stability.csv",
    log:
        f"{RESULTS}/logs/oce_stability.log",
    benchmark:
        f"{RESULTS}/benchmarks/oce_stability.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("oce_stability"),
    script:
        "../scripts/oce/oce_stability.py"


rule claims_c5:
    input:
        library("claims_c5"),
        table=rules.oce_identity.output[0],
        stability=rules.oce_stability.output[0],
    output:
        f"{RESULTS}/claims/C5.csv",
    log:
        f"{RESULTS}/logs/claims_c5.log",
    benchmark:
        f"{RESULTS}/benchmarks/claims_c5.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("claims_c5"),
    script:
        "../scripts/oce/claims_c5.py"
