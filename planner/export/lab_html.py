"""The lab's report as one self-contained HTML page, in the build report's way (planner/export/html.py): computed
here as plain data, rendered by templates/lab.html.j2 with autoescaping on, no script, nothing loaded, light and
dark, a phone and paper. It shows the verdict and the lab's findings with their fixes, each machine's verdict, the
rack/phase table (every feed and PDU line's current against its limit, every bank and circuit with the PSUs on it),
the power tree from each feed or wall circuit through its UPS, PDU and bank to each PSU (an SVG), the heat against
the room's cooling, the network under training, and the money: the parts list by market, energy and cloud vs buy.

Every string a lab file or a build can set (the lab's name, a PDU's model, the cooling's source, an inline part's
name) goes through `printable` here and the template's autoescaping there."""

from __future__ import annotations

import re
from typing import Any

from planner.export.html import SEVERITY_ORDER, _env, usd_cents
from planner.lab import params
from planner.lab.lab import LimitRow
from planner.lab.report import MARKET_WORDS, LabReport
from planner.util.fmt import percent, printable

BTU_PER_W = params.BTU_PER_W.value


def lab_to_html(report: LabReport) -> str:
    """The lab's report as one HTML page (see the module docstring)."""
    page = {
        "name": printable(report.lab),
        "file": printable(re.split(r"[/\\]", report.file)[-1]),  # the lab file's name, never its path
        "verdict": report.verdict,
        "counts": _counts(report),
        "findings": _findings(report),
        "machines": _machines(report),
        "lines": _lines(report),
        "outlets": _outlets(report),
        "tree": _tree(report),
        "heat": _heat(report),
        "network": _network(report),
        "money": _money(report),
        "notes": [printable(n) for n in report.notes if "(assigned by the planner)" not in n],
    }
    return _env().get_template("lab.html.j2").render(page=page)


def _counts(report: LabReport) -> str:
    words = []
    for severity in ("error", "warning"):
        n = sum(1 for f in report.findings if f.severity == severity)
        n += sum(1 for m in report.machines for f in m.report.findings if f.severity == severity)
        if n:
            words.append(f"{n} {severity}{'s' if n != 1 else ''}")
    return ", ".join(words)


def _findings(report: LabReport) -> list[dict[str, Any]]:
    ordered = sorted(report.findings, key=lambda f: SEVERITY_ORDER.get(f.severity, 3))
    return [{"code": f.code, "severity": f.severity, "message": printable(f.message),
             "fixes": [{"description": printable(x.description), "verified": x.verified} for x in f.fixes]}
            for f in ordered]


def _machines(report: LabReport) -> list[dict[str, Any]]:
    totals: dict[str, float] = {}
    for line in report.money.lines:
        if line.group != "room" and line.line_total is not None:
            totals[line.group] = totals.get(line.group, 0.0) + line.line_total
    out = []
    for m in report.machines:
        r = m.report
        price = totals.get(m.name)
        out.append({"name": printable(m.name), "count": m.copies,
                    "instances": ", ".join(printable(i) for i in m.instances),
                    "verdict": r.verdict, "dc": f"{r.summary.dc_load_w:,.0f} W",
                    "price": "no price" if price is None else usd_cents(price / max(1, m.copies)),
                    "findings": [{"severity": f.severity, "code": f.code, "message": printable(f.message)}
                                 for f in sorted(r.findings, key=lambda f: SEVERITY_ORDER.get(f.severity, 3))
                                 if f.severity != "info"]})
    return out


def _level(load: float, limit: float) -> str:
    if limit <= 0:
        return "ok"
    use = load / limit
    return "over" if use > 1 + 1e-9 else "near" if use >= 0.8 else "ok"


def _row(row: LimitRow) -> dict[str, Any]:
    return {"id": printable(row.id), "load": f"{row.load:,.1f} {row.unit}", "limit": f"{row.limit:,.1f} {row.unit}",
            "use": percent(row.load / row.limit) if row.limit else "—", "level": _level(row.load, row.limit),
            "margin": f"{row.margin:+,.1f} {row.unit}"}


