"""The totals: PSU load bars, circuits against their limits, GPU mounts/temperatures, and the price."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from planner.api import GpuSummary, Report, num, usd, watts
from tui.state import Checked
from tui.text import plain


def _bar(fraction: float, width: int = 10) -> Text:
    filled = min(width, round(fraction * width))
    style = "red" if fraction > 1 else "yellow" if fraction > 0.8 else "green"
    return Text("█" * filled + "░" * (width - filled), style=style)


def gpu_line(gpu: GpuSummary) -> str:
    """`PCIEX16_3, 350 W, 83 °C at 259 W`: where a card sits, its limit, and where it settles (the report's
    figures, the same as its thermal.gpu-temp finding): a card that throttles draws less than its limit."""
    where = gpu.mount or "not placed"
    temp = f", {gpu.temperature_c:.0f} °C" if gpu.temperature_c is not None else ""
    if temp and gpu.power_w < gpu.power_limit_w:
        temp += f" at {watts(gpu.power_w)}"
    return f"{where}, {watts(gpu.power_limit_w)}{temp}"


class TotalsPanel(Static):
    DEFAULT_CSS = """
    TotalsPanel { height: auto; max-height: 14; border-top: solid $primary; padding: 0 1; }
    """

    _shown: object = ()
    _rows = -1

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.border_title = "Totals"

    def on_mount(self) -> None:
        self.watch(self.app, "checked", self._checked)

    def _checked(self, checked: Checked | None) -> None:
        if checked is not None:
            self.show(checked.result.report)

    def show(self, report: Report | None) -> None:
        summary = report.summary if report is not None else None
        if summary == self._shown:
            return  # the same figures: no re-render
        self._shown = summary
        self.display = report is not None
        if report is None:
            self._rows = -1
            self.update("")
            return
        s = report.summary
        table = Table.grid(padding=(0, 1))
        table.add_column(style="bold", no_wrap=True, max_width=12)
        table.add_column(no_wrap=True, overflow="ellipsis")
        table.add_row("DC load", f"{watts(s.dc_load_w)}"
                      + (f", peak {watts(s.dc_peak_w)}" if s.dc_peak_w is not None else ""))
        for n, psu in enumerate(s.psus, start=1):
            if psu.load_fraction is not None:
                share = f" {psu.load_fraction * 100:.0f} % of {watts(psu.rating_w)}"
                line = Text.assemble(_bar(psu.load_fraction), share)
            else:
                line = Text(f"{watts(psu.rating_w)} rating")
            table.add_row(f"PSU{n}", line)
        for circuit in s.circuits:
            limit = circuit.continuous_limit_w
            if circuit.wall_w is not None:
                line = Text.assemble(_bar(circuit.wall_w / limit), f" {watts(circuit.wall_w)} of {watts(limit)}")
            else:
                line = Text(f"limit {watts(limit)} at {num(circuit.voltage_v)} V")
            table.add_row(plain(f"⏚ {circuit.name[:10]}"), line)
        for i, gpu in enumerate(s.gpus, start=1):
            table.add_row(f"GPU{i}", plain(gpu_line(gpu)))
        price = ("unknown (no prices)" if s.price_unknown else
                 usd(s.price_usd) + (f" (+{len(s.price_missing)} unpriced)" if s.price_missing else ""))
        table.add_row("Price", price)
        # the same number of rows keeps the same height: repaint this panel, no new layout of the screen
        self.update(table, layout=table.row_count != self._rows)
        self._rows = table.row_count
