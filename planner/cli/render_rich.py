"""Reports as rich tables on a terminal (colour unless NO_COLOR is set)."""

from __future__ import annotations

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from planner.catalog.prices import dates_text, markets_text, stale_line
from planner.cli.common import console
from planner.report import Report
from planner.util.fmt import num, percent, printable, usd, watts

_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
_VERDICT = {"pass": "bold green", "warn": "bold yellow", "fail": "bold red"}


def _text(value: str, style: str = "") -> Text:
    """A string as it is, never read as rich markup (`[bold]` in a name stays text), control and bidi
    characters escaped."""
    return Text(printable(value), style=style)


def _findings(report: Report) -> Table:
    table = Table(show_header=True, header_style="bold", expand=True, box=None, pad_edge=False)
    table.add_column("", width=7, no_wrap=True)
    table.add_column("code", no_wrap=True)
    table.add_column("finding", ratio=1)
    for f in report.findings:
        body = _text(f.message)
        for fix in f.fixes:
            body.append("\n").append_text(_text(f"→ {fix.description}" + (" ✓" if fix.verified else ""), "green"))
        table.add_row(Text(f.severity, style=_STYLE[f.severity]), _text(f.code), body)
    return table


def _totals(report: Report) -> Table:
    s = report.summary
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column()
    b = s.dc_budget
    table.add_row("DC load", _text(f"{watts(s.dc_load_w)} (GPUs {watts(b.gpus_w)}, CPU {watts(b.cpu_w)}, "
                  f"rest {watts(s.dc_load_w - b.gpus_w - b.cpu_w)})"
                  + (f"; peak {watts(s.dc_peak_w)} with GPU transients" if s.dc_peak_w is not None else "")))
    for p in s.psus:
        load = f", {watts(p.load_w)} = {percent(p.load_fraction)} load" if p.load_fraction is not None and \
            p.load_w is not None else ""
        feeds = f", feeds {', '.join(p.gpus) or 'no GPUs'}" if len(s.psus) > 1 else ""
        table.add_row("PSU", _text(f"{p.part}: {watts(p.rating_w)}{load} (circuit {p.circuit}{feeds})"))
    for c in s.circuits:
        wall = (f"{watts(c.wall_w)} = {percent(c.wall_w / c.continuous_limit_w)}" if c.wall_w is not None
                else "unknown")
        table.add_row("Circuit", _text(f"{c.name}: {c.outlet}, {num(c.voltage_v)} V, limit "
                                       f"{watts(c.continuous_limit_w)} continuous, wall {wall}"
                                       + (" (assumed)" if c.assumed else "")))
    parts: dict[tuple[str, float], int] = {}
    for g in s.gpus:
        parts[(g.part, g.power_limit_w)] = parts.get((g.part, g.power_limit_w), 0) + 1
    for (part, limit), count in parts.items():
        table.add_row("GPUs", _text(f"{count} × {part} at {watts(limit)}"))
    dates = dates_text(s.price_dates)
    markets = markets_text(s.price_markets)
    price = ("unknown (no part has a price in the catalog)" if s.price_unknown else
             usd(s.price_usd) + (f", prices {dates}" if dates else "") + (f" ({markets})" if markets else "")
             + (f" (no price: {', '.join(s.price_missing)})" if s.price_missing else ""))
    table.add_row("Price", _text(price))
    if s.base_system:
        table.add_row("Base system", _text(", ".join(
            f"{b.quantity} × {b.part}" if b.quantity > 1 else b.part for b in s.base_system)
            + " (in the price; chosen by the planner for this board and CPU)"))
    if stale := stale_line(s.stale_prices, s.price_dates):
        table.add_row("", _text(stale, "yellow"))  # under the price it qualifies
    for part, origin in s.user_prices.items():
        table.add_row("Your price", _text(f"{part} from the {origin}"))
    for a in s.assumptions:
        table.add_row("Assumed", _text(a))
    return table


def print_reports(reports: list[Report], diagrams: dict[str, str] | None = None) -> None:
    """Each report as a panel; with `diagrams` (by report file), its slot diagram at the bottom."""
    out = console()
    for report in reports:
        title = Text.assemble(_text(report.build, "bold"), "  ", (report.verdict.upper(), _VERDICT[report.verdict]))
        body = Group(_findings(report), Text(""), _totals(report)) if report.findings else Group(
            Text("no problems found", style="green"), Text(""), _totals(report))
        if report.plan is not None:
            head = "Plan" if report.plan.verified else "Plan (partial)"
            body = Group(Text.assemble((f"{head}: ", "bold green"), _text(report.plan.description)), Text(""), body)
        if diagrams and report.file in diagrams:
            diagram = printable(diagrams[report.file].rstrip("\n"), newlines=True)
            body = Group(body, Text(""), Text(diagram, no_wrap=True, overflow="ellipsis"))
        out.print(Panel(body, title=title, subtitle=_text(report.file), title_align="left", subtitle_align="right"))
