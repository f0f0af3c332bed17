"""The TUI driven by real key presses (Textual's Pilot)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Select

from planner.catalog import Catalog
from planner.session import BuildSession
from tui.app import PlannerApp, make_app
from tui.screens.dialogs import QuitDialog, ShowError
from tui.screens.picker import CatalogPicker
from tui.screens.wizard import Wizard
from tui.widgets.parts import PartsList

from conftest import example
from helpers import settle


async def _pick(app: PlannerApp, pilot: object, words: str) -> None:
    """In the open catalog picker, type a search and take the first match."""
    assert isinstance(app.screen, CatalogPicker)
    await pilot.press(*words)  # type: ignore[attr-defined]
    await settle(pilot)
    await pilot.press("enter")  # type: ignore[attr-defined]
    await settle(pilot)


async def _fill_wizard(wizard: Wizard, pilot: object) -> None:
    """Llama 3 70B in 4-bit for inference, $4,000 for the GPUs."""
    wizard.query_one("#workload", Select).value = "llm-inference"
    await settle(pilot)
    wizard.query_one("#model", Select).value = "llama-3-70b"
    wizard.query_one("#precision", Select).value = "int4"
    wizard.query_one("#budget", Input).value = "4000"


async def _select_row(app: PlannerApp, pilot: object, key: str) -> None:
    table = app.query_one(PartsList)
    keys = [row.value for row in table.rows]
    table.move_cursor(row=keys.index(key))
    await settle(pilot)


@pytest.mark.asyncio
async def test_build_from_nothing_with_the_wizard_fix_it_save_and_reload(tmp_path: Path, catalog: Catalog) -> None:
    app = make_app(None, catalog)
    async with app.run_test(size=(100, 34)) as pilot:
        await pilot.press("w")  # the recommendation wizard
        await settle(pilot)
        wizard = app.screen
        assert isinstance(wizard, Wizard)
        await _fill_wizard(wizard, pilot)
        await pilot.press("ctrl+r", "enter")  # rank, then add the best value to the build
        await settle(pilot)
        gpu = app.session.data()["gpu"][0]
        for kind, words in [("case", "meshify 2 xl"), ("motherboard", "wrx80e sage"),
                            ("cpu", "5975wx"), ("psu", "ax1600i")]:
            await _select_row(app, pilot, f"missing:{kind}")
            await pilot.press("a")
            await _pick(app, pilot, words)
        await _select_row(app, pilot, "gpu[0]")
        while int(app.session.data()["gpu"][0].get("count", 1)) < 4:  # four of the recommended cards
            await pilot.press("plus")
            await settle(pilot)
        gpu = app.session.data()["gpu"][0]
        assert app.result is not None and app.result.report is not None
        assert app.result.report.verdict == "fail"  # a US 15 A circuit is assumed: too much at the wall
        assert "outlet.continuous" in {f.code for f in app.result.report.findings}
        await pilot.press("o")  # the optimiser's power limits
        await settle(pilot)
        assert app.result.report.verdict != "fail"
        assert "power_limit" in app.session.data()["gpu"][0]
        await pilot.press("ctrl+s")  # no file yet: asks for a name
        await settle(pilot)
        path = tmp_path / "llm.toml"
        app.screen.query_one("Input").value = str(path)  # type: ignore[attr-defined]
        await pilot.press("enter")
        await settle(pilot)
        assert path.is_file() and not app.session.dirty
        saved = app.session.data()
    reloaded = BuildSession.open(path, catalog)
    assert reloaded.data() == saved
    assert (reloaded.data()["gpu"][0]["part"], reloaded.data()["gpu"][0]["count"]) == (gpu["part"], gpu["count"])
    assert reloaded.check().report == app.session.check().report._replace(file=str(path))  # type: ignore[union-attr]


@pytest.mark.asyncio
async def test_quitting_with_unsaved_changes_asks_first(tmp_path: Path, catalog: Catalog) -> None:
    path = tmp_path / "build.toml"
    shutil.copy(example("pass-dual-3090-wrx80.toml"), path)
    app = make_app(path, catalog)
    async with app.run_test(size=(100, 34)) as pilot:
        await pilot.press("plus")  # a third card
        await pilot.press("q")
        await settle(pilot)
        assert isinstance(app.screen, QuitDialog)
        await pilot.press("n")  # stay
        await settle(pilot)
        assert not isinstance(app.screen, QuitDialog) and app.is_running
        await pilot.press("q", "y")
        await settle(pilot)
    assert path.read_text() == example("pass-dual-3090-wrx80.toml").read_text()  # nothing saved


@pytest.mark.asyncio
async def test_a_build_that_fails_to_load_shows_the_error_and_the_app_keeps_running(
        tmp_path: Path, catalog: Catalog) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("case = = 3\n")
    app = make_app(bad, catalog)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ShowError)
        assert "bad.toml:1: not valid TOML" in app.screen.message
        await pilot.press("enter")
        await settle(pilot)
        assert app.is_running and isinstance(app.query_one(PartsList), DataTable)


@pytest.mark.asyncio
async def test_changing_a_part_replaces_it_from_the_catalog(tmp_path: Path, catalog: Catalog) -> None:
    path = tmp_path / "build.toml"
    shutil.copy(example("fail-case-eeb-board-in-mid-tower.toml"), path)
    app = make_app(path, catalog)
    async with app.run_test(size=(100, 34)) as pilot:
        await settle(pilot)  # the first check lands from its worker
        assert app.result is not None and app.result.report is not None
        assert app.result.report.verdict == "fail"
        await _select_row(app, pilot, "case")
        await pilot.press("c")
        await _pick(app, pilot, "meshify 2 xl")
        assert app.session.data()["case"] == "fractal-meshify-2-xl"
        assert "case.form-factor" not in {f.code for f in app.result.report.findings}


@pytest.mark.asyncio
async def test_the_wizard_ranks_gpus_and_adds_the_chosen_ones_to_the_build(catalog: Catalog) -> None:
    app = make_app(None, catalog)
    async with app.run_test(size=(100, 34)) as pilot:
        await pilot.press("w")
        await settle(pilot)
        wizard = app.screen
        assert isinstance(wizard, Wizard)
        await _fill_wizard(wizard, pilot)
        await pilot.press("ctrl+r")
        await settle(pilot)
        ranked = wizard.query_one("#ranked", DataTable)
        assert ranked.row_count > 0
        first = next(iter(wizard.rows.values()))
        await pilot.press("enter")  # the ranked table has focus: take the best value
        await settle(pilot)
        assert not isinstance(app.screen, Wizard)
        gpu = app.session.data()["gpu"][0]
        assert (gpu["part"], gpu["count"]) == (first.board, first.cards)
        assert app.session.data()["workload"] == "llm-inference"


@pytest.mark.asyncio
async def test_the_picker_filters_by_fields_typed_in_the_search(catalog: Catalog) -> None:
    app = make_app(None, catalog)
    async with app.run_test(size=(100, 34)) as pilot:
        await pilot.press("a")
        await pilot.press(*"memory>=48 slots<=2")
        await settle(pilot)
        picker = app.screen
        assert isinstance(picker, CatalogPicker) and picker.parts
        for part in picker.parts.values():
            assert part.slot_width <= 2  # type: ignore[attr-defined]
            assert (picker._memory(part) or 0) >= 48


@pytest.mark.asyncio
async def test_the_picker_sorts_gpus_by_performance_per_dollar(catalog: Catalog) -> None:
    app = make_app(None, catalog)
    async with app.run_test(size=(100, 34)) as pilot:
        await pilot.press("a")
        picker = app.screen
        assert isinstance(picker, CatalogPicker)
        picker.query_one("#sort", Select).value = "value"
        await settle(pilot)
        values = [picker._perf_per_dollar(p) for p in picker.parts.values()]
        priced = [v for v in values if v is not None]
        assert priced and priced == sorted(priced, reverse=True)
        assert values[: len(priced)] == priced  # unpriced boards last


@pytest.mark.asyncio
async def test_export_writes_the_power_limit_script_for_a_sh_file(tmp_path: Path, catalog: Catalog) -> None:
    app = make_app(example("pass-quad-3090-turbo-wrx80.toml"), catalog)
    async with app.run_test(size=(100, 34)) as pilot:
        app.action_export()
        await settle(pilot)
        target = tmp_path / "limits.sh"
        app.screen.query_one("Input").value = str(target)  # type: ignore[attr-defined]
        await pilot.press("enter")
        await settle(pilot)
    script = target.read_text()
    assert script.startswith("#!") and "nvidia-smi" in script and "-pl 280" in script
