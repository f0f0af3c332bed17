"""`planner` command line. `main(argv) -> int` so tests call it in-process; stdout is data, stderr
diagnostics; exit codes from planner.errors.ExitCode."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from planner import __version__
from planner.errors import ExitCode, PlannerError

REGIONS = ["us", "eu", "uk", "jp", "cn", "au"]
#: Plural and short names accepted for catalog kinds (`planner catalog list gpus`).
KIND_ALIASES = {"gpus": "gpu", "gpu-chips": "gpu-chip", "chips": "gpu-chip", "chip": "gpu-chip", "psus": "psu",
                "cases": "case", "motherboards": "motherboard", "boards": "motherboard", "cpus": "cpu",
                "risers": "riser", "outlets": "outlet"}


def _examples(*lines: str) -> str:
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)


def _common() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--catalog", metavar="DIR", type=Path, action="append", default=[],
                        help="extra catalog directory (repeatable; later ones override earlier ones by id)")
    return common


Subparsers = Any  # argparse's _SubParsersAction (private, so not named in signatures)
RAW = argparse.RawDescriptionHelpFormatter


def _add_check(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    check = sub.add_parser(
        "check", parents=[common], formatter_class=RAW,
        help="check build files: fit, power, outlets (exit 0 pass, 1 fail, 2 bad input)",
        description="Check one or more build files and report errors, warnings and totals.\n"
                    "Exit 0: every build passes (warnings allowed); 1: at least one fails; "
                    "2: a file could not be read or is invalid.",
        epilog=_examples("planner check build.toml",
                         "planner check examples/builds/*.toml --format json",
                         "planner check build.toml --strict        # warnings fail too",
                         "planner check build.toml --region eu     # default circuit when none is given"))
    check.add_argument("files", nargs="+", type=Path, metavar="FILE", help="build file(s) (.toml)")
    check.add_argument("--format", choices=["text", "json"], default="text", help="output format (default text)")
    check.add_argument("--strict", action="store_true", help="warnings make the build fail (exit 1)")
    check.add_argument("--region", choices=REGIONS, default=None,
                       help="region whose standard outlet is assumed when a build names no circuit (default us)")
    check.add_argument("--psu-target", type=float, default=None, metavar="FRACTION",
                       help="warn when sustained PSU load exceeds this fraction of its rating (default 0.8)")


def _add_catalog(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    from planner.models.parts import KIND_FILES

    kinds = [*KIND_FILES, *KIND_ALIASES]
    catalog = sub.add_parser(
        "catalog", help="list, show, search and validate the part catalogs", formatter_class=RAW,
        epilog=_examples("planner catalog list gpu", "planner catalog list psu --search 1600",
                         "planner catalog show nvidia-rtx-3090-fe", "planner catalog search rtx 4090",
                         "planner catalog validate my-catalogs/"))
    csub = catalog.add_subparsers(dest="catalog_command", metavar="ACTION")
    clist = csub.add_parser("list", parents=[common], help="list parts (of one kind)", formatter_class=RAW,
                            epilog=_examples("planner catalog list", "planner catalog list gpus --search 4090"))
    clist.add_argument("kind", nargs="?", choices=kinds, metavar="KIND",
                       help=f"part kind: {', '.join(KIND_FILES)} (plurals work too)")
    clist.add_argument("--search", metavar="TEXT", help="only parts whose id/name/maker contain every word")
    clist.add_argument("--format", choices=["text", "json"], default="text")
    cshow = csub.add_parser("show", parents=[common], help="show one part with every field and its source",
                            epilog=_examples("planner catalog show corsair-ax1600i",
                                             "planner catalog show nvidia-rtx-3090-fe --format json"),
                            formatter_class=RAW)
    cshow.add_argument("id", help="part id")
    cshow.add_argument("--format", choices=["text", "json"], default="text")
    csearch = csub.add_parser("search", parents=[common], help="search every kind by id, name and maker",
                              epilog=_examples("planner catalog search rtx 3090 turbo"), formatter_class=RAW)
    csearch.add_argument("text", nargs="+", help="words to look for")
    csearch.add_argument("--format", choices=["text", "json"], default="text")
    cvalidate = csub.add_parser(
        "validate", parents=[common], help="validate catalog files (exit 1 when a problem is found)",
        epilog=_examples("planner catalog validate            # the built-in, --catalog and user catalogs",
                         "planner catalog validate ~/my-parts  # one directory (on top of the built-in parts)"),
        formatter_class=RAW)
    cvalidate.add_argument("dir", nargs="?", type=Path, help="a catalog directory to validate alone")


def _add_schema(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    from planner.models.parts import KIND_FILES

    schema = sub.add_parser(
        "schema", help="print the JSON Schema of the build file (or of a catalog kind)", formatter_class=RAW,
        epilog=_examples("planner schema > build.schema.json", "planner schema gpu"))
    schema.add_argument("kind", nargs="?", choices=list(KIND_FILES), help="a catalog kind instead of the build")


def _add_export(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    export = sub.add_parser(
        "export", parents=[common], help="export a build's parts list (md, csv, json, text)", formatter_class=RAW,
        epilog=_examples("planner export build.toml --format md", "planner export build.toml --format csv -o parts.csv",
                         "planner export build.toml --format csv -o parts.csv --force   # replace parts.csv"))
    export.add_argument("file", type=Path, metavar="FILE", help="build file")
    export.add_argument("--format", choices=["md", "csv", "json", "text"], default="md")
    export.add_argument("-o", "--output", type=Path, metavar="OUT", help="write here (atomically) instead of stdout")
    export.add_argument("--force", action="store_true", help="overwrite OUT if it exists")
    export.add_argument("--region", choices=REGIONS, default=None, help=argparse.SUPPRESS)


def _add_tui(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    tui = sub.add_parser(
        "tui", parents=[common], formatter_class=RAW,
        help="interactive build session (parts, live findings, power, fixes, save)",
        description="Open a build (or start a new one) in the interactive planner. Keys are shown at the "
                    "bottom; ctrl+p lists every action.",
        epilog=_examples("planner tui                 # start a new build", "planner tui build.toml"))
    tui.add_argument("file", nargs="?", type=Path, metavar="FILE", help="build file to open (created on save)")


#: Each command: the function that adds its parser, and "module:function" that runs it (imported only
#: when that command runs, so `planner schema` never pays for what `planner check` needs).
COMMANDS: dict[str, tuple[Callable[..., None], str]] = {
    "check": (_add_check, "planner.cli.check_cmd:run_check"),
    "catalog": (_add_catalog, "planner.cli.catalog_cmd:run_catalog"),
    "schema": (_add_schema, "planner.cli.misc_cmd:run_schema"),
    "export": (_add_export, "planner.cli.misc_cmd:run_export"),
    # the TUI is a face of its own (package tui/): named here, imported only when `planner tui` runs
    "tui": (_add_tui, "tui.cli:run"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="planner",
        description="Plan multi-GPU deep-learning workstations: will it fit, power up, stay on the breaker "
                    "and stay cool — and what to change when it will not.",
        formatter_class=RAW,
        epilog=_examples("planner check examples/builds/pass-dual-3090-wrx80.toml",
                         "planner check builds/*.toml --format json",
                         "planner catalog list gpu --search 3090",
                         "planner export build.toml --format md -o parts.md"),
    )
    parser.add_argument("--version", action="version", version=f"planner {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    common = _common()
    for add, _ in COMMANDS.values():
        add(sub, common)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse: --help (0) or a usage error (2)
        return int(exit_.code or 0)
    if args.command is None:
        parser.print_help()
        return ExitCode.BAD_INPUT
    if args.command == "catalog" and args.catalog_command is None:
        with contextlib.suppress(SystemExit):
            parser.parse_args(["catalog", "--help"])
        return ExitCode.BAD_INPUT
    try:
        module, function = COMMANDS[args.command][1].split(":")
        run: Callable[[argparse.Namespace], int] = getattr(importlib.import_module(module), function)
        return run(args)
    except PlannerError as error:
        print(f"planner: {error}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    except KeyboardInterrupt:
        print("planner: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `planner … | head`
        return ExitCode.OK


def entry_point() -> None:
    # The CLI uses no pydantic plugins; looking for them scans every installed distribution's entry
    # points, ~30 ms of every cold start.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    sys.exit(main())
