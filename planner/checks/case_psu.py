"""PSUs in the case: how many, of which form factor, and how long (SPEC §3 `case.psu-bays`, `case.psu`).

A case holds its PSUs in mounts (`Case.mounts()`: its `psu_mounts`, else `psu_bays` ATX mounts of
`max_psu_length`). An ATX mount also takes SFX and SFX-L units on an adapter plate; CRPS and server bays take
only their own modules. The build's PSUs are matched to the mounts (a small bipartite matching): first on
form factor alone (`case.psu-bays`), then with lengths where both are published (`case.psu`).
"""

from __future__ import annotations

from collections.abc import Sequence

from planner.checks.case import cases_for
from planner.checks.context import Context
from planner.checks.findings import Change, Finding, Fix
from planner.checks.power_fixes import replacement_psus
from planner.checks.registry import check
from planner.fmt import mm, names, price_text
from planner.models.parts import MOUNT_TAKES, Case, Psu, PsuMount

#: what a case's `estimated` names when its PSU mounts are a guess (imported cases: psu_bays)
_MOUNTS_ESTIMATED = ("psu_bays", "psu_mounts")


def _fits(psu: Psu, mount: PsuMount, lengths: bool) -> bool:
    if psu.form_factor not in MOUNT_TAKES[mount.form_factor]:
        return False
    return not (lengths and psu.length is not None and mount.max_length is not None and psu.length > mount.max_length)


def assign(psus: Sequence[Psu], mounts: Sequence[PsuMount], *, lengths: bool) -> list[int] | None:
    """A mount for each PSU (indices into `mounts`), or None when no assignment exists; `lengths`: a PSU must
    also be no longer than its mount where both lengths are known. Augmenting paths (Kuhn's algorithm)."""
    owner: dict[int, int] = {}  # mount -> psu

    def place(p: int, seen: set[int]) -> bool:
        for m, mount in enumerate(mounts):
            if m in seen or not _fits(psus[p], mount, lengths):
                continue
            seen.add(m)
            if m not in owner or place(owner[m], seen):
                owner[m] = p
                return True
        return False

    if len(psus) > len(mounts) or not all(place(p, set()) for p in range(len(psus))):
        return None
    by_psu = {p: m for m, p in owner.items()}
    return [by_psu[p] for p in range(len(psus))]


def takes_psus(case: Case, psus: Sequence[Psu]) -> bool:
    """Does the case hold all these PSUs (form factors and, where known, lengths)?"""
    return assign(psus, case.mounts(), lengths=True) is not None


def _describe_mounts(case: Case) -> str:
    mounts = case.mounts()
    if not mounts:
        return "no PSU mount"
    kinds: dict[str, int] = {}
    for mount in mounts:
        kinds[mount.form_factor.upper()] = kinds.get(mount.form_factor.upper(), 0) + 1
    return " and ".join(f"{n} {kind} mount{'s' if n > 1 else ''}" for kind, n in kinds.items())


def _psu_label(ctx: Context, index: int) -> str:
    part = ctx.build.psus[index].part
    return f"PSU {index + 1} ({part.name})" if len(ctx.build.psus) > 1 else f"the {part.name}"


def _other_cases(ctx: Context, code: str) -> list[Fix]:
    """Up to two cheapest curated cases that take the board, the longest card and the build's PSUs, verified (the
    re-check also confirms every card still has a slot)."""
    if not ctx.propose_fixes:
        return []
    psus = [p.part for p in ctx.build.psus]
    tries = ((f"use the {case.name} ({case.id}{price_text(case)}): it holds {_describe_mounts(case)}",
              [Change(path="case", value=case.id)])
             for case in cases_for(ctx)
             if takes_psus(case, psus) and not set(_MOUNTS_ESTIMATED) & set(case.estimated))
    return ctx.first_verified(tries, code, wanted=2, most=6)


@check("case.psu-bays")
def psu_bays(ctx: Context) -> list[Finding]:
    """The number and form factor of the PSUs against the case's PSU mounts."""
    build = ctx.build
    case, psus = build.case, [p.part for p in build.psus]
    mounts = case.mounts()
    placed = assign(psus, mounts, lengths=False)
    if placed is not None:
        return _needs(ctx, assign(psus, mounts, lengths=True) or placed)
    guessed = bool(set(_MOUNTS_ESTIMATED) & set(case.estimated))
    caveat = (" The catalog only estimates this case's PSU mounts (check its manual): a warning, not an error."
              if guessed else "")
    if len(psus) > len(mounts):
        problem = (f"The build has {len(psus)} PSUs; the {case.name} holds {len(mounts)} "
                   f"({_describe_mounts(case)}).")
        value, limit = float(len(psus)), float(len(mounts))
    else:
        kinds = ", ".join(sorted({p.form_factor.upper() for p in psus}))
        problem = (f"The build's PSUs are {kinds}; the {case.name} has {_describe_mounts(case)}, and not every PSU"
                   " has a mount its form factor fits (an ATX mount takes SFX units on an adapter plate, not the"
                   " reverse; CRPS and server bays take only their own modules).")
        value, limit = None, None
    return [Finding(
        code="case.psu-bays", severity="warning" if guessed else "error", message=problem + caveat,
        subject=[case.id, *dict.fromkeys(p.part.id for p in build.psus)], value=value, limit=limit,
        unit="PSUs" if value is not None else None,
        fixes=_fewer_psus(ctx, len(mounts)) + _other_cases(ctx, "case.psu-bays"))]


