"""Small modal dialogs: confirm, ask for a path, show an error."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label

from tui.screens.modal import Modal
from tui.text import plain

_CSS = """
{name} {{ align: center middle; }}
{name} > Vertical {{ width: 70; max-width: 100%; height: auto; max-height: 100%; border: thick $primary;
                     background: $surface; padding: 1 2; }}
{name} Label {{ width: 100%; }}
{name} Horizontal {{ height: auto; margin-top: 1; }}
{name} Button {{ margin-right: 2; }}
"""


class Confirm(Modal[bool]):
    """A yes/no question; returns True for yes."""

    DEFAULT_CSS = _CSS.format(name="Confirm")
    BINDINGS = [Binding("y", "answer(True)", "Yes"), Binding("n,escape", "answer(False)", "No")]

    def __init__(self, question: str, yes: str = "Yes", no: str = "No") -> None:
        super().__init__()
        self.question, self.yes, self.no = question, yes, no

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(plain(self.question))
            with Horizontal():
                yield Button(f"{self.yes} (y)", variant="error", id="yes")
                yield Button(f"{self.no} (n)", variant="primary", id="no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)


class QuitDialog(Modal[str]):
    """Unsaved changes on quitting: returns "save" (save, then quit), "quit" (without saving) or "stay"."""

    DEFAULT_CSS = _CSS.format(name="QuitDialog")
    BINDINGS = [Binding("s", "answer('save')", "Save"), Binding("y,q", "answer('quit')", "Quit"),
                Binding("n,escape", "answer('stay')", "Stay")]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("The build has unsaved changes.")
            with Horizontal():
                yield Button("Save and quit (s)", variant="primary", id="save")
                yield Button("Quit (y)", variant="error", id="quit")
                yield Button("Stay (n)", id="stay")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id or "stay")

    def action_answer(self, answer: str) -> None:
        self.dismiss(answer)


class AskPath(Modal[str | None]):
    """Asks for a file name; returns it, or None when cancelled."""

    DEFAULT_CSS = _CSS.format(name="AskPath")
    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    #: focused when the screen shows; Textual skips it when the screen is already gone (a key storm that
    #: dismissed it as it mounted: seed 2615, session 542)
    AUTO_FOCUS = "#path"

    def __init__(self, prompt: str, value: str = "") -> None:
        super().__init__()
        self.prompt, self.value = prompt, value

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(plain(self.prompt))
            yield Input(value=self.value, id="path")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ShowError(Modal[None]):
    """An error the user must read (a file that fails to load); the app keeps running."""

    DEFAULT_CSS = _CSS.format(name="ShowError")
    BINDINGS = [Binding("escape,enter", "close", "Close")]

    def __init__(self, message: str) -> None:
        super().__init__()
        self.message = message

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(plain(self.message))  # it quotes file and part names: text, not markup
            with Horizontal():
                yield Button("OK", variant="primary", id="ok")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)


class InvalidBuild(Modal[str]):
    """A build file that parses but has a value of the wrong shape (`gpu = 1`, `count = "two"`): its error,
    and the choice to fix it (take the value the error names out: "fix"), to close it ("close") or to look at
    it as it is ("look"; the edits wait until it is fixed)."""

    DEFAULT_CSS = _CSS.format(name="InvalidBuild") + """
    InvalidBuild > Vertical { overflow-y: auto; }
    InvalidBuild Horizontal { height: auto; }
    InvalidBuild Button { margin-bottom: 1; }
    """
    BINDINGS = [Binding("r", "answer('fix')", "Fix", show=False), Binding("c", "answer('close')", "Close"),
                Binding("escape", "answer('look')", "Look")]

    def __init__(self, error: str, key: str | None, close: str) -> None:
        """`key`: the key path the fix takes out (None: no fix to offer); `close`: what closing leaves open."""
        super().__init__()
        self.error, self.key, self.close = error, key, close

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(plain(f"The build file has an error: {self.error}"))
            fix = (f"r removes {self.key} from the build (ctrl+z puts it back); " if self.key is not None else "")
            yield Label(plain(f"{fix}c closes the file and goes back to {self.close} (the file stays as it is); "
                              "escape shows the build as it is: the edits wait until the error is fixed, "
                              "and x offers this again."))
            with Horizontal():
                if self.key is not None:
                    yield Button(plain(f"Remove {self.key} (r)"), variant="primary", id="fix")
                yield Button("Close the file (c)", variant="error", id="close")
                yield Button("Look at it (esc)", id="look")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id or "look")

    def action_answer(self, answer: str) -> None:
        if answer != "fix" or self.key is not None:
            self.dismiss(answer)
