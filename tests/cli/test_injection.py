"""Build and part names never reach a terminal, a spreadsheet or an export as live control sequences,
line breaks or formulas (issue 13, item 3)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from planner.export.formats import export, safe_cell
from planner.util.fmt import printable

from conftest import example, run_cli
from helpers import BASE, build, settle

TITLE = "\x1b]0;pwned\x07"  # OSC 0: sets the terminal's window title
CONCEAL = "\x1b[8m"  # SGR 8: hides what follows ("— FAIL")
LIVE = ("\x1b", "\x07", "\x9b", "\u202e", "\r")  # what must never come out raw


def _raw(text: str) -> list[str]:
    return [char for char in LIVE if char in text]


def evil_build(tmp_path: Path, name: str, circuit: str = "study") -> Path:
    """The passing dual-3090 example with its build (and circuit) renamed."""
    text = example("pass-dual-3090-wrx80.toml").read_text()
    text = text.replace('name = "Dual RTX 3090 FE on WRX80"', f"name = {json.dumps(name)}")
    text = text.replace('"study"', json.dumps(circuit))
    path = tmp_path / "build.toml"
    path.write_text(text)
    return path


# -- the one function ----------------------------------------------------------------------------------------
def test_printable_writes_control_and_bidi_characters_as_their_escapes() -> None:
    assert printable(f"a{TITLE}b") == "a\\x1b]0;pwned\\x07b"
    assert printable("\x9b31m \x85 \u202eevil\u202c \u2066x\u2069 \x7f") == \
        "\\x9b31m \\x85 \\u202eevil\\u202c \\u2066x\\u2069 \\x7f"


def test_printable_escapes_a_names_newline_but_keeps_a_blocks() -> None:
    assert printable("line\nfake line") == "line\\nfake line"
    assert printable("one\ntwo\x1b", newlines=True) == "one\ntwo\\x1b"


def test_printable_leaves_ordinary_text_alone() -> None:
    name = "NVIDIA GeForce RTX 3090 — 24 GB × 2, 1,600 W, 85 °C"
    assert printable(name) is name


# -- terminal reports ----------------------------------------------------------------------------------------
def test_the_plain_report_shows_an_escape_in_a_name_as_text(tmp_path: Path) -> None:
    path = evil_build(tmp_path, f"Evil{TITLE}{CONCEAL}")
    result = run_cli("check", path)
    assert _raw(result.out) == []
    first = result.out.splitlines()[0]
    assert first.endswith("Evil\\x1b]0;pwned\\x07\\x1b[8m — PASS")


def test_a_newline_in_a_circuit_name_cannot_forge_a_report_line(tmp_path: Path) -> None:
    path = evil_build(tmp_path, "Dual", circuit="study\n  no problems found")
    out = run_cli("check", path).out
    assert "study\\n  no problems found" in out
    assert "\n  no problems found" not in out


def test_the_rich_report_shows_names_as_text_not_as_escapes_or_markup(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from planner.cli import check_cmd, render_rich

    screen = io.StringIO()
    monkeypatch.setattr(render_rich, "console", lambda: Console(file=screen, force_terminal=True, width=200))
    monkeypatch.setattr(check_cmd, "rich_stdout", lambda: True)
    path = evil_build(tmp_path, f"Evil{TITLE}{CONCEAL}[bold]", circuit=f"st{CONCEAL}udy[/]")
    assert run_cli("check", path, "--diagram").code == 0
    shown = screen.getvalue()
    assert "\x1b]" not in shown and "\x07" not in shown and CONCEAL not in shown  # rich's own colours only
    assert "Evil\\x1b]0;pwned\\x07\\x1b[8m[bold]" in shown  # the markup stays text
    assert "st\\x1b[8mudy[/]" in shown


def test_an_error_message_quoting_a_file_name_is_printed_as_text(tmp_path: Path) -> None:
    missing = tmp_path / f"no{TITLE}such.toml"
    result = run_cli("check", missing)
    assert result.code == 2 and _raw(result.err) == []
    assert "no\\x1b]0;pwned\\x07such.toml" in result.err


def test_the_json_report_escapes_c1_and_bidi_characters_and_keeps_the_name(tmp_path: Path) -> None:
    name = f"Evil{TITLE}\x9b8m\u202e"
    result = run_cli("check", evil_build(tmp_path, name), "--format", "json")
    assert _raw(result.out) == []
    assert json.loads(result.out)[0]["build"] == name  # the same data, only inert bytes


# -- exports -------------------------------------------------------------------------------------------------
def _part_named(name: str) -> str:
    return BASE + f'[[gpu]]\npart = {{ base = "nvidia-rtx-3090-fe", name = {json.dumps(name)} }}\n'


@pytest.mark.parametrize("newline", ["\r", "\n", "\r\n", "\u2028", "\u2029", "\x85", "\x0b", "\x0c"])
def test_a_line_break_in_a_name_cannot_start_a_csv_row_with_a_formula(newline: str) -> None:
    text = export(build(_part_named(f"RTX 3090{newline}=cmd|' /C calc'!A0")), "csv")
    assert _raw(text) == [] and newline not in text.replace("\n", "")  # the writer's own row ends only
    rows = list(csv.reader(io.StringIO(text)))
    assert len(rows) == 7  # header, case, board, CPU, GPU, PSU, total: no extra row
    [gpu_row] = [r for r in rows if r[1] == "gpu"]
    assert gpu_row[0].startswith("RTX 3090\\") and gpu_row[0].endswith("=cmd|' /C calc'!A0")


@pytest.mark.parametrize(("evil", "cell"), [
    (" =1+1", "' =1+1"), ('"=1+1', "'\"=1+1"), ("'=1+1", "''=1+1"), ("  @SUM(A1)", "'  @SUM(A1)"),
    ("\u00a0-1", "'\u00a0-1"), ("\uff1d1+1", "'\uff1d1+1"),  # a no-break space; a full-width =
    ("\t=1+1", "\\t=1+1")])  # a tab is written as its escape, so the cell starts with a backslash: text
def test_a_formula_behind_blanks_or_quotes_is_neutralised(evil: str, cell: str) -> None:
    assert safe_cell(evil) == cell


def test_markdown_and_text_exports_escape_control_characters_and_markdown_cells_escape_pipes() -> None:
    resolved = build(_part_named(f"RTX{TITLE}|{CONCEAL}\nx"))
    markdown, text = export(resolved, "md"), export(resolved, "text")
    assert _raw(markdown) == [] and _raw(text) == []
    # the escapes printable writes, each Markdown markup character backslash-escaped (\\, \], \|, \[)
    assert "| RTX\\\\x1b\\]0;pwned\\\\x07\\|\\\\x1b\\[8m\\\\nx |" in markdown
    assert "RTX\\x1b]0;pwned\\x07|\\x1b[8m\\nx" in text


def test_the_json_export_keeps_the_name_and_escapes_it() -> None:
    name = f"RTX{TITLE}\u202e\x9b"
    text = export(build(_part_named(name)), "json")
    assert _raw(text) == []
    assert any(p["name"] == name for p in json.loads(text)["parts"])


def test_power_limit_scripts_drop_bidi_and_c1_characters_from_their_comments() -> None:
    resolved = build(_part_named("RTX\u202e\u2066\x9b\x85 3090"))
    for fmt in ("nvidia-smi", "systemd"):
        assert _raw(export(resolved, fmt)) == []
        assert "\u2066" not in export(resolved, fmt)


def test_an_example_export_is_unchanged_by_the_neutraliser() -> None:
    text = run_cli("export", example("pass-dual-3090-wrx80.toml"), "--format", "csv").out
    assert "'" not in text and "\\" not in text


# -- the TUI -------------------------------------------------------------------------------------------------
@pytest.mark.asyncio
async def test_the_tui_shows_names_as_text_in_its_title_parts_list_and_totals(tmp_path: Path) -> None:
    from textual.coordinate import Coordinate

    from planner.catalog import Catalog, builtin_dir
    from tui.app import make_app
    from tui.widgets.parts import PartsList
    from tui.widgets.totals import TotalsPanel

    path = evil_build(tmp_path, f"Evil{TITLE}{CONCEAL}[bold]", circuit=f"[red]{CONCEAL}")
    app = make_app(path, Catalog([builtin_dir()]))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)  # the check lands from its worker
        assert app.title.endswith(" — Evil\\x1b]0;pwned\\x07\\x1b[8m[bold]")  # the verdict first
        parts = app.query_one(PartsList)
        cells = [str(parts.get_cell_at(Coordinate(row, 3))) for row in range(parts.row_count)]
        assert "on [red]\\x1b[8m" in cells  # the PSU's circuit, markup and escape shown as text
        totals = app.query_one(TotalsPanel).content
        shown = "".join(segment.text for segment in Console(width=120).render(totals))  # type: ignore[arg-type]
        assert "⏚ [red]\\x1b" in shown and _raw(shown) == []
        app.notify(f"Saved {TITLE}[b]")  # a notification quoting a file name
        await pilot.pause()
        assert _raw("".join(str(n.message) for n in app._notifications)) == []
