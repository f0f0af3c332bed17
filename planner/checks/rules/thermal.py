"""Cooling (docs/verdicts.md `thermal.*`, README: Thermals): GPU temperatures, open-air cards starved by a card or the
PSU shroud right under their fans, passive cards without server airflow, and the case air rise."""

from __future__ import annotations

import json
from collections.abc import Callable

from planner.build.resolve import ResolvedBuild
from planner.checks.case_fit import takes_board
from planner.checks.engine.context import MODEL_READS, Context
from planner.checks.engine.findings import Change, Finding, Fix
from planner.checks.engine.registry import check
from planner.models.parts import Case
from planner.physics import params
from planner.physics.slowdown import build_performance
from planner.physics.thermal import BOTTOM_INTAKE, GpuThermal, Thermal, thermal_model
from planner.util.fmt import num, percent, price_text, watts


def _celsius(value: float) -> str:
    return f"{value:.0f} °C"


def _where(t: GpuThermal) -> str:
    """What the inlet temperature assumes about the card's neighbours."""
    if t.where == "unknown":
        return ", position not known yet: well-mixed case air assumed"
    if t.where == "off-row":
        return ", on a riser mount: well-mixed case air assumed"
    return ""


def _inlet(t: GpuThermal) -> str:
    """The card's inlet air and what it is made of: "inlet air 38 °C: room 25 °C + 4 °C case air + …"."""
    terms = [f"{delta:.1f} °C from {name}" for name, delta in t.inlet_terms[1:] if round(delta, 1) > 0]
    if not terms:
        return f"inlet air {_celsius(t.inlet_c)}"
    room = t.inlet_terms[0][1]
    return f"inlet air {t.inlet_c:.1f} °C: room {room:g} °C + {' + '.join(terms)}"


def _assumed(t: GpuThermal) -> str:
    """What a floor-starved card's figures rest on that the case entry does not say."""
    if t.floor is None or not t.floor.assumed:
        return ""
    return f" (assumed: {' and '.join(t.floor.assumed)})"


def _throttle_cost(ctx: Context, t: GpuThermal) -> str:
    """The power and temperature a throttling card settles at (the figures the report's summary gives for it)
    and the throughput that costs (slowdown model)."""
    if not t.throttled:
        return ""
    perf = ctx.performance.gpus[t.gpu]
    loss = 1 - perf.relative_perf / perf.at_limit if perf.at_limit else 0.0
    settles = f"to about {watts(t.power_w)}"
    if t.temperature_c is not None:
        settles += f" at {_celsius(t.temperature_c)}"
    if round(loss * 100) == 0:
        return f"{settles}, which costs under 1 % throughput"
    return f"{settles}, about −{loss * 100:.0f} % throughput"


def _thermal_fix(ctx: Context, code: str, goal: str, ok: Callable[[Thermal], bool]) -> list[Fix]:
    """The highest power limits under which the thermal model says `ok`, maximising throughput; found on
    the model alone (microseconds a trial) and verified by re-checking the changed build."""
    if not ctx.propose_fixes:
        return []
    from planner.checks.limits import (  # only fixes search limits
        alike_tables,
        candidates,
        describe,
        per_table,
        search_limits,
        with_limits,
    )

    build = ctx.build
    members = alike_tables(build)  # tables of the same card share one limit
    groups = sorted(members)
    boards = {g.spec_index: g.board for g in build.gpus}
    options = [candidates(boards[g]) for g in groups]

    models: dict[tuple[float, ...], tuple[ResolvedBuild, Thermal]] = {}

    def model(limits: tuple[float, ...]) -> tuple[ResolvedBuild, Thermal]:
        """The build with these limits and its thermal model, once per limits (the search asks whether limits
        are `ok`, then their throughput)."""
        if limits not in models:
            changed = with_limits(build, per_table(members, groups, limits))
            models[limits] = changed, thermal_model(changed, ctx.placement, ctx.budget.rest)
        return models[limits]

    def throughput(limits: tuple[float, ...]) -> float:
        changed, thermal = model(limits)
        return build_performance(changed, [t.power_w for t in thermal.gpus]).relative_perf

    if not ok(model(tuple(o[-1] for o in options))[1]):
        return []  # not even the lowest limits do it
    best = search_limits(options, [boards[g].tdp for g in groups], lambda limits: ok(model(limits)[1]), throughput)
    limits = per_table(members, groups, best)
    changes = [Change(path=f"gpu[{g}].power_limit", value=f"{limit:g} W") for g, limit in sorted(limits.items())]
    now = ctx.performance.relative_perf
    cost = 1 - throughput(best) / now if now else 0.0
    fix = ctx.fix(f"{describe(build, limits, cost, [])}; {goal}", changes, code)
    return [fix] if fix else []


