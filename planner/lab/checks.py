"""The lab's checks: findings on the lab as a whole, each fix applied to the lab and re-checked before it is
offered (the single-machine checks' rule: a fix is verified when the finding is gone and no new error appears).

Evidence: a circuit, bank, line or UPS over its rating is an error (the loads are the machines' own models,
the limits are the lab file's and the code's); a phase imbalance is a warning (the feed may hold); heat is an
error against the room's stated removal, a warning against the office default (an estimate); the network is a
warning (the traffic is an estimate, the guide's 50 Gbit/s floor a rule of thumb); noise is a warning."""

from __future__ import annotations

from typing import Any

from planner.api import Change, Finding, Fix
from planner.lab import assign, params
from planner.lab.lab import Evaluation, LimitRow, Room, State, cooling_limit, evaluate, training_need

FIX_TRIALS = 60  # moves tried per finding before the best verified one is offered


def findings(room: Room, state: State, propose: bool = True) -> list[Finding]:
    ev = evaluate(room, state)
    out: list[Finding] = []
    for row in ev.nodes:
        if row.over:
            out.append(_over(room, state, ev, row, f"lab.{row.kind}", propose))
    for row in ev.lines:
        if row.over:
            out.append(_over(room, state, ev, row, "lab.line", propose))
    for feed, value in ev.imbalance.items():
        if value > params.PHASE_IMBALANCE.value:
            out.append(_balance(room, state, ev, feed, value, propose))
    for row in ev.ups:
        if row.over if row.kind != "ups-runtime" else row.load > row.limit + 1e-9:
            out.append(_ups(room, state, row, propose))
    out += _cooling(room, state, ev, propose)
    out += _network(room, state, ev, propose)
    out += _noise(room, state, propose)
    return out


def _errors(room: Room, state: State) -> set[tuple[str, tuple[str, ...]]]:
    return {(f.code, tuple(f.subject)) for f in findings(room, state, propose=False) if f.severity == "error"}


def apply(room: Room, state: State, changes: list[Change]) -> State:
    """The lab state after `changes` (paths: plug[PSU], machine[NAME].power_limit|nic_gbps|place,
    network.switch_gbps)."""
    where, limits = list(state.where), list(state.power_limits)
    nic, places, switch = list(state.nic), list(state.places), state.switch_gbps
    kinds = {m.name: k for k, m in enumerate(room.spec.machine)}
    for change in changes:
        path = change.path
        if path.startswith("plug["):
            where[room.psu_index[path[5:-1]]] = room.node_index[change.value]
        elif path.startswith("machine["):
            name, field = path[8:].split("].")
            targets: dict[str, list[Any]] = {"power_limit": limits, "nic_gbps": nic, "place": places}
            target = targets[field]
            target[kinds[name]] = change.value
        elif path == "network.switch_gbps":
            switch = change.value
    return State(tuple(where), tuple(limits), tuple(nic), switch, tuple(places))


def verified(room: Room, state: State, code: str, subject: list[str], changes: list[Change],
             before: set[tuple[str, tuple[str, ...]]] | None = None) -> bool:
    """The finding is gone on the changed lab and no error appears that was not there."""
    if before is None:
        before = _errors(room, state)
    after = findings(room, apply(room, state, changes), propose=False)
    if any(f.code == code and f.subject == subject for f in after):
        return False
    return {(f.code, tuple(f.subject)) for f in after if f.severity == "error"} <= before


def _on(room: Room, state: State, row: LimitRow) -> list[int]:
    """PSUs whose load the row carries, heaviest first."""
    if row.kind == "line":
        line = next(i for i, line in enumerate(room.lines) if line.id == row.id)
        nodes = {n for n, node in enumerate(room.nodes) if any(k == line for k, _ in node.lines)}
    else:
        nodes = {room.node_index[row.id]}
    return [i for i in range(len(room.psus)) if state.where[i] in nodes]


def _move_fix(room: Room, state: State, ev: Evaluation, code: str, subject: list[str], psus: list[int],
              before: set[tuple[str, tuple[str, ...]]]) -> Fix | None:
    """Move one PSU to another node: the verified move that leaves the most headroom."""
    tried = 0
    best: tuple[float, Fix] | None = None
    for i in sorted(psus, key=lambda i: -ev.walls[i]):
        for n, node in enumerate(room.nodes):
            if n == state.where[i] or tried >= FIX_TRIALS:
                continue
            tried += 1
            changes = [Change(f"plug[{room.psus[i].id}]", node.id)]
            if verified(room, state, code, subject, changes, before):
                margin = evaluate(room, apply(room, state, changes)).nodes[n].margin
                fix = Fix(f"plug {room.psus[i].id} ({ev.walls[i]:,.0f} W) into {node.id} instead of "
                          f"{room.nodes[state.where[i]].id}", changes, True)
                if best is None or margin > best[0]:
                    best = (margin, fix)
    return best[1] if best else None


