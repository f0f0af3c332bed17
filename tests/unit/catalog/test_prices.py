"""Prices that can be trusted: the user's price file over the catalog's prices, price dates in the reports,
inline parts on one base kept apart, and the curated catalog's share of dated prices."""

from __future__ import annotations

import csv
import io
import json
import tomllib
from pathlib import Path

import pytest

from planner.catalog import Catalog, builtin_dir
from planner.catalog.prices import load_prices, price_stats
from planner.util.errors import InputError

from conftest import ROOT, example, run_cli

PASSING = example("pass-dual-3090-wrx80.toml")  # case, board, CPU, 2 × RTX 3090 FE, AX1600i, the base system


def _catalog_price(kind: str, part_id: str) -> float:
    """A part's price as the catalogs give it for the default market."""
    price = Catalog([builtin_dir()]).get(kind, part_id).price
    assert price is not None
    return float(price)


def _total() -> float:
    total = _summary(PASSING)["price_usd"]
    assert isinstance(total, float)
    return total


def _price_file(tmp_path: Path, body: str, name: str = "quotes.toml") -> Path:
    path = tmp_path / name
    path.write_text("[prices]\n" + body, encoding="utf-8")
    return path


def _summary(*argv: str | Path) -> dict[str, object]:
    run = run_cli("check", *argv, "--format", "json")
    assert run.code == 0, run.err
    summary = json.loads(run.out)[0]["summary"]
    assert isinstance(summary, dict)
    return summary


# -- the user's price file ------------------------------------------------------------------------------------

def test_a_price_file_changes_the_build_total(tmp_path: Path) -> None:
    before = _total()
    quotes = _price_file(tmp_path, 'nvidia-rtx-3090-fe = { price = 800, date = "2026-11", note = "used, eBay" }\n')
    after = _summary(PASSING, "--prices", quotes)["price_usd"]
    assert after == pytest.approx(before - 2 * (_catalog_price("gpu", "nvidia-rtx-3090-fe") - 800))


def _thirds(tmp_path: Path) -> tuple[Path, Path]:
    """Four RTX 3090 TURBO at a price of a third of $1,000 (the price file's, to the tenth of a cent)."""
    return (example("pass-quad-3090-turbo-wrx80.toml"),
            _price_file(tmp_path, 'gigabyte-rtx-3090-turbo = { price = 333.333, date = "2026-11" }\n'))


@pytest.mark.parametrize("fmt", ["text", "csv", "md"])
def test_a_line_total_is_the_shown_unit_price_times_the_count(tmp_path: Path, fmt: str) -> None:
    build, quotes = _thirds(tmp_path)
    out = run_cli("export", build, "--format", fmt, "--prices", quotes).out
    # the card's parts-list line (the power section names the card too): 4 × 333.33, not 4 × 333.333
    [line] = [line for line in out.splitlines() if "3090 TURBO" in line and "Power limit" not in line]
    assert "333.33" in line and ("1,333.32" in line or "1333.32" in line), line


def test_the_total_is_the_sum_of_the_lines_as_shown(tmp_path: Path) -> None:
    build, quotes = _thirds(tmp_path)
    rows = list(csv.DictReader(io.StringIO(run_cli("export", build, "--format", "csv", "--prices", quotes).out)))
    lines = [row["Line total (USD)"] for row in rows if row["Part"] != "Total" and row["Line total (USD)"]]
    [total] = [row["Line total (USD)"] for row in rows if row["Part"] == "Total"]
    assert sum(round(float(value) * 100) for value in lines) == round(float(total) * 100)
    assert _summary(build, "--prices", quotes)["price_usd"] == float(total)


def test_the_report_says_which_prices_came_from_the_price_file(tmp_path: Path) -> None:
    quotes = _price_file(tmp_path, 'nvidia-rtx-3090-fe = { price = 800, date = "2026-11", note = "used, eBay" }\n')
    summary = _summary(PASSING, "--prices", quotes)
    assert summary["user_prices"] == {"nvidia-rtx-3090-fe": f"price file {quotes}:2 (used, eBay)"}
    text = run_cli("check", PASSING, "--prices", quotes).out
    assert f"Your price: nvidia-rtx-3090-fe from the price file {quotes}:2 (used, eBay)" in text