def _below_targets(thermal: Thermal, build: ResolvedBuild) -> bool:
    return all(t.unthrottled_c is None or t.unthrottled_c < build.gpus[t.gpu].board.temp_target
               for t in thermal.gpus)


@check("thermal.gpu-temp", reads=MODEL_READS["performance"], order=260, section="Heat",
       error=("predicted temperature at the card's maximum operating temperature (hard throttling), when the "
              "layout under the card and the case's intake are known"),
       warning=("at or above its temperature target (boost clocks drop: the loss is stated, with the power and "
                "temperature it settles at, the summary's `power_w` and `temperature_c`); at the maximum on an "
                "assumed layout or assumed intake fans"),
       evidence=("nvidia-smi throttle points; cooler rises calibrated on single-card measurements and two touching"
                 " RTX 3090 FEs over a PSU (club-3090 #178)"))
def gpu_temperature(ctx: Context) -> list[Finding]:
    """Each GPU's predicted temperature against its temperature target and maximum operating temperature."""
    findings = []
    fixes: list[Fix] | None = None
    for t in ctx.thermal.gpus:
        gpu = ctx.build.gpus[t.gpu]
        board = gpu.board
        if t.unthrottled_c is None or t.unthrottled_c < board.temp_target:
            continue
        past_max = t.unthrottled_c >= board.temp_max_operating
        # an error rests on evidence: not when the case layout under the card, or the case's intake fans (when
        # its air warms the card's inlet), were assumed
        layout_assumed = bool(t.floor and t.floor.assumed)
        fans_assumed = ctx.thermal.case.intake_unknown and (ctx.thermal.case.rise_c or 0.0) > 0
        hard = past_max and not (layout_assumed or fans_assumed)
        message = _temperature_message(ctx, t, past_max, hard, layout_assumed, fans_assumed) if ctx.wording else ""
        if fixes is None:
            fixes = _thermal_fix(ctx, "thermal.gpu-temp", "keeps every GPU below its temperature target",
                                 lambda thermal: _below_targets(thermal, ctx.build))
        findings.append(gpu_temperature.finding(
            severity="error" if hard else "warning", message=message,
            subject=[f"GPU{t.gpu + 1}", board.id], value=round(t.unthrottled_c, 1),
            limit=board.temp_max_operating if hard else board.temp_target, unit="°C",
            fixes=[*fixes, *_cooling_advice(ctx, t)]))
    return findings


def _temperature_message(ctx: Context, t: GpuThermal, past_max: bool, hard: bool, layout_assumed: bool,
                         fans_assumed: bool) -> str:
    board = ctx.build.gpus[t.gpu].board
    assert t.unthrottled_c is not None
    reach = (f"GPU{t.gpu + 1} ({board.name}) would reach {_celsius(t.unthrottled_c)} at "
             f"{watts(t.limit_w)} ({_inlet(t)}{_where(t)}{_starved(t)}){_assumed(t)}")
    cost = _throttle_cost(ctx, t)
    if past_max and not hard:
        basis = " and ".join(what for what, yes in (
            ("the assumed case layout", layout_assumed),
            (f"assumed intake fans (the catalog does not know the {ctx.build.case.name}'s)", fans_assumed)) if yes)
        return (f"{reach}: at or past its {_celsius(board.temp_max_operating)} maximum operating temperature "
                f"it would throttle hard{', ' + cost if cost else ''}; a warning, not an error, because it "
                f"rests on {basis}.")
    if hard:
        return (f"{reach}, past its {_celsius(board.temp_max_operating)} maximum operating temperature: "
                f"it will throttle hard{', ' + cost if cost else ''}.")
    where = "at" if round(t.unthrottled_c) == round(board.temp_target) else "above"
    return (f"{reach}, {where} its {_celsius(board.temp_target)} temperature target: it lowers its "
            f"clocks to hold the target{', ' + cost if cost else ''}.")


