# A2 (paper 2, Table 1, columns 3-4): two-tower MLPs on the GMM (and their convergence in the sample size), the L2
# minima, the approximation bound, the figure and claims.
# Each rule's params are the config keys it reads, declared once in crlrepro.studies.gmm_mlp.RULE_KEYS.


rule gmm_mlp_train:
    input:
        library("gmm_mlp_train"),
    output:
        # one job per D trains all seeds (one interpreter start-up instead of one per model)
        expand(f"{RESULTS}/models/gmm_mlp/D{{{{D}}}}_seed{{seed}}.pt", seed=config["approximation"]["seeds"]),
    log:
        f"{RESULTS}/logs/gmm_mlp_train/D{{D}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/gmm_mlp_train/D{{D}}.tsv"
    wildcard_constraints:
        D=r"\d+",
    conda:
        CONDA_ENV
    resources:
        gpu=gpu_request(),
    params:
        **keys("gmm_mlp_train"),
        checkpoint_dir=f"{RESULTS}/checkpoints/gmm_mlp",
    script:
        "../scripts/gmm_mlp/gmm_mlp_train.py"


rule gmm_mlp_table:
    input:
        library("gmm_mlp_table"),
        models=gmm_mlp_models(),
    output:
        f"{RESULTS}/approximation/gmm_mlp.csv",
    log:
        f"{RESULTS}/logs/gmm_mlp_table.log",
    benchmark:
        f"{RESULTS}/benchmarks/gmm_mlp_table.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("gmm_mlp_table"),
    script:
        "../scripts/gmm_mlp/gmm_mlp_table.py"


# The rule for unreported settings (train_unreported_ranges): A2 trained and evaluated at each point of the declared
# ranges, {point} = key=value (crlrepro.claims.spec.range_points), one job per point and D.
rule gmm_mlp_range_train:
    input:
        library("gmm_mlp_train"),
    output:
        expand(
            f"{RESULTS}/models/gmm_mlp_ranges/{{{{point}}}}/D{{{{D}}}}_seed{{seed}}.pt",
            seed=config["approximation"]["seeds"],
        ),
    log:
        f"{RESULTS}/logs/gmm_mlp_range_train/{{point}}/D{{D}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/gmm_mlp_range_train/{{point}}/D{{D}}.tsv"
    wildcard_constraints:
        D=r"\d+",
        point=point_pattern("A2"),
    conda:
        CONDA_ENV
    resources:
        gpu=gpu_request(),
    params:
        **point_keys("A2", "gmm_mlp_range_train"),
        checkpoint_dir=lambda wildcards: f"{RESULTS}/checkpoints/gmm_mlp_ranges/{wildcards.point}",
    script:
        "../scripts/gmm_mlp/gmm_mlp_train.py"


rule gmm_mlp_range_table:
    input:
        library("gmm_mlp_table"),
        models=gmm_mlp_range_models,
    output:
        f"{RESULTS}/approximation/ranges/gmm_mlp/{{point}}.csv",
    log:
        f"{RESULTS}/logs/gmm_mlp_range_table/{{point}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/gmm_mlp_range_table/{{point}}.tsv"
    wildcard_constraints:
        point=point_pattern("A2"),
    conda:
        CONDA_ENV
    params:
        **point_keys("A2", "gmm_mlp_range_table"),
    script:
        "../scripts/gmm_mlp/gmm_mlp_table.py"


rule gmm_mlp_samples_train:
    input:
        library("gmm_mlp_train"),
    output:
        # A2's convergence study: the largest D on fewer pairs per epoch (approximation.convergence_samples)
        expand(
            f"{RESULTS}/models/gmm_mlp_samples/N{{{{N}}}}/D{{{{D}}}}_seed{{seed}}.pt",
            seed=config["approximation"]["seeds"],
        ),
    log:
        f"{RESULTS}/logs/gmm_mlp_samples_train/N{{N}}_D{{D}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/gmm_mlp_samples_train/N{{N}}_D{{D}}.tsv"
    wildcard_constraints:
        N=r"\d+",
        D=r"\d+",
    conda:
        CONDA_ENV
    resources:
        gpu=gpu_request(),
    params:
        **keys("gmm_mlp_samples_train"),
        samples=lambda wildcards: int(wildcards.N),
        checkpoint_dir=lambda wildcards: f"{RESULTS}/checkpoints/gmm_mlp_samples/N{wildcards.N}",
    script:
        "../scripts/gmm_mlp/gmm_mlp_train.py"


rule gmm_mlp_samples_table:
    input:
        library("gmm_mlp_samples_table"),
        models=[path for _, _, path in gmm_mlp_sample_study()],
        table=rules.gmm_mlp_table.output[0],
    output:
        f"{RESULTS}/approximation/gmm_mlp_samples.csv",
    log:
        f"{RESULTS}/logs/gmm_mlp_samples_table.log",
    benchmark:
        f"{RESULTS}/benchmarks/gmm_mlp_samples_table.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("gmm_mlp_samples_table"),
    script:
        "../scripts/gmm_mlp/gmm_mlp_samples_table.py"


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
    params:
        **keys("l2_minima"),
    script:
        "../scripts/gmm_mlp/l2_minima.py"


rule excess_minima:
    input:
        library("excess_minima"),
    output:
        f"{RESULTS}/approximation/excess_minima.csv",
    log:
        f"{RESULTS}/logs/excess_minima.log",
    benchmark:
        f"{RESULTS}/benchmarks/excess_minima.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("excess_minima"),
    script:
        "../scripts/gmm_mlp/excess_minima.py"


rule approximation_bound:
    input:
        library("approximation_bound"),
        trained=rules.gmm_mlp_table.output[0],
    output:
        bound=f"{RESULTS}/approximation/approximation_bound.csv",
        decay=f"{RESULTS}/approximation/spectrum_decay.csv",
        groups=f"{RESULTS}/approximation/spectrum_groups.csv",
    log:
        f"{RESULTS}/logs/approximation_bound.log",
    benchmark:
        f"{RESULTS}/benchmarks/approximation_bound.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("approximation_bound"),
    script:
        "../scripts/gmm_mlp/approximation_bound.py"


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
    params:
        **keys("figure_gmm_mlp"),
        style=figure_style("gmm_mlp"),
    script:
        "../scripts/gmm_mlp/figure_gmm_mlp.py"


rule claims_a2:
    input:
        library("claims_a2"),
        table=rules.gmm_mlp_table.output[0],
        samples=rules.gmm_mlp_samples_table.output[0],
        bound=rules.approximation_bound.output.bound,
        minima=rules.l2_minima.output[0],
        excess=rules.excess_minima.output[0],
        point_tables=range_tables("A2"),
        paper_values=PAPER_VALUES,
    output:
        f"{RESULTS}/claims/A2.csv",
    log:
        f"{RESULTS}/logs/claims_a2.log",
    benchmark:
        f"{RESULTS}/benchmarks/claims_a2.tsv"
    conda:
        CONDA_ENV
    params:
        setting=claim_setting("A2"),
        ranges=claim_ranges("A2"),
        points=trained_points("A2"),
    script:
        "../scripts/gmm_mlp/claims_a2.py"
