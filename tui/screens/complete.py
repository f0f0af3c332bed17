"""Complete this build: the solver (planner solve) fills in what the build leaves out — board, case, CPU, PSUs,
circuits, riser cables — with the cheapest parts that pass every check; the screen shows its choice, the price
and why, and returns the completed build's text for the app to apply as one edit (undone with ctrl+z)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Label, Static

from planner.api import PlannerError
from planner.session import BuildSession, completion_lines
from tui.screens.modal import Modal
from tui.text import plain

if TYPE_CHECKING:
    from planner.session import SolveResult


class CompleteBuild(Modal[str | None]):
    """Returns the completed build's text (enter), or None (escape, or when nothing passes)."""

    DEFAULT_CSS = """
    CompleteBuild { align: center middle; }
    CompleteBuild > Vertical { width: 76; height: auto; max-height: 95%; border: thick $primary;
                               background: $surface; padding: 0 1; }
    #choice { height: auto; max-height: 16; }
    """
    BINDINGS = [Binding("enter", "apply", "Apply"), Binding("escape", "cancel", "Cancel")]

    class Searched(Message):
        """The solver's search ended: its answer, or why the build cannot be completed."""

        def __init__(self, result: SolveResult | None, problem: str | None) -> None:
            super().__init__()
            self.result, self.problem = result, problem

    def __init__(self, session: BuildSession) -> None:
        super().__init__()
        self.session = session
        self.result: SolveResult | None = None
        self.problem: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Complete this build · enter: apply (ctrl+z undoes it) · esc: cancel")
            yield Label("the cheapest parts with which every check passes (planner solve)")
            with VerticalScroll(id="choice"):
                yield Static(plain("Searching the catalogs…"), id="text")

    def on_mount(self) -> None:
        self.run_worker(self._solve, thread=True, exit_on_error=False)

    def _solve(self) -> None:
        """In a thread: the search takes up to a second on the full catalogs."""
        try:
            self.post_message(self.Searched(self.session.complete(), None))
        except PlannerError as error:
            self.post_message(self.Searched(None, str(error)))

    def on_complete_build_searched(self, message: Searched) -> None:
        self.result, self.problem = message.result, message.problem
        self.query_one("#text", Static).update(plain("\n".join(describe(self.result, self.problem)), newlines=True))

    def action_apply(self) -> None:
        if self.result is None and self.problem is None:
            return  # still searching
        if self.result is not None and self.result.status == "solved" and self.result.file_changes:
            self.dismiss(self.result.build_toml)
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)


def describe(result: SolveResult | None, problem: str | None) -> list[str]:
    """The solver's choice, its price and why, in lines (or why there is none)."""
    if result is None:
        return [f"The build cannot be completed as it is: {problem}", "", "esc: back"]
    if result.status != "solved":
        return [f"No completion passes every check: {result.binding}", "", "esc: back"]
    if not result.file_changes:
        verdict = result.report.verdict.upper() if result.report is not None else "?"
        return [f"Nothing to add: the build names every part and passes ({verdict}); its base system (RAM, SSD,"
                " CPU cooler) is priced in.", "", "esc: back"]
    return completion_lines(result)
