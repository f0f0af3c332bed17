"""Records: the base of the planner's models — frozen classes declared like pydantic models (annotations,
`Field(...)`, `@model_validator(mode="after")`) and validated by pydantic-core, pydantic's own engine.

Why not `pydantic.BaseModel`: a cold `planner check` would pay for importing pydantic and for defining the models on it,
while the validation itself is pydantic-core's either way. Measured on the whole cold check, `BaseModel` with
`defer_build=True` costs far more than the records (`benchmarks/records.py` reproduces the comparison; the README's
"Speed" has the figures). A record builds its core schema from its annotations on first use, from the closed set of
types the models use (below); `planner/util/record/twin.py` builds the equivalent `pydantic.BaseModel` for the JSON
Schema, and `tests/unit/models/test_records.py` holds that both accept and refuse the same inputs with the same messages
on every catalog entry, example build and generated junk.

The records lean on what pydantic-core does for `BaseModel` without documenting it on its own (the four
`__pydantic_*` instance slots, `validate_python(self_instance=…)`, the alias config keys): pyproject pins
pydantic-core to the version the pinned pydantic requires, and `tests/unit/models/test_record_contract.py` fails if a
pydantic-core changes any of it, if a record's dict holds anything but its fields, or if `Record` grows a public
name `BaseModel` lacks (going back stays a base-class swap).

Types a field may have: `int`, `float`, `str`, `bool`, `Any`, `Literal[...]`, `X | Y` (a union; `| None` makes
it nullable), `list[X]`, `dict[K, V]`, another record, and `Annotated[X, ...]` with `Field(...)` constraints,
`Before(function)` (a validator that runs before the type's, e.g. a unit parser), `JsonSchema({...})` (the
field's JSON Schema) and `STRICT` (no coercion, e.g. no `true` for an int). Every record forbids unknown keys
and is frozen; a field with an `alias` is also accepted under its name.
"""

from __future__ import annotations

import copy
import functools
import operator
import types
import typing
from collections.abc import Callable
from typing import Annotated, Any, ClassVar, Literal, TypeVar, dataclass_transform

from pydantic_core import PydanticKnownError, PydanticUndefined, SchemaSerializer, SchemaValidator
from pydantic_core import core_schema as cs

R = TypeVar("R", bound="Record")
F = TypeVar("F", bound=Callable[..., Any])

_NUMBER_BOUNDS = ("gt", "ge", "lt", "le")
_LENGTH_BOUNDS = ("min_length", "max_length")


class FieldInfo:
    """A field as declared: its default, alias, description and constraints (what `Field(...)` returns)."""

    __slots__ = ("alias", "constraints", "default", "description")

    def __init__(self, default: Any, alias: str | None, description: str | None, constraints: dict[str, Any]):
        self.default = default
        self.alias = alias
        self.description = description
        self.constraints = constraints

    def is_required(self) -> bool:
        return self.default is PydanticUndefined

    def __repr__(self) -> str:
        return f"Field(default={self.default!r}, alias={self.alias!r}, constraints={self.constraints!r})"


def Field(  # spelled like pydantic's, which it stands for
    default: Any = PydanticUndefined, *, alias: str | None = None, description: str | None = None,
    gt: float | None = None, ge: float | None = None, lt: float | None = None, le: float | None = None,
    min_length: int | None = None, max_length: int | None = None, pattern: str | None = None,
) -> Any:
    """Declare a field: its default (none: required), constraints, the key it is written under, its doc."""
    given = {"gt": gt, "ge": ge, "lt": lt, "le": le, "min_length": min_length, "max_length": max_length,
             "pattern": pattern}
    return FieldInfo(default, alias, description, {k: v for k, v in given.items() if v is not None})


class Before:
    """`Annotated` metadata: a function the input goes through before the type's validation."""

    __slots__ = ("function",)

    def __init__(self, function: Callable[[Any], Any]):
        self.function = function


class JsonSchema:
    """`Annotated` metadata: the JSON Schema of the type (replacing the one derived from it)."""

    __slots__ = ("schema",)

    def __init__(self, schema: dict[str, Any]):
        self.schema = schema


