"""`planner recommend` and `planner tco` as plain text and as JSON-ready data."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict
from typing import Any

from planner.recommend import params
from planner.recommend.decode import ENGINE_LABELS
from planner.recommend.memory import MemoryNeed
from planner.recommend.plot import label
from planner.recommend.rank import Candidate, Recommendation
from planner.recommend.tco import BuildCost, Tco
from planner.util.fmt import num, printable, usd

#: How each kind of exclusion is counted in the text summary.
EXCLUSIONS = {"memory": "too little memory", "budget": "over budget", "build": "do not fit the build",
              "vendor": "of another vendor",
              "not-installable": "server modules", "no-price": "without a price", "no-board": "without a board",
              "speed": "too slow per user (--min-tok-s)"}


def headline(rec: Recommendation, precision: str) -> str:
    need = rec.need
    parts = [rec.model.name if rec.model else "no model named", rec.workload]
    if need.method == "qlora":
        parts.append("QLoRA (NF4 base model)")
    elif need.method == "lora":
        parts.append(f"LoRA on a {need.precision or precision} base model")
    elif need.method == "full" or rec.workload == "vision-train":
        parts.append("full training in mixed precision")
    else:
        parts.append(need.precision or precision)
    if need.method in ("lora", "qlora") and need.framework:
        parts.append(f"framework {need.framework}")
    if need.context:
        parts.append(f"context {need.context:,} tokens")
    if need.batch and need.batch > 1:
        parts.append(f"batch {need.batch}")
    if rec.budget is not None:
        parts.append(f"budget {usd(rec.budget)}")
    if rec.build:
        parts.append(f"in {rec.build}")
    return "Recommendation: " + ", ".join(parts)


def memory_lines(need: MemoryNeed, counts: list[int]) -> list[str]:
    if need.floor is not None:
        lines = [f"Memory need: {need.floor:g} GiB per card"]
    else:
        terms = " + ".join(f"{c.name} {c.gb:.2f}" for c in need.components)
        lines = [f"Memory need (GiB): {need.total:.1f} on one card = {terms}"]
        if len(counts) > 1 or counts[0] > 1:
            lines.append("  per card: " + " · ".join(f"{n} card{'s' if n > 1 else ''} {need.per_gpu(n):.1f} GiB"
                                                     for n in counts))
        usable = need.usable(24.0)
        if need.rule:
            lines.append(f"  fits when (engine rule) {need.rule} (a 24 GiB card: {usable.usable:.1f} GiB)")
        else:
            lines.append(f"  usable per card: capacity − {usable.context:g} GiB CUDA context"
                         + (f" − {usable.display:g} GiB display" if usable.display else "")
                         + f" − {params.FRAGMENTATION_MARGIN.value:.0%} fragmentation margin"
                         f" (a 24 GiB card: {usable.usable:.1f} GiB)")
    lines.extend(f"  note: {note}" for note in need.notes)
    return lines


def table(rows: list[Candidate], decode: bool) -> list[str]:
    decode = decode and any(c.tokens_per_s is not None for c in rows)
    option_width = max([len("option"), *(len(label(c)) for c in rows)])
    boards = [c.board or "(no board in the catalog)" for c in rows]
    board_width = max([len("board"), *(len(b) for b in boards)])
    users = max((c.users for c in rows), default=1)
    header = (f"  {'#':>2}  {'option':<{option_width}}  {'board':<{board_width}} {'memory':>8} {'price':>8}"
              f" {'perf':>6} {'per $1k':>8}")
    if decode:
        header += f"  {'decode':>11}" + (f"  {'all users':>11}" if users > 1 else "") + "  first token"
    # A note every row shares (a layer split's, an assumed link's) is said once, under the table.
    shared = set.intersection(*(set(c.notes) for c in rows)) if len(rows) > 1 else set()
    lines = [header]
    for i, (c, board) in enumerate(zip(rows, boards, strict=True), start=1):
        price = usd(c.price_usd) if c.price_usd is not None else "-"
        value = f"{c.perf_per_dollar:.3f}" if c.perf_per_dollar is not None else "-"
        line = (f"  {i:>2}  {label(c):<{option_width}}  {board:<{board_width}} {num(c.memory_gib):>4} GiB"
                f" {price:>8} {c.performance:>6.3f} {value:>8}")
        if decode and c.tokens_per_s is not None:
            line += f"  {c.tokens_per_s:>5,.1f} tok/s"
            if users > 1 and c.aggregate_tokens_per_s is not None:
                line += f"  {c.aggregate_tokens_per_s:>5,.0f} tok/s"
            if c.time_to_first_token_s is not None:
                line += f"  {c.time_to_first_token_s:,.2f} s"
        lines.append(line)
        lines.extend(f"        {note}" for note in c.notes if note not in shared)
    lines.extend(f"  every option above: {note}" for note in sorted(shared))
    return lines


def inference_line(rec: Recommendation) -> str | None:
    """What the decode and first-token columns mean."""
    first = next((c for c in rec.candidates if c.prompt_tokens is not None), None)
    if first is None:
        return None
    engine = ENGINE_LABELS.get(first.engine or "", first.engine or "")
    era = f" ({first.engine_version} era)" if first.engine_version else ""
    users = (f"{first.users} users served by continuous batching ({first.prompt_tokens:,}-token prompts,"
             f" {first.output_tokens or 0:,}-token answers): tok/s per user, and all users together" if first.users > 1
             else "one user: tok/s")
    return (f"Decode with {engine}{era}, {users}; first token: the time to process a {first.prompt_tokens:,}-token"
            " prompt (--prompt)")


def exclusions(candidates: list[Candidate]) -> list[str]:
    left_out = [c for c in candidates if not c.fits]
    if not left_out:
        return []
    counts = Counter(c.excluded_kind for c in left_out)
    lines = [f"Left out: {len(left_out)} options (--format json lists each with its reason)"]
    for kind, count in counts.most_common():
        example = next(c for c in left_out if c.excluded_kind == kind)
        lines.append(f"  {count} {EXCLUSIONS.get(kind or '', kind or '')}, e.g. {label(example)}: "
                     f"{example.excluded_reason}")
    return lines


def tco_lines(tco: Tco, cost: BuildCost | None = None, title: str = "Cloud vs buy") -> list[str]:
    lines = [f"{title}: hardware {usd(tco.hardware_cost_usd)}, {num(tco.power_w)} W at the wall"
             + (f" ({cost.how})" if cost else "")]
    if cost and cost.price_missing:
        lines.append(f"  price without {', '.join(cost.price_missing)} (no price in the catalog)")
    lines.append(f"  at {tco.hours_per_day:g} h a day ({tco.utilization:.0%}) and ${tco.electricity_usd_per_kwh:g}/kWh:"
                 f" {num(tco.kwh_per_year)} kWh and {usd(tco.electricity_usd_per_year)} of electricity a year")
    if tco.cloud_usd_per_hour is not None and tco.cloud_usd_per_year is not None:
        lines.append(f"  the cloud at ${tco.cloud_usd_per_hour:g}/h: {usd(tco.cloud_usd_per_year)} a year; "
                     + (f"break-even after {num(tco.break_even_days)} days ({tco.break_even_months:g} months)"
                        if tco.break_even_days is not None else "no break-even"))
    lines.append(f"  {tco.verdict}")
    return lines


def render(rec: Recommendation, precision: str, counts: list[int], top: int, tco: Tco | None,
           cost: BuildCost | None, chosen: Candidate | None, chart: str) -> str:
    decode = rec.workload == "llm-inference"
    share = (f"the cards plus the other parts of {rec.build}" if rec.build else
             "the cards plus the machine around them (board, case, CPU, PSUs, RAM, SSD, cooler: what planner"
             " solve buys for that many 2-slot 350 W cards)")
    lines = [headline(rec, precision), *memory_lines(rec.need, counts),
             f"Performance: {rec.basis}, relative to one H100 SXM (= 1.00); per $1,000 of {share}"]
    explained = inference_line(rec)
    if explained:
        lines.append(explained)
    lines.extend(f"Build problem (not caused by the GPUs): {p}" for p in rec.build_problems)
    lines.append("")
    if rec.by_value:
        lines.append("Best performance per dollar")
        lines.extend(table(rec.by_value[:top], decode))
        lines.append("")
        lines.append("Fastest")
        lines.extend(table(rec.by_speed[: max(3, top // 2)], decode))
    else:
        lines.append("No option fits: see why below (a bigger budget, more cards, a lower precision or a smaller"
                     " model would help).")
    lines.append("")
    lines.extend(exclusions(rec.candidates))
    if tco is not None and chosen is not None:
        lines.append("")
        lines.extend(tco_lines(tco, cost, f"Cloud vs buy for {label(chosen)}"))
    # each line one line: a newline in a chip's or board's name (a user catalog's) cannot forge one
    lines = [printable(line) for line in lines]
    if chart:  # printable line by line already (planner/recommend/plot.py)
        lines.append("")
        lines.append(chart.rstrip("\n"))
    return "\n".join(lines) + "\n"


def to_json(rec: Recommendation, precision: str, counts: list[int], tco: Tco | None, chosen: Candidate | None,
            into: dict[str, Any] | None) -> dict[str, Any]:
    need = rec.need
    return {
        "workload": rec.workload, "model": rec.model.id if rec.model else None, "precision": precision,
        "context": need.context, "batch": need.batch, "method": need.method, "budget_usd": rec.budget,
        # GiB throughout; the `_gb` keys are the old names of the same GiB figures, kept for compatibility.
        "memory": {"total_gb": round(need.total, 2), "floor_gb": need.floor,
                   "components": [{"name": c.name, "gb": round(c.gb, 3), "split": c.split, "gib": round(c.gb, 3)}
                                  for c in need.components],
                   "per_gpu_gb": {str(n): round(need.per_gpu(n), 2) for n in counts}, "notes": need.notes,
                   "unit": "GiB", "total_gib": round(need.total, 2), "floor_gib": need.floor,
                   "per_gpu_gib": {str(n): round(need.per_gpu(n), 2) for n in counts},
                   "format": need.precision, "framework": need.framework, "display": need.display,
                   "usable": {"cuda_context_gib": params.CUDA_CONTEXT.value,
                              "display_gib": params.DISPLAY_RESERVATION.value if need.display else 0.0,
                              "fragmentation_fraction": params.FRAGMENTATION_MARGIN.value},
                   "engine_rule": need.rule, "memory_fraction": need.memory_fraction},
        "performance_basis": rec.basis, "reference_chip": params.REFERENCE_CHIP,
        "engine": rec.engine, "users": rec.users, "prompt_tokens": rec.prompt_tokens,
        "engine_version": rec.engine_version, "output_tokens": rec.output_tokens,
        "build": rec.build, "build_problems": rec.build_problems,
        "recommended": asdict(chosen) if chosen else None,
        "candidates": [asdict(c) for c in rec.candidates],
        "tco": tco._asdict() if tco else None,
        "into": into,
    }
