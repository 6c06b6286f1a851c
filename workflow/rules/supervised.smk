# Paper 3 (S1–S4): view banks per augmentation → one training per run spec and seed → one
# evaluation of every model (a table per experiment) → figures → claims.


wildcard_constraints:
    balance="full|uniform|long_tailed",
    augmentation="base|no_blur|plus_rotation",
    similarity="cosine|dot|neg_euclidean",
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
    threads: 1
    params:
        data=config["supervised_view"]["data"],
        views=config["supervised_view"]["views"],
        bias_views=config["supervised_view"]["bias_views"],
        seed=config["supervised_view"]["view_seed"],
    script:
        "../scripts/image_views.py"


rule ssl_train:
    input:
        library("ssl_train"),
        views=f"{RESULTS}/supervised_view/views/{{augmentation}}.pt",
    output:
        f"{RESULTS}/models/ssl/{{balance}}_{{augmentation}}_{{similarity}}_r{{ratio}}_seed{{seed}}.pt",
    log:
        f"{RESULTS}/logs/ssl_train/{{balance}}_{{augmentation}}_{{similarity}}_r{{ratio}}_seed{{seed}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/ssl_train/{{balance}}_{{augmentation}}_{{similarity}}_r{{ratio}}_seed{{seed}}.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        gpu=gpu_request(),
    params:
        training=ssl_training(),
        balance=config["supervised_view"]["balance"],
        device=config["device"],
        checkpoint_dir=f"{RESULTS}/checkpoints/ssl",
    script:
        "../scripts/ssl_train.py"


rule ssl_tables:
    input:
        library("ssl_tables"),
        models=ssl_all_models(),
        views=ssl_all_views(),
    output:
        [f"{RESULTS}/supervised_view/{e}.csv" for e in SSL_EXPERIMENTS],
    log:
        f"{RESULTS}/logs/ssl_tables.log",
    benchmark:
        f"{RESULTS}/benchmarks/ssl_tables.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        gpu=gpu_request(),
    params:
        knn_k=config["supervised_view"]["knn_k"],
        experiments={e: ssl_models(e) for e in SSL_EXPERIMENTS},
        device=config["device"],
    script:
        "../scripts/ssl_tables.py"


rule figure_ssl:
    input:
        library("figure_ssl"),
        tables=rules.ssl_tables.output,
    output:
        png=[report(f"{RESULTS}/figures/{e}.png", caption=caption(e), category="Paper 3") for e in SSL_EXPERIMENTS],
        pdf=[f"{RESULTS}/figures/{e}.pdf" for e in SSL_EXPERIMENTS],
    log:
        f"{RESULTS}/logs/figure_ssl.log",
    benchmark:
        f"{RESULTS}/benchmarks/figure_ssl.tsv"
    conda:
        CONDA_ENV
    threads: 1
    params:
        style=figure_style("ssl"),
        experiments=list(SSL_EXPERIMENTS),
    script:
        "../scripts/figure_ssl.py"


rule claims_ssl:
    input:
        library("claims_ssl"),
        tables=rules.ssl_tables.output,
        paper_values=PAPER_VALUES,
    output:
        [f"{RESULTS}/claims/{e}.csv" for e in SSL_EXPERIMENTS],
    log:
        f"{RESULTS}/logs/claims_ssl.log",
    benchmark:
        f"{RESULTS}/benchmarks/claims_ssl.tsv"
    conda:
        CONDA_ENV
    threads: 1
    params:
        experiments=list(SSL_EXPERIMENTS),
        setting=claim_setting(*SSL_EXPERIMENTS),
    script:
        "../scripts/claims_ssl.py"
