"""Prices a buyer can act on: the market each price comes from (`--market new|used|any`, chosen in one place, the
catalog), the date it was seen and whether that is so long ago it is stale, and how the curated catalog is priced
per market (`planner catalog validate --stats`)."""

from __future__ import annotations

import csv
import datetime
import io
import json
import re
from pathlib import Path

import pytest

from planner.catalog import Catalog, builtin_dir
from planner.catalog.prices import for_market, is_stale, load_prices, price_stats, stale_before, total_stats
from planner.models.parts import GpuBoard

from conftest import TODAY, example, run_cli
from helpers import TESTS

PASSING = example("pass-dual-3090-wrx80.toml")  # 2 × RTX 3090 FE on WRX80
SOLVE_GPUS_ONLY = TESTS / "data" / "solve" / "builds" / "gpus-only.toml"
SOLVE_SMALL = TESTS / "data" / "solve" / "small"

#: The RTX 3090 FE of the frozen test catalog, with the prices of each test in place of its own.
CARD = """\
[nvidia-rtx-3090-fe]
name = "NVIDIA GeForce RTX 3090 Founders Edition"
maker = "NVIDIA"
chip = "rtx-3090"
tdp = 350
power_limit_min = 100
power_limit_max = 400
power_connectors = ["pcie-8pin", "pcie-8pin"]
slot_width = 3
length = "313 mm"
height = "138 mm"
cooler = "flow-through"
pcie_gen = 4
temp_target = 83
temp_max_operating = 93
source = "nvidia.com RTX 3090 product page (313 × 138 mm, 3-slot, 350 W); nvidia-smi -q power limits"
"""
NEW_AND_USED = ('price = 1499\nprice_date = "2026-10"\nprice_source = "a retailer listing"\n'
                'used_price = 750\nused_price_low = 600\nused_price_high = 900\nused_price_date = "2026-11"\n'
                'used_price_source = "eBay sold listings, 2026-11"\n')


def _card(base: Path, prices: str = NEW_AND_USED, extra: str = "") -> Path:
    """A catalog directory whose RTX 3090 FE (overriding the built-in one by id) has `prices`."""
    directory = base / "catalog"
    directory.mkdir(exist_ok=True)
    (directory / "gpus.toml").write_text(CARD + prices + extra, encoding="utf-8")
    return directory


def _gpu(tmp_path: Path, prices: str, market: str, extra: str = "") -> GpuBoard:
    catalog = Catalog([builtin_dir(), _card(tmp_path, prices, extra)])
    catalog.market = market  # type: ignore[assignment]
    return catalog.typed("gpu", "nvidia-rtx-3090-fe", GpuBoard)


def _summary(*argv: str | Path) -> dict[str, object]:
    run = run_cli("check", *argv, "--format", "json")
    assert run.code in (0, 1), run.err
    summary = json.loads(run.out)[0]["summary"]
    assert isinstance(summary, dict)
    return summary


# -- choosing a market: planner/catalog/prices.py for_market, applied by the catalog ---------------------------

def test_the_new_market_takes_the_new_price(tmp_path: Path) -> None:
    card = _gpu(tmp_path, NEW_AND_USED, "new")
    assert (card.price, card.price_date, card.price_source, card.price_market) == (
        1499, "2026-10", "a retailer listing", "new")


def test_the_used_market_takes_the_used_price_with_its_date_and_source(tmp_path: Path) -> None:
    card = _gpu(tmp_path, NEW_AND_USED, "used")
    assert (card.price, card.price_date, card.price_source, card.price_market) == (
        750, "2026-11", "eBay sold listings, 2026-11", "used")


def test_the_used_market_takes_the_new_price_of_a_part_not_sold_used_and_says_new(tmp_path: Path) -> None:
    card = _gpu(tmp_path, 'price = 1499\nprice_date = "2026-10"\n', "used")
    assert (card.price, card.price_market) == (1499, "new")


def test_any_market_takes_the_cheaper_price_and_says_which(tmp_path: Path) -> None:
    assert (_gpu(tmp_path, NEW_AND_USED, "any").price, _gpu(tmp_path, NEW_AND_USED, "any").price_market) == (
        750, "used")
    dearer_used = NEW_AND_USED.replace("used_price = 750", "used_price = 800").replace("price = 1499", "price = 700")
    card = _gpu(tmp_path, dearer_used.replace("used_price_low = 600", "used_price_low = 700"), "any")
    assert (card.price, card.price_market) == (700, "new")


