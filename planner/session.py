"""An editable build: the build file as a tomlkit document (comments and order kept), edited in place and
re-checked after every edit. The TUI (and any other interactive face) drives a BuildSession; it holds
no Textual code and is tested on its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import tomlkit
from tomlkit.items import AoT, Array, InlineTable, Table
from tomlkit.toml_document import TOMLDocument

from planner.api import Checked, check, resolve_data
from planner.build.edit import parse_path, set_path
from planner.build.resolve import ResolvedBuild
from planner.catalog import Catalog, open_catalog
from planner.checks.engine.context import Settings
from planner.checks.engine.findings import Change
from planner.kinds import PICKABLE, SINGLE_PARTS
from planner.recommend.inputs import amount, gpu_count, memory_gib
from planner.report import Report
from planner.session_tools import (
    EXPORT_SUFFIXES,
    Tuning,
    complete,
    export_build,
    export_format,
    gpu_memory,
    key_figures,
    optimise,
    part_kind,
    part_power,
    part_summary,
    perf_per_dollar,
    power_limit_codes,
    recommend_gpus,
    save_recovery,
    slot_diagram,
    tuning,
    workload_models,
)
from planner.util import tomlfile
from planner.util.errors import InputError, PlannerError
from planner.util.fileio import atomic_write

if TYPE_CHECKING:  # the answers' types, for a face's annotations (their modules load on first use)
    from planner.checks.optimize import Plan as Plan
    from planner.recommend.rank import Candidate as Candidate
    from planner.recommend.rank import Recommendation as Recommendation
    from planner.solve import SolveResult as SolveResult

#: The session and what a face does with it (planner/session_tools.py): with planner.api, all a face imports.
__all__ = [
    "EXPORT_SUFFIXES", "NEW_BUILD", "PICKABLE", "REQUIRED", "SINGLE_PARTS", "BuildSession", "CheckResult", "Edit",
    "PartRow", "PendingCheck", "Snapshot", "Tuning", "amount", "complete", "completion_lines", "export_build",
    "export_format", "gpu_count",
    "gpu_memory", "key_figures", "memory_gib", "open_catalog", "optimise", "part_kind", "part_power", "part_summary",
    "perf_per_dollar", "power_limit_codes", "recommend_gpus", "save_recovery", "slot_diagram", "tuning",
    "workload_models",
]

#: What a build needs before it can be checked, in the order a builder usually picks them.
REQUIRED = ("gpu", "case", "motherboard", "cpu", "psu")
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
    checked: Checked | None = None  # the report with the models the checks computed (placement…), to reuse


class PartRow(NamedTuple):
    """One line of the parts list."""

    kind: str  # case, motherboard, cpu, gpu, psu, circuit
    path: str  # key path of the entry in the build file (`case`, `gpu[1]`)
    part: str  # catalog id, or the inline part's name
    quantity: int
    detail: str  # the power limit ("300 W", "stock"), the circuit ("on office"): what distinguishes the entry


def completion_lines(result: SolveResult, *, part_width: int = 44) -> list[str]:
    """A completion explained as `planner solve` explains it (planner/solve/answer.py), with a line for the
    completed build's verdict (the screen shows no whole report)."""
    from planner.solve.answer import explanation

    return explanation(result, part_width=part_width, verdict=True)


class PendingCheck(NamedTuple):
    """A build's content taken at one moment, checked by `run` (in a worker thread if need be)."""

    data: dict[str, Any]
    text: str
    label: str
    missing: list[str]
    catalog: Catalog
    settings: Settings

    def run(self) -> CheckResult:
        """Validate, resolve and check; a bug in the planner is the result's problem, not an exception."""
        from planner.build.buildfile import validate_unfinished

        data, text, label, missing = self.data, self.text, self.label, self.missing
        try:
            tomlfile.check_values(data, text, label)
            if missing:
                validate_unfinished(data, text, label, missing)
                return CheckResult(None, None, missing, None)
            build = resolve_data(data, text, label, self.catalog, self.settings.region)
            checked = check(build, self.catalog, self.settings)
            return CheckResult(checked.report, build, [], None, checked)
        except PlannerError as error:  # among them: a placement too large to search
            return CheckResult(None, None, missing, str(error))
        except Exception as error:
            return CheckResult(None, None, missing, f"internal error ({type(error).__name__}: {error}); this is a"
                               " bug in the planner, please report it with this build")


