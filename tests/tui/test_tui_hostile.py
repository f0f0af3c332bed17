"""Issue 26, the TUI's crash classes, one regression test each: a build file whose values have the wrong
shape (opened, then edited with a key), absurd numbers typed into the recommendation wizard, the command
palette's search going on after its list is gone, and a dialog answered twice before it closes (found by the
fuzz harness). The random storms over all of these are tests/tui/test_tui_fuzz.py."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from textual.command import CommandList, CommandPalette
from textual.widgets import Button, DataTable, Input, Static

from planner.catalog import Catalog
from tui.app import BuildScreen, PlannerApp, make_app
from tui.screens.dialogs import InvalidBuild, QuitDialog, ShowError
from tui.screens.picker import CatalogPicker
from tui.screens.wizard import Wizard
from tui.widgets.findings import FindingsPanel

from conftest import ROOT, run_cli
from helpers import TEST_CATALOG, settle
from tui_fuzzing import storm

GPU = 'name = "hostile"\n[[gpu]]\npart = "nvidia-rtx-3090-fe"\n'
#: Build files that parse as TOML but whose values have the wrong shape; each names the key it gets wrong.
WRONG_SHAPES = {
    "gpu = 1": ("gpu = 1\n", "gpu"),
    "gpu = [1]": ("gpu = [1]\n", "gpu[0]"),
    'gpu = "x"': ('gpu = "x"\n', "gpu"),
    'count = "two"': (GPU + 'count = "two"\n', "gpu[0].count"),
}


def notices(app: PlannerApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "hostile.toml"
    path.write_text(text)
    return path


# -- a build file with a value of the wrong shape --------------------------------------------------------
@pytest.mark.asyncio
@pytest.mark.parametrize("key", ["t", "w", "plus", "minus", "a", "s", "d", "x", "o"])
@pytest.mark.parametrize("shape", list(WRONG_SHAPES))
async def test_a_key_on_a_build_with_a_wrong_shape_is_refused_with_a_notice(tmp_path: Path, shape: str,
                                                                            key: str) -> None:
    text, _ = WRONG_SHAPES[shape]
    path = _write(tmp_path, text)
    app = make_app(path, TEST_CATALOG)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, InvalidBuild)  # the file's error, with the offer to fix or close it
        await pilot.press("escape")  # look at it as it is
        await settle(pilot)
        assert not isinstance(app.screen, InvalidBuild) and "ERROR" in app.title
        await pilot.press(key)
        await settle(pilot)
        assert app.is_running
        if key != "x":  # x offers the fix again
            assert any("has an error" in note for note in notices(app)), notices(app)
    assert path.read_text() == text  # nothing written


@pytest.mark.asyncio
@pytest.mark.parametrize("shape", list(WRONG_SHAPES))
async def test_the_fix_removes_the_value_the_error_names_and_undo_puts_it_back(tmp_path: Path,
                                                                               shape: str) -> None:
    text, key = WRONG_SHAPES[shape]
    app = make_app(_write(tmp_path, text), TEST_CATALOG)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, InvalidBuild) and dialog.key == key
        await pilot.press("r")
        await settle(pilot)
        assert not isinstance(app.screen, InvalidBuild) and "ERROR" not in app.title
        assert any(f"Removed {key}" in note for note in notices(app))
        await pilot.press("w")  # the key that failed on the file as it was
        await settle(pilot)
        assert isinstance(app.screen, Wizard)
        await pilot.press("escape", "ctrl+z")  # the file's value back
        await settle(pilot)
        assert app.session.text() == text and "ERROR" in app.title


@pytest.mark.asyncio
async def test_closing_a_build_with_an_error_leaves_a_new_build_and_the_file_as_it_was(tmp_path: Path) -> None:
    text, _ = WRONG_SHAPES["gpu = 1"]
    path = _write(tmp_path, text)
    app = make_app(path, TEST_CATALOG)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        assert app.session.path is None and "New build" in app.title and "ERROR" not in app.title
        await pilot.press("t")
        await settle(pilot)
        assert any("Add a GPU first" in note for note in notices(app))
    assert path.read_text() == text


@pytest.mark.asyncio
async def test_opening_a_file_with_an_error_offers_to_fix_it_and_closing_keeps_the_build_before(
        tmp_path: Path) -> None:
    path = _write(tmp_path, WRONG_SHAPES['count = "two"'][0])
    app = make_app(None, TEST_CATALOG)
    async with app.run_test(size=(100, 30)) as pilot:
        before = app.session
        app.open_file(path)
        await settle(pilot)
        assert isinstance(app.screen, InvalidBuild) and app.session.path == path
        await pilot.press("c")
        await settle(pilot)
        assert app.session is before


@pytest.mark.asyncio
@pytest.mark.parametrize("text", ["", "\n\n# nothing but a comment\n", "[[gpu]]\npart = \"no-such-part\"\n",
                                  "[[psu]]\npart = \"corsair-ax1600i\"\n"])
async def test_keys_on_an_empty_or_partial_build_never_fail(tmp_path: Path, text: str) -> None:
    app = make_app(_write(tmp_path, text), TEST_CATALOG)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        for key in ["t", "plus", "minus", "o", "x", "s", "escape", "ctrl+z", "d", "t", "w", "escape"]:
            await pilot.press(key)
            await settle(pilot)
        assert app.is_running


# -- the wizard's inputs ---------------------------------------------------------------------------------
async def _rank_with(app: PlannerApp, pilot: object, **values: str) -> str:
    if not isinstance(app.screen, Wizard):
        await pilot.press("w")  # type: ignore[attr-defined]
        await settle(pilot)
    wizard = app.screen
    assert isinstance(wizard, Wizard)
    for name, value in values.items():
        wizard.query_one(f"#{name}", Input).value = value
    await pilot.press("ctrl+r")  # type: ignore[attr-defined]
    await settle(pilot)
    return str(wizard.query_one("#need", Static).render())


@pytest.mark.asyncio
@pytest.mark.parametrize(("values", "said"), [
    ({"count": "9" * 400}, "GPU count: must be between 1 and 16"),
    ({"count": "0"}, "GPU count: must be between 1 and 16"),
    ({"count": "17"}, "GPU count: must be between 1 and 16"),
    ({"count": "-1"}, "GPU count: must be between 1 and 16"),
    ({"count": "9" * 5000}, "GPU count: expected a whole number"),
    ({"memory": "1e999"}, "Memory need: expected a size between 0 and 100,000 GiB"),
    ({"memory": "100001"}, "Memory need: expected a size between 0 and 100,000 GiB"),
    ({"memory": "9" * 400}, "Memory need: expected a size between 0 and 100,000 GiB"),
    ({"memory": "nan"}, "Memory need: expected"),
    ({"memory": "-1"}, "Memory need: expected"),
    ({"budget": "1e999"}, "Budget: expected a price"),
    ({"budget": "-1"}, "Budget: cannot be negative"),
    ({"budget": "nan"}, "Budget: expected a price"),
])
async def test_the_wizard_refuses_numbers_the_cli_refuses(catalog: Catalog, values: dict[str, str],
                                                         said: str) -> None:
    app = make_app(None, catalog)
    async with app.run_test(size=(100, 34)) as pilot:
        need = await _rank_with(app, pilot, **values)
        assert said in need and "inf" not in need.split(":", 1)[1], need
        assert isinstance(app.screen, Wizard) and not app.screen.rows  # nothing ranked


@pytest.mark.asyncio
async def test_the_wizard_takes_numbers_at_the_cli_limits(catalog: Catalog) -> None:
    app = make_app(None, catalog)
    async with app.run_test(size=(100, 34)) as pilot:
        need = await _rank_with(app, pilot, memory="100000", count="16", budget="0")
        assert need.startswith("Memory need: 100000.0 GiB") or "100000" in need, need
        need = await _rank_with(app, pilot, memory="48", count="2", budget="")
        assert "Memory need" in need and isinstance(app.screen, Wizard) and app.screen.rows


@pytest.mark.parametrize(("option", "value"), [("--gpus", "0"), ("--gpus", "17"), ("--memory", "1e999"),
                                               ("--memory", "100001"), ("--budget", "1e999"), ("--budget", "-1")])
def test_the_cli_refuses_the_numbers_the_wizard_refuses(option: str, value: str) -> None:
    """One definition (planner/recommend/inputs.py) for both faces: the same values refused, in one sentence."""
    run = run_cli("recommend", "--workload", "llm-inference", f"{option}={value}")
    assert run.code == 2 and "Traceback" not in run.err and option in run.err


# -- under a key storm -----------------------------------------------------------------------------------
BUILD = ROOT / "tests" / "data" / "tui-build.toml"


@pytest.mark.asyncio
async def test_the_palettes_search_stops_quietly_when_its_list_is_gone() -> None:
    """ctrl+p, typing and a resize to 12×4 under a key storm once ended the app: a search (a worker per key
    typed) went on after the palette's list was gone and failed on it: `WorkerFailed: NoMatches('CommandList')`.
    Here the list is taken away, then a search starts, as happened in the storm."""
    app = make_app(BUILD, TEST_CATALOG)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+p")
        palette = app.screen
        assert isinstance(palette, CommandPalette)
        await palette.query_one(CommandList).remove()
        palette._gather_commands("add")
        await pilot.pause(0.3)
        assert app.is_running
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, BuildScreen)


@pytest.mark.asyncio
async def test_the_palette_under_a_storm_of_typing_resizing_and_closing() -> None:
    app = make_app(BUILD, TEST_CATALOG)
    async with app.run_test(size=(80, 24)) as pilot:
        for keys in (["ctrl+p", "a", "d", "escape"], ["ctrl+p", "s", "a", "v", "enter"], ["ctrl+p", "o", "p"]):
            await storm(app, pilot, keys)
            await pilot.resize_terminal(12, 4)
            await storm(app, pilot, ["x", "escape", "escape"])
            await pilot.resize_terminal(80, 24)
        assert app.is_running


@pytest.mark.asyncio
async def test_a_dialog_answered_twice_before_it_closes_takes_the_first_answer() -> None:
    """Two button presses queued on the quit dialog (enter on a button, then a key): the second dismissed the
    screen under it too, and the app ended on a ScreenStackError (InvalidStateError on other dialogs)."""
    app = make_app(BUILD, TEST_CATALOG)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("plus", "q")
        dialog = app.screen
        assert isinstance(dialog, QuitDialog)
        for answer in ("stay", "quit"):
            dialog.post_message(Button.Pressed(dialog.query_one(f"#{answer}", Button)))
        await settle(pilot)
        assert app.is_running and isinstance(app.screen, BuildScreen)  # stayed: the first answer


@pytest.mark.asyncio
@pytest.mark.parametrize("size", [(10, 4), (12, 4), (80, 5)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("where", ["findings", "palette"])
async def test_page_keys_on_a_list_with_no_room_on_screen(where: str, size: tuple[int, int]) -> None:
    """Found by the fuzz harness: page up or down in the findings panel or the palette's list, on a terminal too
    small to show a line of it, raised KeyError out of Textual's OptionList."""
    app = make_app(BUILD, TEST_CATALOG)
    async with app.run_test(size=size) as pilot:
        if where == "findings":
            app.query_one(FindingsPanel).focus()
        else:
            await pilot.press("ctrl+p", "a")
        await pilot.press("pagedown", "pageup", "pagedown")
        await settle(pilot)
        assert app.is_running


