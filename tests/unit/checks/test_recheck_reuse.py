"""Fix re-checks run again only what an edit can change: the checks that read a field the edit touches, on a
context that keeps every model reading none of them; everything else is the unchanged build's. What they verify
is exactly what a full re-check verifies."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from test_check_reads import BUILDS, _perturbations

import planner.checks.engine.runner as runner
from planner.api import check_file
from planner.build.resolve import ResolvedBuild
from planner.catalog import Catalog
from planner.checks.engine import registry
from planner.checks.engine.context import MODEL_DEPENDS, MODEL_READS, Context, Settings
from planner.checks.engine.findings import Change, Finding
from planner.checks.engine.registry import codes_reading, informing, registered
from planner.checks.engine.runner import run_checks, touched

from conftest import EXAMPLES
from helpers import BASE, build, gpus

FILES = sorted(EXAMPLES.glob("*.toml"))
QUAD = EXAMPLES / "fail-psu-quad-3090-fe-1600w.toml"  # fails power, outlet and thermal checks: many fixes


def _resolved(path: Path, catalog: Catalog) -> ResolvedBuild:
    from planner.build.buildfile import load
    from planner.build.resolve import resolve

    spec, raw, text = load(path)
    return resolve(spec, raw, catalog, label=str(path), text=text)


class _Spy:
    """Records, for each re-check, the edit and the checks that ran on it (with the contexts they saw)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.runs: list[tuple[list[Change], list[str], list[Context]]] = []
        self._current: tuple[list[str], list[Context]] | None = None
        for code, check in registered().items():
            monkeypatch.setitem(registry.REGISTRY, code, dataclasses.replace(check, run=self._wrap(code, check.run)))
        recheck = runner._recheck

        def spied(build: ResolvedBuild, catalog: Catalog, settings: Settings, changes: list[Change],
                  *rest: Any) -> list[Finding] | None:
            self._current = ([], [])
            try:
                return recheck(build, catalog, settings, changes, *rest)
            finally:
                self.runs.append((changes, *self._current))
                self._current = None

        monkeypatch.setattr(runner, "_recheck", spied)

    def _wrap(self, code: str, run: Callable[[Context], Any]) -> Callable[[Context], Any]:
        def spied(ctx: Context) -> Any:
            if self._current is not None:
                self._current[0].append(code)
                self._current[1].append(ctx)
            return run(ctx)
        return spied


def _expected_reruns(changes: list[Change]) -> set[str]:
    fields = touched(changes)
    every = set(registered()) - informing()
    return every if fields is None else {c for c in every if registered()[c].reads & fields}


def test_a_power_limit_fix_reruns_exactly_the_checks_that_read_power_limits(monkeypatch: pytest.MonkeyPatch,
                                                                           catalog: Catalog) -> None:
    spy = _Spy(monkeypatch)
    run_checks(_resolved(QUAD, catalog), catalog)
    limits = [ran for changes, ran, _ in spy.runs if touched(changes) == {"gpus.power_limit"}]
    assert limits, "the example offers power-limit fixes"
    for ran in limits:
        assert set(ran) == codes_reading("gpus.power_limit") - informing()
        assert "case.gpu-length" not in ran and "slot.lanes" not in ran


def test_an_outlet_fix_reruns_exactly_the_checks_that_read_circuits(monkeypatch: pytest.MonkeyPatch,
                                                                    catalog: Catalog) -> None:
    spy = _Spy(monkeypatch)
    run_checks(_resolved(QUAD, catalog), catalog)
    outlets = [(changes, ran) for changes, ran, _ in spy.runs if touched(changes) == {"circuits"}]
    assert outlets, "the example offers other outlets"
    for changes, ran in outlets:
        assert set(ran) == codes_reading("circuits") - informing(), changes
        assert "thermal.gpu-temp" not in ran


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_every_recheck_of_an_example_reruns_exactly_the_checks_reading_what_it_touches(
        path: Path, monkeypatch: pytest.MonkeyPatch, catalog: Catalog) -> None:
    spy = _Spy(monkeypatch)
    run_checks(_resolved(path, catalog), catalog)
    for changes, ran, _ in spy.runs:
        assert sorted(ran) == sorted(_expected_reruns(changes)), changes