def test_any_market_takes_the_new_price_when_both_are_the_same(tmp_path: Path) -> None:
    card = _gpu(tmp_path, 'price = 750\nused_price = 750\n', "any")
    assert (card.price, card.price_market) == (750, "new")


def test_a_discontinued_part_without_a_new_price_is_unpriced_in_the_new_market(tmp_path: Path) -> None:
    used_only = 'discontinued = true\nused_price = 750\nused_price_date = "2026-11"\n'
    card = _gpu(tmp_path, used_only, "new")
    assert (card.price, card.price_market) == (None, None)


def test_a_discontinued_part_is_priced_used_in_the_used_and_any_markets(tmp_path: Path) -> None:
    used_only = 'discontinued = true\nused_price = 750\nused_price_date = "2026-11"\n'
    assert [(c.price, c.price_market) for c in (_gpu(tmp_path, used_only, "used"), _gpu(tmp_path, used_only, "any"))] \
        == [(750, "used"), (750, "used")]


def test_an_estimated_used_price_is_an_estimated_price_once_chosen(tmp_path: Path) -> None:
    card = _gpu(tmp_path, NEW_AND_USED, "used", extra='estimated = ["used_price"]\n')
    assert "price" in card.estimated
    assert "price" not in _gpu(tmp_path, NEW_AND_USED, "new", extra='estimated = ["used_price"]\n').estimated


def test_for_market_leaves_the_part_it_is_given_unchanged(tmp_path: Path) -> None:
    catalog = Catalog([builtin_dir(), _card(tmp_path)], market=None)
    written = catalog.get("gpu", "nvidia-rtx-3090-fe")
    used = for_market(written, "used")
    assert (written.price, written.price_market, used.price) == (1499, None, 750)


def test_a_user_price_wins_over_every_market_and_is_yours(tmp_path: Path) -> None:
    quotes = tmp_path / "quotes.toml"
    quotes.write_text('[prices]\nnvidia-rtx-3090-fe = { price = 640, date = "2026-11" }\n', encoding="utf-8")
    for market in ("new", "used", "any"):
        catalog = Catalog([builtin_dir(), _card(tmp_path)], market=market)  # type: ignore[arg-type]
        load_prices(catalog, [quotes], user_file=False)
        card = catalog.get("gpu", "nvidia-rtx-3090-fe")
        assert (card.price, card.price_market) == (640, "yours"), market


def test_changing_the_catalogs_market_reprices_the_parts_it_already_gave(tmp_path: Path) -> None:
    catalog = Catalog([builtin_dir(), _card(tmp_path)], market="new")
    assert catalog.get("gpu", "nvidia-rtx-3090-fe").price == 1499
    catalog.market = "used"
    assert catalog.get("gpu", "nvidia-rtx-3090-fe").price == 750


def _inline_card_summary(tmp_path: Path, fields: str) -> dict[str, object]:
    """The passing example's cards as an inline part on the test card with `fields`, checked at the used market."""
    build = tmp_path / "build.toml"
    build.write_text(PASSING.read_text().replace('part = "nvidia-rtx-3090-fe"',
                                                 f'part = {{ base = "nvidia-rtx-3090-fe", {fields} }}'))
    return _summary(build, "--catalog", _card(tmp_path), "--market", "used")


def test_an_inline_part_on_a_catalog_base_is_priced_for_the_market(tmp_path: Path) -> None:
    summary = _inline_card_summary(tmp_path, "power_limit_max = 390")
    assert summary["price_markets"]["nvidia-rtx-3090-fe-custom"] == "used"  # type: ignore[index]
    assert summary["price_dates"]["nvidia-rtx-3090-fe-custom"] == "2026-11"  # type: ignore[index]


def test_a_price_the_build_file_gives_is_yours_in_every_market(tmp_path: Path) -> None:
    summary = _inline_card_summary(tmp_path, "price = 700")
    assert summary["price_markets"]["nvidia-rtx-3090-fe-custom"] == "yours"  # type: ignore[index]


# -- the flag on each command --------------------------------------------------------------------------------

