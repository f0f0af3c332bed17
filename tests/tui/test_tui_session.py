"""Issue 27, a build session a person can live in (Textual's Pilot): the focus shows and the keys act where it is,
every edit is undone with ctrl+z and redone with ctrl+y, an edit shows at once while its check runs in a worker,
and the screens stay readable at 80×24."""

from __future__ import annotations

import re
import shutil
import threading
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import tomlkit
from textual.widgets import DataTable

from planner.api import plan_finding
from planner.catalog import Catalog
from planner.session import BuildSession, CheckResult, PendingCheck
from tui.app import PlannerApp, make_app
from tui.screens.complete import CompleteBuild
from tui.screens.dialogs import InvalidBuild
from tui.screens.picker import CatalogPicker
from tui.screens.tuner import Tuner
from tui.screens.wizard import Wizard
from tui.widgets.findings import FindingsPanel
from tui.widgets.parts import PartsList
from tui.widgets.status import StatusLine

from conftest import ROOT
from helpers import TEST_CATALOG_DIR, screen_text, settle

CATALOG = Catalog([TEST_CATALOG_DIR, ROOT / "tests" / "data" / "tui-catalog"])
QUAD = ROOT / "examples" / "builds" / "fail-dettmers-quad-3090-us-15a.toml"  # 4× RTX 3090 at 350 W, US 15 A
PARTIAL = ROOT / "tests" / "data" / "recommend" / "two-4090s-partial.toml"


def _copy(tmp_path: Path, source: Path = QUAD) -> Path:
    path = tmp_path / "build.toml"
    shutil.copy(source, path)
    return path


async def _select(app: PlannerApp, pilot: Any, key: str) -> None:
    parts = app.query_one(PartsList)
    parts.move_cursor(row=[row.value for row in parts.rows].index(key))
    await pilot.pause()


def _footer(app: PlannerApp) -> str:
    return screen_text(app).splitlines()[-1]


