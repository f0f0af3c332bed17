"""Records: frozen classes declared like pydantic models and validated by pydantic-core (`core.py` says why);
`twin.py` builds the equivalent pydantic model for the JSON Schema."""

from planner.util.record.core import (
    STRICT,
    Before,
    Field,
    FieldInfo,
    JsonSchema,
    PydanticUndefined,
    Record,
    StrictInt,
    model_validator,
    nested_records,
)

__all__ = ["STRICT", "Before", "Field", "FieldInfo", "JsonSchema", "PydanticUndefined", "Record", "StrictInt",
           "model_validator", "nested_records"]
