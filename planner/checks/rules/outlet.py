"""Wall outlets and circuits: sustained wall draw against the continuous limit, transient peaks against the breaker, and
each PSU's AC inlet and cord against its outlet (docs/verdicts.md `outlet.*`, README: Efficiency and wall draw, README:
Outlets and circuits)."""

from __future__ import annotations

from collections.abc import Callable

from planner.checks.engine.context import MODEL_READS, Context
from planner.checks.engine.findings import Finding, Fix, Severity
from planner.checks.engine.registry import check
from planner.checks.power_fixes import limit_cut_fix, move_psu_fix, outlet_fixes, second_circuit_fix
from planner.checks.rules.psu.headroom import psu_name
from planner.models.parts import Outlet
from planner.physics import params
from planner.physics.efficiency import efficiency, wall_draw
from planner.physics.transients import excursion
from planner.physics.wall import CircuitDraw, Cord, cord_for
from planner.util.fmt import num, percent, watts


def _circuit_label(circuit: CircuitDraw) -> str:
    o = circuit.outlet
    return f"circuit {circuit.name!r} ({o.standard}, {num(o.voltage)} V / {num(o.breaker_current)} A)"


def _gpus_on(ctx: Context, circuit: CircuitDraw) -> list[int]:
    return [g for p in circuit.psus for g in ctx.power_split.psus[p].gpus]


def _wall_after_cut(ctx: Context, circuit: CircuitDraw, cut: float, *, peak: bool = False) -> float:
    """The circuit's wall draw with every GPU on it `cut` watts lower (sustained, or at the transient peak)."""
    total = circuit.other_load
    for p in circuit.psus:
        share = ctx.power_split.psus[p]
        gpus = [ctx.build.gpus[i] for i in share.gpus]
        drop = cut * sum(excursion(g).ratios[params.PEAK_WINDOW] for g in gpus) if peak else cut * len(gpus)
        dc = (share.peak if peak else share.load) - drop
        total += wall_draw(dc, share.rating, ctx.build.psus[p].part.efficiency, circuit.outlet.voltage)
    return total


def _breaker_rule(circuit: CircuitDraw) -> str:
    """What the breaker must hold and when it must trip, by the standard of the circuit's region."""
    if circuit.outlet.region in params.NORTH_AMERICA:
        return f"UL 489: it must trip at {percent(params.BREAKER_TRIPS_NA.value)} of its rating within an hour"
    return (f"IEC 60898-1: it must trip at {percent(params.BREAKER_TRIPS_IEC.value)} of its rating within an"
            " hour")


def _carries(ctx: Context, circuit: CircuitDraw) -> str:
    """'1,974 W at the wall (1,777 W DC through the Corsair AX1600i at 90 % efficiency; plus 60 W of other load)'."""
    parts = []
    for p, wall in zip(circuit.psus, circuit.psu_wall, strict=True):
        share = ctx.power_split.psus[p]
        efficiency = f" at {percent(share.load / wall)} efficiency" if wall > 0 else ""
        parts.append(f"{watts(share.load)} DC through {psu_name(ctx, p)}{efficiency}")
    if circuit.other_load:
        parts.append(f"{watts(circuit.other_load)} of other load" if parts else
                     f"{watts(circuit.other_load)} of other load, no PSU of this build")
    return f"{watts(circuit.wall)} at the wall ({'; '.join(parts)})" if parts else f"{watts(circuit.wall)} at the wall"


@check("outlet.continuous", reads=MODEL_READS["power_split"], order=210, section="The wall",
       error=("the circuit's sustained wall draw (DC ÷ efficiency, plus other load) is over its breaker's rating: "
              "\"the breaker will trip\""),
       warning=("over the continuous limit (NEC 80 % for loads of three hours or more in North America; the stated"
                " regional practice elsewhere, marked when it is an estimate): the breaker holds it, but long runs"
                " can nuisance-trip in a warm panel"),
       evidence=("UL 489 (holds 100 %, trips at 135 % within an hour), IEC 60898-1 (1.13 × held, 1.45 × trips "
                 "within an hour); NEC 210.23(A)(1)"))