def _notices(app: PlannerApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


# -- focus -----------------------------------------------------------------------------------------------
@pytest.mark.asyncio
async def test_tab_moves_a_visible_focus_and_the_footer_shows_the_focused_panels_keys(tmp_path: Path) -> None:
    app = make_app(_copy(tmp_path), CATALOG)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        parts, findings = app.query_one(PartsList), app.query_one(FindingsPanel)
        assert app.focused is parts
        assert parts.styles.border_top[0] == "heavy" and findings.styles.border_top[0] == "solid"
        assert "d Remove" in _footer(app) and "t Tune" in _footer(app)
        await pilot.press("tab")
        await settle(pilot)
        assert app.focused is findings
        assert findings.styles.border_top[0] == "heavy" and parts.styles.border_top[0] == "solid"
        footer = _footer(app)
        assert "d Remove" not in footer and "t Tune" not in footer and "x Fix" in footer and "q Quit" in footer
        await pilot.press("shift+tab")
        await settle(pilot)
        assert app.focused is parts


@pytest.mark.asyncio
async def test_plus_and_d_act_only_while_the_parts_list_has_the_focus(tmp_path: Path) -> None:
    app = make_app(_copy(tmp_path), CATALOG)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        before = app.session.text()
        await pilot.press("tab", "plus", "minus", "d", "delete", "a", "c", "t")  # the findings have the focus
        await settle(pilot)
        assert app.session.text() == before and app.screen is app.screen_stack[0]
        await pilot.press("shift+tab", "plus")
        await settle(pilot)
        assert app.session.data()["gpu"][0]["count"] == 5


@pytest.mark.asyncio
@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_s_is_in_the_footer_while_the_build_fails_or_is_incomplete(tmp_path: Path,
                                                                         size: tuple[int, int]) -> None:
    app = make_app(_copy(tmp_path), CATALOG)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert app.checked is not None and app.checked.verdict == "FAIL"
        footer = _footer(app)
        assert "s Complete" in footer and "^z Undo" in footer and "^s Save" in footer and "q Quit" in footer
        await pilot.press("x")  # the plan: the build passes with warnings
        await settle(pilot)
        assert app.checked.verdict == "WARN" and "s Complete" not in _footer(app)
        await _select(app, pilot, "case")
        await pilot.press("d")  # incomplete
        await settle(pilot)
        assert "s Complete" in _footer(app)


# -- undo and redo ---------------------------------------------------------------------------------------
@pytest.mark.asyncio
async def test_d_on_a_row_of_four_cards_says_it_can_be_undone_and_ctrl_z_restores_it(tmp_path: Path) -> None:
    app = make_app(_copy(tmp_path), CATALOG)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        before, verdict = app.session.text(), app.checked.verdict  # type: ignore[union-attr]
        await _select(app, pilot, "gpu[0]")
        await pilot.press("d")
        await settle(pilot)
        assert "gpu" not in app.session.data()
        status = str(app.query_one(StatusLine).render())
        assert "Removed all 4 × gigabyte-rtx-3090-turbo" in status and "ctrl+z puts them back" in status
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert app.session.text() == before and app.checked.verdict == verdict  # type: ignore[union-attr]
        row = next(row for row in app.parts.rows if row.path == "gpu[0]")
        assert (row.part, row.quantity) == ("gigabyte-rtx-3090-turbo", 4)
        assert str(app.query_one(PartsList).get_row("gpu[0]")[1]) == "4"


async def _count_up(app: PlannerApp, pilot: Any) -> None:
    await _select(app, pilot, "gpu[0]")
    await pilot.press("plus")


async def _count_down(app: PlannerApp, pilot: Any) -> None:
    await _select(app, pilot, "gpu[0]")
    await pilot.press("minus")


async def _delete_case(app: PlannerApp, pilot: Any) -> None:
    await _select(app, pilot, "case")
    await pilot.press("d")


async def _apply_the_plan(app: PlannerApp, pilot: Any) -> None:
    await pilot.press("x")


async def _add_from_the_picker(app: PlannerApp, pilot: Any) -> None:
    await _select(app, pilot, "gpu[0]")
    await pilot.press("a", *"4090")
    await pilot.pause()
    assert isinstance(app.screen, CatalogPicker)
    await pilot.press("enter")


async def _change_from_the_picker(app: PlannerApp, pilot: Any) -> None:
    await _select(app, pilot, "case")
    await pilot.press("c", *"enthoo")
    await pilot.pause()
    await pilot.press("enter")


async def _pick_in_the_wizard(app: PlannerApp, pilot: Any) -> None:
    await pilot.press("w", "l", "enter", "tab", "7", "0", "enter", "tab", "tab", "q", "4", "enter", "ctrl+r")
    await settle(pilot)
    assert isinstance(app.screen, Wizard) and app.screen.rows
    await pilot.press("enter", "r")  # the first row, in place of the build's GPUs


async def _tune(app: PlannerApp, pilot: Any) -> None:
    await _select(app, pilot, "gpu[0]")
    await pilot.press("t")
    await settle(pilot)
    assert isinstance(app.screen, Tuner)
    await pilot.press("left", "left", "down")
    await settle(pilot)
    await pilot.press("enter")


async def _optimise(app: PlannerApp, pilot: Any) -> None:
    await pilot.press("o")


async def _complete(app: PlannerApp, pilot: Any) -> None:
    await pilot.press("s")
    await settle(pilot)
    assert isinstance(app.screen, CompleteBuild) and app.screen.result is not None
    await pilot.press("enter")


EDITS: dict[str, tuple[Callable[[PlannerApp, Any], Awaitable[None]], Path]] = {
    "count up": (_count_up, QUAD), "count down": (_count_down, QUAD), "delete": (_delete_case, QUAD),
    "fix": (_apply_the_plan, QUAD), "picker add": (_add_from_the_picker, QUAD),
    "picker change": (_change_from_the_picker, QUAD), "wizard pick": (_pick_in_the_wizard, QUAD),
    "power-limit tuning": (_tune, QUAD), "optimiser": (_optimise, QUAD), "completion": (_complete, PARTIAL),
}


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", list(EDITS))
async def test_every_kind_of_edit_is_undone_and_redone(tmp_path: Path, kind: str) -> None:
    edit, source = EDITS[kind]
    app = make_app(_copy(tmp_path, source), CATALOG)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        before, shown_before = app.session.text(), app.checked
        await edit(app, pilot)
        await settle(pilot)
        after = app.session.text()
        assert app.screen is app.screen_stack[0] and after != before and app.session.dirty
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert app.session.text() == before and not app.session.dirty  # as the file holds it
        assert app.checked is not None and shown_before is not None
        assert app.checked.result.report == shown_before.result.report and app.current
        assert any(note.startswith("Undone (ctrl+y redoes it): ") for note in _notices(app))
        await pilot.press("ctrl+y")
        await settle(pilot)
        assert app.session.text() == after and app.session.dirty
        await pilot.press("ctrl+y")  # nothing more to redo
        await settle(pilot)
        assert app.session.text() == after and _notices(app)[-1] == "Nothing to redo."


@pytest.mark.asyncio
async def test_the_fix_of_a_files_error_is_undone_too(tmp_path: Path) -> None:
    path = tmp_path / "build.toml"
    text = '[[gpu]]\npart = "nvidia-rtx-3090-fe"\ncount = "two"\n'
    path.write_text(text)
    app = make_app(path, CATALOG)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, InvalidBuild)
        await pilot.press("r")
        await settle(pilot)
        assert "count" not in app.session.data()["gpu"][0]
        await pilot.press("escape", "ctrl+z")  # the value back (and the error with it)
        await settle(pilot)
        assert app.session.text() == text and "ERROR" in app.title
        await pilot.press("ctrl+y")
        await settle(pilot)
        assert "count" not in app.session.data()["gpu"][0] and "ERROR" not in app.title


