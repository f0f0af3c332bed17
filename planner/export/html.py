"""The shared build as one self-contained HTML file (issue 28): the verdict and the plan, the findings with their
fixes, the parts list with owned and to-buy marks, the slot diagram and the power chain as inline SVG, and each
card's power limit, temperature, speed and slowdown curve.

Everything the page shows is computed here as plain data (strings and numbers: the SVG geometry too) and
rendered by the Jinja2 template templates/report.html.j2 with autoescaping on: every name of a part, a build or a
circuit may come from a stranger, and the template engine escapes each at the one channel that needs it. The
page has no script, loads nothing (inline CSS and SVG only; its Content-Security-Policy forbids any request)
and reads in light and dark, on a phone and on paper."""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

from jinja2 import Environment, PackageLoader, StrictUndefined

from planner.build.resolve import ResolvedBuild
from planner.catalog import Catalog
from planner.checks.engine.context import Context, Settings
from planner.export.formats import _notes, _price_tag
from planner.export.share import power_lines, shared_rows, totals, without_paths
from planner.physics import params
from planner.physics.slowdown import relative_perf, workload_kind
from planner.physics.transients import capability
from planner.placement.layout import layout_of, slot_lanes
from planner.placement.mounts import GpuMount
from planner.report import Report
from planner.util.fmt import gpu_labels, percent, printable, usd, watts

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
_ENV: Environment | None = None


