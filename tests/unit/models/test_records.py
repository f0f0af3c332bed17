"""The records (planner/util/record/core.py) validate like the pydantic models they stand for: on every catalog entry,
every example build and generated junk, a record and its pydantic twin (planner/util/record/twin.py, the
`pydantic.BaseModel` with the same fields, constraints, aliases and validators) accept the same inputs with the
same values and refuse the same inputs with the same messages at the same keys. And they behave as frozen
models: equal by value, unassignable, copied with changes, dumped to JSON types."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel
from pydantic_core import ValidationError

from planner.kinds import KIND_FILES
from planner.models.build import BuildFile, GpuSpec
from planner.models.parts import KIND_MODELS, Case, Psu, PsuConnectors
from planner.solve.partial import PartialBuild
from planner.util.record import Record
from planner.util.record.twin import twin

from conftest import EXAMPLES, ROOT


def _outcome(model: type[Record] | type[BaseModel], data: Any) -> tuple[str, Any]:
    try:
        made = model.model_validate(data)
    except ValidationError as error:
        return "refused", (error.title, [(e["type"], e["loc"], e["msg"], repr(e.get("input")))
                                         for e in error.errors(include_url=False)])
    return "accepted", (made.model_dump(mode="json"), made.model_dump())


def _same(record: type[Record], data: Any) -> None:
    assert _outcome(record, data) == _outcome(twin(record), data)


def _entries(kind: str) -> list[dict[str, Any]]:
    entries = []
    for folder in (ROOT / "catalogs", ROOT / "catalogs" / "imported"):
        path = folder / KIND_FILES[kind]
        if path.is_file():
            entries += [{**table, "id": part_id} for part_id, table in tomllib.loads(path.read_text()).items()]
    return entries


def _builds() -> list[dict[str, Any]]:
    return [tomllib.loads(path.read_text()) for path in sorted(EXAMPLES.glob("*.toml"))]  # real machines included


_ENTRIES = {kind: _entries(kind)[:200] for kind in KIND_FILES}  # the generated damage starts from these
_BUILDS = _builds()


@pytest.mark.parametrize("kind", sorted(KIND_FILES))
def test_every_catalog_entry_gets_the_same_verdict_and_values_as_from_pydantic(kind: str) -> None:
    record = KIND_MODELS[kind]
    entries = _entries(kind)
    assert entries
    for entry in entries:
        _same(record, entry)


def test_every_example_build_reads_as_pydantic_reads_it() -> None:
    for data in _builds():
        _same(BuildFile, data)
        _same(PartialBuild, data)


@pytest.mark.parametrize("kind", sorted(KIND_FILES))
def test_a_quantity_out_of_range_is_refused_quoting_what_was_written(kind: str) -> None:
    # "-300 W" for a power limit: the message quotes the text as written, not the number it was read as
    entry = _ENTRIES[kind][0]
    for field in KIND_MODELS[kind].model_fields:
        for written in ("-99999", "99999", "0"):
            _same(KIND_MODELS[kind], {**entry, field: written})


def test_a_power_limit_out_of_range_in_a_build_is_refused_quoting_what_was_written() -> None:
    build = next(b for b in _BUILDS if b.get("gpu"))
    for written in ("-300 W", "0 W", "5000 W", "-0.3 kW"):
        _same(BuildFile, {**build, "gpu": [{**build["gpu"][0], "power_limit": written}]})


_JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(-10**6, 10**6), st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["", "x", "350 W", "13.5 in", "-3 mm", "12 parsecs", "pcie-8pin", "atx", "1e400", "nan",
                     "PCIE1", "llm-train", "us", "c14", "ddr5", "-99999", "99999", "0", "-300 W", "5000 W"]),
    st.lists(st.sampled_from(["pcie-8pin", "atx", 3, "12vhpwr", None]), max_size=4),
    st.dictionaries(st.sampled_from(["base", "owned", "tdp", "x"]), st.integers(0, 500), max_size=2),
)


def _mutate(data: dict[str, Any], draw: Any) -> dict[str, Any]:
    changed = dict(data)
    key = draw(st.sampled_from([*changed, "unknown_key"]))
    if draw(st.booleans()) and key in changed:
        del changed[key]
    else:
        changed[key] = draw(_JUNK)
    return changed


@given(st.data())
def test_a_damaged_catalog_entry_is_refused_or_accepted_exactly_as_pydantic_would(data: st.DataObject) -> None:
    kind = data.draw(st.sampled_from(sorted(KIND_FILES)))
    entries = _ENTRIES[kind]
    entry = data.draw(st.sampled_from(entries))
    _same(KIND_MODELS[kind], _mutate(entry, data.draw))


@given(st.data())
def test_a_damaged_build_file_is_refused_or_accepted_exactly_as_pydantic_would(data: st.DataObject) -> None:
    build = data.draw(st.sampled_from(_BUILDS))
    changed = _mutate(build, data.draw)
    gpus = changed.get("gpu")
    if isinstance(gpus, list) and gpus and isinstance(gpus[0], dict) and data.draw(st.booleans()):
        changed["gpu"] = [_mutate(gpus[0], data.draw)]
    _same(BuildFile, changed)


def test_a_record_is_frozen() -> None:
    spec = GpuSpec(part="nvidia-rtx-3090-fe", count=2)
    with pytest.raises(AttributeError, match="frozen"):
        spec.count = 3  # type: ignore[misc]


def test_a_copy_with_changes_leaves_the_original_alone_and_records_what_was_set() -> None:
    spec = GpuSpec(part="nvidia-rtx-3090-fe", count=2)
    copy = spec.model_copy(update={"power_limit": 300.0})
    assert (copy.power_limit, spec.power_limit) == (300.0, None)
    assert copy.model_fields_set == {"part", "count", "power_limit"}


def test_records_are_equal_by_value_and_hash_by_value_when_they_hold_no_lists() -> None:
    one, other = PsuConnectors(**{"pcie-8pin": 4}), PsuConnectors(pcie_8pin=4)
    assert one == other and hash(one) == hash(other)
    assert one != PsuConnectors(pcie_8pin=5)


def test_a_record_rebuilt_without_validation_equals_the_validated_one() -> None:
    psu = Psu.model_validate(next(e for e in _ENTRIES["psu"] if "connectors" in e))
    rebuilt = Psu.model_construct(**{**psu.model_dump(), "connectors": psu.connectors})
    assert rebuilt == psu


def test_a_dump_excluding_defaults_leaves_out_only_fields_at_their_default() -> None:
    case = Case.model_validate(_ENTRIES["case"][0])
    dumped = case.model_dump(mode="json", exclude_defaults=True)
    assert "open_frame" not in dumped or dumped["open_frame"] is True
    assert dumped["id"] == case.id


def test_a_field_of_an_unsupported_type_is_refused_when_its_schema_is_built() -> None:
    class Odd(Record):
        when: complex

    with pytest.raises(TypeError, match="cannot be of type"):
        Odd.model_validate({"when": 1})


def test_a_record_survives_copying_deep_copying_and_pickling_with_what_was_set() -> None:
    import copy
    import pickle

    build = BuildFile.model_validate(_BUILDS[0])
    for again in (copy.copy(build), copy.deepcopy(build), pickle.loads(pickle.dumps(build))):
        assert again == build and again.model_fields_set == build.model_fields_set
    assert copy.deepcopy(build).gpu is not build.gpu
