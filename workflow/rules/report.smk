# Across the papers: the summary of every claims table, the report's captions, and publishing a finished scale.


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
    script:
        "../scripts/summary.py"


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
    params:
        published=registry.published_files(),
        scale=config["scale"],
        config=config,
    script:
        "../scripts/publish.py"
