"""Rank GPU options (a card × a count) for a workload (docs/performance-model.md).

An option fits when each card's usable memory (its capacity less the CUDA context, a display and a
fragmentation margin: memory.usable_memory) covers the need per card, its price the budget, and (with a build) the
build's checks pass with those cards in it. Fitting options are ranked by performance per dollar and by
raw performance; every other option carries the reason it was left out.

Performance is relative to one H100 SXM (= 1.00), for the figure the workload depends on: decode speed
for LLM inference with the chosen engine (planner/recommend/decode.py: a layer split adds memory, not
speed; tensor parallel adds speed by card count and interconnect; with --users, all users' tokens/s),
batched inference at the chosen precision for image generation, 16-bit training (transformers, or CNNs for
vision) at the batch each card holds for training and fine-tuning, the geometric mean of Dettmers' three
figures for `general`. Several cards multiply training and batched throughput by count × s^log2(count),
s fitted over PCIe and NVLink. Performance per dollar divides it by the option's price plus the machine
around that many cards as `planner solve` buys it (planner/recommend/platform.py: board, case, CPU, PSUs and the
base system), or with a build by the price of the cards plus the build's other parts; it is quoted per $1,000.
"""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from planner.catalog import Catalog
from planner.models.build import Workload
from planner.models.parts import GpuBoard, GpuChip
from planner.models.workloads import WorkloadModel
from planner.recommend import decode, engines, memory, params, perf
from planner.recommend.memory import MemoryNeed, MemoryRequest, default_shape, estimate
from planner.util.fmt import num, usd

if TYPE_CHECKING:
    from planner.recommend.fit import BuildFit

#: What each workload's performance figure is, in words.
BASIS = {"llm-inference": "decode speed ({engine}, {users})", "image-generation": "batched inference at {precision}",
         "llm-finetune": "16-bit transformer training", "llm-train": "16-bit transformer training",
         "vision-train": "16-bit CNN training",
         "general": "mean of 8-bit inference, 16-bit inference and 16-bit training"}


@dataclass(frozen=True)
class Card:
    """One card to buy: a chip, the board it comes on (None: a bare module), and its price."""

    chip: GpuChip
    board: GpuBoard | None
    price: float | None
    price_note: str | None = None


@dataclass(frozen=True)
class Request:
    """What to recommend for."""

    memory: MemoryRequest
    budget: float | None = None  # USD for the GPUs
    gpus: int | None = None  # exactly this many cards; default 1…4 (or what the build takes)
    fit: BuildFit | None = None
    vendor: str = "nvidia"  # nvidia | amd | any
    engine: str = "llama.cpp"  # LLM inference engine (decode.ENGINES)
    users: int = 1  # concurrent sequences served (LLM inference)
    prompt_tokens: int | None = None  # prompt length for the time to first token (default DEFAULT_PROMPT_TOKENS)
    engine_version: str | None = None  # the engine's era (a year or YYYY-MM; default the newest)
    output_tokens: int | None = None  # tokens each request generates (serving several users; DEFAULT_OUTPUT_TOKENS)
    min_tokens_per_s: float | None = None  # each user's decode speed an option must reach (filters options)
    region: str | None = None  # where the machine around the cards is solved (planner/recommend/platform.py)


