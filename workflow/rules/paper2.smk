# Paper 2 (Approximation in CRL): A1 the GMM's spectrum and truncations, A2 two-tower MLPs on the GMM (and its
# convergence study in the sample size), A3 the LCGM's probes and elbow, A4 the Tsybakov exponent. Per experiment:
# <exp>_train (models, resumable from checkpoints) -> computations and <exp>_table -> figure_<exp> -> claims_<exp>.
# Trainings only make models, so changing a metric never retrains.


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
    params:
        gmm=gmm_params(),
        tau=config["tau"],
        dims=config["approximation"]["dims"],
        nodes_list=config["approximation"]["convergence_nodes"],
        support_widths=config["approximation"]["support_widths"],
    script:
        "../scripts/gmm_convergence.py"


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
        style=figure_style("gmm_spectrum"),
        gmm=gmm_params(),
        tau=config["tau"],
    script:
        "../scripts/figure_gmm_spectrum.py"


rule claims_a1:
    input:
        library("claims_a1"),
        truncation=rules.gmm_spectrum.output.truncation,
        convergence=rules.gmm_convergence.output[0],
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
        setting=claim_setting("A1"),
    script:
        "../scripts/claims_a1.py"


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
        gmm=gmm_params(),
        tau=config["tau"],
        seeds=config["approximation"]["seeds"],
        samples=config["approximation"]["train_samples"],
        fresh=config["approximation"]["fresh_pairs"],
        epochs=config["approximation"]["epochs"],
        training=config["training"],
        device=config["device"],
        checkpoint_dir=f"{RESULTS}/checkpoints/gmm_mlp",
    script:
        "../scripts/gmm_mlp_train.py"


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
        gmm=gmm_params(),
        tau=config["tau"],
        nodes=config["approximation"]["quadrature_nodes"],
    script:
        "../scripts/gmm_mlp_table.py"


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
        gmm=gmm_params(),
        tau=config["tau"],
        seeds=config["approximation"]["seeds"],
        samples=lambda wildcards: int(wildcards.N),
        fresh=config["approximation"]["fresh_pairs"],
        epochs=config["approximation"]["epochs"],
        training=config["training"],
        device=config["device"],
        checkpoint_dir=lambda wildcards: f"{RESULTS}/checkpoints/gmm_mlp_samples/N{wildcards.N}",
    script:
        "../scripts/gmm_mlp_train.py"


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
        gmm=gmm_params(),
        tau=config["tau"],
        nodes=config["approximation"]["quadrature_nodes"],
        samples=[n for n, _, _ in gmm_mlp_sample_study()],
        train_samples=config["approximation"]["train_samples"],
        seeds=config["approximation"]["seeds"],
        D=max(config["approximation"]["dims"]),
    script:
        "../scripts/gmm_mlp_samples_table.py"


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
        gmm=gmm_params(),
        tau=config["tau"],
        dims=config["approximation"]["dims"],
        nodes=config["approximation"]["quadrature_nodes"],
    script:
        "../scripts/l2_minima.py"


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
        gmm=gmm_params(),
        tau=config["tau"],
        dims=config["approximation"]["dims"],
        nodes=config["approximation"]["quadrature_nodes"],
    script:
        "../scripts/approximation_bound.py"


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
        style=figure_style("gmm_mlp"),
        gmm=gmm_params(),
        tau=config["tau"],
    script:
        "../scripts/figure_gmm_mlp.py"


