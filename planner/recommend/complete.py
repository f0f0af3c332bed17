"""`planner recommend --add` and `--complete` (issue 17): options as real machines.

* `--add` (with `--build`): besides replacing the build's cards, an option may add cards to them; the build's
  cards are kept (owned: they cost nothing). The memory need is split evenly over every card, so each card — the
  kept ones too — must hold its share; a mixed set runs at the pace its cards allow: decoding passes through each
  card's layers in turn (time per token = Σ share ÷ speed, so the harmonic mean of the cards' decode speeds), and
  data- or tensor-parallel work waits for the slowest card (its speed × the multi-GPU scaling of the count).
* `--complete`: each option, in ranking order, becomes a partial build — its cards, and the other parts
  `--build` gives — that the solver (planner/solve) completes into the cheapest machine `planner check` passes.
  Only completed options are ranked, by performance per $1,000 of the whole machine (every part not owned); the
  others are left out with the constraint that binds.
* An LLM that fits nowhere at the default format is tried at smaller ones; the first that fits is named.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from pathlib import Path
from typing import NamedTuple

import tomlkit

from planner.build import buildfile
from planner.build.resolve import ResolvedBuild, resolve
from planner.catalog import Catalog
from planner.checks.engine.context import Settings
from planner.models.parts import GpuBoard, GpuChip
from planner.recommend import decode, params, perf
from planner.recommend.fit import BuildFit
from planner.recommend.memory import estimate
from planner.recommend.plot import label
from planner.recommend.rank import (
    Candidate,
    Card,
    Reason,
    Recommendation,
    Request,
    _cards,
    _chip_reason,
    _first_fitting,
    _rest_of_build_price,
    _Scorer,
    recommend,
)
from planner.solve import SolveResult, parse_partial, platform_spend, solve
from planner.solve.partial import Partial
from planner.util import tomlfile
from planner.util.errors import InputError
from planner.util.fmt import num, usd

#: Smaller weight formats tried, best quality first, when an LLM fits nowhere at the default format.
SMALLER_FORMATS = ("q8_0", "q6_k", "q5_k_m", "q4_k_m", "q4_0")
#: Options the solver tries per option shown (`--top`): the ranking's estimate of a machine's price is rough
#: (a base desktop's share), so the completed ranking is drawn from a few more than it shows.
TRIES_PER_SHOWN = 3


# -- adding cards to the build's own ---------------------------------------------------------------------------
class AddingFit(BuildFit):
    """A build that candidates' cards are added to: its own [[gpu]] tables stay (slots, risers, limits too)."""

    def resolve_with(self, board: GpuBoard, count: int) -> ResolvedBuild:
        data = dict(self.raw)
        data["gpu"] = [*self.raw.get("gpu", []), {"part": board.id, "count": count}]
        spec = buildfile.validate(data, "", self.label)
        return resolve(spec, data, self.catalog, label=self.label, region=self.settings.region)


class Kept(NamedTuple):
    """The build's own cards, kept when cards are added: per [[gpu]] table "2 × nvidia-rtx-4090-fe", the chip of
    each card, and the price of the build's other parts (the share of the machine an option's cost adds to)."""

    labels: list[str]
    chips: list[GpuChip]
    rest_usd: float

    @classmethod
    def of(cls, build: ResolvedBuild, rest_usd: float) -> Kept:
        tables = Counter((gpu.spec_index, gpu.board.id) for gpu in build.gpus)
        return cls([f"{count} × {board}" for (_, board), count in tables.items()],
                   [gpu.chip for gpu in build.gpus], rest_usd)


def kept_in(fit: BuildFit) -> Kept:
    """The cards of a complete build, and the price of its other parts."""
    return Kept.of(fit.original, _rest_of_build_price(fit))


def kept_in_partial(partial: Partial) -> Kept:
    """The cards of a partial build, and the price of the other parts it gives."""
    return Kept.of(partial.base, given_price(partial))


class Additions(NamedTuple):
    """Options that add cards to the build's own (the candidates' `count` is the cards added)."""

    kept: list[str]
    candidates: list[Candidate]  # fitting ones by performance per dollar, then the excluded ones
    by_value: list[Candidate]
    by_speed: list[Candidate]


