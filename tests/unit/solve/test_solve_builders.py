"""Builder scenarios over the full built-in catalogs (issue 23): what `planner solve` tells a user to buy is what
an experienced builder would build. The tests hold the structure of each answer (one PSU, cards on CPU lanes, no
power, outlet or lane warning, the base system listed), never the prices, which follow the market."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import run_cli
from helpers import TESTS

BUILDERS = TESTS / "data" / "solve" / "builder"


def _solve(name: str, *extra: str) -> dict[str, Any]:
    run = run_cli("solve", BUILDERS / name, "--format", "json", *extra)
    data = json.loads(run.out)
    assert isinstance(data, dict)
    return data


def _links(data: dict[str, Any], tmp_path: Path) -> list[tuple[int, str]]:
    """(lanes, where the slot's lanes come from: cpu, chipset or a switch) per GPU of the completed build."""
    from planner.api import load_build
    from planner.catalog import Catalog
    from planner.checks.engine.context import Context
    from planner.placement.layout import layout_of

    path = tmp_path / "completed.toml"
    path.write_text(data["build_toml"])
    build = load_build(path, Catalog())
    layout = layout_of(build)
    mounts = [m for m in Context(build, Catalog()).placement.mounts if m is not None]
    return [(int(m.lanes or 0), layout.slot(str(m.slot)).source if m.slot else "riser") for m in mounts]


def _warned(data: dict[str, Any], *families: str) -> list[str]:
    return [f["code"] for f in data["report"]["findings"]
            if f["severity"] in ("warning", "error") and f["code"].split(".")[0] in families]


@pytest.fixture(scope="module")
def two_3090() -> dict[str, Any]:
    return _solve("two-3090-fe-us-15a.toml")


def test_two_3090s_on_15_a_are_one_psu_and_pass(two_3090: dict[str, Any]) -> None:
    assert two_3090["status"] == "solved" and two_3090["report"]["verdict"] == "pass"
    assert sum(a["kind"] == "psu" for a in two_3090["added"]) == 1


def test_two_3090s_on_15_a_run_on_cpu_lanes_at_x8_or_better(two_3090: dict[str, Any], tmp_path: Path) -> None:
    links = _links(two_3090, tmp_path)
    assert len(links) == 2 and all(lanes >= 8 and source != "chipset" for lanes, source in links)
    assert not _warned(two_3090, "slot", "pcie")


def test_the_solved_machine_lists_and_prices_its_base_system(two_3090: dict[str, Any]) -> None:
    added = {a["kind"]: a for a in two_3090["added"]}
    assert {"ram", "ssd", "cooler"} <= set(added)
    assert all(added[k]["price_usd"] for k in ("ram", "ssd", "cooler"))
    assert two_3090["added_usd"] == pytest.approx(sum(a["price_usd"] or 0 for a in two_3090["added"]))


def test_four_blower_3090s_on_20_a_need_no_power_outlet_or_lane_warning(tmp_path: Path) -> None:
    data = _solve("four-3090-turbo-us-20a.toml", "--allow-power-limits")
    assert data["status"] == "solved"
    assert not _warned(data, "psu", "outlet", "slot", "pcie")
    links = _links(data, tmp_path)
    assert len(links) == 4 and all(lanes >= 8 and source != "chipset" for lanes, source in links)


@pytest.fixture(scope="module")
def eight_3090() -> dict[str, Any]:
    return _solve("eight-3090-turbo-two-240v-30a.toml", "--allow-power-limits")


def test_eight_blower_3090s_on_two_240_v_circuits_are_solved(eight_3090: dict[str, Any]) -> None:
    assert eight_3090["status"] == "solved" and eight_3090["report"]["verdict"] in ("pass", "warn")
    assert len(eight_3090["report"]["summary"]["gpus"]) == 8


def test_eight_blower_3090s_keep_most_of_their_speed_on_more_psus_rather_than_deep_limits(
        eight_3090: dict[str, Any]) -> None:
    """A builder adds a PSU before halving the machine's speed with power limits to save one."""
    summary = eight_3090["report"]["summary"]
    assert summary["relative_perf"] >= 0.85
    assert len(summary["psus"]) >= 2
    assert _warned(eight_3090, "psu", "outlet") == ["psu.multi"]


def test_owned_psu_too_small_for_four_cards_is_infeasible_at_once_with_the_way_out() -> None:
    data = _solve("owned-pair-plus-two-us-15a.toml")
    assert data["status"] == "infeasible" and data["searched"] == 0
    assert "PSUs are rated for together" in data["binding"]
    assert any("--allow-power-limits" in note for note in data["notes"])


def test_recommend_ranks_completed_machines_cheapest_first_at_the_speed_asked() -> None:
    run = run_cli("recommend", "--workload", "llm-inference", "--model", "llama-3.1-70b", "--precision", "q4_k_m",
                  "--min-tok-s", "15", "--complete", "--sort", "machine-price", "--top", "3", "--format", "json")
    assert run.code == 0, run.err
    complete = json.loads(run.out)["complete"]
    machines = complete["by_machine_price"]
    prices = [m["price_usd"] for m in machines]
    assert machines and prices == sorted(prices)  # the cheapest whole machine first
    assert all(m["option"]["tokens_per_s"] >= 15 for m in machines)
    verdicts = {o["option"]["board"]: o["solve"]["report"]["verdict"] for o in complete["options"]}
    assert all(verdicts[m["option"]["board"]] in ("pass", "warn") for m in machines)  # each passes planner check


def test_a_completed_machine_costs_the_same_in_the_ranking_cloud_vs_buy_and_its_solve() -> None:
    run = run_cli("recommend", "--workload", "llm-inference", "--model", "llama-3.1-70b", "--precision", "q4_k_m",
                  "--complete", "--sort", "machine-price", "--top", "2", "--format", "json")
    data = json.loads(run.out)
    first = data["complete"]["by_machine_price"][0]
    key = (first["option"]["board"], first["option"]["count"])
    solved = next(o for o in data["complete"]["options"] if (o["option"]["board"], o["option"]["count"]) == key)
    assert data["recommended"]["board"] == first["option"]["board"]
    assert data["tco"]["hardware_cost_usd"] == pytest.approx(first["price_usd"])  # cloud vs buy of that machine
    assert solved["solve"]["price_usd"] == pytest.approx(first["price_usd"])  # what its solve says to buy
    base = {a["kind"] for a in solved["solve"]["added"]} & {"ram", "ssd", "cooler"}
    assert base == {"ram", "ssd", "cooler"}  # the base-system model's parts, in that one number


def test_without_complete_cloud_vs_buy_adds_the_rankings_desktop_to_the_cards() -> None:
    run = run_cli("recommend", "--workload", "llm-inference", "--model", "llama-3.1-8b", "--gpus", "2",
                  "--format", "json")
    data = json.loads(run.out)
    assert data["tco"]["hardware_cost_usd"] == pytest.approx(data["recommended"]["cost_basis_usd"])
