"""The slot diagram: which case positions each card covers, risers, free gaps and lanes."""

from __future__ import annotations

from typing import Any

from textual.widgets import Static

from tui.state import Checked
from tui.text import plain


class SlotDiagram(Static):
    """Drawn from the last check (the diagram is laid out in its worker)."""

    DEFAULT_CSS = """
    SlotDiagram { height: auto; max-height: 14; border-top: solid $primary; padding: 0 1; overflow-y: auto;
                  text-wrap: nowrap; text-overflow: ellipsis; }
    """

    _shown: str | None = ""
    _lines = -1

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.border_title = "Slots"

    def on_mount(self) -> None:
        self.watch(self.app, "checked", self._checked)

    def _checked(self, checked: Checked | None) -> None:
        if checked is not None:
            self.show(checked.diagram)

    def show(self, text: str | None) -> None:
        if text == self._shown:
            return  # the same diagram: not drawn again
        self._shown = text
        self.display = text is not None
        if text is None:
            self._lines = -1
            self.update("")
            return
        # the first line names board and case; the table of positions is what matters here
        diagram = plain("\n".join(text.split("\n")[1:]).rstrip("\n"), newlines=True)
        diagram.no_wrap, diagram.overflow = True, "ellipsis"
        lines = len(diagram.plain.split("\n"))
        self.update(diagram, layout=lines != self._lines)  # the same height: repaint only
        self._lines = lines
