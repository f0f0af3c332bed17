"""The placement on the real example builds: the issue's four examples and their verdicts, the fixes for the
slot failure passing `planner check` once applied, `planner place`, the `--diagram` flag, and the PCIe tree
(networkx) agreeing with the plain lane arithmetic that every check run uses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tomlkit

from planner.api import load_build
from planner.build.edit import apply
from planner.catalog import Catalog
from planner.checks.engine.findings import Change
from planner.placement import place
from planner.placement.diagram import slot_diagram
from planner.placement.tree import CHIPSET, gpus_under, link, pcie_tree

from conftest import EXAMPLES, example, run_cli

SLOT_FAILURE = example("fail-slots-quad-3090-fe-wrx80.toml")
BLOWERS = example("pass-quad-3090-turbo-wrx80.toml")
CONSUMER = example("warn-dual-4090-fe-x670e.toml")
RISERS = example("pass-quad-3060-two-on-risers-frame.toml")


def _report(path: Path) -> dict:  # type: ignore[type-arg]
    [report] = json.loads(run_cli("check", path, "--format", "json").out)
    return report  # type: ignore[no-any-return]


def _problems(report: dict) -> dict[str, str]:  # type: ignore[type-arg]
    return {f["code"]: f["severity"] for f in report["findings"] if f["severity"] != "info"}


def test_four_3_slot_3090s_on_the_7_slot_workstation_board_fail_on_slots() -> None:
    report = _report(SLOT_FAILURE)
    assert report["verdict"] == "fail"
    [finding] = [f for f in report["findings"] if f["code"] == "slot.placement"]
    assert finding["message"].startswith("1 of the 4 GPUs gets no slot (GPU4): 4 cards × 3 slots need 12 positions; "
                                         "this board and case offer 9")
    assert [g["mount"] for g in report["summary"]["gpus"]] == ["PCIEX16_1", "PCIEX16_4", "PCIEX16_7", None]


def test_four_2_slot_blowers_on_the_same_board_pass() -> None:
    report = _report(BLOWERS)
    assert report["verdict"] == "pass"
    assert [g["mount"] for g in report["summary"]["gpus"]] == ["PCIEX16_1", "PCIEX16_3", "PCIEX16_5", "PCIEX16_7"]


def test_two_4090s_fit_the_consumer_board_and_the_report_shows_both_at_x8() -> None:
    report = _report(CONSUMER)
    assert "slot.placement" not in _problems(report) and "slot.overlap" not in _problems(report)
    assert [(g["mount"], g["lanes"]) for g in report["summary"]["gpus"]] == [("PCIEX16_1", 8), ("PCIEX16_2", 8)]
    stated = {f["code"]: f["severity"] for f in report["findings"] if f["code"] in ("slot.lanes", "slot.sharing")
              and f["severity"] == "info" and "x8" in f["message"]}
    assert stated == {"slot.lanes": "info", "slot.sharing": "info"}  # PCIe 4.0 x8: stated, not warned


def test_four_cards_with_two_on_risers_pass() -> None:
    report = _report(RISERS)
    assert report["verdict"] == "pass"
    mounts = [g["mount"] for g in report["summary"]["gpus"]]
    assert mounts[2:] == ["vertical-1", "vertical-2"] and all(m and m.startswith("PCIE") for m in mounts[:2])


def test_every_fix_for_the_slot_failure_passes_planner_check_once_applied(tmp_path: Path) -> None:
    [finding] = [f for f in _report(SLOT_FAILURE)["findings"] if f["code"] == "slot.placement"]
    assert len(finding["fixes"]) >= 2
    raw = tomlkit.parse(SLOT_FAILURE.read_text()).unwrap()
    for n, fix in enumerate(finding["fixes"]):
        assert fix["verified"] is True
        fixed = apply(raw, [Change(c["path"], c["value"]) for c in fix["changes"]])
        path = tmp_path / f"fixed-{n}.toml"
        path.write_text(tomlkit.dumps(fixed))
        result = run_cli("check", path)
        assert result.code == 0, (fix["description"], result.out)


def test_the_fixes_name_blower_cards_and_risers_to_mounts() -> None:
    [finding] = [f for f in _report(SLOT_FAILURE)["findings"] if f["code"] == "slot.placement"]
    descriptions = [f["description"] for f in finding["fixes"]]
    assert descriptions[0].startswith("use 2-slot cards: the ") and "2-slot blower" in descriptions[0]
    assert any("on riser cables" in d and "vertical mounts" in d for d in descriptions)


# -- planner place and --diagram ---------------------------------------------------------------------------
def test_place_prints_the_diagram_the_tree_and_the_lines_that_pin_the_placement() -> None:
    result = run_cli("place", RISERS)
    assert result.code == 0
    assert "╍ riser plug of GPU3 → vertical-1" in result.out
    assert "PCIe tree:\nCPU AMD EPYC 7443P: 128 lanes, Gen4" in result.out
    assert 'gpu[1]: slot = ["PCIE5", "PCIE6"]' in result.out


def test_place_exits_1_and_says_why_when_a_gpu_has_no_mount() -> None:
    result = run_cli("place", SLOT_FAILURE)
    assert result.code == 1
    assert "Not placed: 1 of the 4 GPUs cannot be placed: 4 cards × 3 slots need 12 positions" in result.out


def test_place_json_gives_each_gpu_its_mount_and_the_tree() -> None:
    data = json.loads(run_cli("place", CONSUMER, "--format", "json").out)
    assert data["feasible"] is True
    assert [(g["mount"], g["positions"], g["lanes"], g["gen"]) for g in data["gpus"]] == [
        ("PCIEX16_1", [1, 2, 3], 8, 4), ("PCIEX16_2", [4, 5, 6], 8, 4)]
    assert {"source": "CPU", "target": "port PCIEX16_1+PCIEX16_2"} in [
        {k: e[k] for k in ("source", "target")} for e in data["pcie_tree"]["edges"]]


def test_check_with_diagram_shows_the_slot_diagram_after_the_report() -> None:
    out = run_cli("check", example("pass-dual-3090-wrx80.toml"), "--diagram").out
    diagram = out.split("Slot diagram:\n", 1)[1]
    lines = diagram.splitlines()
    assert lines[2].split()[:4] == ["1", "PCIEX16_1", "x16", "G4"] and "┏ GPU1 nvidia-rtx-3090-fe" in lines[2]
    assert lines[5].endswith("· free") and "┏ GPU2" in lines[6]


def test_check_json_carries_the_diagram_only_when_asked() -> None:
    [plain] = json.loads(run_cli("check", BLOWERS, "--format", "json").out)
    [with_diagram] = json.loads(run_cli("check", BLOWERS, "--format", "json", "--diagram").out)
    assert "diagram" not in plain and "PCIEX16_7 x16 G4" in with_diagram["diagram"]


def test_the_diagram_marks_an_overlap_and_a_cooler_past_the_case(catalog: Catalog, tmp_path: Path) -> None:
    text = SLOT_FAILURE.read_text().replace('count = 4', 'count = 2\nslot = ["PCIEX16_6", "PCIEX16_7"]')
    text = text.replace('case = "fractal-meshify-2-xl"',
                        'case = { base = "fractal-meshify-2-xl", expansion_slots = 8 }')
    path = tmp_path / "clash.toml"
    path.write_text(text)
    build = load_build(path, catalog)
    diagram = slot_diagram(build, place(build))
    assert "✗ overlap" in diagram and "✗ past the case's last slot" in diagram


# -- the PCIe tree --------------------------------------------------------------------------------------
@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.toml")), ids=lambda p: p.stem)
def test_the_pcie_tree_gives_every_gpu_the_link_the_checks_use(path: Path, catalog: Catalog) -> None:
    build = load_build(path, catalog)
    placement = place(build)
    tree = pcie_tree(build, placement)
    for mount in placement.mounts:
        if mount is not None:
            assert link(tree, mount.gpu) == (mount.lanes, mount.gen)


def test_the_tree_puts_chipset_slots_behind_one_shared_link(catalog: Catalog, tmp_path: Path) -> None:
    text = CONSUMER.read_text().replace('count = 2', 'count = 2\nslot = ["PCIEX16_1", "PCIEX16_3"]')
    path = tmp_path / "chipset.toml"
    path.write_text(text)
    build = load_build(path, catalog)
    tree = pcie_tree(build, place(build))
    assert gpus_under(tree, CHIPSET) == [1]
    assert link(tree, 1) == (2, 4)


def test_two_cards_on_an_x870e_board_get_x8_x8_on_cpu_lanes_not_x16_and_a_chipset_x4(tmp_path: Path) -> None:
    # the X870E's third slot (position 7, chipset x4) is free in a 9-position case: the placement must still
    # split the CPU's x16 between the two cards rather than leave the second one on the chipset's shared uplink
    text = CONSUMER.read_text().replace("asus-proart-x670e-creator-wifi", "asus-proart-x870e-creator-wifi")
    path = tmp_path / "dual-4090-fe-x870e.toml"
    path.write_text(text.replace('"fractal-torrent"', '"fractal-meshify-2-xl"'))
    gpus = _report(path)["summary"]["gpus"]
    assert [(g["mount"], g["lanes"]) for g in gpus] == [("PCIEX16(G5)_1", 8), ("PCIEX16(G5)_2", 8)]