def _side_panel(ctx: Context, t: GpuThermal) -> str:
    """A starved card whose top edge is also close to the side panel: that side of its intake pocket is
    closed too. Named, not counted: no measurement of the effect was found."""
    case, board = ctx.build.case, ctx.build.gpus[t.gpu].board
    if case.max_gpu_height is None:
        return ""
    gap = case.max_gpu_height - board.height
    if gap >= params.STARVED_INTAKE_GAP.value:
        return ""
    return (f"; the side panel, about {max(gap, 0):.0f} mm from its edge, closes that pocket from the side too "
            "(not counted in the figures)")


def _starved(t: GpuThermal) -> str:
    """Why the card cools worse than alone: no room in front of its fans."""
    if t.sandwiched_by is not None:
        return f"; its fans face GPU{t.sandwiched_by + 1} right below it and cool {_worse(params.SANDWICH_PENALTY)}"
    if t.floor is not None:
        return (f"; its fans face {t.floor.what} {t.floor.gap_mm:.0f} mm away and cool "
                f"{_worse(params.FLOOR_STARVED_PENALTY)}")
    return ""


def _worse(penalty: params.Param) -> str:
    return f"about {(penalty.value - 1) * 100:.0f} % worse"


def _cooling_advice(ctx: Context, t: GpuThermal) -> list[Fix]:
    """Suggestions no build edit expresses (not verified)."""
    if not ctx.propose_fixes:
        return []
    if t.floor is not None:
        return [Fix(f"leave at least one free slot ({params.SLOT_PITCH.value:.0f} mm) under the lowest card: a slot "
                    "higher up, a case with more slot positions below the board, or a case with floor intake fans "
                    "under the cards")]
    if t.sandwiched_by is not None:
        return [Fix("leave a free slot below this card (another slot, or a riser to a vertical mount), "
                    "or use blower cards, which exhaust through the bracket")]
    if ctx.build.gpus[t.gpu].board.cooler in BOTTOM_INTAKE and not ctx.build.case.open_frame:
        return [Fix("more intake airflow (front and bottom fans) lowers every card's inlet air")]
    return []


@check("thermal.sandwich", reads=MODEL_READS["thermal"], order=270, section="Heat",
       error="—",
       warning=("an open-air or flow-through card with no free slot under it, or less than one slot of room over "
                "the PSU shroud, a drive cage or the floor"),
       evidence="vendor spacing advice; the same measurement")
def sandwich(ctx: Context) -> list[Finding]:
    """Open-air (and flow-through) cards with no free slot below them breathe the next card's exhaust, or,
    right over the PSU shroud, a drive cage or the floor, their own."""
    findings = []
    for t in ctx.thermal.gpus:
        if t.sandwiched_by is None:
            continue
        board = ctx.build.gpus[t.gpu].board
        below = ctx.build.gpus[t.sandwiched_by].board
        findings.append(sandwich.finding(
            severity="warning",
            message=f"GPU{t.gpu + 1} ({board.name}, {board.cooler} cooler) sits directly on GPU{t.sandwiched_by + 1}"
                    f" ({below.name}) with no free slot between them: it draws that card's exhaust "
                    f"({_inlet(t)}) and cools {_worse(params.SANDWICH_PENALTY)}{_side_panel(ctx, t)}."
                    if ctx.wording else "",
            subject=[f"GPU{t.gpu + 1}", f"GPU{t.sandwiched_by + 1}", board.id],
            value=round(t.inlet_c, 1), unit="°C",
            fixes=[Fix("leave a free slot between open-air cards (another slot, or a riser to a vertical mount), "
                       "or use blower cards")] if ctx.propose_fixes else []))
    for t in ctx.thermal.gpus:
        if t.floor is None:
            continue
        board = ctx.build.gpus[t.gpu].board
        findings.append(sandwich.finding(
            severity="warning",
            message=f"GPU{t.gpu + 1} ({board.name}, {board.cooler} cooler) draws its air from below, but its fans "
                    f"face {t.floor.what} {t.floor.gap_mm:.0f} mm away, less than one free slot "
                    f"({params.STARVED_INTAKE_GAP.value:.0f} mm): part of its own exhaust comes back into its intake "
                    f"({_inlet(t)}) and it cools {_worse(params.FLOOR_STARVED_PENALTY)}{_assumed(t)}"
                    f"{_side_panel(ctx, t)}." if ctx.wording else "",
            subject=[f"GPU{t.gpu + 1}", ctx.build.case.id, board.id],
            value=round(t.floor.gap_mm), limit=params.STARVED_INTAKE_GAP.value, unit="mm",
            fixes=_cooling_advice(ctx, t)))
    unknown = [t for t in ctx.thermal.gpus if t.where == "unknown"]
    open_air = [t for t in ctx.thermal.gpus if ctx.build.gpus[t.gpu].board.cooler in BOTTOM_INTAKE]
    if unknown and len(open_air) > 1:
        labels = [f"GPU{t.gpu + 1}" for t in unknown]
        findings.append(sandwich.finding(
            severity="info",
            message=f"{', '.join(labels)} {'has' if len(labels) == 1 else 'have'} no slot yet, so whether cards "
                    "that draw their air from below sit without a free slot under them is unknown; their "
                    "temperatures assume well-mixed case air and no neighbour.",
            subject=labels))
    return findings