class Snapshot(NamedTuple):
    """The build's text before (or, for redo, after) one undoable edit, and what the edit did."""

    text: str
    what: str  # "remove gpu[0] (4 × gigabyte-rtx-3090-turbo)": what `undo` and `redo` say they took back


class Edit:
    """One undoable edit made of any number of changes (a wizard's pick, a tuner's steps): `done` records them
    as one entry of the session's history, `cancel` puts the build back as it was. Edits nest: only the
    outermost one records."""

    def __init__(self, session: BuildSession, what: str) -> None:
        self.session, self.what = session, what
        self.before, self.dirty = session.text(), session.dirty
        self.open = True
        session._open_edits += 1

    def done(self) -> bool:
        """Record the changes as one edit; False when nothing changed (or an outer edit records them)."""
        if not self.open:
            return False
        self.open = False
        session = self.session
        session._open_edits -= 1
        if session._open_edits or session.text() == self.before:
            return False
        session.history.append(Snapshot(self.before, self.what))
        del session.history[:-HISTORY_LIMIT]
        session.future.clear()  # a new edit: what was undone before it cannot be redone
        return True

    def cancel(self) -> None:
        """Put the build back as it was when the edit began; nothing is recorded."""
        if not self.open:
            return
        self.open = False
        self.session._open_edits -= 1
        self.session.document = _editable(self.before, self.session._label())
        self.session.dirty = self.dirty


#: Edits the session can take back: far more than anyone undoes, and a few MB of text at most.
HISTORY_LIMIT = 500


