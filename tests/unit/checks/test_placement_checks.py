"""The fit checks: case.expansion-slots, slot.overlap, slot.placement, slot.lanes, slot.sharing,
pcie.cpu-lanes, riser.mount, riser.signal — on small builds against the frozen test catalog, with the
numbers in the message and fixes that were verified by re-checking."""

from __future__ import annotations

from planner.build.edit import apply

from helpers import BASE, build, findings, gpus, report

# The test catalog's WRX80 board: seven x16 PCIe 4.0 slots PCIE1…PCIE7 at positions 1–7, in a 9-slot case.


def _board(slots: str, extra: str = "") -> str:
    """BASE with an inline motherboard on the WRX80's base but other slots."""
    return BASE.replace('motherboard = "asus-pro-ws-wrx80e-sage-se"',
                        f'motherboard = {{ base = "asus-pro-ws-wrx80e-sage-se", slots = [{slots}]{extra} }}')


def _slot(name: str, position: int, lanes: int = 16, size: int = 16, source: str = "cpu", shares: str = "",
          gen: int = 4) -> str:
    rule = f", shares = [{shares}]" if shares else ""
    return (f'{{ name = "{name}", position = {position}, size = {size}, lanes = {lanes}, gen = {gen}, '
            f'source = "{source}"{rule} }}')


def _case(**fields: int) -> str:
    body = ", ".join(f"{key} = {value}" for key, value in fields.items())
    return BASE.replace('case = "fractal-meshify-2-xl"', f'case = {{ base = "fractal-meshify-2-xl", {body} }}')


# -- slot.placement -------------------------------------------------------------------------------------
def test_four_3_slot_cards_do_not_fit_a_7_slot_board() -> None:
    [finding] = findings(BASE + gpus("nvidia-rtx-3090-fe", 4), "slot.placement")
    assert finding.severity == "error"
    assert "4 cards × 3 slots need 12 positions; this board and case offer 9" in finding.message
    assert (finding.value, finding.limit, finding.unit) == (12, 9, "positions")
    assert "GPU4" in finding.subject


def test_a_case_with_fewer_slots_than_the_coolers_reach_is_what_limits() -> None:
    [finding] = findings(_case(expansion_slots=8) + gpus("nvidia-rtx-3090-fe", 4), "slot.placement")
    assert "this board and case offer 8 (positions 1–8: the case has 8 expansion slots)" in finding.message


def test_the_slot_failure_offers_2_slot_blower_cards_verified() -> None:
    [finding] = findings(BASE + gpus("nvidia-rtx-3090-fe", 4), "slot.placement")
    first = finding.fixes[0]
    assert first.verified is True
    assert first.changes[0].path == "gpu[0].part" and first.changes[0].value == "gigabyte-rtx-3090-turbo"


def test_the_slot_failure_offers_a_bigger_case_when_a_bigger_case_helps() -> None:
    # three 3-slot cards need positions 1–9 (slots 1, 4, 7): an 8-slot case cannot, the 9-slot one can
    text = BASE.replace("fractal-meshify-2-xl", "phanteks-enthoo-pro-2") + gpus("nvidia-rtx-3090-fe", 3)
    [finding] = findings(text, "slot.placement")
    case_fixes = [f for f in finding.fixes if f.changes[0].path == "case"]
    assert case_fixes and case_fixes[0].changes[0].value == "fractal-meshify-2-xl" and case_fixes[0].verified


def test_two_open_air_cards_get_a_free_slot_between_them() -> None:
    mounts = report(BASE + gpus("nvidia-rtx-3090-fe", 2)).summary.gpus
    assert [(g.mount, g.positions) for g in mounts] == [("PCIE1", [1, 2, 3]), ("PCIE5", [5, 6, 7])]


def test_the_slots_the_build_file_names_are_kept() -> None:
    text = BASE + gpus("nvidia-rtx-3090-fe", 2, 'slot = ["PCIE2", "PCIE6"]')
    assert [g.mount for g in report(text).summary.gpus] == ["PCIE2", "PCIE6"]


def test_a_gpu_in_an_x1_slot_has_no_mount() -> None:
    text = _board(", ".join([_slot("PCIE1", 1), _slot("PCIEX1", 2, lanes=1, size=1)])) + \
        gpus("gigabyte-rtx-3090-turbo", 1, 'slot = "PCIEX1"')
    [finding] = findings(text, "slot.placement")
    assert "it is an x1 slot and a GPU needs an x16 slot" in finding.message
    assert finding.fixes and finding.fixes[0].changes[0].value == "PCIE1"


def test_an_estimated_layout_is_named_in_the_message() -> None:
    text = _board(", ".join(_slot(f"S{p}", p) for p in (1, 4)), ', estimated = ["slots"]') + \
        gpus("nvidia-rtx-3090-fe", 3)
    [finding] = findings(text, "slot.placement")
    assert "slot positions of this board are estimated; check its manual" in finding.message


