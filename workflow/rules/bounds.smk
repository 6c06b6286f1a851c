# Evaluation across runs: A2 and A3 tables, the A3 elbow, and the A4 noise exponent.


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
    threads: 1
    params:
        gmm=gmm_params(),
        tau=config["tau"],
        nodes=config["approximation"]["quadrature_nodes"],
    script:
        "../scripts/gmm_mlp_table.py"


rule gmm_mlp_samples_table:
    input:
        library("gmm_mlp_samples_table"),
        models=[path for _, _, path in gmm_mlp_sample_study()],
    output:
        f"{RESULTS}/approximation/gmm_mlp_samples.csv",
    log:
        f"{RESULTS}/logs/gmm_mlp_samples_table.log",
    benchmark:
        f"{RESULTS}/benchmarks/gmm_mlp_samples_table.tsv"
    conda:
        CONDA_ENV
    threads: 1
    params:
        gmm=gmm_params(),
        tau=config["tau"],
        nodes=config["approximation"]["quadrature_nodes"],
        samples=[n for n, _, _ in gmm_mlp_sample_study()],
    script:
        "../scripts/gmm_mlp_samples_table.py"


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
    threads: 1
    params:
        gmm=gmm_params(),
        tau=config["tau"],
        dims=config["approximation"]["dims"],
        nodes=config["approximation"]["quadrature_nodes"],
    script:
        "../scripts/approximation_bound.py"


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
    threads: 1
    params:
        lcgm=config["lcgm"],
        tau=config["tau"],
    script:
        "../scripts/lcgm_table.py"


rule lcgm_sensitivity:
    input:
        library("lcgm_sensitivity"),
        models=lcgm_sensitivity_models(),
    output:
        table=f"{RESULTS}/approximation/lcgm_sensitivity.csv",
        elbows=f"{RESULTS}/approximation/lcgm_sensitivity_elbow.csv",
    log:
        f"{RESULTS}/logs/lcgm_sensitivity.log",
    benchmark:
        f"{RESULTS}/benchmarks/lcgm_sensitivity.tsv"
    conda:
        CONDA_ENV
    threads: 1
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
        "../scripts/lcgm_sensitivity.py"


rule tsybakov:
    input:
        library("tsybakov"),
    output:
        table=f"{RESULTS}/approximation/tsybakov.csv",
        cdf=f"{RESULTS}/approximation/tsybakov_cdf.csv",
    log:
        f"{RESULTS}/logs/tsybakov.log",
    benchmark:
        f"{RESULTS}/benchmarks/tsybakov.tsv"
    conda:
        CONDA_ENV
    threads: 1
    params:
        gmm=gmm_params(),
        tsybakov=config["tsybakov"],
    script:
        "../scripts/tsybakov.py"


rule tsybakov_exact:
    input:
        library("tsybakov_exact"),
        cdf=rules.tsybakov.output.cdf,
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
    threads: 1
    params:
        gmm=gmm_params(),
        tsybakov={
            **config_keys("tsybakov", "samples", "window", "grid_points"),
            "exact": config_keys("tsybakov.exact", "t_range", "points_per_decade", "window_starts", "window_widths"),
        },
    script:
        "../scripts/tsybakov_exact.py"


rule tsybakov_small_t:
    input:
        library("tsybakov_small_t"),
    output:
        f"{RESULTS}/consistency/tsybakov_small_t.json",
    log:
        f"{RESULTS}/logs/tsybakov_small_t.log",
    benchmark:
        f"{RESULTS}/benchmarks/tsybakov_small_t.tsv"
    conda:
        CONDA_ENV
    threads: 1
    params:
        gmm=paper1_gmm(),
        t_small=config["consistency"]["calibration"]["tsybakov_small_t"],
    script:
        "../scripts/tsybakov_small_t.py"


