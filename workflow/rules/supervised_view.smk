# S1–S4 (paper 3, Sec. 5): images and view banks per augmentation -> one training job per run spec (all its seeds)
# -> one evaluation per run spec, and the baselines -> a table per experiment (ssl_table) -> figures -> claims.
# Each rule's params are the config keys it reads, declared once in crlrepro.studies.supervised_view.RULE_KEYS.


wildcard_constraints:
    balance="full|uniform|long_tailed",
    augmentation="base|no_blur|plus_rotation",
    similarity="cosine|dot|neg_euclidean",
    loss="balanced|nt_xent|dcl|supervised_prototype",
    ratio=r"\d+(\.\d+)?",


rule image_views:
    input:
        library("image_views"),
    output:
        f"{RESULTS}/supervised_view/views/{{augmentation}}.pt",
    log:
        f"{RESULTS}/logs/image_views/{{augmentation}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/image_views/{{augmentation}}.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("image_views"),
    script:
        "../scripts/supervised_view/image_views.py"


rule ssl_train:
    input:
        library("ssl_train"),
        views=f"{RESULTS}/supervised_view/views/{{augmentation}}.pt",
    output:
        f"{RESULTS}/models/ssl/{{balance}}_{{augmentation}}_{{similarity}}_{{loss}}_r{{ratio}}.pt",
    log:
        f"{RESULTS}/logs/ssl_train/{{balance}}_{{augmentation}}_{{similarity}}_{{loss}}_r{{ratio}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/ssl_train/{{balance}}_{{augmentation}}_{{similarity}}_{{loss}}_r{{ratio}}.tsv"
    conda:
        CONDA_ENV
    resources:
        gpu=gpu_request(),
    params:
        **keys("ssl_train"),
        checkpoint_dir=f"{RESULTS}/checkpoints/ssl",
    script:
        "../scripts/supervised_view/ssl_train.py"


rule ssl_eval:
    input:
        library("ssl_eval"),
        model=f"{RESULTS}/models/ssl/{{balance}}_{{augmentation}}_{{similarity}}_{{loss}}_r{{ratio}}.pt",
        views=f"{RESULTS}/supervised_view/views/{{augmentation}}.pt",
    output:
        f"{RESULTS}/supervised_view/runs/{{balance}}_{{augmentation}}_{{similarity}}_{{loss}}_r{{ratio}}.csv",
    log:
        f"{RESULTS}/logs/ssl_eval/{{balance}}_{{augmentation}}_{{similarity}}_{{loss}}_r{{ratio}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/ssl_eval/{{balance}}_{{augmentation}}_{{similarity}}_{{loss}}_r{{ratio}}.tsv"
    conda:
        CONDA_ENV
    resources:
        gpu=gpu_request(),
    params:
        **keys("ssl_eval"),
    script:
        "../scripts/supervised_view/ssl_eval.py"


rule ssl_baselines:
    input:
        library("ssl_baselines"),
        views=f"{RESULTS}/supervised_view/views/base.pt",
    output:
        f"{RESULTS}/supervised_view/runs/baselines.csv",
    log:
        f"{RESULTS}/logs/ssl_baselines.log",
    benchmark:
        f"{RESULTS}/benchmarks/ssl_baselines.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("ssl_baselines"),
    script:
        "../scripts/supervised_view/ssl_baselines.py"


rule ssl_table:
    input:
        library("ssl_table"),
        runs=ssl_all_evaluations(),
        baselines=f"{RESULTS}/supervised_view/runs/baselines.csv",
    output:
        [f"{RESULTS}/supervised_view/{e}.csv" for e in SSL_EXPERIMENTS],
    log:
        f"{RESULTS}/logs/ssl_table.log",
    benchmark:
        f"{RESULTS}/benchmarks/ssl_table.tsv"
    conda:
        CONDA_ENV
    params:
        experiments={e: ssl_evaluations(e) for e in SSL_EXPERIMENTS},
    script:
        "../scripts/supervised_view/ssl_table.py"


rule figure_ssl:
    input:
        library("figure_ssl"),
        tables=rules.ssl_table.output,
    output:
        png=[report(f"{RESULTS}/figures/{e}.png", caption=caption(e), category="Paper 3") for e in SSL_EXPERIMENTS],
        pdf=[f"{RESULTS}/figures/{e}.pdf" for e in SSL_EXPERIMENTS],
    log:
        f"{RESULTS}/logs/figure_ssl.log",
    benchmark:
        f"{RESULTS}/benchmarks/figure_ssl.tsv"
    conda:
        CONDA_ENV
    params:
        style=figure_style("ssl"),
        experiments=list(SSL_EXPERIMENTS),
    script:
        "../scripts/supervised_view/figure_ssl.py"


rule claims_ssl:
    input:
        library("claims_ssl"),
        tables=rules.ssl_table.output,
        paper_values=PAPER_VALUES,
    output:
        [f"{RESULTS}/claims/{e}.csv" for e in SSL_EXPERIMENTS],
    log:
        f"{RESULTS}/logs/claims_ssl.log",
    benchmark:
        f"{RESULTS}/benchmarks/claims_ssl.tsv"
    conda:
        CONDA_ENV
    params:
        **keys("claims_ssl"),
        experiments=list(SSL_EXPERIMENTS),
        setting=claim_setting(*SSL_EXPERIMENTS),
    script:
        "../scripts/supervised_view/claims_ssl.py"
