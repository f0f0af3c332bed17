"""An editable build: the build file as a tomlkit document (comments and order kept), edited in place and
re-checked after every edit. The TUI (and any other interactive face) drives a BuildSession; it holds
no Textual code and is tested on its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import tomlkit
from tomlkit.items import AoT, Table
from tomlkit.toml_document import TOMLDocument

from planner.api import check_build
from planner.catalog import Catalog
from planner.checks import Change, Settings
from planner.edit import set_path
from planner.errors import InputError
from planner.fileio import atomic_write
from planner.report import Report
from planner.resolve import ResolvedBuild

#: What a build needs before it can be checked, in the order a builder usually picks them.
REQUIRED = ("gpu", "case", "motherboard", "cpu", "psu")
SINGLE_PARTS = ("case", "motherboard", "cpu")
NEW_BUILD = '''# A build made with gpu-rig-planner. Edit it here or in `planner tui`; check it with `planner check`.
name = "New build"
workload = "llm-train"
'''


class CheckResult(NamedTuple):
    """The state of the build after an edit: a report, or why there is none yet."""

    report: Report | None
    build: ResolvedBuild | None
    missing: list[str]  # required parts not chosen yet
    problem: str | None  # the build file's first error, when it has one


class PartRow(NamedTuple):
    """One line of the parts list."""

    kind: str  # case, motherboard, cpu, gpu, psu, circuit
    path: str  # key path of the entry in the build file (`case`, `gpu[1]`)
    part: str  # catalog id, or the inline part's name
    quantity: int
    detail: str  # power limit, circuit… whatever distinguishes the entry


@dataclass
class BuildSession:
    catalog: Catalog
    document: TOMLDocument
    path: Path | None = None
    settings: Settings = field(default_factory=Settings)
    dirty: bool = False
    history: list[str] = field(default_factory=list)  # the build's text before each edit `undo` can take back

    # -- opening and saving ------------------------------------------------------------------------------
    @classmethod
    def new(cls, catalog: Catalog) -> BuildSession:
        return cls(catalog, tomlkit.parse(NEW_BUILD))

    @classmethod
    def open(cls, path: Path, catalog: Catalog) -> BuildSession:
        """Read a build file, keeping its comments; InputError when it is not readable TOML."""
        from planner.buildfile import read_text

        text = read_text(path)
        try:
            document = tomlkit.parse(text)
        except tomlkit.exceptions.ParseError as error:
            raise InputError(f"not valid TOML: {error}", file=str(path), line=error.line) from None
        return cls(catalog, document, path)

    def text(self) -> str:
        return tomlkit.dumps(self.document)

    def save(self, path: Path | None = None) -> Path:
        """Write the build atomically (the old file stays whole if anything fails); marks it clean."""
        target = path or self.path
        if target is None:
            raise InputError("the build has no file name yet; save it as a file first")
        atomic_write(target, self.text(), force=True)
        self.path, self.dirty = target, False
        return target

    # -- reading -----------------------------------------------------------------------------------------
    def data(self) -> dict[str, Any]:
        data: dict[str, Any] = self.document.unwrap()
        return data

    def missing(self) -> list[str]:
        data = self.data()
        return [key for key in REQUIRED if not data.get(key)]

    def check(self) -> CheckResult:
        """Validate, resolve and check the build as it is now (what the TUI does on every edit)."""
        from planner.buildfile import validate
        from planner.resolve import resolve

        missing = self.missing()
        if missing:
            return CheckResult(None, None, missing, None)
        data, text, label = self.data(), self.text(), str(self.path or "new build")
        try:
            spec = validate(data, text, label)
            build = resolve(spec, data, self.catalog, label=label, text=text, region=self.settings.region)
            report = check_build(build, self.catalog, self.settings)  # InputError: placement too large to search
        except InputError as error:
            return CheckResult(None, None, [], str(error))
        return CheckResult(report, build, [], None)

    def rows(self) -> list[PartRow]:
        """The parts list, grouped by kind."""
        data, rows = self.data(), []
        for kind in SINGLE_PARTS:
            if kind in data:
                rows.append(PartRow(kind, kind, _label(data[kind]), 1, ""))
        for i, gpu in enumerate(data.get("gpu", [])):
            limit = f"limit {gpu['power_limit']}" if "power_limit" in gpu else "stock power"
            rows.append(PartRow("gpu", f"gpu[{i}]", _label(gpu.get("part")), int(gpu.get("count", 1)), limit))
        for i, psu in enumerate(data.get("psu", [])):
            where = f"on {psu['circuit']}" if "circuit" in psu else ""
            rows.append(PartRow("psu", f"psu[{i}]", _label(psu.get("part")), 1, where))
        for i, circuit in enumerate(data.get("circuit", [])):
            rows.append(PartRow("circuit", f"circuit[{i}]", _label(circuit.get("outlet")), 1,
                                str(circuit.get("name", ""))))
        return rows

    # -- editing -----------------------------------------------------------------------------------------
    def apply(self, changes: list[Change]) -> None:
        """Apply a fix's changes (key path → value)."""
        for change in changes:
            set_path(self.document, change.path, change.value)
        self.dirty = True

    def set_part(self, kind: str, part_id: str) -> None:
        """Choose the case, motherboard or CPU."""
        if kind not in SINGLE_PARTS:
            raise ValueError(f"{kind} is not a single part")
        self.document[kind] = part_id
        self.dirty = True

    def add(self, kind: str, part_id: str, **fields: Any) -> int:
        """Add a GPU, PSU or circuit entry; returns its index."""
        table = tomlkit.table()
        key = "outlet" if kind == "circuit" else "part"
        if kind == "circuit":
            table["name"] = fields.pop("name", f"circuit-{len(self.data().get('circuit', [])) + 1}")
        table[key] = part_id
        for name, value in fields.items():
            table[name] = value
        if kind not in self.document:
            self.document.append(kind, tomlkit.aot())
        entries = self.document[kind]
        assert isinstance(entries, AoT)
        entries.append(table)
        self.dirty = True
        return len(entries) - 1

    def set_field(self, path: str, value: Any) -> None:
        set_path(self.document, path, value)
        self.dirty = True

    def remove_field(self, kind: str, index: int, field: str) -> None:
        entry = self._entry(kind, index)
        if field in entry:
            del entry[field]
            self.dirty = True

    def remove(self, path: str) -> None:
        """Remove a part: `case`, or one entry of gpu/psu/circuit (`gpu[1]`)."""
        if path in SINGLE_PARTS:
            if path in self.document:
                del self.document[path]
        else:
            kind, index = path.rstrip("]").split("[")
            entries = self.document[kind]
            assert isinstance(entries, AoT)
            del entries[int(index)]
            if not entries:
                del self.document[kind]
        self.dirty = True

    def replace(self, text: str) -> None:
        """Replace the whole build (a completion by the solver) as one edit that `undo` takes back."""
        try:
            document = tomlkit.parse(text)
        except tomlkit.exceptions.ParseError as error:
            raise InputError(f"not valid TOML: {error}") from None
        self.history.append(self.text())
        self.document, self.dirty = document, True

    def undo(self) -> bool:
        """Take back the last `replace`; False when there is none."""
        if not self.history:
            return False
        self.document, self.dirty = tomlkit.parse(self.history.pop()), True
        return True

    def _entry(self, kind: str, index: int) -> Table:
        entries = self.document[kind]
        assert isinstance(entries, AoT)
        entry = entries[index]
        return entry


def _label(ref: Any) -> str:
    if isinstance(ref, dict):
        return str(ref.get("name") or ref.get("base") or "custom part")
    return str(ref)
