"""`planner lab` (issue 30): the lab's checks and their verified fixes, the JSON contract, bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from planner.catalog import Catalog
from planner.lab.report import LabReport, check_lab

from conftest import example, run_cli

QUAD = "real-lambda-quad-3090-1x1600-15a.toml"  # 4× RTX 3090 on one 1600 W PSU (C20 inlet): ~1.6 kW at the wall

PDU_1PH = """
[[feed]]
name = "rack"
voltage = 208
breaker_a = 40

[[pdu]]
name = "pdu"
feed = "rack"
[[pdu.bank]]
name = "A"
breaker_a = 20
c13 = 4
c19 = 2
[[pdu.bank]]
name = "B"
breaker_a = 20
c13 = 4
c19 = 2
[[pdu.bank]]
name = "C"
breaker_a = 20
c13 = 4
c19 = 2
"""

PDU_3PH = """
[[feed]]
name = "rack"
voltage = 208
phases = 3
wiring = "delta"
breaker_a = 50

[[pdu]]
name = "pdu"
feed = "rack"
[[pdu.bank]]
name = "A"
phase = "L1-L2"
breaker_a = 30
c19 = 3
[[pdu.bank]]
name = "B"
phase = "L2-L3"
breaker_a = 30
c19 = 3
[[pdu.bank]]
name = "C"
phase = "L3-L1"
breaker_a = 30
c19 = 3
"""


def lab(tmp_path: Path, body: str, count: int = 3, extra: str = "") -> Path:
    shutil.copy(example(QUAD), tmp_path / "quad.toml")
    path = tmp_path / "lab.toml"
    path.write_text(f'name = "test lab"\n\n[[machine]]\nname = "m"\nbuild = "quad.toml"\ncount = {count}\n'
                    f"nic_gbps = 100\n{extra}\n{body}", encoding="utf-8")
    return path


def plugs(*pairs: tuple[str, str]) -> str:
    return "".join(f'\n[[plug]]\nmachine = "{m}"\npsu = 1\ninto = "{into}"\n' for m, into in pairs)


def codes(report: LabReport) -> dict[str, str]:
    return {f.code: f.severity for f in report.findings}


def finding(report: LabReport, code: str):  # type: ignore[no-untyped-def]
    return next(f for f in report.findings if f.code == code)


def test_a_bank_over_its_breaker_fails_with_a_verified_move(tmp_path: Path, catalog: Catalog) -> None:
    path = lab(tmp_path, PDU_1PH + plugs(("m-1", "pdu/A"), ("m-2", "pdu/A"), ("m-3", "pdu/B")))
    report = check_lab(path, catalog)
    bank = finding(report, "lab.bank")
    assert bank.severity == "error" and bank.subject == ["pdu/A"] and report.verdict == "fail"
    assert bank.value is not None and bank.limit == pytest.approx(208 * 20 * 0.8)
    assert bank.value > bank.limit
    move = bank.fixes[0]
    assert move.verified is True and move.changes[0].path.startswith("plug[m-") and move.changes[0].value == "pdu/C"
    # every fix offered with changes was re-checked on the changed lab
    assert all(f.verified for f in bank.fixes if f.changes)
    assert any("power_limit" in c.path for f in bank.fixes for c in f.changes)  # power limits clear it too


def test_a_line_over_its_breaker_fails(tmp_path: Path, catalog: Catalog) -> None:
    body = PDU_1PH.replace("breaker_a = 40", "breaker_a = 20")  # 16 A continuous on the feed: one machine
    report = check_lab(tmp_path and lab(tmp_path, body + plugs(("m-1", "pdu/A"), ("m-2", "pdu/B")), count=2),
                       catalog)
    line = finding(report, "lab.line")
    assert line.severity == "error" and line.subject == ["rack:L1"]
    assert line.limit == pytest.approx(16.0)
    limit = [f for f in line.fixes if any("power_limit" in c.path for c in f.changes)]
    assert limit and limit[0].verified is True


def test_an_unbalanced_three_phase_feed_warns_with_the_balancing_reassignment(tmp_path: Path,
                                                                             catalog: Catalog) -> None:
    path = lab(tmp_path, PDU_3PH + plugs(("m-1", "pdu/A"), ("m-2", "pdu/A"), ("m-3", "pdu/B")))
    report = check_lab(path, catalog)
    assert codes(report).get("lab.bank") is None  # each bank holds: only the phases are off
    balance = finding(report, "lab.phase-balance")
    assert balance.severity == "warning" and balance.subject == ["rack"]
    assert balance.value is not None and balance.value > 0.2
    fix = balance.fixes[0]
    assert fix.verified is True
    assert [c.value for c in fix.changes] == ["pdu/C"]  # one PSU moved to the empty line pair
    assert report.imbalance["rack"] == balance.value


def test_the_planner_assigns_unplugged_psus_balanced(tmp_path: Path, catalog: Catalog) -> None:
    report = check_lab(lab(tmp_path, PDU_3PH), catalog)
    assert sorted(p["into"] for p in report.plugs) == ["pdu/A", "pdu/B", "pdu/C"]
    assert all(p["assigned_by"] == "planner" for p in report.plugs)
    assert report.imbalance["rack"] == pytest.approx(0, abs=1e-3)
    assert "lab.phase-balance" not in codes(report)


UPS = """
[[ups]]
name = "ups"
va = {va}
w = {w}
runtime = [[1000, 30], [2000, 14], [4000, 5], [5000, 3]]
shutdown_minutes = {minutes}
feeds = ["pdu"]
"""


def test_a_ups_under_its_load_fails(tmp_path: Path, catalog: Catalog) -> None:
    report = check_lab(lab(tmp_path, PDU_1PH + UPS.format(va=5000, w=4000, minutes=2)), catalog)
    ups = finding(report, "lab.ups-load")
    assert ups.severity == "error" and ups.subject == ["ups"] and report.verdict == "fail"
    assert ups.value is not None and ups.limit is not None and ups.value > ups.limit
    assert any(f.verified for f in ups.fixes)  # power limits that bring it under


def test_a_ups_short_of_the_shutdown_time_fails(tmp_path: Path, catalog: Catalog) -> None:
    report = check_lab(lab(tmp_path, PDU_1PH + UPS.format(va=6000, w=5400, minutes=10), count=2), catalog)
    assert "lab.ups-load" not in codes(report)
    runtime = finding(report, "lab.ups-runtime")
    assert runtime.severity == "error" and runtime.value is not None and runtime.value < 10


def test_heat_beyond_the_room_fails(tmp_path: Path, catalog: Catalog) -> None:
    cooling = '\n[cooling]\nkind = "room"\nremoval_btu_h = 12000\nsource = "a 1-ton mini-split"\n'
    report = check_lab(lab(tmp_path, PDU_1PH + cooling), catalog)
    heat = finding(report, "lab.cooling")
    assert heat.severity == "error" and heat.limit == pytest.approx(12000 / 3.412142, abs=0.1)
    assert "BTU/h" in heat.message


def test_multi_node_training_on_10_gbe_warns_with_the_nic_and_switch_fix(tmp_path: Path, catalog: Catalog) -> None:
    net = ('\n[network]\nswitch_gbps = 10\nswitch_ports = 8\n[network.training]\nmachines = ["m"]\n'
           "params_b = 7\nstep_s = 4\n")
    path = lab(tmp_path, PDU_1PH + net, count=2)
    path.write_text(path.read_text().replace("nic_gbps = 100", "nic_gbps = 10"))
    report = check_lab(path, catalog)
    net_finding = finding(report, "lab.network")
    # 7 B parameters of bf16 gradients, ring all-reduce between 2 machines: 112 Gbit a step, in half of a 4 s step
    assert net_finding.severity == "warning" and net_finding.limit == pytest.approx(56)
    fix = net_finding.fixes[0]
    assert fix.verified is True
    assert {(c.path, c.value) for c in fix.changes} == {("machine[m].nic_gbps", 100), ("network.switch_gbps", 100)}


def test_the_floor_applies_to_small_models(tmp_path: Path, catalog: Catalog) -> None:
    net = '\n[network]\nswitch_gbps = 25\n[network.training]\nmachines = ["m"]\nparams_b = 0.1\nstep_s = 1\n'
    report = check_lab(lab(tmp_path, PDU_1PH + net, count=2), catalog)
    assert report.network["need_gbps"] == 50 and report.network["estimate_gbps"] < 50
    assert codes(report)["lab.network"] == "warning"  # the switch's 25 Gbit/s is under the guide's floor


def test_blower_cards_in_an_office_warn(tmp_path: Path, catalog: Catalog) -> None:
    report = check_lab(lab(tmp_path, PDU_1PH, count=1, extra='place = "office"'), catalog)
    noise = finding(report, "lab.noise")
    assert noise.severity == "warning" and noise.fixes[0].verified is True


def test_json_contract_and_exit_codes(tmp_path: Path) -> None:
    path = lab(tmp_path, PDU_1PH + plugs(("m-1", "pdu/A"), ("m-2", "pdu/A"), ("m-3", "pdu/B")))
    run = run_cli("lab", path, "--format", "json")
    assert run.code == 1
    data = json.loads(run.out)
    assert data["verdict"] == "fail"
    assert data["machines"][0]["report"]["summary"]["psus"]  # each machine's own report, as `check` gives it
    for key in ("banks", "lines"):
        for row in data[key]:
            assert set(row) == {"id", "kind", "load", "limit", "unit", "margin"}
    assert data["banks"][0]["id"] == "pdu/A" and data["banks"][0]["margin"] < 0
    assert {p["psu"] for p in data["plugs"]} == {"m-1:1", "m-2:1", "m-3:1"}


@pytest.mark.parametrize(("body", "words"), [
    ('name = "x"\n[[machine]]\nname = "m"\nbuild = "quad.toml"\ncoutn = 2\n', ["lab.toml:5", "coutn", "count"]),
    ('[[machine]]\nname = "m"\nbuild = "/etc/passwd.toml"\n', ["lab.toml:3", "relative"]),
    ('[[machine]]\nname = "m"\nbuild = "missing.toml"\n[[circuit]]\nname = "c"\noutlet = "nema-5-20"\n',
     ["lab.toml:3", "not found"]),
    ('[[machine]]\nname = "m"\nbuild = "quad.toml"\n[[circuit]]\nname = "c"\noutlet = "nema-9-99"\n',
     ["lab.toml:6", "unknown outlet"]),
    ('[[machine]]\nname = "m"\nbuild = "quad.toml"\n[[circuit]]\nname = "c"\noutlet = "nema-5-20"\n'
     '[[plug]]\nmachine = "m"\ninto = "nowhere"\n', ["lab.toml:9", "nowhere"]),
])
def test_bad_input_is_one_sentence_and_exit_2(tmp_path: Path, body: str, words: list[str]) -> None:
    shutil.copy(example(QUAD), tmp_path / "quad.toml")
    path = tmp_path / "lab.toml"
    path.write_text(body, encoding="utf-8")
    run = run_cli("lab", path)
    assert run.code == 2
    assert len(run.err.strip().splitlines()) == 1
    for word in words:
        assert word in run.err


def test_an_inline_build_is_checked_and_its_errors_name_the_lab_file(tmp_path: Path, catalog: Catalog) -> None:
    build = ('[machine.build]\ncase = "fractal-meshify-2-xl"\nmotherboard = "asus-pro-ws-wrx80e-sage-se"\n'
             'cpu = "amd-threadripper-pro-5975wx"\n[[machine.build.psu]]\npart = "corsair-ax1600i"\n'
             '[[machine.build.gpu]]\npart = "gigabyte-rtx-3090-turbo"\ncount = 2\n')
    path = tmp_path / "lab.toml"
    path.write_text('[[machine]]\nname = "box"\ncount = 2\n' + build + PDU_1PH, encoding="utf-8")
    report = check_lab(path, catalog)
    assert report.machines[0].instances == ["box-1", "box-2"]
    assert report.machines[0].report.summary.psus[0].load_w
    path.write_text(path.read_text().replace('part = "gigabyte', 'prt = "gigabyte'), encoding="utf-8")
    run = run_cli("lab", path)
    assert run.code == 2 and "lab.toml:11: machine[0].build.gpu[0].prt: unknown key 'prt'" in run.err


def test_two_workstations_on_one_wall_branch_fail_with_a_move_to_the_free_branch(tmp_path: Path,
                                                                                 catalog: Catalog) -> None:
    shutil.copy(example("warn-dual-4090-fe-x670e.toml"), tmp_path / "dual.toml")
    path = tmp_path / "lab.toml"
    path.write_text('[[machine]]\nname = "ws"\nbuild = "dual.toml"\ncount = 2\n'
                    '[[circuit]]\nname = "a"\noutlet = "nema-5-20"\n[[circuit]]\nname = "b"\noutlet = "nema-5-20"\n'
                    + plugs(("ws-1", "a"), ("ws-2", "a")), encoding="utf-8")
    report = check_lab(path, catalog)
    branch = finding(report, "lab.circuit")
    assert branch.severity == "error" and branch.subject == ["a"] and branch.limit == pytest.approx(1920)
    assert branch.fixes[0].verified is True and branch.fixes[0].changes[0].value == "b"