@dataclass(frozen=True)
class Candidate:
    """One option and how it fares (the JSON of `planner recommend`)."""

    chip: str
    name: str
    board: str | None
    count: int
    fits: bool
    excluded_reason: str | None
    excluded_kind: str | None  # memory | budget | build | vendor | not-installable | no-price | no-board | speed
    memory_gb: float  # all its cards together, GiB (the old name)
    memory_needed_gb: float | None  # per card, GiB (the old name)
    relative_perf: dict[str, float]  # Dettmers' three figures for the option (H100 SXM = 1)
    performance: float  # the workload's figure for the option (H100 SXM = 1)
    perf_per_dollar: float | None  # performance per $1,000 of the cards plus the machine around them
    price_usd: float | None  # the cards
    cost_basis_usd: float | None  # the cards plus the machine around them (or the build's other parts)
    tokens_per_s: float | None  # LLM inference: batch-1 decode
    notes: list[str]
    memory_gib: float = 0.0  # all its cards together
    memory_needed_gib: float | None = None  # per card
    usable_gib: float | None = None  # per card: capacity − context − display − fragmentation
    headroom_gib: float | None = None  # per card: usable − needed (negative: does not fit)
    # LLM inference (None otherwise): the engine, how it uses the cards, and what a user sees
    engine: str | None = None
    users: int = 1
    decode_mode: str | None = None  # single card | layer split | tensor parallel
    interconnect: str | None = None  # the link tensor parallel all-reduces cross
    ms_per_token: float | None = None
    aggregate_tokens_per_s: float | None = None  # every user together (= tokens_per_s for one user)
    prompt_tokens: int | None = None
    prefill_tokens_per_s: float | None = None
    time_to_first_token_s: float | None = None
    # issue 24: the engine era, serving many users, the link tensor parallel assumed, the memory rule that decided
    engine_version: str | None = None
    output_tokens: int | None = None
    batched_users: int | None = None  # users decoding at once (the rest wait for a free sequence slot)
    max_sequences: int | None = None  # sequences of prompt + output tokens the KV cache holds beside the weights
    users_at_min_tok_s: int | None = None  # with --min-tok-s: how many users get that speed each
    peer_to_peer: bool | None = None  # tensor parallel over PCIe: the cards reach each other's memory
    memory_rule: str | None = None  # the engine rule that decided the fit (docs/memory-model.md)


class Recommendation(NamedTuple):
    workload: Workload
    model: WorkloadModel | None
    need: MemoryNeed
    basis: str
    budget: float | None
    candidates: list[Candidate]  # fitting ones by performance per dollar, then the excluded ones
    by_value: list[Candidate]
    by_speed: list[Candidate]
    build: str | None
    build_problems: list[str]
    engine: str | None = None  # LLM inference: the engine the speeds are for
    users: int = 1
    prompt_tokens: int | None = None
    engine_version: str | None = None
    output_tokens: int | None = None


def recommend(request: Request, catalog: Catalog) -> Recommendation:
    """Every option considered, ranked, with the reasons for the ones left out."""
    memory = request.memory
    if (memory.model is None and memory.parameters is not None and memory.shape is None
            and memory.workload.startswith("llm")):
        models = [m for m in catalog.all("llm") if isinstance(m, WorkloadModel)]
        memory = dataclasses.replace(memory, shape=default_shape(models, memory.parameters))
        request = dataclasses.replace(request, memory=memory)
    if memory.workload == "llm-inference" and memory.engine is None and memory.memory is None:
        memory = dataclasses.replace(memory, engine=request.engine, engine_version=request.engine_version)
        request = dataclasses.replace(request, memory=memory)
    need = estimate(memory)
    workload = need.workload
    reference = catalog.typed("gpu-chip", params.REFERENCE_CHIP, GpuChip)
    fit = request.fit
    counts = ([request.gpus] if request.gpus else
              list(range(1, int((params.MAX_BUILD_GPUS if fit else params.DEFAULT_MAX_GPUS).value) + 1)))
    if fit is not None:
        rest = _rest_of_build_price(fit)
        desktops = {n: rest for n in counts}
    else:  # the machine around n cards, as planner solve buys it (planner/recommend/platform.py)
        from planner.recommend.platform import desktop

        desktops = {n: desktop(catalog, n, request.region).usd for n in counts}
    scorer = _Scorer(request, need, reference)
    candidates: list[Candidate] = []
    for chip, cards in _cards(catalog):
        chip_reason = _chip_reason(chip, cards, request)
        if chip_reason is not None:
            candidates.append(scorer.candidate(cards[0], counts[0], chip_reason, desktops[counts[0]]))
            continue
        broken: dict[str, tuple[int, str]] = {}  # board → (first count that failed the build, why)
        for count in counts:
            reason = _memory_or_budget(chip, cards[0], count, need, request.budget)
            chosen, why = cards[0], reason
            if reason is None and fit is not None:
                chosen, why = _first_fitting(cards, count, fit, broken, request.budget)
            candidates.append(scorer.candidate(chosen, count, why, desktops[count]))
    by_value = sorted((c for c in candidates if c.fits),
                      key=lambda c: (c.perf_per_dollar is None, -(c.perf_per_dollar or 0), -c.performance))
    by_speed = sorted((c for c in candidates if c.fits), key=lambda c: (-c.performance, c.price_usd or math.inf))
    excluded = [c for c in candidates if not c.fits]
    return Recommendation(
        workload=workload, model=request.memory.model, need=need,
        basis=BASIS[workload].format(precision=request.memory.precision,
                                     engine=decode.ENGINE_LABELS.get(request.engine, request.engine),
                                     users=f"{request.users} users" if request.users > 1 else "one user"),
        budget=request.budget,
        candidates=by_value + excluded, by_value=by_value, by_speed=by_speed,
        build=fit.label if fit else None, build_problems=[f"{f.code}: {f.message}" for f in fit.own_problems]
        if fit else [], engine=request.engine if workload == "llm-inference" else None,
        users=request.users if workload == "llm-inference" else 1,
        prompt_tokens=scorer.prompt if scorer.work is not None else None,
        engine_version=scorer.version if workload == "llm-inference" else None,
        output_tokens=scorer.output if scorer.work is not None and request.users > 1 else None)