@dataclass
class BuildSession:
    catalog: Catalog
    document: TOMLDocument
    path: Path | None = None
    settings: Settings = field(default_factory=Settings)
    dirty: bool = False
    history: list[Snapshot] = field(default_factory=list)  # the build before each edit `undo` can take back
    future: list[Snapshot] = field(default_factory=list)  # the build after each edit undone, for `redo`
    saved: str | None = None  # the text as last read or saved (an undo back to it leaves the build clean)
    _open_edits: int = field(default=0, repr=False)

    def __post_init__(self) -> None:
        if self.saved is None:
            self.saved = self.text()

    # -- opening and saving ------------------------------------------------------------------------------
    @classmethod
    def new(cls, catalog: Catalog) -> BuildSession:
        return cls(catalog, tomlkit.parse(NEW_BUILD))

    @classmethod
    def open(cls, path: Path, catalog: Catalog, *, validate: bool = True) -> BuildSession:
        """Read a build file, keeping its comments, through the CLI's parser and validation (parts that are
        not chosen yet may be missing); InputError naming file and line when it does not pass them. With
        `validate=False` a file that parses as TOML opens even with an invalid value or key: every check of it
        then reports that error (the TUI shows it, so it can be fixed there)."""
        from planner.build.buildfile import read_text

        text, label = read_text(path), str(path)
        tomlfile.loads(text, label)  # what `planner check` parses; tomlkit alone accepts more than TOML
        session = cls(catalog, _editable(text, label), path)
        if validate:
            session.validate()
        return session

    @classmethod
    def from_text(cls, text: str, catalog: Catalog, label: str) -> BuildSession:
        """A new, unsaved build from TOML text (a lab's inline build): InputError when it is not a build file."""
        tomlfile.loads(text, label)
        return cls(catalog, _editable(text, label), None, dirty=True)

    def text(self) -> str:
        return tomlfile.dumps(self.document)  # every string and comment escaped: the one TOML writer

    def save(self, path: Path | None = None) -> Path:
        """Write the build atomically (the old file stays whole if anything fails); marks it clean."""
        target = path or self.path
        if target is None:
            raise InputError("the build has no file name yet; save it as a file first")
        text = self.text()
        tomlfile.loads(text, str(target))  # never write a file that `planner check` cannot read
        atomic_write(target, text, force=True)
        self.path, self.dirty, self.saved = target, False, text
        return target

    # -- reading -----------------------------------------------------------------------------------------
    def data(self) -> dict[str, Any]:
        data: dict[str, Any] = self.document.unwrap()
        return data

    def missing(self) -> list[str]:
        data = self.data()
        return [key for key in REQUIRED if not data.get(key)]

    def validate(self) -> None:
        """InputError for the build's first problem, as `planner check` words it; parts still missing are not
        a problem here (`missing()` lists them)."""
        from planner.build.buildfile import validate_unfinished

        data, text, label = self.data(), self.text(), self._label()
        tomlfile.check_values(data, text, label)
        validate_unfinished(data, text, label, self.missing())

    def error(self) -> InputError | None:
        """The build's first problem as `validate` words it, or None: a face asks before an edit or a tool
        that reads the build's entries (a file can open with `gpu = 1` in it; see `open`)."""
        try:
            self.validate()
        except InputError as error:
            return error
        return None

    def check(self) -> CheckResult:
        """Validate, resolve and check the build as it is now (what the TUI does on every edit). A bug in
        the planner is the result's problem, not an exception that would end the session."""
        return self.pending_check().run()

    def pending_check(self) -> PendingCheck:
        """The build as it is now, to check later or in another thread: later edits do not reach it."""
        return PendingCheck(self.data(), self.text(), self._label(), self.missing(), self.catalog, self.settings)

    def file_problem(self) -> str | None:
        """An error in a build that still lacks parts (an unknown key, a bad value): the file's own
        validation, leaving out only the complaint that required parts are missing."""
        from planner.build.buildfile import IncompleteBuild, validate

        try:
            validate(self.data(), self.text(), self._label())
        except IncompleteBuild as incomplete:  # the parts still missing are no problem; anything else is
            return str(incomplete.problems[0]) if incomplete.problems else None
        except InputError as error:
            return None if str(error).endswith("required key is missing") else str(error)
        return None

    def _label(self) -> str:
        return str(self.path or "new build")

    def rows(self) -> list[PartRow]:
        """The parts list, grouped by kind."""
        data, rows = self.data(), []
        for kind in SINGLE_PARTS:
            if kind in data:
                rows.append(PartRow(kind, kind, _label(data[kind]), 1, ""))
        for i, gpu in _tables(data, "gpu"):
            limit = _limit(gpu["power_limit"]) if "power_limit" in gpu else "stock"
            count = gpu.get("count", 1)
            rows.append(PartRow("gpu", f"gpu[{i}]", _label(gpu.get("part")), count if type(count) is int else 1,
                                limit))
        for i, psu in _tables(data, "psu"):
            where = f"on {psu['circuit']}" if "circuit" in psu else ""
            rows.append(PartRow("psu", f"psu[{i}]", _label(psu.get("part")), 1, where))
        for i, circuit in _tables(data, "circuit"):
            rows.append(PartRow("circuit", f"circuit[{i}]", _label(circuit.get("outlet")), 1,
                                str(circuit.get("name", ""))))
        return rows

    # -- what a face does with it (planner/session_tools.py) ---------------------------------------------
    def power_limit_codes(self) -> frozenset[str]:
        """The finding codes a GPU's power limit can change (what the tuner shows after each step)."""
        return power_limit_codes()

    def tuning(self, spec_index: int, build: ResolvedBuild | None = None) -> Tuning | None:
        """The tuner's view of the `[[gpu]]` entry `spec_index` in `build` (its last check), or in a check
        run now; None when the build cannot be checked yet."""
        build = build if build is not None else self.check().build
        return tuning(build, spec_index) if build is not None else None

    def optimise(self, build: ResolvedBuild | None = None) -> Plan | None:
        """Apply the optimiser's power limits to the build (`build`: its last check, else it is checked now);
        the plan says what they clear and cost. None when the build cannot be checked yet."""
        build = build if build is not None else self.check().build
        if build is None:
            return None
        plan = optimise(build, self.catalog, self.settings)
        self.apply(list(plan.changes))
        return plan

    def complete(self) -> SolveResult:
        """The solver's completion of the build (not applied: `replace` with its `build_toml` applies it as
        one undoable edit). Slow on the full catalogs: a face runs it in a worker."""
        return complete(self.text(), self._label(), self.catalog, self.settings.region)

    def export(self, path: Path, build: ResolvedBuild | None = None) -> None:
        """Write the parts list or power-limit script `path`'s suffix asks for (never over a file); InputError
        when the build cannot be checked yet."""
        build = build if build is not None else self.check().build
        if build is None:
            raise InputError("the build is not complete yet: complete it before exporting its parts list")
        export_build(build, path)

    def save_recovery(self) -> Path:
        """Keep the unsaved build in a new recovery file beside it (or in the user's state directory)."""
        return save_recovery(self.text(), self.path)

    # -- editing: every change is one undoable edit (`edit` groups several) ------------------------------
    @contextmanager
    def edit(self, what: str) -> Iterator[Edit]:
        """The changes made inside are one edit that `undo` takes back whole (`what` says what it did); an
        exception inside leaves what was changed, recorded."""
        edit = Edit(self, what)
        try:
            yield edit
        finally:
            edit.done()

    def begin(self, what: str) -> Edit:
        """An edit that stays open across calls (a tuner's steps): its `done` records it, `cancel` drops it."""
        return Edit(self, what)

    def apply(self, changes: list[Change], what: str = "") -> None:
        """Apply a fix's changes (key path → value)."""
        with self.edit(what or "; ".join(f"{c.path} = {c.value}" for c in changes)):
            for change in changes:
                set_path(self.document, change.path, change.value)
            self.dirty = True

    def set_part(self, kind: str, part_id: str) -> None:
        """Choose the case, motherboard or CPU."""
        if kind not in SINGLE_PARTS:
            raise ValueError(f"{kind} is not a single part")
        with self.edit(f"{kind} = {part_id}"):
            self.document[kind] = part_id
            self.dirty = True

    def add(self, kind: str, part_id: str, **fields: Any) -> int:
        """Add a GPU, PSU or circuit entry; returns its index."""
        count = f"{fields['count']} × " if "count" in fields else ""
        with self.edit(f"add {kind} {count}{part_id}"):
            table = tomlkit.table()
            key = "outlet" if kind == "circuit" else "part"
            if kind == "circuit":
                table["name"] = fields.pop("name", f"circuit-{len(self.data().get('circuit', [])) + 1}")
            table[key] = part_id
            for name, value in fields.items():
                table[name] = value
            if kind not in self.document:
                self.document.append(kind, tomlkit.aot())
            entries = self._entries(kind)
            if isinstance(entries, Array):  # `psu = [{ part = "…" }]`: keep the file's inline style
                inline = tomlkit.inline_table()
                inline.update(table)
                entries.append(inline)
            else:
                entries.append(table)
            self.dirty = True
            return len(entries) - 1

    def set_field(self, path: str, value: Any) -> None:
        with self.edit(f"{path} = {value}"):
            set_path(self.document, path, value)
            self.dirty = True

    def remove_field(self, kind: str, index: int, field: str) -> None:
        with self.edit(f"remove {kind}[{index}].{field}"):
            entry = self._entry(kind, index)
            if field in entry:
                del entry[field]
                self.dirty = True

    def remove(self, path: str) -> None:
        """Remove a part: `case`, or one entry of gpu/psu/circuit (`gpu[1]`)."""
        with self.edit(f"remove {self.describe(path)}"):
            if path in SINGLE_PARTS:
                if path in self.document:
                    del self.document[path]
            else:
                kind, index = path.rstrip("]").split("[")
                entries = self._entries(kind)
                del entries[int(index)]
                if not entries:
                    del self.document[kind]
            self.dirty = True

    def describe(self, path: str) -> str:
        """An entry as a builder names it: `gpu[0] (4 × gigabyte-rtx-3090-turbo)`, `case (fractal-…)`."""
        for row in self.rows():
            if row.path == path:
                return f"{path} ({row.quantity} × {row.part})" if row.quantity != 1 else f"{path} ({row.part})"
        return path

    def replace(self, text: str, what: str = "replace the build") -> None:
        """Replace the whole build (a completion by the solver) as one edit that `undo` takes back."""
        try:
            document = tomlkit.parse(text)
        except tomlkit.exceptions.ParseError as error:
            raise InputError(f"not valid TOML: {error}") from None
        with self.edit(what):
            self.document, self.dirty = document, True

    def droppable(self, key: str) -> str | None:
        """The key path `drop(key)` would take out of the build, or None when no part of `key` is in it."""
        return _drop(tomlkit.parse(self.text()), key)

    def drop(self, key: str) -> str | None:
        """Take the value at the key path `key` (`gpu[0].count`, the key an error names) out of the build as one
        edit `undo` takes back: the fix for a value of the wrong shape. When the build has no such key (a
        required key an entry lacks) the entry or table that should hold it goes. Returns the key path
        removed, or None (and no edit) when no part of `key` is in the build."""
        document = tomlkit.parse(self.text())
        removed = _drop(document, key)
        if removed is not None:
            self.replace(tomlkit.dumps(document), f"remove {removed}")
        return removed

    def undo(self) -> str | None:
        """Take back the last edit: what it did, or None when there is none (or an edit is still open)."""
        return self._step(self.history, self.future)

    def redo(self) -> str | None:
        """Make again the last edit `undo` took back: what it did, or None when there is none."""
        return self._step(self.future, self.history)

    def _step(self, source: list[Snapshot], target: list[Snapshot]) -> str | None:
        if not source or self._open_edits:
            return None
        snapshot = source.pop()
        target.append(Snapshot(self.text(), snapshot.what))
        self.document = _editable(snapshot.text, self._label())
        self.dirty = snapshot.text != self.saved
        return snapshot.what

    def _entries(self, kind: str) -> AoT | Array:
        """The gpu, psu or circuit entries: an array of tables, or an inline array (`psu = []` is valid TOML
        and a build that has no PSU yet)."""
        entries = self.document[kind]
        assert isinstance(entries, (AoT, Array)), f"{kind} is validated to be a list"
        return entries

    def _entry(self, kind: str, index: int) -> Table | InlineTable:
        entry = self._entries(kind)[index]
        assert isinstance(entry, (Table, InlineTable))
        return entry