@check("thermal.passive", reads={"gpus", "case"}, order=280, section="Heat",
       error="a passive datacenter card in a chassis without server airflow",
       warning="—",
       evidence="the cards' cooling requirements")
def passive(ctx: Context) -> list[Finding]:
    """Passive (datacenter) cards need a chassis that forces air through them."""
    build = ctx.build
    if build.case.server_airflow:
        return []
    boards: dict[str, list[str]] = {}
    for gpu in build.gpus:
        if gpu.board.cooler == "passive":
            boards.setdefault(gpu.board.id, []).append(f"GPU{gpu.index + 1}")
    findings = []
    for board_id, labels in boards.items():
        board = next(g.board for g in build.gpus if g.board.id == board_id)
        findings.append(passive.finding(
            severity="error",
            message=f"The {board.name} ({', '.join(labels)}) is passively cooled: it relies on a server chassis "
                    f"forcing air through its fins, which the {build.case.name} does not do; it would overheat "
                    "and shut down under load.",
            subject=[*labels, board_id, build.case.id],
            fixes=_server_cases(ctx) if ctx.propose_fixes else []))
    return findings


def _server_cases(ctx: Context) -> list[Fix]:
    """Up to two cheapest catalog chassis with server airflow that take the board, verified."""
    build = ctx.build
    longest = max(g.board.length for g in build.gpus)
    candidates = [c for c in ctx.catalog.all("case", curated=True)
                  if isinstance(c, Case) and c.server_airflow and takes_board(c, build.motherboard.form_factor)
                  and c.max_gpu_length >= longest]
    candidates.sort(key=lambda c: (c.price is None, c.price or 0.0, c.id))
    tries = ((f"use the {case.name} ({case.id}{price_text(case)}): server airflow",
              [Change(path="case", value=case.id)]) for case in candidates)
    fixes = ctx.first_verified(tries, "thermal.passive", wanted=2, most=4)
    if fixes or not candidates:
        return fixes
    # the chassis takes only its own PSU modules, which the catalog does not list: say so rather than stay silent
    case = candidates[0]
    return [Fix(description=f"use the {case.name} ({case.id}{price_text(case)}): server airflow, with the PSU "
                            "modules its bays take in place of the build's PSUs (the catalog lists no such modules, "
                            "so this is not re-checked)")]


# the case air alone: no placement, no PSU
@check("thermal.case", reads=MODEL_READS["budget"] | {"case", "ambient"}, order=290, section="Heat",
       error=("the case air rises more than 15 °C over the room on known intake airflow; a case sold without fans "
              "with `fans = 0` (no fan moves air)"),
       warning=("more than 10 °C; over 15 °C on assumed fans (the catalog does not know the case's stock intake); "
                "`fans = 0` in a case whose 0 CFM is an estimate"),
       evidence="the thresholds are a planner choice, not a measured failure point (see below)")
