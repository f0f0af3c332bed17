"""A check is declared in one place: its code, order, what it reads and its row of docs/verdicts.md live in its
`@check(…)`; the document's tables are generated from the declarations, and the registry finds the rules itself."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from planner.checks.engine import registry
from planner.checks.engine.docs import render, table
from planner.checks.engine.registry import SECTIONS, check, registered, unregister

from helpers import ROOT

DOC = ROOT / "docs" / "verdicts.md"


def test_docs_verdicts_tables_are_the_ones_the_declarations_generate() -> None:
    current = DOC.read_text(encoding="utf-8")
    assert render(current, registered()) == current, "docs/verdicts.md is stale: run tools/gen_verdicts.py"


def test_every_built_in_check_declares_its_section_error_warning_and_evidence() -> None:
    for code, declared in registered().items():
        assert declared.section in SECTIONS, code
        assert declared.error and declared.warning and declared.evidence, code
        assert declared.order != float("inf"), code


def test_checks_run_in_the_order_they_declare() -> None:
    orders = [c.order for c in registered().values()]
    assert orders == sorted(orders)


def test_a_finding_takes_its_code_from_the_declaration() -> None:
    declared = registered()["psu.headroom"]
    finding = declared.finding("warning", "over the target", value=1.0)
    assert (finding.code, finding.severity, finding.value) == ("psu.headroom", "warning", 1.0)


def test_no_rule_writes_a_finding_code_by_hand() -> None:
    rules = Path(registry.__file__).resolve().parent.parent / "rules"
    hand_written = [f"{path.name}:{n}" for path in rules.rglob("*.py")
                    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if 'code="' in line]
    assert hand_written == []


@pytest.fixture
def new_rule() -> Iterator[None]:
    registered()
    check("thermal.dust", reads={"case"}, order=1_000, section="Heat", error="—",
          warning="a case with no dust filter on its intake", evidence="maker's spec pages")(lambda ctx: [])
    yield
    unregister("thermal.dust")


def test_a_new_check_gets_its_row_in_its_section_and_the_document_goes_stale(new_rule: None) -> None:
    assert "| `thermal.dust` | — | a case with no dust filter on its intake | maker's spec pages |" in table(
        registered(), "Heat")
    current = DOC.read_text(encoding="utf-8")
    assert render(current, registered()) != current


def test_a_section_the_document_does_not_know_is_refused_at_registration() -> None:
    with pytest.raises(ValueError, match="section"):
        check("thermal.dust", reads={"case"}, section="Noise")


def test_a_module_put_in_the_rules_package_is_found_without_being_listed(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "dust.py").write_text(textwrap.dedent('''
        from planner.checks.engine.registry import check

        @check("dust.filter", reads={"case"}, order=5, section="Heat", warning="no filter", evidence="spec pages")
        def dust_filter(ctx):
            """A made-up rule."""
            return []
    '''), encoding="utf-8")
    import planner.checks.rules as rules

    monkeypatch.setattr(rules, "__path__", [*rules.__path__, str(tmp_path)])
    registered()
    monkeypatch.setattr(registry, "_loaded", False)
    try:
        found = registered()
        assert next(iter(found)) == "dust.filter"  # found, and its order (5) runs it first
    finally:
        if "dust.filter" in registry.REGISTRY:
            unregister("dust.filter")
        sys.modules.pop("planner.checks.rules.dust", None)