class LabMachine(NamedTuple):
    """One `[[machine]]` of a lab, as the TUI's lab view lists it."""

    name: str
    copies: int  # count = … in the lab file
    instances: str
    verdict: str
    findings: int  # errors and warnings of its own check
    dc_w: float
    build_file: Path | None  # its build file (relative paths resolved), or None for an inline build
    build_text: str  # the build as TOML (an inline build's table, or the file's text)


class LabView(NamedTuple):
    """A lab file checked, for a face to show read-only: its verdict, its findings, its machines."""

    name: str
    file: str
    verdict: str
    findings: list[str]  # "severity: code: message"
    machines: list[LabMachine]
    summary: str  # to buy, running a year, heat


def is_lab_file(path: Path) -> bool:
    """Whether `path` reads as a lab file (`[[machine]]` tables) rather than a build file."""
    from planner.build.buildfile import read_text

    try:
        return isinstance(tomlfile.loads(read_text(path), str(path)).get("machine"), list)
    except (PlannerError, OSError):
        return False


def open_lab(path: Path, catalog: Catalog) -> LabView:
    """`planner lab`'s check of a lab file, as plain data; PlannerError naming file and line when it is bad."""
    from planner.build.buildfile import read_text
    from planner.lab.load import build_path  # `planner lab`'s code: loaded only when a lab is opened
    from planner.lab.report import check_lab

    report = check_lab(path, catalog)
    machines = []
    for k, (m, spec) in enumerate(zip(report.machines, report.spec.machine, strict=True)):
        r = m.report
        if isinstance(spec.build, str):
            build_file: Path | None = build_path(report.file, spec, k, "")
            text = read_text(build_file)  # type: ignore[arg-type]
        else:
            document = tomlkit.document()
            document.update(spec.build)
            build_file, text = None, tomlfile.dumps(document)
        machines.append(LabMachine(m.name, m.copies, ", ".join(m.instances), r.verdict,
                                   sum(1 for f in r.findings if f.severity in ("error", "warning")),
                                   r.summary.dc_load_w, build_file, text))
    money = report.money
    summary = (f"to buy {money.chosen.to_buy_usd:,.0f} USD ({money.market} market); running "
               f"{money.energy.total_usd_per_year:,.0f} USD a year; heat {report.cooling.load:,.0f} W of "
               f"{report.cooling.limit:,.0f} W removed")
    return LabView(report.lab, report.file, report.verdict,
                   [f"{f.severity}: {f.code}: {f.message}" for f in report.findings], machines, summary)


