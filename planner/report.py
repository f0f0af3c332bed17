"""The report of one build (README: planner check contract): verdict, findings and the totals.

Plain named tuples: reports are built from already-validated data, many times a second in the TUI,
and `to_json` gives the CLI contract's JSON directly."""


from typing import Any, Literal, NamedTuple

from planner.build.parts_list import parts_list, total_cents
from planner.checks.engine.context import Context
from planner.checks.engine.findings import Finding
from planner.checks.plan import Plan

Verdict = Literal["pass", "warn", "fail"]


class PsuSummary(NamedTuple):
    part: str
    rating_w: float  # Continuous rating at its circuit's voltage.
    load_w: float | None  # Sustained DC load on it, from the split of the load among the PSUs.
    load_fraction: float | None
    circuit: str
    gpus: list[str]  # The GPUs it feeds through their power inputs ("GPU1", …).


class CircuitSummary(NamedTuple):
    name: str
    outlet: str
    voltage_v: float
    wall_w: float | None  # Sustained wall draw of its PSUs (DC ÷ efficiency) plus its other load.
    continuous_limit_w: float
    assumed: bool  # Not in the build file: the region's default circuit.


class GpuSummary(NamedTuple):
    part: str
    mount: str | None  # Slot (or riser mount) it sits in; null until placed.
    positions: list[int] | None  # Expansion-slot positions its cooler covers.
    lanes: int | None
    power_limit_w: float
    temperature_c: float | None  # Where it settles (thermal model): at its target while it throttles to hold it.
    power_w: float  # What it draws under sustained load: its power limit, or less while it throttles (same model).
    relative_perf: float | None  # Speed vs its default power: power limit and thermal throttling.


class DcBudgetSummary(NamedTuple):
    gpus_w: float
    cpu_w: float
    board_w: float
    ram_w: float
    drives_w: float
    fans_w: float
    other_w: float


class BaseSystemPart(NamedTuple):
    """A part of the base system (RAM, system SSD, CPU cooler) that the price includes."""

    role: str  # ram | ssd | cooler
    part: str  # catalog id
    quantity: int


class Summary(NamedTuple):
    dc_load_w: float  # Sustained DC load.
    dc_peak_w: float | None  # DC load with every GPU at its 1–5 ms excursion at once (PSU protection acts from 1 ms).
    dc_budget: DcBudgetSummary
    psus: list[PsuSummary]
    circuits: list[CircuitSummary]
    gpus: list[GpuSummary]
    relative_perf: float | None  # Whole build, throughput-weighted.
    price_usd: float  # Total of the parts' known prices.
    price_missing: list[str]  # Parts without a price in the catalog.
    price_dates: dict[str, str | None]  # When each priced part's price was seen (YYYY-MM[-DD]; null: undated).
    user_prices: dict[str, str]  # Parts whose price is the user's: "price file prices.toml:3 (…)" or "build file".
    assumptions: list[str]
    price_markets: dict[str, str]  # Each priced part's market: "new", "used" (sold listings) or "yours".
    stale_prices: list[str]  # Priced parts whose price was seen more than 12 months ago (check it before buying).
    #: The base system in the price, as the base-system model chose it (JSON: [{"role", "part", "quantity"}])
    base_system: tuple[BaseSystemPart, ...] = ()

    @property
    def price_unknown(self) -> bool:
        """No part has a price: the total is not $0 but unknown."""
        return bool(self.price_missing) and not self.price_usd


class Report(NamedTuple):
    file: str
    build: str
    verdict: Verdict
    findings: list[Finding]
    summary: Summary
    #: The smallest verified change that clears every error (every warning of a warning build); null when the
    #: build passes or nothing verified clears anything (planner/checks/plan.py).
    plan: Plan | None = None


def verdict_of(findings: list[Finding]) -> Verdict:
    if any(f.severity == "error" for f in findings):
        return "fail"
    if any(f.severity == "warning" for f in findings):
        return "warn"
    return "pass"