def test_check_prices_the_build_for_the_market_its_flag_names(tmp_path: Path) -> None:
    catalog = _card(tmp_path)
    new, used = (_summary(PASSING, "--catalog", catalog, "--market", market) for market in ("new", "used"))
    assert (new["price_markets"]["nvidia-rtx-3090-fe"], used["price_markets"]["nvidia-rtx-3090-fe"]) == (  # type: ignore[index]
        "new", "used")
    assert used["price_dates"]["nvidia-rtx-3090-fe"] == "2026-11"  # type: ignore[index]
    assert new["price_usd"] != used["price_usd"]


def test_check_says_the_market_of_its_prices_in_text(tmp_path: Path) -> None:
    text = run_cli("check", PASSING, "--catalog", _card(tmp_path), "--market", "used").out
    [price] = [line for line in text.splitlines() if line.startswith("  Price: ")]
    assert re.search(r"\(used: [^;)]*nvidia-rtx-3090-fe", price), price


def test_any_is_the_default_market(tmp_path: Path) -> None:
    catalog = _card(tmp_path)
    assert _summary(PASSING, "--catalog", catalog) == _summary(PASSING, "--catalog", catalog, "--market", "any")
    assert _summary(PASSING, "--catalog", catalog)["price_markets"]["nvidia-rtx-3090-fe"] == "used"  # type: ignore[index]


def test_export_lists_each_price_with_its_market(tmp_path: Path) -> None:
    out = run_cli("export", PASSING, "--format", "csv", "--catalog", _card(tmp_path), "--market", "used").out
    gpu = next(r for r in csv.DictReader(io.StringIO(out)) if r["Id"] == "nvidia-rtx-3090-fe")
    assert (gpu["Unit price (USD)"], gpu["Price date"], gpu["Price market"], gpu["Stale price"]) == (
        "750.00", "2026-11", "used", "")


def test_solve_prices_the_parts_for_the_market_its_flag_names(tmp_path: Path) -> None:
    run = run_cli("solve", SOLVE_GPUS_ONLY, "--no-builtin", "--catalog", SOLVE_SMALL, "--catalog", _card(tmp_path),
                  "--market", "used", "--format", "json")
    assert run.code == 0, run.err
    summary = json.loads(run.out)["report"]["summary"]
    assert (summary["price_markets"]["nvidia-rtx-3090-fe"], summary["price_dates"]["nvidia-rtx-3090-fe"]) == (
        "used", "2026-11")


def test_solve_says_the_market_and_date_of_each_part_it_adds() -> None:
    run = run_cli("solve", SOLVE_GPUS_ONLY, "--no-builtin", "--catalog", SOLVE_SMALL, "--market", "new",
                  "--format", "json")
    assert run.code == 0, run.err
    added = [a for a in json.loads(run.out)["added"] if a["kind"] != "circuit"]
    assert added and all(a["market"] == "new" and a["price_date"] for a in added if a["price_usd"] is not None)


def test_recommend_ranks_the_cards_at_the_markets_prices(tmp_path: Path) -> None:
    argv = ("recommend", "--workload", "llm-inference", "--memory", "20", "--gpus", "1", "--format", "json",
            "--catalog", _card(tmp_path, NEW_AND_USED.replace("used_price = 750", "used_price = 450")
                               .replace("used_price_low = 600", "used_price_low = 400")))
    new = json.loads(run_cli(*argv, "--market", "new").out)["recommended"]
    used = json.loads(run_cli(*argv, "--market", "used").out)["recommended"]
    assert new["board"] != "nvidia-rtx-3090-fe"
    assert (used["board"], used["price_usd"]) == ("nvidia-rtx-3090-fe", 450.0)


def test_tco_of_a_build_costs_it_at_the_markets_prices(tmp_path: Path) -> None:
    catalog = _card(tmp_path)
    argv = ("tco", "--build", str(PASSING), "--cloud-price", "2", "--format", "json", "--catalog", catalog)
    for market in ("new", "used"):
        cost = json.loads(run_cli(*argv, "--market", market).out)["hardware_cost_usd"]
        assert cost == _summary(PASSING, "--catalog", catalog, "--market", market)["price_usd"], market


def test_a_user_price_wins_over_the_market_on_the_command_line(tmp_path: Path) -> None:
    quotes = tmp_path / "quotes.toml"
    quotes.write_text('[prices]\nnvidia-rtx-3090-fe = { price = 640, date = "2026-11" }\n', encoding="utf-8")
    summary = _summary(PASSING, "--catalog", _card(tmp_path), "--market", "used", "--prices", quotes)
    assert summary["price_markets"]["nvidia-rtx-3090-fe"] == "yours"  # type: ignore[index]


