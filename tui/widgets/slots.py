"""The slot diagram: which case positions each card covers, risers, free gaps and lanes."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from planner.resolve import ResolvedBuild


class SlotDiagram(Static):
    DEFAULT_CSS = """
    SlotDiagram { height: auto; max-height: 14; border-top: solid $primary; padding: 0 1; overflow-y: auto;
                  text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def show(self, build: ResolvedBuild | None) -> None:
        if build is None:
            self.update("")
            return
        from planner.placement import place
        from planner.placement.diagram import slot_diagram

        text = slot_diagram(build, place(build))
        # the first line names board and case; the table of positions is what matters here
        self.update(Text("\n".join(text.splitlines()[1:]), no_wrap=True, overflow="ellipsis"), layout=True)
