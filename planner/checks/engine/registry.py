"""The check registry: each check is a small pure function `Context -> Iterable[Finding]` that declares what
of the build it reads.

Checks register themselves with `@check("code", reads={...}, order=…, section=…, error=…, warning=…, evidence=…)`
in a module of the rules package (planner/checks/rules/, one module per code family): the declaration is the one
place a check is described, and docs/verdicts.md is generated from it (tools/gen_verdicts.py). The registry
imports every module of that package itself, on the first `registered()`: importing this module, the findings or
the context loads no check. Everything that needs to know which checks a kind of edit can change
derives it from the declared reads, never from code prefixes: the runner's re-checks (planner/checks/engine/runner.py),
the power-limit optimiser (`codes_reading("gpus.power_limit")`), the TUI's power-limit tuner, and the solver's
stages (planner/solve/reads.py). Adding a check touches none of them.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from planner.checks.engine.context import Context
    from planner.checks.engine.findings import Finding, Severity

CheckFn = Callable[["Context"], Iterable["Finding"]]

#: What a check may read of a build: the vocabulary of `reads=`, one docstring per field. A check reads a field
#: when its findings (without fixes: a fix may look further, and every fix is verified by a re-check) can change
#: with that field alone; a check that uses a model of the Context reads what the model reads (context.py,
#: `MODEL_READS`). Under-declaring is a bug: findings would be reused, or judged, where they no longer hold.
FIELDS: dict[str, str] = {
    "gpus": "Which cards: their chips and boards and how many (`[[gpu]] part`, `count`).",
    "gpus.power_limit": "Each card's power limit (`[[gpu]] power_limit`; its default board power when unset).",
    "gpus.mount": "The slots the build names for its cards (`[[gpu]] slot`); the placement decides the rest.",
    "risers": "The riser each card hangs on, and its ratings (`[[gpu]] riser`).",
    "motherboard": "The motherboard: socket, slots and their lanes, switches, memory kinds, form factor.",
    "case": "The case: size, expansion slots, mounts for cards and PSUs, airflow.",
    "cpu": "The CPU: socket, generation, PCIe lanes and generation (link speeds), power.",
    "ram": "The memory: its kind and how many modules (`[extras] ram_type`, `ram_modules`).",
    "psus": "The PSUs: their units, how many, and which card each feeds (`[[psu]] part`, `[[gpu]] psu`).",
    "psus.count": "How many PSUs there are, and nothing else of them (the thermal model shares their conversion "
                  "heat evenly); `psus` includes it.",
    "circuits": "The circuits: outlets, other load, and which one each PSU plugs into (`[[circuit]]`, "
                "`[[psu]] circuit`, the region's default outlet).",
    "extras": "The smaller loads but the memory: drives, fans, board power, other load (`[extras]`).",
    "ambient": "The room's temperature (`ambient`).",
    "workload": "What the machine runs (`workload`): the throughput estimate's curve.",
}

#: Build-file key paths (as fixes write them: `gpu[0].power_limit`, `case`; `[]` stands for any index, `.*` for any
#: key of a table) an edit of which changes each field. A path listed under several fields changes all of them; a
#: path under none is taken to change anything.
EDIT_PATHS: dict[str, tuple[str, ...]] = {
    "gpus": ("gpu", "gpu[]", "gpu[].part", "gpu[].count"),
    "gpus.power_limit": ("gpu", "gpu[]", "gpu[].power_limit"),
    "gpus.mount": ("gpu", "gpu[]", "gpu[].slot"),
    "risers": ("gpu", "gpu[]", "gpu[].riser"),
    "motherboard": ("motherboard",),
    "case": ("case",),
    "cpu": ("cpu",),
    "ram": ("extras", "extras.ram_type", "extras.ram_modules"),
    "psus": ("gpu", "gpu[]", "gpu[].psu", "psu", "psu[]", "psu[].part"),
    "psus.count": ("psu", "psu[]"),
    "circuits": ("psu", "psu[]", "psu[].circuit", "circuit", "circuit[]", "circuit[].*", "region"),
    "extras": ("extras", "extras.drives", "extras.fans", "extras.board", "extras.other"),
    "ambient": ("ambient",),
    "workload": ("workload",),
}
_INDEX = re.compile(r"\[\d+\]")

#: The package the rules live in: every module under it is imported by the first `registered()`, and each
#: registers its checks with `@check`. A new check is a module there (or a function in its family's module).
RULES_PACKAGE = "planner.checks.rules"

#: The sections of docs/verdicts.md, in order: each check names the one its row is listed in.
SECTIONS = ("Fit", "Power", "The wall", "Heat")


@dataclass(frozen=True, eq=False)
class Check:
    """A registered check: its stable code, the function, what it reads, where it runs and how it is documented.

    `order`: checks run (and a report lists findings of one severity) by ascending order. `section`, `error`,
    `warning`, `evidence`: its row in docs/verdicts.md (generated from these: `tools/gen_verdicts.py`) — what
    makes an error, what makes a warning, and on what evidence."""

    code: str
    run: CheckFn
    doc: str  # the function's docstring's first line
    reads: frozenset[str]  # what of the build its findings depend on (FIELDS)
    informs: bool = False  # its findings are always info: fix re-checks, which weigh errors and warnings, skip it
    order: float = float("inf")
    section: str | None = None
    error: str = "—"
    warning: str = "—"
    evidence: str = ""

    @property
    def family(self) -> str:
        """The code's family: what comes before the first dot (`psu` for `psu.headroom`)."""
        return self.code.partition(".")[0]

    def __call__(self, ctx: Context) -> Iterable[Finding]:
        return self.run(ctx)

    def finding(self, severity: Severity, message: str, **fields: Any) -> Finding:
        """A finding of this check: its code comes from the declaration."""
        from planner.checks.engine.findings import Finding

        return Finding(self.code, severity, message, **fields)