def _lines(report: LabReport) -> list[dict[str, Any]]:
    """Every feed line and PDU input line: its current, its limit, its share, and the banks that draw from it."""
    spec = report.spec
    feeds = {f.name: f for f in spec.feed}
    pdu_feed = {p.name: p.feed for p in spec.pdu}
    banks: dict[str, list[str]] = {}
    for p in spec.pdu:
        for b in p.bank:
            load = next((r.load for r in report.nodes if r.id == f"{p.name}/{b.name}"), 0.0)
            for line in _bank_lines(b.phase, feeds[p.feed].phases == 3):
                for owner in (p.feed, p.name):
                    banks.setdefault(f"{owner}:{line}", []).append(f"{printable(p.name)}/{printable(b.name)} "
                                                                   f"({load:,.0f} W)")
    out = []
    for row in report.lines:
        owner, line = row.id.split(":", 1)
        feed = owner if owner in feeds else pdu_feed.get(owner, owner)
        out.append({**_row(row), "what": "feed" if owner in feeds else "PDU input", "feed": printable(feed),
                    "line": line, "banks": ", ".join(banks.get(row.id, [])),
                    "imbalance": (percent(report.imbalance[owner]) if owner in report.imbalance else "")})
    return out


def _bank_lines(phase: str, three_phase: bool) -> list[str]:
    if not three_phase:
        return ["L1"]
    parts = phase.split("-")
    return [parts[0]] if len(parts) == 1 or parts[1] == "N" else parts


def _outlets(report: LabReport) -> list[dict[str, Any]]:
    """Every PDU bank and wall circuit with its load, its limit and the PSUs plugged into it."""
    spec = report.spec
    phase = {f"{p.name}/{b.name}": b.phase for p in spec.pdu for b in p.bank}
    on: dict[str, list[str]] = {}
    for plug in report.plugs:
        on.setdefault(plug["into"], []).append(f"{printable(plug['psu'])} ({plug['wall_w']:,.0f} W)")
    return [{**_row(row), "kind": "PDU bank" if row.kind == "bank" else "wall circuit",
             "phase": phase.get(row.id, ""), "psus": ", ".join(on.get(row.id, [])) or "none"}
            for row in report.nodes]


# -- the power tree ---------------------------------------------------------------------------------------------

NODE_W, NODE_H, GAP_X, GAP_Y, TOP = 208, 50, 30, 10, 8


