"""Multi-PSU builds: each GPU fed by one PSU, no PSU or circuit over its share; when no split works, the
max-flow/min-cut of the delivery network names the bottleneck (docs/verdicts.md `psu.split`, README: DC budget). And
what any build with two or more PSUs needs to run them safely (`psu.multi`).

Sources for psu.multi's advice: a second ATX PSU only starts when something pulls its PS_ON low, so builders use
an add2psu-style relay board (or a dual-PSU cable) that starts it with the board's PSU (cryptogulch.com glossary
'PSU'; peerip.com, 'Configuring dual Corsair HX1600i PSUs with an Add2PSU relay'); two independent supplies
driving the same 12 V inputs of one card regulate against each other (geerlingguy/raspberry-pi-pcie-devices #6),
so each card's inputs come from one unit; a card's slot draws up to 75 W (PCIe CEM) from the board, i.e. from the
board's PSU, unless a powered riser or remote-mount adapter (C-Payne's SlimSAS device adapter takes its own
power) feeds the slot from the card's PSU.
"""

from __future__ import annotations

from planner.checks.engine.context import MODEL_READS, Context
from planner.checks.engine.findings import Change, Finding, Fix
from planner.checks.engine.registry import check
from planner.checks.power_fixes import move_psu_fix, outlet_fixes, replacement_psus, second_circuit_fix
from planner.models.parts import SLOT_WATTS, Psu
from planner.physics.connectors import PCIE, shortage_words, usable_plugs
from planner.physics.delivery import BOARD_PSU, PsuShare
from planner.util.fmt import gpu_labels, names, percent, watts


@check("psu.split", reads=MODEL_READS["power_split"], order=190, section="Power",
       error=("with several PSUs, no way to feed each card from one PSU within every PSU's rating, its plugs and "
              "every circuit's breaker rating; the min-cut names the bottleneck"),
       warning="— (a split over a circuit's continuous limit is `outlet.continuous`'s warning)",
       evidence="ratings, plug counts, breaker ratings")
def psu_split(ctx: Context) -> list[Finding]:
    """With several PSUs: a split of the GPUs that keeps every PSU within its rating and plugs and every
    circuit within its limit; otherwise the bottleneck, by name."""
    build, split = ctx.build, ctx.power_split
    if len(build.psus) < 2 or split.feasible:
        return []
    if not ctx.wording and not ctx.propose_fixes:  # weighed by code, severity and subject only (a re-check, an
        # optimiser's trial, the solver's candidates): the bottleneck's max-flow names what nobody reads
        return [psu_split.finding(severity="error", message="",
                        subject=[p.part.id for p in build.psus])]
    from planner.physics.delivery_graph import bottleneck, describe, shortfall  # networkx: only here

    found = bottleneck(build, ctx.budget)
    pinned = [g.index for g in build.gpus if g.psu is not None]
    pins = f" ({gpu_labels(pinned)} stay on the PSU their psu = N names)" if pinned else ""
    if found is not None:
        message = (f"The {len(build.psus)} PSUs cannot feed every GPU{pins}: the bottleneck is {describe(found)};"
                   f" {shortfall(found)}.")
        subject, value, limit, unit = list(found.subject), found.wanted, found.deliverable, found.unit
    else:
        worst = max(split.psus, key=lambda s: s.fraction)
        short = [words for s in split.psus for words in shortage_words(s.plugs.short)]
        circuit = max(split.circuits, key=lambda c: c.wall / c.breaker_rating)
        problem = (f"PSU {worst.psu + 1} would carry {watts(worst.load)} of its {watts(worst.rating)}"
                   if worst.fraction > 1 else
                   f"circuit {circuit.name!r} would draw {watts(circuit.wall)} at the wall, "
                   f"{percent(circuit.wall / circuit.breaker_rating)} of its breaker rating"
                   if circuit.wall > circuit.breaker_rating else f"{names(short)} would be missing")
        message = (f"The {len(build.psus)} PSUs have the watts and plugs in total, but whole cards cannot be shared"
                   f" out between them{pins}: in the best split {problem}.")
        subject = [p.part.id for p in build.psus]
        value, limit, unit = worst.load, worst.rating, "W"
    return [psu_split.finding(severity="error", message=message, subject=subject, value=value, limit=limit,
                    unit=unit, fixes=_fixes(ctx, found.kind if found else "split", subject,
                                            found.circuits if found else ()))]


