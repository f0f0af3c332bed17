"""Power plugs: every GPU and CPU input fed from its PSU's cables, adapters allowed with a warning
(docs/verdicts.md `psu.connectors`)."""

from __future__ import annotations

from planner.checks.engine.context import MODEL_READS, Context
from planner.checks.engine.findings import Finding, Fix, Severity
from planner.checks.engine.registry import check
from planner.checks.power_fixes import replacement_psus
from planner.checks.rules.psu.headroom import psu_name
from planner.models.parts import Psu
from planner.physics.connectors import (
    EPS,
    HPWR,
    PCIE,
    PLUG_NAMES,
    SOCKET,
    PlugNeed,
    PlugUse,
    allocate_plugs,
    cpu_eps_plugs,
    gpu_plug_need,
    socket_use,
)
from planner.physics.delivery import BOARD_PSU, PsuShare
from planner.util.fmt import gpu_labels, names, watts


@check("psu.connectors", reads=MODEL_READS["power_split"], order=180, section="Power",
       error=("too few PSU plugs for the cards' and CPU's inputs, or the cables need more of the unit's shared "
              "modular sockets than it has (published count, e.g. AX1600i: ten)"),
       warning=("inputs fed through adapters; a shortfall only of estimated plug or socket counts (the message "
                "says so)"),
       evidence="PCIe CEM connector ratings, the PSU's cable list, reviews' socket counts")
def psu_connectors(ctx: Context) -> list[Finding]:
    """GPU and CPU power inputs against the PSU plugs that feed them (error: too few; warning: via adapters)."""
    findings = []
    for share in ctx.power_split.psus:
        plugs = share.plugs
        if not plugs.short and not plugs.adapters:
            continue
        part = ctx.build.psus[share.psu].part
        name = psu_name(ctx, share.psu)
        adapters = _adapters_text(ctx, plugs) if ctx.wording else ""
        unit = "plugs"
        if plugs.short:
            guess = _sockets_estimated(part, plugs) if ctx.wording else ""
            message = (f"{name[0].upper()}{name[1:]} {_shortage(ctx, share)}"
                       + (f" (counting {adapters})" if adapters else "") + "; some inputs cannot be connected"
                       + (f" ({guess})" if guess else "") + ".") if ctx.wording else ""
            # an error rests on the unit's published plugs and sockets; a shortfall only of estimated counts is a
            # warning that says so
            guessed = set(plugs.short) <= _estimated_kinds(part, plugs) and not ctx.settings.estimates_as_sourced
            severity: Severity = "warning" if guessed else "error"
            if plugs.sockets_bind:
                assert plugs.sockets is not None
                value, limit, unit = plugs.sockets_used, plugs.sockets, "sockets"
            else:
                kind = PCIE if PCIE in plugs.short else EPS
                value, limit = plugs.used[kind], plugs.available[kind]
        else:
            message = (f"{name[0].upper()}{name[1:]} has no native plug for some inputs: {adapters}. Use the adapters"
                       " that came with the cards, one separate PSU cable per 8-pin plug (no daisy-chained pigtails)."
                       ) if ctx.wording else ""
            severity, value, limit = "warning", len(plugs.adapters), 0
        findings.append(psu_connectors.finding(
            severity=severity, message=message,
            subject=[part.id, *(f"GPU{i + 1}" for i in share.gpus)], value=float(value), limit=float(limit),
            unit=unit, fixes=_fixes(ctx, share, strict=not plugs.short)))
    return findings


def _estimated_kinds(part: Psu, plugs: PlugUse) -> set[str]:
    """The short kinds whose counts are estimates (plug counts under `connectors`, sockets under
    `shared_sockets`)."""
    kinds = set(plugs.short) - {SOCKET} if "connectors" in part.estimated else set()
    if SOCKET in plugs.short and "shared_sockets" in part.estimated:
        kinds.add(SOCKET)
    return kinds


def _sockets_estimated(part: Psu, plugs: PlugUse) -> str:
    """What a verdict on estimated plug or socket counts must say, or ''."""
    said = []
    if set(plugs.short) - {SOCKET} and "connectors" in part.estimated:
        said.append("its plug counts are an estimate: count the cables in the box or in its manual")
    if SOCKET in plugs.short and "shared_sockets" in part.estimated:
        said.append(f"its {plugs.sockets} shared sockets are an estimate: count them on the unit or in its manual")
    return "; ".join(said)


