"""Fix re-checks and the optimiser's trials weigh findings by code, severity and subject, so their contexts leave
findings unworded (Context.wording): everything but the message is what a worded run finds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from planner.api import check_file, load_build
from planner.catalog import Catalog
from planner.checks.engine import runner
from planner.checks.engine.context import Context, Settings
from planner.checks.engine.findings import Change, Finding

from conftest import EXAMPLES

FILES = sorted(EXAMPLES.glob("*.toml"))


def _unworded(findings: list[Finding]) -> list[Any]:
    return [f._replace(message="") for f in findings]


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_an_unworded_run_finds_what_a_worded_run_finds_but_the_words(path: Path, catalog: Catalog) -> None:
    build = load_build(path, catalog)
    worded = runner.run_checks(build, catalog, propose_fixes=False)
    unworded = runner.run_checks(build, catalog, propose_fixes=False,
                                 context=Context(build, catalog, propose_fixes=False, wording=False))
    assert _unworded(unworded) == _unworded(worded)
    assert all(f.message for f in worded)


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_every_recheck_finds_what_a_worded_check_of_the_edited_build_finds_but_the_words(
        path: Path, catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    from planner.build.buildfile import validate
    from planner.build.edit import apply
    from planner.build.resolve import resolve
    from planner.checks.engine.registry import informing

    recheck = runner._recheck
    compared = []

    def both(build: Any, catalog: Catalog, settings: Settings, changes: list[Change], *rest: Any) -> Any:
        quick = recheck(build, catalog, settings, changes, *rest)
        data = apply(build.raw, changes)
        changed = resolve(validate(data, "", build.file), data, catalog, label=build.file)
        full = runner.run_checks(changed, catalog, settings, propose_fixes=False, skip=informing())
        assert quick is not None
        assert sorted(map(repr, _unworded(quick))) == sorted(map(repr, _unworded(full))), changes
        compared.append(changes)
        return quick

    monkeypatch.setattr(runner, "_recheck", both)
    check_file(path, catalog)
    if path.name.startswith("fail-"):
        assert compared


def test_a_checked_build_words_every_finding_and_fix(catalog: Catalog) -> None:
    report = check_file(EXAMPLES / "fail-psu-quad-3090-fe-1600w.toml", catalog)
    assert report.findings and all(f.message for f in report.findings)
    assert all(fix.description for f in report.findings for fix in f.fixes)