def additions(request: Request, rec: Recommendation, catalog: Catalog, kept: Kept,
              fit: AddingFit | None = None) -> Additions:
    """Every card × count that could join the build's cards, scored as the whole set, with the reason for each one
    left out. `rec` (the recommendation that replaces the cards) gives the memory need; `fit` (a complete build)
    checks each option in the build, else (a partial build, for --complete) the solver does."""
    need = rec.need
    room = int(params.MAX_BUILD_GPUS.value) - len(kept.chips)
    counts = [request.gpus] if request.gpus else list(range(1, room + 1))
    reference = catalog.typed("gpu-chip", params.REFERENCE_CHIP, GpuChip)
    scorer = _Scorer(request, need, reference)
    found: list[Candidate] = []
    for chip, cards in _cards(catalog):
        chip_reason = _chip_reason(chip, cards, dataclasses.replace(request, fit=fit))
        if chip_reason is not None or not counts:
            left = chip_reason or Reason("build", f"the build already holds {len(kept.chips)} cards")
            found.append(_scored(scorer, cards[0], counts[0] if counts else 1, kept, left))
            continue
        broken: dict[str, tuple[int, str]] = {}
        for count in counts:
            reason = _memory_or_budget(chip, kept.chips, count, scorer, cards[0].price, request.budget)
            card, why = cards[0], reason
            if reason is None and fit is not None:
                card, why = _first_fitting(cards, count, fit, broken, request.budget)
            found.append(_scored(scorer, card, count, kept, why))
    by_value = sorted((c for c in found if c.fits),
                      key=lambda c: (c.perf_per_dollar is None, -(c.perf_per_dollar or 0), -c.performance))
    by_speed = sorted((c for c in found if c.fits), key=lambda c: (-c.performance, c.price_usd or math.inf))
    return Additions(kept.labels, by_value + [c for c in found if not c.fits], by_value, by_speed)


def _usable(scorer: _Scorer, chip: GpuChip) -> float:
    return chip.memory if scorer.need.floor is not None else scorer.need.usable(chip.memory).usable


def _memory_or_budget(chip: GpuChip, kept: list[GpuChip], count: int, scorer: _Scorer, price: float | None,
                      budget: float | None) -> Reason | None:
    total = len(kept) + count
    per_card = scorer.need.per_gpu(total)
    smallest = min([chip, *kept], key=lambda c: _usable(scorer, c))
    if _usable(scorer, smallest) < per_card:
        return Reason("memory", f"{num(smallest.memory)} GiB {smallest.name}, {_usable(scorer, smallest):.1f} GiB"
                                f" usable < {per_card:.1f} GiB needed per card (split evenly over {total} cards)")
    if budget is not None and price is not None and price * count > budget:
        return Reason("budget", f"{usd(price * count)} for {count} > {usd(budget)} budget")
    return None


def _single_decode(scorer: _Scorer, chip: GpuChip) -> decode.DecodeEstimate | None:
    """One card's decode estimate for the request's engine and users (None when the workload is not decode)."""
    if scorer.work is None:
        return None
    return decode.decode(chip, scorer.work, scorer.request.engine, users=scorer.request.users)


def mixed_performance(scorer: _Scorer, chips: list[GpuChip]) -> float:
    """The workload's figure for a set of cards (H100 SXM = 1), alike or not (see the module docstring)."""
    singles = [scorer.performance(chip, 1, perf.relative_perf(chip, scorer.reference), _single_decode(scorer, chip))
               for chip in chips]
    if scorer.workload == "llm-inference":
        return len(singles) / sum(1 / s for s in singles)
    return min(singles) * perf.scaling(len(singles))


