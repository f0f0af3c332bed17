"""Plain-text reports, for pipes, logs and NO_COLOR terminals' scripts."""

from __future__ import annotations

from planner.catalog.prices import dates_text, markets_text, stale_line
from planner.report import Report
from planner.util.fmt import num, percent, printable, usd, watts

_MARK = {"error": "ERROR", "warning": "WARN ", "info": "info "}


def render_report(report: Report) -> str:
    s = report.summary
    lines = [f"{report.file}: {report.build} — {report.verdict.upper()}"]
    if report.plan is not None:
        tag = "" if report.plan.verified else " (partial)"
        lines.append(f"  PLAN{tag}: {report.plan.description}")
    for f in report.findings:
        lines.append(f"  {_MARK[f.severity]} {f.code}: {f.message}")
        for fix in f.fixes:
            tag = " (verified)" if fix.verified else ""
            lines.append(f"         fix: {fix.description}{tag}")
    if not report.findings:
        lines.append("  no problems found")
    b = s.dc_budget
    lines.append(f"  DC load {watts(s.dc_load_w)} sustained: GPUs {watts(b.gpus_w)}, CPU {watts(b.cpu_w)}, "
                 f"board {watts(b.board_w)}, RAM {watts(b.ram_w)}, drives {watts(b.drives_w)}, fans {watts(b.fans_w)}"
                 + (f", other {watts(b.other_w)}" if b.other_w else "")
                 + (f"; {watts(s.dc_peak_w)} with every GPU at its 1–5 ms excursion" if s.dc_peak_w is not None
                    else ""))
    for p in s.psus:
        load = f"{watts(p.load_w)} = {percent(p.load_fraction)}" if p.load_w is not None and p.load_fraction else "?"
        feeds = f", feeds {', '.join(p.gpus) or 'no GPUs'}" if len(s.psus) > 1 else ""
        lines.append(f"  PSU {p.part}: {watts(p.rating_w)} rating, load {load} (circuit {p.circuit}{feeds})")
    for c in s.circuits:
        assumed = " [assumed]" if c.assumed else ""
        wall = (f"{watts(c.wall_w)} ({percent(c.wall_w / c.continuous_limit_w)})" if c.wall_w is not None
                else "unknown")
        lines.append(f"  Circuit {c.name}: {c.outlet} at {num(c.voltage_v)} V, continuous limit "
                     f"{watts(c.continuous_limit_w)}, wall draw {wall}{assumed}")
    groups: dict[tuple[str, float], list[str]] = {}
    for i, g in enumerate(s.gpus, start=1):
        groups.setdefault((g.part, g.power_limit_w), []).append(f"GPU{i}" + (f"@{g.mount}" if g.mount else ""))
    for (part, limit), names in groups.items():
        lines.append(f"  {len(names)} × {part} at {watts(limit)}: {', '.join(names)}")
    price = usd(s.price_usd)
    if s.price_unknown:
        price = "unknown (no part of this build has a price in the catalog)"
    elif dates := dates_text(s.price_dates):
        price += f", prices {dates}"
    if markets := markets_text(s.price_markets):
        price += f" ({markets})"
    if s.price_missing and not s.price_unknown:
        price += f" (without {', '.join(s.price_missing)}: no price in the catalog)"
    lines.append(f"  Price: {price}")
    if s.base_system:
        chosen = ", ".join(f"{b.quantity} × {b.part}" if b.quantity > 1 else b.part
                           for b in s.base_system)
        lines.append(f"  Base system in the price (chosen by the planner for this board and CPU): {chosen}")
    if stale := stale_line(s.stale_prices, s.price_dates):
        lines.append(f"  {stale}")
    lines.extend(f"  Your price: {part} from the {origin}" for part, origin in s.user_prices.items())
    for a in s.assumptions:
        lines.append(f"  Assumed: {a}")
    return "".join(printable(line) + "\n" for line in lines)  # each line one line, whatever a name holds


def render_reports(reports: list[Report], diagrams: dict[str, str] | None = None) -> str:
    """The reports; with `diagrams` (by report file), each followed by its slot diagram."""
    diagrams = diagrams or {}
    return "\n".join(render_report(r) + _indented(diagrams.get(r.file)) for r in reports)


def _indented(diagram: str | None) -> str:
    if not diagram:
        return ""
    return "  Slot diagram:\n" + "".join(f"    {printable(line)}\n" for line in diagram.rstrip("\n").split("\n"))
