"""The BaseModel variant of `planner/util/record/core.py` that `benchmarks/records.py` measures against the records:
`Record` is a `pydantic.BaseModel` with `defer_build=True`, and the records' markers are pydantic's own (the
mapping of `planner/util/record/twin.py`): `Field` and `model_validator` are pydantic's, `Before(f)` is
`BeforeValidator(f)`, `JsonSchema(s)` is `WithJsonSchema(s)`, `STRICT` is `Strict()`; every model forbids
unknown keys, is frozen and, like a record, accepts an aliased field under its name too.

benchmarks/records.py copies the planner into a scratch folder and puts this file in place of
`planner/util/record/core.py` (and a `twin` that returns the model itself in place of `planner/util/record/twin.py`), so
the whole cold `planner check` runs on BaseModel: the same models, the same catalog cache, the same code around them.
Where it behaves otherwise (no command's output shows it): assigning to a model raises pydantic's ValidationError, not
the records' AttributeError. It is not imported by the planner."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Strict, WithJsonSchema
from pydantic import Field as Field
from pydantic import model_validator as model_validator
from pydantic.fields import FieldInfo as FieldInfo
from pydantic_core import PydanticUndefined as PydanticUndefined


def Before(function: Any) -> BeforeValidator:  # spelled as the record marker it stands for
    return BeforeValidator(function)


def JsonSchema(schema: dict[str, Any]) -> WithJsonSchema:
    return WithJsonSchema(schema)


STRICT = Strict()
StrictInt = Annotated[int, STRICT]


class Record(BaseModel):
    """A frozen, validated model: the records' base, as a pydantic model whose schema is built on first use."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True, validate_by_name=True,
                              validate_by_alias=True)


def nested_records(record: type[Record]) -> tuple[tuple[str, type[Record]], ...]:
    """The fields of a model that hold models (or lists of them), with the model type (for the catalog cache)."""
    found = record.__dict__.get("__record_nested__")
    if found is None:
        found = tuple((name, nested) for name, field in record.model_fields.items()
                      if (nested := _record_in(field.annotation)) is not None)
        type.__setattr__(record, "__record_nested__", found)
    return found


def _record_in(annotation: Any) -> type[Record] | None:
    if isinstance(annotation, type) and issubclass(annotation, Record):
        return annotation
    for argument in getattr(annotation, "__args__", ()):
        found = _record_in(argument)
        if found is not None:
            return found
    return None


#: What replaces planner/util/record/twin.py in the variant: a model is its own pydantic twin.
TWIN = '''"""The BaseModel variant (benchmarks/records_basemodel.py): a model is its own pydantic model."""

from typing import Any


def twin(record: Any) -> Any:
    return record
'''

__all__ = ["STRICT", "Before", "Field", "FieldInfo", "JsonSchema", "PydanticUndefined", "Record", "StrictInt",
           "model_validator", "nested_records"]
