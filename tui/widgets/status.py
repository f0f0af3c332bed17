"""The status line: the app's latest message, between the panels and the footer, where it covers nothing (a
toast over the totals hid their figures). It goes after its time, or when the next message replaces it."""

from __future__ import annotations

from typing import NamedTuple

from rich.text import Text
from textual.timer import Timer
from textual.widgets import Static

from tui.text import plain

_STYLE = {"information": "", "warning": "bold yellow", "error": "bold red"}


class Notice(NamedTuple):
    message: str
    title: str
    severity: str
    timeout: float


class StatusLine(Static):
    DEFAULT_CSS = """
    StatusLine { height: auto; max-height: 4; padding: 0 1; background: $boost; border-top: solid $accent;
                 display: none; }
    StatusLine.-warning { border-top: solid $warning; }
    StatusLine.-error { border-top: solid $error; }
    """

    _timer: Timer | None = None

    def on_mount(self) -> None:
        self.watch(self.app, "notice", self.show)

    def show(self, notice: Notice | None) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.display = notice is not None
        if notice is None:
            return
        self.set_class(notice.severity == "warning", "-warning")
        self.set_class(notice.severity == "error", "-error")
        text = Text.assemble(plain(f"{notice.title}: ", "bold") if notice.title else "",
                             plain(notice.message, _STYLE.get(notice.severity, ""), newlines=True))
        self.update(text)
        self._timer = self.set_timer(notice.timeout, self._expire)

    def _expire(self) -> None:
        self._timer = None
        self.display = False
