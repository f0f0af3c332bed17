"""The TUI fuzz harness (tests/tui_fuzzing.py) at CI size: a few seeded sessions of key storms, hostile pastes,
resizes down to 10×4 and hostile build files, and every hostile build file opened in turn under a storm of the
app's keys. tools/tui_fuzz.py runs the same sessions by the thousand."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui.app import make_app
from tui.screens.dialogs import InvalidBuild

from helpers import TEST_CATALOG
from tui_fuzzing import BOUND_KEYS, HOSTILE_FILES, OTHER_KEYS, Counts, fuzz, storm

SEED = 26  # the number; a failure names its session, replayed alone by tools/tui_fuzz.py


@pytest.mark.asyncio
async def test_seeded_sessions_never_fail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the save and export dialogs write the names typed into them here
    counts = await fuzz(SEED, 3, TEST_CATALOG, tmp_path, steps=20, timeout=60)
    assert counts.failures == [], "\n".join(counts.tracebacks)
    assert counts.sessions == 3 and counts.keys > 40 and counts.hangs == 0


@pytest.mark.asyncio
async def test_every_hostile_build_file_under_a_storm_of_the_apps_keys(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    app = make_app(None, TEST_CATALOG)
    async with app.run_test(size=(80, 24)) as pilot:
        for kind, text in HOSTILE_FILES.items():
            path = tmp_path / f"{kind}.toml"
            path.write_bytes(text.encode("utf-8", "surrogateescape"))
            app.open_file(path)
            if isinstance(app.screen, InvalidBuild):
                await storm(app, pilot, ["escape"])  # look at it as it is: every key then waits for the fix
            # the keys that read the build's entries (the picker's a and c: the random sessions)
            await storm(app, pilot, ["t", "escape", "w", "escape", "plus", "minus", "d", "o", "s", "escape", "ctrl+z",
                                     "x", "escape", "ctrl+y", "tab", "plus", "d", "shift+tab", "ctrl+z", "ctrl+y"])
            assert app.is_running, kind
            for _ in range(5):  # whatever the storm left open closed, for the next file
                if app.screen is app.screen_stack[0]:
                    break
                await pilot.press("escape")
        for _ in range(3):  # the storm's last keys handled before the app closes
            await pilot.pause()
        assert app.is_running


def test_the_key_pool_holds_undo_redo_and_the_keys_of_each_panel() -> None:
    assert {"ctrl+z", "ctrl+y"} <= set(BOUND_KEYS) & set(OTHER_KEYS)
    assert {"plus", "minus", "d", "delete", "a", "c", "t", "x", "s", "tab", "shift+tab"} <= set(BOUND_KEYS)


def test_the_counts_say_what_was_done() -> None:
    counts, one = Counts(), Counts(sessions=1, keys=10, pastes=2, resizes=3, files={"example": 1})
    counts.add(one)
    counts.add(one)
    assert counts.summary().startswith("2 sessions, 0 actions (20 keys, 4 pastes, 6 resizes, 0 files opened), "
                                       "0 tracebacks, 0 hangs")
    assert counts.files == {"example": 2}


@pytest.mark.asyncio
async def test_paging_a_dropdown_before_its_lines_are_laid_out_is_no_crash(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The 1,000-session run of seed 2614 (12 steps), session 763: page up/down reached Textual's Select overlay
    before it had lines (KeyError in OptionList._move_page); every modal screen now pages through a guard."""
    monkeypatch.chdir(tmp_path)
    counts = await fuzz(2614, 1, TEST_CATALOG, tmp_path, first=763, steps=12, timeout=60)
    assert counts.failures == [], "\n".join(counts.tracebacks)


@pytest.mark.asyncio
async def test_paging_where_nothing_scrolls_never_reaches_an_unguarded_dropdown(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed 2615, session 412: the guard met a widget with nothing to scroll (SkipAction), and the key went on to
    the dropdown's own, unguarded binding (KeyError in OptionList._move_page)."""
    monkeypatch.chdir(tmp_path)
    counts = await fuzz(2615, 1, TEST_CATALOG, tmp_path, first=412, steps=12, timeout=60)
    assert counts.failures == [], "\n".join(counts.tracebacks)


@pytest.mark.asyncio
async def test_a_file_name_dialog_closed_as_it_opens_is_no_crash(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed 2615, session 542: the save dialog focused its input from on_mount after a key storm had removed it
    (NoMatches); it now names the input to focus (AUTO_FOCUS), which Textual skips when it is gone."""
    monkeypatch.chdir(tmp_path)
    counts = await fuzz(2615, 1, TEST_CATALOG, tmp_path, first=542, steps=12, timeout=60)
    assert counts.failures == [], "\n".join(counts.tracebacks)


@pytest.mark.asyncio
async def test_page_down_on_a_dropdown_opened_by_typing_is_no_crash(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The 150-session run of seed 2700 (30 steps), session 61: a letter opened the wizard's workload list and page
    down, before the list had the focus, was skipped by the dropdown and reached the list's own binding (KeyError);
    the modal's guard now hands it to the parents and never back."""
    monkeypatch.chdir(tmp_path)
    counts = await fuzz(2700, 1, TEST_CATALOG, tmp_path, first=61, steps=30, timeout=60)
    assert counts.failures == [], "\n".join(counts.tracebacks)
