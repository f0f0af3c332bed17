"""The fences around the records (planner/util/record/core.py), which validate with pydantic-core directly rather than
through pydantic's `BaseModel` (benchmarks/records.py measures why):

* what the records rely on of pydantic-core that pydantic-core does for `BaseModel` without documenting it on its
  own — the four `__pydantic_*` instance slots it fills, `validate_python(self_instance=…)`, the alias config
  keys, the known bound errors — so that a pydantic-core that changes any of it fails here, not in a record;
* pyproject pins pydantic-core to the version the pinned pydantic requires (the tested pair);
* going back to `BaseModel` stays a base-class swap: every public name of `Record` is `BaseModel`'s, with a
  compatible signature;
* an attribute the core sets on an instance and the records do not know would land in the instance's `__dict__`,
  which is a record's fields: no record's dict holds anything but its fields, however it was made."""

from __future__ import annotations

import copy
import importlib.metadata
import inspect
import pickle
import re
import tomllib
from typing import Any

import pydantic
import pydantic_core
import pytest
from pydantic import BaseModel
from pydantic.fields import FieldInfo as PydanticFieldInfo
from pydantic_core import PydanticKnownError, SchemaSerializer, SchemaValidator, ValidationError
from pydantic_core import core_schema as cs

from planner.kinds import KIND_FILES
from planner.models.build import BuildFile
from planner.models.parts import KIND_MODELS
from planner.solve.partial import PartialBuild
from planner.util.record import FieldInfo, Record, nested_records

from conftest import EXAMPLES, ROOT

#: What the core sets on a model instance besides its `__dict__` (the fields), as BaseModel's slots name them.
CORE_SETS = {"__pydantic_extra__", "__pydantic_fields_set__", "__pydantic_private__"}


def _pin(text: str, name: str) -> str:
    """The version `name` is pinned to (==) in requirement lines (pip spells `_` and `-` alike)."""
    pattern = re.compile(rf'^\s*"?{name.replace("-", "[-_]")}\s*==\s*([\w.]+)', re.IGNORECASE | re.MULTILINE)
    found = pattern.findall(text)
    assert len(found) == 1, f"{name}: {found}"
    return str(found[0])


# -- the pin -----------------------------------------------------------------------------------------------------

def test_pyproject_pins_pydantic_core_to_the_version_the_pinned_pydantic_requires() -> None:
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    declared = "\n".join(dependencies)
    constraints = (ROOT / "constraints.txt").read_text()
    core = _pin(declared, "pydantic-core")
    assert core == _pin(constraints, "pydantic-core")
    required = [r for r in importlib.metadata.requires("pydantic") or [] if re.match(r"pydantic[-_]core\b", r)]
    assert [_pin(r, "pydantic-core") for r in required] == [core], required
    # the declared lower bound of pydantic is the tested (pinned) version, and it is what is installed here
    pydantic_pin = _pin(constraints, "pydantic")
    assert f"pydantic>={pydantic_pin}," in declared.replace(" ", "")
    assert (pydantic.VERSION, pydantic_core.__version__) == (pydantic_pin, core)


# -- pydantic-core's contract with BaseModel, as the records use it ------------------------------------------------

class _Probe:
    """A plain class: whatever the core sets on an instance of it shows in its `__dict__`."""

    def __init__(self, **data: Any) -> None:
        raise AssertionError("the core makes an instance without calling __init__ (a record's calls the core)")


def _probe_schema(cls: type = _Probe, config: cs.CoreConfig | None = None,
                  alias: str | None = None) -> cs.CoreSchema:
    fields = {
        "count": cs.model_field(cs.int_schema(), validation_alias=alias, serialization_alias=alias),
        "name": cs.model_field(cs.with_default_schema(cs.str_schema(), default="x")),
    }
    return cs.model_schema(cls, cs.model_fields_schema(fields, model_name=cls.__name__),
                           config=config or cs.CoreConfig(title=cls.__name__, extra_fields_behavior="forbid"))


