"""A completion of a partial build: the parts chosen for what it leaves out, as build-file data and as text.

The completed build is written as the user's own file with the chosen parts added (tomlkit: comments, order and
layout kept), so `planner check` of the file `planner solve -o` writes sees exactly what the solver checked.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from planner.build.resolve import DEFAULT_OUTLETS
from planner.models.parts import Case, Cpu, Motherboard, Psu, Riser
from planner.solve.partial import Partial

DEFAULT_CIRCUIT = "wall"  # the name planner.build.resolve gives the region's assumed circuit


class RiserPlan(NamedTuple):
    """Cards moved onto riser cables to the case's vertical mounts: (gpu table index, how many) and the cable."""

    moves: tuple[tuple[int, int], ...] = ()
    riser: Riser | None = None

    @property
    def cables(self) -> int:
        return sum(n for _, n in self.moves)


class Completion(NamedTuple):
    """One candidate build: a part for every kind, the PSUs with the circuit each plugs into, power limits."""

    motherboard: Motherboard
    case: Case
    risers: RiserPlan
    cpu: Cpu
    psus: tuple[tuple[Psu, int], ...]  # (PSU, index into circuit_names(...)); empty: the build's own PSUs
    circuits: int  # circuits in use (the build's and the added ones)
    limits: tuple[tuple[int, float], ...] = ()  # (gpu table index in the completed file, W) set by the solver


def circuit_names(partial: Partial, count: int) -> list[str]:
    """Names of the first `count` circuits: the build's own, then added ones of the region's standard outlet."""
    names = [c.name for c in partial.spec.circuit]
    taken = set(names)
    n = 1
    while len(names) < count:
        name = DEFAULT_CIRCUIT if n == 1 else f"{DEFAULT_CIRCUIT}-{n}"
        n += 1
        if name not in taken:
            names.append(name)
            taken.add(name)
    return names[:max(count, len(partial.spec.circuit))]


def completed_raw(partial: Partial, completion: Completion) -> dict[str, Any]:
    """The build-file data of a completion (the partial build's own keys kept)."""
    raw: dict[str, Any] = {key: value for key, value in partial.raw.items()}
    for kind in ("motherboard", "case", "cpu"):
        if not partial.given[kind]:
            raw[kind] = getattr(completion, kind).id
    gpus = [dict(table) for table in partial.raw["gpu"]]
    plan = completion.risers
    if plan.riser is not None:
        for index, moved in plan.moves:
            table = gpus[index]
            count = int(table.get("count", 1))
            if moved >= count:
                table["riser"] = plan.riser.id
            else:
                table["count"] = count - moved
                gpus.append({**{k: v for k, v in table.items() if k != "count"}, "count": moved,
                             "riser": plan.riser.id})
    for index, limit in completion.limits:
        gpus[index]["power_limit"] = f"{limit:g} W"
    raw["gpu"] = gpus
    if not partial.given["psu"]:
        names = circuit_names(partial, completion.circuits)
        explicit = bool(partial.spec.circuit) or completion.circuits > 1
        if explicit and len(names) > len(partial.spec.circuit):
            outlet = DEFAULT_OUTLETS[partial.region]
            raw["circuit"] = [*(dict(c) for c in partial.raw.get("circuit", [])),
                              *({"name": name, "outlet": outlet} for name in names[len(partial.spec.circuit):])]
        elif not explicit and "region" not in raw:
            raw["region"] = partial.region  # the circuit the solver checked on, whatever the checker's default
        raw["psu"] = [{"part": psu.id, **({"circuit": names[circuit]} if explicit else {})}
                      for psu, circuit in completion.psus]
    return raw


def to_toml(partial: Partial, raw: dict[str, Any], note: str = "added by planner solve") -> str:
    """The partial build's text with `raw`'s additions and changes: comments, order and layout kept; every value
    the solver adds carries `note` as its comment."""
    import tomlkit

    document = tomlkit.parse(partial.text)
    _sync(document, raw, note)
    from planner.util import tomlfile

    return tomlfile.dumps(document)  # every string and comment escaped as the one TOML writer does


def _sync(node: Any, wanted: dict[str, Any], note: str) -> None:
    import tomlkit

    for key, value in wanted.items():
        if key in node and _same(node[key], value):
            continue
        if key in node and isinstance(value, list) and _is_tables(value) and hasattr(node[key], "append"):
            current = node[key]
            for i, table in enumerate(value):
                if i < len(current):
                    _sync(current[i], table, note)
                else:
                    current.append(_table(table, note))
            continue
        if key in node and isinstance(value, dict) and isinstance(node[key], dict) and not isinstance(value, str):
            _sync(node[key], value, note)
            continue
        if isinstance(value, list) and _is_tables(value):
            aot = tomlkit.aot()
            for table in value:
                aot.append(_table(table, note))
            node[key] = aot
            continue
        item = tomlkit.item(value)
        if key not in node:
            item.comment(note)
            node[key] = item
        else:
            node[key] = value  # tomlkit keeps the old value's comment


def _table(data: dict[str, Any], note: str) -> Any:
    import tomlkit

    table = tomlkit.table()
    table.add(tomlkit.comment(note))
    for key, value in data.items():
        table[key] = value
    return table


def _is_tables(value: list[Any]) -> bool:
    return bool(value) and all(isinstance(item, dict) for item in value)


def _same(current: Any, value: Any) -> bool:
    unwrap = getattr(current, "unwrap", None)
    return (unwrap() if unwrap is not None else current) == value