def _editable(text: str, label: str) -> TOMLDocument:
    """The text as a tomlkit document (comments and order kept); InputError when tomlkit cannot read it."""
    if not text.endswith("\n"):
        text += "\n"  # else tomlkit writes a table added at the end onto the last line: `x = 1[[gpu]]`
    try:
        document = tomlkit.parse(text)
        document.unwrap()
    except tomlkit.exceptions.ParseError as error:
        raise InputError(f"not valid TOML: {error}", file=label, line=error.line) from None
    except (tomlkit.exceptions.TOMLKitError, ValueError, RecursionError) as error:
        raise InputError(f"cannot be opened for editing: {error}", file=label) from None
    return document


def _drop(document: TOMLDocument, key: str) -> str | None:
    """Delete the value at the key path `key` in `document`, else its nearest enclosing entry or table that is
    there; the key path deleted, or None."""
    try:
        tokens = parse_path(key)
    except ValueError:
        return None
    for end in range(len(tokens), 0, -1):
        node: Any = document
        for token in tokens[: end - 1]:
            node = _child(node, token)
        if node is not None and _child(node, tokens[end - 1]) is not None:
            del node[tokens[end - 1]]
            if not node and isinstance(node, list) and end >= 2:  # the last entry: the list goes too, as `remove`
                parent: Any = document
                for token in tokens[: end - 2]:
                    parent = _child(parent, token)
                del parent[tokens[end - 2]]
            return "".join(f"[{t}]" if isinstance(t, int) else f".{t}" for t in tokens[:end]).lstrip(".")
    return None


def _child(node: Any, token: str | int) -> Any:
    """`node[token]` in a tomlkit document when it is there (a table's key, a list's index), else None."""
    if isinstance(token, int):
        return node[token] if isinstance(node, list) and 0 <= token < len(node) else None
    return node[token] if isinstance(node, dict) and token in node else None


def _tables(data: dict[str, Any], kind: str) -> list[tuple[int, dict[str, Any]]]:
    """The entries of an array of tables with their indexes (none when it is not one: the build's problem
    then says why)."""
    entries = data.get(kind, [])
    return [(i, entry) for i, entry in enumerate(entries) if isinstance(entry, dict)] if isinstance(
        entries, list) else []


def _limit(value: Any) -> str:
    """A power limit as the parts list shows it: `300 W` (a bare number is in watts)."""
    return f"{value:g} W" if isinstance(value, (int, float)) and not isinstance(value, bool) else str(value)


def _label(ref: Any) -> str:
    if isinstance(ref, dict):
        return str(ref.get("name") or ref.get("base") or "custom part")
    return str(ref)
