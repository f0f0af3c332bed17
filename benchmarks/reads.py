"""Time and peak memory of `planner` refusing a file it must not read whole (issue 26: `/dev/zero`, a FIFO and
a 100 MB file as a build, a price file, the settings file and an input of `planner diff`; each must be one
sentence in under a second, in under 200 MB).

    python benchmarks/reads.py [--runs N]

Each case runs as its own `planner` process (a cold start, the catalogs' cache warm); prints the median wall
time, the largest peak resident memory of the process (the child's own `ru_maxrss` as `os.wait4` reports it;
`resource.getrusage(RUSAGE_CHILDREN)` would give the largest of all children so far), the exit code and the
sentence it printed. A bare `python -m planner --version` is measured too, as the floor every process pays.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "examples" / "builds" / "pass-dual-3090-wrx80.toml"
NO_CIRCUIT = ROOT / "examples" / "builds" / "inline-watercooled-3090s.toml"  # reads the settings file


def _run(argv: list[str], env: dict[str, str]) -> tuple[float, int, int, str]:
    """Wall seconds, peak RSS in kB, exit code and the last line of stderr of one `planner` process."""
    start = time.perf_counter()
    # wait4 gives this child's own rusage (RUSAGE_CHILDREN would be the largest child so far)
    process = subprocess.Popen([sys.executable, "-m", "planner", *argv], cwd=ROOT, env=env,
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert process.stderr is not None
    err = process.stderr.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - start
    lines = err.strip().splitlines()
    return seconds, usage.ru_maxrss, process.returncode, lines[-1] if lines else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="processes per case (default 3)")
    runs = parser.parse_args().runs
    base_env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryDirectory() as tmp:
        fifo = Path(tmp) / "fifo.toml"
        os.mkfifo(fifo)
        sparse = Path(tmp) / "huge.toml"
        with sparse.open("wb") as handle:
            handle.truncate(100_000_000)
        no_config = str(Path(tmp) / "no-config.toml")
        cases: list[tuple[str, list[str], dict[str, str]]] = [
            ("floor: planner --version", ["--version"], {}),
            ("a passing build (for comparison)", ["check", str(BUILD)], {})]
        for name, path in (("/dev/zero", "/dev/zero"), ("a FIFO", str(fifo)), ("a 100 MB sparse file", str(sparse))):
            cases += [(f"build: {name}", ["check", path], {}),
                      (f"--prices: {name}", ["check", str(BUILD), "--prices", path], {}),
                      (f"PLANNER_CONFIG: {name}", ["check", str(NO_CIRCUIT)], {"PLANNER_CONFIG": path}),
                      (f"diff input: {name}", ["diff", str(BUILD), path], {})]
        print(f"{'case':<38} {'median':>8} {'peak RSS':>9}  exit  sentence")
        for label, argv, extra in cases:
            env = {**base_env, "PLANNER_CONFIG": no_config, **extra}
            times, peaks, codes, sentence = [], [], set(), ""
            for _ in range(runs):
                seconds, peak, code, sentence = _run(argv, env)
                times.append(seconds)
                peaks.append(peak)
                codes.add(code)
            print(f"{label:<38} {statistics.median(times) * 1000:>6.0f} ms {max(peaks) / 1024:>6.0f} MB  "
                  f"{','.join(map(str, sorted(codes))):>4}  {sentence.replace(tmp, '$TMP')[:110]}")


if __name__ == "__main__":
    main()
