# A3 (paper 2, Sec. 6 and Prop. 5.6): the LCGM's two-tower models over D and its sensitivity grid, the probes and elbow,
# the operator's own spectrum, the figure and claims.
# Each rule's params are the config keys it reads, declared once in crlrepro.studies.lcgm.RULE_KEYS.


rule lcgm_train:
    input:
        library("lcgm_train"),
    output:
        # one job per seed trains the whole D sweep (one interpreter start-up instead of one per model)
        expand(f"{RESULTS}/models/lcgm/D{{D}}_seed{{{{seed}}}}.pt", D=config["lcgm"]["dims"]),
    log:
        f"{RESULTS}/logs/lcgm_train/seed{{seed}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/lcgm_train/seed{{seed}}.tsv"
    wildcard_constraints:
        seed=r"\d+",
    conda:
        CONDA_ENV
    resources:
        gpu=gpu_request(),
    params:
        **keys("lcgm_train"),
        checkpoint_dir=f"{RESULTS}/checkpoints/lcgm",
    script:
        "../scripts/lcgm/lcgm_train.py"


# lcgm.sensitivity: one job per row of the grid (a noise_y) that trains anything: D = K at each separation, and the
# elbow sweep's D on the cross; at the centre only those A3's sweep has not trained (lcgm_sensitivity_row). A row's
# models differ in number from row to row, so each row is a rule of its own with every model file declared: a
# deleted model is seen as missing (and retrained) like any other output, never silently left out of the table.
for i in lcgm_sensitivity_rows():

    rule:
        name:
            f"lcgm_sensitivity_train_ny{i}"
        input:
            library("lcgm_train"),
        output:
            lcgm_sensitivity_row_models(i),
        log:
            f"{RESULTS}/logs/lcgm_sensitivity_train/ny{i}.log",
        benchmark:
            f"{RESULTS}/benchmarks/lcgm_sensitivity_train/ny{i}.tsv"
        conda:
            CONDA_ENV
        resources:
            # sized here like lcgm_train in profiles/slurm (a row's rule name depends on the config)
            gpu=gpu_request(),
            mem_mb=8000,
            runtime=240,
        params:
            **keys("lcgm_sensitivity_train"),
            row=i,
            points=lcgm_sensitivity_row(i),
            checkpoint_dir=f"{RESULTS}/checkpoints/lcgm_sensitivity",
        script:
            "../scripts/lcgm/lcgm_train.py"


# The rule for unreported settings (train_unreported_ranges): A3's D sweep for every seed (or D = K alone, with
# lcgm.range_sweep false) trained and evaluated at each point of the declared ranges, {point} = key=value
# (crlrepro.claims.spec.range_points), one job per point.
rule lcgm_range_train:
    input:
        library("lcgm_train"),
    output:
        expand(
            f"{RESULTS}/models/lcgm_ranges/{{{{point}}}}/D{{D}}_seed{{seed}}.pt",
            D=lcgm_range_dims(config["lcgm"]),
            seed=config["seeds"],
        ),
    log:
        f"{RESULTS}/logs/lcgm_range_train/{{point}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/lcgm_range_train/{{point}}.tsv"
    wildcard_constraints:
        point=point_pattern("A3"),
    conda:
        CONDA_ENV
    resources:
        gpu=gpu_request(),
    params:
        **point_keys("A3", "lcgm_range_train"),
        checkpoint_dir=lambda wildcards: f"{RESULTS}/checkpoints/lcgm_ranges/{wildcards.point}",
    script:
        "../scripts/lcgm/lcgm_train.py"


rule lcgm_range_table:
    input:
        library("lcgm_table"),
        models=lcgm_range_models,
    output:
        table=f"{RESULTS}/approximation/ranges/lcgm/{{point}}.csv",
        elbow=f"{RESULTS}/approximation/ranges/lcgm/{{point}}_elbow.json",
    log:
        f"{RESULTS}/logs/lcgm_range_table/{{point}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/lcgm_range_table/{{point}}.tsv"
    wildcard_constraints:
        point=point_pattern("A3"),
    conda:
        CONDA_ENV
    params:
        **point_keys("A3", "lcgm_range_table"),
    script:
        "../scripts/lcgm/lcgm_table.py"


rule lcgm_table:
    input:
        library("lcgm_table"),
        models=lcgm_models(),
    output:
        table=f"{RESULTS}/approximation/lcgm_probe.csv",
        elbow=f"{RESULTS}/approximation/lcgm_elbow.json",
    log:
        f"{RESULTS}/logs/lcgm_table.log",
    benchmark:
        f"{RESULTS}/benchmarks/lcgm_table.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("lcgm_table"),
    script:
        "../scripts/lcgm/lcgm_table.py"


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
    params:
        **keys("lcgm_spectrum"),
    script:
        "../scripts/lcgm/lcgm_spectrum.py"


rule lcgm_sensitivity_table:
    input:
        library("lcgm_sensitivity_table"),
        models=lcgm_sensitivity_models(),
    output:
        table=f"{RESULTS}/approximation/lcgm_sensitivity.csv",
        elbows=f"{RESULTS}/approximation/lcgm_sensitivity_elbow.csv",
    log:
        f"{RESULTS}/logs/lcgm_sensitivity_table.log",
    benchmark:
        f"{RESULTS}/benchmarks/lcgm_sensitivity_table.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("lcgm_sensitivity_table"),
    script:
        "../scripts/lcgm/lcgm_sensitivity_table.py"


rule figure_lcgm:
    input:
        library("figure_lcgm"),
        table=rules.lcgm_table.output.table,
        elbow=rules.lcgm_table.output.elbow,
        spectrum=rules.lcgm_spectrum.output.spectrum,
        noise=rules.lcgm_spectrum.output.noise,
        rank=rules.lcgm_spectrum.output.summary,
        sensitivity=rules.lcgm_sensitivity_table.output.table,
        sensitivity_elbows=rules.lcgm_sensitivity_table.output.elbows,
    output:
        png=report(f"{RESULTS}/figures/lcgm.png", caption=caption("lcgm"), category="Paper 2: approximation"),
        pdf=f"{RESULTS}/figures/lcgm.pdf",
    log:
        f"{RESULTS}/logs/figure_lcgm.log",
    benchmark:
        f"{RESULTS}/benchmarks/figure_lcgm.tsv"
    conda:
        CONDA_ENV
    params:
        style=figure_style("lcgm"),
    script:
        "../scripts/lcgm/figure_lcgm.py"


rule claims_a3:
    input:
        library("claims_a3"),
        table=rules.lcgm_table.output.table,
        elbow=rules.lcgm_table.output.elbow,
        rank=rules.lcgm_spectrum.output.summary,
        point_tables=range_tables("A3"),
        point_elbows=range_elbows(),
        paper_values=PAPER_VALUES,
    output:
        f"{RESULTS}/claims/A3.csv",
    log:
        f"{RESULTS}/logs/claims_a3.log",
    benchmark:
        f"{RESULTS}/benchmarks/claims_a3.tsv"
    conda:
        CONDA_ENV
    params:
        setting=claim_setting("A3"),
        ranges=claim_ranges("A3"),
        points=trained_points("A3"),
    script:
        "../scripts/lcgm/claims_a3.py"
