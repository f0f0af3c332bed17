"""Build checks on small builds written inline, against the frozen test catalog."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from planner.api import check_build
from planner.build.buildfile import loads
from planner.build.resolve import ResolvedBuild, resolve
from planner.catalog import Catalog
from planner.checks.engine.context import Settings
from planner.checks.engine.findings import Finding
from planner.report import Report

#: The tests' folder (its data/, golden/ and shared modules) and the repository, for tests in any subfolder.
TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
TEST_CATALOG_DIR = TESTS / "data" / "catalog"
TEST_CATALOG = Catalog([TEST_CATALOG_DIR])

BASE = """
case = "fractal-meshify-2-xl"
motherboard = "asus-pro-ws-wrx80e-sage-se"
cpu = "amd-threadripper-pro-5975wx"
[[circuit]]
name = "wall"
outlet = "nema-5-20"
[[psu]]
part = "corsair-ax1600i"
"""


def build(text: str, catalog: Catalog = TEST_CATALOG) -> ResolvedBuild:
    spec, raw = loads(text, "test.toml")
    return resolve(spec, raw, catalog, label="test.toml", text=text)


def report(text: str, settings: Settings | None = None) -> Report:
    return check_build(build(text), TEST_CATALOG, settings)


def findings(text: str, code: str) -> list[Finding]:
    return [f for f in report(text).findings if f.code == code]


def gpus(part: str, count: int = 1, extra: str = "") -> str:
    return f'[[gpu]]\npart = "{part}"\ncount = {count}\n{extra}\n'


async def settle(pilot: Any) -> None:
    """Wait until the app's workers have ended and what they posted has been handled, including workers
    started by those messages (a tuner's stale check starts the next one, cancelling the ended one)."""
    from textual.worker import WorkerCancelled

    for _ in range(100):
        try:
            await pilot.app.workers.wait_for_complete()
        except WorkerCancelled:
            continue
        await pilot.pause()
        if all(worker.is_finished for worker in pilot.app.workers):
            return
    raise AssertionError("the app's workers never settled")


def screen_text(app: Any) -> str:
    """The screen as a user reads it: the text rows of the app's SVG screenshot."""
    rows: dict[float, list[tuple[float, str]]] = {}
    for match in re.finditer(r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>',
                             app.export_screenshot()):
        x, y, text = float(match.group(1)), float(match.group(2)), html.unescape(match.group(3))
        rows.setdefault(y, []).append((x, text))
    return "\n".join("".join(text for _, text in sorted(row)).replace("\xa0", " ") for _, row in sorted(rows.items()))