def _env() -> Environment:
    global _ENV
    if _ENV is None:
        _ENV = Environment(loader=PackageLoader("planner.export", "templates"), autoescape=True,
                           undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    return _ENV


def _short(text: str, most: int) -> str:
    text = printable(text)
    return text if len(text) <= most else text[: most - 1] + "…"


def to_html(build: ResolvedBuild, report: Report, catalog: Catalog, settings: Settings | None = None, *,
            context: Context | None = None) -> str:
    """The build's report as one HTML page (see the module docstring). `context`: the one the report was checked
    on (`api.check`), whose placement, power split and thermals the page draws; a fresh one otherwise."""
    ctx = context if context is not None else Context(build, catalog, settings, propose_fixes=False)
    page = {
        "name": printable(build.name),
        "file": printable(re.split(r"[/\\]", report.file)[-1]),  # the build file's name, never its path
        "verdict": report.verdict,
        "counts": _counts(report),
        "plan": _plan(report),
        "findings": _findings(report),
        "parts": _parts(build),
        "slots": _slot_diagram(build, ctx),
        "power": _power_chain(build, ctx),
        "power_lines": [printable(line) for line in power_lines(build, report.summary)],
        "cards": _cards(build, report, ctx),
        "curves": _curves(build, ctx),
        "workload": _workload(build, ctx),
        "target": percent(ctx.settings.psu_target),
    }
    return _env().get_template("report.html.j2").render(page=page)


def _counts(report: Report) -> str:
    words = []
    for severity in ("error", "warning"):
        n = sum(1 for f in report.findings if f.severity == severity)
        if n:
            words.append(f"{n} {severity}{'s' if n != 1 else ''}")
    return ", ".join(words)


def _plan(report: Report) -> dict[str, Any] | None:
    plan = report.plan
    if plan is None:
        return None
    return {"description": printable(plan.description), "verified": plan.verified,
            "steps": [printable(s.description) for s in plan.steps],
            "changes": [f"{printable(c.path)} = {printable(_value(c.value))}" for c in plan.changes],
            "clears": plan.clears, "remaining": plan.remaining,
            "cost": None if plan.cost_usd is None else usd(plan.cost_usd),
            "speed": None if plan.relative_perf is None else percent(plan.relative_perf)}


def _value(value: object) -> str:
    """A build-file value as it reads in the file: a string as is, anything else as JSON (close to TOML)."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _findings(report: Report) -> list[dict[str, Any]]:
    ordered = sorted(report.findings, key=lambda f: SEVERITY_ORDER.get(f.severity, 3))
    return [{"code": f.code, "severity": f.severity, "message": printable(f.message),
             "fixes": [{"description": printable(x.description), "verified": x.verified} for x in f.fixes]}
            for f in ordered]


def _parts(build: ResolvedBuild) -> dict[str, Any]:
    shared = shared_rows(build)
    rows = []
    for s in shared:
        r = s.row
        rows.append({"kind": r.kind, "name": printable(r.name), "id": printable(r.part_id), "count": r.quantity,
                     "unit": "no price" if r.unit_price is None else usd_cents(r.unit_price),
                     "tag": _price_tag(r), "line": "" if r.line_total is None else usd_cents(r.line_total),
                     "status": s.mark, "owned": s.owned, "yours": r.user_price,
                     "from": printable(s.price_from or "")})
    sums = totals(shared)
    return {"rows": rows, "to_buy": usd_cents(sums.to_buy), "owned": usd_cents(sums.owned),
            "all": usd_cents(sums.all), "unpriced": sums.unpriced,
            "notes": [printable(without_paths(n)) for n in _notes([s.row for s in shared])]}


def usd_cents(value: float) -> str:
    return f"${value:,.2f}"


# -- the slot diagram -----------------------------------------------------------------------------------------

ROW = 36  # one expansion-slot position
TOP = 26
SLOT_X, SLOT_W = 40, 300  # the board column
CARD_X, CARD_W = 356, 384  # the cards column
WIDTH = 750
_SLOT_LENGTH = {16: 140, 8: 84, 4: 52, 1: 24}


def _slot_diagram(build: ResolvedBuild, ctx: Context) -> dict[str, Any]:
    """Rows of the case's expansion-slot positions with the board's slots (name, lanes, generation), a rect per
    card over the positions its cooler covers (its width and mount written in it), risers' plugs and their
    cards on mounts, positions a cooler blocks or the case does not have, and the cards with no mount."""
    layout = layout_of(build)
    placement = ctx.placement
    mounts = [m for m in placement.mounts if m is not None]
    used = {m.slot for m in mounts if m.slot is not None}
    covering: dict[int, list[int]] = {}
    for m in mounts:
        for p in m.positions:
            covering.setdefault(p, []).append(m.gpu)
    last = max([layout.case_slots, *(s.position for s in layout.slots), *covering])
    sites = {s.position: s for s in layout.slots}
    rows = []
    for position in range(1, last + 1):
        y = TOP + (position - 1) * ROW
        site = sites.get(position)
        past = layout.case_end is not None and position > layout.case_end
        row: dict[str, Any] = {"position": position, "y": y, "past_case": past, "slot": None, "blocked_by": None,
                               "free": position not in covering}
        if site is not None:
            lanes = slot_lanes(site, used)
            wired = f"x{lanes}" if lanes == site.lanes else (f"x{lanes} (x{site.lanes} alone)" if lanes else "off")
            where = " chipset" if site.source == "chipset" else ""
            row["slot"] = {"name": _short(site.name, 18), "text": f"{wired} Gen{site.gen}{where}"
                           + (f" via {site.switch}" if site.switch else ""),
                           "length": _SLOT_LENGTH.get(site.size, 60), "used": site.name in used}
            # a slot under a card's cooler (not the card's own slot) is blocked
            blockers = [g for g in covering.get(position, []) if placement.mounts[g] is not None
                        and placement.mounts[g].positions[0] != position]  # type: ignore[union-attr]
            if blockers:
                row["blocked_by"] = gpu_labels(blockers)
        rows.append(row)
    cards: list[dict[str, Any]] = []
    plugs: list[dict[str, Any]] = []
    mount_y = TOP + last * ROW + 34
    off_row: list[tuple[dict[str, Any], GpuMount | None]] = []
    for g in build.gpus:
        mount = placement.of(g.index)
        base = {"label": f"GPU{g.index + 1}", "name": _short(g.board.name, 44), "full": printable(g.board.name),
                "width": f"{g.board.slot_width:g}-slot", "riser": _short(g.riser.name, 40) if g.riser else None}
        if mount is None or not mount.positions:
            off_row.append((base, mount))
            continue
        first, span = mount.positions[0], len(mount.positions)
        overlap = any(len(covering.get(p, [])) > 1 for p in mount.positions)
        past = layout.case_end is not None and any(p > layout.case_end for p in mount.positions)
        cards.append({**base, "x": CARD_X, "y": TOP + (first - 1) * ROW + 3, "h": span * ROW - 6,
                      "mount": _short(mount.mount, 24), "link": _link(mount),
                      "state": "bad" if overlap or past else "ok",
                      "positions": f"positions {first}–{mount.positions[-1]}" if span > 1 else f"position {first}"})
    tray_y: float = mount_y
    for base, mount in off_row:
        if mount is not None:  # on a riser cable, off the slot row
            cards.append({**base, "x": CARD_X, "y": tray_y, "h": ROW * 1.6, "mount": _short(mount.mount, 24),
                          "link": _link(mount), "state": "ok", "positions": f"from {_short(mount.slot or '?', 18)}"})
            if mount.slot is not None:
                plug_y = TOP + (layout.slot(mount.slot).position - 1) * ROW
                plugs.append({"label": base["label"], "y": plug_y + 8, "to_y": tray_y + ROW * 0.7,
                              "mount": _short(mount.mount, 24)})
        else:
            cards.append({**base, "x": CARD_X, "y": tray_y, "h": ROW * 1.4, "mount": "no mount", "link": "",
                          "state": "unplaced", "positions": "no slot left for it"})
        tray_y += (ROW * 1.6 if mount is not None else ROW * 1.4) + 8
    switches = [f"{s.name} ({s.model}): x{s.lanes} link to the {'CPU' if s.source == 'cpu' else 'chipset'}, shared "
                f"by {', '.join(s.slots)}" for s in layout.switches]
    case = build.case
    title = (f"{printable(build.motherboard.name)} in the {printable(case.name)} ({case.expansion_slots} expansion "
             f"slots{', open frame' if case.open_frame else ''}"
             f"{f', {case.vertical_gpu_mounts} vertical mounts' if case.vertical_gpu_mounts else ''})")
    board_rows = [r for r in rows if r["slot"] is not None]
    board_top = min((r["y"] for r in board_rows), default=TOP) - 4
    board_bottom = max((r["y"] for r in board_rows), default=TOP) + ROW + 4
    height = (tray_y if off_row else TOP + last * ROW) + 12
    return {"title": title, "rows": rows, "cards": cards, "plugs": plugs, "width": WIDTH, "height": height,
            "slot_x": SLOT_X, "slot_w": SLOT_W, "card_x": CARD_X, "card_w": CARD_W, "row": ROW,
            "board_top": board_top, "board_h": board_bottom - board_top, "tray_y": mount_y - 12 if off_row else None,
            "switches": switches, "reason": printable(placement.reason) if placement.reason else None}


def _link(mount: GpuMount) -> str:
    return f"x{mount.lanes} Gen{mount.gen}" if mount.lanes is not None and mount.gen is not None else ""


# -- the power chain ------------------------------------------------------------------------------------------

NODE_W = 216
COLUMNS = (4, 282, 560)
CHAIN_WIDTH = 780


def _level(fraction: float) -> str:
    return "over" if fraction > 1 else "near" if fraction >= params.PSU_TARGET_LOAD.value else "ok"


def _power_chain(build: ResolvedBuild, ctx: Context) -> dict[str, Any]:
    """Circuits → PSUs → cards, CPU and the rest: a node each with its load and % of its limits, an edge per
    power path with its watts."""
    split, budget = ctx.power_split, ctx.budget
    nodes: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []
    load_y = 8.0
    psu_nodes: list[dict[str, Any]] = []
    gap = 12
    for share in split.psus:
        use = build.psus[share.psu]
        start = load_y
        targets = []
        for gi in share.gpus:
            g = build.gpus[gi]
            over = g.power_limit / g.board.tdp
            node: dict[str, Any] = {"kind": "gpu", "x": COLUMNS[2], "y": load_y, "h": 48, "level": "ok",
                    "lines": [f"GPU{gi + 1} {_short(g.board.name, 26)}",
                              f"{watts(g.power_limit)} limit · {percent(over)} of stock"],
                    "title": printable(g.board.name)}
            nodes.append(node)
            targets.append((node, g.power_limit))
            load_y += 48 + gap
        if share.psu == 0:
            cpu: dict[str, Any] = {"kind": "cpu", "x": COLUMNS[2], "y": load_y, "h": 48, "level": "ok",
                   "lines": [f"CPU {_short(build.cpu.name, 26)}", f"{watts(budget.cpu)}"],
                   "title": printable(build.cpu.name)}
            nodes.append(cpu)
            targets.append((cpu, budget.cpu))
            load_y += 48 + gap
            rest_w = budget.rest - budget.cpu
            rest: dict[str, Any] = {"kind": "rest", "x": COLUMNS[2], "y": load_y, "h": 48, "level": "ok",
                    "lines": ["Board, RAM, drives, fans", f"{watts(rest_w)}"], "title": "the rest of the system"}
            nodes.append(rest)
            targets.append((rest, rest_w))
            load_y += 48 + gap
        h = 64
        center = (start + load_y - gap) / 2 if load_y > start else start + h / 2
        cap = capability(use.part, share.rating).watts[params.PEAK_WINDOW]
        psu: dict[str, Any] = {"kind": "psu", "x": COLUMNS[1], "y": max(center - h / 2, 0), "h": h,
               "level": _level(max(share.fraction, share.peak / cap if cap else 0.0)),
               "lines": [f"PSU{share.psu + 1} {_short(use.part.name, 26)}",
                         f"{watts(share.load)} = {percent(share.fraction)} of {watts(share.rating)}",
                         f"peak {watts(share.peak)} = {percent(share.peak / cap)} of {watts(cap)}"],
                 "title": printable(use.part.name), "circuit": use.circuit}
        if load_y <= start:  # a PSU feeding nothing still gets its row
            load_y = start + h + gap
        nodes.append(psu)
        psu_nodes.append(psu)
        for node, w in targets:
            edges.append(_edge(psu, node, w, "dc"))
    bottom = load_y
    for draw, circuit_use in zip(split.circuits, build.circuits, strict=True):
        mine = [p for p in psu_nodes if p["circuit"] == draw.name]
        h = 78
        center = (sum(p["y"] + p["h"] / 2 for p in mine) / len(mine)) if mine else bottom + h / 2
        outlet = draw.outlet
        breaker = draw.breaker_rating
        circuit: dict[str, Any] = {"kind": "circuit", "x": COLUMNS[0], "y": max(center - h / 2, 0), "h": h,
                   "level": _level(draw.wall / draw.continuous_limit),
                   "lines": [f"Circuit {_short(draw.name, 20)}",
                             f"{_short(outlet.standard, 14)} · {outlet.voltage:g} V / {outlet.breaker_current:g} A",
                             f"{watts(draw.wall)} = {percent(draw.wall / draw.continuous_limit)} of "
                             f"{watts(draw.continuous_limit)} cont.",
                             f"= {percent(draw.wall / breaker)} of {watts(breaker)} breaker"],
                   "title": printable(draw.name)}
        nodes.append(circuit)
        if not mine:
            bottom += h + gap
        for psu_index, wall in zip(draw.psus, draw.psu_wall, strict=True):
            target = next(p for p in psu_nodes if p["lines"][0].startswith(f"PSU{psu_index + 1} "))
            edges.append(_edge(circuit, target, wall, "ac"))
        if circuit_use.other_load:
            other: dict[str, Any] = {
                "kind": "other", "x": COLUMNS[1], "y": max(bottom, circuit["y"] + h + gap), "h": 40, "level": "ok",
                "lines": ["Other on this circuit", watts(circuit_use.other_load)], "title": "other equipment"}
            nodes.append(other)
            edges.append(_edge(circuit, other, circuit_use.other_load, "ac"))
            bottom = other["y"] + 40 + gap
    height = max([n["y"] + n["h"] for n in nodes] + [bottom]) + 8
    return {"nodes": nodes, "edges": edges, "width": CHAIN_WIDTH, "height": height, "node_w": NODE_W}


def _edge(source: dict[str, Any], target: dict[str, Any], w: float, kind: str) -> dict[str, Any]:
    x1, y1 = source["x"] + NODE_W, source["y"] + source["h"] / 2
    x2, y2 = target["x"], target["y"] + target["h"] / 2
    mid = (x1 + x2) / 2
    # the label sits where the edge reaches its target (edges fan out from a PSU: their middles crowd)
    return {"d": f"M{x1:.1f},{y1:.1f} C{mid:.1f},{y1:.1f} {mid:.1f},{y2:.1f} {x2:.1f},{y2:.1f}",
            "label": watts(w), "lx": x2 - 30, "ly": y2 - 5, "kind": kind,
            "between": f"{source['lines'][0]} → {target['lines'][0]}"}


# -- the cards ------------------------------------------------------------------------------------------------

def _cards(build: ResolvedBuild, report: Report, ctx: Context) -> list[dict[str, Any]]:
    out = []
    for g, summary in zip(build.gpus, report.summary.gpus, strict=True):
        perf = ctx.performance.gpus[g.index]
        thermal = ctx.thermal.gpus[g.index]
        psu = ctx.power_split.gpu_psu[g.index]
        out.append({"label": f"GPU{g.index + 1}", "name": printable(g.board.name),
                    "mount": printable(summary.mount) if summary.mount else "no mount",
                    "lanes": f"x{summary.lanes}" if summary.lanes else "",
                    "limit": watts(g.power_limit), "stock": watts(g.board.tdp),
                    "set": g.power_limit_set,
                    "temperature": "—" if summary.temperature_c is None else f"{summary.temperature_c:.0f} °C",
                    "throttles": thermal.power_w < g.power_limit - 0.5,
                    "speed": percent(perf.relative_perf), "psu": f"PSU{psu + 1}"})
    return out


CURVE_W, CURVE_H = 320, 190
_PAD_L, _PAD_R, _PAD_T, _PAD_B = 44, 12, 14, 34


def _curves(build: ResolvedBuild, ctx: Context) -> list[dict[str, Any]]:
    """The slowdown curve of each board and power limit (cards alike share one), its chosen point marked."""
    groups: dict[tuple[int, float], list[int]] = {}
    for g in build.gpus:
        groups.setdefault((g.spec_index, g.power_limit), []).append(g.index)
    out = []
    for indices in groups.values():
        g = build.gpus[indices[0]]
        board, chip = g.board, g.chip
        low, high = board.power_limit_min, board.power_limit_max
        if high <= low:
            high = low + 1
        samples = [low + (high - low) * i / 40 for i in range(41)]
        values = [relative_perf(board, chip, p, build.workload).relative_perf for p in samples]
        perf = ctx.performance.gpus[g.index]
        y_low = min(0.5, min(values) - 0.05)
        y_high = max(1.05, max(values) + 0.02)

        def x(p: float, low: float = low, high: float = high) -> float:
            return _PAD_L + (p - low) / (high - low) * (CURVE_W - _PAD_L - _PAD_R)

        def y(v: float, y_low: float = y_low, y_high: float = y_high) -> float:
            return _PAD_T + (y_high - v) / (y_high - y_low) * (CURVE_H - _PAD_T - _PAD_B)

        ticks_y = [t / 10 for t in range(int(y_low * 10) + 1, int(y_high * 10) + 1)]
        out.append({"cards": gpu_labels(indices), "name": printable(board.name), "width": CURVE_W,
                    "height": CURVE_H, "curve": printable(perf.curve),
                    "points": " ".join(f"{x(p):.1f},{y(v):.1f}" for p, v in zip(samples, values, strict=True)),
                    "chosen": {"x": x(g.power_limit), "y": y(perf.at_limit), "label": f"{watts(g.power_limit)}: "
                               f"{percent(perf.at_limit)}"},
                    "stock": {"x": x(board.tdp), "y": y(1.0)},
                    "drawn": _throttled(build, ctx, indices, x, y),
                    "axis": {"x0": _PAD_L, "x1": CURVE_W - _PAD_R, "y0": _PAD_T, "y1": CURVE_H - _PAD_B},
                    "xticks": [{"x": x(p), "label": f"{p:.0f}"} for p in (low, board.tdp, high)],
                    "yticks": [{"y": y(t), "label": f"{t * 100:.0f} %"} for t in ticks_y]})
    return out


def _throttled(build: ResolvedBuild, ctx: Context, indices: list[int], x: Any, y: Any) -> list[dict[str, Any]]:
    """The point each throttling card of a group settles at (cards at the same power together)."""
    at: dict[float, list[int]] = {}
    for i in indices:
        perf = ctx.performance.gpus[i]
        if perf.power_w < build.gpus[i].power_limit - 0.5:
            at.setdefault(round(perf.power_w), []).append(i)
    out = []
    for _, cards in sorted(at.items()):
        perf = ctx.performance.gpus[cards[0]]
        out.append({"x": x(perf.power_w), "y": y(perf.relative_perf),
                    "label": f"{gpu_labels(cards)} {'throttles' if len(cards) == 1 else 'throttle'} to "
                             f"{watts(perf.power_w)}: {percent(perf.relative_perf)}"})
    return out


class _Workload(NamedTuple):
    kind: str
    bound: str
    speed: str


def _workload(build: ResolvedBuild, ctx: Context) -> dict[str, Any]:
    return _Workload(build.workload, workload_kind(build.workload),
                     percent(ctx.performance.relative_perf))._asdict()


__all__ = ["to_html"]
