"""The recommendation wizard: workload → model or memory → precision → budget and count → a ranked list
with the reason for every exclusion → the chosen GPUs go into the build."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, DataTable, Input, Label, Select, Static

from planner.api import PlannerError
from planner.session import amount, gpu_count, memory_gib, recommend_gpus, workload_models
from tui.screens.modal import Modal
from tui.text import plain
from tui.widgets.select import TypedSelect

if TYPE_CHECKING:
    from planner.api import Catalog
    from planner.session import Candidate

WORKLOADS = ["llm-inference", "llm-finetune", "llm-train", "image-generation", "vision-train", "general"]
#: Weight formats (planner/recommend/formats.py): GGUF, 16-bit, FP8, bitsandbytes, AWQ/GPTQ; int8/int4 = q8_0/q4_0.
PRECISIONS = ["fp16", "bf16", "fp8", "q8_0", "q6_k", "q5_k_m", "q4_k_m", "q4_0", "nf4", "awq", "gptq", "int8", "int4"]
T = TypeVar("T")
#: What the number fields let through as they are typed. Not Textual's `type="number"` and `type="integer"`: their
#: patterns nest repeats (`(?:\d*|\d+_)*`), so 20 digits and a letter took 45 s to refuse, and the app froze.
NUMBER = r"[-+]?[0-9_]*\.?[0-9_]*(?:[eE][-+]?[0-9_]*)?"
INTEGER = r"[-+]?[0-9_]*"
MAX_TYPED = 40  # characters: far more than any number the fields take (planner/recommend/inputs.py)
CATEGORY = {"llm-inference": "llm", "llm-finetune": "llm", "llm-train": "llm", "image-generation": "diffusion",
            "vision-train": "vision"}


class Choice(NamedTuple):
    """What the wizard hands back: the board to add, how many, and whether they replace the build's GPUs."""

    board: str
    cards: int
    workload: str
    replace: bool = False


class Option(NamedTuple):
    """One ranked row: the board the CLI's `recommend --into` would write (None: a chip with no board)."""

    board: str | None
    cards: int
    name: str


