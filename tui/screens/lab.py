"""The lab view (`planner tui LAB.toml`): a lab file checked as `planner lab` checks it, shown read-only — its
verdict, its own findings and a list of its machines with their verdicts. Enter on a machine opens its build in
the build session: a build file as itself (saves go to it), an inline build as a new unsaved build. The lab is
reached through the session façade (planner.session: `open_lab`), as every core service the TUI uses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Footer, Header, Static

from planner.api import PlannerError, printable
from planner.session import BuildSession, LabView, open_lab
from tui.screens.dialogs import ShowError
from tui.screens.modal import Modal


class LabScreen(Modal[None]):
    """A lab's machines and verdicts; enter opens one in the build session, escape goes to the build screen.
    Modal, so the build screen's keys (add, change, fix…) do not act on the build hidden under it."""

    CSS = """
    LabScreen { background: $background; }
    LabScreen #lab-summary { height: auto; padding: 0 1; }
    LabScreen #lab-findings { height: auto; max-height: 10; padding: 0 1; }
    LabScreen DataTable { height: 1fr; }
    """
    BINDINGS = [*Modal.BINDINGS,
                Binding("enter", "open_machine", "Open build", priority=True),  # before the table takes it
                Binding("escape", "close", "Build screen"), Binding("q", "quit", "Quit")]

    def __init__(self, view: LabView) -> None:
        super().__init__()
        self.view = view

    def compose(self) -> ComposeResult:
        view = self.view
        yield Header()
        yield Static(printable(f"Lab {view.name} — {view.verdict.upper()}: {view.summary}"), id="lab-summary",
                     markup=False)
        findings = "\n".join(printable(f) for f in view.findings) or "No findings on the lab as a whole."
        yield Static(findings, id="lab-findings", markup=False)
        table: DataTable[str] = DataTable(id="lab-machines", cursor_type="row")
        yield table
        yield Footer()

    def on_mount(self) -> None:
        self.title = printable(f"Lab {self.view.name} — {self.view.verdict.upper()}")
        self.sub_title = printable(self.view.file)
        table = self.query_one(DataTable)
        table.add_columns("Machine", "Count", "Verdict", "Findings", "DC load", "Build")
        for m in self.view.machines:
            build = printable(m.build_file.name) if m.build_file is not None else "inline"
            table.add_row(printable(m.name), str(m.copies), m.verdict.upper(), str(m.findings), f"{m.dc_w:,.0f} W",
                          build)
        table.focus()

    def action_open_machine(self) -> None:
        table = self.query_one(DataTable)
        if self._dismissed or not self.view.machines or table.cursor_row is None:
            return
        machine = self.view.machines[min(max(table.cursor_row, 0), len(self.view.machines) - 1)]
        app: Any = self.app  # the PlannerApp: its session and open_file
        if machine.build_file is not None:
            self.action_close()
            app.open_file(machine.build_file)
            return
        try:
            session = BuildSession.from_text(machine.build_text, app.session.catalog,
                                             f"{self.view.file} (machine {machine.name})")
        except PlannerError as error:
            self.app.push_screen(ShowError(f"Could not open the machine's build: {error}"))
            return
        self.action_close()
        app.session = session
        app.recheck()

    def action_close(self) -> None:
        self.dismiss()  # once (Modal): a second enter queued behind the first would pop the build screen

    def action_quit(self) -> None:
        app: Any = self.app
        app.action_quit_app()


def open_lab_screen(app: Any, path: Path) -> None:
    """Check the lab file and show its view over the build screen; a bad lab file is one message."""
    try:
        view = open_lab(path, app.session.catalog)
    except PlannerError as error:
        app.push_screen(ShowError(f"Could not open the lab: {error}"))
        return
    app.push_screen(LabScreen(view))
