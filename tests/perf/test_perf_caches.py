"""Caches added for throughput (issue 16): the memo's one- and two-argument fast paths and the per-catalog
ranking of curated PSUs give the same answers as computing afresh."""

from __future__ import annotations

from planner.catalog import Catalog
from planner.checks.power_fixes import _ranked_psus
from planner.models.parts import Psu
from planner.physics.power import rated_watts, runs_on
from planner.util.memo import per_part


def test_a_one_argument_part_function_runs_once_per_part_object() -> None:
    calls: list[object] = []

    @per_part
    def name_of(part: object) -> str:
        calls.append(part)
        return str(id(part))

    first, second = object(), object()
    assert name_of(first) == name_of(first) == str(id(first))
    assert name_of(second) == str(id(second))
    assert calls == [first, second]


def test_a_two_argument_part_function_tells_parts_and_values_apart() -> None:
    calls: list[tuple[object, object]] = []

    @per_part
    def pair(part: object, other: object) -> tuple[object, object]:
        calls.append((part, other))
        return part, other

    part, chip = object(), object()
    assert pair(part, chip) == pair(part, chip) == (part, chip)
    assert pair(part, 600.0) == pair(part, 600.0) == (part, 600.0)
    assert pair(part, 650.0) == (part, 650.0)
    assert pair(chip, part) == (chip, part)
    assert calls == [(part, chip), (part, 600.0), (part, 650.0), (chip, part)]


def _ranked_afresh(catalog: Catalog, voltage: float) -> list[tuple[float, Psu]]:
    units = sorted(((psu.price is None, psu.price or 0.0, rated_watts(psu, voltage), psu.id, psu)
                    for psu in catalog.all("psu", curated=True) if isinstance(psu, Psu) and runs_on(psu, voltage)),
                   key=lambda c: c[:4])
    return [(rating, psu) for *_, rating, _, psu in units]


def test_the_ranked_curated_psus_are_those_ranked_afresh_at_each_voltage() -> None:
    catalog = Catalog()
    for voltage in (120.0, 230.0, 120.0):
        assert list(_ranked_psus(catalog, voltage)) == _ranked_afresh(catalog, voltage)
    assert _ranked_psus(catalog, 120.0) is _ranked_psus(catalog, 120.0)  # ranked once per catalog and voltage
    assert _ranked_psus(catalog, 120.0) != _ranked_psus(catalog, 230.0)


def test_the_ranking_is_made_again_once_the_psus_are_read_whole() -> None:
    catalog = Catalog()
    before = _ranked_psus(catalog, 230.0)
    catalog.entries("psu")  # the curated entries are now taken from the whole kind
    after = _ranked_psus(catalog, 230.0)
    assert after is not before
    assert list(after) == _ranked_afresh(catalog, 230.0)


def test_each_catalog_keeps_its_own_ranking() -> None:
    first, second = Catalog(), Catalog()
    assert _ranked_psus(first, 230.0) is not _ranked_psus(second, 230.0)
    assert [psu.id for _, psu in _ranked_psus(first, 230.0)] == [psu.id for _, psu in _ranked_psus(second, 230.0)]
