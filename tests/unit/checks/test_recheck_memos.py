"""What a run's re-checks remember (the checks an edit of some fields keeps, the fields an edit path touches) is
what working it out again gives."""

from __future__ import annotations

from planner.api import load_build
from planner.catalog import Catalog
from planner.checks.engine import runner
from planner.checks.engine.context import Context
from planner.checks.engine.registry import EDIT_PATHS, FIELDS, edit_fields

from conftest import EXAMPLES

QUAD = EXAMPLES / "fail-psu-quad-3090-fe-1600w.toml"


def test_the_kept_checks_of_some_fields_are_those_worked_out_afresh(catalog: Catalog) -> None:
    build = load_build(QUAD, catalog)
    plain = Context(build, catalog, propose_fixes=False)
    findings = runner._run(plain)
    remembering = runner._Unchanged(findings, plain, frozenset({"thermal.case"}))
    for field in FIELDS:
        for fields in (frozenset({field}), frozenset({field, "circuits"})):
            first = remembering.kept(fields)
            assert remembering.kept(fields) is first
            assert first == runner._Unchanged(findings, plain, frozenset({"thermal.case"})).kept(fields)
            assert "thermal.case" not in first[0]


def test_the_fields_of_an_edit_path_are_those_worked_out_afresh() -> None:
    paths = [p.replace("[]", "[3]").replace(".*", ".outlet") for group in EDIT_PATHS.values() for p in group]
    for path in [*paths, "name", "gpu[12].part", "circuit[0].other_load", "nonsense.key"]:
        assert edit_fields(path) == edit_fields.__wrapped__(path)  # type: ignore[attr-defined]
        assert edit_fields(path) == edit_fields(path)
