"""TUI responsiveness on the 8-GPU benchmark build, measured through Textual's Pilot (headless).

    python benchmarks/tui.py [--runs N] [--size 120x40]

For each key: the median time from the key event sent to the app until the first frame of the screen that shows
what the key did (the app's `_display` of a compositor update, timed as Textual produces it, headless), with the
app at rest before each press:

* `+` and `−` on the GPU entry: the frame with the new count (the check follows in its worker);
* `d` on the GPU entry (then ctrl+z, timed too): the frame without the row (with it again);
* `x`: the frame with the highlighted finding's fix applied (its message in the status line);
* "check lands": from the same count key until the frame that shows that edit's check (findings, totals);
* `w`: the frame with the recommendation wizard open;
* re-check alone: `BuildSession.check()` in-process, no rendering (what the README's 20 ms budget bounds).

Figures depend on the machine and on what else it is doing: run it on an idle machine.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
EIGHT_GPU = ROOT / "benchmarks" / "builds" / "eight-gpu-frame.toml"


class Frames:
    """Times the first frame the app puts on screen once `shown()` holds."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.shown: Callable[[], bool] | None = None
        self.at: float | None = None
        display = app._display

        def timed(screen: Any, renderable: Any) -> None:
            display(screen, renderable)
            if renderable is not None and self.at is None and self.shown is not None and self.shown():
                self.at = time.perf_counter()

        app._display = timed

    async def press(self, key: str, shown: Callable[[], bool], timeout: float = 10.0) -> float:
        """Send `key` and wait for the frame that shows it: the seconds between."""
        from textual import events
        from textual.keys import _character_to_key

        self.shown, self.at = shown, None
        name = _character_to_key(key) if len(key) == 1 and not key.isalnum() else key
        event = events.Key(name, key if len(key) == 1 else None)
        event.set_sender(self.app)
        start = time.perf_counter()
        self.app._driver.send_message(event)
        while self.at is None:
            if time.perf_counter() - start > timeout:
                raise TimeoutError(f"no frame showed {key!r} within {timeout:g} s")
            await asyncio.sleep(0.0005)
        return self.at - start


async def rest(app: Any, pilot: Any) -> None:
    """Every check landed and shown, nothing queued: the app at rest before the next key."""
    from textual.worker import WorkerCancelled

    for _ in range(100):
        try:
            await app.workers.wait_for_complete()
        except WorkerCancelled:
            continue
        await pilot.pause()
        if all(worker.is_finished for worker in app.workers) and app.current:
            return
    raise RuntimeError("the app never came to rest")


async def measure(runs: int, size: tuple[int, int]) -> dict[str, list[float]]:
    from planner.catalog import Catalog
    from tui.app import make_app
    from tui.screens.wizard import Wizard
    from tui.widgets.parts import PartsList

    catalog = Catalog()
    app = make_app(EIGHT_GPU, catalog)
    times: dict[str, list[float]] = {name: [] for name in (
        "+ (count up)", "− (count down)", "d (remove the 8-card row)", "ctrl+z (the row back)",
        "x (apply a fix)", "check lands after + or −", "w (wizard open)")}
    async with app.run_test(size=size) as pilot:
        frames = Frames(app)
        await rest(app, pilot)
        parts = app.query_one(PartsList)
        parts.move_cursor(row=[key.value for key in parts.rows].index("gpu[0]"))
        await rest(app, pilot)

        def count_is(n: int) -> Callable[[], bool]:
            return lambda: "gpu[0]" in parts.rows and str(parts.get_row("gpu[0]")[1]) == str(n)

        def landed(edits: int) -> Callable[[], bool]:
            return lambda: app.checked is not None and app.checked.edit == edits

        def fixed(edits: int) -> Callable[[], bool]:
            return lambda: len(app.session.history) > edits and app.query_one("#status").display

        async def timed(name: str | None, key: str, shown: Callable[[], bool]) -> None:
            seconds = await frames.press(key, shown)
            if name is not None:
                times[name].append(seconds)

        for run in range(runs + 2):  # the first two warm up
            keep = run >= 2
            count = int(app.session.data()["gpu"][0]["count"])
            for key, name, delta in (("minus", "− (count down)", -1), ("plus", "+ (count up)", 1)):
                edits = app.edits + 1
                await timed(name if keep else None, key, count_is(count + delta))
                count += delta
                seconds = time.perf_counter()
                while not landed(edits)():  # the check of this edit, shown
                    await asyncio.sleep(0.0005)
                if keep:  # from the key, measured above, to the landing frame
                    times["check lands after + or −"].append(times[name][-1] + time.perf_counter() - seconds)
                await rest(app, pilot)
            await timed("d (remove the 8-card row)" if keep else None, "d", lambda: "gpu[0]" not in parts.rows)
            await rest(app, pilot)
            await timed("ctrl+z (the row back)" if keep else None, "ctrl+z", count_is(count))
            await rest(app, pilot)
            parts.move_cursor(row=[key.value for key in parts.rows].index("gpu[0]"))
            await timed("x (apply a fix)" if keep else None, "x", fixed(len(app.session.history)))
            await rest(app, pilot)
            app.session.undo()  # the fix taken back, untimed
            app.recheck()
            await rest(app, pilot)
            await timed("w (wizard open)" if keep else None, "w",
                        lambda: isinstance(app.screen, Wizard) and app.screen.query_one("#ranked").is_mounted)
            await rest(app, pilot)
            await pilot.press("escape")
            await rest(app, pilot)
        check = []
        for _ in range(runs * 2):
            start = time.perf_counter()
            app.session.check()
            check.append(time.perf_counter() - start)
        times["re-check alone (no rendering)"] = check
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20, help="presses of each key (default 20)")
    parser.add_argument("--size", default="120x40", help="terminal size, COLSxROWS (default 120x40)")
    args = parser.parse_args()
    cols, rows = (int(n) for n in args.size.lower().split("x"))
    times = asyncio.run(measure(args.runs, (cols, rows)))
    print(f"TUI on {EIGHT_GPU.relative_to(ROOT)} at {cols}×{rows}: key press → the frame that shows it, "
          f"{args.runs} presses each")
    print(f"  {'':<34} {'median':>8} {'p90':>8}")
    for name, values in times.items():
        ordered = sorted(values)
        p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
        print(f"  {name:<34} {statistics.median(values) * 1000:6.1f} ms {p90 * 1000:6.1f} ms")


if __name__ == "__main__":
    main()
