"""`planner recommend --complete` (each option completed into a machine by the solver), `--add` (cards added to a
build's own, kept as owned) and the precision named when an LLM fits nowhere at the default format — all through
the real CLI entry point."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import tomlkit

from planner.catalog import Catalog
from planner.recommend.complete import SMALLER_FORMATS

from conftest import example, run_cli
from helpers import TESTS

DATA = TESTS / "data" / "recommend"
TWO_4090S = DATA / "two-4090s-partial.toml"  # GPUs only: two owned-to-be RTX 4090 FE, max_circuits = 2
DUAL_3090 = example("pass-dual-3090-wrx80.toml")


def recommend_json(*args: str | Path) -> dict[str, Any]:
    run = run_cli("recommend", *args, "--format", "json")
    assert run.code == 0, run.err
    data: dict[str, Any] = json.loads(run.out)
    return data


@pytest.fixture(scope="module")
def completed_8b() -> dict[str, Any]:
    return recommend_json("--workload", "llm-inference", "--model", "llama-3.1-8b", "--complete", "--top", "3")


def test_complete_lists_only_options_whose_completed_build_passes_planner_check(
        completed_8b: dict[str, Any], tmp_path: Path) -> None:
    options = completed_8b["complete"]["options"]
    assert len(options) == 3
    for i, option in enumerate(options):
        assert option["solve"]["status"] == "solved"
        assert option["solve"]["report"]["verdict"] in ("pass", "warn")
        path = tmp_path / f"option-{i}.toml"
        path.write_text(option["solve"]["build_toml"])
        assert run_cli("check", path).code == 0


def test_completed_options_are_real_boards_priced_as_the_whole_machine(completed_8b: dict[str, Any],
                                                                       catalog: Catalog) -> None:
    for option in completed_8b["complete"]["options"]:
        assert catalog.holds("gpu", option["option"]["board"])
        assert option["price_usd"] == pytest.approx(option["option"]["price_usd"] + option["solve"]["added_usd"])
        assert option["perf_per_dollar"] == pytest.approx(
            option["option"]["performance"] / option["price_usd"] * 1000, rel=1e-3)


def test_completed_options_are_ranked_by_performance_per_dollar_of_the_machine(completed_8b: dict[str, Any]) -> None:
    values = [o["perf_per_dollar"] for o in completed_8b["complete"]["options"]]
    assert values == sorted(values, reverse=True)


def test_options_the_solver_cannot_complete_are_left_out_with_the_binding_constraint(
        completed_8b: dict[str, Any]) -> None:
    left = completed_8b["complete"]["left_out"]
    assert left, "the passive H100 NVL among the fastest has no chassis and PSU in the catalogs that pass"
    shown = {(o["option"]["board"], o["option"]["count"]) for o in completed_8b["complete"]["options"]}
    for entry in left:
        assert (entry["option"]["board"], entry["option"]["count"]) not in shown
        assert entry["binding"] and "." in entry["binding"]  # a sentence naming the check that binds


def test_the_plain_json_keys_are_kept_with_complete(completed_8b: dict[str, Any]) -> None:
    plain = recommend_json("--workload", "llm-inference", "--model", "llama-3.1-8b")
    assert set(plain) <= set(completed_8b)
    assert completed_8b["complete"] is not None


def test_into_with_complete_writes_the_completed_build(tmp_path: Path) -> None:
    target = tmp_path / "machine.toml"
    run = run_cli("recommend", "--workload", "llm-inference", "--model", "llama-3.1-8b", "--complete", "--top", "1",
                  "--into", target)
    assert run.code == 0, run.err
    data = tomlkit.parse(target.read_text()).unwrap()
    assert {"motherboard", "case", "cpu", "psu", "gpu"} <= set(data)
    assert run_cli("check", target).code == 0


def test_into_with_complete_does_not_replace_another_file_without_force(tmp_path: Path) -> None:
    target = tmp_path / "mine.toml"
    target.write_text("# someone else's build\n")
    run = run_cli("recommend", "--workload", "llm-inference", "--model", "llama-3.1-8b", "--complete", "--top", "1",
                  "--into", target)
    assert run.code == 2
    assert target.read_text() == "# someone else's build\n"


def test_every_ranked_option_is_a_real_board_curated_or_imported(catalog: Catalog) -> None:
    data = recommend_json("--workload", "llm-inference", "--model", "llama-3.1-8b")
    ranked = [c for c in data["candidates"] if c["fits"]]
    assert ranked and all(c["board"] and catalog.holds("gpu", c["board"]) for c in ranked)
    # the RTX 5070 Ti has no curated board: it is ranked on an imported one, not as a bare chip
    ti = [c for c in ranked if c["chip"] == "rtx-5070-ti"]
    assert ti and all(catalog.origin("gpu", c["board"]) == "imported" for c in ti)


def test_a_chip_with_no_board_in_any_catalog_is_left_out_not_ranked() -> None:
    data = recommend_json("--workload", "llm-inference", "--model", "llama-3.1-8b")
    d = [c for c in data["candidates"] if c["chip"] == "rtx-4090-d"]
    assert d and all(not c["fits"] and c["excluded_kind"] == "no-board" for c in d)


def test_add_completes_builds_that_keep_the_builds_cards_as_owned(tmp_path: Path) -> None:
    data = recommend_json("--workload", "llm-inference", "--model", "llama-3.1-70b", "--precision", "q8_0",
                          "--build", TWO_4090S, "--add", "--complete", "--top", "2")
    added = [o for o in data["complete"]["options"] if o["option"]["mode"] == "add"]
    assert added
    for i, option in enumerate(added):
        gpus = tomlkit.parse(option["solve"]["build_toml"]).unwrap()["gpu"]
        kept = [g for g in gpus if g["part"] == "nvidia-rtx-4090-fe"]  # the solver may move some onto risers
        assert sum(g["count"] for g in kept) == 2 and all(g["owned"] for g in kept)
        assert sum(g["count"] for g in gpus if g["part"] == option["option"]["board"]) == option["option"]["count"]
        assert all(not g.get("owned") for g in gpus if g["part"] == option["option"]["board"])
        path = tmp_path / f"added-{i}.toml"
        path.write_text(option["solve"]["build_toml"])
        assert run_cli("check", path).code == 0


def test_added_cards_share_the_memory_need_with_the_kept_ones() -> None:
    data = recommend_json("--workload", "llm-inference", "--model", "llama-3.1-70b", "--precision", "q8_0",
                          "--build", TWO_4090S, "--add")
    per_card = data["memory"]["per_gpu_gib"]
    for c in data["additions"]["candidates"]:
        if c["fits"] and c["count"] <= 2:  # the plain ranking's per-card figures go up to 4 cards
            assert c["memory_needed_gib"] == pytest.approx(per_card[str(c["count"] + 2)], abs=0.01)
            assert c["usable_gib"] >= c["memory_needed_gib"]


def test_a_mixed_set_decodes_at_the_harmonic_mean_of_its_cards() -> None:
    data = recommend_json("--workload", "llm-inference", "--model", "llama-3.1-70b", "--precision", "q8_0",
                          "--build", TWO_4090S, "--add", "--gpus", "2")
    alone = recommend_json("--workload", "llm-inference", "--model", "llama-3.1-70b", "--precision", "q8_0",
                           "--gpus", "4")
    speed = {c["chip"]: c["tokens_per_s"] for c in alone["candidates"]}
    mixed = next(c for c in data["additions"]["candidates"] if c["chip"] == "rtx-5090")
    assert mixed["tokens_per_s"] == pytest.approx(4 / (2 / speed["rtx-4090"] + 2 / speed["rtx-5090"]), abs=0.1)


def test_add_in_a_complete_build_checks_each_option_with_the_builds_cards(tmp_path: Path) -> None:
    # 70B at Q5_K_M needs three 24 GiB cards: a third beside the two 3-slot RTX 3090 FE must fit their board
    data = recommend_json("--workload", "llm-inference", "--model", "llama-3.1-70b", "--precision", "q5_k_m",
                          "--build", DUAL_3090, "--gpus", "1", "--add")
    fitting = [c for c in data["additions"]["candidates"] if c["fits"]]
    rejected = [c for c in data["additions"]["candidates"] if c["excluded_kind"] == "build"]
    assert fitting and rejected
    for c in fitting:
        grown = tomlkit.parse(DUAL_3090.read_text())
        table = tomlkit.table()
        table.update({"part": c["board"], "count": c["count"]})
        grown["gpu"].append(table)
        path = tmp_path / f"{c['board']}.toml"
        path.write_text(tomlkit.dumps(grown))
        assert run_cli("check", path).code == 0, c["board"]


def test_add_needs_a_build() -> None:
    run = run_cli("recommend", "--workload", "llm-inference", "--model", "llama-3.1-8b", "--add")
    assert run.code == 2
    assert "--add needs --build" in run.err


def test_an_llm_that_fits_nowhere_at_the_default_format_is_told_which_format_would() -> None:
    data = recommend_json("--workload", "llm-inference", "--model", "llama-3.1-70b", "--budget", "4000")
    assert not [c for c in data["candidates"] if c["fits"]]
    hint = data["precision_hint"]
    found = re.search(r"--precision (\S+)$", hint or "")
    assert found and found.group(1) in SMALLER_FORMATS  # the best-quality smaller format at which one fits
    again = recommend_json("--workload", "llm-inference", "--model", "llama-3.1-70b", "--budget", "4000",
                           "--precision", found.group(1))
    assert [c for c in again["candidates"] if c["fits"]]
    better = SMALLER_FORMATS[:SMALLER_FORMATS.index(found.group(1))]
    for precision in better:  # no format of better quality fits
        tried = recommend_json("--workload", "llm-inference", "--model", "llama-3.1-70b", "--budget", "4000",
                               "--precision", precision)
        assert not [c for c in tried["candidates"] if c["fits"]]


def test_a_format_the_user_chose_gets_no_hint() -> None:
    data = recommend_json("--workload", "llm-inference", "--model", "llama-3.1-70b", "--budget", "4000",
                          "--precision", "f16")
    assert data["precision_hint"] is None


def test_the_hint_is_in_the_text_output_too() -> None:
    run = run_cli("recommend", "--workload", "llm-inference", "--model", "llama-3.1-70b", "--budget", "4000",
                  "--no-chart")
    assert re.search(r"at (q8_0|q6_k|q5_k_m|q4_k_m|q4_0) the need is", run.out)
