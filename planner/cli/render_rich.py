"""Reports as rich tables on a terminal (colour unless NO_COLOR is set)."""

from __future__ import annotations

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from planner.cli.common import console
from planner.fmt import num, percent, usd, watts
from planner.report import Report

_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
_VERDICT = {"pass": "bold green", "warn": "bold yellow", "fail": "bold red"}


def _findings(report: Report) -> Table:
    table = Table(show_header=True, header_style="bold", expand=True, box=None, pad_edge=False)
    table.add_column("", width=7, no_wrap=True)
    table.add_column("code", no_wrap=True)
    table.add_column("finding", ratio=1)
    for f in report.findings:
        body = Text(f.message)
        for fix in f.fixes:
            body.append(f"\n→ {fix.description}" + (" ✓" if fix.verified else ""), style="green")
        table.add_row(Text(f.severity, style=_STYLE[f.severity]), f.code, body)
    return table


def _totals(report: Report) -> Table:
    s = report.summary
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column()
    b = s.dc_budget
    table.add_row("DC load", f"{watts(s.dc_load_w)} (GPUs {watts(b.gpus_w)}, CPU {watts(b.cpu_w)}, "
                  f"rest {watts(s.dc_load_w - b.gpus_w - b.cpu_w)})"
                  + (f"; peak {watts(s.dc_peak_w)} with GPU transients" if s.dc_peak_w is not None else ""))
    for p in s.psus:
        load = f", {watts(p.load_w)} = {percent(p.load_fraction)} load" if p.load_fraction is not None and \
            p.load_w is not None else ""
        feeds = f", feeds {', '.join(p.gpus) or 'no GPUs'}" if len(s.psus) > 1 else ""
        table.add_row("PSU", f"{p.part}: {watts(p.rating_w)}{load} (circuit {p.circuit}{feeds})")
    for c in s.circuits:
        wall = (f"{watts(c.wall_w)} = {percent(c.wall_w / c.continuous_limit_w)}" if c.wall_w is not None
                else "unknown")
        table.add_row("Circuit", f"{c.name}: {c.outlet}, {num(c.voltage_v)} V, limit {watts(c.continuous_limit_w)}"
                      f" continuous, wall {wall}" + (" (assumed)" if c.assumed else ""))
    parts: dict[tuple[str, float], int] = {}
    for g in s.gpus:
        parts[(g.part, g.power_limit_w)] = parts.get((g.part, g.power_limit_w), 0) + 1
    for (part, limit), count in parts.items():
        table.add_row("GPUs", f"{count} × {part} at {watts(limit)}")
    table.add_row("Price", "unknown (no part has a price in the catalog)" if s.price_unknown else
                  usd(s.price_usd) + (f" (no price: {', '.join(s.price_missing)})" if s.price_missing else ""))
    for a in s.assumptions:
        table.add_row("Assumed", a)
    return table


def print_reports(reports: list[Report], diagrams: dict[str, str] | None = None) -> None:
    """Each report as a panel; with `diagrams` (by report file), its slot diagram at the bottom."""
    out = console()
    for report in reports:
        title = Text.assemble((report.build, "bold"), "  ", (report.verdict.upper(), _VERDICT[report.verdict]))
        body = Group(_findings(report), Text(""), _totals(report)) if report.findings else Group(
            Text("no problems found", style="green"), Text(""), _totals(report))
        if diagrams and report.file in diagrams:
            body = Group(body, Text(""), Text(diagrams[report.file].rstrip("\n"), no_wrap=True, overflow="ellipsis"))
        out.print(Panel(body, title=title, subtitle=report.file, title_align="left", subtitle_align="right"))