rule claims_a2:
    input:
        library("claims_a2"),
        table=rules.gmm_mlp_table.output[0],
        samples=rules.gmm_mlp_samples_table.output[0],
        bound=rules.approximation_bound.output.bound,
        minima=rules.l2_minima.output[0],
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
    script:
        "../scripts/claims_a2.py"


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
        lcgm=lcgm_training(),
        dims=config["lcgm"]["dims"],
        tau=config["tau"],
        training=config["training"],
        device=config["device"],
        checkpoint_dir=f"{RESULTS}/checkpoints/lcgm",
    script:
        "../scripts/lcgm_train.py"


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
            lcgm=lcgm_training(),
            sensitivity=config_keys("lcgm.sensitivity", "noise_y", "separation"),
            row=i,
            points=lcgm_sensitivity_row(i),
            seed=config["seeds"][0],
            tau=config["tau"],
            training=config["training"],
            device=config["device"],
            checkpoint_dir=f"{RESULTS}/checkpoints/lcgm_sensitivity",
        script:
            "../scripts/lcgm_train.py"


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
        lcgm=config["lcgm"],
        tau=config["tau"],
    script:
        "../scripts/lcgm_table.py"


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
        lcgm=lcgm_model(),
        spectrum=config["lcgm"]["spectrum"],
    script:
        "../scripts/lcgm_spectrum.py"


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
        lcgm=config_keys(
            "lcgm",
            "classes",
            "dim_x",
            "dim_y",
            "noise_x",
            "noise_y",
            "separation",
            "mean_seed",
            "test_samples",
            "elbow_tolerance",
        ),
        tau=config["tau"],
        points=lcgm_sensitivity_points(config["lcgm"]),
    script:
        "../scripts/lcgm_sensitivity_table.py"


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
        "../scripts/figure_lcgm.py"


rule claims_a3:
    input:
        library("claims_a3"),
        table=rules.lcgm_table.output.table,
        elbow=rules.lcgm_table.output.elbow,
        rank=rules.lcgm_spectrum.output.summary,
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
    script:
        "../scripts/claims_a3.py"


rule tsybakov_table:
    input:
        library("tsybakov_table"),
    output:
        table=f"{RESULTS}/approximation/tsybakov.csv",
        cdf=f"{RESULTS}/approximation/tsybakov_cdf.csv",
    log:
        f"{RESULTS}/logs/tsybakov_table.log",
    benchmark:
        f"{RESULTS}/benchmarks/tsybakov_table.tsv"
    conda:
        CONDA_ENV
    params:
        gmm=gmm_params(),
        tsybakov=config["tsybakov"],
    script:
        "../scripts/tsybakov_table.py"


rule tsybakov_exact:
    input:
        library("tsybakov_exact"),
        cdf=rules.tsybakov_table.output.cdf,
    output:
        curve=f"{RESULTS}/approximation/tsybakov_exact.csv",
        windows=f"{RESULTS}/approximation/tsybakov_windows.csv",
        check=f"{RESULTS}/approximation/tsybakov_mc_check.csv",
    log:
        f"{RESULTS}/logs/tsybakov_exact.log",
    benchmark:
        f"{RESULTS}/benchmarks/tsybakov_exact.tsv"
    conda:
        CONDA_ENV
    params:
        gmm=gmm_params(),
        tsybakov={
            **config_keys("tsybakov", "samples", "window", "grid_points"),
            "exact": config_keys("tsybakov.exact", "t_range", "points_per_decade", "window_starts", "window_widths"),
        },
    script:
        "../scripts/tsybakov_exact.py"


rule figure_tsybakov:
    input:
        library("figure_tsybakov"),
        table=rules.tsybakov_table.output.table,
        cdf=rules.tsybakov_table.output.cdf,
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
    params:
        style=figure_style("tsybakov"),
        gmm=gmm_params(),
        tolerance=config["tsybakov"]["exact"]["tolerance"],
    script:
        "../scripts/figure_tsybakov.py"


rule claims_a4:
    input:
        library("claims_a4"),
        table=rules.tsybakov_table.output.table,
        curve=rules.tsybakov_exact.output.curve,
        windows=rules.tsybakov_exact.output.windows,
        check=rules.tsybakov_exact.output.check,
        paper_values=PAPER_VALUES,
    output:
        f"{RESULTS}/claims/A4.csv",
    log:
        f"{RESULTS}/logs/claims_a4.log",
    benchmark:
        f"{RESULTS}/benchmarks/claims_a4.tsv"
    conda:
        CONDA_ENV
    params:
        setting=claim_setting("A4"),
        exact=config_keys("tsybakov.exact", "tolerance", "family_level"),
        samples=config["tsybakov"]["samples"],
    script:
        "../scripts/claims_a4.py"