def _cards(catalog: Catalog) -> list[tuple[GpuChip, list[Card]]]:
    """Each chip with its cards: curated boards cheapest first, then imported ones (priced at the chip's launch
    price unless a price file gives theirs); a chip with no board in any catalog is its own card, never ranked."""
    boards: dict[str, list[GpuBoard]] = defaultdict(list)
    imported: set[str] = set()
    for board in catalog.all("gpu"):
        assert isinstance(board, GpuBoard)
        boards[board.chip].append(board)
        if catalog.origin("gpu", board.id) == "imported":
            imported.add(board.id)
    result: list[tuple[GpuChip, list[Card]]] = []
    for chip in catalog.all("gpu-chip"):
        assert isinstance(chip, GpuChip)
        cards = []
        for board in boards.get(chip.id, []):
            if board.id in catalog.user_prices:
                user = catalog.user_prices[board.id]
                cards.append(Card(chip, board, user.price, f"your price ({user.date}) from {user.where}"
                                  + (f": {user.note}" if user.note else "")))
            elif board.price is not None:
                cards.append(Card(chip, board, board.price, f"board price ({board.price_date})"
                                  if board.price_date else None))
            elif chip.launch_price is not None:
                cards.append(Card(chip, board, chip.launch_price, "the chip's launch price (no board price)"))
            else:
                cards.append(Card(chip, board, None))
        if not cards:
            cards.append(Card(chip, None, chip.launch_price, "the chip's launch price" if chip.launch_price else None))
        cards.sort(key=lambda c: (c.board is not None and c.board.id in imported, c.price is None, c.price or 0,
                                  c.board.slot_width if c.board else 0))
        result.append((chip, cards))
    return result


class Reason(NamedTuple):
    kind: str
    text: str


def _chip_reason(chip: GpuChip, cards: list[Card], request: Request) -> Reason | None:
    amd = chip.architecture.startswith(perf.AMD_ARCHITECTURES)
    if request.vendor != "any" and amd != (request.vendor == "amd"):
        if amd:
            return Reason("vendor", "an AMD card: most deep-learning software targets CUDA first (include AMD cards"
                                    " with --vendor any)")
        return Reason("vendor", "not an AMD card (--vendor amd)")
    if not chip.workstation_installable:
        return Reason("not-installable",
                      f"an {chip.form.upper()} module: it needs a server baseboard, not a workstation's PCIe slot")
    if request.budget is not None and cards[0].price is None:
        return Reason("no-price", f"no price in the catalog, so it cannot be held to the {usd(request.budget)} budget")
    if cards[0].board is None:
        return Reason("no-board", "no board of this chip in the catalogs (curated or imported) to build with")
    return None