def _tree(report: LabReport) -> dict[str, Any]:
    """Feeds and wall circuits → UPSs → PDUs → banks → PSUs, as nested nodes laid out left to right: a leaf a row,
    a parent centred on its children."""
    spec = report.spec
    rows = {r.id: r for r in report.nodes}
    lines = {r.id: r for r in report.lines}
    ups_rows = {(r.id, r.kind): r for r in report.ups}
    ups_of = {fed: u for u in spec.ups for fed in u.feeds}
    plugs: dict[str, list[dict[str, Any]]] = {}
    for plug in report.plugs:
        plugs.setdefault(plug["into"], []).append(plug)

    def psu_nodes(into: str) -> list[dict[str, Any]]:
        return [{"kind": "psu", "level": "ok", "title": printable(p["psu"]),
                 "lines": [f"{printable(p['machine'])} · PSU {p['psu'].rsplit(':', 1)[1]}",
                           f"{p['wall_w']:,.0f} W at the wall"], "children": [], "watts": p["wall_w"]}
                for p in plugs.get(into, [])]

    def line_text(owner: str, count: int) -> tuple[str, str]:
        mine = [lines[f"{owner}:{name}"] for name in ("L1", "L2", "L3")[:count] if f"{owner}:{name}" in lines]
        if not mine:
            return "", "ok"
        worst = max(mine, key=lambda r: r.load / r.limit if r.limit else 0)
        text = " · ".join(f"{r.id.split(':')[1]} {r.load:,.1f}" for r in mine) + f" A of {worst.limit:,.0f} A"
        return text, _level(worst.load, worst.limit)

    def ups_node(name: str, children: list[dict[str, Any]]) -> dict[str, Any]:
        w = ups_rows.get((name, "ups-w"))
        runtime = ups_rows.get((name, "ups-runtime"))
        text = f"{w.load:,.0f} W of {w.limit:,.0f} W" if w else ""
        level = _level(w.load, w.limit) if w else "ok"
        if runtime:
            text += f" · {runtime.limit:,.1f} min"
            if runtime.limit < runtime.load:
                level = "over"
        return {"kind": "ups", "level": level, "title": printable(name),
                "lines": [f"UPS {printable(name)}", text], "children": children}

    sources: list[dict[str, Any]] = []
    for f in spec.feed:
        pdus = []
        for p in spec.pdu:
            if p.feed != f.name:
                continue
            banks = []
            for b in p.bank:
                bid = f"{p.name}/{b.name}"
                row = rows[bid]
                banks.append({"kind": "bank", "level": _level(row.load, row.limit), "title": printable(bid),
                              "lines": [f"{printable(bid)} · {b.phase} · {b.breaker_a:g} A",
                                        f"{row.load:,.0f} W = {percent(row.load / row.limit)} of {row.limit:,.0f} W"],
                              "children": psu_nodes(bid)})
            text, level = line_text(p.name, f.phases)
            pdu = {"kind": "pdu", "level": level, "title": printable(p.model or p.name),
                   "lines": [f"PDU {printable(p.name)}", text or f"{len(p.bank)} banks"], "children": banks}
            pdus.append(ups_node(ups_of[p.name].name, [pdu]) if p.name in ups_of else pdu)
        text, level = line_text(f.name, f.phases)
        kind = f"{f.phases}-phase {f.wiring}" if f.phases == 3 else "single-phase"
        sources.append({"kind": "feed", "level": level, "title": printable(f.name),
                        "lines": [f"Feed {printable(f.name)} · {f.voltage:g} V {kind}", text or f"{f.breaker_a:g} A"],
                        "children": pdus})
    for c in spec.circuit:
        row = rows[c.name]
        psus = psu_nodes(c.name)
        children = [ups_node(ups_of[c.name].name, psus)] if c.name in ups_of else psus
        sources.append({"kind": "circuit", "level": _level(row.load, row.limit), "title": printable(c.name),
                        "lines": [f"Circuit {printable(c.name)} · {printable(c.outlet)}",
                                  f"{row.load:,.0f} W = {percent(row.load / row.limit)} of {row.limit:,.0f} W"],
                        "children": children})
    has_ups = bool(spec.ups)
    columns = {"feed": 0, "circuit": 0, "ups": 1, "pdu": 1 + has_ups, "bank": 2 + has_ups, "psu": 3 + has_ups}
    nodes: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []
    y = [float(TOP)]

    def place(node: dict[str, Any]) -> float:
        """Lay out `node` and its subtree; its centre's y."""
        x = 4 + columns[node["kind"]] * (NODE_W + GAP_X)
        if node["children"]:
            centres = [place(child) for child in node["children"]]
            centre = (centres[0] + centres[-1]) / 2
        else:
            centre = y[0] + NODE_H / 2
            y[0] += NODE_H + GAP_Y
        node.update(x=x, y=centre - NODE_H / 2, h=NODE_H)
        nodes.append(node)
        for child in node["children"]:
            x1, y1 = x + NODE_W, centre
            x2, y2 = child["x"], child["y"] + NODE_H / 2
            mid = (x1 + x2) / 2
            edges.append({"d": f"M{x1:.1f},{y1:.1f} C{mid:.1f},{y1:.1f} {mid:.1f},{y2:.1f} {x2:.1f},{y2:.1f}",
                          "between": f"{node['lines'][0]} → {child['lines'][0]}",
                          "label": f"{child['watts']:,.0f} W" if "watts" in child else None,
                          "lx": x2 - 30, "ly": y2 - 5})
        return centre

    for source in sources:
        place(source)
    width = 8 + (columns["psu"] + 1) * NODE_W + columns["psu"] * GAP_X
    for node in nodes:
        node.pop("children", None)
    return {"nodes": nodes, "edges": edges, "width": width, "height": y[0] + 4, "node_w": NODE_W}