def _shortage(ctx: Context, share: PsuShare) -> str:
    """What the PSU runs short of, after its name: 'has 3 PCIe 8-pin plugs, but GPU1–2 need 4' for each kind,
    and 'GPU1–4 and the CPU need 14 of its 10 shared sockets (…)' where the unit's cables share its sockets;
    the sockets first when they are the tightest limit."""
    plugs, parts = share.plugs, []
    needs = {i: gpu_plug_need(ctx.build.gpus[i]) for i in share.gpus}
    if PCIE in plugs.short:
        users = [i for i, n in needs.items() if n.pcie or i in {a.gpu for a in plugs.adapters}]
        spare = plugs.available[HPWR] - plugs.used[HPWR]
        hint = f" (its {PLUG_NAMES[HPWR]} plug{'s' if spare > 1 else ''} cannot feed 8-pin inputs)" if spare else ""
        verb = "needs" if len(users) == 1 else "need"
        parts.append(f"{plugs.available[PCIE]} PCIe 8-pin plugs, but {gpu_labels(users)} {verb}"
                     f" {plugs.used[PCIE]}{hint}")
    if EPS in plugs.short:
        users = [i for i, n in needs.items() if n.eps]
        who, many = gpu_labels(users), len(users) > 1
        if share.psu == BOARD_PSU:
            who, many = "the CPU" + (f" and {who}" if users else ""), bool(users)
        verb = "need" if many else "needs"
        parts.append(f"{plugs.available[EPS]} EPS 8-pin plugs, but {who} {verb} {plugs.used[EPS]}")
    plug_text = "has " + " and ".join(parts) if parts else ""
    if SOCKET not in plugs.short:
        return plug_text
    sockets = _socket_shortage(ctx, share, needs)
    if plugs.sockets_bind:
        return f"is short of modular sockets: {sockets}" + (f"; it also {plug_text}" if plug_text else "")
    return f"{plug_text}, and {sockets}"


def _socket_shortage(ctx: Context, share: PsuShare, needs: dict[int, PlugNeed]) -> str:
    """'GPU1–4 and the CPU need 14 of its 10 shared sockets (12 PCIe 8-pin cables and 2 EPS 8-pin cables, one
    socket each; its PCIe 8-pin and EPS 8-pin cables share them)'."""
    plugs = share.plugs
    per = socket_use(ctx.build.psus[share.psu].part)
    users = [i for i, n in needs.items() if any(n[:3])]
    who, many = gpu_labels(users), len(users) > 1
    if share.psu == BOARD_PSU:
        who, many = (f"{who} and the CPU" if users else "the CPU"), bool(users)
    sharing = names(PLUG_NAMES[k] for k in (PCIE, HPWR, EPS) if per[k] and plugs.available[k])
    cables = names(f"{plugs.used[k]} {PLUG_NAMES[k]} cable{'s' if plugs.used[k] > 1 else ''}"
                   + (f" at {per[k]} sockets each" if per[k] > 1 else "")
                   for k in (PCIE, HPWR, EPS) if plugs.used[k] and per[k])
    return (f"{who} {'need' if many else 'needs'} {plugs.sockets_used} of its {plugs.sockets} shared sockets"
            f" ({cables}; its {sharing} cables share them)")


def _adapters_text(ctx: Context, plugs: PlugUse) -> str:
    groups: dict[tuple[str, int, str], list[int]] = {}
    for a in plugs.adapters:
        groups.setdefault((a.input, a.plugs, ctx.build.gpus[a.gpu].board.name), []).append(a.gpu)
    parts = []
    for (kind, count, board), gpus in groups.items():
        each = f"{PLUG_NAMES[kind]} adapters taking {count} PCIe 8-pin plugs each" if len(gpus) > 1 else \
            f"a {PLUG_NAMES[kind]} adapter taking {count} PCIe 8-pin plugs"
        parts.append(f"{gpu_labels(gpus)} ({board}) through {each}")
    return "; ".join(parts)


def _fixes(ctx: Context, share: PsuShare, strict: bool) -> list[Fix]:
    """A curated PSU whose own plugs feed these inputs (natively, when `strict`) and that carries the load."""
    if not ctx.propose_fixes:
        return []
    gpus = [ctx.build.gpus[i] for i in share.gpus if any(gpu_plug_need(ctx.build.gpus[i])[:3])]
    needs = [gpu_plug_need(g) for g in gpus]
    cpu_eps = cpu_eps_plugs(ctx.budget.cpu) if share.psu == BOARD_PSU else 0

    def feeds(psu: Psu, rating: float) -> bool:
        use = allocate_plugs(psu, gpus, needs, cpu_eps)
        return (not use.short and (not strict or not use.adapters)
                and rating >= share.load / ctx.settings.psu_target)

    def what(psu: Psu, rating: float) -> str:
        c = psu.connectors
        hpwr = f", {c.hpwr} {PLUG_NAMES[HPWR]}" if c.hpwr else ""
        sockets = f" on {psu.shared_sockets} shared sockets" if psu.shared_sockets is not None else ""
        return f"{watts(rating)}, {c.pcie_8pin} PCIe 8-pin{hpwr}, {c.eps_8pin} EPS 8-pin plugs{sockets}"

    return replacement_psus(ctx, share.psu, feeds, "psu.connectors", what)