@pytest.mark.asyncio
async def test_ctrl_z_with_nothing_to_undo_says_so(tmp_path: Path) -> None:
    app = make_app(_copy(tmp_path), CATALOG)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert _notices(app)[-1] == "Nothing to undo."


# -- nothing blocks the screen ---------------------------------------------------------------------------
class Gate:
    """Holds the app's checks (run in its worker thread) until opened."""

    def __init__(self) -> None:
        self.armed, self.open = threading.Event(), threading.Event()

    def hold(self) -> None:
        if self.armed.is_set() and threading.current_thread() is not threading.main_thread():
            assert self.open.wait(timeout=20), "the test never opened the gate"


@pytest.fixture()
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    gate = Gate()
    original = PendingCheck.run

    def run(pending: PendingCheck) -> CheckResult:
        gate.hold()
        return original(pending)

    monkeypatch.setattr(PendingCheck, "run", run)
    yield gate
    gate.open.set()


@pytest.mark.asyncio
async def test_an_edit_shows_at_once_and_the_last_result_stays_marked_checking_until_the_new_one_lands(
        tmp_path: Path, gate: Gate) -> None:
    app = make_app(_copy(tmp_path), CATALOG)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        shown = app.checked
        assert shown is not None and shown.verdict == "FAIL" and not app.checking
        gate.armed.set()
        await pilot.press("minus", "minus")  # two cards fewer: the check is held in its worker
        await pilot.pause()
        assert str(app.query_one(PartsList).get_row("gpu[0]")[1]) == "2"  # the edit, at once
        assert app.checking and app.title.startswith("FAIL · checking… — ")
        assert app.checked is shown and not app.current  # the last result, until the new one lands
        gate.open.set()
        await settle(pilot)
        assert app.current and not app.checking and app.checked.verdict != "FAIL"  # type: ignore[union-attr]
        assert len(app.checked.result.build.gpus) == 2  # type: ignore[union-attr]
        assert app.title.startswith(f"{app.checked.verdict} — ")  # type: ignore[union-attr]


@pytest.mark.asyncio
async def test_x_pressed_while_a_check_runs_applies_the_fix_of_the_new_check(tmp_path: Path, gate: Gate) -> None:
    app = make_app(_copy(tmp_path), CATALOG)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        gate.armed.set()
        await pilot.press("minus", "x")  # three cards, then the plan: of three cards, not of the four shown
        await pilot.pause()
        assert app.session.data()["gpu"][0]["count"] == 3 and "power_limit" not in app.session.data()["gpu"][0]
        gate.open.set()
        await settle(pilot)
        three = BuildSession(CATALOG, tomlkit.parse(app.session.history[-1].text))  # the build x acted on
        report = three.check().report
        assert report is not None and three.data()["gpu"][0]["count"] == 3
        plan = plan_finding(report)
        assert plan is not None and app.session.history[-1].what.startswith("plan's fix")
        for change in plan.fixes[0].changes:
            assert str(app.session.data()["gpu"][0]["power_limit"]) == str(change.value)