def test_the_core_fills_an_instance_with_its_fields_dict_and_exactly_the_three_slots_a_record_declares() -> None:
    made = SchemaValidator(_probe_schema()).validate_python({"count": 3})
    assert type(made) is _Probe
    # no slots: the fields dict became the instance's __dict__, and the core set three attributes into it after
    assert set(vars(made)) == {"count", "name"} | CORE_SETS
    assert (made.count, made.name) == (3, "x")
    assert made.__pydantic_fields_set__ == {"count"}
    assert made.__pydantic_extra__ is None and made.__pydantic_private__ is None


def test_a_record_declares_the_slots_of_pydantics_base_model() -> None:
    assert set(Record.__slots__) == set(BaseModel.__slots__) == {"__dict__"} | CORE_SETS


def test_validating_into_a_given_instance_fills_it_and_returns_it() -> None:
    seen = []

    def after(instance: Any) -> Any:
        seen.append(instance)
        return instance

    # as a record's validator: the model validators wrap its model schema, the title comes with the validator
    validator = SchemaValidator(cs.no_info_after_validator_function(after, _probe_schema()),
                                cs.CoreConfig(title="_Probe"))
    instance = _Probe.__new__(_Probe)
    assert validator.validate_python({"count": 3, "name": "y"}, self_instance=instance) is instance
    assert seen == [instance]
    assert (instance.count, instance.name, instance.__pydantic_fields_set__) == (3, "y", {"count", "name"})
    with pytest.raises(ValidationError) as refused:
        validator.validate_python({"count": "three"}, self_instance=_Probe.__new__(_Probe))
    assert refused.value.title == "_Probe"
    assert [(e["type"], e["loc"]) for e in refused.value.errors()] == [("int_parsing", ("count",))]


def test_the_alias_keys_accept_a_field_under_its_alias_and_its_name() -> None:
    keys = cs.CoreConfig.__annotations__
    assert {"title", "extra_fields_behavior", "validate_by_alias", "validate_by_name"} <= keys.keys()
    both = cs.CoreConfig(title="_Probe", extra_fields_behavior="forbid", validate_by_alias=True, validate_by_name=True)
    validator = SchemaValidator(_probe_schema(config=both, alias="the-count"))
    assert validator.validate_python({"the-count": 2}).count == 2
    assert validator.validate_python({"count": 2}).count == 2
    alias_only = SchemaValidator(_probe_schema(alias="the-count"))
    with pytest.raises(ValidationError) as refused:
        alias_only.validate_python({"count": 2})
    assert {e["type"] for e in refused.value.errors()} == {"missing", "extra_forbidden"}
    serializer = SchemaSerializer(_probe_schema(config=both, alias="the-count"))
    made = validator.validate_python({"count": 2})
    assert serializer.to_python(made, by_alias=True) == {"the-count": 2, "name": "x"}
    assert serializer.to_python(made, by_alias=None) == serializer.to_python(made) == {"count": 2, "name": "x"}


def test_the_serializer_reads_what_a_record_built_without_validation_holds() -> None:
    # model_construct, model_copy, copy and pickle fill the four slots themselves (planner/util/record/core.py `_fill`)
    made = _Probe.__new__(_Probe)
    for name, value in {"__dict__": {"count": 5, "name": "z"}, "__pydantic_fields_set__": {"count"},
                        "__pydantic_extra__": None, "__pydantic_private__": None}.items():
        object.__setattr__(made, name, value)
    serializer = SchemaSerializer(_probe_schema())
    assert serializer.to_python(made, mode="json") == {"count": 5, "name": "z"}
    assert serializer.to_python(made, exclude_defaults=True) == {"count": 5, "name": "z"}


@pytest.mark.parametrize(("error", "bound", "value", "message"), [
    ("greater_than", "gt", 0, "Input should be greater than 0"),
    ("greater_than_equal", "ge", 1, "Input should be greater than or equal to 1"),
    ("less_than", "lt", 5, "Input should be less than 5"),
    ("less_than_equal", "le", 4, "Input should be less than or equal to 4"),
])
def test_the_bound_errors_a_record_raises_itself_read_as_the_cores_own(error: str, bound: str, value: int,
                                                                       message: str) -> None:
    def refuse(_: Any) -> Any:
        raise PydanticKnownError(error, {bound: value})  # type: ignore[arg-type]

    validator = SchemaValidator(cs.no_info_after_validator_function(refuse, cs.float_schema()))
    with pytest.raises(ValidationError) as refused:
        validator.validate_python(9)
    ((detail,),) = [refused.value.errors(include_url=False)]
    assert (detail["type"], detail["msg"], detail["ctx"]) == (error, message, {bound: value})


