# Claims and the summary: per claim (kinds and claims in crlrepro.claims.registry), the paper's value, ours,
# its interval, power, verdict and reason.


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
    threads: 1
    params:
        setting=claim_setting("A1"),
    script:
        "../scripts/claims_a1.py"


rule summary:
    input:
        library("summary"),
        claims=claim_tables(),
    output:
        csv=f"{RESULTS}/summary.csv",
        md=f"{RESULTS}/summary.md",
        html=report(f"{RESULTS}/summary.html", caption=caption("summary"), category="Summary"),
    log:
        f"{RESULTS}/logs/summary.log",
    benchmark:
        f"{RESULTS}/benchmarks/summary.tsv"
    conda:
        CONDA_ENV
    threads: 1
    script:
        "../scripts/summary.py"


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
    threads: 1
    params:
        setting=claim_setting("A2"),
    script:
        "../scripts/claims_a2.py"


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
    threads: 1
    params:
        setting=claim_setting("A3"),
    script:
        "../scripts/claims_a3.py"


rule claims_a4:
    input:
        library("claims_a4"),
        table=rules.tsybakov.output.table,
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
    threads: 1
    params:
        setting=claim_setting("A4"),
        exact=config_keys("tsybakov.exact", "tolerance", "family_level"),
        samples=config["tsybakov"]["samples"],
    script:
        "../scripts/claims_a4.py"


rule claims_c1:
    input:
        library("claims_c1"),
        oracle=rules.oracle.output.oracle,
        convergence=rules.oracle.output.convergence,
    output:
        f"{RESULTS}/claims/C1.csv",
    log:
        f"{RESULTS}/logs/claims_c1.log",
    benchmark:
        f"{RESULTS}/benchmarks/claims_c1.tsv"
    conda:
        CONDA_ENV
    threads: 1
    params:
        standard_errors=config["consistency"]["oracle"]["standard_errors"],
        digits=config["consistency"]["oracle"]["digits"],
    script:
        "../scripts/claims_c1.py"


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
    threads: 1
    params:
        tolerance=config["consistency"]["oce"]["tolerance"],
    script:
        "../scripts/claims_c5.py"


rule claims_c2:
    input:
        library("claims_c2"),
        table=rules.calibration.output.table,
        fit=rules.calibration.output.fit,
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
    threads: 1
    script:
        "../scripts/claims_c2.py"


rule claims_c3:
    input:
        library("claims_c3"),
        deviation_slopes=rules.deviation.output.slopes,
        table=rules.scaling.output.table,
        slopes=rules.scaling.output.slopes,
        oracle=rules.oracle.output.oracle,
        paper_values=PAPER_VALUES,
    output:
        f"{RESULTS}/claims/C3.csv",
    log:
        f"{RESULTS}/logs/claims_c3.log",
    benchmark:
        f"{RESULTS}/benchmarks/claims_c3.tsv"
    conda:
        CONDA_ENV
    threads: 1
    script:
        "../scripts/claims_c3.py"


rule claims_c4:
    input:
        library("claims_c4"),
        table=rules.budget.output.table,
        fit=rules.budget.output.fit,
    output:
        f"{RESULTS}/claims/C4.csv",
    log:
        f"{RESULTS}/logs/claims_c4.log",
    benchmark:
        f"{RESULTS}/benchmarks/claims_c4.tsv"
    conda:
        CONDA_ENV
    threads: 1
    params:
        fit_tolerance=config["consistency"]["budget"]["fit_tolerance"],
    script:
        "../scripts/claims_c4.py"


rule report_captions:
    input:
        library("report_captions"),
        summary=rules.summary.output.csv,
        templates=[
            workdir_relative(Path(workflow.basedir) / "workflow" / "report" / f"{spec['template']}.rst")
            for spec in REPORT_CAPTIONS.values()
        ],
        # each caption is checked against the figure it describes (what the PNG says it draws)
        figures=[f"{RESULTS}/figures/{name}.png" for name in REPORT_CAPTIONS if name != "summary"],
    output:
        [f"{RESULTS}/report/captions/{name}.rst" for name in REPORT_CAPTIONS],
    log:
        f"{RESULTS}/logs/report_captions.log",
    benchmark:
        f"{RESULTS}/benchmarks/report_captions.tsv"
    conda:
        CONDA_ENV
    threads: 1
    params:
        captions=REPORT_CAPTIONS,
    script:
        "../scripts/report_captions.py"


# `snakemake publish --cores 1 [--configfile ...]`: this scale's summary, claims tables and figures, checked, with a
# provenance file, into docs/results/<scale>/ (crlrepro.workflow.publish), where the README and the docs read them. Not part of
# `all`: publishing is a decision, taken on finished results.
PUBLISHED = workdir_relative(Path(workflow.basedir) / "docs" / "results" / config["scale"])


rule publish:
    input:
        library("publish"),
        files=[f"{RESULTS}/{f}" for f in registry.published_files()],
    output:
        files=[f"{PUBLISHED}/{f}" for f in registry.published_files()],
        provenance=f"{PUBLISHED}/provenance.json",
    log:
        f"{RESULTS}/logs/publish.log",
    conda:
        CONDA_ENV
    threads: 1
    params:
        published=registry.published_files(),
        scale=config["scale"],
        config=config,
    script:
        "../scripts/publish.py"
