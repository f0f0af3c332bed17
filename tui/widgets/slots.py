"""The slot diagram: which case positions each card covers, risers, free gaps and lanes."""

from __future__ import annotations

from textual.widgets import Static

from planner.api import ResolvedBuild
from planner.session import slot_diagram
from tui.text import plain


class SlotDiagram(Static):
    DEFAULT_CSS = """
    SlotDiagram { height: auto; max-height: 14; border-top: solid $primary; padding: 0 1; overflow-y: auto;
                  text-wrap: nowrap; text-overflow: ellipsis; }
    """

    _shown: object = ()
    _lines = -1

    def show(self, build: ResolvedBuild | None) -> None:
        if build == self._shown:
            return  # the same build: the same diagram, not placed or drawn again
        self._shown = build
        if build is None:
            self._lines = -1
            self.update("")
            return
        text = slot_diagram(build)
        # the first line names board and case; the table of positions is what matters here
        diagram = plain("\n".join(text.split("\n")[1:]).rstrip("\n"), newlines=True)
        diagram.no_wrap, diagram.overflow = True, "ellipsis"
        lines = len(diagram.plain.split("\n"))
        self.update(diagram, layout=lines != self._lines)  # the same height: repaint only
        self._lines = lines
