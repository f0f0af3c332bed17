"""Capture what every face says about the examples, to show that a restructuring changed no behaviour.

    PYTHONPATH=. python tools/capture_reports.py /tmp/before     # on the old tree
    PYTHONPATH=. python tools/capture_reports.py /tmp/after      # on the new tree
    diff -r /tmp/before /tmp/after                               # nothing, or only what an issue changed on purpose

Each command runs in-process through the CLI's `main` (the text, JSON, diagram, Markdown, HTML and script
exports of every example build, the lab reports, a solve and a recommendation); one file per command holds its
exit status, standard output and standard error. Commands run with the frozen test catalogs' settings the CLI
uses by default, in a fixed order, so two runs on the same tree give the same files.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILDS = sorted((ROOT / "examples" / "builds").glob("*.toml"))
LABS = sorted((ROOT / "examples" / "labs").glob("*.toml"))

#: Absolute paths and timings vary between trees and runs; they are replaced before comparing.
_VARYING = [(re.compile(re.escape(str(ROOT))), "<repo>"),
            (re.compile(r"\b\d+(\.\d+)? ?(ms|s)\b(?= *(elapsed|\)|$))"), "<t>")]


def commands() -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    for build in BUILDS:
        rel = str(build.relative_to(ROOT))
        out.append((f"check-{build.stem}.txt", ["check", rel]))
        out.append((f"check-{build.stem}.json", ["check", rel, "--format", "json"]))
        out.append((f"diagram-{build.stem}.txt", ["check", rel, "--diagram"]))
        out.append((f"md-{build.stem}.md", ["export", rel, "--format", "md"]))
    for fmt in ("csv", "bbcode", "html", "systemd", "nvidia-smi", "json", "text"):
        out.append((f"export-{fmt}-quad-us15a", ["export", "examples/builds/fail-dettmers-quad-3090-us-15a.toml",
                                                "--format", fmt]))
    for lab in LABS:
        rel = str(lab.relative_to(ROOT))
        out.append((f"lab-{lab.stem}.txt", ["lab", rel]))
        out.append((f"lab-{lab.stem}.json", ["lab", rel, "--format", "json"]))
    out.append(("solve-quad-us15a.txt", ["solve", "examples/builds/fail-dettmers-quad-3090-us-15a.toml"]))
    out.append(("optimize-quad-us15a.txt", ["optimize", "examples/builds/fail-dettmers-quad-3090-us-15a.toml"]))
    out.append(("recommend-70b.json", ["recommend", "--workload", "llm-inference", "--model", "llama-3.1-70b",
                                       "--precision", "q4_k_m", "--format", "json"]))
    return out


def run(argv: list[str]) -> tuple[int, str, str]:
    from planner.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
    return code, out.getvalue(), err.getvalue()


def scrub(text: str) -> str:
    for pattern, replacement in _VARYING:
        text = pattern.sub(replacement, text)
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path, help="where to write one file per command")
    args = parser.parse_args(argv)
    args.directory.mkdir(parents=True, exist_ok=True)
    import os

    os.chdir(ROOT)
    for name, command in commands():
        code, out, err = run(command)
        (args.directory / name).write_text(f"$ planner {' '.join(command)}\nexit {code}\n--- stdout\n{scrub(out)}"
                                           f"--- stderr\n{scrub(err)}")
        print(f"{code}  {name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
