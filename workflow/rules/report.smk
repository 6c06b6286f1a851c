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
    params:
        scale=config["scale"],  # the summary opens with its scale and what that scale can decide
    script:
        "../scripts/report/summary.py"


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
        "../scripts/report/report_captions.py"


# This run's verdicts beside every other scale published in this checkout (docs/results/<scale>/, listed when the
# workflow starts), as a table and as the verdict board (claims by scales): publishing another scale reruns it.
PUBLISHED_ROOT = workdir_relative(Path(workflow.basedir) / "docs" / "results")
OTHER_SCALES = [s for s in published_scales(PUBLISHED_ROOT) if s != config["scale"]]


rule scales_table:
    input:
        library("scales_table"),
        summary=rules.summary.output.csv,
        published=[f"{PUBLISHED_ROOT}/{s}/{f}" for s in OTHER_SCALES for f in ("provenance.json", "summary.csv")],
    output:
        csv=f"{RESULTS}/scales.csv",
        html=report(
            f"{RESULTS}/scales.html",
            caption=os.path.abspath(Path(workflow.basedir) / "workflow" / "report" / "scales.rst"),
            category="Summary",
        ),
        board=report(
            f"{RESULTS}/verdict_board.png",
            caption=os.path.abspath(Path(workflow.basedir) / "workflow" / "report" / "board.rst"),
            category="Summary",
        ),
    log:
        f"{RESULTS}/logs/scales_table.log",
    benchmark:
        f"{RESULTS}/benchmarks/scales_table.tsv"
    conda:
        CONDA_ENV
    params:
        scale=config["scale"],
        others=OTHER_SCALES,
        config=comparison_config(config),
    script:
        "../scripts/report/scales_table.py"


# `snakemake publish --cores 1 [--configfile ...]`: this scale's summary, claims tables and figures, checked, with a
# provenance file, into docs/results/<scale>/ (crlrepro.workflow.publish), where the README and the docs read them. Not part of
# `all`: publishing is a decision, taken on finished results.
PUBLISHED = workdir_relative(Path(workflow.basedir) / "docs" / "results" / config["scale"])


rule publish:
    input:
        publish_allowed,
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
        "../scripts/report/publish.py"
