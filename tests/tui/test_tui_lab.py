"""`planner tui LAB.toml` (issue 30): the lab read-only — its machines with their verdicts — and a machine opened
into the build session."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable

from planner.catalog import Catalog
from planner.session import is_lab_file
from tui.app import make_app
from tui.screens.dialogs import ShowError
from tui.screens.lab import LabScreen, open_lab_screen

from conftest import ROOT, example
from helpers import TEST_CATALOG_DIR

LABS = ROOT / "examples" / "labs"
GOLDEN_LAB = ROOT / "tests" / "data" / "labs" / "golden.toml"  # inline builds, on the frozen catalogs


def rows(screen: LabScreen) -> list[list[str]]:
    table = screen.query_one(DataTable)
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


def test_a_lab_file_is_told_from_a_build_file() -> None:
    assert all(is_lab_file(path) for path in LABS.glob("*.toml"))
    assert not is_lab_file(example("pass-dual-3090-wrx80.toml"))
    assert not is_lab_file(ROOT / "README.md")


@pytest.mark.asyncio
async def test_the_lab_view_lists_each_machine_with_its_verdict(catalog: Catalog) -> None:
    app = make_app(None, catalog)
    async with app.run_test(size=(100, 30)) as pilot:
        open_lab_screen(app, LABS / "guide-mixed-208v-3ph.toml")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, LabScreen)
        assert [(r[0], r[1], r[2]) for r in rows(screen)] == [("ws", "6", "WARN"), ("node", "2", "WARN")]
        assert "WARN" in str(screen.title) and screen.view.summary.startswith("to buy")


@pytest.mark.asyncio
async def test_enter_opens_a_machines_build_file_in_the_build_session(catalog: Catalog) -> None:
    app = make_app(None, catalog)
    async with app.run_test(size=(100, 30)) as pilot:
        open_lab_screen(app, LABS / "closet-eight-quad-3090.toml")
        await pilot.pause()
        await pilot.press("enter", "enter")  # a second enter must not pop the build screen
        await pilot.pause()
        assert not isinstance(app.screen, LabScreen)
        assert app.session.path == example("real-lambda-quad-3090-1x1600-15a.toml").resolve()
        assert app.result is not None and app.result.report is not None


@pytest.mark.asyncio
async def test_an_inline_machine_opens_as_a_new_unsaved_build() -> None:
    catalog = Catalog([TEST_CATALOG_DIR, ROOT / "tests" / "data" / "lab-catalog"])
    app = make_app(None, catalog)
    async with app.run_test(size=(100, 30)) as pilot:
        open_lab_screen(app, GOLDEN_LAB)
        await pilot.pause()
        await pilot.press("down", "enter")  # the second machine, "desk": one RTX 3090 FE
        await pilot.pause()
        assert app.session.path is None and app.session.dirty
        assert [g["part"] for g in app.session.data()["gpu"]] == ["nvidia-rtx-3090-fe"]
        assert app.result is not None and app.result.report is not None


@pytest.mark.asyncio
async def test_a_bad_lab_file_is_one_message(tmp_path: Path, catalog: Catalog) -> None:
    bad = tmp_path / "lab.toml"
    bad.write_text('[[machine]]\nname = "m"\nbuild = "missing.toml"\n[[circuit]]\nname = "c"\noutlet = "nema-5-20"\n',
                   encoding="utf-8")
    app = make_app(None, catalog)
    async with app.run_test(size=(100, 30)) as pilot:
        open_lab_screen(app, bad)
        await pilot.pause()
        assert isinstance(app.screen, ShowError)
        assert "lab.toml:3" in str(app.screen.message) and "not found" in str(app.screen.message)