def test_the_settings_files_market_applies_without_the_flag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from planner.util import config

    config._read.cache_clear()
    settings = tmp_path / "config.toml"
    settings.write_text('market = "new"\n')
    monkeypatch.setenv("PLANNER_CONFIG", str(settings))
    catalog = _card(tmp_path)
    assert _summary(PASSING, "--catalog", catalog)["price_markets"]["nvidia-rtx-3090-fe"] == "new"  # type: ignore[index]
    assert _summary(PASSING, "--catalog", catalog, "--market", "used")[  # the flag wins
        "price_markets"]["nvidia-rtx-3090-fe"] == "used"  # type: ignore[index]
    config._read.cache_clear()


def test_a_bad_market_in_the_settings_file_is_one_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from planner.util import config

    config._read.cache_clear()
    settings = tmp_path / "config.toml"
    settings.write_text('market = "ebay"\n')
    monkeypatch.setenv("PLANNER_CONFIG", str(settings))
    run = run_cli("export", PASSING)
    config._read.cache_clear()
    expected = "market must be one of new, used, any, got 'ebay'"
    assert (run.code, run.err) == (2, f"planner: {settings}: market: {expected}\n")


@pytest.mark.parametrize("command", ["check", "solve", "recommend", "export", "tco"])
def test_each_command_that_prices_parts_takes_the_market_flag(command: str) -> None:
    run = run_cli(command, "--help")
    assert run.code == 0 and "--market {new,used,any}" in run.out


def test_an_unknown_market_is_a_usage_error() -> None:
    run = run_cli("check", PASSING, "--market", "ebay")
    assert run.code == 2 and "invalid choice: 'ebay'" in run.err


def test_catalog_show_gives_the_entry_as_written(tmp_path: Path) -> None:
    data = json.loads(run_cli("catalog", "show", "nvidia-rtx-3090-fe", "--catalog", _card(tmp_path),
                              "--format", "json").out)
    assert (data["price"], data["used_price"], data["price_market"]) == (1499, 750, None)


# -- stale prices ---------------------------------------------------------------------------------------------

def test_a_price_seen_more_than_12_months_ago_is_stale() -> None:
    on = datetime.date(2026, 12, 2)
    assert is_stale("2025-12-01", on) and not is_stale("2025-12-02", on)


def test_a_month_is_stale_only_when_the_whole_of_it_is() -> None:
    on = datetime.date(2026, 12, 2)
    assert is_stale("2025-11", on) and not is_stale("2025-12", on)


def test_an_undated_price_is_not_called_stale() -> None:
    assert not is_stale(None, datetime.date(2026, 12, 2))


def test_twelve_months_before_a_day_the_shorter_month_lacks_is_that_months_last_day() -> None:
    assert stale_before(datetime.date(2028, 2, 29)) == datetime.date(2027, 2, 28)


