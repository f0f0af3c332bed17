"""Cloud vs buy (planner/recommend/tco.py and `planner tco`)."""

from __future__ import annotations

import json

import pytest

from planner.recommend.tco import cloud_vs_buy

from conftest import example, run_cli


def test_dettmers_desktop_uses_591_kwh_a_year_and_pays_off_after_293_days() -> None:
    # $2,200 desktop, 350 W GPU + 100 W CPU, 15 % utilisation, $0.12/kWh, cloud V100 at $2.14/h
    tco = cloud_vs_buy(2200, 450, 24 * 0.15, 0.12, 2.14)
    assert tco.kwh_per_year == pytest.approx(591.3, abs=0.1)
    assert tco.electricity_usd_per_year == pytest.approx(70.96, abs=0.01)
    assert tco.break_even_days == pytest.approx(2200 / (3.6 * (2.14 - 0.45 * 0.12)), abs=0.1)  # 293.0


def test_renting_wins_when_an_hour_in_the_cloud_costs_less_than_the_electricity() -> None:
    tco = cloud_vs_buy(2000, 1000, 8, 0.40, 0.30)
    assert tco.break_even_days is None and "renting is cheaper" in tco.verdict


def test_tco_json_has_break_even_days_and_yearly_energy() -> None:
    result = run_cli("tco", "--hardware-cost", "2200", "--power", "450", "--utilization", "0.15",
                     "--electricity", "0.12", "--cloud-price", "2.14", "--format", "json")
    data = json.loads(result.out)
    assert result.code == 0
    assert data["break_even_days"] == pytest.approx(293.0, abs=0.1)
    assert data["kwh_per_year"] == pytest.approx(591.3, abs=0.1)
    assert data["electricity_usd_per_year"] == pytest.approx(70.96, abs=0.01)


def test_tco_of_a_build_takes_its_parts_price_and_wall_draw() -> None:
    build = example("fail-psu-quad-3090-fe-1600w.toml")
    report = json.loads(run_cli("check", build, "--format", "json").out)[0]["summary"]
    data = json.loads(run_cli("tco", "--build", build, "--hours-per-day", "8", "--format", "json").out)
    assert data["hardware_cost_usd"] == report["price_usd"]
    assert data["power_w"] > report["dc_load_w"]  # the wall draw includes the PSU's losses


def test_tco_needs_a_cost_and_a_power_or_a_build() -> None:
    result = run_cli("tco", "--hardware-cost", "2200")
    assert result.code == 2 and "--power" in result.err


def test_utilization_and_hours_per_day_are_one_or_the_other() -> None:
    assert run_cli("tco", "--hardware-cost", "1", "--power", "1", "--utilization", "0.5",
                   "--hours-per-day", "4").code == 2
