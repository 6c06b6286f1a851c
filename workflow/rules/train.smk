# Encoder training (paper 2, A2 and A3; paper 1, C2): each model resumable from its checkpoint; A2 and C2 train all
# seeds of a D in one job, A3 the D sweep of a seed.
# Outputs are models; evaluation is in bounds.smk, so changing a metric never retrains.


rule gmm_mlp_train:
    input:
        library("gmm_mlp_train"),
    output:
        # one job per D trains all seeds (one interpreter start-up instead of one per model)
        expand(f"{RESULTS}/models/gmm_mlp/D{{{{D}}}}_seed{{seed}}.pt", seed=config["seeds"]),
    log:
        f"{RESULTS}/logs/gmm_mlp_train/D{{D}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/gmm_mlp_train/D{{D}}.tsv"
    wildcard_constraints:
        D=r"\d+",
    conda:
        CONDA_ENV
    threads: 1
    resources:
        gpu=gpu_request(),
    params:
        gmm=gmm_params(),
        tau=config["tau"],
        seeds=config["seeds"],
        samples=config["approximation"]["train_samples"],
        fresh=config["approximation"]["fresh_pairs"],
        epochs=config["approximation"]["epochs"],
        training=config["training"],
        device=config["device"],
        checkpoint_dir=f"{RESULTS}/checkpoints/gmm_mlp",
    script:
        "../scripts/gmm_mlp_train.py"


rule gmm_mlp_samples_train:
    input:
        library("gmm_mlp_train"),
    output:
        # A2's convergence study: the largest D on fewer pairs per epoch (approximation.convergence_samples)
        expand(f"{RESULTS}/models/gmm_mlp_samples/N{{{{N}}}}/D{{{{D}}}}_seed{{seed}}.pt", seed=config["seeds"]),
    log:
        f"{RESULTS}/logs/gmm_mlp_samples_train/N{{N}}_D{{D}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/gmm_mlp_samples_train/N{{N}}_D{{D}}.tsv"
    wildcard_constraints:
        N=r"\d+",
        D=r"\d+",
    conda:
        CONDA_ENV
    threads: 1
    resources:
        gpu=gpu_request(),
    params:
        gmm=gmm_params(),
        tau=config["tau"],
        seeds=config["seeds"],
        samples=lambda wildcards: int(wildcards.N),
        fresh=config["approximation"]["fresh_pairs"],
        epochs=config["approximation"]["epochs"],
        training=config["training"],
        device=config["device"],
        checkpoint_dir=lambda wildcards: f"{RESULTS}/checkpoints/gmm_mlp_samples/N{wildcards.N}",
    script:
        "../scripts/gmm_mlp_train.py"


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
    threads: 1
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


rule calibration_run:
    input:
        library("calibration_run"),
    output:
        # one job per D runs all seeds (one interpreter start-up instead of one per model)
        expand(f"{RESULTS}/consistency/calibration/D{{{{D}}}}_seed{{seed}}.csv", seed=config["seeds"]),
    log:
        f"{RESULTS}/logs/calibration_run/D{{D}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/calibration_run/D{{D}}.tsv"
    wildcard_constraints:
        D=r"\d+",
    conda:
        CONDA_ENV
    threads: 1
    resources:
        gpu=gpu_request(),
    params:
        gmm=paper1_gmm(),
        tau=config["tau"],
        seeds=config["seeds"],
        calibration=calibration_training(),
        training={k: config["training"][k] for k in ("hidden", "layers", "weight_decay", "compile")},
        device=config["device"],
    script:
        "../scripts/calibration_run.py"


rule negative_sampling:
    input:
        library("negative_sampling"),
    output:
        # the sweep's points that no earlier sweep lists (sweep_trained_points): a shared point is trained once
        f"{RESULTS}/consistency/runs/{{sweep}}_{{regime}}.csv",
    log:
        f"{RESULTS}/logs/negative_sampling/{{sweep}}_{{regime}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/negative_sampling/{{sweep}}_{{regime}}.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        gpu=gpu_request(),
    params:
        gmm=paper1_gmm(),
        tau=config["tau"],
        points=lambda wildcards: sweep_trained_points(wildcards.sweep, config["consistency"]),
        seeds=config["consistency"]["scaling"]["seeds"],
        model=scaling_model(),
        device=config["device"],
    script:
        "../scripts/negative_sampling.py"


rule deviation_draws:
    input:
        library("deviation_draws"),
    output:
        inner=f"{RESULTS}/consistency/deviation/inner_draws.csv",
        inbatch=f"{RESULTS}/consistency/deviation/inbatch_draws.csv",
        outer=f"{RESULTS}/consistency/deviation/outer_draws.csv",
    log:
        f"{RESULTS}/logs/deviation_draws.log",
    benchmark:
        f"{RESULTS}/benchmarks/deviation_draws.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        gpu=gpu_request(),
    params:
        gmm=paper1_gmm(),
        tau=config["tau"],
        deviation=config_keys(
            "consistency.deviation",
            "ms",
            "ns",
            "pools",
            "batches",
            "nodes",
            "partition_nodes",
            "trained",
            "seed",
        ),
        model=scaling_model(),
        device=config["device"],
    script:
        "../scripts/deviation_draws.py"


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
        threads: 1
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
