"""Time `planner solve` (README: Completing a partial build, README: Speed: ≤ 1 s on the full built-in catalog, the same
optimum as exhaustive search) on 4-GPU partial builds over the full built-in catalogs (curated + imported).

    python benchmarks/solve.py [--runs N]

For each build prints the median and worst time of the search alone (`search`: the branch and bound, with the
catalogs already read, as the TUI and `recommend --complete` call it), of the whole solve (`solve`: the search,
the completed build's full check with fixes, and the explanation: cheaper parts re-checked, runners-up), and of
a cold `planner solve` process; then the candidates judged (`searched`), the size of the full product (`space`),
their ratio, and whether the answer is proved optimal. The catalogs are read once per process (~0.15 s warm from
their cache), before the timed runs; the cold process includes that.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from planner.catalog import Catalog  # noqa: E402
from planner.checks.engine.context import Settings  # noqa: E402
from planner.solve import parse_partial, solve  # noqa: E402
from planner.solve.search import Search  # noqa: E402
from planner.solve.space import Objective  # noqa: E402

BUILDS = {
    "4× RTX 3090 FE (3-slot), GPUs only, one US 15 A circuit": """
name = "Four RTX 3090 FE"
region = "us"
[[gpu]]
part = "nvidia-rtx-3090-fe"
count = 4
""",
    "4× RTX 3090 TURBO (2-slot blower), US 15 A, max_circuits = 2": """
name = "Four RTX 3090 TURBO"
region = "us"
max_circuits = 2
[[gpu]]
part = "gigabyte-rtx-3090-turbo"
count = 4
""",
    "4× RTX 4090 FE, EU 16 A, power limits allowed": """
name = "Four RTX 4090 FE"
region = "eu"
[[gpu]]
part = "nvidia-rtx-4090-fe"
count = 4
""",
    "2× RTX 3090 FE, GPUs only, one US 15 A circuit": """
name = "Two RTX 3090 FE"
region = "us"
[[gpu]]
part = "nvidia-rtx-3090-fe"
count = 2
""",
    "4× RTX 3090 TURBO (2-slot blower), one US 20 A circuit, power limits allowed": """
name = "Four RTX 3090 TURBO, one US 20 A circuit"
region = "us"
[[circuit]]
name = "desk"
outlet = "nema-5-20"
[[gpu]]
part = "gigabyte-rtx-3090-turbo"
count = 4
""",
    "8× RTX 3090 TURBO on two 240 V 30 A circuits, power limits allowed": """
name = "Eight RTX 3090 TURBO, two 240 V 30 A circuits"
region = "us"
max_circuits = 2
[[circuit]]
name = "a"
outlet = "nema-l6-30"
[[circuit]]
name = "b"
outlet = "nema-l6-30"
[[gpu]]
part = "gigabyte-rtx-3090-turbo"
count = 8
""",
    "owned 2× RTX 3090 FE + owned RM1000x, two more cards, US 15 A": """
name = "Owned pair plus two"
region = "us"
[[psu]]
part = "corsair-rm1000x"
owned = true
[[gpu]]
part = "nvidia-rtx-3090-fe"
count = 2
owned = true
[[gpu]]
part = "nvidia-rtx-3090-fe"
count = 2
""",
    "8× RTX 3090 FE on one US 15 A circuit (infeasible)": """
name = "Eight RTX 3090 FE, one US 15 A circuit"
region = "us"
[[gpu]]
part = "nvidia-rtx-3090-fe"
count = 8
""",
    "16× RTX 3090 TURBO, up to four US circuits, power limits allowed (infeasible: slots)": """
name = "Sixteen RTX 3090 TURBO"
region = "us"
max_circuits = 4
[[gpu]]
part = "gigabyte-rtx-3090-turbo"
count = 16
""",
    "1 card with 20 PCIe 8-pin inputs (infeasible: no PSU has 20 plugs)": """
name = "One card with 20 PCIe 8-pin inputs"
region = "eu"
[[gpu]]
part = { base = "nvidia-rtx-3090-fe", power_connectors = [""" + ", ".join(['"pcie-8pin"'] * 20) + """] }
""",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    catalog = Catalog()
    for kind in ("motherboard", "case", "cpu", "psu", "riser", "outlet"):
        list(catalog.all(kind))  # read and validate every entry once, as a long-lived process has
    print(f"catalogs: {sum(len(catalog.entries(k)) for k in ('motherboard', 'case', 'cpu', 'psu', 'riser'))} "
          "boards, cases, CPUs, PSUs and risers (curated + imported)")
    for title, text in BUILDS.items():
        allow = "power limits allowed" in title
        partial = parse_partial(text, "bench.toml", catalog)
        settings = Settings(region=partial.region)  # type: ignore[arg-type]
        searches, solves = [], []
        for _ in range(args.runs):
            start = time.perf_counter()
            outcome = Search(partial, catalog, Objective("cheapest", 0.0, None), allow_power_limits=allow,
                             settings=settings).run()
            searches.append(time.perf_counter() - start)
            start = time.perf_counter()
            result = solve(partial, catalog, allow_power_limits=allow, settings=settings)
            solves.append(time.perf_counter() - start)
        cold = _cold(text, allow, max(3, args.runs // 2))
        ratio = outcome.searched / outcome.space if outcome.space else 0.0
        print(f"\n{title}")
        print(f"  answer: {result.status}, {len(result.added)} parts added, to buy "
              f"${result.price_usd:,.0f}" if result.price_usd is not None else f"  answer: {result.status}")
        print(f"  search  median {statistics.median(searches) * 1000:7.1f} ms  worst {max(searches) * 1000:7.1f} ms")
        print(f"  solve   median {statistics.median(solves) * 1000:7.1f} ms  worst {max(solves) * 1000:7.1f} ms")
        print(f"  cold `planner solve` process: median {statistics.median(cold) * 1000:7.1f} ms")
        print(f"  searched {outcome.searched:,} of a space of {outcome.space:.3e} (ratio {ratio:.1e}); "
              f"optimal: {result.optimal}")
    return 0


def _cold(text: str, allow: bool, runs: int) -> list[float]:
    path = ROOT / "benchmarks" / "builds" / ".solve-bench.toml"
    path.write_text(text)
    times = []
    try:
        for _ in range(runs):
            start = time.perf_counter()
            run = subprocess.run([sys.executable, "-m", "planner", "solve", str(path), "--format", "json",
                                  *(["--allow-power-limits"] if allow else [])], capture_output=True, check=False)
            times.append(time.perf_counter() - start)
            if run.returncode not in (0, 1):  # a cold run that failed measures nothing
                raise SystemExit(f"planner solve exited {run.returncode}: {run.stderr.decode()[-500:]}")
    finally:
        path.unlink(missing_ok=True)
    return times


if __name__ == "__main__":
    sys.exit(main())
