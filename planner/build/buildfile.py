"""Read a build file: TOML text → a validated BuildFile, or one InputError naming file, line and key."""

from __future__ import annotations

import json
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar, overload

from pydantic_core import ValidationError

from planner.catalog import suggest
from planner.models.build import BuildFile, CircuitSpec, Extras, GpuSpec, PsuSpec
from planner.util import tomlfile
from planner.util.errors import InputError
from planner.util.record import Record
from planner.util.validation import location, message

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails

MAX_BYTES = 1_000_000  # a build file is a few kB; refuse anything absurd before parsing it

#: The model that holds the keys at each place of a build file (for "did you mean").
_TABLES: dict[str, type[Record]] = {"circuit": CircuitSpec, "psu": PsuSpec, "gpu": GpuSpec,
                                       "extras": Extras}


STDIN = "-"  # `planner check -`: the build is read from standard input
_stdin_text: str | None = None  # stdin can be read once; a command that reads the build twice gets the same text


def label_of(path: Path) -> str:
    """How messages and reports name a build file (`<stdin>` for `-`)."""
    return "<stdin>" if str(path) == STDIN else str(path)


def _decode(data: bytes, label: str) -> str:
    if len(data) > MAX_BYTES:
        raise InputError(f"is larger than {MAX_BYTES // 1000:,} kB; expected a TOML build file", file=label)
    return tomlfile.decode(data, label, what="a TOML build file")


def _read_stdin() -> str:
    global _stdin_text
    if _stdin_text is None:
        import sys

        stream = sys.stdin
        if stream is None:
            raise InputError("no standard input to read the build from", file="<stdin>")
        buffer = getattr(stream, "buffer", None)
        try:
            raw = buffer.read(MAX_BYTES + 1) if buffer is not None else stream.read(MAX_BYTES + 1).encode("utf-8")
        except (OSError, ValueError) as error:  # closed, or a device that fails the read
            raise InputError(f"cannot read: {getattr(error, 'strerror', None) or error}", file="<stdin>") from None
        _stdin_text = _decode(raw, "<stdin>")
    return _stdin_text


def read_text(path: Path) -> str:
    if str(path) == STDIN:
        return _read_stdin()
    return tomlfile.read_text(path, what="a TOML build file", cap=MAX_BYTES)


def parse_toml(text: str, label: str) -> dict[str, Any]:
    """TOML text as data, through the one safe parser (planner/util/tomlfile.py)."""
    return tomlfile.loads(text, label)


M = TypeVar("M", bound=Record)


@overload
def validate(data: dict[str, Any], text: str, label: str) -> BuildFile: ...


@overload
def validate(data: dict[str, Any], text: str, label: str, model: type[M]) -> M: ...


def validate(data: dict[str, Any], text: str, label: str, model: type[Record] = BuildFile) -> Record:
    """Validate parsed TOML as a build file (or as `model`: a partial build for `planner solve`); the first
    problem becomes an InputError. A build file that lacks parts (a GPUs-only file) is an IncompleteBuild
    naming every missing part and every other problem at once, and `planner solve`, which completes it."""
    try:
        return model.model_validate(data)
    except ValidationError as error:
        details = error.errors(include_url=False)
        if model is BuildFile:
            typos = {close for d in details if d["type"] == "extra_forbidden" and len(d["loc"]) == 1
                     for close in suggest(str(d["loc"][0]), list(PART_KEYS))}
            # a part whose key is misspelt is not missing: the unknown key's own message says so
            missing = [key for key in PART_KEYS if key not in typos and any(_lacks(d, key) for d in details)]
            if missing:
                others = [d for d in details if not any(_lacks(d, key) for key in missing)]
                others.sort(key=lambda d: d["type"] != "extra_forbidden")
                raise IncompleteBuild(missing, [_error_of(d, text, label) for d in others], label) from None
        _raise_first(details, text, label)


#: The parts a build file must name before it can be checked (`planner solve` picks them for a partial build).
PART_KEYS = ("case", "motherboard", "cpu", "psu")


def _lacks(detail: ErrorDetails, key: str) -> bool:
    """Whether a validation problem is "the part `key` is missing" (absent, or an empty [[psu]] list)."""
    return detail["type"] in ("missing", "too_short") and _clean(detail["loc"]) == (key,)


class IncompleteBuild(InputError):
    """A build file without some of its parts: every missing part and every other problem of the file in one
    message, which points to `planner solve` (it completes a partial build)."""

    def __init__(self, missing: list[str], problems: list[InputError], label: str) -> None:
        self.missing, self.problems = missing, problems
        names = ", ".join(missing[:-1]) + f" and {missing[-1]}" if len(missing) > 1 else missing[0]
        verb = "are" if len(missing) > 1 else "is"
        also = ""
        if problems:
            also = "; also " + "; ".join(_where(p) + p.message for p in problems)
        solve = "planner solve " + (label if label != "<stdin>" else "FILE")
        them = "them" if len(missing) > 1 else "it"
        super().__init__(f"incomplete build: {names} {verb} missing (`{solve}` picks {them} for the GPUs it has)"
                         f"{also}", file=label)