def _memory_or_budget(chip: GpuChip, card: Card, count: int, need: MemoryNeed,
                      budget: float | None) -> Reason | None:
    per_card = need.per_gpu(count)
    usable = chip.memory if need.floor is not None else need.usable(chip.memory).usable
    if usable < per_card:
        split = f" ({need.total:.1f} GiB split over {count})" if count > 1 and need.floor is None else ""
        if need.floor is not None:
            return Reason("memory", f"{num(chip.memory)} GiB < {per_card:.1f} GiB needed per card{split}")
        return Reason("memory", f"{num(chip.memory)} GiB card, {usable:.1f} GiB usable < {per_card:.1f} GiB needed"
                                f" per card{split}")
    if budget is not None and card.price is not None and card.price * count > budget:
        return Reason("budget", f"{usd(card.price * count)} for {count} > {usd(budget)} budget")
    return None


def _first_fitting(cards: list[Card], count: int, fit: BuildFit, broken: dict[str, tuple[int, str]],
                   budget: float | None) -> tuple[Card, Reason | None]:
    """The cheapest board of a chip whose `count` cards pass the build's checks, else why the cheapest
    does not. More cards never fit better, so a board that failed at n is not tried above n."""
    first_reason: Reason | None = None
    for card in cards:
        assert card.board is not None
        if budget is not None and card.price is not None and card.price * count > budget:
            continue
        failed = broken.get(card.board.id)
        problem = failed[1] if failed is not None and count >= failed[0] else fit.problem(card.board, count)
        if problem is None:
            return card, None
        broken.setdefault(card.board.id, (count, problem))
        if first_reason is None:
            first_reason = Reason("build", f"{count} × {card.board.id} in {fit.label}: {problem}")
    return cards[0], first_reason


def _rest_of_build_price(fit: BuildFit) -> float:
    from planner.build.parts_list import parts_list

    return sum(r.line_total or 0.0 for r in parts_list(fit.original) if r.kind != "gpu")