# -- heat, network, money ---------------------------------------------------------------------------------------

def _heat(report: LabReport) -> dict[str, Any]:
    c = report.cooling
    return {"load": f"{c.load:,.0f} W ({c.load * BTU_PER_W:,.0f} BTU/h)",
            "limit": f"{c.limit:,.0f} W ({c.limit * BTU_PER_W:,.0f} BTU/h)",
            "use": percent(c.load / c.limit) if c.limit else "—", "level": _level(c.load, c.limit),
            "source": printable(report.cooling_source)}


def _network(report: LabReport) -> dict[str, Any]:
    spec = report.spec
    machines = [{"name": printable(m.name), "count": m.count,
                 "nic": (f"{m.nic_gbps:g} Gbit/s" if m.nic_gbps is not None else "none given")
                 + (f" ({printable(m.nic)})" if m.nic else "")} for m in spec.machine]
    n = spec.network
    switch = ("none given" if n.switch_gbps is None else
              f"{n.switch_ports or '?'} × {n.switch_gbps:g} Gbit/s" + (f" ({printable(n.switch)})" if n.switch else ""))
    training = None
    if report.network:
        t = report.network
        training = {"need": f"{t['need_gbps']:g} Gbit/s", "estimate": f"{t['estimate_gbps']:g} Gbit/s",
                    "floor": f"{t['floor_gbps']:g} Gbit/s", "machines": ", ".join(printable(m) for m in t["machines"])}
    return {"machines": machines, "switch": switch, "training": training}


def _money(report: LabReport) -> dict[str, Any]:
    money = report.money
    rows = []
    for line in money.lines:
        if line.unit_price is None:
            tag = "no price"
        else:
            tag = f"{line.market} {line.price_date or 'undated'}"
            tag += " · estimate" if line.estimated else ""
            tag += " · stale" if line.stale else ""
        rows.append({"group": printable(line.group), "kind": line.kind, "name": printable(line.name),
                     "count": line.quantity, "owned": line.owned,
                     "unit": "no price" if line.unit_price is None else usd_cents(line.unit_price),
                     "line": "" if line.line_total is None else usd_cents(line.line_total), "tag": tag,
                     "source": printable(line.price_source or "")})
    chosen = money.chosen
    totals = [{"market": t.market, "to_buy": usd_cents(t.to_buy_usd), "owned": usd_cents(t.owned_usd),
               "unpriced": len(t.unpriced), "estimated": t.estimated} for t in money.totals.values()]
    e = money.energy
    energy = {"wall": f"{e.wall_w:,.0f} W", "hours": f"{e.hours_per_day:g} h a day ({percent(e.utilization)})",
              "price": f"${e.electricity_usd_per_kwh:g}/kWh",
              "it": f"{e.kwh_per_year:,.0f} kWh, {usd_cents(e.electricity_usd_per_year)}",
              "cooling": f"{e.cooling_kwh_per_year:,.0f} kWh, {usd_cents(e.cooling_usd_per_year)}",
              "cop": f"{e.cooling_cop:g}", "cop_source": printable(e.cooling_cop_source),
              "total": usd_cents(e.total_usd_per_year)}
    cloud = None
    if money.cloud is not None:
        c = money.cloud
        cloud = {"verdict": printable(c.verdict),
                 "cloud": None if c.cloud_usd_per_hour is None or c.cloud_usd_per_year is None else
                 f"${c.cloud_usd_per_hour:g}/h: {usd_cents(c.cloud_usd_per_year)} a year",
                 "days": None if c.break_even_days is None else f"{c.break_even_days:,.0f} days "
                                                                f"({c.break_even_months:g} months)"}
    return {"market": money.market, "market_words": MARKET_WORDS.get(money.market, money.market), "rows": rows,
            "to_buy": usd_cents(chosen.to_buy_usd), "owned": usd_cents(chosen.owned_usd),
            "all": usd_cents(chosen.all_usd), "totals": totals, "energy": energy, "cloud": cloud,
            "problem": printable(money.cloud_problem or ""), "notes": [printable(n) for n in money.notes]}


__all__ = ["lab_to_html"]