def test_an_edit_at_a_path_the_registry_does_not_know_reruns_every_check(monkeypatch: pytest.MonkeyPatch,
                                                                         catalog: Catalog) -> None:
    build = _resolved(QUAD, catalog)
    checked = Context(build, catalog, propose_fixes=False)
    plain = run_checks(build, catalog, propose_fixes=False, context=checked)
    spy = _Spy(monkeypatch)
    runner._recheck(build, catalog, Settings(), [Change("name", "renamed")],
                    runner._Unchanged(plain, checked, frozenset()))
    [(_, ran, contexts)] = spy.runs
    assert set(ran) == set(registered()) - informing()
    assert contexts[0].placement is not checked.placement


def test_a_kept_model_is_the_unchanged_builds_own_object(monkeypatch: pytest.MonkeyPatch, catalog: Catalog) -> None:
    build = _resolved(QUAD, catalog)
    checked = Context(build, catalog, propose_fixes=False)
    spy = _Spy(monkeypatch)
    run_checks(build, catalog, context=checked)
    outlets = [contexts for changes, _, contexts in spy.runs if touched(changes) == {"circuits"}]
    assert outlets
    for contexts in outlets:
        seen = contexts[0].__dict__
        for name in ("placement", "budget", "thermal", "performance"):  # they read no circuit
            assert seen[name] is checked.__dict__[name], name
        assert seen.get("power_split") is not checked.__dict__["power_split"]  # it reads the circuits


def test_a_cpu_edit_keeps_no_placement_whose_links_run_at_the_old_cpus_generation(
        monkeypatch: pytest.MonkeyPatch, catalog: Catalog) -> None:
    """Where the cards sit reads no CPU, but the placement states each link's PCIe generation, which a CPU's
    lanes cap: a Gen 3 CPU in place of a Gen 4 one is a placement of Gen 3 links."""
    build = _resolved(QUAD, catalog)
    checked = Context(build, catalog, propose_fixes=False)
    plain = run_checks(build, catalog, propose_fixes=False, context=checked)
    assert {m.gen for m in checked.placement.mounts if m} == {4}
    spy = _Spy(monkeypatch)
    quick = runner._recheck(build, catalog, Settings(), [Change("cpu", "amd-threadripper-2990wx")],
                            runner._Unchanged(plain, checked, frozenset()))
    [(_, _, contexts)] = spy.runs
    assert {m.gen for m in contexts[0].placement.mounts if m} == {3}
    assert _key(quick) == _key(runner._recheck(build, catalog, Settings(), [Change("cpu", "amd-threadripper-2990wx")]))


@pytest.mark.parametrize("name", BUILDS)
def test_a_field_a_model_does_not_depend_on_never_changes_it(name: str, catalog: Catalog) -> None:
    """What makes a kept model safe: with any one field changed that it does not depend on (MODEL_DEPENDS), each
    model equals the unchanged build's."""
    from planner.build.buildfile import loads
    from planner.build.resolve import resolve

    spec, raw = loads(BUILDS[name], f"{name}.toml")
    base = resolve(spec, raw, catalog, label=f"{name}.toml", text=BUILDS[name])
    before = Context(base, catalog, propose_fixes=False)
    for field, changed in _perturbations(base, catalog):
        after = Context(changed, catalog, propose_fixes=False)
        moved = [model for model, depends in MODEL_DEPENDS.items()
                 if not set(field.split("+")) & depends and getattr(after, model) != getattr(before, model)]
        assert moved == [], f"{field} changes {moved} on {name}"


