"""The lab's money and time (issue 30): its parts list (each machine's parts times its count, the room's PDUs, UPS,
switch, NICs and cables), its totals by market with every price dated and sourced, electricity and cooling a year
through `planner tco`'s model, and cloud vs buy for the whole lab."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from planner.build.parts_list import parts_list
from planner.catalog import Catalog, builtin_dir
from planner.lab import params
from planner.lab.money import Line, Usage
from planner.lab.report import LabReport, check_lab
from planner.recommend.tco import cloud_vs_buy

from conftest import ROOT, example, run_cli

LABS = ROOT / "examples" / "labs"
CLOSET = LABS / "closet-eight-quad-3090.toml"  # 8 rigs, 4 AP8861 PDUs, X710 NICs, a CRS309 switch


def room_lines(report: LabReport, kind: str) -> list[Line]:
    return [line for line in report.money.lines if line.group == "room" and line.kind == kind]


def test_the_parts_list_has_every_machines_parts_times_its_count(catalog: Catalog) -> None:
    report = check_lab(CLOSET, catalog)
    from planner.api import load_build

    own = parts_list(load_build(example("real-lambda-quad-3090-1x1600-15a.toml"), catalog))
    rigs = [line for line in report.money.lines if line.group == "rig"]
    assert [(line.kind, line.part_id) for line in rigs] == [(r.kind, r.part_id) for r in own]
    assert [line.quantity for line in rigs] == [r.quantity * 8 for r in own]


def test_the_room_buys_its_pdus_switch_nics_and_a_cord_and_a_cable_per_machine(catalog: Catalog) -> None:
    report = check_lab(CLOSET, catalog)
    assert [(line.part_id, line.quantity) for line in room_lines(report, "pdu")] == [("apc-ap8861", 4)]
    assert [(line.part_id, line.quantity) for line in room_lines(report, "switch")] == [("mikrotik-crs309-1g-8s-in", 1)]
    assert [(line.part_id, line.quantity) for line in room_lines(report, "nic")] == [("intel-x710-da2", 8)]
    cables = {line.part_id: line.quantity for line in room_lines(report, "cable")}
    # the AX1600i has a C20 inlet: a C19-to-C20 cord from each PDU bank; a 10 GbE DAC from each X710 to the switch
    assert cables == {"generic-c20-c19-cord-6ft": 8, "generic-sfp-plus-dac-1m": 8}


def test_every_price_is_dated_and_sourced_and_estimates_say_so(catalog: Catalog) -> None:
    report = check_lab(LABS / "guide-mixed-208v-3ph.toml", catalog)
    priced = [line for line in report.money.lines if line.unit_price is not None]
    assert priced and all(line.price_date and line.price_source and line.market for line in priced)
    assert all(line.price_source.startswith("estimate") for line in priced  # type: ignore[union-attr]
               if line.estimated and line.group == "room")
    assert report.money.chosen.estimated == sum(line.estimated for line in priced)


def test_each_market_prices_a_part_at_its_own_price() -> None:
    catalog = Catalog([builtin_dir()])  # its market changes here: not the session's catalog
    report = check_lab(CLOSET, catalog)
    catalog.market = None  # the catalog's figures as written: the new price, and the used one beside it
    x710 = catalog.get("nic", "intel-x710-da2")
    assert x710.price is not None and x710.used_price is not None and x710.used_price < x710.price
    catalog.market = "new"
    new = check_lab(CLOSET, catalog)
    catalog.market = "used"
    used = check_lab(CLOSET, catalog)
    [nic_new] = room_lines(new, "nic")
    [nic_used] = room_lines(used, "nic")
    assert (nic_new.unit_price, nic_new.market) == (x710.price, "new")
    assert (nic_used.unit_price, nic_used.market) == (x710.used_price, "used")
    # the totals by market are the parts lists priced for each market, whatever the command's market is
    assert report.money.totals["new"].to_buy_usd == new.money.chosen.to_buy_usd
    assert report.money.totals["used"].to_buy_usd == used.money.chosen.to_buy_usd
    assert new.money.totals["used"] == used.money.chosen


def test_pricing_the_markets_leaves_the_catalogs_market_as_it_was() -> None:
    catalog = Catalog([builtin_dir()])
    catalog.market = "new"
    check_lab(CLOSET, catalog)
    assert catalog.market == "new"


def test_electricity_and_cooling_follow_the_tco_model_and_the_stated_cop(catalog: Catalog) -> None:
    usage = Usage.of(hours_per_day=8, electricity=0.12)
    report = check_lab(CLOSET, catalog, usage)
    energy = report.money.energy
    walls = sum(p["wall_w"] for p in report.plugs)
    assert energy.wall_w == pytest.approx(walls, abs=1)
    assert energy.kwh_per_year == pytest.approx(walls / 1000 * 8 * 365, rel=1e-3)
    assert energy.electricity_usd_per_year == pytest.approx(energy.kwh_per_year * 0.12, abs=0.01)
    assert energy.cooling_cop == params.COOLING_COP.value
    assert energy.cooling_kwh_per_year == pytest.approx(energy.kwh_per_year / params.COOLING_COP.value, rel=1e-3)
    assert energy.total_usd_per_year == pytest.approx(energy.electricity_usd_per_year + energy.cooling_usd_per_year)


def test_cloud_vs_buy_is_planner_tcos_for_the_lab_price_and_its_wall_draw_with_cooling(catalog: Catalog) -> None:
    usage = Usage.of(utilization=0.6, cloud_price=20)
    report = check_lab(CLOSET, catalog, usage)
    money = report.money
    assert money.cloud is not None
    power = money.energy.wall_w + money.energy.cooling_w
    expected = cloud_vs_buy(money.chosen.to_buy_usd, power, 24 * 0.6, usage.electricity_usd_per_kwh, 20)
    assert money.cloud.break_even_days == pytest.approx(expected.break_even_days, rel=1e-3)
    days = money.chosen.to_buy_usd / (24 * 0.6 * (20 - power / 1000 * usage.electricity_usd_per_kwh))
    assert money.cloud.break_even_days == pytest.approx(days, rel=1e-3)


def test_a_c14_psu_beyond_a_banks_c13_outlets_gets_a_c20_to_c13_cord(tmp_path: Path, catalog: Catalog) -> None:
    shutil.copy(example("pass-quad-3060-two-on-risers-frame.toml"), tmp_path / "dual.toml")  # a C14 inlet
    path = tmp_path / "lab.toml"
    path.write_text('[[machine]]\nname = "ws"\nbuild = "dual.toml"\ncount = 2\n'
                    '[[feed]]\nname = "f"\nvoltage = 208\nbreaker_a = 30\n'
                    '[[pdu]]\nname = "p"\nfeed = "f"\n[[pdu.bank]]\nname = "A"\nbreaker_a = 30\nc13 = 1\nc19 = 1\n',
                    encoding="utf-8")
    report = check_lab(path, catalog)
    cables = {line.part_id: line.quantity for line in room_lines(report, "cable")}
    assert cables == {"generic-c14-c13-cord-6ft": 1, "generic-c20-c13-cord-6ft": 1}
    # a PDU given by its banks has no catalog part: a row with no price, and the totals say they are a floor
    [pdu] = room_lines(report, "pdu")
    assert pdu.unit_price is None and pdu.name in report.money.chosen.unpriced
    assert any("floor" in note for note in report.money.notes)


def test_psus_on_wall_circuits_need_no_cord_and_an_onboard_nic_is_not_priced(catalog: Catalog) -> None:
    report = check_lab(LABS / "office-four-dual-4090.toml", catalog)
    assert room_lines(report, "cable") == [] and room_lines(report, "nic") == []
    assert any("10 Gbit/s NIC without a nics.toml part" in note for note in report.money.notes)


def test_owned_parts_are_counted_apart_from_what_to_buy(tmp_path: Path, catalog: Catalog) -> None:
    build = example("real-lambda-quad-3090-1x1600-15a.toml").read_text()
    assert "[[gpu]]" in build
    (tmp_path / "quad.toml").write_text(build.replace("[[gpu]]", "[[gpu]]\nowned = true", 1), encoding="utf-8")
    path = tmp_path / "lab.toml"
    path.write_text('[[machine]]\nname = "rig"\nbuild = "quad.toml"\ncount = 2\n'
                    '[[feed]]\nname = "f"\nvoltage = 208\nbreaker_a = 30\n[[pdu]]\nname = "p"\nfeed = "f"\n'
                    'part = "apc-ap8861"\n', encoding="utf-8")
    report = check_lab(path, catalog)
    [gpus] = [line for line in report.money.lines if line.group == "rig" and line.kind == "gpu"]
    assert gpus.owned == gpus.quantity == 8 and gpus.unit_price is not None
    chosen = report.money.chosen
    assert chosen.owned_usd == pytest.approx(gpus.unit_price * 8)
    assert chosen.all_usd == pytest.approx(chosen.to_buy_usd + chosen.owned_usd)


def test_your_price_file_prices_a_lab_part(tmp_path: Path) -> None:
    prices = tmp_path / "prices.toml"
    prices.write_text('[prices]\napc-ap8861 = { price = 300, date = "2026-11", note = "quote" }\n', encoding="utf-8")
    run = run_cli("lab", CLOSET, "--format", "json", "--prices", prices)
    assert run.code == 1, run.err  # the closet fails its cooling
    parts = json.loads(run.out)["money"]["parts"]
    [pdu] = [p for p in parts if p["part"] == "apc-ap8861"]
    assert (pdu["unit_usd"], pdu["market"], pdu["price_date"]) == (300, "yours", "2026-11")
    assert "prices.toml" in pdu["price_source"]


def test_the_json_contract_has_the_money(tmp_path: Path) -> None:
    run = run_cli("lab", CLOSET, "--format", "json", "--hours-per-day", "12", "--electricity", "0.2",
                  "--cloud-price", "16", "--market", "new")
    money = json.loads(run.out)["money"]
    assert set(money) == {"market", "parts", "totals", "energy", "cloud_vs_buy", "cloud_vs_buy_problem", "notes"}
    assert money["market"] == "new" and set(money["totals"]) == {"new", "used"}
    assert set(money["parts"][0]) == {"group", "kind", "part", "name", "quantity", "owned", "unit_usd", "line_usd",
                                      "market", "price_date", "price_source", "estimated", "stale"}
    assert set(money["totals"]["new"]) == {"market", "to_buy_usd", "owned_usd", "all_usd", "unpriced", "estimated",
                                           "oldest_price"}
    assert money["energy"]["hours_per_day"] == 12 and money["energy"]["electricity_usd_per_kwh"] == 0.2
    assert money["cloud_vs_buy"]["cloud_usd_per_hour"] == 16 and money["cloud_vs_buy"]["break_even_days"] > 0


def test_the_text_shows_the_money() -> None:
    run = run_cli("lab", CLOSET, "--cloud-price", "20")
    text = run.out
    assert "rig ×8:" in text and "to buy: $" in text and "by market: " in text
    assert "cooling it (COP 3.2)" in text and "the cloud at $20/h" in text


@pytest.mark.parametrize(("argv", "words"), [
    (["--utilization", "1.5"], "--utilization"),
    (["--hours-per-day", "25"], "--hours-per-day"),
    (["--electricity", "-1"], "--electricity"),
    (["--cloud-price", "-3"], "--cloud-price"),
])
def test_bad_usage_figures_are_one_sentence_and_exit_2(argv: list[str], words: str) -> None:
    run = run_cli("lab", CLOSET, *argv)
    assert run.code == 2 and words in run.err and len(run.err.strip().splitlines()) == 1