rule oracle:
    input:
        library("oracle"),
    output:
        oracle=f"{RESULTS}/consistency/oracle.json",
        convergence=f"{RESULTS}/consistency/oracle_convergence.csv",
    log:
        f"{RESULTS}/logs/oracle.log",
    benchmark:
        f"{RESULTS}/benchmarks/oracle.tsv"
    conda:
        CONDA_ENV
    threads: 1
    params:
        gmm=paper1_gmm(),
        paper2_gmm=gmm_params(),
        tau=config["tau"],
        oracle=config_keys(
            "consistency.oracle",
            "nodes",
            "convergence_nodes",
            "auc_nodes",
            "auc_convergence_nodes",
            "monte_carlo_samples",
            "seed",
        ),
    script:
        "../scripts/oracle.py"


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
    threads: 1
    params:
        oce=config_keys("consistency.oce", "ms", "taus", "score_bound", "seed"),
    script:
        "../scripts/oce_identity.py"


rule calibration:
    input:
        library("calibration"),
        points=calibration_points(),
    output:
        table=f"{RESULTS}/consistency/calibration.csv",
        fit=f"{RESULTS}/consistency/calibration_fit.json",
    log:
        f"{RESULTS}/logs/calibration.log",
    benchmark:
        f"{RESULTS}/benchmarks/calibration.tsv"
    conda:
        CONDA_ENV
    threads: 1
    params:
        gmm=paper1_gmm(),
        tau=config["tau"],
        calibration=config_keys("consistency.calibration", "nodes", "inner_nodes", "bootstrap", "seed", "regret_floor"),
    script:
        "../scripts/calibration.py"


rule calibration_families:
    input:
        library("calibration_families"),
    output:
        table=f"{RESULTS}/consistency/calibration_families.csv",
        fits=f"{RESULTS}/consistency/calibration_families_fit.csv",
    log:
        f"{RESULTS}/logs/calibration_families.log",
    benchmark:
        f"{RESULTS}/benchmarks/calibration_families.tsv"
    conda:
        CONDA_ENV
    threads: 1
    params:
        gmm=paper1_gmm(),
        tau=config["tau"],
        families=config["consistency"]["calibration"]["families"],
    script:
        "../scripts/calibration_families.py"


rule scaling:
    input:
        library("scaling"),
        runs=negative_sampling_runs(["m", "n"]),
        paper_values=PAPER_VALUES,
    output:
        table=f"{RESULTS}/consistency/scaling.csv",
        slopes=f"{RESULTS}/consistency/scaling_slopes.csv",
    log:
        f"{RESULTS}/logs/scaling.log",
    benchmark:
        f"{RESULTS}/benchmarks/scaling.tsv"
    conda:
        CONDA_ENV
    threads: 1
    params:
        points=negative_sampling_points(["m", "n"]),
        seeds=config["consistency"]["scaling"]["seeds"],
        regimes=config["consistency"]["scaling"]["regimes"],
        bootstrap=config["consistency"]["scaling"]["bootstrap"],
    script:
        "../scripts/scaling.py"


rule deviation:
    input:
        library("deviation"),
        inner=f"{RESULTS}/consistency/deviation/inner_draws.csv",
        inbatch=f"{RESULTS}/consistency/deviation/inbatch_draws.csv",
        outer=f"{RESULTS}/consistency/deviation/outer_draws.csv",
        paper_values=PAPER_VALUES,
    output:
        deviations=f"{RESULTS}/consistency/deviation.csv",
        slopes=f"{RESULTS}/consistency/deviation_slopes.csv",
    log:
        f"{RESULTS}/logs/deviation.log",
    benchmark:
        f"{RESULTS}/benchmarks/deviation.tsv"
    conda:
        CONDA_ENV
    threads: 1
    params:
        deviation=config_keys("consistency.deviation", "fit_from", "bootstrap", "seed"),
    script:
        "../scripts/deviation.py"


rule budget:
    input:
        library("budget"),
        runs=negative_sampling_runs(["budget"]),
    output:
        table=f"{RESULTS}/consistency/budget.csv",
        fit=f"{RESULTS}/consistency/budget_fit.csv",
    log:
        f"{RESULTS}/logs/budget.log",
    benchmark:
        f"{RESULTS}/benchmarks/budget.tsv"
    conda:
        CONDA_ENV
    threads: 1
    params:
        points=negative_sampling_points(["budget"]),
        seeds=config["consistency"]["scaling"]["seeds"],
        regimes=config["consistency"]["scaling"]["regimes"],
        total=config["consistency"]["budget"]["total"],
    script:
        "../scripts/budget.py"
