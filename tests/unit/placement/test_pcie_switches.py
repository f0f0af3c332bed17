"""Boards whose slots sit behind PCIe switches (PLX PEX8747): each card links to its switch at its slot's width,
the CPU gives each switch its upstream lanes once, and the cards behind one switch are told what they share.
On the built-in catalog's switch boards (ASUS WS X299 SAGE, X99-E WS) with four blower RTX 3090s."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.api import check_build
from planner.build.resolve import ResolvedBuild
from planner.catalog import Catalog, builtin_dir
from planner.checks.engine.findings import Finding
from planner.placement import place
from planner.placement.diagram import slot_diagram
from planner.placement.tree import gpus_under, link, path_to, pcie_tree, render_tree
from planner.util.errors import InputError

from helpers import build

X299_SAGE = '"asus-ws-x299-sage"'
WITHOUT_SWITCHES = '{ base = "asus-ws-x299-sage", switches = [] }'


def _text(board: str = X299_SAGE, cpu: str = '"intel-core-i9-10980xe"', count: int = 4, extra: str = "") -> str:
    return f"""
case = "fractal-define-7-xl"
motherboard = {board}
cpu = {cpu}
[[circuit]]
name = "lab"
outlet = "nema-5-20"
[[psu]]
part = "evga-supernova-1600-p2"
[[gpu]]
part = "gigabyte-rtx-3090-turbo"
count = {count}
{extra}
"""


def _build(catalog: Catalog, **kwargs: str | int) -> ResolvedBuild:
    return build(_text(**kwargs), catalog)  # type: ignore[arg-type]


def _lanes(catalog: Catalog, **kwargs: str | int) -> list[Finding]:
    report = check_build(_build(catalog, **kwargs), catalog)
    return [f for f in report.findings if f.code == "pcie.cpu-lanes"]


def test_four_cards_behind_two_switches_each_get_x16(catalog: Catalog) -> None:
    placement = place(_build(catalog))
    assert [(m.slot, m.lanes, m.gen) for m in placement.mounts if m] == [
        ("PCIEX16_1", 16, 3), ("PCIEX16_3", 16, 3), ("PCIEX16_5", 16, 3), ("PCIEX16_7", 16, 3)]


def test_a_48_lane_cpu_feeds_four_x16_cards_behind_two_switches_without_a_lane_warning(catalog: Catalog) -> None:
    assert [f for f in _lanes(catalog) if f.severity != "info"] == []


def test_the_same_board_without_switches_over_subscribes_a_48_lane_cpu(catalog: Catalog) -> None:
    [warning] = [f for f in _lanes(catalog, board=WITHOUT_SWITCHES) if f.severity == "warning"]
    assert (warning.value, warning.limit) == (64, 48)
    assert "want 64 lanes (4 × x16)" in warning.message


def test_a_switch_takes_its_uplink_lanes_once_for_all_the_cards_behind_it(catalog: Catalog) -> None:
    sixteen = '{ base = "intel-core-i9-10980xe", pcie_lanes = 16 }'
    two_on_one_switch = 'slot = ["PCIEX16_1", "PCIEX16_3"]'
    assert [f.severity for f in _lanes(catalog, cpu=sixteen, count=2, extra=two_on_one_switch)] == ["info"]
    [warning] = [f for f in _lanes(catalog, board=WITHOUT_SWITCHES, cpu=sixteen, count=2, extra=two_on_one_switch)
                 if f.severity == "warning"]
    assert (warning.value, warning.limit) == (32, 16)


def test_a_28_lane_cpu_cannot_give_two_switches_their_x16_uplinks(catalog: Catalog) -> None:
    findings = _lanes(catalog, board='"asus-x99-e-ws"', cpu='"intel-core-i7-6800k"')
    [warning] = [f for f in findings if f.severity == "warning"]
    assert (warning.value, warning.limit) == (32, 28)
    assert "want 32 lanes (2 × x16 switch uplinks) but the Intel Core i7-6800K has 28" in warning.message
    assert "switch uplinks narrower" in warning.message
    infos = [f for f in findings if f.severity == "info"]
    assert len(infos) == 2 and all("15.8 GB/s each way at most (the Intel Core i7-6800K's 28 lanes" in f.message
                                   for f in infos)  # the uplink may be narrowed: its bandwidth is an upper bound


def test_a_40_lane_cpu_feeds_both_switch_uplinks_of_the_x99_e_ws(catalog: Catalog) -> None:
    findings = _lanes(catalog, board='"asus-x99-e-ws"', cpu='"intel-core-i7-6950x"')
    assert [f.severity for f in findings] == ["info", "info"]


def test_cards_sharing_a_switch_are_told_the_bandwidth_of_its_uplink(catalog: Catalog) -> None:
    first, second = _lanes(catalog)
    assert first.subject == ["GPU1", "GPU2", "switch 1"] and second.subject == ["GPU3", "GPU4", "switch 2"]
    assert "GPU1 and GPU2 sit behind switch 1 (PLX PEX8747) and share its x16 Gen3 link to the CPU: " \
           "15.8 GB/s each way" in first.message
    assert "peer-to-peer" in first.message and "estimated" in first.message  # the wiring is a reading, not a diagram
    assert (first.value, first.limit) == (32, 16)


def test_a_card_alone_behind_a_switch_with_a_full_width_uplink_gets_no_finding(catalog: Catalog) -> None:
    assert _lanes(catalog, count=1) == []


def test_the_pcie_tree_puts_the_switch_between_the_cpu_and_its_slots(catalog: Catalog) -> None:
    resolved = _build(catalog)
    placement = place(resolved)
    tree = pcie_tree(resolved, placement)
    assert path_to(tree, 0) == ["CPU", "switch 1", "PCIEX16_1", "GPU1"]
    assert gpus_under(tree, "switch 1") == [0, 1] and gpus_under(tree, "switch 2") == [2, 3]
    assert (tree.nodes["switch 1"]["lanes"], tree.nodes["switch 1"]["gen"]) == (16, 3)
    for mount in placement.mounts:
        assert mount is not None and link(tree, mount.gpu) == (mount.lanes, mount.gen)
    assert "└ switch 1 PLX PEX8747: x16 Gen3 link to the CPU, shared by the slots below it" in render_tree(tree)


def test_the_slot_diagram_names_each_slots_switch_and_the_switch_uplinks(catalog: Catalog) -> None:
    resolved = _build(catalog)
    diagram = slot_diagram(resolved, place(resolved))
    assert "PCIEX16_1 x16 G3 via switch 1" in diagram and "PCIEX16_7 x16 G3 via switch 2" in diagram
    assert "switch 2 (PLX PEX8747): x16 Gen3 link to the CPU, shared by PCIEX16_4, PCIEX16_5, PCIEX16_6, PCIEX16_7" \
        in diagram


BOARD = """
[test-switch-board]
name = "Test switch board"
maker = "Test"
form_factor = "ceb"
socket = "LGA2066"
source = "test"
slots = [
  { name = "PCIEX16_1", position = 1, size = 16, lanes = 16, gen = 3, source = "cpu" },
  { name = "PCIEX16_2", position = 3, size = 16, lanes = 16, gen = 3, source = "cpu" },
]
"""


def _board_problems(tmp_path: Path, switches: str) -> list[str]:
    (tmp_path / "motherboards.toml").write_text(BOARD + f"switches = [{switches}]\n", encoding="utf-8")
    return [str(e) for e in Catalog([builtin_dir(), tmp_path]).validate(only=tmp_path)]


def _switch(name: str, slots: str) -> str:
    return f'{{ name = "{name}", model = "PLX PEX8747", upstream_lanes = 16, upstream_gen = 3, slots = [{slots}] }}'


def test_a_switch_that_feeds_a_slot_the_board_lacks_is_a_catalog_error(tmp_path: Path) -> None:
    [problem] = _board_problems(tmp_path, _switch("switch 1", '"PCIEX16_1", "PCIEX16_9"'))
    assert "[test-switch-board]" in problem and "feeds slot PCIEX16_9, which the board does not have" in problem


def test_a_slot_behind_two_switches_is_a_catalog_error(tmp_path: Path) -> None:
    problems = _board_problems(tmp_path, _switch("switch 1", '"PCIEX16_1"') + ", " + _switch("switch 2", '"PCIEX16_1"'))
    assert any("slot PCIEX16_1 sits behind two switches" in p for p in problems)


def test_a_board_with_well_formed_switches_validates(tmp_path: Path) -> None:
    assert _board_problems(tmp_path, _switch("switch 1", '"PCIEX16_1", "PCIEX16_2"')) == []


def test_an_inline_board_naming_an_unknown_slot_behind_a_switch_is_refused(catalog: Catalog) -> None:
    board = '{ base = "asus-ws-x299-sage", switches = [' + _switch("switch 1", '"PCIE9"') + "] }"
    with pytest.raises(InputError, match="switch 1 feeds slot PCIE9, which the board does not have"):
        _build(catalog, board=board)


def _gen4_switch_board(upstream_lanes: int = 16) -> str:
    slots = ", ".join(f'{{ name = "PCIEX16_{n}", position = {n}, size = 16, lanes = 16, gen = 4, source = "cpu" }}'
                      for n in (1, 3))
    switch = (f'{{ name = "switch 1", model = "a Gen4 switch", upstream_lanes = {upstream_lanes}, upstream_gen = 4, '
              'slots = ["PCIEX16_1", "PCIEX16_3"] }')
    return f'{{ base = "asus-ws-x299-sage", slots = [{slots}], switches = [{switch}] }}'


def test_behind_a_switch_the_cpus_generation_limits_only_the_uplink(catalog: Catalog) -> None:
    resolved = _build(catalog, board=_gen4_switch_board(), count=2)  # a Gen3 CPU, Gen4 cards and switch
    placement = place(resolved)
    assert [(m.lanes, m.gen) for m in placement.mounts if m] == [(16, 4), (16, 4)]
    assert pcie_tree(resolved, placement).nodes["switch 1"]["gen"] == 3
    [info] = _lanes(catalog, board=_gen4_switch_board(), count=2)
    assert "x16 Gen3 link to the CPU: 15.8 GB/s each way" in info.message and "up to 31.5 GB/s" in info.message


def test_a_lone_card_behind_a_narrower_uplink_is_told_so(catalog: Catalog) -> None:
    [info] = _lanes(catalog, board=_gen4_switch_board(upstream_lanes=8), count=1)
    assert info.severity == "info"
    assert "GPU1 sits behind switch 1 (a Gen4 switch), whose x8 Gen3 link to the CPU moves 7.9 GB/s each way, " \
           "less than the card's own link (31.5 GB/s)" in info.message


@pytest.mark.parametrize(("card", "chip"), [("nvidia-rtx-4090-fe", "NVIDIA GeForce RTX 4090"),
                                            ("nvidia-rtx-5090-fe", "NVIDIA GeForce RTX 5090")])
def test_geforce_40_and_50_cards_behind_one_switch_talk_through_host_memory(catalog: Catalog, card: str,
                                                                            chip: str) -> None:
    # the driver disables peer-to-peer on these cards: their traffic does not stay inside the switch
    text = _text(count=2, extra='slot = ["PCIEX16_4", "PCIEX16_7"]').replace("gigabyte-rtx-3090-turbo", card)
    [shared] = [f for f in check_build(build(text, catalog), catalog).findings if f.code == "pcie.cpu-lanes"]
    assert f"the {chip} has no peer-to-peer" in shared.message
    assert "goes through host memory" in shared.message and "stay inside the switch" not in shared.message


def test_a_chip_the_catalog_marks_without_peer_to_peer_talks_through_host_memory(tmp_path: Path) -> None:
    import tomlkit

    chip = Catalog([builtin_dir()]).entry("gpu-chip", "rtx-3090").data
    (tmp_path / "gpu-chips.toml").write_text(tomlkit.dumps({"rtx-3090": {**chip, "p2p": False}}))
    catalog = Catalog([builtin_dir(), tmp_path])
    first, _ = _lanes(catalog)
    assert "the NVIDIA GeForce RTX 3090 has no peer-to-peer" in first.message
