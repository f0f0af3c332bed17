"""Measure the quality bars of the README's Speed section that exist so far and print them.

    python benchmarks/run.py [--runs N] [--instructions]

* cold start: `planner check` on the 4-GPU example build that fails the most checks (every fix verified)
  in a fresh process (median of N runs), next to `python -c pass` and to importing pydantic on the same
  interpreter, and their ratio; a passing 4-GPU build for comparison;
* with --instructions (needs valgrind): the instructions each of those runs executes, a figure that,
  unlike times, does not depend on what else the machine is doing (~15 s per run under valgrind);
* throughput: builds checked per second in one process (all example builds, repeatedly, fixes included);
* re-check latency: an edit of an 8-GPU build re-validated, re-resolved and re-checked in-process, as the
  TUI does on every edit (README: Speed: ≤ 20 ms);
* a "did you mean" over every kind's entries, as an unknown id gets one.

Figures depend on the machine and on what else it is doing: run it on an idle machine.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOUR_GPU = ROOT / "examples" / "builds" / "fail-psu-quad-3090-fe-1600w.toml"
EIGHT_GPU = ROOT / "benchmarks" / "builds" / "eight-gpu-frame.toml"
PASSING = ROOT / "examples" / "builds" / "pass-quad-3090-turbo-wrx80.toml"


#: As an installed planner runs: with its bytecode compiled (pip compiles on install; a developer shell
#: with PYTHONDONTWRITEBYTECODE=1 would otherwise recompile every edited module on every run).
ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def _interleaved(commands: dict[str, list[str]], runs: int) -> dict[str, tuple[float, float]]:
    """Median wall and CPU seconds of each command, run round-robin: this machine's speed drifts over
    tens of seconds, so timing the commands in turn (not one block after another) compares them fairly.
    The order changes every round (seeded), so no command always runs right after the heaviest one."""
    wall: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    order = random.Random(0)
    for _ in range(runs):
        names = list(commands)
        order.shuffle(names)
        for name in names:
            argv = commands[name]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=ENV)
            wall[name].append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[name].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return {name: (statistics.median(wall[name]), statistics.median(cpu[name])) for name in commands}


def _instructions(argv: list[str]) -> float | None:
    """Instructions one run executes, counted by valgrind's callgrind (None without valgrind)."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    done = subprocess.run([valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
                          capture_output=True, text=True, check=False, env=ENV)
    match = re.search(r"Collected : (\d+)", done.stderr)
    return int(match.group(1)) if match else None


def instructions() -> None:
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "python -c 'from pydantic import BaseModel'": [sys.executable, "-c", "from pydantic import BaseModel"],
        "planner check (text, piped)": [sys.executable, "-m", "planner", "check", str(FOUR_GPU)],
    }
    counts = {name: _instructions(argv) for name, argv in commands.items()}
    if any(count is None for count in counts.values()):
        print("instructions: valgrind not found (apt install valgrind)")
        return
    print(f"instructions executed, one run each under valgrind ({FOUR_GPU.relative_to(ROOT)}):")
    pydantic = counts["python -c 'from pydantic import BaseModel'"]
    for name, count in counts.items():
        assert count is not None and pydantic is not None
        print(f"  {name:44s} {count / 1e6:7.0f} M  ({count / pydantic:4.2f}× importing pydantic)")


