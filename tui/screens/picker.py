"""The catalog picker: search as you type, filter by kind, sort, and a details pane."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Input, Label, Select, Static

from planner.session import PICKABLE, gpu_memory, key_figures, part_power, part_summary, perf_per_dollar
from tui.screens.modal import Modal
from tui.text import plain
from tui.widgets.select import TypedSelect

if TYPE_CHECKING:
    from planner.api import Catalog, Part

#: Filters typed into the search box, e.g. `memory>=24 slots<=2`: name → part field.
FILTER_FIELDS = {"memory": "memory", "slots": "slot_width", "tdp": "tdp", "watts": "wattage",
                 "length": "length", "price": "price", "gpu-length": "max_gpu_length",
                 "expansion": "expansion_slots", "lanes": "pcie_lanes"}
_FILTER = re.compile(r"^([a-z-]+)(<=|>=|=|<|>)(\d+(?:\.\d+)?)$")
SORTS = [("Price", "price"), ("Name", "name"), ("Memory", "memory"), ("TDP / wattage", "power"),
         ("Perf / $ (GPUs)", "value")]
MAX_ROWS = 200
COLUMNS = ("Id", "Name", "Figures", "Price", "From")
#: The narrowest a column gets before the table scrolls sideways (Price is never cut).
MIN_WIDTHS = (14, 14, 14, 0, 8)
NARROWEST = 8  # on a very narrow terminal, before the table scrolls sideways
CELL_PADDING = 2  # DataTable: one cell each side of every column


class Picked(NamedTuple):
    """The chosen part, and the kind the picker listed it under."""

    kind: str
    part_id: str


class CatalogPicker(Modal[Picked | None]):
    """Returns the chosen part (None when cancelled)."""

    DEFAULT_CSS = """
    /* opaque: the panels' text no longer shows through at the picker's edges */
    CatalogPicker { align: center middle; background: $background; }
    #picker { width: 95%; height: 90%; border: thick $primary; background: $surface; padding: 0 1; }
    #controls { height: 3; }
    #kind { width: 16; }
    #sort { width: 20; }
    #search { width: 1fr; min-width: 14; }
    #results { height: 1fr; }
    #details { height: 6; border-top: solid $primary; }
    #hint { height: 1; text-wrap: nowrap; text-overflow: ellipsis; color: $foreground 60%; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("enter", "choose", "Choose", priority=True)]

    def __init__(self, catalog: Catalog, kind: str = "gpu", fixed_kind: bool = False) -> None:
        super().__init__()
        self.catalog = catalog
        self.kind = kind
        self.fixed_kind = fixed_kind
        self.sort = "price"
        self.parts: dict[str, Part] = {}

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Label(f"Choose a part — {self.kind}" if self.fixed_kind else "Choose a part", id="title")
            with Horizontal(id="controls"):
                yield TypedSelect([(k, k) for k in PICKABLE], value=self.kind, allow_blank=False, id="kind",
                                  disabled=self.fixed_kind)
                yield Input(placeholder="words, memory>=24 slots<=2…", id="search")
                yield TypedSelect(SORTS, value=self.sort, allow_blank=False, id="sort")
            yield DataTable(id="results", cursor_type="row", zebra_stripes=True)
            yield Static(id="details")
            yield Static("enter adds · esc cancels · filters (< <= = >= > a number): memory slots tdp watts length "
                         "price gpu-length expansion lanes", id="hint")

    def on_mount(self) -> None:
        self.refresh_results()
        self.query_one("#search", Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        self.refresh_results()

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "kind" and isinstance(event.value, str):
            self.kind = event.value
        elif event.select.id == "sort" and isinstance(event.value, str):
            self.sort = event.value
        self.refresh_results()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key is None:  # from a table since cleared (a storm of keys in the search)
            return
        part = self.parts.get(str(event.row_key.value))
        if part is not None:
            origin = self.catalog.origin(self.kind, part.id)
            lines = [f"{part.id} — {part.name} ({origin})", part_summary(part), f"source: {part.source}"]
            lines += [f"estimated: {', '.join(part.estimated)}"] if part.estimated else []
            self.query_one("#details", Static).update(Text("\n").join(plain(line) for line in lines))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key is not None:
            self.dismiss(Picked(self.kind, str(event.row_key.value)))

    def refresh_results(self) -> None:
        words, filters = _filters(self.query_one("#search", Input).value)
        found = [part for _, part in self.catalog.search(" ".join(words), [self.kind])
                 if all(_passes(self._figure(part, name), op, value) for name, op, value in filters)]
        found.sort(key=self._sort_key)
        self.parts = {p.id: p for p in found[:MAX_ROWS]}
        rows = [(part.id, part.name, self._figures(part), f"${part.price:,.0f}" if part.price else "",
                 self.catalog.origin(self.kind, part.id)) for part in self.parts.values()]
        widths = fit_columns([max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(COLUMNS)],
                             self._table_width())
        table = self.query_one("#results", DataTable)
        table.clear(columns=True)
        for header, width in zip(COLUMNS, widths, strict=True):
            if width:
                table.add_column(header, width=width)
        for row in rows:
            cells = [plain(clip_id(row[0], widths[0]))]
            cells += [plain(clip(value, width)) for value, width in zip(row[1:], widths[1:], strict=True) if width]
            table.add_row(*cells, key=row[0])
        title = self.query_one("#title", Label)
        more = f" (first {MAX_ROWS})" if len(found) > MAX_ROWS else ""
        title.update(f"Choose a {self.kind}: {len(found)} match{'es' if len(found) != 1 else ''}{more}")

    def on_resize(self) -> None:
        self.refresh_results()

    def _table_width(self) -> int:
        """Cells the table can show without scrolling sideways: the picker is 95 % of the screen, less its
        border and padding (4) and room for the table's vertical scroll bar (2)."""
        return max(20, int(self.app.size.width * 0.95) - 6)

    def _figures(self, part: Part) -> str:
        """The key figures, shortest first: a GPU's memory, slots, length and board power."""
        return key_figures(self.catalog, part)

    def _sort_key(self, part: Part) -> tuple[object, ...]:
        if self.sort == "name":
            return (part.name.lower(),)
        if self.sort == "memory":
            memory = self._memory(part)
            return (-(memory or 0), part.price is None, part.price or 0)
        if self.sort == "value":
            value = self._perf_per_dollar(part)
            return (value is None, -(value or 0.0))
        if self.sort == "power":
            return (-(part_power(part) or 0),)
        return (part.price is None, part.price or 0.0, part.name.lower())

    def _figure(self, part: Part, name: str) -> float | None:
        """A figure a filter can compare: memory (GB), slots, tdp/watts (W), length (mm), price (USD)."""
        if name == "memory":
            return self._memory(part)
        field = FILTER_FIELDS[name]
        value = getattr(part, field, None)
        return float(value) if isinstance(value, (int, float)) else None

    def _perf_per_dollar(self, part: Part) -> float | None:
        """fp16 training speed (the recommendation's performance model) per $1,000 of the board's price."""
        return perf_per_dollar(self.catalog, part)

    def _memory(self, part: Part) -> float | None:
        """A GPU's memory, GB (None for other parts; an unknown or invalid chip just sorts last)."""
        return gpu_memory(self.catalog, part)

    def action_choose(self) -> None:
        table = self.query_one("#results", DataTable)
        if table.row_count:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
            self.dismiss(Picked(self.kind, str(key)))

    def action_cancel(self) -> None:
        self.dismiss(None)


def _filters(text: str) -> tuple[list[str], list[tuple[str, str, float]]]:
    """Split the search box into words and `field<op>number` filters on known fields."""
    words, filters = [], []
    for token in text.split():
        match = _FILTER.match(token.lower())
        if match and match.group(1) in FILTER_FIELDS:
            filters.append((match.group(1), match.group(2), float(match.group(3))))
        else:
            words.append(token)
    return words, filters


def _passes(figure: float | None, op: str, value: float) -> bool:
    if figure is None:
        return False
    return {"<=": figure <= value, ">=": figure >= value, "=": figure == value, "<": figure < value,
            ">": figure > value}[op]


def fit_columns(natural: list[int], available: int) -> list[int]:
    """Widths for (Id, Name, Figures, Price, From) in `available` cells: each column as wide as its widest
    cell when everything fits; otherwise Price whole, Id, Name and Figures at least their minimum, then
    Id grown to its full length, the rest shared by Name and Figures; From (0 = left out) only when
    everything else is shown whole."""
    from_width = natural[4]
    if sum(natural) + CELL_PADDING * len(natural) <= available:
        return list(natural)
    room = available - CELL_PADDING * 4
    widths = [min(natural[i], MIN_WIDTHS[i]) for i in range(3)] + [natural[3], 0]
    spare = room - sum(widths)
    while spare < 0 and max(widths[:3]) > NARROWEST:  # a narrow terminal: take from the widest of the three
        widest = max(range(3), key=lambda i: widths[i])
        widths[widest] -= 1
        spare += 1
    grow = max(0, min(natural[0] - widths[0], spare))  # Id first: an id is what a build file names
    widths[0] += grow
    spare -= grow
    while spare > 0 and (widths[1] < natural[1] or widths[2] < natural[2]):
        for index in (1, 2):
            if spare > 0 and widths[index] < natural[index]:
                widths[index] += 1
                spare -= 1
    if spare >= from_width + CELL_PADDING:
        widths[4] = from_width
    return widths


def clip(text: str, width: int) -> str:
    """`text` cut to `width` cells with an ellipsis."""
    return text if len(text) <= width else text[: max(0, width - 1)].rstrip(" ,") + "…"


def clip_id(part_id: str, width: int) -> str:
    """An id cut to `width` at a hyphen, never inside a word (the details pane shows it whole)."""
    if len(part_id) <= width:
        return part_id
    cut = part_id.rfind("-", 0, width)
    return (part_id[:cut] if cut > 0 else part_id[: max(0, width - 1)]) + "…"