class _Scorer:
    def __init__(self, request: Request, need: MemoryNeed, reference: GpuChip) -> None:
        self.request = request
        self.need = need
        self.reference = reference
        self.workload = need.workload
        self.precision = request.memory.precision
        self.work = _decode_work(request.memory, need)
        self.prompt = request.prompt_tokens or int(params.DEFAULT_PROMPT_TOKENS.value)
        self.output = request.output_tokens or int(params.DEFAULT_OUTPUT_TOKENS.value)
        self.version = engines.get(request.engine).era(request.engine_version).version
        self.serving = request.users > 1
        self.kind: perf.NetworkKind = "cnn" if self.workload == "vision-train" else "transformer"
        self._reference_speed: float | None = None

    def link(self, card: Card, count: int) -> decode.Interconnect:
        fit = self.request.fit
        links = fit.links(card.board, count) if fit is not None and card.board is not None else None
        return decode.interconnect(card.chip, count, links, card.board.pcie_gen if card.board else None)

    def reference_speed(self) -> float:
        if self._reference_speed is None:
            assert self.work is not None
            self._reference_speed = decode.decode(
                self.reference, self.work, self.request.engine, users=self.request.users, version=self.version,
                **self.serving_args(self.reference, 1)).aggregate_tokens_per_s
        return self._reference_speed

    def performance(self, chip: GpuChip, count: int, figures: dict[str, float],
                    estimate: decode.DecodeEstimate | None) -> float:
        if self.workload == "llm-inference":
            if estimate is not None:
                return estimate.aggregate_tokens_per_s / self.reference_speed()
            return perf.decode_relative(chip, self.reference, self.request.engine, self.version)
        link = perf.training_link(chip, count)
        if self.workload == "image-generation":
            single = perf.inference_speed(chip, self.precision) / perf.inference_speed(self.reference, self.precision)
        elif self.workload == "general":
            single = math.prod(figures.values()) ** (1 / len(figures))
        else:
            single = (perf.training_speed(chip, self.kind, largest_batch=True)
                      / perf.training_speed(self.reference, self.kind, largest_batch=True))
        return single * perf.scaling(count, link)

    def candidate(self, card: Card, count: int, reason: Reason | None, rest: float) -> Candidate:
        """An option of `count` cards; `rest`: the price of the machine around them."""
        chip = card.chip
        figures = perf.relative_perf(chip, self.reference)
        estimate = prefilled = None
        link: decode.Interconnect | None = None
        capacity = None
        users_at = None
        if self.work is not None:
            link = self.link(card, count)
            serving = self.serving_args(chip, count)
            capacity = serving.get("capacity")
            estimate = decode.decode(chip, self.work, self.request.engine, count, link, self.request.users,
                                     version=self.version, **serving)
            prefilled = decode.prefill(chip, self.work, self.prompt, self.request.engine, count, link,
                                       version=self.version)
            if self.request.min_tokens_per_s is not None:
                users_at = decode.users_at(chip, self.work, self.request.min_tokens_per_s, self.request.engine, count,
                                           link, version=self.version, most=capacity or 4096,
                                           **{k: v for k, v in serving.items() if k != "capacity"},
                                           capacity=capacity)
                if reason is None and estimate.tokens_per_s < self.request.min_tokens_per_s:
                    reason = Reason("speed", f"{estimate.tokens_per_s:,.1f} tok/s per user <"
                                             f" {self.request.min_tokens_per_s:g} (--min-tok-s) with"
                                             f" {self.request.users} users; {users_at} users get it")
        performance = self.performance(chip, count, figures, estimate)
        price = card.price * count if card.price is not None else None
        cost = None
        if price is not None:
            cost = price + rest
        needed = self.need.per_gpu(count)
        usable = chip.memory if self.need.floor is not None else self.need.usable(chip.memory).usable
        notes = self.notes(card)
        if estimate is not None and count > 1:
            notes.append(_multi_gpu_note(estimate, link, count, self.work))
        headroom = usable - needed
        if reason is not None and reason.kind == "memory" and self.need.engine:
            reason = Reason("memory", f"{reason.text} ({engines.get(self.need.engine).memory} rule)")
        if reason is None and 0 <= headroom < params.TIGHT_FIT.value * usable:
            notes.append(f"tight: {headroom:.1f} GiB spare of {usable:.1f} GiB usable per card")
        scaling = perf.scaling(count, perf.training_link(chip, count))
        inference = self.workload == "llm-inference"
        return Candidate(
            chip=chip.id, name=chip.name, board=card.board.id if card.board else None, count=count,
            fits=reason is None, excluded_reason=reason.text if reason else None,
            excluded_kind=reason.kind if reason else None, memory_gb=chip.memory * count,
            memory_needed_gb=round(self.need.per_gpu(count), 2),
            relative_perf={k: round(v * scaling, 4) for k, v in figures.items()},
            performance=round(performance, 4),
            perf_per_dollar=round(performance / cost * 1000, 4) if cost else None,
            price_usd=price, cost_basis_usd=cost,
            tokens_per_s=round(estimate.tokens_per_s, 1) if estimate is not None else None, notes=notes,
            memory_gib=chip.memory * count, memory_needed_gib=round(needed, 2), usable_gib=round(usable, 2),
            headroom_gib=round(headroom, 2),
            engine=self.request.engine if inference else None, users=self.request.users if inference else 1,
            decode_mode=estimate.mode if estimate is not None else None,
            interconnect=estimate.link if estimate is not None else None,
            ms_per_token=round(estimate.ms_per_token, 2) if estimate is not None else None,
            aggregate_tokens_per_s=round(estimate.aggregate_tokens_per_s, 1) if estimate is not None else None,
            prompt_tokens=prefilled.prompt_tokens if prefilled is not None else None,
            prefill_tokens_per_s=round(prefilled.tokens_per_s) if prefilled is not None else None,
            time_to_first_token_s=round(self.first_token(prefilled, estimate), 3) if prefilled is not None else None,
            engine_version=self.version if inference else None,
            output_tokens=self.output if inference and self.serving else None,
            batched_users=estimate.batched if estimate is not None and self.serving else None,
            max_sequences=capacity if inference and self.serving else None,
            users_at_min_tok_s=users_at,
            peer_to_peer=link.p2p if link is not None and estimate is not None and estimate.mode == "tensor parallel"
            and link.kind == "pcie" else None,
            memory_rule=self.need.rule if inference else None)

    def serving_args(self, chip: GpuChip, count: int) -> dict[str, Any]:
        """Continuous batching's inputs for --users > 1: the prompt and output lengths and the sequences of that
        length whose KV cache the engine's memory rule leaves room for."""
        if not self.serving:
            return {}
        model = self.request.memory.model or self.request.memory.shape
        capacity = None
        if model is not None and model.kv_heads is not None:
            capacity = memory.sequences_that_fit(
                model, self.precision, chip.memory, count, self.request.engine, self.prompt + self.output,
                version=self.request.engine_version, kv_cache=self.request.memory.kv_cache,
                fraction=self.request.memory.memory_fraction)
        return {"prompt": self.prompt, "output": self.output, "capacity": capacity}

    def first_token(self, prefilled: decode.PrefillEstimate, estimate: decode.DecodeEstimate | None) -> float:
        """Seconds to the first token: the prompt's prefill, and with many users one step of the running batch."""
        if estimate is None or not self.serving:
            return prefilled.seconds
        return prefilled.seconds + estimate.ms_per_token / 1e3

    def notes(self, card: Card) -> list[str]:
        chip = card.chip
        notes = []
        if card.price_note and "board price" not in card.price_note:
            notes.append(f"price: {card.price_note}")
        fallback = perf.tensor_throughput(chip, self.precision)[1]
        if fallback and self.workload != "llm-inference":
            notes.append(fallback)
        if chip.architecture.startswith(perf.AMD_ARCHITECTURES):
            notes.append("AMD: needs ROCm (or Vulkan) builds of your software")
        if card.board is not None and card.board.cooler == "passive" and self.request.fit is None:
            notes.append("passive cooler: needs a chassis with server-grade airflow")
        return notes


