"""The shipped catalogs: complete, consistent, and the imported layer reproducible from its source."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from planner.catalog import Catalog

from conftest import ROOT, run_cli


def test_every_motherboard_socket_has_a_cpu_in_the_catalogs(catalog: Catalog) -> None:
    sockets = {part.socket for part in catalog.all("cpu")}  # type: ignore[attr-defined]
    missing = {part.id: part.socket for part in catalog.all("motherboard")  # type: ignore[attr-defined]
               if part.socket not in sockets}
    assert missing == {}


def test_a_board_whose_socket_no_cpu_has_is_reported(tmp_path: Path) -> None:
    text = (ROOT / "catalogs" / "motherboards.toml").read_text()
    first = "[" + text.split("\n[", 1)[1]
    (tmp_path / "motherboards.toml").write_text(first.replace('socket = "', 'socket = "X', 1))
    problems = [str(p) for p in Catalog([ROOT / "catalogs", tmp_path]).validate(only=tmp_path)]
    assert len(problems) == 1 and "socket: no CPU in the catalogs has socket 'X" in problems[0]


def test_listing_4090_boards_shows_founders_partner_and_imported_cards() -> None:
    result = run_cli("catalog", "list", "gpus", "--search", "4090", "--format", "json")
    ids = {p["id"] for p in json.loads(result.out)}
    assert "nvidia-rtx-4090-fe" in ids
    assert {"asus-rog-strix-rtx-4090-oc", "msi-rtx-4090-suprim-x"} & ids
    assert "palit-rtx-4090-gamerock" in ids  # imported from BuildCores OpenDB


def test_show_json_gives_the_board_merged_with_its_chip_in_documented_units() -> None:
    [board] = [json.loads(run_cli("catalog", "show", "nvidia-rtx-3090-fe", "--format", "json").out)]
    assert board["kind"] == "gpu" and board["chip"] == "rtx-3090"
    assert (board["tdp"], board["length"], board["slot_width"]) == (350.0, 313.0, 3.0)  # W, mm, slots
    assert (board["memory"], board["memory_bandwidth"], board["tensor_fp16"]) == (24.0, 936.0, 71.0)  # GB, GB/s
    assert "whitepaper" in board["chip_source"].lower()


def test_show_text_names_every_field_and_the_source() -> None:
    out = run_cli("catalog", "show", "corsair-ax1600i").out
    assert "source:" in out and "wattage: 1600" in out and "ac_inlet: c20" in out


SNAPSHOT = ROOT.parent / "shared" / "data" / "buildcores-open-db"


@pytest.mark.slow
@pytest.mark.skipif(not (SNAPSHOT / "SOURCE.md").is_file(),
                    reason="the BuildCores OpenDB snapshot (../shared/data) is not on this machine")
def test_the_importer_is_deterministic_and_the_committed_files_are_its_output(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "import_buildcores.py"), "--out", str(tmp_path)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    for produced in sorted(tmp_path.glob("*.toml")):
        committed = ROOT / "catalogs" / "imported" / produced.name
        assert produced.read_bytes() == committed.read_bytes(), (
            f"{committed} is stale: run python tools/import_buildcores.py")