# -- going back stays a base-class swap ----------------------------------------------------------------------------

def _public(cls: type) -> set[str]:
    return {name for name in dir(cls) if not name.startswith("_") and not hasattr(object, name)}


def _compatible(ours: inspect.Signature, theirs: inspect.Signature) -> list[str]:
    """Why a call that fits `ours` might not fit `theirs` (empty: none): every parameter of ours is theirs, of
    the same kind and default; every other one of theirs is optional."""
    problems = []
    mine, other = list(ours.parameters.values()), dict(theirs.parameters)
    for parameter in mine:
        match = other.pop(parameter.name, None)
        if match is None:
            problems.append(f"{parameter.name}: not BaseModel's")
        elif match.kind != parameter.kind and not (parameter is mine[0] and parameter.name in ("self", "cls")):
            problems.append(f"{parameter.name}: {parameter.kind.description}, BaseModel's {match.kind.description}")
        elif match.default != parameter.default:
            problems.append(f"{parameter.name}: default {parameter.default!r}, BaseModel's {match.default!r}")
    for name, parameter in other.items():
        if parameter.default is inspect.Parameter.empty and parameter.kind not in (
                inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            problems.append(f"{name}: BaseModel's requires it")
    return problems


def test_every_public_name_of_a_record_is_base_models_with_a_compatible_signature() -> None:
    ours = _public(Record)
    assert ours - _public(BaseModel) == set(), "Record has public names BaseModel lacks"
    assert {"model_validate", "model_construct", "model_copy", "model_dump", "model_fields",
            "model_fields_set"} <= ours
    for name in sorted(ours | {"__init__"}):
        mine, theirs = inspect.getattr_static(Record, name), inspect.getattr_static(BaseModel, name)
        assert isinstance(mine, classmethod) == isinstance(theirs, classmethod), name
        assert isinstance(mine, property) == isinstance(theirs, property), name
        if callable(getattr(Record, name)) and not isinstance(mine, property):
            problems = _compatible(inspect.signature(getattr(Record, name)),
                                   inspect.signature(getattr(BaseModel, name)))
            assert not problems, f"{name}: {problems}"


def test_what_a_records_fields_tell_is_what_base_models_fields_tell() -> None:
    # `constraints` is the records' own: only planner/util/record/ reads it (twin.py turns it into pydantic's Field)
    assert _public(FieldInfo) - {"constraints"} <= _public(PydanticFieldInfo)


# -- a record's dict holds its fields and nothing else ----------------------------------------------------------

def _samples() -> list[tuple[type[Record], dict[str, Any]]]:
    samples: list[tuple[type[Record], dict[str, Any]]] = []
    for kind, model in KIND_MODELS.items():
        path = ROOT / "catalogs" / KIND_FILES[kind]
        entries = tomllib.loads(path.read_text()).items() if path.is_file() else []
        samples += [(model, {**table, "id": part_id}) for part_id, table in list(entries)[:5]]
    for path in sorted(EXAMPLES.glob("*.toml")):
        data = tomllib.loads(path.read_text())
        samples += [(BuildFile, data), (PartialBuild, data)]
    return samples


def _records_in(record: Record) -> list[Record]:
    found = [record]
    for name, _ in nested_records(type(record)):
        value = getattr(record, name)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, Record):
                found += _records_in(item)
    return found


def test_no_record_holds_anything_but_its_fields_in_its_dict_however_it_was_made() -> None:
    checked = 0
    for model, data in _samples():
        try:
            validated = model.model_validate(data)
        except ValidationError:
            continue
        made = [validated, model(**data), model.model_construct(**dict(validated.__dict__)),
                validated.model_copy(update={}), copy.copy(validated), copy.deepcopy(validated),
                pickle.loads(pickle.dumps(validated))]
        for record in (nested for one in made for nested in _records_in(one)):
            assert set(vars(record)) == set(type(record).model_fields), type(record).__name__
            for name in CORE_SETS:
                object.__getattribute__(record, name)  # in its slot, not in the dict
            checked += 1
    assert checked > 100