class _Strict:
    __slots__ = ()


#: `Annotated` metadata: validate strictly (an int field then refuses `true`, `2.0` and `"2"`).
STRICT = _Strict()
StrictInt = Annotated[int, STRICT]


def model_validator(*, mode: Literal["after"]) -> Callable[[F], F]:
    """Mark a method that checks the whole record once its fields are valid (raise ValueError to refuse)."""

    def mark(function: F) -> F:
        function.__record_after__ = True  # type: ignore[attr-defined]
        return function

    return mark


@dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(Field,))
class _RecordType(type):
    def __new__(mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any], **kwargs: Any) -> _RecordType:
        own: dict[str, FieldInfo] = {}
        for field in namespace.get("__annotations__", {}):
            if field.startswith("_") or _is_classvar(namespace["__annotations__"][field]):
                continue
            value = namespace.pop(field, PydanticUndefined)
            own[field] = value if isinstance(value, FieldInfo) else FieldInfo(value, None, None, {})
        namespace["__record_own__"] = own
        cls = super().__new__(mcs, name, bases, namespace, **kwargs)
        fields: dict[str, FieldInfo] = {}
        validators: dict[str, Callable[[Any], Any]] = {}
        for klass in reversed(cls.__mro__):  # a base's fields first; an override keeps the base's place
            fields.update(klass.__dict__.get("__record_own__", {}))
            validators.update({key: value for key, value in klass.__dict__.items()
                               if getattr(value, "__record_after__", False)})
        cls.model_fields = fields  # type: ignore[attr-defined]
        cls.__record_validators__ = tuple(validators.values())  # type: ignore[attr-defined]
        return cls


def _is_classvar(annotation: Any) -> bool:
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return text.startswith(("ClassVar", "typing.ClassVar"))


class Record(metaclass=_RecordType):
    """A frozen, validated record (see the module's docstring)."""

    __slots__ = ("__dict__", "__pydantic_extra__", "__pydantic_fields_set__", "__pydantic_private__")

    model_fields: ClassVar[dict[str, FieldInfo]]

    def __init__(self, /, **data: Any) -> None:
        type(self)._validator().validate_python(data, self_instance=self)

    # -- the pydantic-model methods the planner uses, each with BaseModel's signature (or a part of it) -----

    @classmethod
    def model_validate(cls: type[R], obj: Any) -> R:
        """A record from data (a dict as TOML or JSON gives it); pydantic_core.ValidationError if invalid."""
        return cls._validator().validate_python(obj)

    @classmethod
    def model_construct(cls: type[R], **values: Any) -> R:
        """A record from values validated before (no validation); missing fields take their defaults."""
        record = cls.__new__(cls)
        data = {}
        for name, field in cls.model_fields.items():
            if name in values:
                data[name] = values[name]
            elif field.default is not PydanticUndefined:
                data[name] = copy.deepcopy(field.default) if isinstance(field.default, (list, dict)) else field.default
        _fill(record, data, set(values))
        return record

    def model_copy(self: R, *, update: dict[str, Any] | None = None) -> R:
        """A copy with some fields replaced (not validated: the caller vouches for the values)."""
        data = dict(self.__dict__)
        fields_set = set(self.model_fields_set)
        if update:
            data.update(update)
            fields_set.update(update)
        return self._with(data, fields_set)

    def model_dump(self, *, mode: Literal["python", "json"] = "python", by_alias: bool | None = None,
                   exclude_defaults: bool = False, exclude_none: bool = False) -> dict[str, Any]:
        """The record as a dict (mode="json": only JSON types), nested records included."""
        return type(self)._serializer().to_python(
            self, mode=mode, by_alias=by_alias, exclude_defaults=exclude_defaults, exclude_none=exclude_none)

    @property
    def model_fields_set(self) -> set[str]:
        """The fields the input gave (the others hold their defaults); pydantic-core sets it as it validates."""
        fields_set: set[str] = object.__getattribute__(self, "__pydantic_fields_set__")
        return fields_set

    # -- what a frozen value object does -------------------------------------------------------------------

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: use model_copy(update={{{name!r}: …}})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen")

    def __copy__(self: R) -> R:
        return self.model_copy()

    def __deepcopy__(self: R, memo: dict[int, Any]) -> R:
        return self._with(copy.deepcopy(self.__dict__, memo), set(self.model_fields_set))

    def __getstate__(self) -> dict[str, Any]:
        return {"__dict__": self.__dict__, "__pydantic_fields_set__": self.model_fields_set}

    def __setstate__(self, state: dict[str, Any]) -> None:
        _fill(self, state["__dict__"], state["__pydantic_fields_set__"])

    def _with(self: R, data: dict[str, Any], fields_set: set[str]) -> R:
        cls = type(self)
        record = cls.__new__(cls)
        _fill(record, data, fields_set)
        return record

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self.__dict__ == other.__dict__

    def __hash__(self) -> int:
        return hash(tuple(self.__dict__.values()))  # TypeError if a field holds a list, as for pydantic's

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.__dict__.items())})"

    # -- the core schema, built on first use ---------------------------------------------------------------

    @classmethod
    def _validator(cls) -> SchemaValidator:
        validator = cls.__dict__.get("__record_validator__")
        if validator is None:
            validator = SchemaValidator(cls._core_schema(), cs.CoreConfig(title=cls.__name__))
            type.__setattr__(cls, "__record_validator__", validator)
        return validator

    @classmethod
    def _serializer(cls) -> SchemaSerializer:
        serializer = cls.__dict__.get("__record_serializer__")
        if serializer is None:
            serializer = SchemaSerializer(cls._core_schema())
            type.__setattr__(cls, "__record_serializer__", serializer)
        return serializer

    @classmethod
    def _core_schema(cls) -> cs.CoreSchema:
        schema = cls.__dict__.get("__record_schema__")
        if schema is None:
            schema = _model_schema(cls)
            type.__setattr__(cls, "__record_schema__", schema)
        return schema


