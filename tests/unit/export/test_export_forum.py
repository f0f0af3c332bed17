"""Forum exports with a check report (issue 28): the estimated power, the power limits, owned and to-buy marks, each
price's market and date, no local path; Markdown tables that GitHub, Discourse and Reddit render alike."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from planner.api import check_build
from planner.catalog import Catalog
from planner.catalog.prices import load_prices
from planner.export.formats import export

from conftest import ROOT
from helpers import TEST_CATALOG_DIR, build

GOLDEN = ROOT / "tests" / "golden"
SUFFIX = {"md": "md", "bbcode": "bbcode", "text": "txt"}
#: Two PSUs on two circuits, owned cards and board, a power limit, a price from a price file in a folder.
SHARED_BUILD = """
name = "Two-circuit 3090 build"
case = "fractal-meshify-2-xl"
motherboard = { base = "asus-pro-ws-wrx80e-sage-se", owned = true }
cpu = "amd-threadripper-pro-5975wx"
[[circuit]]
name = "desk"
outlet = "nema-5-20"
[[circuit]]
name = "hall"
outlet = "nema-5-15"
other_load = 150
[[psu]]
part = "corsair-ax1600i"
circuit = "desk"
[[psu]]
part = "corsair-hx1000"
circuit = "hall"
[[gpu]]
part = "nvidia-rtx-3090-fe"
count = 2
owned = true
power_limit = 280
[[gpu]]
part = "gigabyte-rtx-3090-turbo"
count = 2
"""


def _shared(tmp_path: Path, fmt: str) -> str:
    folder = tmp_path / "my secret folder"
    folder.mkdir()
    prices = folder / "used-prices.toml"
    prices.write_text('[prices]\ncorsair-hx1000 = { price = 120, date = "2026-10", note = "a friend" }\n')
    catalog = Catalog([TEST_CATALOG_DIR])
    load_prices(catalog, [prices], user_file=False)
    resolved = build(SHARED_BUILD, catalog)
    return export(resolved, fmt, check_build(resolved, catalog))


@pytest.mark.parametrize("fmt", SUFFIX)
def test_a_forum_export_with_its_report_matches_its_golden_file(tmp_path: Path, fmt: str) -> None:
    text = _shared(tmp_path, fmt)
    golden = GOLDEN / f"shared-build.{SUFFIX[fmt]}"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.write_text(text)
    assert text == golden.read_text(), f"UPDATE_GOLDEN=1 pytest {__file__} regenerates it after a deliberate change"


@pytest.mark.parametrize("fmt", SUFFIX)
def test_a_forum_export_says_power_limits_owned_parts_and_where_each_price_is_from(tmp_path: Path, fmt: str) -> None:
    text = _shared(tmp_path, fmt)
    for words in ("Estimated DC load", "at the wall", "of its 1,440 W continuous limit",  # the hall circuit
                  "of its 1,600 W rating", "Power limit GPU1, GPU2", "280 W (stock 350 W)",
                  "owned", "to buy", "new   2023-06" if fmt == "text" else "new, 2023-06", "2026-10",
                  "price file used-prices.toml:2 (a friend)"):
        assert words in text, (words, text)
    assert str(tmp_path) not in text and "secret folder" not in text  # a price file by its name, never its path


def test_markdown_renders_as_a_table_of_four_columns_with_the_totals_in_it(tmp_path: Path) -> None:
    html_tokens = MarkdownIt("commonmark").enable("table").parse(_shared(tmp_path, "md"))
    rows: list[list[str]] = []
    row: list[str] | None = None
    cell = False
    for token in html_tokens:
        if token.type == "tr_open":
            row = []
        elif token.type in ("th_open", "td_open"):
            cell = True
            assert row is not None
            row.append("")
        elif token.type in ("th_close", "td_close"):
            cell = False
        elif token.type == "inline" and cell and row is not None:
            row[-1] = "".join(child.content for child in token.children or [] if child.type == "text")
        elif token.type == "tr_close":
            assert row is not None
            rows.append(row)
    assert rows[0] == ["Type", "Item", "Price", "Status"]
    assert all(len(r) == 4 for r in rows), rows  # no row shifts a column
    labels = [r[1] for r in rows if r[0] == ""]
    assert labels == ["To buy", "Owned", "Total"]
    assert any(r[3] == "owned" and "Founders" in r[1] for r in rows)
    assert any(r[3] == "to buy" and "TURBO" in r[1] for r in rows)
    # the user's price mark is an asterisk, not emphasis; and no note renders its own asterisks literally
    psu = next(r for r in rows if "HX1000" in r[1])
    assert psu[2].endswith(" *"), psu


def test_markdown_footnotes_render_as_text_not_literal_asterisks(tmp_path: Path) -> None:
    rendered = MarkdownIt("commonmark").enable("table").render(_shared(tmp_path, "md"))
    assert "* your price, not the catalog's." in rendered
    assert "**" not in rendered and "| *" not in rendered


@pytest.mark.parametrize("name", ["a | b", "line\nbreak", "x\r|y", "\u2028z|"])
def test_a_part_name_with_a_pipe_or_a_line_break_keeps_every_row_at_four_cells(name: str) -> None:
    text = SHARED_BUILD.replace('part = "nvidia-rtx-3090-fe"',
                                f'part = {{ base = "nvidia-rtx-3090-fe", name = {json.dumps(name)} }}')
    resolved = build(text)
    tokens = MarkdownIt("commonmark").enable("table").parse(export(resolved, "md"))
    counts: list[int] = []
    for token in tokens:
        if token.type == "tr_open":
            counts.append(0)
        elif token.type in ("th_open", "td_open"):
            counts[-1] += 1
    assert counts and set(counts) == {4}, counts
