"""Cards that are the same part are grouped however the file lists them (issue 26): sixteen [[gpu]] tables of one
card get the report, the fixes and the optimiser's answer of one table with count = 16."""

from __future__ import annotations

from pathlib import Path

from planner.api import check_file
from planner.catalog import Catalog

from helpers import TESTS

DATA = TESTS / "data" / "alike"
BY_COUNT, BY_TABLES = DATA / "sixteen-by-count.toml", DATA / "sixteen-by-tables.toml"


def _findings(path: Path, catalog: Catalog) -> list[tuple[str, str, str, list[str]]]:
    report = check_file(path, catalog)
    return [(f.code, f.severity, f.message, [fix.description for fix in f.fixes]) for f in report.findings]


def test_sixteen_tables_of_one_card_get_the_findings_and_fixes_of_count_16(catalog: Catalog) -> None:
    assert _findings(BY_TABLES, catalog) == _findings(BY_COUNT, catalog)


def test_the_optimiser_gives_sixteen_alike_tables_one_limit_in_one_clause(catalog: Catalog) -> None:
    report = check_file(BY_TABLES, catalog)
    [cost] = [f for f in report.findings if f.code == "power-limit.cost"]
    [fix] = cost.fixes
    assert "on all 16 GPUs" in fix.description and fix.description.count("remains even at") <= 1
    assert len({c.value for c in fix.changes}) == 1 and len(fix.changes) == 16
