"""Fixes shared by the power and outlet checks: a lower power limit computed from the model, another PSU from
the curated catalog, a bigger or 240 V circuit, moving a PSU to another circuit, a second circuit.

Every fix goes through `Context.fix`, which re-checks the changed build and drops the fix when it does not
clear the finding or adds an error: a description here may promise only what that re-check confirms.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from planner.checks.case_fit import cases_for
from planner.checks.engine.context import Context
from planner.checks.engine.findings import Change, Fix
from planner.models.parts import Outlet, Psu
from planner.physics import params
from planner.physics.power import rated_watts, runs_on
from planner.util.fmt import gpu_labels, price_text, watts

if TYPE_CHECKING:
    from planner.catalog import Catalog

STEP_W = params.POWER_LIMIT_STEP.value  # power limits are proposed in 5 W steps (README: Power-limit optimiser)


def limit_cut_fix(ctx: Context, gpus: Iterable[int], fits: Callable[[float], bool], code: str,
                  effect: str) -> Fix | None:
    """The smallest equal cut (in 5 W steps) of the power limits of `gpus` for which `fits(cut)` holds,
    as a fix. `fits` evaluates the model with every one of those cards `cut` watts lower; it must be
    monotone. None when the cards cannot go low enough or no fix is wanted."""
    chosen = sorted(set(gpus))
    if not chosen or not ctx.propose_fixes:
        return None
    build = ctx.build
    # the cards of [[gpu]] tables alike to a chosen card's get the cut too (the split cannot tell them apart, and
    # a table with count = N cuts all N): sixteen tables of one card are cut as one table of sixteen
    from planner.checks.limits import alike_tables

    tables = {build.gpus[i].spec_index for i in chosen}
    tables = {t for members in alike_tables(build).values() if tables & set(members) for t in members}
    chosen = [g.index for g in build.gpus if g.spec_index in tables]
    room = min(build.gpus[i].power_limit - build.gpus[i].board.power_limit_min for i in chosen)
    steps = int(room // STEP_W)
    if steps < 1 or not fits(steps * STEP_W):
        return None
    low, high = 0, steps  # fits(high·step) holds; find the least such step count
    while high - low > 1:
        mid = (low + high) // 2
        if fits(mid * STEP_W):
            high = mid
        else:
            low = mid
    cut = high * STEP_W
    changes = []
    for spec_index in sorted({build.gpus[i].spec_index for i in chosen}):
        limit = next(g.power_limit for g in build.gpus if g.spec_index == spec_index)
        changes.append(Change(path=f"gpu[{spec_index}].power_limit", value=f"{limit - cut:g} W"))
    values = ", ".join(sorted({c.value for c in changes}))
    affected = [g.index for g in build.gpus if g.spec_index in {build.gpus[i].spec_index for i in chosen}]
    return ctx.fix(f"set power_limit = {values} on {gpu_labels(affected)} (−{watts(cut)} each{effect}; costs some"
                   " throughput, see power-limit.cost)", changes, code)


def replacement_psus(ctx: Context, psu_index: int, accept: Callable[[Psu, float], bool], code: str,
                     what: Callable[[Psu, float], str], wanted: int = 2, tries: int = 4) -> list[Fix]:
    """Curated PSUs (cheapest first) that `accept(psu, rating on this circuit)`, offered for `psu[i]` and
    verified; at most `wanted` fixes from `tries` re-checks."""
    if not ctx.propose_fixes:
        return []
    use = ctx.build.psus[psu_index]
    voltage = ctx.build.circuit(use.circuit).outlet.voltage
    # cheapest first; `accept` (a pure test) is asked only until the re-checks have their candidates
    candidates = (psu for rating, psu in _ranked_psus(ctx.catalog, voltage)
                  if psu.id != use.part.id and accept(psu, rating))
    role = "instead" if len(ctx.build.psus) == 1 else f"as PSU {psu_index + 1}"
    attempts = ((f"use the {psu.name} ({psu.id}{price_text(psu)}) {role}: {what(psu, rated_watts(psu, voltage))}",
                 [Change(path=f"psu[{psu_index}].part", value=psu.id)]) for psu in candidates)
    return ctx.first_verified(attempts, code, wanted=wanted, most=tries)


def _ranked_psus(catalog: Catalog, voltage: float) -> tuple[tuple[float, Psu], ...]:
    """The curated PSUs that run on `voltage`, cheapest first (unpriced last, then by rating and id), each with
    its rating there; ranked once per catalog and voltage (every check and re-check with a PSU finding asks)."""
    def rank() -> tuple[tuple[float, Psu], ...]:
        units = [(psu.price is None, psu.price or 0.0, rated_watts(psu, voltage), psu.id, psu)
                 for psu in catalog.all("psu", curated=True) if isinstance(psu, Psu) and runs_on(psu, voltage)]
        units.sort(key=lambda c: c[:4])
        return tuple((rating, psu) for *_, rating, _, psu in units)
    return catalog.derived(("ranked curated psus", voltage), rank)


def _circuit_changes(ctx: Context, name: str, outlet: str) -> list[Change]:
    """Changes that plug circuit `name` into another outlet (creating the [[circuit]] an assumed one lacks)."""
    index = next(i for i, c in enumerate(ctx.build.circuits) if c.name == name)
    if ctx.build.circuits[index].assumed:
        return [Change(path="circuit", value=[{"name": name, "outlet": outlet}])]
    return [Change(path=f"circuit[{index}].outlet", value=outlet)]


def outlet_fixes(ctx: Context, name: str, code: str, min_voltage: float = 0.0) -> list[Fix]:
    """Circuit `name` on a bigger outlet of its region: the smallest that verifies at its own voltage class,
    and the smallest 200–240 V one (a 240 V circuit in North America)."""
    if not ctx.propose_fixes:
        return []
    current = ctx.build.circuit(name).outlet
    regions = {current.region, "intl"}
    candidates = sorted(
        (o for o in ctx.catalog.all("outlet", curated=True)
         if isinstance(o, Outlet) and o.region in regions and o.id != current.id and o.plug_current is not None
         and o.voltage >= max(current.voltage, min_voltage) and o.continuous_limit > current.continuous_limit),
        key=lambda o: (o.continuous_limit, o.id))
    fixes = []
    for high_line in (False, True):
        for outlet in [o for o in candidates if (o.voltage >= params.LOW_LINE_VOLTAGE.value) == high_line][:2]:
            fix = ctx.fix(f"plug circuit {name!r} into a {outlet.standard} outlet ({outlet.id}: {outlet.voltage:g} V,"
                          f" {outlet.breaker_current:g} A, {watts(outlet.continuous_limit)} continuous)",
                          _circuit_changes(ctx, name, outlet.id), code)
            if fix:
                fixes.append(fix)
                break
    return fixes


def move_psu_fix(ctx: Context, name: str, code: str) -> Fix | None:
    """Plug one of the PSUs on circuit `name` into another circuit of the build instead."""
    if not ctx.propose_fixes:
        return None
    build = ctx.build
    for use in reversed([p for p in build.psus if p.circuit == name]):
        for other in build.circuits:
            if other.name == name:
                continue
            fix = ctx.fix(f"plug PSU {use.index + 1} ({use.part.name}) into circuit {other.name!r} instead",
                          [Change(path=f"psu[{use.index}].circuit", value=other.name)], code)
            if fix:
                return fix
    return None


def second_circuit_fix(ctx: Context, name: str, code: str) -> Fix | None:
    """Another circuit like `name` (a different breaker), taking one of its PSUs, or a second PSU when it has
    only one; the split then shares the GPUs out between them. Circuits the build already has come first: a
    second PSU goes on one of them if that verifies, a PSU moves to one of them (move_psu_fix), and a new circuit
    is proposed only when none of them can take it."""
    if not ctx.propose_fixes:
        return None
    build, raw = ctx.build, ctx.build.raw
    circuit = build.circuit(name)
    existing = [c.name for c in build.circuits if c.name != name]
    on = [p for p in build.psus if p.circuit == name]
    if existing and len(on) > 1 and move_psu_fix(ctx, name, code) is not None:
        return None  # moving a PSU onto a circuit the build has is the fix: no new circuit
    if existing and len(on) == 1 and (onto := _second_psu_on_existing(ctx, name, existing, code)):
        return onto
    new_name = next(f"{name}-{n}" for n in range(2, 20) if f"{name}-{n}" not in {c.name for c in build.circuits})
    if circuit.assumed:
        circuits: list[Any] = [{"name": name, "outlet": circuit.outlet.id}]
    else:
        circuits = [dict(c) for c in raw.get("circuit", [])]
    outlet_ref = next((c["outlet"] for c in circuits if c.get("name") == name), circuit.outlet.id)
    circuits.append({"name": new_name, "outlet": outlet_ref})
    psus = [dict(p, circuit=p.get("circuit") or build.psus[i].circuit) for i, p in enumerate(raw["psu"])]
    where = (f"a new {circuit.outlet.standard} circuit on its own breaker ({new_name!r}; the build's "
             f"{'circuit' if len(existing) == 1 else 'circuits'} {', '.join(repr(n) for n in existing)} cannot take it)"
             if existing else f"a second {circuit.outlet.standard} circuit on its own breaker ({new_name!r})")
    if len(on) > 1:
        psus[on[-1].index]["circuit"] = new_name
        return ctx.fix(f"plug PSU {on[-1].index + 1} ({on[-1].part.name}) into {where}",
                       [Change("circuit", circuits), Change("psu", psus)], code)
    for psu in _second_psu_candidates(ctx, on[0].index):
        price = price_text(psu)
        changes = [Change("circuit", circuits), Change("psu", [*psus, {"part": psu.id, "circuit": new_name}])]
        if not _split_works(ctx, changes):
            continue
        fix = ctx.fix(f"add {where} with a second PSU, the {psu.name} ({psu.id}{price}); the planner shares the"
                      " GPUs out between the two PSUs", changes, code)
        if fix:
            return fix
    return None


def _second_psu_on_existing(ctx: Context, name: str, existing: list[str], code: str) -> Fix | None:
    """A second PSU plugged into a circuit the build already has (not `name`), sharing out the GPUs of the one
    PSU on `name`."""
    build = ctx.build
    psus = [dict(p, circuit=p.get("circuit") or build.psus[i].circuit) for i, p in enumerate(build.raw["psu"])]
    on = next(p for p in build.psus if p.circuit == name)
    for other in existing:
        for psu in _second_psu_candidates(ctx, on.index):
            changes = [Change("psu", [*psus, {"part": psu.id, "circuit": other}])]
            if not _split_works(ctx, changes):
                continue
            fix = ctx.fix(f"add a second PSU, the {psu.name} ({psu.id}{price_text(psu)}), plugged into circuit"
                          f" {other!r} (already in the build); the planner shares the GPUs out between the two PSUs",
                          changes, code)
            if fix:
                return fix
    return None


def _split_works(ctx: Context, changes: list[Change]) -> bool:
    """Whether the changed build's GPUs can be shared out over its PSUs. A fix whose split fails is dropped by
    its re-check anyway (psu.split would be a new error); asking first keeps networkx, which that check
    imports to name the bottleneck, out of checking a one-PSU build. The changed build's context (its split
    with it) is the one the fix's re-check then takes (Context.changed)."""
    changed = ctx.changed(changes)
    return changed is not None and changed.power_split.feasible