class Wizard(Modal[Choice | None]):
    DEFAULT_CSS = """
    Wizard { align: center middle; background: $background; }  /* opaque: no panel text at its edges */
    Wizard > Vertical { width: 96%; max-width: 150; height: 94%; border: thick $primary; background: $surface;
                        padding: 0 1; }
    Wizard .row { height: 1; }
    Wizard .row Label { width: 11; }
    Wizard Select { width: 1fr; }
    Wizard Input { width: 1fr; margin-right: 1; }
    #intro { height: 1; text-wrap: nowrap; text-overflow: ellipsis; color: $foreground 80%; }
    #need { height: auto; max-height: 2; margin-top: 1; }
    #ranked { height: 1fr; min-height: 4; overflow-x: hidden; }
    #why { height: auto; max-height: 2; }
    #ask { height: auto; display: none; }
    Wizard.-asking #ask { display: block; }
    Wizard.-asking #why { display: none; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("ctrl+r", "rank", "Rank")]

    def __init__(self, catalog: Catalog, workload: str = "llm-inference", in_build: str = "") -> None:
        """`in_build`: the GPUs the build already has ("2 × nvidia-rtx-4090-fe"), "" for none."""
        super().__init__()
        self.catalog = catalog
        self.workload = workload if workload in WORKLOADS else "llm-inference"
        self.in_build = in_build
        self.rows: dict[str, Option] = {}
        self.fitting: list[Candidate] = []  # the ranked options that fit, best value first
        self.pending: Option | None = None  # chosen, waiting for replace-or-add

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Recommend GPUs · type in a list to search · ctrl+r: rank · enter: add", id="intro")
            with Horizontal(classes="row"):
                yield Label("1 Workload")
                yield TypedSelect([(w, w) for w in WORKLOADS], value=self.workload, allow_blank=False,
                                  id="workload", compact=True)
            with Horizontal(classes="row"):
                yield Label("2 Model")
                yield TypedSelect(self._models(self.workload), prompt="a model (or memory →)", id="model",
                                  compact=True)
                yield Input(placeholder="or memory need, GiB", id="memory", restrict=NUMBER, max_length=MAX_TYPED,
                            compact=True)
            with Horizontal(classes="row"):
                yield Label("3 Format")
                yield TypedSelect([(p, p) for p in PRECISIONS], value="fp16", allow_blank=False, id="precision",
                                  compact=True)
            with Horizontal(classes="row"):
                yield Label("4 Budget")
                yield Input(placeholder="USD for the GPUs", id="budget", restrict=NUMBER,
                            max_length=MAX_TYPED, compact=True)
                yield Input(placeholder="GPU count", id="count", restrict=INTEGER, max_length=MAX_TYPED,
                            compact=True)
                yield Button("Rank", id="rank", variant="primary", compact=True)
            yield Static(id="need")
            yield DataTable(id="ranked", cursor_type="row", zebra_stripes=True)
            yield Static(id="why")
            yield Static(id="ask")

    def on_mount(self) -> None:
        self._fill([])

    def on_resize(self) -> None:
        self._fill(self.fitting)

    def _fill(self, fitting: list[Candidate]) -> None:
        """The ranked options in the columns the table's width holds: GPUs, count, memory per card, tok/s and
        price always (the name cut to the room left); spare memory, performance per dollar and speed while
        they fit, left out in that order from the end. Never a sideways scroll."""
        self.fitting = fitting
        table = self.query_one("#ranked", DataTable)
        rows = [_cells(rank, c) for rank, c in enumerate(fitting[:MAX_ROWS], start=1)]
        columns = [c for c in COLUMNS if c.always or any(row[c.header] for row in rows)]
        natural = {c.header: max([len(c.header), *(len(str(row[c.header])) for row in rows)]) for c in columns}
        room = (table.scrollable_content_region.width or table.size.width) - 2  # a vertical scroll bar's room

        def others() -> int:
            return sum(natural[c.header] + 2 for c in columns if c.header != "GPU")

        for dropped in DROP_ORDER:  # until the name shows whole
            if others() + natural["GPU"] + 2 <= room:
                break
            columns = [c for c in columns if c.header != dropped]
        name_width = max(NAME_MIN, min(natural["GPU"], room - others() - 2))
        table.clear(columns=True)
        for column in columns:
            table.add_column(Text(column.header, justify="right" if column.numeric else "left"),
                             width=name_width if column.header == "GPU" else natural[column.header], key=column.header)
        for rank, row in enumerate(rows, start=1):
            table.add_row(*(plain(_clip(str(row[c.header]), name_width)) if c.header == "GPU" else
                            Text(str(row[c.header]), justify="right" if c.numeric else "left")
                            for c in columns), key=str(rank))

    def _models(self, workload: str) -> list[tuple[str, str]]:
        return workload_models(self.catalog, CATEGORY.get(workload))

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "workload" and isinstance(event.value, str):
            self.workload = event.value
            self.query_one("#model", Select).set_options(self._models(self.workload))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "rank":
            self.action_rank()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_rank()

    def action_rank(self) -> None:
        model = self.query_one("#model", Select).value
        precision = self.query_one("#precision", Select).value
        try:  # each as `planner recommend` takes --memory, --budget and --gpus (planner/recommend/inputs.py)
            memory = _read("memory", "Memory need", memory_gib, self.query_one("#memory", Input).value)
            budget = _read("budget", "Budget", amount, self.query_one("#budget", Input).value)
            count = _read("count", "GPU count", gpu_count, self.query_one("#count", Input).value)
            result = recommend_gpus(self.catalog, self.workload, model=model if isinstance(model, str) else None,
                                    memory=memory, precision=str(precision), budget=budget, count=count)
        except (PlannerError, ValueError) as error:
            self.query_one("#need", Static).update(plain(error, "red"))
            return
        need = result.need
        fmt = f" ({need.precision})" if need.precision else ""
        if need.floor is not None:
            size = f"{need.floor:g} GiB per card{fmt}"
        else:
            split = f"; {need.per_gpu(2):.1f} GiB per card on 2, {need.per_gpu(4):.1f} on 4" if any(
                c.split for c in need.components) else " on every card"
            size = f"{need.total:.1f} GiB on one card{fmt}{split}"
        self.query_one("#need", Static).update(plain(
            f"Memory need: {size}. tok/s: {result.basis}."
            if result.workload == "llm-inference" else f"Memory need: {size}. ×H100: {result.basis}."))
        table = self.query_one("#ranked", DataTable)
        fitting = [c for c in result.by_value if c.fits]
        self.rows = {str(rank): Option(c.board, c.count, f"{c.count} × {c.name}")
                     for rank, c in enumerate(fitting[:MAX_ROWS], start=1)}
        self._fill(fitting)
        excluded = [c for c in result.candidates if not c.fits]
        kinds: dict[str, int] = {}
        for c in excluded:
            kinds[c.excluded_kind or "other"] = kinds.get(c.excluded_kind or "other", 0) + 1
        example = next((c.excluded_reason for c in excluded if c.excluded_reason), "")
        summary = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items(), key=lambda kv: -kv[1]))
        why = self.query_one("#why", Static)
        text = f"{len(fitting)} options fit; {len(excluded)} left out ({summary})." if excluded else (
            f"{len(fitting)} options fit.")
        if example and len(text) + len(example) + 6 <= 2 * (why.size.width or 80):  # its two lines, never cut
            text += f" e.g. {example}"
        why.update(plain(text))
        if fitting:
            table.focus()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        option = self.rows.get(str(event.row_key.value)) if event.row_key is not None else None
        if option is None:
            return
        if option.board is None:  # say why here; the wizard and its inputs stay
            self.query_one("#why", Static).update(plain(
                f"{option.name} has no board in the catalogs to put into a build: choose another row.", "red"))
            return
        if not self.in_build:
            self.dismiss(Choice(option.board, option.cards, self.workload))
            return
        self.pending = option
        ask = self.query_one("#ask", Static)
        ask.update(plain(f"The build already has {self.in_build}. Press r to replace them with {option.name}, "
                         f"a to add beside them, escape to go back.", "bold"))
        self.add_class("-asking")

    def on_key(self, event: events.Key) -> None:
        if self.pending is None:
            return
        if event.key in ("r", "a"):
            option, self.pending = self.pending, None
            assert option.board is not None
            self.dismiss(Choice(option.board, option.cards, self.workload, replace=event.key == "r"))
            event.stop()

    def action_cancel(self) -> None:
        if self.pending is not None:  # escape while asking replace-or-add: back to the list, inputs kept
            self.pending = None
            self.remove_class("-asking")
            return
        self.dismiss(None)


class Column(NamedTuple):
    header: str
    always: bool  # shown at any width (GPUs, count, memory per card, tok/s, price)
    numeric: bool = True


MAX_ROWS = 40
NAME_MIN = 10  # cells: the GPU's name is cut to what the other columns leave, never below this
COLUMNS = [Column("#", True), Column("×", True), Column("GPU", True, numeric=False), Column("Memory/card", True),
           Column("tok/s", True), Column("Price", True), Column("Spare", False), Column("Perf/$1k", False),
           Column("×H100", False)]
DROP_ORDER = ("×H100", "Perf/$1k", "Spare")  # what a narrow table leaves out first, so the name shows whole
MAKERS = re.compile(r"^(?:NVIDIA |AMD |Intel )?(?:GeForce |Radeon |Arc )?")


def _cells(rank: int, c: Candidate) -> dict[str, str]:
    """A ranked option's cells by column header."""
    per_card = c.memory_gib / c.count if c.count else c.memory_gib
    need = f"{c.memory_needed_gib:.1f}/" if c.memory_needed_gib is not None else ""
    return {"#": str(rank), "×": str(c.count), "GPU": MAKERS.sub("", c.name) or c.name,
            "Memory/card": f"{need}{per_card:.0f} GiB",
            "tok/s": f"{c.tokens_per_s:.0f}" if c.tokens_per_s else "",
            "Price": f"${c.price_usd:,.0f}" if c.price_usd else "",
            "Spare": f"{c.headroom_gib:.1f} GiB" if c.headroom_gib is not None else "",
            "Perf/$1k": f"{c.perf_per_dollar:.3f}" if c.perf_per_dollar is not None else "",
            "×H100": f"{c.performance:.2f}"}


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)].rstrip() + "…"


def _read(field: str, name: str, read: Callable[[str], T], text: str) -> T | None:
    """A field's value read as the CLI reads its option (None when left empty); ValueError naming the field."""
    if not text.strip():
        return None
    try:
        return read(text)
    except ValueError as error:
        raise ValueError(f"{name}: {error}") from None