def nested_records(record: type[Record]) -> tuple[tuple[str, type[Record]], ...]:
    """The fields of a record type that hold records (or lists of them), with the record type (a function, not
    a method: `Record`'s public names are `BaseModel`'s)."""
    found = record.__dict__.get("__record_nested__")
    if found is None:
        hints = _hints(record)
        found = tuple((name, nested) for name in record.model_fields
                      if (nested := _record_in(hints[name])) is not None)
        type.__setattr__(record, "__record_nested__", found)
    return found


def _fill(record: Record, data: dict[str, Any], fields_set: set[str]) -> None:
    """Give a new record its values, as pydantic-core does when it validates (past the frozen __setattr__)."""
    _set = object.__setattr__
    _set(record, "__dict__", data)
    _set(record, "__pydantic_fields_set__", fields_set)
    _set(record, "__pydantic_extra__", None)
    _set(record, "__pydantic_private__", None)


def _hints(cls: type[Record]) -> dict[str, Any]:
    return typing.get_type_hints(cls, include_extras=True)


def _model_schema(cls: type[Record]) -> cs.CoreSchema:
    hints = _hints(cls)
    fields = {}
    aliased = False
    for name, field in cls.model_fields.items():
        schema = _schema(hints[name], field.constraints)
        if not field.is_required():
            schema = cs.with_default_schema(schema, default=field.default)
        aliased = aliased or field.alias is not None
        fields[name] = cs.model_field(schema, validation_alias=field.alias, serialization_alias=field.alias)
    config = cs.CoreConfig(title=cls.__name__, extra_fields_behavior="forbid")
    if aliased:
        config["validate_by_alias"] = config["validate_by_name"] = True
    model: cs.CoreSchema = cs.model_schema(cls, cs.model_fields_schema(fields, model_name=cls.__name__),
                                           config=config)
    for check in cls.__record_validators__:  # type: ignore[attr-defined]
        model = cs.no_info_after_validator_function(check, model)
    return model