def _second_psu_candidates(ctx: Context, psu_index: int, tries: int = 3) -> list[Psu]:
    """The cheapest curated PSUs that could carry half of the GPUs on `psu[i]` within the target."""
    share = ctx.power_split.psus[psu_index]
    gpu_load = sum(ctx.build.gpus[i].power_limit for i in share.gpus)
    voltage = ctx.build.circuit(ctx.build.psus[psu_index].circuit).outlet.voltage
    needed = gpu_load / 2 / ctx.settings.psu_target
    found = sorted((p for p in ctx.catalog.all("psu", curated=True)
                    if isinstance(p, Psu) and runs_on(p, voltage) and rated_watts(p, voltage) >= needed),
                   key=lambda p: (p.price is None, p.price or 0.0, p.wattage, p.id))
    return found[:tries]


def high_line_psus(ctx: Context, psu_index: int, accept: Callable[[Psu, float], bool], code: str,
                   what: Callable[[Psu, float], str], wanted: int = 1, tries: int = 3) -> list[Fix]:
    """A bigger PSU that needs a 200–240 V circuit, with that circuit: for a PSU on a 100–120 V circuit when no
    unit rated for the load runs there (2 kW and more are 200–240 V ratings). The circuit becomes the region's
    smallest 200–240 V outlet that takes the PSU; curated PSUs cheapest first."""
    if not ctx.propose_fixes:
        return []
    use = ctx.build.psus[psu_index]
    circuit = ctx.build.circuit(use.circuit)
    if circuit.outlet.voltage >= params.LOW_LINE_VOLTAGE.value:
        return []
    if sum(1 for p in ctx.build.psus if p.circuit == use.circuit) > 1:
        return []  # the circuit's other PSUs would move to 240 V too: not a one-PSU change
    outlets = sorted((o for o in ctx.catalog.all("outlet", curated=True)
                      if isinstance(o, Outlet) and o.region in (circuit.outlet.region, "intl")
                      and o.voltage >= params.LOW_LINE_VOLTAGE.value and o.plug_current is not None),
                     key=lambda o: (o.continuous_limit, o.id))
    if not outlets:
        return []
    outlet = outlets[0]
    units = (psu for rating, psu in _ranked_psus(ctx.catalog, outlet.voltage)
             if psu.id != use.part.id and accept(psu, rating))
    attempts = ((f"use the {psu.name} ({psu.id}{price_text(psu)}) on a {outlet.standard} circuit ({outlet.id}: "
                 f"{outlet.voltage:g} V, {outlet.breaker_current:g} A): {what(psu, rated_watts(psu, outlet.voltage))}",
                 [*_circuit_changes(ctx, use.circuit, outlet.id), Change(path=f"psu[{psu_index}].part", value=psu.id)])
                for psu in units)
    return ctx.first_verified(attempts, code, wanted=wanted, most=tries)


