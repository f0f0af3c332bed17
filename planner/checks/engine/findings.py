"""Findings: what a check reports. Plain immutable records (named tuples: cheap to define and to create,
and the TUI re-checks on every edit); the text, JSON and TUI renderers format them."""


from typing import Any, Literal, NamedTuple

from planner.build.edit import Change as Change  # re-exported: a fix is a list of build edits

Severity = Literal["error", "warning", "info"]
SEVERITY_RANK: dict[str, int] = {"info": 0, "warning": 1, "error": 2}


class Fix(NamedTuple):
    """A concrete suggestion. `verified`: True when re-checking the changed build cleared the finding
    without adding an error; None when it cannot be checked (no build edit applies it)."""

    description: str
    changes: list[Change] = []
    verified: bool | None = None


class Finding(NamedTuple):
    """One result of a check (docs/verdicts.md): a stable code, a severity, one plain sentence with the numbers,
    the parts/slots/circuits concerned, the figure and its limit where numeric, and fixes, best first."""

    code: str
    severity: Severity
    message: str
    subject: list[str] = []
    value: float | None = None
    limit: float | None = None
    unit: str | None = None
    fixes: list[Fix] = []


def estimated(part: Any, field: str) -> str:
    """" (estimated)" after a figure the catalog marks as an estimate, so a message never passes a guess
    off as a published figure."""
    return " (estimated)" if field in getattr(part, "estimated", ()) else ""