def outlet_continuous(ctx: Context) -> list[Finding]:
    """Each circuit's sustained wall draw (DC ÷ efficiency, plus other load) against its breaker rating (error) and
    the continuous limit for multi-hour loads (warning)."""
    findings = []
    for circuit in ctx.power_split.circuits:
        limit, breaker = circuit.continuous_limit, circuit.breaker_rating * params.BREAKER_HOLDS.value
        if circuit.wall <= limit:
            continue
        severity: Severity
        if circuit.wall > breaker:
            severity, shown_limit = "error", breaker
        else:
            severity, shown_limit = "warning", limit
        message = _continuous_message(ctx, circuit, limit, breaker) if ctx.wording else ""
        findings.append(outlet_continuous.finding(
            severity=severity, message=message,
            subject=[circuit.name, circuit.outlet.id], value=circuit.wall, limit=shown_limit, unit="W",
            fixes=_continuous_fixes(ctx, circuit, limit)))
    return findings


def _continuous_message(ctx: Context, circuit: CircuitDraw, limit: float, breaker: float) -> str:
    label = _circuit_label(circuit)
    label = label[0].upper() + label[1:]
    if circuit.wall > breaker:
        return (f"{label} would carry {_carries(ctx, circuit)}: {percent(circuit.wall / breaker)} of its"
                f" {watts(breaker)} breaker rating. A breaker is only required to hold its rating"
                f" ({_breaker_rule(circuit)}), so it will trip under sustained load.")
    estimated = "; an estimate of local practice" if "continuous_factor" in circuit.outlet.estimated else ""
    return (f"{label} would carry {_carries(ctx, circuit)}: {percent(circuit.wall / limit)} of its"
            f" {watts(limit)} continuous limit ({circuit.outlet.continuous_source}{estimated}) and"
            f" {percent(circuit.wall / breaker)} of its {watts(breaker)} breaker rating. The breaker"
            " holds its rating, so this alone will not trip it; but the limit is the rule for loads of"
            " three hours or more, such as a training run, and a breaker loaded past it can trip in a"
            " warm panel or when anything else on the circuit switches on. For long runs, lower the"
            " power limits or use a bigger circuit.")


def _continuous_fixes(ctx: Context, circuit: CircuitDraw, allowed: float) -> list[Fix]:
    if not ctx.propose_fixes:
        return []
    fixes = []
    if move := move_psu_fix(ctx, circuit.name, "outlet.continuous"):
        fixes.append(move)
    limit = limit_cut_fix(ctx, _gpus_on(ctx, circuit), lambda cut: _wall_after_cut(ctx, circuit, cut) <= allowed,
                          "outlet.continuous", f"; the circuit then draws {watts(allowed)} or less at the wall")
    if limit:
        fixes.append(limit)
    fixes.extend(outlet_fixes(ctx, circuit.name, "outlet.continuous"))
    if circuit.psus and (second := second_circuit_fix(ctx, circuit.name, "outlet.continuous")):
        fixes.append(second)
    return fixes


@check("outlet.peak", reads=MODEL_READS["power_split"], order=220, section="The wall",
       error="—",
       warning=("the wall draw with every card at its 1–5 ms excursion passes 3 × the breaker rating, where a type"
                " B breaker's instantaneous trip may act (info when it is only over the rating: the breaker rides "
                "it)"),
       evidence="IEC 60898-1 instantaneous trip classes; thermal trip needs seconds to minutes")
def outlet_peak(ctx: Context) -> list[Finding]:
    """Each circuit's wall draw with coincident GPU transients against its breaker: over the rating it rides
    through (info); over the lowest instantaneous trip it may trip at once (warning)."""
    findings = []
    instant = params.BREAKER_INSTANT_TRIP.value
    for circuit in ctx.power_split.circuits:
        breaker = circuit.breaker_rating
        if not circuit.psus or circuit.peak_wall <= breaker:
            continue
        head = (f"With every GPU at its transient peak together (milliseconds), {_circuit_label(circuit)} would"
                f" draw {watts(circuit.peak_wall)} at the wall, {percent(circuit.peak_wall / breaker)} of its"
                f" {watts(breaker)} breaker rating") if ctx.wording else ""
        if circuit.peak_wall <= breaker * instant:
            findings.append(outlet_peak.finding(
                severity="info",
                message=f"{head}; the breaker rides through it (its thermal trip needs seconds to minutes at that"
                        f" level, its instantaneous trip {num(instant)} × its rating or more)." if ctx.wording else "",
                subject=[circuit.name, circuit.outlet.id], value=circuit.peak_wall, limit=breaker * instant,
                unit="W"))
            continue
        findings.append(outlet_peak.finding(
            severity="warning",
            message=f"{head}: past {num(instant)} × its rating, where a type B breaker's instantaneous trip may"
                    " act; the machine may lose power on a load step." if ctx.wording else "",
            subject=[circuit.name, circuit.outlet.id], value=circuit.peak_wall, limit=breaker * instant, unit="W",
            fixes=[fix] if (fix := limit_cut_fix(ctx, _gpus_on(ctx, circuit), _fits_breaker(ctx, circuit, instant),
                                                 "outlet.peak", "")) else []))
    return findings


