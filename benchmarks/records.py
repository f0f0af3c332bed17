"""The records (planner/util/record/) against pydantic's own BaseModel on a cold `planner check`: the measurement behind
issue 29's decision (back to BaseModel if it comes within 1.15× of the records, else keep the records, fenced).

    python benchmarks/records.py [--runs N] [--no-instructions] [--keep DIR]

It copies the planner (planner/, catalogs/, examples/) into three scratch trees and runs the same commands on each:

* records — the tree as it is;
* BaseModel — `planner/util/record/core.py` replaced by benchmarks/records_basemodel.py: `Record` is a
  `pydantic.BaseModel` with `ConfigDict(defer_build=True, extra="forbid", frozen=True, validate_by_name=True,
  validate_by_alias=True)` (a record accepts an aliased field under its name too) and the records' markers
  are pydantic's (`Field`, `model_validator`, `BeforeValidator`, `WithJsonSchema`, `Strict`), so every model of
  the planner is a BaseModel whose validator is built on first use; `twin()` returns the model itself. Nothing
  else changes: the same models, the same catalog cache (entries rebuilt with `model_construct`), the same code;
* BaseModel, lazy — the same, plus what a swap could do besides to start faster: the models a check never
  touches are not defined (the lab kinds `Pdu`, `Ups`, `Nic`, `Switch` and the workload model: a real swap would
  import them lazily; here they are cut out of `planner/models/parts.py`) and pydantic's plugin discovery is off
  (`PYDANTIC_DISABLE_PLUGINS=__all__`, as `planner/cli/startup.py` could set it).

Before measuring, each variant's output of every command is compared with the records' (byte-identical, or the
script stops), as is `planner schema`'s. Then, per tree: `planner check` of
examples/builds/fail-psu-quad-3090-fe-1600w.toml (text, piped) and `--format json`, each tree with its own warmed
catalog cache and compiled bytecode, as an installed planner's second run:

* instructions (callgrind, one run each: the count does not depend on the machine's load and repeats to
  within ~0.1 %), with the floor no BaseModel variant can go under however lazily it imports: the records' count
  minus `import pydantic_core` plus `from pydantic import BaseModel` (a check must validate the build file, so
  it imports pydantic);
* wall and CPU milliseconds, median of N runs interleaved round-robin in a shuffled order (as benchmarks/run.py):
  they depend on the machine and its load, the instructions do not.

Measured on 2026-12-02 (python 3.11.7, pydantic 2.14.4, pydantic-core 2.50.5; `--runs 15`, on this shared 2-core
machine at load 3–7, so the milliseconds are inflated and noisy; the README's "Speed" quotes it):

    instructions executed (callgrind, one run each):
                                                     check (text)    check --format json
      records (planner/util/record/)                   700.4 M (1.00×)        714.4 M (1.00×)
      BaseModel(defer_build=True)                1089.7 M (1.56×)       1103.1 M (1.54×)
      BaseModel, lazy, no plugin discovery       1050.2 M (1.50×)       1065.7 M (1.49×)
      floor of any BaseModel variant              870.9 M (1.24×)        884.9 M (1.24×)
      (python -c pass 38.8 M; import pydantic_core 218.1 M; from pydantic import BaseModel 388.6 M)
      issue 29's rule: BaseModel within 1.15× of the records? best 1.50× → keep the records (fenced)
    milliseconds, median of 15 runs, interleaved (wall, CPU in brackets):
                                                           check (text)        check --format json
      records (planner/util/record/)                   471.7 ms ( 241) 1.00×      480.6 ms ( 241) 1.00×
      BaseModel(defer_build=True)                 660.0 ms ( 365) 1.40×      719.2 ms ( 362) 1.50×
      BaseModel, lazy, no plugin discovery        711.9 ms ( 353) 1.51×      664.7 ms ( 367) 1.38×

Two earlier runs the same day, on the code a few commits before (699.0 M against 1,085.6 M instructions), timed
the text check at 290 ms (CPU 156) against 466 ms (CPU 251), 1.61×, and 470 ms (CPU 216) against 650 ms
(CPU 317), 1.38×: the milliseconds move with the machine's load, the instruction ratio stays at 1.55–1.56×.
"""

from __future__ import annotations

import argparse
import ast
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = Path("examples") / "builds" / "fail-psu-quad-3090-fe-1600w.toml"
THRESHOLD = 1.15  # issue 29: back to BaseModel if its cold check is within 1.15× of the records'

