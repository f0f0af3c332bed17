"""Turn pydantic validation errors into short sentences with key paths."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails, ValidationError


def location(loc: tuple[int | str, ...]) -> str:
    """('gpu', 0, 'count') -> 'gpu[0].count' (TOML array-of-tables index shown 0-based)."""
    text = ""
    for item in loc:
        if isinstance(item, int):
            text += f"[{item}]"
        elif item in ("str", "dict[str,any]", "function-before[parse(), float]"):
            continue  # union branches pydantic adds to the location
        else:
            text += ("." if text else "") + str(item)
    return text


MAX_SHOWN = 60  # characters of a user's value repeated in a message


def shown(value: object) -> str:
    """A value as the build file wrote it (TOML: `true`, `"text"`), cut to a readable length; a table or a
    long list is named, not dumped."""
    import json

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        if value and all(isinstance(item, dict) for item in value):
            return f"{len(value)} tables"
        if len(value) > 8:
            return f"a list of {len(value)} values"
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except ValueError:
        text = repr(value)
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN - 1] + "…"


#: Why a key has its lower bound, said after the bound when a value is under it.
WHY_AT_LEAST = {"ram_modules": "a board needs memory (leave the key out for one module per memory channel)"}


def message(detail: ErrorDetails) -> str:
    kind = detail["type"]
    msg = detail["msg"]
    key = detail["loc"][-1] if detail["loc"] else None
    if kind in ("greater_than_equal", "greater_than") and key in WHY_AT_LEAST:
        return f"{msg[0].lower()}{msg[1:]}, got {shown(detail.get('input'))}: {WHY_AT_LEAST[str(key)]}"
    if kind == "value_error":
        return msg.removeprefix("Value error, ")
    if kind == "extra_forbidden":
        return "unknown key"
    if kind == "missing":
        return "required key is missing"
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return f"expected a whole number, got {shown(detail.get('input'))}"
    if kind in ("string_type",):
        return f"expected text, got {shown(detail.get('input'))}"
    if kind in ("bool_type", "bool_parsing"):
        return f"expected true or false, got {shown(detail.get('input'))}"
    if kind in ("list_type",):
        return f"expected a list, got {shown(detail.get('input'))}"
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return f"expected a table, got {shown(detail.get('input'))}"
    if kind == "literal_error":
        return f"{msg[0].lower()}{msg[1:]}, got {shown(detail.get('input'))}"
    return f"{msg[0].lower()}{msg[1:]}, got {shown(detail.get('input'))}"


def problems(error: ValidationError) -> list[tuple[str, str]]:
    """(key path, sentence) for each problem, de-duplicated across union branches."""
    seen: dict[str, str] = {}
    for detail in error.errors(include_url=False):
        key = location(detail["loc"])
        if key not in seen:
            seen[key] = message(detail)
    return list(seen.items())


def first_problem(error: ValidationError) -> tuple[str, str]:
    return problems(error)[0]
