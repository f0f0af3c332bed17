"""The planner's Textual app: one build session, re-checked on every edit.

`make_app` builds the app for the CLI (`planner tui [FILE]`) and for the tests alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from textual import work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.command import CommandPalette
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.reactive import Reactive, var
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Header
from textual.widgets._toast import ToastRack

from planner.api import Catalog, PlannerError, printable
from planner.session import SINGLE_PARTS, BuildSession, CheckResult, PendingCheck, part_kind
from tui import state
from tui.files import FileCommands
from tui.screens.complete import CompleteBuild
from tui.screens.dialogs import InvalidBuild, ShowError
from tui.screens.modal import Palette
from tui.screens.picker import CatalogPicker, Picked
from tui.screens.tuner import Tuner
from tui.screens.wizard import Choice, Wizard
from tui.state import Checked, Parts
from tui.widgets.findings import FindingsPanel
from tui.widgets.keys import KeysFooter
from tui.widgets.parts import PartsList
from tui.widgets.slots import SlotDiagram
from tui.widgets.status import Notice, StatusLine
from tui.widgets.totals import TotalsPanel

ADDABLE = {"gpu", "psu", "circuit"}
#: What a narrow footer leaves out first (each stays in the command palette, ctrl+p): the keys a builder needs
#: least often, so that the focused panel's keys, Fix, Complete, Undo, Save and Quit always show.
FOOTER_DROPS_FIRST = ("optimise", "redo", "change", "wizard", "tune", "undo")


class BuildScreen(Screen[None]):
    """The build screen. A focus change repaints only the two widgets whose focus changed (each refreshes
    itself when its `:focus` style changes), not the whole screen as Textual's Screen does by default. Its
    messages go to the status line, not to toasts over the panels."""

    focused: Reactive[Widget | None] = Reactive(None, repaint=False)

    def _extend_compose(self, widgets: list[Widget]) -> None:
        """Textual's own widgets, less the toasts' rack: this screen's messages are in its status line."""
        super()._extend_compose(widgets)
        widgets[:] = [widget for widget in widgets if not isinstance(widget, ToastRack)]


