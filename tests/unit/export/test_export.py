"""Parts-list exports (README: Command-line reference): golden files, CSV injection safety, atomic writes, no silent
overwrite."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import pytest

from planner.export.formats import FORMATS, export, safe_cell
from planner.util.errors import InputError
from planner.util.fileio import atomic_write

from conftest import ROOT, example, run_cli
from helpers import BASE, build, gpus

GOLDEN = ROOT / "tests" / "golden"
SUFFIX = {"md": "md", "bbcode": "bbcode", "csv": "csv", "json": "json", "text": "txt"}
GOLDEN_BUILD = BASE + gpus("nvidia-rtx-3090-fe", 2) + gpus("gigabyte-rtx-3090-turbo", 2)


@pytest.mark.parametrize("fmt", FORMATS)
def test_export_matches_its_golden_file(fmt: str) -> None:
    text = export(build(GOLDEN_BUILD), fmt)
    golden = GOLDEN / f"parts-list.{SUFFIX[fmt]}"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.write_text(text)
    assert text == golden.read_text(), f"UPDATE_GOLDEN=1 pytest {__file__} regenerates it after a deliberate change"


def test_totals_add_up() -> None:
    data = json.loads(export(build(GOLDEN_BUILD), "json"))
    assert data["total_usd"] == sum(p["line_total_usd"] for p in data["parts"])
    assert data["total_usd"] == 239 + 999 + 3299 + 2 * 1499 + 2 * 1499 + 599


def test_same_part_is_one_row_with_its_quantity() -> None:
    data = json.loads(export(build(BASE + gpus("nvidia-rtx-3090-fe", 3)), "json"))
    [gpu] = [p for p in data["parts"] if p["kind"] == "gpu"]
    assert gpu["quantity"] == 3 and gpu["line_total_usd"] == 3 * 1499


@pytest.mark.parametrize(("evil", "cell"), [
    ("=HYPERLINK(\"http://x\",\"y\")", "'=HYPERLINK(\"http://x\",\"y\")"), ("+1+1", "'+1+1"), ("-2+3", "'-2+3"),
    ("@SUM(A1)", "'@SUM(A1)"), ("\t=1", "\\t=1")])  # a tab is written as its escape: `\t`, text
def test_csv_cells_that_a_spreadsheet_would_run_are_neutralised(evil: str, cell: str) -> None:
    text = BASE + f'[[gpu]]\npart = {{ base = "nvidia-rtx-3090-fe", name = {json.dumps(evil)} }}\n'
    rows = list(csv.reader(io.StringIO(export(build(text), "csv"))))
    [gpu_row] = [r for r in rows if r[1] == "gpu"]
    assert gpu_row[0] == cell
    assert safe_cell("RTX 3090") == "RTX 3090"


def test_export_writes_to_a_file_and_refuses_to_overwrite_it(tmp_path: Path) -> None:
    out = tmp_path / "parts.md"
    first = run_cli("export", example("pass-dual-3090-wrx80.toml"), "--format", "md", "-o", out)
    assert first.code == 0 and out.read_text().startswith("**Dual RTX 3090 FE on WRX80")
    out.write_text("my notes")
    second = run_cli("export", example("pass-dual-3090-wrx80.toml"), "--format", "md", "-o", out)
    assert second.code == 2
    assert "already exists; use --force" in second.err
    assert out.read_text() == "my notes"
    forced = run_cli("export", example("pass-dual-3090-wrx80.toml"), "--format", "md", "-o", out, "--force")
    assert forced.code == 0 and out.read_text().startswith("**Dual")


def test_an_interrupted_write_leaves_the_original_file_intact(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "parts.csv"
    out.write_text("original")

    def crash(fd: int) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", crash)
    with pytest.raises(InputError, match="disk full"):
        atomic_write(out, "new contents", force=True)
    assert out.read_text() == "original"
    assert [p.name for p in tmp_path.iterdir()] == ["parts.csv"]  # no temp file left behind


def test_writing_into_a_missing_directory_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        atomic_write(tmp_path / "nope" / "parts.md", "x")


def test_export_to_stdout_by_default() -> None:
    result = run_cli("export", example("pass-dual-3090-wrx80.toml"), "--format", "csv")
    assert result.code == 0
    assert result.out.splitlines()[0] == (
        "Part,Kind,Id,Quantity,Unit price (USD),Line total (USD),Price date,Price from,Price market,Stale price")


def test_export_of_a_bad_build_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("case = 3")
    result = run_cli("export", bad, "--format", "md")
    assert result.code == 2 and "Traceback" not in result.err


def test_a_written_file_gets_the_permissions_a_plain_write_would(tmp_path: Path) -> None:
    new = tmp_path / "new.md"
    atomic_write(new, "x")
    umask = os.umask(0)
    os.umask(umask)
    assert new.stat().st_mode & 0o777 == 0o666 & ~umask
    existing = tmp_path / "existing.sh"
    existing.write_text("old")
    existing.chmod(0o755)
    atomic_write(existing, "new", force=True)
    assert existing.stat().st_mode & 0o777 == 0o755