# -- slot.overlap and case.expansion-slots ---------------------------------------------------------------
def test_a_named_slot_under_another_cards_cooler_is_an_overlap_with_a_verified_fix() -> None:
    text = BASE + gpus("nvidia-rtx-3090-fe", 2, 'slot = ["PCIE1", "PCIE2"]')
    [finding] = findings(text, "slot.overlap")
    assert finding.severity == "error"
    assert "GPU1 (nvidia-rtx-3090-fe)'s cooler in PCIE1 covers positions 1–3, including PCIE2" in finding.message
    [fix] = finding.fixes
    assert fix.verified and fix.changes[0].value == ["PCIE1", "PCIE5"]


def test_a_cooler_past_the_case_is_an_expansion_slots_error() -> None:
    text = _case(expansion_slots=8) + gpus("nvidia-rtx-3090-fe", 1, 'slot = "PCIE7"')
    [finding] = findings(text, "case.expansion-slots")
    assert "covers positions 7–9, but the Fractal Design Meshify 2 XL has 8 expansion slots" in finding.message
    assert (finding.value, finding.limit) == (9, 8)
    assert finding.fixes[0].verified and finding.fixes[0].changes[0].value == "PCIE1"


def test_the_solver_never_runs_a_cooler_past_the_case() -> None:
    assert findings(_case(expansion_slots=8) + gpus("nvidia-rtx-3090-fe", 2), "case.expansion-slots") == []


# -- lanes ------------------------------------------------------------------------------------------------
def test_a_pcie_4_x8_slot_is_stated_with_its_cost_not_warned() -> None:
    text = _board(_slot("PCIE1", 1, lanes=8)) + gpus("nvidia-rtx-3090-fe")
    [finding] = findings(text, "slot.lanes")
    assert finding.severity == "info"
    assert "GPU1 runs at x8 of its x16 lanes (PCIE1 is wired x8)" in finding.message
    assert "15.8 GB/s each way instead of 31.5 GB/s" in finding.message
    assert (finding.value, finding.limit) == (8, 16)


def test_a_pcie_3_x8_slot_warns_with_the_expected_cost() -> None:
    text = _board(_slot("PCIE1", 1, lanes=8, gen=3)) + gpus("nvidia-rtx-3090-fe")
    [finding] = findings(text, "slot.lanes")
    assert finding.severity == "warning" and "7.9 GB/s each way" in finding.message


def test_an_x4_slot_warns_whatever_its_generation() -> None:
    text = _board(_slot("PCIE1", 1, lanes=4, gen=5)) + gpus("nvidia-rtx-3090-fe")
    [finding] = findings(text, "slot.lanes")
    assert finding.severity == "warning"


def test_a_gpu_below_x4_is_an_error() -> None:
    text = _board(_slot("PCIE1", 1, lanes=2, source="chipset")) + gpus("nvidia-rtx-3090-fe")
    [finding] = findings(text, "slot.lanes")
    assert finding.severity == "error" and "chipset slot wired x2" in finding.message


def test_the_solver_prefers_x16_slots() -> None:
    slots = ", ".join([_slot("A", 1, lanes=8), _slot("B", 3), _slot("C", 5, lanes=8), _slot("D", 7)])
    assert [g.mount for g in report(_board(slots) + gpus("gigabyte-rtx-3090-turbo", 2)).summary.gpus] == ["B", "D"]


def test_a_sharing_rule_that_narrows_a_used_pcie_4_slot_to_x8_is_stated() -> None:
    slots = ", ".join([_slot("A", 1, shares='{ when_used = "B", lanes = 8 }'), _slot("B", 4, lanes=8)])
    [finding] = findings(_board(slots) + gpus("gigabyte-rtx-3090-turbo", 2), "slot.sharing")
    assert finding.severity == "info"
    assert "A drops from x16 to x8 because B (GPU2) is used, so GPU1 runs at x8" in finding.message


def test_a_sharing_rule_that_narrows_a_used_pcie_3_slot_warns() -> None:
    slots = ", ".join([_slot("A", 1, shares='{ when_used = "B", lanes = 8 }', gen=3), _slot("B", 4, lanes=8, gen=3)])
    [finding] = findings(_board(slots) + gpus("gigabyte-rtx-3090-turbo", 2), "slot.sharing")
    assert finding.severity == "warning"


def test_a_sharing_rule_that_switches_off_a_named_slot_is_an_error() -> None:
    slots = ", ".join([_slot("A", 1), _slot("B", 3, shares='{ when_used = "A", lanes = 0 }'), _slot("C", 5)])
    text = _board(slots) + gpus("gigabyte-rtx-3090-turbo", 2, 'slot = ["A", "B"]')
    [finding] = findings(text, "slot.sharing")
    assert finding.severity == "error" and "B is switched off when A (GPU1) is used" in finding.message
    assert finding.fixes[0].verified and finding.fixes[0].changes[0].value == ["A", "C"]


