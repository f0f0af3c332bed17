"""Time the placement solver of README: Placement on 8-GPU builds on a 7-slot board with risers, and on a contrived
20-slot board whose lane-sharing rules form a ring.

    python benchmarks/placement.py [--runs N]

Prints, for each case, the median and worst time of
* `solve`: the exact solver alone, on the build's placement problem;
* `place`: the whole placement of a resolved build (layout, solver, mounts, the reason when a GPU is left
  out) — what every check run pays;
* `re-check` (real builds only): the whole in-process `run_checks` of the build, fixes included,
  against the README's 20 ms budget (Speed) for re-checking a changed 8-GPU build.
Every figure is without the solver's caches (they are emptied before each run): what an edit that changes
the placement problem costs. An edit that leaves it alone (a power limit, a PSU) finds it solved already.

Cases: eight RTX 3090 FE on the 7-slot ROMED8-2T in an open frame, four in slots and four on risers (one
card is left out: 8 GPUs need 8 slots or riser plugs); eight blower 3090s all on risers (the benchmark
build of benchmarks/run.py); and a synthetic worst case of eight cards that are all different (every
card a kind of its own, so no two are interchangeable), on seven slots with lane-sharing rules; and
benchmarks/builds/ring-20-slots.toml: four cards on a 20-slot board where each slot narrows when the next
one is used (the last when the first is) — 15 s and 800 MB before the solver carried the open sharing
choices in its state, instead of trying every used/empty choice of the 20 trigger slots.
Each case also prints the states the search visits (its limit: `STATE_BUDGET`).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from planner.build.buildfile import loads  # noqa: E402
from planner.build.resolve import ResolvedBuild, resolve  # noqa: E402
from planner.catalog import Catalog  # noqa: E402
from planner.checks.engine.runner import run_checks  # noqa: E402
from planner.models.parts import ShareRule  # noqa: E402
from planner.placement.from_build import place_build, problem_of  # noqa: E402
from planner.placement.layout import CardNeed, Layout, SlotSite  # noqa: E402
from planner.placement.solver import STATE_BUDGET, Problem, solve, solve_cache_clear  # noqa: E402

FOUR_AND_FOUR = """
name = "Eight RTX 3090 FE, four in slots and four on risers, open frame"
case = "generic-8-gpu-aluminium-mining-frame"
motherboard = "asrock-rack-romed8-2t"
cpu = "amd-epyc-7543p"
[[circuit]]
name = "left"
outlet = "nema-6-20"
[[circuit]]
name = "right"
outlet = "nema-6-20"
[[psu]]
part = "super-flower-leadex-platinum-2000w"
circuit = "left"
[[psu]]
part = "super-flower-leadex-platinum-2000w"
circuit = "right"
[[gpu]]
part = "nvidia-rtx-3090-fe"
count = 4
power_limit = "250 W"
[[gpu]]
part = "nvidia-rtx-3090-fe"
count = 4
power_limit = "250 W"
riser = "linkup-pcie4-riser-300mm"
"""
BUDGET_MS = 20.0  # README: Speed: re-checking a changed 8-GPU build in-process


def _build(text: str, label: str, catalog: Catalog) -> ResolvedBuild:
    spec, raw = loads(text, label)
    return resolve(spec, raw, catalog, label=label, text=text)


def _distinct_cards() -> Problem:
    """Eight cards that are all different, on seven slots (x16/x8 alternating, two sharing rules)."""
    slots = tuple(SlotSite(f"SLOT{p}", p, 16, 16 if p % 2 else 8, 4, "cpu",
                           (ShareRule(when_used=f"SLOT{p + 1}", lanes=8),) if p in (1, 5) else ())
                  for p in range(1, 8))
    needs = tuple(CardNeed(gpu=g, width=0 if g >= 6 else 1 + g % 3, lanes=(16, 8, 4, 16, 8, 4, 16, 8)[g], gen=4,
                           open_air=g % 2 == 0, on_mount=g >= 6, riser="riser" if g >= 6 else None,
                           riser_lanes=(16 if g == 6 else 8) if g >= 6 else None, slot=None) for g in range(8))
    return Problem(Layout(slots, 9, 9, 2, 4, False), needs)


def exact(problem: Problem) -> object:
    """The solver itself, without the cache that spares a re-check the same work twice."""
    solve_cache_clear()
    return solve(problem)


def _cold(fn: Callable[..., object], *args: object) -> object:
    """`fn` with the placement cache emptied first: every solve is done again."""
    solve_cache_clear()
    return fn(*args)


def _times(fn: Callable[[], object], runs: int) -> tuple[float, float]:
    fn()  # warm: first calls fill the catalog's and the solver's caches
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), max(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=50, help="timed runs per measurement (default 50)")
    args = parser.parse_args()
    catalog = Catalog()
    print(f"python {sys.version.split()[0]}, {time.strftime('%Y-%m-%d')}, median / worst of {args.runs} runs")
    builds = [("8 × 3090 FE: 4 in slots, 4 on risers", _build(FOUR_AND_FOUR, "four-and-four.toml", catalog)),
              ("8 × 3090 blower, all on risers", _build((ROOT / "benchmarks" / "builds" / "eight-gpu-frame.toml")
                                                        .read_text(), "eight-gpu-frame.toml", catalog)),
              ("4 cards, ring of 20 sharing slots", _build((ROOT / "benchmarks" / "builds" / "ring-20-slots.toml")
                                                           .read_text(), "ring-20-slots.toml", catalog))]
    for label, build in builds:
        problem = problem_of(build)
        solution = solve(problem)
        solve_ms = _times(lambda problem=problem: exact(problem), args.runs)  # type: ignore[misc]
        place_ms = _times(lambda build=build: _cold(place_build, build), args.runs)  # type: ignore[misc]
        check_ms = _times(lambda build=build: _cold(run_checks, build, catalog),  # type: ignore[misc]
                          max(5, args.runs // 5))
        print(f"{label} ({len(problem.layout.slots)}-slot board, {len(problem.needs)} GPUs, "
              f"{solution.placed} placed):")
        print(f"  solve     {solve_ms[0]:6.2f} ms  (worst {solve_ms[1]:.2f})  {solution.states:,} states "
              f"of {STATE_BUDGET:,}")
        print(f"  place     {place_ms[0]:6.2f} ms  (worst {place_ms[1]:.2f})")
        print(f"  re-check  {check_ms[0]:6.2f} ms  (worst {check_ms[1]:.2f})  budget ≤ {BUDGET_MS:g} ms: "
              f"{'OK' if check_ms[0] <= BUDGET_MS else 'OVER'}")
    problem = _distinct_cards()
    worst = _times(lambda: exact(problem), max(5, args.runs // 5))
    solution = solve(problem)
    print(f"8 cards all different (synthetic worst case, 7 slots, sharing rules, {solution.placed} placed):")
    print(f"  solve     {worst[0]:6.2f} ms  (worst {worst[1]:.2f})  {solution.states:,} states of {STATE_BUDGET:,}")


if __name__ == "__main__":
    main()
