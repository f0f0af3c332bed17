"""Why the solver chose what it chose: the binding constraint that ruled out cheaper parts, the runner-up per added
part, and the sentence that names what makes a build infeasible."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, NamedTuple

from planner.models.parts import Case, Cpu, Motherboard, Part, Psu
from planner.solve.complete import Completion, RiserPlan, circuit_names, completed_raw
from planner.solve.space import Candidate
from planner.util.fmt import usd

if TYPE_CHECKING:
    from planner.solve.search import Leaf, Outcome, Search

TRIED = 12  # cheaper candidates (and runners-up) re-checked per added kind


#: Kinds of the base system (planner/build/base_system.py) among the added parts: priced in, not in the file.
BASE_KINDS = ("ram", "ssd", "cooler")


class Added(NamedTuple):
    """One part the solver added (a PSU or riser cable bought twice is listed twice)."""

    kind: str  # motherboard | case | cpu | psu | riser | circuit | ram | ssd | cooler (the base system)
    part: str
    price_usd: float | None  # null: no price in the catalogs (a circuit is not bought: always null)


def added_parts(search: Search, best: Leaf) -> list[Added]:
    partial, completion = search.partial, best.completion
    added = [Added(kind, getattr(completion, kind).id, getattr(completion, kind).price)
             for kind in ("motherboard", "case", "cpu") if not partial.given[kind]]
    riser = completion.risers.riser
    if riser is not None:
        added.extend(Added("riser", riser.id, riser.price) for _ in range(completion.risers.cables))
    added.extend(Added("psu", psu.id, psu.price) for psu, _ in completion.psus)
    if not (partial.owned["motherboard"] and partial.owned["cpu"]):
        for item in search.base_items(completion.motherboard, completion.cpu):
            added.extend(Added(item.role, item.part.id, item.part.price) for _ in range(item.quantity))
    if not partial.given["psu"]:
        names = circuit_names(partial, completion.circuits)
        added.extend(Added("circuit", name, None) for name in names[max(len(partial.spec.circuit), 1):])
    return added


def _label(part: Part) -> str:
    return f"the {part.name} ({part.id}, {usd(part.price) if part.price is not None else 'no price'})"


def _substitute(search: Search, completion: Completion, kind: str, part: Part) -> Completion:
    if kind == "psu":
        assert isinstance(part, Psu)
        return completion._replace(psus=tuple((part, c) for _, c in completion.psus))
    if kind == "motherboard":
        assert isinstance(part, Motherboard)
        return completion._replace(motherboard=part)
    if kind == "case":
        assert isinstance(part, Case)
        return completion._replace(case=part)
    assert isinstance(part, Cpu)
    return completion._replace(cpu=part)


def _first_error(search: Search, completion: Completion, kind: str) -> tuple[str, str] | None:
    """The error that rules out a completion (the CPU's socket last: a cheaper board may want another CPU), or None
    when it passes."""
    checked = search.check(completed_raw(search.partial, completion))
    if checked is None:
        return ("input", "it does not resolve")
    errors = search._refusing(checked[1])  # in a build that passes, a cheaper part that only warns is refused too
    if not errors:
        return None
    errors.sort(key=lambda f: (f.code == "cpu.socket", f.severity != "error"))
    return errors[0].code, errors[0].message


def explain(search: Search, best: Leaf) -> tuple[list[str], list[str], str | None]:
    """Per added kind: why (the cheaper candidates re-checked with the rest of the build as chosen, and what
    rules each out), the runner-up (the next candidate that passes with the rest), and the binding sentence."""
    partial, completion = search.partial, best.completion
    reasons: list[str] = []
    runners: list[str] = []
    binding: str | None = None
    kinds = [k for k in ("motherboard", "case", "cpu") if not partial.given[k]]
    if not partial.given["psu"] and len({p.id for p, _ in completion.psus}) == 1:
        kinds.append("psu")
    for kind in kinds:
        chosen: Part = completion.psus[0][0] if kind == "psu" else getattr(completion, kind)
        pool: list[Candidate] = search.lists[kind]
        index = next((i for i, c in enumerate(pool) if c.part.id == chosen.id), len(pool))
        what = {"motherboard": "motherboards", "case": "cases", "cpu": "CPUs", "psu": "PSUs"}[kind]
        cheaper = [c for c in pool[:index] if c.cost < pool[index].cost or c.cost == pool[index].cost][:TRIED]
        ruled: list[tuple[Part, str, str]] = []
        for candidate in cheaper:
            if kind == "cpu" and candidate.part.socket.casefold() != chosen.socket.casefold():  # type: ignore[attr-defined]
                continue
            found = _first_error(search, _substitute(search, completion, kind, candidate.part), kind)
            if found is not None:
                ruled.append((candidate.part, *found))
        head = f"{kind}: {_label(chosen)}"
        if ruled:
            first, code, message = ruled[0]
            counts = Counter(code for _, code, _ in ruled[1:])
            more = "; ".join(f"{n} more by {c}" for c, n in counts.most_common())
            reasons.append(f"{head}; cheaper {what} ruled out with the rest of this build: {_label(first)} by "
                           f"{code} ({message}){'; ' + more if more else ''}")
            if binding is None:
                binding = f"{_label(first)} would cost less, but {code}: {message}"
        else:
            reasons.append(f"{head}: the cheapest that works" + (" of its socket" if kind == "cpu" else ""))
        runner = _runner_up(search, completion, kind, pool, index)
        if runner is not None:
            extra = (f", +{usd(runner.price - chosen.price)}" if runner.price is not None and chosen.price is not None
                     else "")
            runners.append(f"{kind}: {_label(runner)}{extra}")
    riser = completion.risers.riser
    if riser is not None:
        moved = completion.risers.cables
        tables = len(search.partial.spec.gpu)  # without the split tables (and their power limits)
        bare = completion._replace(risers=RiserPlan(), limits=tuple(x for x in completion.limits if x[0] < tables))
        without = _first_error(search, bare, "risers")
        why = f": without them, {without[0]} ({without[1]})" if without is not None else ""
        reasons.append(f"riser cables: {moved} × {_label(riser)} to the case's vertical mounts{why}")
    return reasons, runners, binding


def _runner_up(search: Search, completion: Completion, kind: str, pool: list[Candidate], index: int) -> Part | None:
    for candidate in pool[index + 1:index + 1 + TRIED]:
        if _first_error(search, _substitute(search, completion, kind, candidate.part), kind) is None:
            return candidate.part
    return None


STAGE_WORDS = {"": "GPUs", "motherboard": "motherboard", "case": "case", "risers": "board, case and riser layout",
               "cpu": "CPU", "psu": "PSU and circuit"}


def infeasible_sentence(search: Search, outcome: Outcome) -> str:
    """One sentence naming what makes the build infeasible."""
    if outcome.infeasible is not None:
        return f"no completion passes: {outcome.infeasible}"
    objective = search.objective
    if outcome.searched == 0 and objective.budget is not None:
        return (f"nothing fits the budget of {usd(objective.budget)}: the parts the build gives cost "
                f"{usd(objective.fixed_usd)} and the cheapest of each missing kind add more")
    if not outcome.counts:
        return "no completion passes: no candidate reached a check"
    stage = outcome.deepest
    at_stage = {code: n for (s, code), n in outcome.counts.items() if s == stage}
    if not at_stage:
        stage = max(s for s, _ in outcome.counts)
        at_stage = {code: n for (s, code), n in outcome.counts.items() if s == stage}
    code, count = max(at_stage.items(), key=lambda item: item[1])
    example = next(r for r in outcome.rejections if r.stage == stage and r.code == code)
    earlier = Counter({c: n for (s, c), n in outcome.counts.items() if s != stage})
    before = ""
    if earlier:
        top, n = earlier.most_common(1)[0]
        before = f" (earlier, {n:,} candidate choice{'s' if n > 1 else ''} failed {top})"
    limited = "" if outcome.proved else " within the search's limits"
    return (f"no {STAGE_WORDS[stage]} choice passes{limited}: {code} rules out {count:,} — {example.message}"
            f"{before}")
