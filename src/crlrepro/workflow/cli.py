"""The ``crlrepro`` command: checks a user runs beside Snakemake.

    crlrepro verify [--configfile configs/smoke.yaml ...]   every artifact of every scale present (or of one scale)
                                                             against its sidecar, and every published file
    crlrepro check-config [--cluster] configs/mine.yaml ...  a config's syntax and values (naming file and line), and
                                                             what a run checks when it starts (folder, data, sizes, GPU)
    crlrepro compare A B                                     two results folders or publications claim by claim: did
                                                             a rerun reproduce the published verdicts? (exit 1: no)
    crlrepro update-readme [--check]                         README.md's result blocks and docs/scales.md's comparison
                                                             of the scales, from docs/results/<scale>/

Run from the checkout (the folder holding the Snakefile).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["GENERATED_FROM_PUBLISHED", "main"]


def _check_config(paths: list[str], cluster: bool = False) -> int:
    """0 where the config files, merged as Snakemake merges ``snakemake --configfile <paths>``
    (:func:`crlrepro.workflow.config.merged_config`), pass every check a run makes before its first job
    (:func:`crlrepro.workflow.preflight.start_refusal`; ``cluster``: the jobs run elsewhere, so this machine's memory
    and GPU are not checked); else 1, printing each problem. A shipped scale's name with other parameters is valid
    (a run warns) and said as a warning: it cannot be published under that name."""
    from crlrepro.workflow.config import ConfigError, merged_config
    from crlrepro.workflow.folder import scale_binding_problems
    from crlrepro.workflow.preflight import start_refusal

    root = Path.cwd()
    try:
        config = merged_config(root, paths)
    except ConfigError as error:
        print(error, file=sys.stderr)
        return 1
    refusal = start_refusal(config, root, local=not cluster)
    if refusal:
        print(refusal, file=sys.stderr)
        return 1
    for problem in scale_binding_problems(config, root):
        print(f"warning: {problem}; `snakemake publish` will refuse these results", file=sys.stderr)
    print(f"valid: config.yaml{''.join(' + ' + p for p in paths)} (results in {config['results']}/)")
    return 0


def _verify(configfiles: list[str]) -> int:
    """With ``configfiles``: that scale's outputs. Without: every scale present, each results folder under results/
    with the effective config its run recorded, and each publication under docs/results/."""
    from crlrepro.workflow.verify import verify_everything, verify_scale

    try:
        if configfiles:
            count, problems = verify_scale(Path.cwd(), configfiles)
            checked = [f"the scale of {' + '.join(configfiles)}: {count} outputs"]
        else:
            checked, problems = verify_everything(Path.cwd())
    except RuntimeError as error:
        print(error, file=sys.stderr)
        return 2
    if not checked:
        print(
            "nothing to verify: no results folder recorded a run (results/[<scale>/]effective_config.yaml) and nothing "
            "is published under docs/results/; run a scale first: snakemake --cores all",
            file=sys.stderr,
        )
        return 1
    for problem in problems:
        print(problem)
    failed = len({p.path for p in problems})
    print("checked " + "; ".join(checked))
    print("all verified" if not problems else f"{failed} file(s) failed")
    return 1 if problems else 0


def _compare(a: str, b: str, csv: str | None) -> int:
    """Print the comparison of two sides (:mod:`crlrepro.workflow.compare`); 1 where a decided verdict moved that is not
    fragile on both sides, 2 where a side cannot be read."""
    from crlrepro.runtime.artifacts import ArtifactError
    from crlrepro.workflow.compare import compare_sides, comparison_text, moved_decisions, read_side

    try:
        side_a, side_b = read_side(a), read_side(b)
    except ArtifactError as error:
        print(error, file=sys.stderr)
        return 2
    table = compare_sides(side_a, side_b)
    print(comparison_text(side_a, side_b, table), end="")
    if csv:
        table.to_csv(csv, index=False)
    return 1 if len(moved_decisions(table)) else 0


GENERATED_FROM_PUBLISHED = (
    "README.md",
    "docs/scales.md",
    "docs/getting-started.md",
    "docs/configs.md",
)  # blocks from docs/results/


def _update_readme(check: bool) -> int:
    """Regenerate the blocks generated from the published results: README.md's result blocks
    (crlrepro.workflow.publish.readme_blocks), docs/scales.md's comparison of the scales
    (crlrepro.workflow.publish.scales_block) and the verdict board of every published scale (docs/results/board.csv
    and board.png, crlrepro.workflow.board.write_board); with ``check``, only report (exit 1) what differs."""
    from crlrepro.runtime.artifacts import ArtifactError, write_text
    from crlrepro.workflow.publish import (
        PUBLISHED_ROOT,
        board_is_current,
        published_scales,
        readme_blocks,
        scales_block,
        write_board,
    )

    root = Path.cwd() / PUBLISHED_ROOT
    try:
        board_stale = bool(published_scales(root)) and not board_is_current(root)
    except ArtifactError as error:
        print(error, file=sys.stderr)
        return 1
    if board_stale and check:
        print(f"{PUBLISHED_ROOT}/board.csv: differs from the published summaries; run `crlrepro update-readme`", file=sys.stderr)
        return 1
    if board_stale:
        for path in write_board(root):
            print(f"{path.relative_to(Path.cwd())}: rewrote the verdict board")
    stale = {}
    for name in GENERATED_FROM_PUBLISHED:
        path = Path.cwd() / name
        if not path.is_file():
            continue
        try:
            text, changed = readme_blocks(path.read_text())
            text, scales_changed = scales_block(text)
        except ArtifactError as error:
            print(error, file=sys.stderr)
            return 1
        if changed or scales_changed:
            stale[path] = (text, [*changed, *(["the scales' comparison"] if scales_changed else [])])
    if not stale:
        if not board_stale:
            print(f"{', '.join(GENERATED_FROM_PUBLISHED)} and the verdict board: every generated block matches docs/results/")
        return 0
    if check:
        for path, (_, what) in stale.items():
            print(
                f"{path.name}: the blocks of {', '.join(what)} differ from docs/results/; run `crlrepro update-readme`",
                file=sys.stderr,
            )
        return 1
    for path, (text, what) in stale.items():
        write_text(text, path)
        print(f"{path.relative_to(Path.cwd())}: rewrote the blocks of {', '.join(what)}")
    return 0


class _OneFlag(argparse.Action):
    """``--configfile A B`` as Snakemake reads it. Given twice, Snakemake keeps the last flag's files only, so a
    repeated flag is refused instead of checking another scale than the user meant."""

    def __call__(self, parser, namespace, values, option_string=None):
        if getattr(namespace, self.dest):
            given = " ".join([*getattr(namespace, self.dest), *values])
            parser.error(
                f"{option_string} given twice: snakemake would keep only the last one's files; give them all to one "
                f"flag, as snakemake reads them: {option_string} {given}"
            )
        setattr(namespace, self.dest, list(values))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="crlrepro", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    verify = commands.add_parser(
        "verify",
        help="check every artifact of every scale present (results/ and docs/results/) against its sidecar and the workflow",
    )
    verify.add_argument(
        "--configfile",
        nargs="+",
        action=_OneFlag,
        default=[],
        help="only the scale of these config file(s), as given to snakemake: one flag, several files "
        "(default: every scale present, each with the config its run recorded)",
    )
    check = commands.add_parser(
        "check-config",
        help="check config files merged over config.yaml, naming file and line, and what a run checks before its first job",
    )
    check.add_argument("--cluster", action="store_true", help="the jobs run on a cluster: skip this machine's memory and GPU")
    check.add_argument("paths", nargs="+")
    compare = commands.add_parser(
        "compare",
        help="compare two results folders or publications claim by claim (results/smoke docs/results/smoke); exit 1 when "
        "a decided verdict moved",
    )
    compare.add_argument("a", help="a results folder (results/, results/<scale>/) or a publication (docs/results/<scale>/)")
    compare.add_argument("b", help="the other side, e.g. the publication of the same scale")
    compare.add_argument("--csv", help="also write the row-by-row comparison to this CSV file")
    readme = commands.add_parser("update-readme", help="regenerate README.md's result blocks from docs/results/")
    readme.add_argument("--check", action="store_true", help="only report the blocks that differ (exit 1)")
    args = parser.parse_args(argv)
    if not (Path.cwd() / "Snakefile").is_file():
        parser.error("run it from the checkout (the folder holding the Snakefile)")
    if args.command == "update-readme":
        return _update_readme(args.check)
    if args.command == "compare":
        return _compare(args.a, args.b, args.csv)
    return _verify(args.configfile) if args.command == "verify" else _check_config(args.paths, args.cluster)


if __name__ == "__main__":
    sys.exit(main())
