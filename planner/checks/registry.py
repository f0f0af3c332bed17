"""The check registry: each check is a small pure function `Context -> Iterable[Finding]`.

Checks register themselves with `@check("code")`; adding one never touches the CLI or the TUI.
"""


from collections.abc import Callable, Iterable
from typing import NamedTuple

from planner.checks.context import Context
from planner.checks.findings import Finding

CheckFn = Callable[[Context], Iterable[Finding]]


class Check(NamedTuple):
    code: str
    run: CheckFn
    doc: str
    informs: bool = False  # its findings are always info: fix re-checks, which weigh errors and warnings, skip it


REGISTRY: dict[str, Check] = {}


def check(code: str, *, informs: bool = False) -> Callable[[CheckFn], CheckFn]:
    """Register a check under its stable code; `informs`: it only ever reports info findings."""

    def register(fn: CheckFn) -> CheckFn:
        if code in REGISTRY:
            raise ValueError(f"check {code!r} registered twice")
        REGISTRY[code] = Check(code, fn, (fn.__doc__ or "").strip().splitlines()[0] if fn.__doc__ else "", informs)
        return fn

    return register
