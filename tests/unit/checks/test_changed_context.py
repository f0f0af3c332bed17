"""A fix that asks a model of the changed build before its re-check (power_fixes._split_works: does the split
work?) hands that changed build's context to the re-check: the re-check resolves nothing again, and finds what a
re-check from scratch finds."""

from __future__ import annotations

from typing import Any

import pytest

from planner.api import load_build
from planner.catalog import Catalog
from planner.checks.engine import runner
from planner.checks.engine.context import Context, Settings, changed_context
from planner.checks.engine.findings import Change, Finding
from planner.checks.engine.registry import informing
from planner.checks.power_fixes import _split_works
from planner.physics.delivery import power_split
from planner.physics.power import dc_budget

from conftest import EXAMPLES

QUAD = EXAMPLES / "fail-psu-quad-3090-fe-1600w.toml"  # one PSU on one circuit: a fix adds a second PSU


def _second_psu(ctx: Context, part: str) -> list[Change]:
    """What second_circuit_fix proposes: a second PSU on a new circuit like the first."""
    build = ctx.build
    circuit = build.circuits[0]
    psus = [dict(p, circuit=p.get("circuit") or build.psus[i].circuit) for i, p in enumerate(build.raw["psu"])]
    return [Change("circuit", [{"name": circuit.name, "outlet": circuit.outlet.id},
                               {"name": f"{circuit.name}-2", "outlet": circuit.outlet.id}]),
            Change("psu", [*psus, {"part": part, "circuit": f"{circuit.name}-2"}])]


def _proposing(catalog: Catalog) -> tuple[Context, list[list[Change]]]:
    """The proposing context of QUAD, as run_checks makes it, recording each edit it re-checks."""
    build = load_build(QUAD, catalog)
    settings = Settings()
    plain = Context(build, catalog, settings, propose_fixes=False)
    findings = runner._run(plain)
    unchanged = runner._Unchanged(findings, plain, frozenset())
    asked: list[list[Change]] = []

    def recheck(changes: list[Change]) -> list[Finding] | None:
        asked.append(changes)
        return runner._recheck(build, catalog, settings, changes, unchanged, ctx.take_changed(changes))

    ctx = plain.proposing(recheck, {f.code for f in findings if f.severity == "error"},
                          lambda changes: changed_context(plain, changes, runner.touched(changes)))
    return ctx, asked


def _key(findings: list[Finding] | None) -> Any:
    """All but the wording (a re-check words no finding: test_wording.py)."""
    return None if findings is None else sorted(((f.code, f.severity, tuple(f.subject), f.value, f.limit)
                                                 for f in findings), key=repr)


@pytest.mark.parametrize("part", ["corsair-hx1000", "corsair-rm850x"])
def test_the_split_asked_first_is_the_one_a_split_from_scratch_gives(catalog: Catalog, part: str) -> None:
    ctx, _ = _proposing(catalog)
    changes = _second_psu(ctx, part)
    works = _split_works(ctx, changes)
    changed = ctx.changed(changes)
    assert changed is not None
    assert changed.power_split == power_split(changed.build, dc_budget(changed.build), ctx.settings.psu_target)
    assert works == changed.power_split.feasible


def test_the_recheck_takes_the_context_the_split_was_asked_on_and_resolves_nothing_again(catalog: Catalog) -> None:
    ctx, _ = _proposing(catalog)
    made: list[list[Change]] = []
    make = ctx.make_changed
    assert make is not None
    ctx.make_changed = lambda changes: made.append(changes) or make(changes)
    changes = _second_psu(ctx, "corsair-hx1000")
    assert _split_works(ctx, changes)
    asked = ctx.changed(changes)
    assert len(made) == 1
    assert ctx.take_changed(changes) is asked and len(made) == 1  # the re-check's: the one the split was asked on
    assert ctx.take_changed(changes) is not asked and len(made) == 2  # taken once: asking again makes a new one


def test_a_recheck_through_the_context_asked_first_finds_what_one_from_scratch_finds(catalog: Catalog) -> None:
    ctx, _ = _proposing(catalog)
    build, settings = ctx.build, ctx.settings
    for part in ("corsair-hx1000", "corsair-rm850x", "corsair-ax1600i"):
        changes = _second_psu(ctx, part)
        _split_works(ctx, changes)
        through = ctx.rechecked(changes)
        fresh = changed_context(Context(build, catalog, settings), changes, None)
        assert fresh is not None
        scratch = runner.run_checks(fresh.build, catalog, settings, propose_fixes=False, skip=informing())
        assert _key(through) == _key(scratch)


def test_an_edit_that_no_longer_resolves_has_no_context_and_no_recheck(catalog: Catalog) -> None:
    ctx, _ = _proposing(catalog)
    changes = [Change("psu[0].part", "no-such-psu")]
    assert ctx.changed(changes) is None
    assert not _split_works(ctx, changes)
    assert ctx.rechecked(changes) is None