def test_the_price_file_in_the_config_directory_applies_without_the_option(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _price_file(tmp_path, 'corsair-ax1600i = { price = 450, date = "2026-10-14" }\n', name="prices.toml")
    before = _total()
    monkeypatch.setenv("PLANNER_CONFIG", str(tmp_path / "config.toml"))
    assert _summary(PASSING)["price_usd"] == pytest.approx(before - (_catalog_price("psu", "corsair-ax1600i") - 450))


def test_a_prices_option_wins_over_the_config_directory_file_by_id(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = _total() - (_catalog_price("psu", "corsair-ax1600i") - 500)
    monkeypatch.setenv("PLANNER_CONFIG", str(tmp_path / "config.toml"))
    _price_file(tmp_path, 'corsair-ax1600i = { price = 450, date = "2026-10" }\n', name="prices.toml")
    quote = _price_file(tmp_path, 'corsair-ax1600i = { price = 500, date = "2026-11" }\n')
    assert _summary(PASSING, "--prices", quote)["price_usd"] == pytest.approx(expected)


def test_a_price_file_changes_the_recommendation_ranking(tmp_path: Path) -> None:
    argv = ("recommend", "--workload", "llm-inference", "--memory", "20", "--gpus", "1", "--format", "json")
    before = json.loads(run_cli(*argv).out)["recommended"]
    quotes = _price_file(tmp_path, 'nvidia-rtx-4090-fe = { price = 300, date = "2026-11", note = "a friend\'s" }\n')
    after = json.loads(run_cli(*argv, "--prices", quotes).out)["recommended"]
    assert before["chip"] != "rtx-4090"
    assert (after["board"], after["price_usd"]) == ("nvidia-rtx-4090-fe", 300.0)
    assert f"price: your price (2026-11) from {quotes}:2: a friend's" in after["notes"]


def test_an_export_marks_the_prices_from_the_price_file(tmp_path: Path) -> None:
    quotes = _price_file(tmp_path, 'corsair-ax1600i = { price = 450, date = "2026-10" }\n')
    rows = list(csv.DictReader(io.StringIO(run_cli("export", PASSING, "--format", "csv", "--prices", quotes).out)))
    psu = next(r for r in rows if r["Id"] == "corsair-ax1600i")
    case = next(r for r in rows if r["Id"] == "fractal-meshify-2-xl")
    assert (psu["Unit price (USD)"], psu["Price date"], psu["Price from"]) == (
        "450.00", "2026-10", f"price file {quotes}:2")
    assert case["Price from"] == "catalog"


def test_tco_of_a_build_takes_the_price_file(tmp_path: Path) -> None:
    quotes = _price_file(tmp_path, 'nvidia-rtx-3090-fe = { price = 800, date = "2026-11" }\n')
    argv = ("tco", "--build", str(PASSING), "--cloud-price", "2", "--format", "json")
    expected = _total() - 2 * (_catalog_price("gpu", "nvidia-rtx-3090-fe") - 800)
    assert json.loads(run_cli(*argv, "--prices", quotes).out)["hardware_cost_usd"] == pytest.approx(expected)


@pytest.mark.parametrize(("entry", "expected"), [
    ('nvidia-rtx-3090-fx = { price = 800, date = "2026-11" }',
     ":2: prices.nvidia-rtx-3090-fx: no part with this id in the catalogs; did you mean 'nvidia-rtx-3090-fe'"),
    ('nvidia-rtx-3090-fe = { price = 800 }', ':2: prices.nvidia-rtx-3090-fe.date: required key is missing'),
    ('nvidia-rtx-3090-fe = { price = 800, date = "Nov 2026" }',
     ':2: prices.nvidia-rtx-3090-fe.date: expected a date "YYYY-MM" or "YYYY-MM-DD"'),
    ('nvidia-rtx-3090-fe = 800', ":2: prices.nvidia-rtx-3090-fe: expected { price = …"),
    ('nvidia-rtx-3090-fe = { price = "800 EUR", date = "2026-11" }', ":2: prices.nvidia-rtx-3090-fe.price: expected"),
    ('nvidia-rtx-3090-fe = { price = 800, date = "2026-11", notes = "x" }',
     ":2: prices.nvidia-rtx-3090-fe.notes: unknown key; did you mean 'note'?"),
    ('rtx-3090 = { price = 800, date = "2026-11" }', ":2: prices.rtx-3090: 'rtx-3090' is a GPU chip"),
])
def test_a_bad_price_file_is_one_line_with_file_line_and_key(tmp_path: Path, entry: str, expected: str) -> None:
    quotes = _price_file(tmp_path, entry + "\n")
    run = run_cli("check", PASSING, "--prices", quotes)
    assert run.code == 2
    assert run.err.startswith(f"planner: {quotes}{expected}"), run.err
    assert run.err.count("\n") == 1


def test_a_missing_price_file_is_bad_input(tmp_path: Path) -> None:
    run = run_cli("export", PASSING, "--prices", tmp_path / "nowhere.toml")
    assert (run.code, run.err) == (2, f"planner: {tmp_path / 'nowhere.toml'}: no such price file\n")


def test_a_price_file_prices_the_part_everywhere_the_catalog_gives_it(tmp_path: Path) -> None:
    catalog = Catalog([builtin_dir()])
    load_prices(catalog, [_price_file(tmp_path, 'corsair-ax1600i = { price = 450, date = "2026-10" }\n')],
                user_file=False)
    psu = catalog.get("psu", "corsair-ax1600i")
    where = f"your price file {tmp_path}/quotes.toml:2"
    assert (psu.price, psu.price_date, psu.price_source) == (450.0, "2026-10", where)


def test_an_unknown_id_in_a_price_file_raises_input_error(tmp_path: Path) -> None:
    quotes = _price_file(tmp_path, 'no-such-psu = { price = 1, date = "2026-01" }\n')
    with pytest.raises(InputError, match="no part with this id"):
        load_prices(Catalog([builtin_dir()]), [quotes], user_file=False)


# -- price dates in the reports -------------------------------------------------------------------------------

def test_the_check_report_shows_the_dates_of_its_prices() -> None:
    text = run_cli("check", PASSING).out
    dates = sorted(d for d in _summary(PASSING)["price_dates"].values())  # type: ignore[attr-defined]
    assert f"Price: ${_total():,.0f}, prices seen {dates[0][:7]} to {dates[-1][:7]}" in text


def test_the_json_summary_gives_each_price_its_date() -> None:
    summary = _summary(PASSING)
    catalog = Catalog([builtin_dir()])
    dates = summary["price_dates"]
    assert isinstance(dates, dict)
    for kind, part_id in (("case", "fractal-meshify-2-xl"), ("motherboard", "asus-pro-ws-wrx80e-sage-se"),
                          ("cpu", "amd-threadripper-pro-5975wx"), ("gpu", "nvidia-rtx-3090-fe"),
                          ("psu", "corsair-ax1600i")):
        assert dates[part_id] == catalog.get(kind, part_id).price_date
    assert summary["user_prices"] == {}


def test_the_exported_parts_list_shows_the_dates_of_its_prices() -> None:
    data = json.loads(run_cli("export", PASSING, "--format", "json").out)
    dates = sorted(p["price_date"] for p in data["parts"] if p["price_date"])
    assert data["price_dates"] == {"oldest": dates[0], "newest": dates[-1]}
    card_date = Catalog([builtin_dir()]).get("gpu", "nvidia-rtx-3090-fe").price_date
    assert {p["part"]: p["price_date"] for p in data["parts"]}["nvidia-rtx-3090-fe"] == card_date
    assert f"Prices seen {dates[0][:7]} to {dates[-1][:7]}." in run_cli("export", PASSING, "--format", "md").out


# -- inline parts stay apart ----------------------------------------------------------------------------------

TWO_INLINE_CARDS = """\
name = "Two different cards on one base"
case = "fractal-meshify-2-xl"
motherboard = "asus-pro-ws-wrx80e-sage-se"
cpu = "amd-threadripper-pro-5975wx"

[[psu]]
part = "corsair-ax1600i"

[[gpu]]
part = { base = "nvidia-rtx-3090-fe", name = "RTX 3090 FE, used", price = 700 }

[[gpu]]
part = { base = "nvidia-rtx-3090-fe", name = "RTX 3090 FE with water block", slot_width = 1, price = 1650 }
count = 2
"""


def test_an_export_of_two_inline_cards_on_one_base_lists_both_with_their_own_prices(tmp_path: Path) -> None:
    build = tmp_path / "build.toml"
    build.write_text(TWO_INLINE_CARDS, encoding="utf-8")
    data = json.loads(run_cli("export", build, "--format", "json").out)
    gpus = [(p["part"], p["name"], p["quantity"], p["unit_price_usd"], p["price_from"])
            for p in data["parts"] if p["kind"] == "gpu"]
    assert gpus == [("nvidia-rtx-3090-fe-custom", "RTX 3090 FE, used", 1, 700.0, "build file"),
                    ("nvidia-rtx-3090-fe-custom-2", "RTX 3090 FE with water block", 2, 1650.0, "build file")]
    others = sum(p["line_total_usd"] for p in data["parts"] if p["kind"] != "gpu")
    assert data["total_usd"] == pytest.approx(others + 700 + 2 * 1650)


def test_two_inline_cards_on_one_base_are_two_parts_in_the_check_report(tmp_path: Path) -> None:
    build = tmp_path / "build.toml"
    build.write_text(TWO_INLINE_CARDS, encoding="utf-8")
    summary = _summary(build)
    assert [g["part"] for g in summary["gpus"]] == [
        "nvidia-rtx-3090-fe-custom", "nvidia-rtx-3090-fe-custom-2", "nvidia-rtx-3090-fe-custom-2"]
    export = json.loads(run_cli("export", build, "--format", "json").out)
    others = sum(p["line_total_usd"] for p in export["parts"] if p["kind"] != "gpu")
    assert summary["price_usd"] == pytest.approx(others + 700 + 2 * 1650)


def test_identical_inline_parts_are_one_part(tmp_path: Path) -> None:
    build = tmp_path / "build.toml"
    card = '[[gpu]]\npart = { base = "nvidia-rtx-3090-fe", price = 700 }\n'
    build.write_text(TWO_INLINE_CARDS.split("[[gpu]]")[0] + card + "\n" + card, encoding="utf-8")
    rows = [p for p in json.loads(run_cli("export", build, "--format", "json").out)["parts"] if p["kind"] == "gpu"]
    assert [(p["part"], p["quantity"]) for p in rows] == [("nvidia-rtx-3090-fe-custom", 2)]


def test_an_inline_price_drops_the_bases_price_date(tmp_path: Path) -> None:
    build = tmp_path / "build.toml"
    build.write_text(TWO_INLINE_CARDS, encoding="utf-8")
    assert _summary(build)["price_dates"]["nvidia-rtx-3090-fe-custom"] is None  # type: ignore[index]


def test_two_different_inline_parts_may_not_share_an_id(tmp_path: Path) -> None:
    build = tmp_path / "build.toml"
    build.write_text(TWO_INLINE_CARDS.replace('name = "RTX 3090 FE, used"', 'id = "my-3090", name = "A"')
                     .replace('name = "RTX 3090 FE with water block"', 'id = "my-3090", name = "B"'), encoding="utf-8")
    run = run_cli("check", build)
    assert run.code == 2
    assert "gpu[1].part.id: another inline gpu with different fields already has id 'my-3090'" in run.err


# -- the curated catalog's share of dated prices --------------------------------------------------------------

def test_validate_stats_reports_the_share_of_curated_parts_with_a_dated_price() -> None:
    run = run_cli("catalog", "validate", "--stats")
    assert run.code == 0, run.err
    stats = price_stats(Catalog([builtin_dir()]))
    parts, dated = sum(s.parts for s in stats), sum(s.dated for s in stats)
    assert f"{dated} of {parts} curated parts ({dated / parts:.0%}) have a dated price." in run.out


def test_price_stats_count_only_curated_entries_as_written() -> None:
    gpus = next(s for s in price_stats(Catalog([builtin_dir()])) if s.kind == "gpu")
    with (ROOT / "catalogs" / "gpus.toml").open("rb") as handle:
        curated = tomllib.load(handle)
    assert gpus.parts == len(curated)
    prices = (("price", "price_date"), ("used_price", "used_price_date"))
    assert gpus.dated == sum(1 for e in curated.values()
                             if any(e.get(price) is not None for price, _ in prices)
                             and all(e.get(date) for price, date in prices if e.get(price) is not None))
