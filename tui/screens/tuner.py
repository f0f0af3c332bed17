"""The power-limit tuner: one GPU entry's limit, its slowdown curve, and the live effect on the build.

A key changes the limit, its title and its curve at once; the build is re-checked in a worker thread and
the effect (load, circuits, the power, outlet and thermal findings) follows when the check is done. One
check runs at a time: keys pressed meanwhile only change the limit, and the check that ends stale (the
limit moved on) is dropped for one of the build as it is now.
"""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from planner.api import watts
from planner.session import BuildSession, CheckResult, PendingCheck, Tuning
from tui.screens.modal import Modal
from tui.text import plain
from tui.widgets.curve import plot_curve

STEP = 5.0


class Tuner(Modal[bool]):
    """Returns True when the new limit is kept (enter), False when it is undone (escape)."""

    DEFAULT_CSS = """
    Tuner { align: center middle; }
    Tuner > Vertical { width: 72; max-width: 100%; height: auto; max-height: 100%; border: thick $primary;
                       background: $surface; padding: 0 1; overflow-y: auto; }
    #title { width: 100%; height: auto; }
    #curve { height: auto; }
    #effect { height: auto; margin-top: 1; }
    #keys { height: auto; margin-top: 1; color: $foreground 70%; }
    """
    BINDINGS = [
        Binding("left", "step(-1)", f"−{STEP:g} W"), Binding("right", "step(1)", f"+{STEP:g} W"),
        Binding("shift+left,down", "step(-5)", "−25 W"), Binding("shift+right,up", "step(5)", "+25 W"),
        Binding("o", "optimise", "Optimise"), Binding("r", "stock", "Stock"),
        Binding("enter", "keep", "Keep"), Binding("escape", "undo", "Undo"),
    ]

    class Rechecked(Message):
        """A check of the build ended: its result, for the edit it was started after."""

        def __init__(self, result: CheckResult, edit: int) -> None:
            super().__init__()
            self.result, self.edit = result, edit

    def __init__(self, session: BuildSession, spec_index: int, result: CheckResult | None = None) -> None:
        """`result`: the build's check as it is now, when the caller has one (else the tuner checks it)."""
        super().__init__()
        self.session = session
        self.spec_index = spec_index
        self.watched = session.power_limit_codes()
        self.result = result
        self.tuning: Tuning | None = None  # the limit shown: stepped at once, then confirmed by each check
        self.edits = 0  # edits of the limit so far; a check started before the last one is stale
        self.checking: int | None = None  # the edit the check in flight was started after
        self.shown = 0  # the edit whose check `result` is
        # every step is one edit of the build, undone with one ctrl+z once kept (escape drops them all)
        self.edit = session.begin(f"tune gpu[{spec_index}]'s power limit")

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(id="title")  # wraps: the whole sentence, never clipped
            yield Static(id="curve")
            yield Static(id="effect")
            yield Static("←→ 5 W · ↓↑ 25 W · o optimise · r stock · enter keep · esc cancel", id="keys")

    def on_mount(self) -> None:
        if self.result is None:
            self.result = self.session.check()
        self.show(self.result)

    # -- checking in a worker ---------------------------------------------------------------------------
    @property
    def current(self) -> bool:
        """`result` is the check of the build as it is now (no edit since)."""
        return self.shown == self.edits

    def recheck(self) -> None:
        """Check the build as it is now in a worker; while one runs, the next starts when it ends."""
        self.edits += 1
        if self.checking is None:
            self._start()

    def _start(self) -> None:
        self.checking = self.edits
        self._check(self.session.pending_check(), self.edits)

    @work(thread=True, exclusive=True, group="tuner-check")
    def _check(self, pending: PendingCheck, edit: int) -> None:
        """In a thread: a few milliseconds on the examples, longer on a large build (its placement search);
        the keys never wait for it."""
        self.post_message(self.Rechecked(pending.run(), edit))

    def on_tuner_rechecked(self, message: Rechecked) -> None:
        self.checking = None
        if message.edit != self.edits:  # stale: the limit moved on while it ran
            self._start()
            return
        self.shown, self.result = message.edit, message.result
        self.show(message.result)

    # -- showing ----------------------------------------------------------------------------------------
    def show(self, result: CheckResult) -> None:
        """The limit, its curve and its effect on the build, from a check of the build."""
        self.tuning = self.session.tuning(self.spec_index, result.build) if result.build is not None else None
        if self.tuning is None:
            self.query_one("#title", Static).update("Complete the build to tune its power limits.")
            return
        self.show_limit()
        lines = []
        report = result.report
        if report is not None:
            s = report.summary
            lines.append(f"DC load {watts(s.dc_load_w)}" + (f", peak {watts(s.dc_peak_w)}" if s.dc_peak_w else ""))
            for c in s.circuits:
                if c.wall_w is not None:
                    lines.append(f"circuit {c.name}: {watts(c.wall_w)} of {watts(c.continuous_limit_w)}")
            watched = [f for f in report.findings if f.code in self.watched and f.severity != "info"]
            for f in watched:  # the figures, else the whole sentence (the modal wraps it, never cut mid-word)
                figure = (f"{f.value:,.0f} {f.unit} against {f.limit:,.0f} {f.unit}"
                          if f.value is not None and f.limit is not None and f.unit else f.message)
                lines.append(f"{'✖' if f.severity == 'error' else '▲'} {f.code}: {figure}")
            if not watched:
                lines.append("✓ no power, outlet or thermal problem")
        self.query_one("#effect", Static).update(Text("\n").join(plain(line) for line in lines))

    def show_limit(self) -> None:
        """The limit and its curve: shown at once on a key, before the check of its effect ends."""
        t = self.tuning
        if t is None:
            return
        self.query_one("#title", Static).update(Text("\n").join([
            plain(f"{t.cards} × {t.board.name}: {watts(t.limit)} (stock {watts(t.stock)}) → "
                  f"{t.relative_perf(t.limit):.0%} of stock throughput"), plain(t.curve())]))
        # the curve gives up rows on a short terminal, so that the effect and the keys stay on screen
        height = max(4, min(10, self.app.size.height - 18))
        self.query_one("#curve", Static).update(plot_curve(t.relative_perf, t.low, t.high, t.limit, t.stock,
                                                           height=height))

    # -- keys -------------------------------------------------------------------------------------------
    def _set(self, tuning: Tuning) -> None:
        self.tuning = tuning
        self.session.set_field(f"gpu[{self.spec_index}].power_limit", f"{tuning.limit:g} W")
        self.show_limit()
        self.recheck()

    def action_step(self, steps: int) -> None:
        if self.tuning is not None:
            self._set(self.tuning.stepped(steps * STEP))

    def action_stock(self) -> None:
        if self.tuning is None:
            return
        self.tuning = self.tuning.at(self.tuning.stock)
        self.session.remove_field("gpu", self.spec_index, "power_limit")
        self.show_limit()
        self.recheck()

    def action_optimise(self) -> None:
        if self.tuning is None:
            return
        # the last check's build when it is the build as it is now; else the optimiser checks it first
        build = self.result.build if self.current and self.result is not None else None
        plan = self.session.optimise(build)
        if plan is None:
            return
        self.notify(plan.description, title="optimiser")
        self.tuning = self.tuning.at(plan.limits.get(self.spec_index, self.tuning.limit))
        self.show_limit()
        self.recheck()

    def action_keep(self) -> None:
        if self.tuning is not None:
            self.edit.what = f"set gpu[{self.spec_index}]'s power limit to {watts(self.tuning.limit)}"
        self.edit.done()
        self.dismiss(True)

    def action_undo(self) -> None:
        self.edit.cancel()  # the build as it was when the tuner opened
        self.dismiss(False)
