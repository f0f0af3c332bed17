"""The power-limit tuner: one GPU entry's limit, its slowdown curve, and the live effect on the build."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from planner.build.resolve import ResolvedBuild
from planner.fmt import watts
from planner.session import BuildSession
from tui.text import plain
from tui.widgets.curve import plot_curve

STEP = 5.0
WATCHED = ("psu.", "outlet.", "thermal.", "power-limit.")


class Tuner(ModalScreen[bool]):
    """Returns True when the new limit is kept (enter), False when it is undone (escape)."""

    DEFAULT_CSS = """
    Tuner { align: center middle; }
    Tuner > Vertical { width: 72; max-width: 100%; height: auto; max-height: 100%; border: thick $primary;
                       background: $surface; padding: 0 1; overflow-y: auto; }
    #title { width: 100%; height: auto; }
    #curve { height: auto; }
    #effect { height: auto; margin-top: 1; }
    """
    BINDINGS = [
        Binding("left", "step(-1)", f"−{STEP:g} W"), Binding("right", "step(1)", f"+{STEP:g} W"),
        Binding("shift+left,down", "step(-5)", "−25 W"), Binding("shift+right,up", "step(5)", "+25 W"),
        Binding("o", "optimise", "Optimise"), Binding("r", "stock", "Stock"),
        Binding("enter", "keep", "Keep"), Binding("escape", "undo", "Undo"),
    ]

    def __init__(self, session: BuildSession, spec_index: int) -> None:
        super().__init__()
        self.session = session
        self.spec_index = spec_index
        self.original = session.data()["gpu"][spec_index].get("power_limit")

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(id="title")  # wraps: the whole sentence, never clipped
            yield Static(id="curve")
            yield Static(id="effect")

    def on_mount(self) -> None:
        self.redraw()

    def _build(self) -> ResolvedBuild | None:
        return self.session.check().build

    def _current(self, build: ResolvedBuild) -> float:
        return next(g.power_limit for g in build.gpus if g.spec_index == self.spec_index)

    def redraw(self) -> None:
        from planner.physics.slowdown import relative_perf

        result = self.session.check()
        build = result.build
        if build is None:
            self.query_one("#title", Static).update("Complete the build to tune its power limits.")
            return
        gpu = next(g for g in build.gpus if g.spec_index == self.spec_index)
        board, chip, limit = gpu.board, gpu.chip, gpu.power_limit
        estimate = relative_perf(board, chip, limit, build.workload)
        count = sum(1 for g in build.gpus if g.spec_index == self.spec_index)
        self.query_one("#title", Static).update(Text("\n").join([
            plain(f"{count} × {board.name}: {watts(limit)} (stock {watts(board.tdp)}) → "
                  f"{estimate.relative_perf:.0%} of stock throughput"), plain(estimate.curve)]))
        curve = plot_curve(lambda p: relative_perf(board, chip, p, build.workload).relative_perf,
                           board.power_limit_min, board.power_limit_max, limit, board.tdp)
        self.query_one("#curve", Static).update(curve)
        lines = []
        report = result.report
        if report is not None:
            s = report.summary
            lines.append(f"DC load {watts(s.dc_load_w)}" + (f", peak {watts(s.dc_peak_w)}" if s.dc_peak_w else ""))
            for c in s.circuits:
                if c.wall_w is not None:
                    lines.append(f"circuit {c.name}: {watts(c.wall_w)} of {watts(c.continuous_limit_w)}")
            for f in report.findings:
                if f.code.startswith(WATCHED) and f.severity != "info":
                    figure = (f"{f.value:,.0f} {f.unit} against {f.limit:,.0f} {f.unit}"
                              if f.value is not None and f.limit is not None and f.unit else f.message[:60])
                    lines.append(f"{'✖' if f.severity == 'error' else '▲'} {f.code}: {figure}")
            if not any(f.code.startswith(WATCHED) and f.severity != "info" for f in report.findings):
                lines.append("✓ no power, outlet or thermal problem")
        self.query_one("#effect", Static).update(Text("\n").join(plain(line) for line in lines))

    def _set(self, value: float) -> None:
        self.session.set_field(f"gpu[{self.spec_index}].power_limit", f"{value:g} W")
        self.redraw()

    def action_step(self, steps: int) -> None:
        build = self._build()
        if build is None:
            return
        board = next(g.board for g in build.gpus if g.spec_index == self.spec_index)
        value = min(board.power_limit_max, max(board.power_limit_min, self._current(build) + steps * STEP))
        self._set(value)

    def action_stock(self) -> None:
        self.session.remove_field("gpu", self.spec_index, "power_limit")
        self.redraw()

    def action_optimise(self) -> None:
        from planner.checks.optimize import optimize

        build = self._build()
        if build is None:
            return
        plan = optimize(build, self.session.catalog, self.session.settings)
        self.session.apply(list(plan.changes))
        self.notify(plan.description, title="optimiser")
        self.redraw()

    def action_keep(self) -> None:
        self.dismiss(True)

    def action_undo(self) -> None:
        if self.original is None:
            self.session.remove_field("gpu", self.spec_index, "power_limit")
        else:
            self.session.set_field(f"gpu[{self.spec_index}].power_limit", self.original)
        self.dismiss(False)
