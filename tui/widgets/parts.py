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
        """Refill the table, keeping the highlighted entry where it still exists; nothing when no row changed,
        and only the changed cells when the same entries are listed (a count or a limit edited)."""
        if (rows, missing) == self._shown:
            return
        self._shown = (list(rows), list(missing))
        cells: dict[str, list[str | Text]] = {
            row.path: [KIND_LABELS[row.kind], str(row.quantity), plain(row.part), plain(row.detail)]
            for row in sorted(rows, key=lambda r: ORDER.index(r.kind))}
        cells.update({f"missing:{kind}": [KIND_LABELS[kind], "", plain(f"(none: press a to add a {kind})"),
                                          plain("")] for kind in missing})
        if [key.value for key in self.rows] == list(cells):
            for key, values in cells.items():
                for column, value in zip(self.columns, values, strict=True):
                    if self.get_cell(key, column) != value:
                        self.update_cell(key, column, value, update_width=True)
            return
        selected = self.selected_path
        self.clear()
        for path, values in cells.items():
            self.add_row(*values, key=path)
        if selected is not None:
            for index, row_key in enumerate(self.rows):
                if row_key.value == selected:
                    self.move_cursor(row=index)

    @property
    def selected_path(self) -> str | None:
        if not self.row_count:
            return None
        key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
        return key
