# C1 (paper 1, Sec. 3): the population oracles and their claims.
# Each rule's params are the config keys it reads, declared once in crlrepro.studies.oracles.RULE_KEYS.


rule oracle_table:
    input:
        library("oracle_table"),
    output:
        oracle=f"{RESULTS}/consistency/oracle.json",
        convergence=f"{RESULTS}/consistency/oracle_convergence.csv",
    log:
        f"{RESULTS}/logs/oracle_table.log",
    benchmark:
        f"{RESULTS}/benchmarks/oracle_table.tsv"
    priority: CHAIN_FIRST
    conda:
        CONDA_ENV
    params:
        **keys("oracle_table"),
    script:
        "../scripts/oracles/oracle_table.py"


rule claims_c1:
    input:
        library("claims_c1"),
        oracle=rules.oracle_table.output.oracle,
        convergence=rules.oracle_table.output.convergence,
    output:
        f"{RESULTS}/claims/C1.csv",
    log:
        f"{RESULTS}/logs/claims_c1.log",
    benchmark:
        f"{RESULTS}/benchmarks/claims_c1.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("claims_c1"),
    script:
        "../scripts/oracles/claims_c1.py"
