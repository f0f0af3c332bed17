"""TUI responsiveness on the 8-GPU benchmark build, measured through Textual's Pilot (headless).

    python benchmarks/tui.py [--runs N] [--size 120x40]

For each action: the median time from the key press until the app is idle again (Pilot's press + pause),
less the same for a key that does nothing (`z`, bound to nothing), so the figure is what the action itself
costs: the re-check and the re-rendering of the panels whose data changed.

* count edit: `+` then `−` on the GPU entry (each is one edit, re-checked and redrawn);
* focus change: Tab between the parts list and the findings;
* re-check alone: `BuildSession.check()` in-process, no rendering (what the README's 20 ms budget bounds).

Figures depend on the machine and on what else it is doing: run it on an idle machine.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
EIGHT_GPU = ROOT / "benchmarks" / "builds" / "eight-gpu-frame.toml"


async def measure(runs: int, size: tuple[int, int]) -> dict[str, float]:
    from planner.catalog import Catalog
    from tui.app import make_app
    from tui.widgets.parts import PartsList

    catalog = Catalog()
    app = make_app(EIGHT_GPU, catalog)
    times: dict[str, list[float]] = {"nothing": [], "count edit": [], "focus change": []}
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        parts = app.query_one(PartsList)
        parts.move_cursor(row=[key.value for key in parts.rows].index("gpu[0]"))
        await pilot.pause()

        async def timed(name: str, *keys: str) -> None:
            for key in keys:
                start = time.perf_counter()
                await pilot.press(key)
                await pilot.pause()
                times[name].append(time.perf_counter() - start)

        for _ in range(3):  # warm up
            await timed("nothing", "z")
            await timed("count edit", "minus", "plus")
            await timed("focus change", "tab", "shift+tab")
        for values in times.values():
            values.clear()
        for _ in range(runs):
            await timed("nothing", "z", "z")
            await timed("count edit", "minus", "plus")
            await timed("focus change", "tab", "shift+tab")
        check = []
        for _ in range(runs * 2):
            start = time.perf_counter()
            app.session.check()
            check.append(time.perf_counter() - start)
    base = statistics.median(times["nothing"])
    figures = {"key that does nothing": base * 1000}
    for name in ("count edit", "focus change"):
        figures[f"{name} (above nothing)"] = (statistics.median(times[name]) - base) * 1000
    figures["re-check alone"] = statistics.median(check) * 1000
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=30, help="presses of each key (default 30)")
    parser.add_argument("--size", default="120x40", help="terminal size, COLSxROWS (default 120x40)")
    args = parser.parse_args()
    cols, rows = (int(n) for n in args.size.lower().split("x"))
    figures = asyncio.run(measure(args.runs, (cols, rows)))
    print(f"TUI on {EIGHT_GPU.relative_to(ROOT)} at {cols}×{rows}, median of {args.runs * 2} presses each:")
    for name, ms in figures.items():
        print(f"  {name:<32} {ms:7.1f} ms")


if __name__ == "__main__":
    main()