def _scored(scorer: _Scorer, card: Card, count: int, kept: Kept, reason: Reason | None) -> Candidate:
    chip, board, price = card.chip, card.board, card.price
    chips = [*kept.chips, *([chip] * count)]
    performance = mixed_performance(scorer, chips)
    cards = price * count if price is not None else None
    cost = cards + kept.rest_usd if cards is not None else None
    tokens = None
    if scorer.work is not None:
        speeds = [estimate.tokens_per_s for c in chips if (estimate := _single_decode(scorer, c)) is not None]
        tokens = round(len(speeds) / sum(1 / s for s in speeds), 1) if speeds else None
    per_card = scorer.need.per_gpu(len(chips))
    usable = min(_usable(scorer, c) for c in chips)
    figures = {key: round(min(perf.relative_perf(c, scorer.reference)[key] for c in chips)
                          * perf.scaling(len(chips)), 4) for key in perf.relative_perf(chip, scorer.reference)}
    notes = [f"added to the build's {', '.join(kept.labels)} (kept, owned): {len(chips)} cards in all"]
    notes.extend(scorer.notes(card))
    if reason is None and 0 <= usable - per_card < params.TIGHT_FIT.value * usable:
        notes.append(f"tight: {usable - per_card:.1f} GiB spare of {usable:.1f} GiB usable on the smallest card")
    memory = sum(c.memory for c in chips)
    return Candidate(
        chip=chip.id, name=chip.name, board=board.id if board else None, count=count, fits=reason is None,
        excluded_reason=reason.text if reason else None, excluded_kind=reason.kind if reason else None,
        memory_gb=memory, memory_needed_gb=round(per_card, 2), relative_perf=figures,
        performance=round(performance, 4), perf_per_dollar=round(performance / cost * 1000, 4) if cost else None,
        price_usd=cards, cost_basis_usd=cost, tokens_per_s=tokens, notes=notes, memory_gib=memory,
        memory_needed_gib=round(per_card, 2), usable_gib=round(usable, 2), headroom_gib=round(usable - per_card, 2))


# -- completing options into machines --------------------------------------------------------------------------
class Completed(NamedTuple):
    """An option completed into a machine that passes `planner check`."""

    option: Candidate
    mode: str  # "replace": these cards are the machine's | "add": added to the build's own (kept, owned)
    result: SolveResult
    price_usd: float | None  # the whole machine: every part not owned (null: a part has no price)
    perf_per_dollar: float | None  # the option's performance per $1,000 of price_usd


class LeftOut(NamedTuple):
    """An option the solver could not complete, and why."""

    option: Candidate
    mode: str
    binding: str


class Machines(NamedTuple):
    """`--complete`: the completed options ranked, and the ones that could not be completed."""

    by_value: list[Completed]
    by_speed: list[Completed]
    left_out: list[LeftOut]
    untried: int  # fitting options not tried (beyond what --top asks for)
    by_price: tuple[Completed, ...] = ()  # the cheapest whole machine first (--sort machine-price)