@pytest.mark.asyncio
async def test_ctrl_p_with_a_palette_under_a_dialog_opens_no_second_palette() -> None:
    """Found by the fuzz harness (session 2612:40): a dialog over the open palette, then ctrl+p again: a second
    palette with the same id ended the app (DuplicateIds)."""
    app = make_app(BUILD, TEST_CATALOG)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+p")
        app.push_screen(ShowError("a dialog over the palette"))
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        assert app.is_running and sum(isinstance(s, CommandPalette) for s in app.screen_stack) == 1


@pytest.mark.asyncio
@pytest.mark.parametrize("key", ["ctrl+o", "export", "save-as"])
async def test_a_file_name_with_a_nul_is_refused_in_one_sentence(tmp_path: Path, key: str,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by the fuzz harness (session 2612:570): a NUL pasted into a file name ended the app (ValueError)."""
    monkeypatch.chdir(tmp_path)
    app = make_app(ROOT / "examples" / "builds" / "pass-dual-3090-wrx80.toml")
    async with app.run_test(size=(100, 30)) as pilot:
        if key == "ctrl+o":
            await pilot.press("ctrl+o")
        elif key == "export":
            app.action_export()
        else:
            app.action_save_as()
        await settle(pilot)
        app.screen.query_one(Input).value = "parts\x00.md"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ShowError) and "cannot hold a NUL character" in app.screen.message
    assert list(tmp_path.iterdir()) == []


@pytest.mark.asyncio
async def test_a_row_event_from_a_table_since_cleared_is_ignored() -> None:
    """Found by the fuzz harness (session 2612:573): the picker got a row event whose row had gone with a
    search typed meanwhile (AttributeError)."""
    app = make_app(BUILD, TEST_CATALOG)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("a")
        picker = app.screen
        assert isinstance(picker, CatalogPicker)
        table = picker.query_one(DataTable)
        picker.post_message(DataTable.RowHighlighted(table, 0, None))  # type: ignore[arg-type]
        picker.post_message(DataTable.RowSelected(table, 0, None))  # type: ignore[arg-type]
        await settle(pilot)
        assert app.is_running and app.screen is picker


@pytest.mark.asyncio
async def test_ctrl_p_right_after_the_palette_closed_opens_a_new_one() -> None:
    """Found by the fuzz harness (session 2612:1083): the palette closed, then ctrl+p before it had left the
    screen: two palettes with the same id ended the app (DuplicateIds)."""
    app = make_app(BUILD, TEST_CATALOG)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+p")
        app.screen.dismiss()
        app.action_command_palette()
        await settle(pilot)
        assert app.is_running and isinstance(app.screen, CommandPalette)


@pytest.mark.asyncio
async def test_the_palette_dismissed_twice_leaves_the_build_screen() -> None:
    """Found by the fuzz harness (session 2613:11): a command chosen and escape, queued together, dismissed the
    palette twice; the second popped the build screen (ScreenStackError)."""
    app = make_app(BUILD, TEST_CATALOG)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+p")
        palette = app.screen
        assert isinstance(palette, CommandPalette)
        palette.dismiss()
        palette.dismiss()
        await settle(pilot)
        assert app.is_running and isinstance(app.screen, BuildScreen)


@pytest.mark.asyncio
@pytest.mark.parametrize("field", ["memory", "budget", "count"])
async def test_digits_then_a_letter_in_a_number_field_answer_at_once(field: str) -> None:
    """Found by the fuzz harness (session 2613:2025): Textual's number and integer fields check each key with a
    pattern of nested repeats: 20 digits and a letter took 45 s to refuse, and the app froze."""
    app = make_app(BUILD, TEST_CATALOG)
    async with app.run_test(size=(100, 34)) as pilot:
        await pilot.press("w")
        await settle(pilot)
        app.screen.query_one(f"#{field}", Input).focus()
        started = time.perf_counter()
        await asyncio.wait_for(pilot.press(*"9" * 24, "x", "y"), 20)
        assert time.perf_counter() - started < 10
        value = app.screen.query_one(f"#{field}", Input).value
        assert value == "9" * 24  # the letters refused, the digits kept


@pytest.mark.asyncio
async def test_a_screenshot_asked_for_as_the_app_closes_is_dropped_not_a_crash(catalog: Catalog) -> None:
    """The TUI fuzz harness (seed 2614, session 121): the palette's screenshot in the same key storm as quit
    reached Textual's screenshot with no screen left (ScreenStackError)."""
    app = make_app(None, catalog)
    async with app.run_test(size=(40, 12)) as pilot:
        await settle(pilot)
    assert app.deliver_screenshot() is None  # the app has closed: nothing to draw, nothing raised
