"""The catalog picker: search as you type, filter by kind, sort, and a details pane."""

from __future__ import annotations

import re

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Label, Select, Static

from planner.catalog import Catalog
from planner.describe import summary
from planner.errors import PlannerError
from planner.models.parts import GpuBoard, GpuChip, Part, Psu
from tui.text import plain

PICKABLE = ("gpu", "case", "motherboard", "cpu", "psu", "outlet", "riser")
#: Filters typed into the search box, e.g. `memory>=24 slots<=2`: name → part field.
FILTER_FIELDS = {"memory": "memory", "slots": "slot_width", "tdp": "tdp", "watts": "wattage",
                 "length": "length", "price": "price", "gpu-length": "max_gpu_length",
                 "expansion": "expansion_slots", "lanes": "pcie_lanes"}
_FILTER = re.compile(r"^([a-z-]+)(<=|>=|=|<|>)(\d+(?:\.\d+)?)$")
SORTS = [("Price", "price"), ("Name", "name"), ("Memory", "memory"), ("TDP / wattage", "power"),
         ("Perf / $ (GPUs)", "value")]
MAX_ROWS = 200


class CatalogPicker(ModalScreen[str | None]):
    """Returns the chosen part id (None when cancelled)."""

    DEFAULT_CSS = """
    CatalogPicker { align: center middle; }
    #picker { width: 95%; height: 90%; border: thick $primary; background: $surface; padding: 0 1; }
    #controls { height: 3; }
    #controls Select { width: 24; }
    #search { width: 1fr; }
    #results { height: 1fr; }
    #details { height: 6; border-top: solid $primary; }
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
                yield Select([(k, k) for k in PICKABLE], value=self.kind, allow_blank=False, id="kind",
                             disabled=self.fixed_kind)
                yield Input(placeholder="search words, filters like memory>=24 slots<=2 watts>=1600", id="search")
                yield Select(SORTS, value=self.sort, allow_blank=False, id="sort")
            yield DataTable(id="results", cursor_type="row", zebra_stripes=True)
            yield Static(id="details")

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
        part = self.parts.get(str(event.row_key.value))
        if part is not None:
            origin = self.catalog.origin(self.kind, part.id)
            lines = [f"{part.name} ({origin})", summary(part), f"source: {part.source}"]
            lines += [f"estimated: {', '.join(part.estimated)}"] if part.estimated else []
            self.query_one("#details", Static).update(Text("\n").join(plain(line) for line in lines))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.dismiss(str(event.row_key.value))

    def refresh_results(self) -> None:
        words, filters = _filters(self.query_one("#search", Input).value)
        found = [part for _, part in self.catalog.search(" ".join(words), [self.kind])
                 if all(_passes(self._figure(part, name), op, value) for name, op, value in filters)]
        found.sort(key=self._sort_key)
        self.parts = {p.id: p for p in found[:MAX_ROWS]}
        table = self.query_one("#results", DataTable)
        table.clear(columns=True)  # columns size to what is shown, not to the widest id ever listed
        table.add_columns("Id", "From", "Name", "Figures", "Price")
        for part in self.parts.values():
            table.add_row(plain(part.id), self.catalog.origin(self.kind, part.id), plain(part.name),
                          plain(summary(part)),
                          f"${part.price:,.0f}" if part.price else "", key=part.id)
        title = self.query_one("#title", Label)
        more = f" (first {MAX_ROWS})" if len(found) > MAX_ROWS else ""
        title.update(f"Choose a {self.kind}: {len(found)} match{'es' if len(found) != 1 else ''}{more}")

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
            power = getattr(part, "tdp", None) or (part.wattage if isinstance(part, Psu) else None)
            return (-(power or 0),)
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
        if not isinstance(part, GpuBoard) or not part.price:
            return None
        from planner.recommend.perf import speed

        try:
            chip = self.catalog.get("gpu-chip", part.chip)
        except PlannerError:
            return None
        return speed(chip, "fp16_training") / part.price * 1000 if isinstance(chip, GpuChip) else None

    def _memory(self, part: Part) -> float | None:
        if isinstance(part, GpuBoard):
            try:
                chip = self.catalog.get("gpu-chip", part.chip)
            except PlannerError:  # an unknown or invalid chip just sorts last
                return None
            return chip.memory if isinstance(chip, GpuChip) else None
        return None

    def action_choose(self) -> None:
        table = self.query_one("#results", DataTable)
        if table.row_count:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
            self.dismiss(str(key))

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