#: The models a `planner check` never validates nor rebuilds, and no model it uses holds: a swap would import
#: them lazily (the "lazy" variant does not define them at all).
NEVER_ON_A_CHECK = ("Pdu", "Ups", "Nic", "Switch", "WorkloadModel")

COMMANDS = {"text": ["check", str(BUILD)], "json": ["check", str(BUILD), "--format", "json"]}
SAME_OUTPUT = {**COMMANDS, "schema": ["schema"], "schema gpu": ["schema", "gpu"], "schema psu": ["schema", "psu"],
               "schema case": ["schema", "case"]}

#: As an installed planner runs: its bytecode compiled (see benchmarks/run.py).
BASE_ENV = {key: value for key, value in os.environ.items()
            if key not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH", "PYDANTIC_DISABLE_PLUGINS")}


class Tree:
    """A scratch copy of the planner and how to run it."""

    def __init__(self, name: str, path: Path, env: dict[str, str]) -> None:
        self.name, self.path = name, path
        self.env = {**BASE_ENV, **env, "PLANNER_CACHE_DIR": str(path / ".cache")}

    def argv(self, args: list[str]) -> list[str]:
        return [sys.executable, "-m", "planner", *args]

    def run(self, args: list[str]) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(self.argv(args), cwd=self.path, env=self.env, capture_output=True, check=False)


def _copy(into: Path) -> None:
    for folder in ("planner", "catalogs", "examples"):
        shutil.copytree(ROOT / folder, into / folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


def _basemodel(tree: Path) -> None:
    """Put the BaseModel variant of the records in place."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import records_basemodel

    shutil.copyfile(ROOT / "benchmarks" / "records_basemodel.py", tree / "planner" / "record" / "core.py")
    (tree / "planner" / "record" / "twin.py").write_text(records_basemodel.TWIN)


def _without_unused_models(tree: Path) -> None:
    """Cut the models a check never touches out of planner/models/parts.py (what lazy imports would spare)."""
    path = tree / "planner" / "models" / "parts.py"
    source = path.read_text()
    lines = source.splitlines(keepends=True)
    cut: set[int] = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef) and node.name in NEVER_ON_A_CHECK:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            cut.update(range(first - 1, node.end_lineno or node.lineno))
        elif isinstance(node, ast.ImportFrom) and any(a.name in NEVER_ON_A_CHECK for a in node.names):
            cut.update(range(node.lineno - 1, node.end_lineno or node.lineno))
    entry = re.compile(rf'^\s+"[a-z-]+": ({"|".join(NEVER_ON_A_CHECK)}),\s*$')
    cut.update(number for number, line in enumerate(lines) if entry.match(line))
    path.write_text("".join(line for number, line in enumerate(lines) if number not in cut))


def _prepare(tree: Tree) -> None:
    subprocess.run([sys.executable, "-m", "compileall", "-q", "planner"], cwd=tree.path, env=tree.env, check=True,
                   stdout=subprocess.DEVNULL)
    for _ in range(2):  # the catalog cache written, the OS file cache warm: as a user's second run
        tree.run(COMMANDS["text"])


def _same_output(trees: list[Tree]) -> None:
    records = trees[0]
    for name, args in SAME_OUTPUT.items():
        expected = records.run(args)
        for tree in trees[1:]:
            got = tree.run(args)
            if (got.stdout, got.returncode) != (expected.stdout, expected.returncode):
                sys.exit(f"{tree.name}: `planner {' '.join(args)}` differs from the records' ({name}); stderr:\n"
                         f"{got.stderr.decode(errors='replace')[-2000:]}")
    print(f"  every variant prints what the records print ({', '.join(SAME_OUTPUT)}): byte-identical")


def _instructions(argv: list[str], cwd: Path, env: dict[str, str]) -> int:
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
                          cwd=cwd, env=env, capture_output=True, text=True, check=False)
    match = re.search(r"Collected : (\d+)", done.stderr)
    if match is None:
        sys.exit(f"callgrind gave no count for {argv}:\n{done.stderr[-2000:]}")
    return int(match.group(1))


def instructions(trees: list[Tree]) -> None:
    python = {label: _instructions([sys.executable, "-c", code], ROOT, BASE_ENV)
              for label, code in (("pass", "pass"), ("pydantic_core", "import pydantic_core"),
                                  ("BaseModel", "from pydantic import BaseModel"))}
    counts = {(tree.name, command): _instructions(tree.argv(args), tree.path, tree.env)
              for tree in trees for command, args in COMMANDS.items()}
    print("instructions executed (callgrind, one run each):")
    print(f"  {'':38s} {'check (text)':>20s} {'check --format json':>22s}")
    for tree in trees:
        cells = []
        for command in COMMANDS:
            count, base = counts[(tree.name, command)], counts[(trees[0].name, command)]
            cells.append(f"{count / 1e6:8.1f} M ({count / base:4.2f}×)")
        print(f"  {tree.name:38s} {cells[0]:>20s} {cells[1]:>22s}")
    extra = python["BaseModel"] - python["pydantic_core"]
    floors = {command: (counts[(trees[0].name, command)] + extra, counts[(trees[0].name, command)])
              for command in COMMANDS}
    cells = [f"{floor / 1e6:8.1f} M ({floor / base:4.2f}×)" for floor, base in floors.values()]
    print(f"  {'floor of any BaseModel variant':38s} {cells[0]:>20s} {cells[1]:>22s}")
    print(f"  (python -c pass {python['pass'] / 1e6:.1f} M; import pydantic_core {python['pydantic_core'] / 1e6:.1f} M;"
          f" from pydantic import BaseModel {python['BaseModel'] / 1e6:.1f} M: the floor is the records' count"
          f" + {extra / 1e6:.1f} M)")
    best = min(counts[(tree.name, "text")] / counts[(trees[0].name, "text")] for tree in trees[1:])
    verdict = "go back to BaseModel" if best <= THRESHOLD else "keep the records (fenced)"
    print(f"  issue 29's rule: BaseModel within {THRESHOLD}× of the records? best {best:.2f}× → {verdict}")


def timings(trees: list[Tree], runs: int) -> None:
    """Median wall and CPU ms of each command on each tree, run round-robin in a seeded shuffled order."""
    jobs = {(tree.name, command): (tree, args) for tree in trees for command, args in COMMANDS.items()}
    wall: dict[tuple[str, str], list[float]] = {key: [] for key in jobs}
    cpu: dict[tuple[str, str], list[float]] = {key: [] for key in jobs}
    order = random.Random(0)
    for _ in range(runs):
        keys = list(jobs)
        order.shuffle(keys)
        for key in keys:
            tree, args = jobs[key]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(tree.argv(args), cwd=tree.path, env=tree.env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=False)
            wall[key].append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[key].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    print(f"milliseconds, median of {runs} runs, interleaved (wall, CPU in brackets):")
    print(f"  {'':38s} {'check (text)':>26s} {'check --format json':>26s}")
    for tree in trees:
        cells = []
        for command in COMMANDS:
            w, c = statistics.median(wall[(tree.name, command)]), statistics.median(cpu[(tree.name, command)])
            base = statistics.median(wall[(trees[0].name, command)])
            cells.append(f"{w * 1000:6.1f} ms ({c * 1000:4.0f}) {w / base:4.2f}×")
        print(f"  {tree.name:38s} {cells[0]:>26s} {cells[1]:>26s}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15, help="timed runs of each command on each tree (default 15)")
    parser.add_argument("--no-instructions", action="store_true", help="skip the callgrind counts (valgrind)")
    parser.add_argument("--keep", type=Path, help="build the scratch trees in this folder and keep them")
    args = parser.parse_args()
    if not args.no_instructions and shutil.which("valgrind") is None:
        sys.exit("valgrind not found (apt install valgrind), or pass --no-instructions")
    scratch = args.keep or Path(tempfile.mkdtemp(prefix="planner-records-"))
    try:
        trees = []
        for name, folder, env in (("records (planner/util/record/)", "records", {}),
                                  ("BaseModel(defer_build=True)", "basemodel", {}),
                                  ("BaseModel, lazy, no plugin discovery", "lazy",
                                   {"PYDANTIC_DISABLE_PLUGINS": "__all__"})):
            path = scratch / folder
            if path.exists():
                shutil.rmtree(path)
            _copy(path)
            if folder != "records":
                _basemodel(path)
            if folder == "lazy":
                _without_unused_models(path)
            trees.append(Tree(name, path, env))
        import pydantic
        import pydantic_core

        print(f"records against BaseModel, cold `planner check {BUILD}`: python {sys.version.split()[0]}, "
              f"pydantic {pydantic.VERSION}, pydantic-core {pydantic_core.__version__}, {time.strftime('%Y-%m-%d')}")
        for tree in trees:
            _prepare(tree)
        _same_output(trees)
        if not args.no_instructions:
            instructions(trees)
        timings(trees, args.runs)
    finally:
        if args.keep is None:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
