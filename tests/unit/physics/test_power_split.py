"""Which PSU feeds which GPU, and the bottleneck the delivery network's minimum cut names when no split
works (README: DC budget, docs/verdicts.md psu.split)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.physics.delivery import power_split
from planner.physics.delivery_graph import bottleneck
from planner.physics.power import dc_budget

from conftest import example, run_cli
from helpers import build, findings, gpus

HEAD = """
case = "fractal-meshify-2-xl"
motherboard = "asus-pro-ws-wrx80e-sage-se"
cpu = "amd-threadripper-pro-5975wx"
"""
TWO_CIRCUITS = """
[[circuit]]
name = "desk"
outlet = "nema-5-20"
[[circuit]]
name = "hall"
outlet = "nema-5-20"
"""
REST = 280 + 50 + 4 * 3 + 2 * 7 + 4 * 3  # CPU, board, 4 DIMMs, 2 drives, 4 fans: 368 W on the board's PSU


def psus(*parts: str, circuits: tuple[str, ...] = ("desk", "hall")) -> str:
    """[[psu]] tables, each on the circuit at the same position of `circuits`."""
    pairs = zip(parts, circuits, strict=False)
    return "".join(f'[[psu]]\npart = {part}\ncircuit = "{circuit}"\n' for part, circuit in pairs)


def split_of(text: str):  # type: ignore[no-untyped-def]
    resolved = build(text)
    return power_split(resolved, dc_budget(resolved))


def bottleneck_of(text: str):  # type: ignore[no-untyped-def]
    resolved = build(text)
    return bottleneck(resolved, dc_budget(resolved))


# -- the split --------------------------------------------------------------------------------------------------
def test_one_psu_feeds_everything() -> None:
    text = HEAD + TWO_CIRCUITS + psus('"corsair-ax1600i"') + gpus("gigabyte-rtx-3090-turbo", 2)
    [share] = split_of(text).psus
    assert share.gpus == (0, 1) and share.load == 700 + REST


def test_two_psus_share_four_cards_two_and_two() -> None:
    text = HEAD + TWO_CIRCUITS + psus('"corsair-ax1600i"', '"corsair-hx1000"') + gpus("gigabyte-rtx-3090-turbo", 4)
    split = split_of(text)
    assert [s.gpus for s in split.psus] == [(0, 1), (2, 3)]
    assert [s.load for s in split.psus] == [700 + REST, 700]
    assert split.feasible


def test_the_dual_psu_example_puts_two_cards_on_each_psu_and_each_circuit_under_its_limit() -> None:
    [result] = json.loads(run_cli("check", example("warn-dual-psu-two-circuits.toml"), "--format", "json").out)
    summary = result["summary"]
    assert [p["gpus"] for p in summary["psus"]] == [["GPU1", "GPU2"], ["GPU3", "GPU4"]]
    # 600 W + 200 W EPYC + 50 + 8 × 3 + 7 + 3 × 3 = 890 W on a Platinum HX1500i at 59 %, 120 V:
    # 92 − 3 × 9.33/50 = 91.44 % → 973.3 W; 600 W on a Gold RM1000x at 60 %: 90 − 3 × 10/50 = 89.4 % → 671.1 W
    assert [p["load_w"] for p in summary["psus"]] == [890, 600]
    assert [c["wall_w"] for c in summary["circuits"]] == [973.3, 671.1]


def test_a_psu_pin_is_respected() -> None:
    text = HEAD + TWO_CIRCUITS + psus('"corsair-ax1600i"', '"corsair-hx1000"') + \
        gpus("gigabyte-rtx-3090-turbo", 2, "psu = 2")
    assert [s.gpus for s in split_of(text).psus] == [(), (0, 1)]


def test_a_card_without_power_inputs_draws_from_the_board_psu() -> None:
    slot_card = ('[[gpu]]\npart = { base = "nvidia-rtx-3090-fe", power_connectors = ["none"], tdp = 70,'
                 ' power_limit_min = 50, power_limit_max = 75 }\npsu = 2\n')
    text = HEAD + TWO_CIRCUITS + psus('"corsair-ax1600i"', '"corsair-hx1000"') + slot_card
    assert [s.gpus for s in split_of(text).psus] == [(0,), ()]


def test_cards_go_where_there_are_plugs_for_them() -> None:
    few_plugs = '{ base = "corsair-hx1000", connectors = { "pcie-8pin" = 2, "eps-8pin" = 2 } }'
    text = HEAD + TWO_CIRCUITS + psus(few_plugs, '"corsair-hx1000"') + gpus("gigabyte-rtx-3090-turbo", 3)
    split = split_of(text)
    assert [s.gpus for s in split.psus] == [(0,), (1, 2)]
    assert split.feasible


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(counts=st.lists(st.integers(1, 4), min_size=1, max_size=3), extra_psus=st.integers(0, 2),
       limit=st.sampled_from([200, 250, 300, 350]))
def test_every_gpu_is_fed_by_exactly_one_psu_and_the_loads_add_up(counts: list[int], extra_psus: int,
                                                                  limit: int) -> None:
    text = HEAD + TWO_CIRCUITS + psus(*['"corsair-hx1000"'] * (1 + extra_psus), circuits=("desk", "hall", "hall"))
    for count in counts:
        text += gpus("gigabyte-rtx-3090-turbo", count, f'power_limit = "{limit} W"')
    resolved = build(text)
    split = power_split(resolved, dc_budget(resolved))
    fed = sorted(g for share in split.psus for g in share.gpus)
    assert fed == list(range(len(resolved.gpus)))
    assert sum(s.load for s in split.psus) == dc_budget(resolved).total


# -- the bottleneck: max-flow / min-cut (acceptance 3) -------------------------------------------------------------
def test_min_cut_names_the_circuit_when_both_psus_share_one_15_a_outlet() -> None:
    # 4 × 350 W + 368 W = 1,768 W DC; a NEMA 5-15's breaker holds 1,800 W × 89 % (Platinum at full load) = 1,602 W DC
    text = HEAD + '[[circuit]]\nname = "office"\noutlet = "nema-5-15"\n' + \
        psus('"corsair-hx1000"', '"corsair-hx1000"', circuits=("office", "office")) + \
        gpus("gigabyte-rtx-3090-turbo", 4)
    found = bottleneck_of(text)
    assert found is not None and found.kind == "circuit"
    assert [n.split(" (")[0] for n in found.names] == ["circuit 'office'"]
    assert (found.wanted, round(found.deliverable, 1)) == (1768, 1602.0)
    [finding] = findings(text, "psu.split")
    assert "the bottleneck is circuit 'office'" in finding.message


def test_min_cut_names_the_psu_the_cards_are_pinned_to() -> None:
    # all four cards pinned to the 1,000 W PSU 2: only 1,000 W of their 1,400 W can flow
    text = HEAD + TWO_CIRCUITS + psus('"corsair-ax1600i"', '"corsair-hx1000"') + \
        gpus("gigabyte-rtx-3090-turbo", 4, "psu = 2")
    found = bottleneck_of(text)
    assert found is not None and found.kind == "psu"
    assert found.names == ("PSU 2 (Corsair HX1000 (2017), 1,000 W)",)
    assert (found.wanted, found.deliverable) == (1768, 1000 + REST)
    [finding] = findings(text, "psu.split")
    assert "the bottleneck is PSU 2" in finding.message


def test_min_cut_names_the_pcie_plugs_when_the_psus_have_too_few() -> None:
    # three cards × two 8-pin inputs = 6 plugs; the two units have 2 each (plus the CPU's EPS plug, 2 units)
    few_plugs = '{ base = "corsair-hx1000", connectors = { "pcie-8pin" = 2, "eps-8pin" = 2 } }'
    text = HEAD + TWO_CIRCUITS + psus(few_plugs, few_plugs) + \
        gpus("gigabyte-rtx-3090-turbo", 3, 'power_limit = "200 W"')
    found = bottleneck_of(text)
    assert found is not None and found.kind == "connectors"
    assert [n.split(" (")[0] for n in found.names] == ["the PCIe 8-pin plugs of PSU 1", "the PCIe 8-pin plugs of PSU 2"]
    assert (found.wanted, found.deliverable) == (6 + 2, 4 + 2)
    [finding] = findings(text, "psu.split")
    assert "the bottleneck is the PCIe 8-pin plugs of PSU 1" in finding.message


def test_when_watts_and_plugs_suffice_in_total_the_finding_says_whole_cards_do_not_split() -> None:
    # 3 × 4090 at 450 W + 368 W = 1,718 W ≤ 1,000 + 850 W, yet no whole-card split keeps both units in rating
    small = '{ base = "corsair-hx1000", wattage = 850, connectors = { "pcie-8pin" = 4, "eps-8pin" = 2 } }'
    text = HEAD + TWO_CIRCUITS + psus('"corsair-hx1000"', small) + gpus("nvidia-rtx-4090-fe", 3)
    assert bottleneck_of(text) is None
    [finding] = findings(text, "psu.split")
    assert "whole cards cannot be shared out" in finding.message


def test_a_feasible_split_has_no_psu_split_finding() -> None:
    text = HEAD + TWO_CIRCUITS + psus('"corsair-ax1600i"', '"corsair-hx1000"') + gpus("gigabyte-rtx-3090-turbo", 4)
    assert findings(text, "psu.split") == []


def test_unpinning_is_offered_and_verified_when_pins_cause_the_bottleneck() -> None:
    text = HEAD + TWO_CIRCUITS + psus('"corsair-ax1600i"', '"corsair-hx1000"') + \
        gpus("gigabyte-rtx-3090-turbo", 4, "psu = 2")
    [finding] = findings(text, "psu.split")
    unpin = finding.fixes[0]
    assert unpin.verified is True and unpin.changes[0].path == "gpu"
    assert "psu" not in unpin.changes[0].value[0]


def test_a_one_psu_build_that_fails_on_power_never_imports_networkx(tmp_path: Path) -> None:
    # its fixes include a second circuit with a second PSU: checking that candidate must not load networkx
    # (in a case with a second PSU mount: a one-bay case rejects that fix with case.psu-bays)
    path = tmp_path / "quad.toml"
    path.write_text(example("fail-psu-quad-3090-fe-1600w.toml").read_text()
                    .replace('"nvidia-rtx-3090-fe"', '"gigabyte-rtx-3090-turbo"')
                    .replace('"fractal-meshify-2-xl"', '"thermaltake-core-w200"'))
    probe = ("import contextlib, io, json, sys\nfrom planner.cli.main import main\n"
             "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
             f"    main(['check', {str(path)!r}, '--format', 'json'])\n"
             "fixes = [x['description'] for f in json.loads(out.getvalue())[0]['findings'] for x in f['fixes']]\n"
             "print(json.dumps(['networkx' in sys.modules, any('second PSU' in d for d in fixes)]))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert json.loads(result.stdout.strip().splitlines()[-1]) == [False, True]


def test_past_the_candidate_limit_the_greedy_split_still_feeds_every_card_within_rating() -> None:
    # 3 kinds × 4 cards over 4 PSUs: 35³ = 42,875 ways, above SPLIT_MAX_CANDIDATES
    text = HEAD + TWO_CIRCUITS.replace("nema-5-20", "nema-6-20") + \
        psus(*['"corsair-ax1600i"'] * 4, circuits=("desk", "desk", "hall", "hall"))
    for limit in (200, 250, 300):
        text += gpus("gigabyte-rtx-3090-turbo", 4, f'power_limit = "{limit} W"')
    split = split_of(text)
    assert split.feasible
    assert all(s.load <= s.rating * 0.8 for s in split.psus)
    assert sorted(g for s in split.psus for g in s.gpus) == list(range(12))
