"""The lab's report: its verdict, each machine's own report, the lab's findings, where each PSU plugs in and
the load, limit and margin of every circuit, PDU bank, line, UPS and the room (the JSON contract of
`planner lab`, README)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from planner.api import Catalog, Finding
from planner.lab import checks, load
from planner.lab.lab import LimitRow, Room, cooling_limit, evaluate
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


def check_lab(path: Path, catalog: Catalog) -> LabReport:
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
    return LabReport(label, spec.name or Path(label).stem, verdict, machines, found, plugs, list(ev.nodes),
                     list(ev.lines), list(ev.ups), ev.cooling, source, ev.imbalance, ev.network, notes)


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