class PlannerApp(FileCommands):
    """Build session: parts on the left, findings and totals on the right. An edit shows at once; the build is
    re-checked in a worker thread and the findings, totals and slot diagram follow when the check lands."""

    TITLE = "gpu-rig-planner"
    CSS = """
    #main { height: 1fr; }
    #left { width: 50%; min-width: 34; border-right: solid $primary; }
    #right { width: 1fr; }
    /* the focused panel: a heavy accent rule and its title in reverse; the other panels keep a thin one */
    PartsList, FindingsPanel { border: none; border-top: solid $primary; border-title-color: $foreground 60%; }
    PartsList:focus, FindingsPanel:focus { border: none; border-top: heavy $accent; border-title-color: $background;
                                           border-title-background: $accent; border-title-style: bold; }
    FindingsPanel { padding: 0; }
    KeysFooter FooterLabel { margin-right: 1; }
    SlotDiagram, TotalsPanel { border-title-color: $foreground 60%; }
    """
    BINDINGS = [
        Binding("x", "apply_fix", "Fix"),
        Binding("s", "complete", "Complete"),  # shown while the build is incomplete or failing (check_action)
        Binding("s", "complete(True)", "Complete", show=False),  # and working always
        Binding("w", "wizard", "Recommend"),
        Binding("o", "optimise", "Optimise"),
        Binding("ctrl+z", "undo", "Undo"),
        Binding("ctrl+y", "redo", "Redo"),
        Binding("ctrl+s", "save", "Save"),
        Binding("ctrl+o", "open", "Open", show=False),
        Binding("tab", "focus_next", "Next panel", show=False),
        Binding("shift+tab", "focus_previous", "Previous panel", show=False),
        Binding("q", "quit_app", "Quit"),
    ]

    # the Header shows them and redraws itself when they change; the whole screen need not
    title: Reactive[str] = Reactive("", compute=False, repaint=False)
    sub_title: Reactive[str] = Reactive("", compute=False, repaint=False)
    #: The state the panels watch: the parts as edited (at once), the last check that landed (later), whether a
    #: check of a newer edit is still running, and the latest message (the status line).
    parts: var[Parts] = var(Parts((), ()))
    checked: var[Checked | None] = var(None, always_update=True)
    checking: var[bool] = var(False)
    notice: var[Notice | None] = var(None, always_update=True)

    class Rechecked(Message):
        """A check ended in its worker: what it found, for the edit it began after and the session it read."""

        def __init__(self, checked: Checked, session: BuildSession) -> None:
            super().__init__()
            self.checked, self.session = checked, session

    def __init__(self, session: BuildSession) -> None:
        super().__init__()
        self.session = session
        self.edits = 0  # edits so far (and sessions opened): a check begun before the last one is stale
        self._check_running: int | None = None  # the edit whose check runs in the worker now
        # a key that waits for the check of the last edit, and the build it was pressed on
        self._when_checked: tuple[BuildSession, Callable[[], None]] | None = None

    def get_default_screen(self) -> Screen[None]:
        return BuildScreen(id="_default")

    # -- layout -----------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield PartsList(id="parts")
                yield SlotDiagram(id="slots")
            with Vertical(id="right"):
                yield FindingsPanel(id="findings")
                yield TotalsPanel(id="totals")
        yield StatusLine(id="status")
        # compact, and the palette (ctrl+p) left off: the keys that do not fit a narrow footer are listed there
        yield KeysFooter(compact=True, show_command_palette=False, drop_first=FOOTER_DROPS_FIRST)

    def on_mount(self) -> None:
        self.recheck()
        self.query_one(PartsList).focus()

    # -- checking, in a worker --------------------------------------------------------------------------
    @property
    def result(self) -> CheckResult | None:
        """The last check that landed (of the build as it is now when `current`)."""
        return self.checked.result if self.checked is not None else None

    @property
    def current(self) -> bool:
        """The last check that landed is of the build as it is now: no edit since it began."""
        return self.checked is not None and self.checked.edit == self.edits

    def recheck(self) -> None:
        """After an edit: show the parts as they are now at once and check the build in a worker (the findings,
        totals and diagram of the last check stay, marked "checking…", until it lands)."""
        self.edits += 1
        self.parts = Parts(tuple(self.session.rows()), tuple(self.session.missing()))
        self.checking = True
        self._show_title()
        if self._check_running is None:
            self._start_check()

    def _start_check(self) -> None:
        self._check_running = self.edits
        self._check(self.session.pending_check(), self.edits, self.session)

    @work(thread=True, exclusive=True, group="recheck", exit_on_error=False)
    def _check(self, pending: PendingCheck, edit: int, session: BuildSession) -> None:
        """In a thread: a few milliseconds on the examples, longer on a large build (its placement search);
        the keys never wait for it. One runs at a time: edits made meanwhile are checked when it ends."""
        try:
            checked = state.check(pending, edit)
        except Exception as error:  # a bug: shown as the build's problem, and the next edit is checked again
            problem = f"internal error ({type(error).__name__}: {error}); this is a bug in the planner"
            checked = Checked(CheckResult(None, None, pending.missing, problem), (), None, edit)
        self.post_message(self.Rechecked(checked, session))

    def on_planner_app_rechecked(self, message: Rechecked) -> None:
        self._check_running = None
        if message.session is not self.session:  # a build closed since: its check shows nothing
            self._start_check()
            return
        checked = message.checked
        if checked.edit != self.edits:
            self._start_check()  # an edit came meanwhile: check the build as it is now
        self.checked = checked._replace(notes=tuple(self._notes(checked.result)))
        self.checking = checked.edit != self.edits
        self._show_title()
        self.refresh_bindings()  # `s` shows while the build is incomplete or failing
        if self.current and self._when_checked is not None:
            (session, action), self._when_checked = self._when_checked, None
            if session is self.session and self.screen is self.screen_stack[0]:  # not behind a dialog, nor another file
                action()

    def _notes(self, result: CheckResult) -> list[str]:
        """What stops the check, above the findings: the file's error, the parts still missing."""
        problem = result.problem or (self.session.file_problem() if result.missing else None)
        notes = []
        if problem:
            notes.append(f"✖ {problem}")
            if self.session.error() is not None:  # a value of the wrong shape: edits wait until it is fixed
                notes.append("x offers to fix it (or to close the file); edits wait until then.")
        if result.missing:
            notes.append(f"Add {', '.join(result.missing)} to check the build, or press s to complete it: the "
                         "planner picks the cheapest parts that pass.")
        return notes

    def _after_check(self, action: Callable[[], None]) -> bool:
        """True when the last check is of the build as it is now; else `action` runs when it is (the latest
        such key wins) and False. For the keys that act on the check's findings or build."""
        if self.current:
            return True
        self._when_checked = (self.session, action)
        return False

    def _show_title(self) -> None:
        name = self.session.data().get("name", "New build")
        verdict = self.checked.verdict if self.checked is not None else ""
        checking = "checking…" if self.checking else ""
        # the verdict first: a narrow header cuts the end
        self.title = printable(f"{' · '.join(filter(None, (verdict, checking)))} — {name}")
        where = str(self.session.path) if self.session.path else "unsaved"
        self.sub_title = printable(where) + (" *" if self.session.dirty else "")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "complete" and not parameters:  # the footer's `s`: while incomplete or failing
            return bool(self.parts.missing) or (self.checked is not None and self.checked.verdict in ("FAIL",))
        return True

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Every notification (the screens' too) as text: they quote part names, fixes and file names. Its own
        line breaks stay line breaks; every other control character is escaped. The build screen shows it in
        its status line; a dialog, as a toast."""
        message, title = printable(message, newlines=True), printable(title)
        timeout = self.NOTIFICATION_TIMEOUT if timeout is None else timeout
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)
        self.notice = Notice(message, title, severity, timeout)

    # -- commands ---------------------------------------------------------------------------------------
    def deliver_screenshot(self, filename: str | None = None, path: str | None = None,
                           time_format: str | None = None) -> str | None:
        """The palette's screenshot, unless the app is closing (no screen left to draw: found by the TUI fuzz
        harness, a screenshot asked for in the same key storm as quit)."""
        if not self.is_running or not self._screen_stack:
            return None
        return super().deliver_screenshot(filename, path, time_format)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:  # type: ignore[type-arg,unused-ignore]
        yield from super().get_system_commands(screen)
        yield SystemCommand("Add part", "Add a GPU, PSU or circuit, or choose the case/board/CPU", self.action_add)
        yield SystemCommand("Change part", "Replace the highlighted part from the catalog", self.action_change)
        yield SystemCommand("Remove part", "Remove the highlighted part", self.action_remove)
        yield SystemCommand("Apply fix", "Apply the highlighted finding's first fix (its → x: line)",
                            self.action_apply_fix)
        yield SystemCommand("Tune power limit", "The highlighted GPU's limit, its slowdown curve and its effect",
                            self.action_tune)
        yield SystemCommand("Optimise power limits", "The highest limits that clear every power, outlet and "
                            "thermal error", self.action_optimise)
        yield SystemCommand("Recommend GPUs", "Workload → model → precision → budget → ranked GPUs → add to build",
                            self.action_wizard)
        yield SystemCommand("Complete this build (s)", "The solver fills in board, case, CPU, PSUs and circuits with"
                            " the cheapest parts that pass every check; shows why; one undoable edit",
                            self.action_complete)
        yield SystemCommand("Undo (ctrl+z)", "Take back the last edit: a count, a part added, changed or removed, "
                            "a fix, a completion, a wizard's pick, a power limit tuned", self.action_undo)
        yield SystemCommand("Redo (ctrl+y)", "Make again the last edit undone", self.action_redo)
        yield SystemCommand("Save", "Save the build (atomically, keeping comments)", self.action_save)
        yield SystemCommand("Save as", "Save the build to another file", self.action_save_as)
        yield SystemCommand("Open", "Open another build file", self.action_open)
        yield SystemCommand("Export", "The parts list (Markdown, CSV, JSON, text) or the power limits "
                            "(nvidia-smi script, systemd unit)", self.action_export)

    def action_command_palette(self) -> None:
        """ctrl+p: the command palette, whose search survives it closing under it (tui/screens/modal.py)."""
        # one palette: none while one is open, on top or under a dialog a command or a file opened over it; and
        # no id (Textual gives it one), as one closed a moment ago may not have left the screen yet (DuplicateIds)
        if self.use_command_palette and not any(isinstance(screen, CommandPalette) for screen in self.screen_stack):
            self.push_screen(Palette())

    def _selected(self) -> str | None:
        return self.query_one(PartsList).selected_path

    def _refused(self, what: str) -> bool:
        """True, with a notice saying why, when the build's file has an error (a value of the wrong shape): the
        edits and tools that read its entries wait until it is fixed (x offers the fix)."""
        error = self.session.error()
        if error is None:
            return False
        self.notify(f"The build has an error, so {what} waits until it is fixed (x offers to fix it): {error}",
                    severity="warning")
        return True

    def offer_fix(self, before: BuildSession | None = None) -> None:
        """The build's error, with the choice to fix it (take out the value it names, undoably), to close
        the file (back to `before`, else a new build) or to look at it as it is."""
        error = self.session.error()
        if error is None:
            return
        key = self.session.droppable(error.key) if error.key else None
        close = "the build you had open" if before is not None else "a new build"

        def answered(answer: str | None) -> None:
            if answer == "fix" and key is not None:
                removed = self.session.drop(key)
                self.recheck()
                self.notify(f"Removed {removed} from the build (ctrl+z puts it back)")
                self.offer_fix(before)  # the next error, if the file has another
            elif answer == "close":
                self.session = before if before is not None else BuildSession.new(self.session.catalog)
                self.recheck()

        self.push_screen(InvalidBuild(str(error), key, close), answered)

    def action_add(self) -> None:
        if self._refused("adding a part"):
            return
        selected = self._selected() or ""
        kind = selected.removeprefix("missing:").split("[")[0] if selected else "gpu"
        kind = kind if kind in ADDABLE | set(SINGLE_PARTS) else "gpu"
        picker_kind = "outlet" if kind == "circuit" else kind
        self.push_screen(CatalogPicker(self.session.catalog, picker_kind), self._added)

    def _added(self, picked: Picked | None) -> None:
        if picked is None:
            return
        part_id = picked.part_id
        kind = part_kind(self.session.catalog, part_id) or picked.kind
        if kind in SINGLE_PARTS:
            self.session.set_part(kind, part_id)
        elif kind == "outlet":
            self.session.add("circuit", part_id)
        elif kind in ADDABLE:
            self.session.add(kind, part_id)
        else:
            self.notify(f"{part_id} is a {kind}; risers are set on a GPU entry", severity="warning")
            return
        self.recheck()

    def action_change(self) -> None:
        if self._refused("changing a part"):
            return
        path = self._selected()
        if not path or path.startswith("missing:"):
            self.action_add()
            return
        kind = path.split("[")[0]
        picker_kind = "outlet" if kind == "circuit" else kind

        def changed(picked: Picked | None) -> None:
            if picked is None:
                return
            part_id = picked.part_id
            if kind in SINGLE_PARTS:
                self.session.set_part(kind, part_id)
            else:
                self.session.set_field(f"{path}.{'outlet' if kind == 'circuit' else 'part'}", part_id)
            self.recheck()

        self.push_screen(CatalogPicker(self.session.catalog, picker_kind, fixed_kind=True), changed)

    def action_remove(self) -> None:
        if self._refused("removing a part"):
            return
        path = self._selected()
        if not path or path.startswith("missing:"):
            return
        row = next((row for row in self.parts.rows if row.path == path), None)
        self.session.remove(path)
        self.recheck()
        # instantly undoable rather than asked about: the status line says so, for a row of several cards above all
        if row is not None and row.quantity > 1:
            self.notify(f"Removed all {row.quantity} × {row.part} ({path}); ctrl+z puts them back", severity="warning")
        else:
            self.notify(f"Removed {row.part if row else path} ({path}); ctrl+z puts it back")

    def action_count(self, delta: int) -> None:
        if self._refused("changing the count"):
            return
        path = self._selected()
        if not path or not path.startswith("gpu["):
            return
        index = int(path[4:-1])
        count = int(self.session.data()["gpu"][index].get("count", 1)) + delta
        if 1 <= count <= 16:
            self.session.set_field(f"{path}.count", count)
            self.recheck()

    def action_apply_fix(self) -> None:
        if self.session.error() is not None:  # the file's own error first: offer its fix
            self.offer_fix()
            return
        if not self._after_check(self.action_apply_fix):
            return  # the fixes shown are of the build before the last edit: x applies the new check's
        panel = self.query_one(FindingsPanel)
        chosen = panel.selected_fix
        if chosen is None:
            finding = panel.highlighted_finding
            self.notify(f"{finding.code} has no fix to apply: highlight a finding with a → x: line."
                        if finding is not None else "No finding with a fix to apply.", severity="information")
            return
        finding, fix = chosen
        self.session.apply(list(fix.changes), f"{finding.code}'s fix: {fix.description}")
        self.recheck()
        # what was written (the fix's sentence was the highlighted finding's), on one line
        changed = "; ".join(f"{c.path} = {_shown(c.value)}" for c in fix.changes)
        self.notify(f"Applied {finding.code}'s fix (ctrl+z undoes it): {changed}")

    def action_tune(self) -> None:
        if self._refused("the tuner"):
            return
        path = self._selected() or ""
        gpus = self.session.data().get("gpu", [])
        if not gpus:
            self.notify("Add a GPU first.", severity="warning")
            return
        if not self._after_check(self.action_tune):
            return  # the tuner starts from the check of the build as it is now
        index = int(path[4:-1]) if path.startswith("gpu[") else 0
        self.push_screen(Tuner(self.session, index, self.result), lambda _kept: self.recheck())

    def action_optimise(self) -> None:
        if self._refused("the optimiser"):
            return
        if not self._after_check(self.action_optimise):
            return
        plan = self.session.optimise(self.result.build) if self.result and self.result.build else None
        if plan is None:
            self.notify("Complete the build first.", severity="warning")
            return
        self.recheck()
        self.notify(f"Optimised (ctrl+z undoes it): {plan.description}")

    def action_wizard(self) -> None:
        if self._refused("the recommendation wizard"):
            return
        workload = str(self.session.data().get("workload", "llm-inference"))
        gpus = self.session.data().get("gpu", [])
        in_build = " and ".join(f"{int(g.get('count', 1))} × {g.get('part', 'an inline GPU')}" for g in gpus)

        def chosen(choice: Choice | None) -> None:
            if choice is None:
                return
            done = f"{'replaced the GPUs with' if choice.replace else 'added'} {choice.cards} × {choice.board}"
            with self.session.edit(f"the wizard's pick: {done}"):  # one edit, however many changes
                if choice.replace:
                    for index in reversed(range(len(self.session.data().get("gpu", [])))):
                        self.session.remove(f"gpu[{index}]")
                self.session.add("gpu", choice.board, count=choice.cards)
                self.session.set_field("workload", choice.workload)
            self.recheck()
            self.notify(f"{done[0].upper()}{done[1:]} (ctrl+z undoes it)")

        self.push_screen(Wizard(self.session.catalog, workload, printable(in_build)), chosen)

    def action_complete(self, anyway: bool = False) -> None:
        """`s`: the solver completes the build (`anyway`: the key when the footer does not show it)."""
        if self._refused("completing the build"):
            return
        if not self.session.data().get("gpu"):
            self.notify("Add the GPUs first: the solver completes the build around them.", severity="warning")
            return

        def chosen(text: str | None) -> None:
            if text:
                self.session.replace(text, "complete the build")
                self.recheck()
                self.notify("Completed the build (ctrl+z undoes it)")

        self.push_screen(CompleteBuild(self.session), chosen)

    def action_undo(self) -> None:
        what = self.session.undo()
        if what is None:
            self.notify("Nothing to undo.")
            return
        self.recheck()
        self.notify(f"Undone (ctrl+y redoes it): {what}")

    def action_redo(self) -> None:
        what = self.session.redo()
        if what is None:
            self.notify("Nothing to redo.")
            return
        self.recheck()
        self.notify(f"Redone: {what}")


def _shown(value: object, limit: int = 80) -> str:
    """A changed value as the build file would read, cut to a readable length."""
    text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def make_app(path: Path | None = None, catalog: Catalog | None = None) -> PlannerApp:
    """The app for a build file (or a new build); a file that fails to load opens an empty build and
    shows the error."""
    catalog = catalog or Catalog()
    error = None
    session = BuildSession.new(catalog)
    if path is not None:
        try:
            session = BuildSession.open(path, catalog) if path.exists() else BuildSession(
                catalog, BuildSession.new(catalog).document, path)
        except PlannerError as problem:
            try:  # it parses but does not validate (an unknown key, a bad value): shown, with the offer to fix it
                session = BuildSession.open(path, catalog, validate=False)
            except PlannerError:
                error = str(problem)
    app = PlannerApp(session)
    if error:
        app.call_later(lambda: app.push_screen(ShowError(f"Could not open the build: {error}")))
    elif session.error() is not None:
        app.call_later(app.offer_fix)
    return app
