"""Findings: what a check reports. Data only; the text, JSON and TUI renderers format them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Severity = Literal["error", "warning", "info"]
SEVERITY_RANK: dict[str, int] = {"info": 0, "warning": 1, "error": 2}


class Change(BaseModel):
    """One edit of the build file: set the value at a key path (`gpu[0].power_limit`, `case`)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    path: str = Field(description="Key path in the build file, e.g. gpu[0].power_limit.")
    value: Any = Field(description="The new value.")


class Fix(BaseModel):
    """A concrete suggestion; `verified` when re-checking the changed build cleared the finding."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    description: str
    changes: list[Change] = Field(default_factory=list, description="Build-file edits that apply it.")
    verified: bool | None = Field(
        default=None, description="True: re-checked and it clears the finding; None: not checkable.")


class Finding(BaseModel):
    """One result of a check (SPEC §3)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    code: str = Field(description="Stable code, e.g. case.gpu-length.")
    severity: Severity
    message: str = Field(description="One plain sentence with the numbers.")
    subject: list[str] = Field(default_factory=list, description="Parts, slots or circuits concerned.")
    value: float | None = None
    limit: float | None = None
    unit: str | None = None
    fixes: list[Fix] = Field(default_factory=list, description="Best first.")