def cold_start(runs: int) -> None:
    planner = [sys.executable, "-m", "planner", "check", str(FOUR_GPU)]
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "planner")], check=False, env=ENV,
                   stdout=subprocess.DEVNULL)
    for _ in range(2):  # warm the OS file cache and the catalog cache, as a user's second run would
        subprocess.run(planner, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=ENV)
    results = _interleaved({
        "python -c pass": [sys.executable, "-c", "pass"],
        "python -c 'from pydantic import BaseModel'": [sys.executable, "-c", "from pydantic import BaseModel"],
        "planner check (text, piped)": planner,
        "planner check --format json": [*planner, "--format", "json"],
        "planner check, a passing 4-GPU build": [sys.executable, "-m", "planner", "check", str(PASSING)],
    }, runs)
    baseline = results["python -c pass"][0]
    print(f"cold start, median of {runs} runs, interleaved ({FOUR_GPU.relative_to(ROOT)}):")
    pydantic = results["python -c 'from pydantic import BaseModel'"][0]
    for name, (wall, cpu) in results.items():
        print(f"  {name:44s} {wall * 1000:7.1f} ms  (CPU {cpu * 1000:5.0f} ms, {wall / baseline:4.1f}× python -c pass,"
              f" {wall / pydantic:4.2f}× importing pydantic)")
    worst = max(results["planner check (text, piped)"][0], results["planner check --format json"][0])
    print(f"  budget: 350 ms  {'OK' if worst <= 0.35 else 'OVER'}")


def throughput(seconds: float) -> None:
    from planner.api import check_file
    from planner.catalog import Catalog

    catalog = Catalog()
    files = sorted((ROOT / "examples" / "builds").glob("*.toml"))
    for path in files:  # warm-up: parse catalogs, build pydantic validators
        check_file(path, catalog)
    gc.freeze()  # as `planner check` does once its code is loaded (planner/cli/main.py)
    count = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for path in files:
            check_file(path, catalog)
            count += 1
    elapsed = time.perf_counter() - start
    rate = count / elapsed
    print(f"throughput: {count} builds in {elapsed:.2f} s = {rate:,.0f} builds/s in one process "
          f"({len(files)} example builds, fixes verified)  budget ≥ 200: {'OK' if rate >= 200 else 'UNDER'}")


def recheck_latency(edits: int) -> None:
    """What the TUI does on every edit of an 8-GPU build: change a power limit, validate, resolve, check."""
    from planner.catalog import Catalog
    from planner.session import BuildSession

    session = BuildSession.open(EIGHT_GPU, Catalog())
    session.check()  # warm-up: catalogs parsed, validators built
    times = []
    for i in range(edits):
        session.set_field("gpu[0].power_limit", f"{250 + (i % 7) * 5} W")
        start = time.perf_counter()
        session.check()
        times.append(time.perf_counter() - start)
    times.sort()
    p95 = times[int(len(times) * 0.95) - 1]
    print(f"re-check after an edit, 8-GPU build ({EIGHT_GPU.relative_to(ROOT)}), {edits} edits: "
          f"median {statistics.median(times) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms  budget ≤ 20 ms: "
          f"{'OK' if statistics.median(times) <= 0.020 else 'OVER'}")


def suggestions() -> None:
    """A "did you mean" over every kind's entries (thousands of imported parts), as an unknown id gets one."""
    from planner.catalog import Catalog
    from planner.kinds import KIND_FILES

    catalog = Catalog()
    for kind in KIND_FILES:
        catalog.entries(kind)  # reading the files is not the suggestion's cost
    started = time.perf_counter()
    catalog.suggest_any("RTX 4090", KIND_FILES)  # the first one also builds the word lists
    first = time.perf_counter() - started
    started = time.perf_counter()
    for word in ("asus-wrx80e", "nvidia-rtx-3090-fee", "meshify 2 xl"):
        catalog.suggest_any(word, KIND_FILES)
    later = (time.perf_counter() - started) / 3
    print(f"did-you-mean over every kind: first {first * 1000:.0f} ms (builds the word lists), then "
          f"{later * 1000:.1f} ms each")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15, help="cold-start runs (default 15)")
    parser.add_argument("--seconds", type=float, default=3.0, help="throughput measuring time (default 3)")
    parser.add_argument("--edits", type=int, default=200, help="edits re-checked in the latency test (default 200)")
    parser.add_argument("--instructions", action="store_true",
                        help="also count the instructions of one cold start of each (needs valgrind)")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]} on {sys.platform}, {time.strftime('%Y-%m-%d')}")
    cold_start(args.runs)
    if args.instructions:
        instructions()
    throughput(args.seconds)
    recheck_latency(args.edits)
    suggestions()


if __name__ == "__main__":
    main()