def second_psu_fixes(ctx: Context, psu_index: int, code: str, tries: int = 3) -> list[Fix]:
    """A second PSU beside `psu[i]` that takes over the cards it cannot carry within the target: on the same
    circuit, or (when that circuit cannot take it) on a second circuit of its kind (second_circuit_fix)."""
    if not ctx.propose_fixes:
        return []
    build = ctx.build
    share = ctx.power_split.psus[psu_index]
    use = build.psus[psu_index]
    voltage = build.circuit(use.circuit).outlet.voltage
    target = ctx.settings.psu_target
    loads = sorted((build.gpus[i].power_limit for i in share.gpus), reverse=True)
    rest = share.load - sum(loads)
    keep = 0  # cards the PSU keeps within its target, the biggest first taken by the new one
    while keep < len(loads) and rest + sum(loads[len(loads) - keep - 1:]) <= share.rating * target:
        keep += 1
    moved = sum(loads[:len(loads) - keep])
    if not moved:
        return []
    needed = moved / target
    units = [psu for rating, psu in _ranked_psus(ctx.catalog, voltage) if rating >= needed][:tries]
    psus = [dict(p, circuit=p.get("circuit") or build.psus[i].circuit) for i, p in enumerate(build.raw["psu"])]
    # a case that holds one PSU more: this one, else the cheapest that takes the board and the cards
    room = len(build.psus) < build.case.psu_bays
    cases = [None] if room else [c for c in cases_for(ctx) if c.psu_bays > len(build.psus)][:1]
    circuit = build.circuit(use.circuit)
    names = {c.name for c in build.circuits}
    new_name = next(f"{use.circuit}-{n}" for n in range(2, 20) if f"{use.circuit}-{n}" not in names)
    listed = [{"name": c.name, "outlet": c.outlet.id} for c in build.circuits]
    for case in cases:
        for psu in units:
            for on in (use.circuit, new_name):  # the same circuit, else a second one of its kind
                changes = [Change("circuit", listed if on == use.circuit else
                                  [*listed, {"name": on, "outlet": circuit.outlet.id}]),
                           Change("psu", [*psus, {"part": psu.id, "circuit": on}])]
                where = (f"on circuit {on!r}" if on == use.circuit else
                         f"on a second {circuit.outlet.standard} circuit on its own breaker ({on!r})")
                if case is not None:
                    changes.append(Change("case", case.id))
                    where += f", in the {case.name} ({case.id}{price_text(case)}, {case.psu_bays} PSU mounts)"
                if not _split_works(ctx, changes):
                    continue
                fix = ctx.fix(f"add a second PSU, the {psu.name} ({psu.id}{price_text(psu)}, "
                              f"{watts(rated_watts(psu, voltage))}), {where}, for {len(loads) - keep} of the cards"
                              " (the planner shares the GPUs out between the two PSUs)", changes, code)
                if fix:
                    return [fix]
    return []