#: Every registered check by code, in order once the rules are loaded (use `registered()`).
REGISTRY: dict[str, Check] = {}
_loaded = False
_version = 0  # changes whenever the registry does: what is derived from it may be cached against it
_loading = threading.Lock()  # the TUI checks in worker threads


def check(code: str, *, reads: Iterable[str], informs: bool = False, order: float = float("inf"),
          section: str | None = None, error: str = "—", warning: str = "—",
          evidence: str = "") -> Callable[[CheckFn], Check]:
    """Register a check under its stable code. `reads`: the FIELDS its findings depend on; `informs`: it only
    ever reports info findings; `order`, `section`, `error`, `warning`, `evidence`: see `Check`. Returns the
    `Check`, which is called like the function and makes its findings (`check.finding(severity, message, …)`)."""
    fields = frozenset(reads)
    if unknown := sorted(fields - FIELDS.keys()):
        raise ValueError(f"check {code!r} reads unknown fields {unknown}; the vocabulary is registry.FIELDS")
    if not fields:
        raise ValueError(f"check {code!r} declares no reads")
    if section is not None and section not in SECTIONS:
        raise ValueError(f"check {code!r} names section {section!r}; the sections are {SECTIONS}")

    def register(fn: CheckFn) -> Check:
        global _version
        if code in REGISTRY:
            raise ValueError(f"check {code!r} registered twice")
        doc = (fn.__doc__ or "").strip().splitlines()[0] if fn.__doc__ else ""
        declared = Check(code, fn, doc, fields, informs, order, section, error, warning, evidence)
        REGISTRY[code] = declared
        _reorder()
        _version += 1
        return declared

    return register


def _reorder() -> None:
    """Keep REGISTRY by declared order (a stable sort: equal orders keep the order they registered in)."""
    ordered = sorted(REGISTRY.values(), key=lambda c: c.order)
    REGISTRY.clear()
    REGISTRY.update((c.code, c) for c in ordered)


def unregister(code: str) -> None:
    """Remove a check (tests that register one of their own)."""
    global _version
    del REGISTRY[code]
    _version += 1


def registered() -> Mapping[str, Check]:
    """Every check, in the order they run: the rules package is imported on the first call."""
    global _loaded, _version
    if _loaded:
        return REGISTRY
    with _loading:
        if not _loaded:
            rules = importlib.import_module(RULES_PACKAGE)
            for module in pkgutil.walk_packages(rules.__path__, prefix=f"{RULES_PACKAGE}."):
                importlib.import_module(module.name)
            _reorder()
            _version += 1
            _loaded = True
    return REGISTRY


def version() -> int:
    """A number that changes whenever a check is registered or removed (a key for caches of derived sets)."""
    registered()
    return _version


def codes_reading(*fields: str) -> frozenset[str]:
    """The codes of the checks that read any of `fields` (the TUI's tuner watches `codes_reading("gpus.power_limit")`:
    the findings a power limit can change)."""
    if unknown := sorted(set(fields) - FIELDS.keys()):
        raise ValueError(f"unknown fields {unknown}; the vocabulary is registry.FIELDS")
    return _codes_reading(frozenset(fields), version())


@functools.lru_cache(maxsize=32)
def _codes_reading(fields: frozenset[str], _version: int) -> frozenset[str]:
    return frozenset(code for code, c in REGISTRY.items() if c.reads & fields)


def codes_reading_none(fields: frozenset[str]) -> frozenset[str]:
    """The codes of the checks that read none of `fields`: an edit of only those cannot change their findings."""
    return _codes_reading_none(fields, version())


@functools.lru_cache(maxsize=8)
def _codes_reading_none(fields: frozenset[str], _version: int) -> frozenset[str]:
    return frozenset(code for code, c in REGISTRY.items() if not c.reads & fields)


def informing() -> frozenset[str]:
    """The checks declared `informs`: fix re-checks skip them."""
    return _informing(version())


@functools.lru_cache(maxsize=4)
def _informing(_version: int) -> frozenset[str]:
    return frozenset(code for code, c in REGISTRY.items() if c.informs)


@functools.lru_cache(maxsize=1024)  # a pure function of the path (EDIT_PATHS is fixed); every re-check asks
def edit_fields(path: str) -> frozenset[str] | None:
    """The fields an edit at this build-file key path changes; None when the path is not one EDIT_PATHS knows."""
    key = _INDEX.sub("[]", path)
    table, _, name = key.rpartition(".")
    edits = _edits()
    fields = edits.get(key, frozenset()) | (edits.get(f"{table}.*", frozenset()) if table and name else frozenset())
    return fields or None


@functools.cache
def _edits() -> dict[str, frozenset[str]]:
    """EDIT_PATHS by path: the fields each path changes."""
    by_path: dict[str, set[str]] = {}
    for field, paths in EDIT_PATHS.items():
        for path in paths:
            by_path.setdefault(path, set()).add(field)
    return {path: frozenset(fields) for path, fields in by_path.items()}
