"""The parts list: every part of the build, grouped by kind; the highlighted row is what edits act on."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

from planner.session import PartRow
from tui.text import plain

KIND_LABELS = {"gpu": "GPU", "case": "Case", "motherboard": "Board", "cpu": "CPU", "psu": "PSU",
               "circuit": "Circuit"}
ORDER = ("gpu", "case", "motherboard", "cpu", "psu", "circuit")


class PartsList(DataTable[str | Text]):
    """One row per build entry; the row key is the entry's key path (`gpu[1]`, `case`)."""

    DEFAULT_CSS = """
    PartsList { height: 1fr; }
    """

    _shown: tuple[list[PartRow], list[str]] | None = None

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.zebra_stripes = True
        self.add_columns("Kind", "×", "Part", "Setting")  # the count before a long id: seen at 80 columns

    def show(self, rows: list[PartRow], missing: list[str]) -> None:
        """Refill the table, keeping the highlighted entry where it still exists; nothing when no row changed."""
        if (rows, missing) == self._shown:
            return
        self._shown = (list(rows), list(missing))
        selected = self.selected_path
        self.clear()
        for row in sorted(rows, key=lambda r: ORDER.index(r.kind)):
            self.add_row(KIND_LABELS[row.kind], str(row.quantity), plain(row.part), plain(row.detail), key=row.path)
        for kind in missing:
            self.add_row(KIND_LABELS[kind], "", f"(none: press a to add a {kind})", "", key=f"missing:{kind}")
        if selected is not None:
            for index, key in enumerate(self.rows):
                if key.value == selected:
                    self.move_cursor(row=index)

    @property
    def selected_path(self) -> str | None:
        if not self.row_count:
            return None
        key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
        return key
