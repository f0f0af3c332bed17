"""The lab's report: its verdict, each machine's own report, the lab's findings, where each PSU plugs in and
the load, limit and margin of every circuit, PDU bank, line, UPS and the room (the JSON contract of
`planner lab`, README)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from planner.api import Catalog, Finding
from planner.lab import checks, load
from planner.lab.lab import LimitRow, Room, cooling_limit, evaluate
from planner.lab.money import Line, Money, Usage, lab_money, money_json
from planner.lab.spec import LabFile
from planner.report import Report, to_json, verdict_of


class MachineReport(NamedTuple):
    name: str
    copies: int  # count = … in the lab file
    instances: list[str]
    report: Report


class LabReport(NamedTuple):
    file: str
    lab: str
    verdict: str
    machines: list[MachineReport]
    findings: list[Finding]
    plugs: list[dict[str, Any]]
    nodes: list[LimitRow]
    lines: list[LimitRow]
    ups: list[LimitRow]
    cooling: LimitRow
    cooling_source: str
    imbalance: dict[str, float]
    network: dict[str, Any]
    notes: list[str]
    money: Money
    spec: LabFile  # the lab file, with what its catalog parts give filled in (the HTML report draws its tree)


def check_lab(path: Path, catalog: Catalog, usage: Usage | None = None) -> LabReport:
    """The lab file checked, priced and costed (`usage`: hours a day, the price of a kWh and of the cloud;
    default `planner tco`'s)."""
    spec, text, label = load.read(path)
    room = Room(spec, text, label, catalog)
    state, notes = room.initial()
    found = checks.findings(room, state)
    ev = evaluate(room, state)
    machines = []
    for k, m in enumerate(spec.machine):
        report = room.kind_check(k, state.power_limits[k]).report
        machines.append(MachineReport(m.name, m.count, [n for n, kk in room.instances if kk == k], report))
    worst = [r.report.verdict for r in machines] + [verdict_of(found)]
    verdict = "fail" if "fail" in worst else "warn" if "warn" in worst else "pass"
    plugs = [{"psu": p.id, "machine": p.machine, "into": room.nodes[state.where[i]].id, "wall_w": ev.walls[i],
              "assigned_by": "lab file" if i in room.plugged else "planner"} for i, p in enumerate(room.psus)]
    _, _, source = cooling_limit(spec)
    money = lab_money(room, state, ev.walls, usage or Usage.of())
    return LabReport(label, spec.name or Path(label).stem, verdict, machines, found, plugs, list(ev.nodes),
                     list(ev.lines), list(ev.ups), ev.cooling, source, ev.imbalance, ev.network, notes, money,
                     room.spec)


def _row(row: LimitRow) -> dict[str, Any]:
    return {"id": row.id, "kind": row.kind, "load": row.load, "limit": row.limit, "unit": row.unit,
            "margin": row.margin}


def lab_json(report: LabReport) -> dict[str, Any]:
    findings = to_json(Report("", "", "pass", report.findings, None, None))["findings"]  # type: ignore[arg-type]
    return {
        "file": report.file, "lab": report.lab, "verdict": report.verdict,
        "machines": [{"name": m.name, "count": m.copies, "instances": m.instances, "report": to_json(m.report)}
                     for m in report.machines],
        "findings": findings, "plugs": report.plugs,
        "circuits": [_row(r) for r in report.nodes if r.kind == "circuit"],
        "banks": [_row(r) for r in report.nodes if r.kind == "bank"],
        "lines": [_row(r) for r in report.lines], "ups": [_row(r) for r in report.ups],
        "cooling": {**_row(report.cooling), "source": report.cooling_source},
        "phase_imbalance": report.imbalance, "network": report.network, "notes": report.notes,
        "money": money_json(report.money),
    }


def lab_text(report: LabReport) -> str:
    out = [f"{report.file}: {report.lab} — {report.verdict.upper()}"]
    out.append("machines:")
    for m in report.machines:
        r = m.report
        plural = "s" if len(r.findings) != 1 else ""
        out.append(f"  {m.name} ×{m.copies}: {r.verdict} ({len(r.findings)} finding{plural}; "
                   f"DC {r.summary.dc_load_w:,.0f} W)")
        for f in r.findings:
            if f.severity != "info":
                out.append(f"    {f.severity}: {f.code}: {f.message}")
    out.append("power (load / limit, margin):")
    for row in [*report.nodes, *report.lines]:
        mark = "  OVER" if row.over else ""
        out.append(f"  {row.kind:8} {row.id:18} {row.load:>9,.1f} / {row.limit:>9,.1f} {row.unit:2} "
                   f"({row.margin:+,.1f}){mark}")
    for row in report.ups:
        out.append(f"  {row.kind:12} {row.id:14} {row.load:>9,.1f} / {row.limit:>9,.1f} {row.unit}")
    c = report.cooling
    out.append(f"heat: {c.load:,.0f} W of {c.limit:,.0f} W removed ({report.cooling_source})")
    if report.network:
        n = report.network
        out.append(f"network: {n['need_gbps']:g} Gbit/s needed per training machine (estimate {n['estimate_gbps']:g})")
    out.append("plugs:")
    for p in report.plugs:
        out.append(f"  {p['psu']:16} → {p['into']:14} {p['wall_w']:>7,.0f} W  ({p['assigned_by']})")
    for note in report.notes:
        if "(assigned by the planner)" not in note:  # the plugs above say which the planner placed
            out.append(f"note: {note}")
    out += money_lines(report.money, {m.name: m.copies for m in report.machines})
    if report.findings:
        out.append("lab findings:")
        for f in report.findings:
            out.append(f"  {f.severity}: {f.code}: {f.message}")
            for fix in f.fixes:
                tag = {True: "verified", False: "not verified", None: "not re-checked"}[fix.verified]
                out.append(f"    fix ({tag}): {fix.description}")
    else:
        out.append("lab findings: none")
    return "\n".join(out)


MARKET_WORDS = {"any": "each part's new or used price, the cheaper", "new": "new prices",
                "used": "used prices where the catalog has one, else new"}


def _cents(value: float) -> str:
    return f"${value:,.2f}"


def money_lines(money: Money, counts: dict[str, int]) -> list[str]:
    """The parts list by machine (its own parts summed: `planner export BUILD` lists them) and the room's parts one by
    one, the totals by market, the energy a year and cloud vs buy."""
    out = [f"money ({money.market} market: {MARKET_WORDS.get(money.market, money.market)}; every price with its "
           "date and source in --format json):"]
    groups: dict[str, list[Line]] = {}
    for line in money.lines:
        groups.setdefault(line.group, []).append(line)
    for group, lines in groups.items():
        if group == "room":
            continue
        count = counts.get(group, 1)
        total = sum(line.line_total or 0 for line in lines)
        flags = _flags(lines)
        out.append(f"  {group} ×{count}: {_cents(total / count)} each, {_cents(total)}{flags}")
    for line in groups.get("room", []):
        each = " each" if line.quantity > 1 else ""
        price = ("no price" if line.unit_price is None else
                 f"{_cents(line.unit_price)}{each} {line.market} {line.price_date or 'undated'}"
                 + (" (estimate)" if line.estimated else "") + (" (stale)" if line.stale else ""))
        out.append(f"  {line.quantity} × {line.name}: {price}")
    chosen = money.chosen
    out.append(f"  to buy: {_cents(chosen.to_buy_usd)}" + (f" (owned already: {_cents(chosen.owned_usd)})"
                                                           if chosen.owned_usd else "")
               + (f"; {chosen.estimated} of its prices are estimates" if chosen.estimated else "")
               + (f"; the oldest is from {chosen.oldest_price}" if chosen.oldest_price else ""))
    out.append("  by market: " + ", ".join(
        f"{t.market} {_cents(t.to_buy_usd)}" + (f" ({len(t.unpriced)} part{'s' if len(t.unpriced) != 1 else ''} "
                                                f"with no {t.market} price)" if t.unpriced else "")
        for t in money.totals.values()))
    e = money.energy
    out.append(f"  running: {e.wall_w:,.0f} W at the wall for {e.hours_per_day:g} h a day ({e.utilization:.0%}) at "
               f"${e.electricity_usd_per_kwh:g}/kWh: {e.kwh_per_year:,.0f} kWh, {_cents(e.electricity_usd_per_year)} "
               f"a year; cooling it (COP {e.cooling_cop:g}): {e.cooling_kwh_per_year:,.0f} kWh, "
               f"{_cents(e.cooling_usd_per_year)}; {_cents(e.total_usd_per_year)} a year in all")
    if money.cloud is not None:
        c = money.cloud
        if c.cloud_usd_per_hour is not None and c.cloud_usd_per_year is not None:
            out.append(f"  cloud vs buy: the cloud at ${c.cloud_usd_per_hour:g}/h costs {_cents(c.cloud_usd_per_year)} "
                       f"a year; {c.verdict}")
        else:
            out.append(f"  cloud vs buy: {c.verdict} for the whole lab")
    elif money.cloud_problem:
        out.append(f"  {money.cloud_problem}")
    out += [f"  note: {note}" for note in money.notes]
    return out


def _flags(lines: list[Line]) -> str:
    estimated = sum(1 for line in lines if line.estimated)
    stale = sum(1 for line in lines if line.stale)
    unpriced = sum(1 for line in lines if line.unit_price is None)
    words = [f"{n} {what}" for n, what in ((estimated, "estimated"), (stale, "stale"), (unpriced, "unpriced")) if n]
    return f" ({', '.join(words)} of its {len(lines)} prices)" if words else ""
