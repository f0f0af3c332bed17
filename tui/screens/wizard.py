"""The recommendation wizard: workload → model or memory → precision → budget and count → a ranked list
with the reason for every exclusion → the chosen GPUs go into the build."""

from __future__ import annotations

from typing import NamedTuple

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Input, Label, Select, Static

from planner.catalog import Catalog
from planner.errors import PlannerError
from tui.text import plain

WORKLOADS = ["llm-inference", "llm-finetune", "llm-train", "image-generation", "vision-train", "general"]
#: Weight formats (planner/recommend/formats.py): GGUF, 16-bit, FP8, bitsandbytes, AWQ/GPTQ; int8/int4 = q8_0/q4_0.
PRECISIONS = ["fp16", "bf16", "fp8", "q8_0", "q6_k", "q5_k_m", "q4_k_m", "q4_0", "nf4", "awq", "gptq", "int8", "int4"]
CATEGORY = {"llm-inference": "llm", "llm-finetune": "llm", "llm-train": "llm", "image-generation": "diffusion",
            "vision-train": "vision"}


class Choice(NamedTuple):
    """What the wizard hands back: the board to add and how many."""

    board: str
    cards: int
    workload: str


class Wizard(ModalScreen[Choice | None]):
    DEFAULT_CSS = """
    Wizard { align: center middle; }
    Wizard > Vertical { width: 96%; height: 94%; border: thick $primary; background: $surface; padding: 0 1; }
    Wizard .row { height: 3; }
    Wizard .row Label { width: 12; padding: 1 0 0 0; }
    Wizard Select { width: 1fr; }
    Wizard Input { width: 1fr; }
    #ranked { height: 1fr; }
    #why { height: 3; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("ctrl+r", "rank", "Rank")]

    def __init__(self, catalog: Catalog, workload: str = "llm-inference") -> None:
        super().__init__()
        self.catalog = catalog
        self.workload = workload if workload in WORKLOADS else "llm-inference"
        self.rows: dict[str, Choice] = {}

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Recommend GPUs — fill in from the top, then Rank (ctrl+r); Enter on a row adds it")
            with Horizontal(classes="row"):
                yield Label("1 Workload")
                yield Select([(w, w) for w in WORKLOADS], value=self.workload, allow_blank=False, id="workload")
            with Horizontal(classes="row"):
                yield Label("2 Model")
                yield Select(self._models(self.workload), prompt="a named model (or give memory →)", id="model")
                yield Input(placeholder="or memory need, GiB", id="memory", type="number")
            with Horizontal(classes="row"):
                yield Label("3 Format")
                yield Select([(p, p) for p in PRECISIONS], value="fp16", allow_blank=False, id="precision")
            with Horizontal(classes="row"):
                yield Label("4 Budget")
                yield Input(placeholder="USD for the GPUs (optional)", id="budget", type="number")
                yield Input(placeholder="GPU count (optional)", id="count", type="integer")
                yield Button("Rank", id="rank", variant="primary")
            yield Static(id="need")
            yield DataTable(id="ranked", cursor_type="row", zebra_stripes=True)
            yield Static(id="why")

    def on_mount(self) -> None:
        self.query_one("#ranked", DataTable).add_columns("#", "GPUs", "Memory", "Spare", "Perf/$1k", "Speed", "Price",
                                                         "tok/s")

    def _models(self, workload: str) -> list[tuple[str, str]]:
        category = CATEGORY.get(workload)
        from planner.models.workloads import WorkloadModel

        return [(f"{m.name} ({m.parameters:g} B)", m.id) for m in self.catalog.all("model")
                if isinstance(m, WorkloadModel) and (category is None or m.category == category)]

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
        from planner.recommend.memory import MemoryRequest
        from planner.recommend.rank import Request, recommend

        model_id = self.query_one("#model", Select).value
        model = self.catalog.get("model", model_id) if isinstance(model_id, str) else None
        memory = _number(self.query_one("#memory", Input).value)
        budget = _number(self.query_one("#budget", Input).value)
        count = _number(self.query_one("#count", Input).value)
        precision = self.query_one("#precision", Select).value
        try:
            request = MemoryRequest(workload=self.workload, model=model, memory=memory,  # type: ignore[arg-type]
                                    precision=precision)  # type: ignore[arg-type]
            result = recommend(Request(request, budget=budget, gpus=int(count) if count else None), self.catalog)
        except (PlannerError, ValueError) as error:
            self.query_one("#need", Static).update(plain(error, "red"))
            return
        need = result.need
        amount = (f"{need.floor:g} GiB per card" if need.floor is not None
                  else f"{need.total:.1f} GiB on one card ({need.precision or precision})")
        self.query_one("#need", Static).update(plain(f"Memory need: {amount}; performance: {result.basis}"))
        table = self.query_one("#ranked", DataTable)
        table.clear()
        self.rows = {}
        fitting = [c for c in result.by_value if c.fits]
        for rank, c in enumerate(fitting[:40], start=1):
            key = str(rank)
            self.rows[key] = Choice(c.board or c.chip, c.count, self.workload)
            spare = f"{c.headroom_gib:.1f} GiB" if c.headroom_gib is not None else ""
            table.add_row(str(rank), plain(f"{c.count} × {c.name}"), f"{c.memory_gib:.0f} GiB", spare,
                          f"{c.perf_per_dollar:.3f}" if c.perf_per_dollar is not None else "",
                          f"{c.performance:.2f}", f"${c.price_usd:,.0f}" if c.price_usd else "",
                          f"{c.tokens_per_s:.0f}" if c.tokens_per_s else "", key=key)
        excluded = [c for c in result.candidates if not c.fits]
        kinds: dict[str, int] = {}
        for c in excluded:
            kinds[c.excluded_kind or "other"] = kinds.get(c.excluded_kind or "other", 0) + 1
        example = next((c.excluded_reason for c in excluded if c.excluded_reason), "")
        summary = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items(), key=lambda kv: -kv[1]))
        self.query_one("#why", Static).update(plain(
            f"{len(fitting)} options fit; {len(excluded)} left out ({summary}). e.g. {example}"
            if excluded else f"{len(fitting)} options fit."))
        if fitting:
            table.focus()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        choice = self.rows.get(str(event.row_key.value))
        if choice is not None and choice.board:
            self.dismiss(choice)

    def action_cancel(self) -> None:
        self.dismiss(None)


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value > 0 else None