@check("outlet.inlet", reads=MODEL_READS["power_split"], order=230, section="The wall",
       error=("a PSU's current over its plug's or inlet coupler's rating; a 200–240 V-only unit on a 100–127 V "
              "circuit"),
       warning="— (multi-hour loads over the continuous limit are `outlet.continuous`'s warning)",
       evidence="NEMA/BS/IEC 60320 plug and coupler ratings, the PSU's input range")
def outlet_inlet(ctx: Context) -> list[Finding]:
    """Each PSU's AC input against its circuit: the voltage it accepts, and the current its inlet and cord carry."""
    findings = []
    for circuit in ctx.power_split.circuits:
        outlet = circuit.outlet
        for p, wall in zip(circuit.psus, circuit.psu_wall, strict=True):
            part = ctx.build.psus[p].part
            if part.min_input_voltage is not None and outlet.voltage < part.min_input_voltage:
                name = psu_name(ctx, p)
                findings.append(outlet_inlet.finding(
                    severity="error",
                    message=f"{name[0].upper()}{name[1:]} runs only on {num(part.min_input_voltage)} V or more, but"
                            f" {_circuit_label(circuit)} supplies {num(outlet.voltage)} V; it will not power up.",
                    subject=[part.id, circuit.name], value=outlet.voltage, limit=part.min_input_voltage, unit="V",
                    fixes=_voltage_fixes(ctx, circuit, part.min_input_voltage)))
                continue
            cord = cord_for(part, outlet)
            current = wall / outlet.voltage
            if current <= cord.current:
                continue
            message = _inlet_message(ctx, p, cord, outlet, current, wall) if ctx.wording else ""
            share = ctx.power_split.psus[p]
            allowed = cord.current * outlet.voltage
            fixes = []
            fix = limit_cut_fix(
                ctx, share.gpus,
                _fits_cord(ctx, p, allowed, circuit.outlet.voltage),
                "outlet.inlet", f"; it then draws {num(cord.current)} A or less")
            if fix:
                fixes.append(fix)
            fixes.extend(outlet_fixes(ctx, circuit.name, "outlet.inlet"))
            findings.append(outlet_inlet.finding(
                severity="error", message=message, subject=[part.id, circuit.name],
                value=round(current, 2), limit=cord.current, unit="A", fixes=fixes))
    return findings


def _inlet_message(ctx: Context, p: int, cord: Cord, outlet: Outlet, current: float, wall: float) -> str:
    name = psu_name(ctx, p)
    limited_by = (f"its {outlet.standard} plug is rated {num(cord.current)} A" if cord.plug_limited else
                  f"the {cord.coupler}/{cord.inlet} coupler is rated {num(cord.current)} A"
                  + (" in North America" if outlet.region in params.NORTH_AMERICA else ""))
    return (f"{name[0].upper()}{name[1:]} ({cord.inlet} inlet) would draw {num(current, 1)} A"
            f" ({watts(wall)} at {num(outlet.voltage)} V) through its {cord.coupler} cord, but"
            f" {limited_by}; the cord and plug overheat.")


def _fits_breaker(ctx: Context, circuit: CircuitDraw, multiple: float) -> Callable[[float], bool]:
    def fits(cut: float) -> bool:
        return _wall_after_cut(ctx, circuit, cut, peak=True) <= circuit.breaker_rating * multiple

    return fits


def _fits_cord(ctx: Context, psu: int, allowed: float, voltage: float) -> Callable[[float], bool]:
    share = ctx.power_split.psus[psu]
    grade = ctx.build.psus[psu].part.efficiency

    def fits(cut: float) -> bool:
        dc = share.load - cut * len(share.gpus)
        return dc / efficiency(grade, dc / share.rating, voltage) <= allowed

    return fits


def _voltage_fixes(ctx: Context, circuit: CircuitDraw, volts: float) -> list[Fix]:
    if not ctx.propose_fixes:
        return []
    fixes = outlet_fixes(ctx, circuit.name, "outlet.inlet", min_voltage=volts)
    if move := move_psu_fix(ctx, circuit.name, "outlet.inlet"):
        fixes.insert(0, move)
    return fixes
