"""The shortcuts that make checking fast give the answer the long way gives: the split's
ranking without building every candidate, edits that copy only what they change, optimiser trials seeded with
the models a power-limit edit leaves unchanged."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

import planner.physics.delivery as delivery
from planner.api import load_build
from planner.build.buildfile import validate
from planner.build.edit import apply, set_path
from planner.build.resolve import ResolvedBuild, resolve
from planner.catalog import Catalog
from planner.checks.engine.context import Context, Settings
from planner.checks.engine.findings import Change
from planner.checks.limits import with_limits
from planner.checks.optimize import _Search
from planner.physics.delivery import power_split
from planner.physics.power import dc_budget

from conftest import EXAMPLES

FILES = sorted(EXAMPLES.glob("*.toml"))
DUAL_PSU = EXAMPLES / "warn-dual-psu-two-circuits.toml"
QUAD = EXAMPLES / "fail-psu-quad-3090-fe-1600w.toml"  # one PSU, one circuit: fixes add a second of each


def _resolved(build: ResolvedBuild, changes: list[Change], catalog: Catalog) -> ResolvedBuild:
    data = apply(build.raw, changes)
    return resolve(validate(data, "", build.file), data, catalog, label=build.file)


def _second_psu(build: ResolvedBuild, part: str) -> list[Change]:
    """What power_fixes.second_circuit_fix proposes: a second PSU on a new circuit."""
    circuit = build.circuits[0]
    psus = [dict(p, circuit=p.get("circuit") or build.psus[i].circuit) for i, p in enumerate(build.raw["psu"])]
    circuits = [{"name": c.name, "outlet": c.outlet.id} for c in build.circuits]
    return [Change("circuit", [*circuits, {"name": f"{circuit.name}-2", "outlet": circuit.outlet.id}]),
            Change("psu", [*psus, {"part": part, "circuit": f"{circuit.name}-2"}])]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_the_ranked_split_is_the_best_candidate_evaluated_in_full(catalog: Catalog, path: Path) -> None:
    """power_split ranks candidates by score and builds only the winner: the same split as evaluating every
    candidate in full and taking the lowest key (the first of equals)."""
    build = load_build(path, catalog)
    for changed in (build, _resolved(build, _second_psu(build, "corsair-hx1000"), catalog)):
        budget = dc_budget(changed)
        problem = delivery._Problem(changed, budget, Settings().psu_target)
        fixed: dict[int, int] = {}
        free: dict[int, list[int]] = {}
        for gpu, need in zip(changed.gpus, problem.needs, strict=True):  # as power_split deals them out
            if len(changed.psus) == 1 or need == delivery._NO_INPUTS:
                fixed[gpu.index] = delivery.BOARD_PSU
            elif gpu.psu is not None:
                fixed[gpu.index] = gpu.psu
            else:
                free.setdefault(gpu.spec_index, []).append(gpu.index)
        candidates = (list(delivery._every_split(list(free.values()), len(changed.psus), fixed, len(changed.gpus)))
                      if free else [[fixed[g.index] for g in changed.gpus]])
        long_way = min((problem.evaluate(c) for c in candidates), key=lambda scored: scored[0])[1]
        assert power_split(changed, budget) == long_way


def _deep_then_set(data: dict[str, Any], changes: list[Change]) -> dict[str, Any]:
    changed = copy.deepcopy(data)
    for change in changes:
        set_path(changed, change.path, change.value)
    return changed


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_an_edit_gives_what_a_deep_copy_edited_gives_and_leaves_the_build_as_it_was(catalog: Catalog,
                                                                                       path: Path) -> None:
    build = load_build(path, catalog)
    before = copy.deepcopy(build.raw)
    edits = [[Change("gpu[0].power_limit", "250 W")], [Change("psu[0].part", "corsair-hx1000")],
             [Change("case", "fractal-meshify-2-xl")], [Change("extras.other", "50 W")],
             _second_psu(build, "corsair-hx1000"),
             [*_second_psu(build, "corsair-hx1000"), Change("psu[1].circuit", build.circuits[0].name)]]
    for changes in edits:
        assert apply(build.raw, changes) == _deep_then_set(before, changes)
        assert build.raw == before


def test_an_edit_copies_what_it_changes_and_shares_the_rest() -> None:
    data: dict[str, Any] = {"gpu": [{"part": "a", "power_limit": "300 W"}, {"part": "b"}], "case": "c",
                            "extras": {"other": "10 W"}}
    changed = apply(data, [Change("gpu[0].power_limit", "250 W")])
    assert data["gpu"][0]["power_limit"] == "300 W"
    assert changed["gpu"][0]["power_limit"] == "250 W"
    assert changed["gpu"] is not data["gpu"] and changed["gpu"][0] is not data["gpu"][0]
    assert changed["gpu"][1] is data["gpu"][1] and changed["extras"] is data["extras"]


def test_an_edit_into_a_value_another_edit_set_leaves_that_change_as_it_was() -> None:
    psus = [{"part": "x"}, {"part": "y"}]
    changes = [Change("psu", psus), Change("psu[1].circuit", "b")]
    changed = apply({"psu": [{"part": "x"}]}, changes)
    assert changed["psu"] == [{"part": "x"}, {"part": "y", "circuit": "b"}]
    assert psus == [{"part": "x"}, {"part": "y"}]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_an_optimiser_trial_finds_what_an_unseeded_context_finds(catalog: Catalog, path: Path) -> None:
    build = load_build(path, catalog)
    if not build.gpus:
        pytest.skip("no GPUs: nothing to optimise")
    search = _Search(build, catalog, Settings(), ("error", "warning"))
    assert set(search.models) == {"placement", "psu_ratings"}
    lower = with_limits(build, {g.spec_index: g.board.power_limit_min for g in build.gpus})
    for limits_build in (build, lower):
        trial = search.check(limits_build)
        plain = Context(limits_build, catalog, Settings(), propose_fixes=False)
        findings = [f for check in search.checks for f in check.run(plain)]
        assert trial.problems == search.problems(findings)
        assert trial.relative_perf == plain.performance.relative_perf


def test_replacement_psus_asks_accept_lazily_and_offers_what_filtering_all_first_offers(catalog: Catalog) -> None:
    from planner.checks.engine.runner import _recheck, run_checks
    from planner.checks.power_fixes import replacement_psus
    from planner.models.parts import Psu
    from planner.physics.power import rated_watts, runs_on

    build = load_build(EXAMPLES / "fail-psu-connectors-dual-3090.toml", catalog)  # too few PCIe plugs
    settings = Settings()
    ctx = Context(build, catalog, settings, propose_fixes=False).proposing(
        lambda changes: _recheck(build, catalog, settings, changes),
        {f.code for f in run_checks(build, catalog, settings, propose_fixes=False) if f.severity == "error"})
    asked: list[str] = []

    def accept(psu: Psu, rating: float) -> bool:
        asked.append(psu.id)
        return psu.connectors.pcie_8pin >= 4 and rating >= 1000

    fixes = replacement_psus(ctx, 0, accept, "psu.connectors", lambda psu, rating: f"{rating:g} W", tries=2)
    voltage = build.circuits[0].outlet.voltage
    every = sorted((p for p in catalog.all("psu", curated=True) if isinstance(p, Psu) and p.id != build.psus[0].part.id
                    and runs_on(p, voltage) and p.connectors.pcie_8pin >= 4
                    and rated_watts(p, voltage) >= 1000),
                   key=lambda p: (p.price is None, p.price or 0.0, rated_watts(p, voltage), p.id))
    long_way = [p.id for p in every[:2] if ctx.fix(p.id, [Change("psu[0].part", p.id)], "psu.connectors")]
    assert long_way and [f.changes[0].value for f in fixes] == long_way
    assert len(asked) < len([p for p in catalog.all("psu", curated=True) if isinstance(p, Psu)])