def test_a_context_keeps_exactly_the_computed_models_that_read_none_of_the_edited_fields(catalog: Catalog) -> None:
    checked = Context(_resolved(QUAD, catalog), catalog, propose_fixes=False)
    assert checked.unchanged_by(frozenset({"circuits"})) == {}  # nothing computed yet
    for name in MODEL_READS:
        getattr(checked, name)
    assert set(checked.unchanged_by(frozenset({"circuits"}))) == {"budget", "placement", "thermal", "performance"}
    assert set(checked.unchanged_by(frozenset({"gpus.power_limit"}))) == {"placement", "psu_ratings"}
    assert set(checked.unchanged_by(frozenset({"case"}))) == {"budget", "psu_ratings", "power_split"}
    assert set(checked.unchanged_by(frozenset({"gpus"}))) == {"psu_ratings"}
    assert set(checked.unchanged_by(frozenset({"cpu"}))) == {"psu_ratings"}  # the CPU caps the links: MODEL_DEPENDS


def test_a_context_refuses_a_model_it_does_not_have(catalog: Catalog) -> None:
    with pytest.raises(ValueError, match="unknown models"):
        Context(_resolved(QUAD, catalog), catalog, models={"airflow": object()})


def _key(findings: list[Finding] | None) -> list[tuple[Any, ...]] | None:
    """What a re-check's findings are weighed by, and more: all but their wording (a re-check words none)."""
    return None if findings is None else sorted(((f.code, f.severity, f.subject, f.value, f.limit, f.unit)
                                                 for f in findings), key=repr)


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_each_recheck_finds_what_a_full_recheck_of_the_edited_build_finds(
        path: Path, monkeypatch: pytest.MonkeyPatch, catalog: Catalog) -> None:
    recheck = runner._recheck
    compared: list[list[Change]] = []

    def both(build: ResolvedBuild, catalog: Catalog, settings: Settings, changes: list[Change],
             *rest: Any) -> list[Finding] | None:
        quick = recheck(build, catalog, settings, changes, *rest)
        assert _key(quick) == _key(recheck(build, catalog, settings, changes)), changes
        compared.append(changes)
        return quick

    monkeypatch.setattr(runner, "_recheck", both)
    check_file(path, catalog)
    if path == QUAD:
        assert len(compared) > 10


def _fixes(path: Path) -> Iterator[tuple[str, str, str, bool | None]]:
    for finding in check_file(path, Catalog()).findings:
        for fix in finding.fixes:
            yield finding.code, fix.description, repr(fix.changes), fix.verified


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_the_verified_fixes_of_an_example_are_those_a_full_recheck_verifies(path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    quick = list(_fixes(path))
    monkeypatch.setattr(runner, "touched", lambda changes: None)  # re-check everything, keep no model
    assert quick == list(_fixes(path))


# -- inline parts are validated once for the same fields -----------------------------------------------------------
def _inline_case(fields: str) -> str:
    return BASE.replace('case = "fractal-meshify-2-xl"', f'case = {{ base = "fractal-meshify-2-xl", {fields} }}') \
        + gpus("nvidia-rtx-3090-fe")


def test_the_same_inline_part_resolved_again_is_the_same_validated_object() -> None:
    text = _inline_case('intake_airflow = "300 cfm"')
    assert build(text).case is build(text).case


def test_an_inline_part_with_other_fields_is_validated_for_itself() -> None:
    first = build(_inline_case('intake_airflow = "300 cfm"')).case
    other = build(_inline_case('intake_airflow = "310 cfm"')).case
    assert (first.intake_airflow, other.intake_airflow) == (300, 310)


def test_an_invalid_inline_part_is_refused_every_time_it_is_resolved() -> None:
    from planner.util.errors import InputError

    for _ in range(2):
        with pytest.raises(InputError, match="intake_airflow"):
            build(_inline_case('intake_airflow = "-5 cfm"'))
