# Paper 1 (Consistency and generalization of CRL): C1 the population oracles, C2 calibration (Thm 3.4 along
# trainings and along score families), C3 negatives and anchors (the sweeps' trainings and the fixed-score
# deviations), C4 the fixed budget, C5 the OCE identity. Per experiment: <exp>_train -> <exp>_table -> figure -> claims.


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
    conda:
        CONDA_ENV
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
        "../scripts/oracle_table.py"


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
        standard_errors=config["consistency"]["oracle"]["standard_errors"],
        digits=config["consistency"]["oracle"]["digits"],
    script:
        "../scripts/claims_c1.py"


rule calibration_train:
    input:
        library("calibration_train"),
    output:
        # one job per D runs all seeds (one interpreter start-up instead of one per model)
        expand(f"{RESULTS}/consistency/calibration/D{{{{D}}}}_seed{{seed}}.csv", seed=config["seeds"]),
    log:
        f"{RESULTS}/logs/calibration_train/D{{D}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/calibration_train/D{{D}}.tsv"
    wildcard_constraints:
        D=r"\d+",
    conda:
        CONDA_ENV
    resources:
        gpu=gpu_request(),
    params:
        gmm=paper1_gmm(),
        tau=config["tau"],
        seeds=config["seeds"],
        calibration=calibration_training(),
        training=config_keys("training", "hidden", "layers", "weight_decay", "compile"),
        device=config["device"],
    script:
        "../scripts/calibration_train.py"


rule calibration_table:
    input:
        library("calibration_table"),
        points=calibration_points(),
    output:
        table=f"{RESULTS}/consistency/calibration.csv",
        fit=f"{RESULTS}/consistency/calibration_fit.json",
    log:
        f"{RESULTS}/logs/calibration_table.log",
    benchmark:
        f"{RESULTS}/benchmarks/calibration_table.tsv"
    conda:
        CONDA_ENV
    params:
        gmm=paper1_gmm(),
        tau=config["tau"],
        calibration=config_keys("consistency.calibration", "nodes", "inner_nodes", "bootstrap", "seed", "regret_floor"),
    script:
        "../scripts/calibration_table.py"


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
    params:
        gmm=paper1_gmm(),
        tau=config["tau"],
        families=config["consistency"]["calibration"]["families"],
    script:
        "../scripts/calibration_families.py"


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
    params:
        gmm=paper1_gmm(),
        t_small=config["consistency"]["calibration"]["tsybakov_small_t"],
    script:
        "../scripts/tsybakov_small_t.py"


rule figure_calibration:
    input:
        library("figure_calibration"),
        table=rules.calibration_table.output.table,
        fit=rules.calibration_table.output.fit,
        tsybakov=rules.tsybakov_small_t.output[0],
        families=rules.calibration_families.output.table,
    output:
        png=report(f"{RESULTS}/figures/calibration.png", caption=caption("calibration"), category="Paper 1"),
        pdf=f"{RESULTS}/figures/calibration.pdf",
    log:
        f"{RESULTS}/logs/figure_calibration.log",
    benchmark:
        f"{RESULTS}/benchmarks/figure_calibration.tsv"
    conda:
        CONDA_ENV
    params:
        style=figure_style("calibration"),
        tau=config["tau"],
    script:
        "../scripts/figure_calibration.py"


rule claims_c2:
    input:
        library("claims_c2"),
        table=rules.calibration_table.output.table,
        fit=rules.calibration_table.output.fit,
        tsybakov=rules.tsybakov_small_t.output[0],
        families=rules.calibration_families.output.fits,
        paper_values=PAPER_VALUES,
    output:
        f"{RESULTS}/claims/C2.csv",
    log:
        f"{RESULTS}/logs/claims_c2.log",
    benchmark:
        f"{RESULTS}/benchmarks/claims_c2.tsv"
    conda:
        CONDA_ENV
    script:
        "../scripts/claims_c2.py"


rule deviation_train:
    input:
        library("deviation_train"),
    output:
        inner=f"{RESULTS}/consistency/deviation/inner_draws.csv",
        inbatch=f"{RESULTS}/consistency/deviation/inbatch_draws.csv",
        outer=f"{RESULTS}/consistency/deviation/outer_draws.csv",
    log:
        f"{RESULTS}/logs/deviation_train.log",
    benchmark:
        f"{RESULTS}/benchmarks/deviation_train.tsv"
    conda:
        CONDA_ENV
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
        "../scripts/deviation_train.py"


rule deviation_table:
    input:
        library("deviation_table"),
        inner=f"{RESULTS}/consistency/deviation/inner_draws.csv",
        inbatch=f"{RESULTS}/consistency/deviation/inbatch_draws.csv",
        outer=f"{RESULTS}/consistency/deviation/outer_draws.csv",
        paper_values=PAPER_VALUES,
    output:
        deviations=f"{RESULTS}/consistency/deviation.csv",
        slopes=f"{RESULTS}/consistency/deviation_slopes.csv",
    log:
        f"{RESULTS}/logs/deviation_table.log",
    benchmark:
        f"{RESULTS}/benchmarks/deviation_table.tsv"
    conda:
        CONDA_ENV
    params:
        deviation=config_keys("consistency.deviation", "fit_from", "bootstrap", "seed"),
    script:
        "../scripts/deviation_table.py"