def test_stale_prices_are_judged_against_todays_date(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("planner.catalog.prices.today", lambda: datetime.date(2021, 6, 1))
    assert not is_stale("2020-09")
    monkeypatch.setattr("planner.catalog.prices.today", lambda: TODAY)
    assert is_stale("2020-09")


def test_the_check_report_lists_its_stale_prices(tmp_path: Path) -> None:
    summary = _summary(PASSING, "--catalog", _card(tmp_path), "--market", "used")
    assert "nvidia-rtx-3090-fe" not in summary["stale_prices"]  # type: ignore[operator]  # seen 2026-11
    text = run_cli("check", PASSING, "--catalog", _card(tmp_path), "--market", "used").out
    stale_line = next(line for line in text.splitlines() if "stale" in line.lower())
    assert "seen before 2025-12-02" in stale_line and "nvidia-rtx-3090-fe" not in stale_line


def test_a_part_list_marks_a_stale_price_and_says_what_stale_means(tmp_path: Path) -> None:
    data = json.loads(run_cli("export", PASSING, "--format", "json", "--catalog",
                              _card(tmp_path, 'price = 1499\nprice_date = "2024-05"\n'), "--market", "new").out)
    gpu = next(p for p in data["parts"] if p["part"] == "nvidia-rtx-3090-fe")
    assert (gpu["market"], gpu["price_date"], gpu["stale"], gpu["used_range_usd"]) == ("new", "2024-05", True, None)
    assert data["stale_before"] == "2025-12-02" and "nvidia-rtx-3090-fe" in data["stale_parts"]


def test_a_forum_list_gives_each_price_its_market_and_date(tmp_path: Path) -> None:
    text = run_cli("export", PASSING, "--format", "md", "--catalog", _card(tmp_path), "--market", "used").out
    assert "$1,500.00 ($750.00 each; used, 2026-11, sold $600–$900)" in text
    assert "Used prices are the median of recent sold listings." in text


# -- how the catalog is priced: planner catalog validate --stats ----------------------------------------------

STATS_GPUS = CARD + NEW_AND_USED + "\n" + "\n\n".join(
    CARD.replace("[nvidia-rtx-3090-fe]", f"[{part_id}]") + prices for part_id, prices in (
        ("old-new-only", 'price = 999\nprice_date = "2023-04"\nprice_source = "a listing"\n'),
        ("used-only", 'discontinued = true\nused_price = 300\nused_price_date = "2026-09"\n'
                      'estimated = ["used_price"]\n'),
        ("no-price", ""),
    ))


def _stats_catalog(tmp_path: Path) -> Path:
    directory = tmp_path / "stats"
    directory.mkdir()
    (directory / "gpus.toml").write_text(STATS_GPUS, encoding="utf-8")
    return directory


def test_price_stats_count_each_market_apart(tmp_path: Path) -> None:
    directory = _stats_catalog(tmp_path)
    [gpus] = [s for s in price_stats(Catalog([builtin_dir(), directory]), only=directory) if s.kind == "gpu"]
    assert (gpus.parts, gpus.priced, gpus.new, gpus.used, gpus.unpriced) == (4, 3, 2, 2, 1)


def test_price_stats_count_dated_cited_and_estimated_prices_in_every_market(tmp_path: Path) -> None:
    directory = _stats_catalog(tmp_path)
    [gpus] = [s for s in price_stats(Catalog([builtin_dir(), directory]), only=directory) if s.kind == "gpu"]
    assert (gpus.dated, gpus.cited, gpus.estimated, gpus.oldest) == (3, 2, 1, "2023-04")


def test_price_stats_count_parts_still_sold_at_a_new_price_dated_before_2025(tmp_path: Path) -> None:
    directory = _stats_catalog(tmp_path)
    stats = price_stats(Catalog([builtin_dir(), directory]), only=directory)
    everything = total_stats(stats)
    assert (everything.sold_dated_before, everything.sold_without_new) == (1, 1)  # old-new-only; no-price


def test_validate_stats_prints_each_kind_per_market_with_its_oldest_price(tmp_path: Path) -> None:
    run = run_cli("catalog", "validate", _stats_catalog(tmp_path), "--stats")
    assert run.code == 0, run.err
    [gpu_row] = [line.replace("( ", "(") for line in run.out.splitlines() if line.split()[:1] == ["gpu"]]
    assert gpu_row.split() == ["gpu", "4", "3", "(75%)", "2", "(50%)", "2", "(50%)", "3", "(75%)", "2", "1",
                               "2023-04"]
    assert "Parts still sold (not discontinued) whose new price is dated before 2025-01: 1 " in run.out
    assert "Parts with no price in any market: 1." in run.out


def test_a_json_parts_list_gives_a_used_prices_range_of_sold_listings(tmp_path: Path) -> None:
    data = json.loads(run_cli("export", PASSING, "--format", "json", "--catalog", _card(tmp_path),
                              "--market", "used").out)
    gpu = next(p for p in data["parts"] if p["part"] == "nvidia-rtx-3090-fe")
    assert (gpu["market"], gpu["unit_price_usd"], gpu["used_range_usd"]) == ("used", 750.0, [600.0, 900.0])


def test_a_bad_market_in_the_settings_file_is_the_error_of_the_build_that_needed_a_price(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from planner.util import config

    config._read.cache_clear()
    settings = tmp_path / "config.toml"
    settings.write_text('market = "ebay"\n')
    monkeypatch.setenv("PLANNER_CONFIG", str(settings))
    run = run_cli("check", PASSING, PASSING)
    config._read.cache_clear()
    assert run.code == 2
    assert run.err.splitlines() == 2 * [f"planner: {PASSING}: {settings}: market: market must be one of new, used, "
                                        "any, got 'ebay'"]