def _where(problem: InputError) -> str:
    """'gpu[0].count (line 4): ' — where in the file another problem is."""
    line = f" (line {problem.line})" if problem.line else ""
    return f"{problem.key}{line}: " if problem.key else (f"line {problem.line}: " if problem.line else "")


def validate_unfinished(data: dict[str, Any], text: str, label: str, missing: Collection[str]) -> None:
    """Validate a build that does not have all its parts yet (the TUI's build in progress): the same rules
    as `validate`, except that the top-level keys in `missing` may be absent or empty (not of another type)."""
    try:
        BuildFile.model_validate(data)
    except ValidationError as error:
        details = [d for d in error.errors(include_url=False)
                   if not (d["type"] in ("missing", "too_short") and len(d["loc"]) == 1 and d["loc"][0] in missing)]
        if details:
            _raise_first(details, text, label)


def _raise_first(details: list[ErrorDetails], text: str, label: str) -> NoReturn:
    # Unknown keys first: a typo'd key is the root cause of "required key is missing" elsewhere.
    details.sort(key=lambda d: d["type"] != "extra_forbidden")
    raise _error_of(details[0], text, label) from None


def _error_of(detail: ErrorDetails, text: str, label: str) -> InputError:
    """One validation problem as an InputError naming the file, the line and the key."""
    loc = _clean(detail["loc"])
    text_message = message(detail)
    if detail["type"] == "extra_forbidden":
        text_message = unknown_key_message(loc, _allowed_keys(loc))
    elif len(loc) == 1 and loc[0] in ("gpu", "psu", "circuit"):
        text_message = _array_of_tables_message(str(loc[0]), detail) or text_message
    from planner.util.tomlpos import line_of

    return InputError(text_message, file=label, line=line_of(text, loc), key=location(loc))


def _array_of_tables_message(key: str, detail: Any) -> str | None:
    """gpu, psu and circuit are arrays of tables: say how to write them when the file wrote something else."""
    given = detail.get("input")
    if detail["type"] not in ("too_long", "list_type"):
        return None
    if detail["type"] == "too_long" and isinstance(given, list):
        limit = detail.get("ctx", {}).get("max_length")
        return f"{len(given)} [[{key}]] tables; a build takes at most {limit} (use count = N for several alike)"
    if isinstance(given, dict):
        return f"expected a list of [[{key}]] tables: write [[{key}]] (double brackets, one per entry), not [{key}]"
    if isinstance(given, str):
        quoted = json.dumps(given[:60], ensure_ascii=False)
        return (f"expected a list of [[{key}]] tables, not a part id: write [[{key}]] on its own line, then "
                f"part = {quoted}" if key != "circuit" else
                f"expected a list of [[circuit]] tables: write [[circuit]] on its own line, then name = … and "
                f"outlet = {quoted}")
    return None


def unknown_key_message(loc: tuple[str | int, ...], allowed: list[str]) -> str:
    key = str(loc[-1])
    close = suggest(key, allowed)
    if close:
        return f"unknown key {key!r}; did you mean {' or '.join(repr(c) for c in close)}?"
    return f"unknown key {key!r}; expected one of {', '.join(sorted(allowed))}"


def _clean(loc: tuple[int | str, ...]) -> tuple[str | int, ...]:
    """Drop the union-branch names pydantic adds (`str`, `dict[str,any]`…) from a location."""
    return tuple(item for item in loc if isinstance(item, int) or not _is_branch(item))


def _is_branch(item: str) -> bool:
    return item in ("str", "dict[str,any]", "list[str]", "none") or item.startswith("function-")


def _allowed_keys(loc: tuple[str | int, ...]) -> list[str]:
    keys = [k for k in loc[:-1] if isinstance(k, str)]
    model: type[Record] = _TABLES.get(keys[0], BuildFile) if keys else BuildFile
    return list(model.model_fields)


def load(path: Path) -> tuple[BuildFile, dict[str, Any], str]:
    """Read, parse and validate a build file; returns the model, the raw data and the text."""
    label = label_of(path)
    text = read_text(path)
    data = parse_toml(text, label)
    return validate(data, text, label), data, text


def loads(text: str, label: str = "<build>") -> tuple[BuildFile, dict[str, Any]]:
    text = text.removeprefix("\ufeff")
    data = parse_toml(text, label)
    return validate(data, text, label), data