def complete_options(rec: Recommendation, catalog: Catalog, *, workload: str, top: int, base: Path | None = None,
                     adds: Additions | None = None, region: str | None = None,
                     cheapest_first: bool = False) -> Machines:
    """Complete the best options (by estimated performance per dollar, or with `cheapest_first` by the
    estimated price of the machine, then the fastest) into machines."""
    base_text = buildfile.read_text(base) if base is not None else None
    options = [(c, "replace") for c in rec.by_value] + [(c, "add") for c in (adds.by_value if adds else [])]
    if cheapest_first:
        options.sort(key=lambda o: (o[0].cost_basis_usd is None, o[0].cost_basis_usd or 0.0, -o[0].performance))
    else:
        options.sort(key=lambda o: (o[0].perf_per_dollar is None, -(o[0].perf_per_dollar or 0)))
    fastest = [(c, "replace") for c in rec.by_speed] + [(c, "add") for c in (adds.by_speed if adds else [])]
    fastest.sort(key=lambda o: -o[0].performance)
    fastest_shown = fastest[:max(3, top // 2)]
    done: dict[tuple[str, str | None, int], Completed | LeftOut] = {}

    def attempt(option: Candidate, mode: str) -> None:
        key = (mode, option.board, option.count)
        if key not in done:
            done[key] = _complete(option, mode, catalog, workload, base_text, base, region)

    for option, mode in options[:top * TRIES_PER_SHOWN]:
        if sum(isinstance(m, Completed) for m in done.values()) >= top:
            break
        attempt(option, mode)
    for option, mode in fastest_shown:
        attempt(option, mode)
    machines = [m for m in done.values() if isinstance(m, Completed)]
    by_value = sorted(machines, key=lambda m: (m.perf_per_dollar is None, -(m.perf_per_dollar or 0),
                                               -m.option.performance))
    by_speed = sorted(machines, key=lambda m: (-m.option.performance, m.price_usd or math.inf))
    by_price = sorted(machines, key=lambda m: (m.price_usd is None, m.price_usd or 0.0, -m.option.performance))
    left = [m for m in done.values() if isinstance(m, LeftOut)]
    untried = {(mode, c.board, c.count) for c, mode in options} - set(done)
    return Machines(by_value, by_speed, left, len(untried), tuple(by_price))


def option_text(option: Candidate, mode: str, workload: str, base_text: str | None) -> str:
    """The partial build of an option: its cards, with (from --build) the build's other parts; with mode "add"
    the build's own cards stay, marked owned."""
    note = f"{option.count} × {option.name}: chosen by planner recommend --complete ({workload})"
    table = tomlkit.table()
    table.add(tomlkit.comment(note))
    table["part"] = option.board
    table["count"] = option.count
    if base_text is None:
        doc = tomlkit.document()
        doc["name"] = f"{label(option)} for {workload}"
        doc["workload"] = workload
    else:
        doc = tomlkit.parse(base_text)
    gpus = tomlkit.aot()
    if mode == "add":
        for old in doc.get("gpu", []):
            old["owned"] = True
            gpus.append(old)
    gpus.append(table)
    doc["gpu"] = gpus
    return tomlfile.dumps(doc)


def _complete(option: Candidate, mode: str, catalog: Catalog, workload: str, base_text: str | None,
              base: Path | None, region: str | None) -> Completed | LeftOut:
    if option.board is None:
        return LeftOut(option, mode, "no board of this chip in the catalogs")
    text = option_text(option, mode, workload, base_text)
    name = f"{base} with {label(option)}" if base is not None else f"{label(option)} (completed)"
    try:
        partial = parse_partial(text, name, catalog, region)  # type: ignore[arg-type]
    except InputError as error:
        return LeftOut(option, mode, f"the build does not take it: {error}")
    result = solve(partial, catalog, settings=Settings(region=partial.region),  # type: ignore[arg-type]
                   label=name, explain_choices=False)
    if result.status != "solved":
        return LeftOut(option, mode, str(result.binding))
    total = None
    if result.added_usd is not None and option.price_usd is not None:
        total = option.price_usd + given_price(partial) + result.added_usd
    ppd = round(option.performance / total * 1000, 4) if total else None
    return Completed(option, mode, result, total, ppd)


def given_price(partial: Partial) -> float:
    """The known prices of the parts other than the GPUs that the partial build gives and does not own."""
    total = platform_spend(partial)
    for gpu in partial.base.gpus:
        if not partial.spec.gpu[gpu.spec_index].owned and gpu.riser is not None and gpu.riser.price is not None:
            total += gpu.riser.price
    return total


# -- the precision that would fit ------------------------------------------------------------------------------
class PrecisionHint(NamedTuple):
    """A smaller weight format at which some option fits, when none does at the default."""

    precision: str
    need_gib: float  # on one card
    option: Candidate  # the best by performance per dollar at that format

    def sentence(self, default: str) -> str:
        price = f", {usd(self.option.price_usd)}" if self.option.price_usd is not None else ""
        return (f"Nothing fits at {default} (the default format); at {self.precision} the need is "
                f"{self.need_gib:.1f} GiB on one card and {label(self.option)} would fit{price}: "
                f"--precision {self.precision}")


def precision_hint(request: Request, catalog: Catalog, rec: Recommendation) -> PrecisionHint | None:
    """The best-quality smaller format at which an LLM that fits nowhere would fit (None: it fits, it is not an
    LLM, or the format does not change the need, as in full training)."""
    if rec.by_value or not request.memory.workload.startswith("llm"):
        return None
    for precision in SMALLER_FORMATS:
        memory = dataclasses.replace(request.memory, precision=precision)
        if estimate(memory).total >= rec.need.total - 1e-9:
            continue
        other = recommend(dataclasses.replace(request, memory=memory), catalog)
        if other.by_value:
            return PrecisionHint(precision, other.need.total, other.by_value[0])
    return None