def _reassign_fix(room: Room, state: State, code: str, subject: list[str],
                  before: set[tuple[str, tuple[str, ...]]]) -> Fix | None:
    """Re-plug PSUs as the assignment solver says (fewest moves among the best assignments)."""
    result = assign.solve(room.items(state), room.nodes, room.lines)
    if result.where is None or result.where == state.where:
        return None
    changes = [Change(f"plug[{room.psus[i].id}]", room.nodes[n].id)
               for i, n in enumerate(result.where) if n != state.where[i]]
    if not verified(room, state, code, subject, changes, before):
        return None
    moves = "; ".join(f"{c.path[5:-1]} → {c.value}" for c in changes)
    return Fix(f"re-plug {len(changes)} PSU{'s' if len(changes) > 1 else ''} as the assignment solver balances them: "
               f"{moves}", changes, True)


def _limit_fix(room: Room, state: State, code: str, subject: list[str], kinds: set[int],
               before: set[tuple[str, tuple[str, ...]]]) -> Fix | None:
    """The highest power limit (10 W steps) on the machines concerned that clears the finding."""
    checks = {k: room.kind_check(k, state.power_limits[k]) for k in kinds}
    top = max((max(kc.power_limits, default=0.0) for kc in checks.values()), default=0.0)
    floor = max((kc.power_limit_min for kc in checks.values()), default=0.0)
    limit = (top // 10) * 10 - (10 if top % 10 == 0 else 0)
    while limit >= floor and top > 0:
        changes = [Change(f"machine[{room.spec.machine[k].name}].power_limit", limit) for k in sorted(kinds)
                   if checks[k].power_limits]
        if changes and verified(room, state, code, subject, changes, before):
            names = ", ".join(room.spec.machine[k].name for k in sorted(kinds))
            return Fix(f"set every GPU of {names} to a {limit:g} W power limit", changes, True)
        limit -= 10
    return None


def _over(room: Room, state: State, ev: Evaluation, row: LimitRow, code: str, propose: bool) -> Finding:
    what = {"circuit": "circuit", "bank": "PDU bank", "line": "line"}[row.kind]
    unit = row.unit
    message = (f"{what} {row.id} carries {row.load:,.1f} {unit}, over its continuous limit of {row.limit:,.1f} {unit}"
               + (" (line currents are phasor sums of the banks on it)" if row.kind == "line" else ""))
    fixes: list[Fix] = []
    if propose:
        before = _errors(room, state)
        psus = _on(room, state, row)
        for fix in (_move_fix(room, state, ev, code, [row.id], psus, before),
                    _reassign_fix(room, state, code, [row.id], before),
                    _limit_fix(room, state, code, [row.id], {room.psus[i].kind for i in psus}, before)):
            if fix is not None:
                fixes.append(fix)
        if not fixes:
            fixes.append(Fix(f"no re-plugging or power limit clears it: add a {what} or take a machine off it"))
    return Finding(code, "error", message, [row.id], row.load, row.limit, unit, fixes)


def _balance(room: Room, state: State, ev: Evaluation, feed: str, value: float, propose: bool) -> Finding:
    currents = ", ".join(f"{r.id.split(':')[1]} {r.load:.1f} A" for r in ev.lines if r.id.startswith(feed + ":"))
    message = (f"three-phase feed {feed} is unbalanced: {currents}; the busiest line is {value:.0%} from the mean "
               f"(more than {params.PHASE_IMBALANCE.value:.0%}): one breaker pole trips well before the feed is used")
    fixes: list[Fix] = []
    if propose:
        fix = _reassign_fix(room, state, "lab.phase-balance", [feed], _errors(room, state))
        if fix is not None:
            fixes.append(fix)
    return Finding("lab.phase-balance", "warning", message, [feed], round(value, 4),
                   params.PHASE_IMBALANCE.value, "fraction", fixes)


def _ups(room: Room, state: State, row: LimitRow, propose: bool) -> Finding:
    u = next(u for u in room.spec.ups if u.name == row.id)
    code = {"ups-w": "lab.ups-load", "ups-va": "lab.ups-load", "ups-runtime": "lab.ups-runtime"}[row.kind]
    if row.kind == "ups-runtime":
        message = (f"UPS {u.name} holds its load for {row.limit:.1f} min by its runtime table, less than the "
                   f"{u.shutdown_minutes:g} min the machines need to shut down cleanly")
        value, limit = row.limit, row.load
    else:
        message = (f"UPS {u.name} carries {row.load:,.0f} {row.unit}, over its {row.limit:,.0f} {row.unit} rating"
                   + (f" (W ÷ {params.LOAD_POWER_FACTOR.value:g}, the PSUs' lowest certified power factor)"
                      if row.kind == "ups-va" else ""))
        value, limit = row.load, row.limit
    fixes: list[Fix] = []
    if propose:
        before = _errors(room, state)
        fed = {i for i, node in enumerate(room.nodes) if node.id in u.feeds or room.pdu_of_node.get(i) in u.feeds}
        kinds = {p.kind for i, p in enumerate(room.psus) if state.where[i] in fed}
        fix = _limit_fix(room, state, code, [u.name], kinds, before)
        if fix is not None:
            fixes.append(fix)
        need = f"{row.load:,.0f} {row.unit}" if row.kind != "ups-runtime" else f"{u.w or 0:,.0f} W"
        fixes.append(Fix(f"a UPS rated for at least {need} with {u.shutdown_minutes:g} min at the load, or an "
                         "external battery pack (not re-checked: no UPS catalog entry chosen)"))
    return Finding(code, "error", message, [u.name], value, limit, row.unit, fixes)


def _cooling(room: Room, state: State, ev: Evaluation, propose: bool) -> list[Finding]:
    row = ev.cooling
    if not row.over:
        return []
    removal, evidence, source = cooling_limit(room.spec)
    btu = params.BTU_PER_W.value
    message = (f"the lab gives off {row.load:,.0f} W ({row.load * btu:,.0f} BTU/h), more than the room removes: "
               f"{removal:,.0f} W ({removal * btu:,.0f} BTU/h, {source}); the room's air will keep rising")
    fixes: list[Fix] = []
    if propose:
        fix = _limit_fix(room, state, "lab.cooling", ["room"], set(range(len(room.spec.machine))),
                         _errors(room, state))
        if fix is not None:
            fixes.append(fix)
        fixes.append(Fix(f"add {(row.load - removal):,.0f} W ({(row.load - removal) * btu:,.0f} BTU/h) of cooling "
                         "(not re-checked: the room is the lab file's)"))
    return [Finding("lab.cooling", "error" if evidence else "warning", message, ["room"], row.load, row.limit, "W",
                    fixes)]


def _network(room: Room, state: State, ev: Evaluation, propose: bool) -> list[Finding]:
    need = training_need(room)
    if need is None:
        return []
    gbps, kinds, estimate = need
    out = []
    slow = [k for k in kinds if (state.nic[k] or 0) < gbps - 1e-9]
    switch_slow = state.switch_gbps is not None and state.switch_gbps < gbps - 1e-9
    if slow or switch_slow:
        have = ", ".join(f"{room.spec.machine[k].name} {state.nic[k] or 'no'} Gbit/s" for k in slow)
        if switch_slow:
            have += (", " if have else "") + f"switch {state.switch_gbps:g} Gbit/s"
        message = (f"multi-node data-parallel training needs {gbps:g} Gbit/s per machine (all-reduce of the "
                   f"gradients: {estimate:.1f} Gbit/s estimated; the guide's floor {params.DP_FLOOR_GBPS.value:g} "
                   f"Gbit/s), but: {have}")
        fixes = []
        if propose:
            speed = next((s for s in params.NIC_SPEEDS if s >= gbps - 1e-9), params.NIC_SPEEDS[-1])
            changes = [Change(f"machine[{room.spec.machine[k].name}].nic_gbps", speed) for k in slow]
            if switch_slow or state.switch_gbps is None:
                changes.append(Change("network.switch_gbps", speed))
            ok = verified(room, state, "lab.network", ["network"], changes)
            fixes.append(Fix(f"{speed:g} Gbit/s NICs (ConnectX-6/7 or E810 class) in "
                             + ", ".join(room.spec.machine[k].name for k in slow)
                             + (f" and a {speed:g} Gbit/s switch" if any(c.path == 'network.switch_gbps'
                                                                         for c in changes) else ""),
                             changes, ok))
        out.append(Finding("lab.network", "warning", message, ["network"], min(
            [state.nic[k] or 0 for k in slow] + ([state.switch_gbps] if switch_slow and state.switch_gbps else [])),
            gbps, "Gbit/s", fixes))
    ports = room.spec.network.switch_ports
    members = [n for n, k in room.instances if k in kinds]
    if ports is not None and ports < len(members):
        out.append(Finding("lab.switch-ports", "error",
                           f"the switch has {ports} ports for {len(members)} training machines", ["network"],
                           ports, len(members), "ports"))
    return out


def _noise(room: Room, state: State, propose: bool) -> list[Finding]:
    out = []
    for k, m in enumerate(room.spec.machine):
        if state.places[k] != "office":
            continue
        kc = room.kind_check(k, state.power_limits[k])
        if kc.blowers:
            changes = [Change(f"machine[{m.name}].place", "closet")]
            fixes = [Fix(f"move {m.name} to a closet or server room", changes,
                         verified(room, state, "lab.noise", [m.name], changes))] if propose else []
            out.append(Finding("lab.noise", "warning",
                               f"{m.name} sits in an office with {kc.blowers} blower card"
                               f"{'s' if kc.blowers > 1 else ''}: blowers are loud under load, not for a room with "
                               "people", [m.name], None, None, None, fixes))
    return out