def test_the_solver_avoids_a_slot_a_sharing_rule_would_switch_off() -> None:
    slots = ", ".join([_slot("A", 1), _slot("B", 3, shares='{ when_used = "A", lanes = 0 }'), _slot("C", 5)])
    assert [g.mount for g in report(_board(slots) + gpus("gigabyte-rtx-3090-turbo", 2)).summary.gpus] == ["A", "C"]


def test_a_sharing_rule_on_an_m2_socket_is_mentioned_not_assumed() -> None:
    slots = _slot("A", 1, shares='{ when_used = "M.2_1", lanes = 8 }')
    [finding] = findings(_board(slots) + gpus("nvidia-rtx-3090-fe"), "slot.sharing")
    assert finding.severity == "info" and "leave M.2_1 empty to keep x16" in finding.message
    assert report(_board(slots) + gpus("nvidia-rtx-3090-fe")).summary.gpus[0].lanes == 16


def test_more_gpu_lanes_than_the_cpu_has_warns() -> None:
    text = BASE.replace('cpu = "amd-threadripper-pro-5975wx"',
                        'cpu = { base = "amd-threadripper-pro-5975wx", pcie_lanes = 40 }') + \
        gpus("gigabyte-rtx-3090-turbo", 3)
    [finding] = findings(text, "pcie.cpu-lanes")
    assert finding.severity == "warning"
    assert "want 48 lanes (3 × x16)" in finding.message and (finding.value, finding.limit) == (48, 40)


# -- risers -----------------------------------------------------------------------------------------------
RISER = 'riser = "linkup-pcie4-riser-200mm"'


def test_a_riser_cable_needs_a_vertical_mount() -> None:
    [finding] = findings(BASE + gpus("nvidia-rtx-3090-fe", 1, RISER), "riser.mount")
    assert finding.severity == "error"
    assert "1 card on riser cables needs 1 vertical/remote mount; the case has 0" in finding.message
    assert any(f.verified and f.changes[0].path == "gpu" for f in finding.fixes)  # off the riser: it fits a slot


def test_cards_on_risers_sit_on_mounts_and_their_plugs_take_a_slot() -> None:
    text = _case(vertical_gpu_mounts=2) + gpus("nvidia-rtx-3090-fe", 2) + gpus("nvidia-rtx-3090-fe", 2, RISER)
    summary = report(text).summary
    assert [g.mount for g in summary.gpus[2:]] == ["vertical-1", "vertical-2"]
    assert all(g.positions == [] and g.lanes == 16 for g in summary.gpus[2:])
    assert findings(text, "slot.placement") == []


def test_a_gen4_link_over_a_gen3_riser_warns_with_the_path() -> None:
    text = _case(vertical_gpu_mounts=1) + gpus(
        "nvidia-rtx-3090-fe", 1, 'riser = { base = "linkup-pcie4-riser-200mm", pcie_gen = 3 }')
    [finding] = findings(text, "riser.signal")
    assert finding.severity == "warning"
    assert "PCIe 4.0 link runs over the LINKUP" in finding.message and "rated for PCIe 3.0 only" in finding.message
    assert "(CPU → PCIE1 → riser → GPU1)" in finding.message


def test_a_long_passive_gen4_ribbon_riser_warns() -> None:
    text = _case(vertical_gpu_mounts=1) + gpus(
        "nvidia-rtx-3090-fe", 1, 'riser = { base = "linkup-pcie4-riser-200mm", length = "500 mm" }')
    [finding] = findings(text, "riser.signal")
    assert "it is a 500 mm passive ribbon riser" in finding.message


def test_a_fix_changes_only_the_build_data_it_names() -> None:
    resolved = build(BASE + gpus("nvidia-rtx-3090-fe", 4))
    [finding] = [f for f in report(BASE + gpus("nvidia-rtx-3090-fe", 4)).findings if f.code == "slot.placement"]
    changed = apply(resolved.raw, finding.fixes[0].changes)
    assert changed["gpu"][0]["part"] == "gigabyte-rtx-3090-turbo" and changed["case"] == resolved.raw["case"]


def test_more_gpus_than_full_length_slots_is_said_with_the_counts() -> None:
    [finding] = findings(BASE + gpus("gigabyte-rtx-3090-turbo", 8), "slot.placement")
    assert "8 cards need 8 full-length slots; this board has 7" in finding.message


def test_the_slot_failure_offers_risers_to_the_mounts_this_case_has() -> None:
    [finding] = findings(_case(vertical_gpu_mounts=2) + gpus("nvidia-rtx-3090-fe", 4), "slot.placement")
    [riser_fix] = [f for f in finding.fixes if "riser cables" in f.description]
    assert riser_fix.verified
    assert riser_fix.description.startswith("put 2 of the 4 NVIDIA GeForce RTX 3090 Founders Edition on riser cables")
    assert riser_fix.description.endswith("to vertical mounts (this case has 2)")
    [change] = riser_fix.changes
    assert change.path == "gpu" and [t.get("count") for t in change.value] == [2, 2]
    assert change.value[1]["riser"] == "linkup-pcie4-riser-200mm"
