"""SVG snapshots of the TUI's screens at 120×40 and at 80×24 (pytest-textual-snapshot).

After a deliberate change of a screen: `pytest tests/test_tui_snapshots.py --snapshot-update`, then look
at the new SVGs before committing them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tui.app import make_app

from conftest import ROOT
from helpers import TEST_CATALOG, settle

BUILD = Path("tests/data/tui-build.toml")  # relative: the path is shown in the header
SIZES = [(120, 40), (80, 24)]


@pytest.fixture(autouse=True)
def _in_the_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def _app() -> Any:
    return make_app(BUILD, TEST_CATALOG)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_build_screen(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(_app(), terminal_size=size)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_catalog_picker(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(_app(), press=["a", "3", "0", "9", "0"], terminal_size=size)


async def _tune_down_twice(pilot: Any) -> None:
    """Two steps down, then the effect: the tuner re-checks the build in a worker."""
    await pilot.pause()  # as snap_compare does before its key presses
    await pilot.press("t", "left", "left")
    await settle(pilot)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_power_limit_tuner(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(_app(), run_before=_tune_down_twice, terminal_size=size)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_recommendation_wizard(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(_app(), press=["w"], terminal_size=size)