def summarize(ctx: Context) -> Summary:
    build, budget = ctx.build, ctx.budget
    split = ctx.power_split
    psus = [PsuSummary(part=p.part.id, rating_w=share.rating, circuit=p.circuit, load_w=share.load,
                       load_fraction=round(share.fraction, 4), gpus=[f"GPU{i + 1}" for i in share.gpus])
            for p, share in zip(build.psus, split.psus, strict=True)]
    circuits = [CircuitSummary(name=c.name, outlet=c.outlet.id, voltage_v=c.outlet.voltage,
                               wall_w=round(draw.wall, 1), continuous_limit_w=c.outlet.continuous_limit,
                               assumed=c.assumed)
                for c, draw in zip(build.circuits, split.circuits, strict=True)]
    gpus = []
    for g in build.gpus:
        mount = ctx.placement.of(g.index)
        gpus.append(GpuSummary(part=g.board.id, mount=mount.mount if mount else None,
                               positions=list(mount.positions) if mount else None,
                               lanes=mount.lanes if mount else None,
                               power_limit_w=g.power_limit, temperature_c=_temperature(ctx, g.index),
                               power_w=round(ctx.thermal.gpus[g.index].power_w, 1),
                               relative_perf=round(ctx.performance.gpus[g.index].relative_perf, 4)))
    price, missing, dates, user, markets, stale = _price(ctx)
    return Summary(
        dc_load_w=budget.total, dc_peak_w=round(sum(share.peak for share in split.psus), 1),
        dc_budget=DcBudgetSummary(gpus_w=budget.gpus, cpu_w=budget.cpu, board_w=budget.board, ram_w=budget.ram,
                                  drives_w=budget.drives, fans_w=budget.fans, other_w=budget.other),
        psus=psus, circuits=circuits, gpus=gpus,
        relative_perf=round(ctx.performance.relative_perf, 4) if ctx.build.gpus else None,  # no GPU, no speed
        price_usd=price, price_missing=missing, price_dates=dates, user_prices=user,
        assumptions=build.assumptions, price_markets=markets, stale_prices=stale,
        base_system=tuple(BaseSystemPart(item.role, item.part.id, item.quantity) for item in build.base))


def _temperature(ctx: Context, gpu: int) -> float | None:
    """Predicted steady temperature, °C (null for a passive card without server airflow)."""
    value = ctx.thermal.gpus[gpu].temperature_c
    return None if value is None else round(value, 1)


def _price(ctx: Context) -> tuple[float, list[str], dict[str, str | None], dict[str, str], dict[str, str],
                                  list[str]]:
    """Total of the known prices, the parts without one, each price's date, the prices that are the user's, each
    price's market and the stale prices."""
    rows = parts_list(ctx.build)
    total = total_cents(rows) / 100  # the sum of the lines as a parts list shows them
    return (total, [r.part_id for r in rows if r.unit_price is None],
            {r.part_id: r.price_date for r in rows if r.unit_price is not None},
            {r.part_id: r.price_from for r in rows if r.user_price and r.price_from},
            {r.part_id: r.market for r in rows if r.market is not None},
            [r.part_id for r in rows if r.stale])


def price_facts(summary: Summary, part_id: str) -> dict[str, Any]:
    """What the report says of one part's price: its market, its date and whether it is stale (JSON-ready; all
    null when the part has no price in the report)."""
    market = summary.price_markets.get(part_id)
    return {"market": market, "price_date": summary.price_dates.get(part_id),
            "stale": part_id in summary.stale_prices if market is not None else None}


def price_tag(summary: Summary, part_id: str) -> str:
    """` (used, 2026-10)`, ` (new, 2023-06, stale)`: a part's price market and date as the report gives them,
    or nothing when it has no price there."""
    facts = price_facts(summary, part_id)
    words = [facts["market"], facts["price_date"], "stale" if facts["stale"] else None]
    return f" ({', '.join(w for w in words if w)})" if facts["market"] else ""


def to_json(report: Report) -> dict[str, Any]:
    """The report as JSON-ready data (README: planner check contract)."""
    data = _plain(report)
    assert isinstance(data, dict)
    return data


def _plain(value: Any) -> Any:
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {key: _plain(item) for key, item in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def make_report(ctx: Context, findings: list[Finding], plan: Plan | None = None) -> Report:
    return Report(file=ctx.build.file, build=ctx.build.name, verdict=verdict_of(findings), findings=findings,
                  summary=summarize(ctx), plan=plan)