def _fixes(ctx: Context, kind: str, subject: list[str], circuits: tuple[str, ...]) -> list[Fix]:
    if not ctx.propose_fixes:
        return []
    build, split = ctx.build, ctx.power_split
    fixes: list[Fix] = []
    if kind == "circuit":
        # the limiting circuit by name: another circuit with the same outlet (one with no PSU, say) is not it
        for name in circuits[:1]:
            if move := move_psu_fix(ctx, name, "psu.split"):
                fixes.append(move)
            fixes.extend(outlet_fixes(ctx, name, "psu.split"))
            if second := second_circuit_fix(ctx, name, "psu.split"):
                fixes.append(second)
        return fixes
    if unpin := _unpin_fix(ctx):
        fixes.append(unpin)
    needed = (sum(g.power_limit for g in build.gpus) + ctx.budget.rest) / len(build.psus) / ctx.settings.psu_target
    for share in split.psus:
        if build.psus[share.psu].part.id in subject and (better := _better_psu(ctx, share, kind, needed)):
            fixes.append(better)
            break
    return fixes


def _better_psu(ctx: Context, share: PsuShare, kind: str, needed: float) -> Fix | None:
    """A bigger unit, or one with more PCIe plugs, in place of a limiting PSU."""
    current = ctx.build.psus[share.psu].part

    def better(psu: Psu, rating: float) -> bool:
        if kind == "connectors":  # more PCIe plugs it can feed at once (its shared sockets allowing)
            return usable_plugs(psu, PCIE) > usable_plugs(current, PCIE)
        return rating > share.rating and rating >= needed

    def what(psu: Psu, rating: float) -> str:
        sockets = f" on {psu.shared_sockets} shared sockets" if psu.shared_sockets is not None else ""
        return f"{watts(rating)}, {psu.connectors.pcie_8pin} PCIe 8-pin plugs{sockets}"

    found = replacement_psus(ctx, share.psu, better, "psu.split", what, wanted=1, tries=3)
    return found[0] if found else None


def _unpin_fix(ctx: Context) -> Fix | None:
    """Drop the build's `psu = N` pins and let the split choose (the whole [[gpu]] list, rewritten without them)."""
    raw = ctx.build.raw.get("gpu", [])
    pinned = [i for i, spec in enumerate(raw) if "psu" in spec]
    if not pinned:
        return None
    gpus = [{k: v for k, v in spec.items() if k != "psu"} for spec in raw]
    labels = gpu_labels(g.index for g in ctx.build.gpus if g.spec_index in pinned)
    return ctx.fix(f"remove psu = N from {labels} and let the planner choose which PSU feeds each card",
                   [Change("gpu", gpus)], "psu.split")


@check("psu.multi", reads=MODEL_READS["power_split"] | {"risers"}, order=200, section="Power",
       error="—",
       warning=("every build with two or more PSUs: what running them needs (a sync relay/add2psu or a dual-PSU "
                "case, each card's cables from one PSU, the slot's 75 W from the board's PSU unless a powered "
                "riser feeds it, power-on order)"),
       evidence="add2psu and riser makers' notes (weak sources, listed in the module)")
def several_psus(ctx: Context) -> list[Finding]:
    """With two or more PSUs: what running them in one machine needs (start-up sync, one PSU per card, order)."""
    build, split = ctx.build, ctx.power_split
    if len(build.psus) < 2:
        return []
    others = [p.index + 1 for p in build.psus if p.index != BOARD_PSU]
    one = len(others) == 1
    them = "it" if one else "them"
    starts = f"PSU {others[0]} only starts" if one else f"PSUs {names([str(n) for n in others])} only start"
    off_board = [g for g in build.gpus if split.gpu_psu[g.index] != BOARD_PSU]
    slots = ""
    if off_board:
        numbers = sorted({split.gpu_psu[g.index] + 1 for g in off_board})
        feeders = f"PSU {numbers[0]}" if len(numbers) == 1 else f"PSUs {names([str(n) for n in numbers])}"
        on_risers = [g.index for g in off_board if g.riser is not None]
        one_card = len(off_board) == 1
        slots = (f" {gpu_labels(g.index for g in off_board)} {'takes its' if one_card else 'take their'} cables from"
                 f" {feeders} but up to {watts(SLOT_WATTS)}{'' if one_card else ' each'} through the slot from"
                 f" PSU {BOARD_PSU + 1}, the board's: "
                 + (f"where the risers of {gpu_labels(on_risers)} take power of their own, feed it from {feeders}"
                    " so each card stays on one supply." if on_risers else
                    "a powered riser or remote-mount adapter fed from the card's own PSU keeps each card on one"
                    " supply."))
    return [several_psus.finding(
        severity="warning",
        message=f"This build runs {len(build.psus)} PSUs: {starts} when something switches {them} on, so it needs an"
                f" add2psu-style sync relay board (or a dual-PSU case or board that starts every unit) to start {them}"
                f" with PSU {BOARD_PSU + 1}. Each card's cables come from one PSU (the planner's split does this; never"
                f" mix two units on one card).{slots} Plug every PSU's cord in before pressing the power button, let"
                " the relay start them together, and never run a card with one of its supplies on and the other off.",
        subject=list(dict.fromkeys(p.part.id for p in build.psus)))]
