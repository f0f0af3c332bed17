"""SVG snapshots of the TUI's screens at 120×40 and at 80×24 (pytest-textual-snapshot): the build screen on the
failing 4× RTX 3090 example (one US 15 A circuit), the catalog picker, the power-limit tuner and the wizard
ranking GPUs for Llama 3 70B at 4 bits. Against the frozen test catalog (with tests/data/tui-catalog for the
example's board and CPU and the model), so curating the built-in catalogs does not change them.

After a deliberate change of a screen: `pytest tests/tui/test_tui_snapshots.py --snapshot-update`, then look
at the new SVGs before committing them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from planner.catalog import Catalog
from tui.app import make_app

from conftest import ROOT
from helpers import TEST_CATALOG_DIR, settle

BUILD = Path("examples/builds/fail-dettmers-quad-3090-us-15a.toml")  # relative: the path is shown in the header
CATALOG = Catalog([TEST_CATALOG_DIR, ROOT / "tests" / "data" / "tui-catalog"])
SIZES = [(120, 40), (80, 24)]


@pytest.fixture(autouse=True)
def _in_the_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def _app() -> Any:
    return make_app(BUILD, CATALOG)


async def _checked(pilot: Any) -> None:
    """The first check landed (it runs in a worker)."""
    await settle(pilot)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_build_screen(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(_app(), run_before=_checked, terminal_size=size)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_catalog_picker(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(_app(), run_before=_checked, press=["a", "3", "0", "9", "0"], terminal_size=size)


async def _tune_down_twice(pilot: Any) -> None:
    """Two steps down, then the effect: the tuner re-checks the build in a worker."""
    await settle(pilot)
    await pilot.press("t", "left", "left")
    await settle(pilot)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_power_limit_tuner(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(_app(), run_before=_tune_down_twice, terminal_size=size)


async def _rank_llama_70b_at_4_bits(pilot: Any) -> None:
    """The wizard, filled in by typing into its lists (l: llm-inference, 70: Llama 3 70B, q4: q4_k_m), ranked."""
    await settle(pilot)
    await pilot.press("w", "l", "enter", "tab", "7", "0", "enter", "tab", "tab", "q", "4", "enter", "ctrl+r")
    await settle(pilot)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_recommendation_wizard(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(_app(), run_before=_rank_llama_70b_at_4_bits, terminal_size=size)
