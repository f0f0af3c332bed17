"""One error family for the whole core; the faces turn each into one clear sentence."""

from __future__ import annotations

import re
from enum import IntEnum

MAX_QUOTED = 80  # characters of a quoted value (an id, a key, a name the user wrote) an error repeats
_QUOTED = re.compile(rf"""(?<!\w)(['"])([^'"\n]{{{MAX_QUOTED + 1},}}?)\1(?!\w)""")


def cut_quoted(message: str) -> str:
    """A message with every quoted value longer than MAX_QUOTED characters cut, with an ellipsis."""
    return _QUOTED.sub(lambda m: f"{m[1]}{m[2][:MAX_QUOTED - 1]}…{m[1]}", message)


class ExitCode(IntEnum):
    """Process exit codes of the CLI contract (README: planner check contract)."""

    OK = 0  # every build passes (warnings allowed unless --strict)
    FAIL = 1  # at least one build fails its checks
    BAD_INPUT = 2  # a file could not be read or is invalid


class PlannerError(Exception):
    """Base of every error the planner reports to a user (never shown as a traceback)."""

    def __init__(self, message: str) -> None:
        message = cut_quoted(message)
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class InputError(PlannerError):
    """A file the user gave us is unreadable or invalid.

    `file` names the file and `line` the line in it (when known); `key` is the dotted key path inside it.
    `str()` joins them as `file:line: key: message`.
    """

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 key: str | None = None) -> None:
        self.file = file
        self.line = line
        self.key = key
        super().__init__(message)

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = self.file + (f":{self.line}" if self.line else "")
        if self.key:
            where = f"{where}: {self.key}" if where else self.key
        return f"{where}: {self.message}" if where else self.message


class CatalogError(InputError):
    """An invalid catalog entry: `catalogs/gpus.toml: [id] field: message`."""

    def __init__(self, message: str, *, file: str, entry: str | None = None, field: str | None = None,
                 line: int | None = None) -> None:
        self.entry = entry
        self.field = field
        super().__init__(message, file=file, line=line)

    def __str__(self) -> str:
        where = self.file or ""
        if self.line:
            where += f":{self.line}"
        if self.entry:
            where += f": [{self.entry}]"
        if self.field:
            where += f" {self.field}"
        return f"{where}: {self.message}"


class UnknownPartError(PlannerError):
    """A part id that no catalog holds; carries close matches for "did you mean"."""

    def __init__(self, kind: str, part_id: str, suggestions: list[str]) -> None:
        self.kind = kind
        self.part_id = part_id
        self.suggestions = suggestions
        hint = f"; did you mean {' or '.join(repr(s) for s in suggestions)}?" if suggestions else ""
        super().__init__(f"no {kind} with id {part_id!r} in the catalogs{hint}")