# -- messages and readable screens -----------------------------------------------------------------------
@pytest.mark.asyncio
async def test_messages_go_to_the_status_line_not_over_the_panels(tmp_path: Path) -> None:
    app = make_app(_copy(tmp_path), CATALOG)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        status = app.query_one(StatusLine)
        assert "Applied plan's fix (ctrl+z undoes it): gpu[0].power_limit = " in str(status.render())
        assert status.size.height == 1  # one row, never laid out again
        assert not app.screen.query("ToastRack")  # no toasts over the panels
        totals_bottom = app.query_one("#totals").region.bottom
        assert status.region.y >= totals_bottom  # below the panels, over none of them


@pytest.mark.asyncio
async def test_the_wizard_at_80x24_shows_gpus_count_memory_tok_s_and_price_in_five_rows_or_more() -> None:
    app = make_app(None, Catalog())  # the built-in catalogs: long names, many options
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("w", "l", "enter", "tab", *"llama 3 70", "enter", "tab", "tab", *"q4", "enter", "ctrl+r")
        await settle(pilot)
        wizard = app.screen
        assert isinstance(wizard, Wizard)
        assert wizard.query_one("#model").value == "llama-3-70b"  # type: ignore[attr-defined]
        table = wizard.query_one("#ranked", DataTable)
        headers = [str(column.label) for column in table.columns.values()]
        assert {"×", "GPU", "Memory/card", "tok/s", "Price"} <= set(headers)
        assert sum(c.get_render_width(table) for c in table.columns.values()) <= table.scrollable_content_region.width
        assert table.scrollable_content_region.height - 1 >= 5 and table.row_count >= 5  # the header, then rows
        text = screen_text(app)
        first = next(line for line in text.splitlines() if re.match(r"1 +\d+ +\S", line.strip("█▊▎ ")))
        assert "GiB" in first and "$" in first


@pytest.mark.asyncio
async def test_the_totals_give_each_card_the_temperature_and_power_its_thermal_finding_gives() -> None:
    """A card that throttles: the totals line and the thermal.gpu-temp finding say the same °C and W."""
    app = make_app(ROOT / "examples" / "builds" / "fail-slots-quad-3090-fe-wrx80.toml", Catalog())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        report = app.result.report  # type: ignore[union-attr]
        assert report is not None
        hot = [f for f in report.findings if f.code == "thermal.gpu-temp"]
        assert hot
        totals = screen_text(app)
        for finding in hot:
            card = re.match(r"GPU(\d+)", finding.message)
            settles = re.findall(r"about (\d+) W at (\d+) °C", finding.message)
            assert card is not None and settles, finding.message
            watts, celsius = settles[-1]
            shown = re.search(rf"│GPU{card.group(1)} +([^│\n]*)", totals)  # the totals' line, right of the diagram
            assert shown is not None and f"{celsius} °C at {watts} W" in shown.group(1), finding.message


@pytest.mark.asyncio
async def test_a_bug_in_a_check_is_shown_and_the_next_edit_is_checked_again(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    import tui.state

    app = make_app(_copy(tmp_path), CATALOG)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        check = tui.state.check

        def broken(pending: PendingCheck, edit: int) -> Any:
            raise RuntimeError("boom")

        monkeypatch.setattr(tui.state, "check", broken)
        await pilot.press("minus")
        await settle(pilot)
        assert app.title.startswith("ERROR — ") and "internal error (RuntimeError: boom)" in app.checked.notes[0]  # type: ignore[union-attr]
        monkeypatch.setattr(tui.state, "check", check)
        await pilot.press("minus")
        await settle(pilot)
        assert app.current and app.checked.result.report is not None  # type: ignore[union-attr]