def _multi_gpu_note(estimate: decode.DecodeEstimate, link: decode.Interconnect | None, count: int,
                    work: decode.DecodeWork | None) -> str:
    """Why several cards decode as fast as they do."""
    label = decode.ENGINE_LABELS.get(estimate.engine, estimate.engine)
    if estimate.mode == "tensor parallel" and link is not None:
        layers = work.layers if work is not None and work.layers else 32
        assumed = " (assumed: no build gives the slots)" if link.assumed and link.kind == "pcie" else ""
        return (f"{label} tensor parallel over {link.label}{assumed}: each card reads 1/{count} of the weights;"
                f" {2 * layers} all-reduces cost {estimate.multi_gpu_ms:.1f} ms of each {estimate.ms_per_token:.1f} ms"
                " token")
    return (f"{label} layer split: the {count} cards take turns, so decode is no faster than one card"
            f" (+{estimate.multi_gpu_ms:.2f} ms per token for the hand-overs); a tensor-parallel engine"
            " (--engine vllm) would add speed")


def _decode_work(request: MemoryRequest, need: MemoryNeed) -> decode.DecodeWork | None:
    """What a token of the requested model costs (LLM inference with a known size), else None."""
    if need.workload != "llm-inference":
        return None
    context = need.context or 1
    if request.model is not None:
        return decode.decode_work(request.model, request.model.parameters, request.precision, context,
                                  request.kv_cache)
    if request.parameters is not None:
        shape = request.shape
        work = decode.decode_work(None, request.parameters, request.precision, context)
        if shape is not None and shape.kv_heads is not None:  # the stand-in shape's KV cache and layers
            scaled = decode.decode_work(shape, shape.parameters, request.precision, context, request.kv_cache)
            return work._replace(kv_bytes=scaled.kv_bytes, layers=scaled.layers, hidden=scaled.hidden,
                                 attention_width=scaled.attention_width)
        return work
    return None
