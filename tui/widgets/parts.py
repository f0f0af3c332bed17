"""The parts list: every part of the build, grouped by kind; the highlighted row is what its keys act on."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.binding import Binding
from textual.widgets import DataTable

from planner.session import PartRow
from tui.state import Parts
from tui.text import plain

KIND_LABELS = {"gpu": "GPU", "case": "Case", "motherboard": "Board", "cpu": "CPU", "psu": "PSU",
               "circuit": "Circ."}
ORDER = ("gpu", "case", "motherboard", "cpu", "psu", "circuit")
HEADERS = ("Kind", "×", "Part", "Setting")
NARROWEST_PART = 8  # cells: below this the table scrolls sideways rather than cut every id to nothing


class PartsList(DataTable[str | Text]):
    """One row per build entry; the row key is the entry's key path (`gpu[1]`, `case`). Its keys (a, c, d, + −,
    t) act on the highlighted row, and only while the list has the focus: the footer then shows them."""

    DEFAULT_CSS = """
    PartsList { height: 1fr; overflow-x: hidden; }
    """
    BINDINGS = [
        Binding("a", "app.add", "Add"),
        Binding("c", "app.change", "Change"),
        Binding("d,delete", "app.remove", "Remove"),
        Binding("plus,equals_sign", "app.count(1)", "+1", group=Binding.Group("Count", compact=True)),
        Binding("minus", "app.count(-1)", "−1", group=Binding.Group("Count", compact=True)),
        Binding("t", "app.tune", "Tune"),
    ]

    _shown: tuple[Parts, int] | None = None

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self.border_title = "Parts"

    def on_mount(self) -> None:
        self.add_columns(*HEADERS)  # the count before a long id: seen at 80 columns
        self.watch(self.app, "parts", self.show)

    def on_resize(self) -> None:
        if self._shown is not None:
            self.show(self._shown[0])

    def show(self, parts: Parts) -> None:
        """Refill the table, keeping the highlighted entry where it still exists; nothing when no row changed,
        and only the changed cells when the same entries are listed (a count or a limit edited). Ids are cut
        to the room the other columns leave, so the table never scrolls sideways."""
        rows = sorted(parts.rows, key=lambda r: ORDER.index(r.kind))
        settings = [row.detail for row in rows]
        room = self.scrollable_content_region.width or self.size.width
        kinds = [*(KIND_LABELS[r.kind] for r in rows), *(KIND_LABELS[k] for k in parts.missing), HEADERS[0]]
        fixed = (2 * len(HEADERS)  # a cell's padding, each side of every column
                 + max(map(len, kinds)) + max(len(str(r.quantity)) for r in [*rows, PartRow("", "", "", 1, "")])
                 + max(map(len, [*settings, HEADERS[3]])))
        width = max(NARROWEST_PART, room - fixed)
        if (parts, width) == self._shown:
            return
        self._shown = (parts, width)
        cells: dict[str, list[str | Text]] = {
            row.path: [KIND_LABELS[row.kind], str(row.quantity), plain(_clip(row.part, width)), plain(row.detail)]
            for row in rows}
        cells.update({f"missing:{kind}": [KIND_LABELS[kind], "", plain(_clip(f"(none: a adds a {kind})", width)),
                                          plain("")] for kind in parts.missing})
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


def _clip(text: str, width: int) -> str:
    """An id cut to `width` cells: its leading words first (the maker: `…rtx-3090-turbo`), as the model tells
    parts apart; then its end."""
    if len(text) <= width:
        return text
    words = text.split("-")
    while len(words) > 1 and len("-".join(words)) + 1 > width:
        words.pop(0)
    rest = "-".join(words)
    if len(rest) + 1 <= width and rest != text:
        return "…" + rest
    return text[: max(0, width - 1)] + "…"