rule scaling_train:
    input:
        library("scaling_train"),
    output:
        # the sweep's points that no earlier sweep lists (sweep_trained_points): a shared point is trained once
        f"{RESULTS}/consistency/runs/{{sweep}}_{{regime}}.csv",
    log:
        f"{RESULTS}/logs/scaling_train/{{sweep}}_{{regime}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/scaling_train/{{sweep}}_{{regime}}.tsv"
    conda:
        CONDA_ENV
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
        "../scripts/scaling_train.py"


rule scaling_table:
    input:
        library("scaling_table"),
        runs=scaling_runs(["m", "n"]),
        paper_values=PAPER_VALUES,
    output:
        table=f"{RESULTS}/consistency/scaling.csv",
        slopes=f"{RESULTS}/consistency/scaling_slopes.csv",
    log:
        f"{RESULTS}/logs/scaling_table.log",
    benchmark:
        f"{RESULTS}/benchmarks/scaling_table.tsv"
    conda:
        CONDA_ENV
    params:
        points=scaling_points(["m", "n"]),
        seeds=config["consistency"]["scaling"]["seeds"],
        regimes=config["consistency"]["scaling"]["regimes"],
        bootstrap=config["consistency"]["scaling"]["bootstrap"],
    script:
        "../scripts/scaling_table.py"


rule figure_scaling:
    input:
        library("figure_scaling"),
        table=rules.scaling_table.output.table,
        slopes=rules.scaling_table.output.slopes,
        deviations=rules.deviation_table.output.deviations,
        deviation_slopes=rules.deviation_table.output.slopes,
        oracle=rules.oracle_table.output.oracle,
    output:
        png=report(f"{RESULTS}/figures/scaling.png", caption=caption("scaling"), category="Paper 1"),
        pdf=f"{RESULTS}/figures/scaling.pdf",
    log:
        f"{RESULTS}/logs/figure_scaling.log",
    benchmark:
        f"{RESULTS}/benchmarks/figure_scaling.tsv"
    conda:
        CONDA_ENV
    params:
        style=figure_style("scaling"),
    script:
        "../scripts/figure_scaling.py"


rule claims_c3:
    input:
        library("claims_c3"),
        deviation_slopes=rules.deviation_table.output.slopes,
        table=rules.scaling_table.output.table,
        slopes=rules.scaling_table.output.slopes,
        oracle=rules.oracle_table.output.oracle,
        paper_values=PAPER_VALUES,
    output:
        f"{RESULTS}/claims/C3.csv",
    log:
        f"{RESULTS}/logs/claims_c3.log",
    benchmark:
        f"{RESULTS}/benchmarks/claims_c3.tsv"
    conda:
        CONDA_ENV
    script:
        "../scripts/claims_c3.py"


rule budget_table:
    input:
        library("budget_table"),
        runs=scaling_runs(["budget"]),
    output:
        table=f"{RESULTS}/consistency/budget.csv",
        fit=f"{RESULTS}/consistency/budget_fit.csv",
    log:
        f"{RESULTS}/logs/budget_table.log",
    benchmark:
        f"{RESULTS}/benchmarks/budget_table.tsv"
    conda:
        CONDA_ENV
    params:
        points=scaling_points(["budget"]),
        seeds=config["consistency"]["scaling"]["seeds"],
        regimes=config["consistency"]["scaling"]["regimes"],
        total=config["consistency"]["budget"]["total"],
    script:
        "../scripts/budget_table.py"


rule figure_budget:
    input:
        library("figure_budget"),
        table=rules.budget_table.output.table,
        fit=rules.budget_table.output.fit,
    output:
        png=report(f"{RESULTS}/figures/budget.png", caption=caption("budget"), category="Paper 1"),
        pdf=f"{RESULTS}/figures/budget.pdf",
    log:
        f"{RESULTS}/logs/figure_budget.log",
    benchmark:
        f"{RESULTS}/benchmarks/figure_budget.tsv"
    conda:
        CONDA_ENV
    params:
        style=figure_style("budget"),
    script:
        "../scripts/figure_budget.py"


rule claims_c4:
    input:
        library("claims_c4"),
        table=rules.budget_table.output.table,
        fit=rules.budget_table.output.fit,
    output:
        f"{RESULTS}/claims/C4.csv",
    log:
        f"{RESULTS}/logs/claims_c4.log",
    benchmark:
        f"{RESULTS}/benchmarks/claims_c4.tsv"
    conda:
        CONDA_ENV
    params:
        fit_tolerance=config["consistency"]["budget"]["fit_tolerance"],
    script:
        "../scripts/claims_c4.py"


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
        oce=config_keys("consistency.oce", "ms", "taus", "score_bound", "seed"),
    script:
        "../scripts/oce_identity.py"


rule claims_c5:
    input:
        library("claims_c5"),
        table=rules.oce_identity.output[0],
    output:
        f"{RESULTS}/claims/C5.csv",
    log:
        f"{RESULTS}/logs/claims_c5.log",
    benchmark:
        f"{RESULTS}/benchmarks/claims_c5.tsv"
    conda:
        CONDA_ENV
    params:
        tolerance=config["consistency"]["oce"]["tolerance"],
    script:
        "../scripts/claims_c5.py"
