"""The status line: the app's latest message, one row between the panels and the footer, where it covers nothing
(a toast over the totals hid their figures). It keeps its row when idle (a hint of the keys a newcomer looks
for) and a longer message is cut to it, so a message comes and goes without laying the screen out again. The
messages say the essential first (what was done, and the key that undoes it)."""

from __future__ import annotations

from typing import NamedTuple

from rich.text import Text
from textual.timer import Timer
from textual.widgets import Static

from tui.text import plain

_STYLE = {"information": "bold", "warning": "bold yellow", "error": "bold red"}
HINT = "tab: next panel · ctrl+z / ctrl+y: undo / redo · ctrl+p: every action"


class Notice(NamedTuple):
    message: str
    title: str
    severity: str
    timeout: float


class StatusLine(Static):
    DEFAULT_CSS = """
    StatusLine { height: 1; padding: 0 1; background: $boost; color: $foreground 60%; text-wrap: nowrap;
                 text-overflow: ellipsis; }
    StatusLine.-notice { color: $foreground; }
    """

    _timer: Timer | None = None

    def on_mount(self) -> None:
        self._show(Text(HINT))
        self.watch(self.app, "notice", self.show)

    def show(self, notice: Notice | None) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.set_class(notice is not None, "-notice")
        if notice is None:
            self._show(Text(HINT))
            return
        text = Text.assemble(plain(f"{notice.title}: ", "bold") if notice.title else "",
                             plain(notice.message.replace("\n", " · "), _STYLE.get(notice.severity, "")))
        self._show(text)
        self._timer = self.set_timer(notice.timeout, self._expire)

    def _show(self, text: Text) -> None:
        self.update(text, layout=False)  # one row, whatever it says: repaint this line only

    def _expire(self) -> None:
        self._timer = None
        self.set_class(False, "-notice")
        self._show(Text(HINT))