def _schema(annotation: Any, constraints: dict[str, Any], strict: bool = False, bounds_after: bool = False,
            ) -> cs.CoreSchema:
    """The core schema of a field's type, with the field's constraints applied where they belong."""
    origin = typing.get_origin(annotation)
    if origin is Annotated:
        base, *metadata = typing.get_args(annotation)
        merged = dict(constraints)
        befores = []
        for item in metadata:
            if isinstance(item, FieldInfo):
                merged = {**item.constraints, **merged}
            elif isinstance(item, Before):
                befores.append(item.function)
            elif isinstance(item, JsonSchema):
                pass  # for the JSON Schema only (planner/util/record/twin.py)
            elif item is STRICT:
                strict = True
        # An optional quantity (`Power | None`): as pydantic does, its bounds are checked after the functions,
        # so a refusal quotes the input as written ("-300 W"); a required one's quotes the number read (-300.0).
        after = _only(merged, _NUMBER_BOUNDS) if befores and bounds_after else {}
        schema = _schema(base, {} if after else merged, strict)
        for function in reversed(befores):
            schema = cs.no_info_before_validator_function(function, schema)
        for name, bound in after.items():
            schema = cs.no_info_after_validator_function(functools.partial(_within, name, bound), schema)
        return schema
    if origin in (types.UnionType, typing.Union):
        options = typing.get_args(annotation)
        rest = [option for option in options if option is not type(None)]
        if len(rest) < len(options):
            inner = rest[0] if len(rest) == 1 else typing.Union[tuple(rest)]  # noqa: UP007
            return cs.nullable_schema(_schema(inner, constraints, strict, bounds_after=True))
        if constraints:
            raise TypeError(f"constraints {sorted(constraints)} on a union: put them on its options")
        return cs.union_schema([_schema(option, {}, strict) for option in options])
    if origin is Literal:
        return cs.literal_schema(list(typing.get_args(annotation)))
    if origin is list:
        (item,) = typing.get_args(annotation)
        return cs.list_schema(_schema(item, {}), **_only(constraints, _LENGTH_BOUNDS))
    if origin is dict:
        key, value = typing.get_args(annotation)
        return cs.dict_schema(_schema(key, {}), _schema(value, {}), **_only(constraints, _LENGTH_BOUNDS))
    if annotation is Any:
        return cs.any_schema()
    if annotation is bool:
        return cs.bool_schema(strict=strict or None)
    if annotation is int:
        return cs.int_schema(strict=strict or None, **_only(constraints, _NUMBER_BOUNDS))
    if annotation is float:
        return cs.float_schema(strict=strict or None, **_only(constraints, _NUMBER_BOUNDS))
    if annotation is str:
        return cs.str_schema(strict=strict or None, **_only(constraints, (*_LENGTH_BOUNDS, "pattern")))
    if isinstance(annotation, type) and issubclass(annotation, Record):
        return annotation._core_schema()
    raise TypeError(f"a record field cannot be of type {annotation!r} (planner/util/record/core.py lists the types)")


_BOUND_ERRORS = {"gt": ("greater_than", operator.gt), "ge": ("greater_than_equal", operator.ge),
                 "lt": ("less_than", operator.lt), "le": ("less_than_equal", operator.le)}


def _within(name: str, bound: float, value: Any) -> Any:
    error, holds = _BOUND_ERRORS[name]
    if not holds(value, bound):
        raise PydanticKnownError(error, {name: bound})  # type: ignore[arg-type]  # the four bound errors
    return value


def _only(constraints: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    unknown = set(constraints) - set(names)
    if unknown:
        raise TypeError(f"constraints {sorted(unknown)} do not apply to this type")
    return constraints


def _record_in(annotation: Any) -> type[Record] | None:
    """The record type a field holds, directly, in a list or as an option; None if none."""
    if isinstance(annotation, type) and issubclass(annotation, Record):
        return annotation
    for argument in typing.get_args(annotation):
        found = _record_in(argument)
        if found is not None:
            return found
    return None


__all__ = ["STRICT", "Before", "Field", "FieldInfo", "JsonSchema", "PydanticUndefined", "Record", "StrictInt",
           "model_validator", "nested_records"]
