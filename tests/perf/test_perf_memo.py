"""Per-part memoisation (planner/util/memo.py): what is computed from a catalog part alone is computed once per
part object, and never served for another part or another plain argument."""

from __future__ import annotations

from planner.catalog import Catalog
from planner.models.parts import Psu
from planner.physics.transients import capability
from planner.util.memo import per_part


def test_a_part_function_runs_once_per_part_and_argument() -> None:
    calls: list[tuple[object, float]] = []

    @per_part
    def rating_of(part: object, factor: float) -> float:
        calls.append((part, factor))
        return factor

    first, second = object(), object()
    assert [rating_of(first, 1.0), rating_of(first, 1.0), rating_of(second, 1.0), rating_of(first, 2.0)] == [
        1.0, 1.0, 1.0, 2.0]
    assert calls == [(first, 1.0), (second, 1.0), (first, 2.0)]


def test_an_edited_copy_of_a_catalog_psu_gets_its_own_capability() -> None:
    # An inline part is a new object: it never shares the catalog entry's memoised result.
    psu = Catalog().typed("psu", "corsair-ax1600i", Psu)
    edited = psu.model_copy(update={"opp_trip": 2500.0, "opp_source": "a test"})
    assert capability(psu, 1600.0) is capability(psu, 1600.0)
    assert capability(edited, 1600.0).watts != capability(psu, 1600.0).watts