def case_air(ctx: Context) -> list[Finding]:
    """The case air's rise over the room from the heat released inside and the intake airflow."""
    air = ctx.thermal.case
    if air.rise_c is None:
        return [_no_airflow(ctx)]
    if air.open_frame or air.rise_c <= params.CASE_RISE_WARNING.value:
        return []
    build = ctx.build
    over = air.rise_c > params.CASE_RISE_ERROR.value
    hard = over and not air.intake_unknown  # an error rests on the case's known intake, not on assumed fans
    gpu_heat = air.heat_w - ctx.budget.rest
    fans = f"{air.assumed_fans} fans of {num(params.ASSUMED_INTAKE_FAN.value)} CFM are assumed"
    if air.intake_unknown:
        fans = f"; the catalog does not know the {build.case.name}'s stock intake fans, so {fans}"
    elif air.assumed_fans:
        fans = f"; the {build.case.name} ships without intake fans, so {fans}"
    else:
        fans = ""
    if hard:
        verdict = "everything inside runs hot."
    elif over:
        verdict = ("everything inside would run hot; a warning, not an error, because it rests on the assumed fans"
                   " (state the case's intake airflow to check it).")
    else:
        verdict = f"keep it under {params.CASE_RISE_WARNING.value:g} °C for cool cards and CPU."
    message = (f"The case air rises {air.rise_c:.1f} °C over the {_celsius(build.ambient)} room: {watts(air.heat_w)} "
               f"of heat inside the case (GPUs {watts(gpu_heat)}, CPU and the rest {watts(ctx.budget.rest)}) on "
               f"about {num(air.airflow_cfm)} CFM of real intake airflow ({num(air.rated_airflow_cfm)} CFM rated × "
               f"{percent(params.EFFECTIVE_AIRFLOW_FRACTION.value)}){fans}; {verdict}") if ctx.wording else ""
    fixes: list[Fix] = []
    if ctx.propose_fixes:
        if airflow := _airflow_fix(ctx):  # first: more fans cost no throughput
            fixes.append(airflow)
        if over:  # for a warning, cutting the GPUs' speed to warm the case less is rarely worth it
            fixes.extend(_thermal_fix(ctx, "thermal.case",
                                      f"keeps the case air rise under {params.CASE_RISE_WARNING.value:g} °C",
                                      lambda thermal: thermal.case.rise_c is not None
                                      and thermal.case.rise_c <= params.CASE_RISE_WARNING.value))
    return [case_air.finding(
        severity="error" if hard else "warning", message=message, subject=[build.case.id],
        value=round(air.rise_c, 1),
        limit=params.CASE_RISE_ERROR.value if hard else params.CASE_RISE_WARNING.value, unit="°C", fixes=fixes)]


def _no_airflow(ctx: Context) -> Finding:
    """An enclosed case that ships without fans, in a build that says it has none: nothing but the cards' and
    the PSU's own fans moves the heat out, and the model has no figure for the case air or the cards."""
    build, air = ctx.build, ctx.thermal.case
    fix = _airflow_fix(ctx) if ctx.propose_fixes else None
    # that it ships without fans is then an assumption (judged as sourced when the solver chooses)
    estimated = "intake_airflow" in build.case.estimated and not ctx.settings.estimates_as_sourced
    return case_air.finding(
        severity="warning" if estimated else "error",
        message=f"No fan moves air through the case: the {build.case.name} ships without intake fans"
                f"{' (an estimate: check what it ships with)' if estimated else ''} and [extras] says fans = 0, "
                f"so the {watts(air.heat_w)} of heat released inside (GPUs {watts(air.heat_w - ctx.budget.rest)}, "
                f"CPU and the rest {watts(ctx.budget.rest)}) has no forced way out; the case air and the cards' "
                "temperatures cannot be predicted.",
        subject=[build.case.id], value=0, limit=None, unit="CFM", fixes=[fix] if fix else [])


def _airflow_fix(ctx: Context) -> Fix | None:
    """More intake fans, stated as the case's rated intake airflow in the build file (verified)."""
    case_ref = ctx.build.raw.get("case")
    if isinstance(case_ref, dict) and isinstance(case_ref.get("base"), str):  # an inline case on a catalog base
        fields = {key: value for key, value in case_ref.items() if key != "intake_airflow"}
    elif isinstance(case_ref, str):
        fields = {"base": case_ref}
    else:
        return None
    air = ctx.thermal.case
    needed = params.AIR_HEATING.value * air.heat_w / params.CASE_RISE_WARNING.value
    rated = -(-needed / params.EFFECTIVE_AIRFLOW_FRACTION.value // 10) * 10  # round up to 10 CFM
    value = {**fields, "intake_airflow": f"{rated:g} cfm"}
    table = ", ".join([*(f"{key} = {json.dumps(field)}" for key, field in fields.items()),
                       f"intake_airflow = \"{num(rated)} cfm\""])
    simple = all(isinstance(field, str | int | float) for field in fields.values())
    shown = f"case = {{ {table} }}" if simple and len(table) <= 120 else \
        f"intake_airflow = \"{num(rated)} cfm\" in the build's inline case"
    return ctx.fix(f"fit more intake fans: about {num(rated)} CFM of rated intake airflow (now "
                   f"{num(air.rated_airflow_cfm)} CFM); tell the planner with {shown}",
                   [Change(path="case", value=value)], "thermal.case")
