"""Plug allocations are made once per unit, cards and needs (connectors.allocate_plugs): the remembered answer is
the one working it out again gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.api import load_build
from planner.catalog import Catalog
from planner.checks.limits import with_limits
from planner.models.parts import Psu
from planner.physics import connectors
from planner.physics.connectors import allocate_plugs, gpu_plug_need
from planner.util import memo

from conftest import EXAMPLES

FILES = sorted(EXAMPLES.glob("*.toml"))


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_a_remembered_allocation_is_the_one_worked_out_afresh(path: Path, catalog: Catalog) -> None:
    build = load_build(path, catalog)
    lowest = with_limits(build, {g.spec_index: g.board.power_limit_min for g in build.gpus})
    for changed in (build, lowest):
        needs = [gpu_plug_need(g) for g in changed.gpus]
        for use in changed.psus:
            for cards in (changed.gpus, changed.gpus[:1], changed.gpus[1:], []):
                wanted = [needs[g.index] for g in cards]
                first = allocate_plugs(use.part, cards, wanted, 1)
                assert allocate_plugs(use.part, cards, wanted, 1) is first
                assert first == connectors._allocate(use.part, [g.index for g in cards], wanted, 1)


def test_another_unit_or_other_needs_are_not_answered_with_a_remembered_allocation(catalog: Catalog) -> None:
    build = load_build(EXAMPLES / "fail-psu-connectors-dual-3090.toml", catalog)  # too few PCIe plugs
    needs = [gpu_plug_need(g) for g in build.gpus]
    short = allocate_plugs(build.psus[0].part, build.gpus, needs, 1)
    assert short.short
    bigger = catalog.typed("psu", "corsair-ax1600i", Psu)
    assert not allocate_plugs(bigger, build.gpus, needs, 1).short
    assert allocate_plugs(build.psus[0].part, build.gpus[:1], needs[:1], 1) != short
    assert allocate_plugs(build.psus[0].part, build.gpus, needs, 2) != short


def test_the_remembered_allocations_are_emptied_when_full(catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    build = load_build(EXAMPLES / "fail-psu-connectors-dual-3090.toml", catalog)
    monkeypatch.setattr(memo, "MAX_ENTRIES", 2)
    connectors.allocate_to.cache_clear()  # type: ignore[attr-defined]
    needs = [gpu_plug_need(g) for g in build.gpus]
    for eps in range(5):
        allocate_plugs(build.psus[0].part, build.gpus, needs, eps)
        assert connectors.allocate_to.cache_size() <= 2  # type: ignore[attr-defined]