def _fewer_psus(ctx: Context, mounts: int) -> list[Fix]:
    """Keep the first PSUs, as many as the case has mounts (verified: the rest must carry the load)."""
    raw = ctx.build.raw.get("psu", [])
    if not ctx.propose_fixes or not 0 < mounts < len(raw):
        return []
    extra = [str(i + 1) for i in range(mounts, len(raw))]
    dropped = f"PSU {extra[0]}" if len(extra) == 1 else f"PSUs {names(extra)}"
    fix = ctx.fix(f"drop {dropped} and let the {'PSU' if mounts == 1 else f'{mounts} PSUs'} the case holds carry"
                  " the build", [Change("psu", [dict(p) for p in raw[:mounts]])], "case.psu-bays")
    return [fix] if fix else []


def _needs(ctx: Context, placed: list[int]) -> list[Finding]:
    """Info: a mount the build uses that needs something not in the box (a second-PSU bracket)."""
    mounts = ctx.build.case.mounts()
    return [Finding(
        code="case.psu-bays", severity="info",
        message=f"{_psu_label(ctx, p)[0].upper()}{_psu_label(ctx, p)[1:]} goes in the {ctx.build.case.name}'s"
                f" mount {m + 1}, which needs {mounts[m].needs}.",
        subject=[ctx.build.case.id, ctx.build.psus[p].part.id])
        for p, m in enumerate(placed) if mounts[m].needs]


@check("case.psu")
def psu_length(ctx: Context) -> list[Finding]:
    """Each PSU's length against its mount's, where both are published."""
    build = ctx.build
    case, psus = build.case, [p.part for p in build.psus]
    mounts = case.mounts()
    if assign(psus, mounts, lengths=False) is None or assign(psus, mounts, lengths=True) is not None:
        return []  # no mounts to measure against (case.psu-bays says so), or every PSU fits
    longest_mount = max((m.max_length for m in mounts if m.max_length is not None), default=None)
    if longest_mount is None:
        return []
    findings = []
    for index, psu in enumerate(psus):
        if psu.length is None or psu.length <= longest_mount:
            continue
        guessed = "length" in psu.estimated or bool({"max_psu_length", *_MOUNTS_ESTIMATED} & set(case.estimated))
        label = _psu_label(ctx, index)
        findings.append(Finding(
            code="case.psu", severity="warning" if guessed else "error",
            message=f"{label[0].upper()}{label[1:]} is {mm(psu.length)} long; the {case.name} takes PSUs up to"
                    f" {mm(longest_mount)} ({mm(psu.length - longest_mount)} too long)"
                    + (": one of these lengths is an estimate, so measure before buying." if guessed else "."),
            subject=[case.id, psu.id], value=psu.length, limit=longest_mount, unit="mm",
            fixes=_shorter_psus(ctx, index, longest_mount)
            + _other_cases(ctx, "case.psu")))
    if not findings:  # each PSU fits some mount, but not all of them at once
        sizes = ", ".join(mm(m.max_length) if m.max_length else "unknown length" for m in mounts)
        lengths = ", ".join(mm(p.length) if p.length else "length unknown" for p in psus)
        findings.append(Finding(
            code="case.psu", severity="error",
            message=f"The {case.name}'s PSU mounts ({sizes}) cannot take these {len(psus)} PSUs ({lengths}) at once.",
            subject=[case.id, *dict.fromkeys(p.id for p in psus)],
            fixes=_other_cases(ctx, "case.psu")))
    return findings


def _shorter_psus(ctx: Context, index: int, limit: float) -> list[Fix]:
    """Curated PSUs that fit the mount and carry this one's load within the target."""
    needed = ctx.power_split.psus[index].load / ctx.settings.psu_target

    def accept(psu: Psu, rating: float) -> bool:
        return psu.length is not None and psu.length <= limit and rating >= needed and "length" not in psu.estimated

    return replacement_psus(ctx, index, accept, "case.psu",
                            lambda psu, rating: f"{mm(psu.length or 0)} long, {rating:,.0f} W", wanted=1, tries=3)
