"""A record's pydantic twin: the `pydantic.BaseModel` with the same fields, constraints, aliases, docs and validators —
for the JSON Schema (`planner schema`, docs/build.schema.json) and for the test that holds that a record and its twin
accept and refuse the same inputs alike (tests/unit/models/test_records.py). Loads pydantic; the check path never does.
"""

from __future__ import annotations

import types
import typing
from functools import cache
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Strict, WithJsonSchema
from pydantic import Field as PydanticField
from pydantic import model_validator as pydantic_model_validator

from planner.util.record.core import STRICT, Before, FieldInfo, JsonSchema, Record, _hints


@cache
def twin(record: type[Record]) -> type[BaseModel]:
    """The pydantic model equivalent to `record` (built once per record class)."""
    hints = _hints(record)
    fields: dict[str, Any] = {}
    for name, field in record.model_fields.items():
        options: dict[str, Any] = dict(field.constraints)
        if not field.is_required():
            options["default"] = _value(field.default)
        if field.alias is not None:
            options["alias"] = field.alias
        if field.description is not None:
            options["description"] = field.description
        fields[name] = (_pydantic_type(hints[name]), PydanticField(**options))
    namespace: dict[str, Any] = {"__module__": record.__module__, "__doc__": record.__doc__}
    for klass in reversed(record.__mro__[:record.__mro__.index(Record)]):  # its methods and properties
        namespace.update({name: value for name, value in klass.__dict__.items()
                          if not name.startswith("__") and name not in record.model_fields
                          and name != "model_fields" and not getattr(value, "__record_after__", False)})
    for function in record.__record_validators__:  # type: ignore[attr-defined]
        namespace[function.__name__] = pydantic_model_validator(mode="after")(function)
    aliased = any(field.alias is not None for field in record.model_fields.values())
    namespace["model_config"] = ConfigDict(extra="forbid", frozen=True, populate_by_name=aliased)
    namespace["__annotations__"] = {name: annotation for name, (annotation, _) in fields.items()}
    namespace.update({name: field for name, (_, field) in fields.items()})
    model: type[BaseModel] = type(record.__name__, (BaseModel,), namespace)
    return model


def _value(default: Any) -> Any:
    """A default as the twin holds it: a record default becomes its twin's instance."""
    if isinstance(default, Record):
        return twin(type(default)).model_validate(default.model_dump())
    return default


def _pydantic_type(annotation: Any) -> Any:
    """The annotation with records replaced by their twins and the record markers by pydantic's."""
    origin = typing.get_origin(annotation)
    if origin is Annotated:
        base, *metadata = typing.get_args(annotation)
        return Annotated[(_pydantic_type(base), *(_marker(item) for item in metadata))]
    if origin in (types.UnionType, typing.Union):
        return typing.Union[tuple(_pydantic_type(option) for option in typing.get_args(annotation))]  # noqa: UP007
    if origin is Literal:
        return annotation
    if origin is list:
        (item,) = typing.get_args(annotation)
        return list[_pydantic_type(item)]  # type: ignore[misc]
    if origin is dict:
        key, value = typing.get_args(annotation)
        return dict[_pydantic_type(key), _pydantic_type(value)]  # type: ignore[misc]
    if isinstance(annotation, type) and issubclass(annotation, Record):
        return twin(annotation)
    return annotation


def _marker(item: Any) -> Any:
    if isinstance(item, FieldInfo):
        return PydanticField(**item.constraints)
    if isinstance(item, Before):
        return BeforeValidator(item.function)
    if isinstance(item, JsonSchema):
        return WithJsonSchema(item.schema)
    if item is STRICT:
        return Strict()
    return item
