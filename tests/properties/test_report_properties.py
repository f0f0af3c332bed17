"""Properties of every report of a valid build (issue 13, acceptance 4): no NaN or infinity, no negative
watts, no GPU colder than the air it breathes, and every circuit over its limit a finding.

Builds are drawn from the curated catalog parts (any case, board, CPU, 1–3 PSUs on 1–3 circuits of any
outlet with up to 20 kW of other load, 1–3 kinds of GPU at any power limit their range allows, risers,
extras, the room from −10 to 50 °C); a build that does not resolve is not a valid build and is skipped.
Checks run without fixes: the properties are the model's, and fixes only re-run it. More examples with
`REPORT_PROPERTY_EXAMPLES=2000`."""

from __future__ import annotations

import math
import os
from typing import Any

import pytest
import tomlkit
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from planner.build.buildfile import loads
from planner.build.resolve import resolve
from planner.catalog import Catalog, builtin_dir
from planner.checks.engine.context import Context, Settings
from planner.checks.engine.runner import run_checks
from planner.models.parts import GpuBoard
from planner.physics import params
from planner.placement.solver import PlacementTooLarge
from planner.report import Report, make_report, to_json
from planner.util.errors import InputError

EXAMPLES = int(os.environ.get("REPORT_PROPERTY_EXAMPLES", "150"))
CATALOG = Catalog([builtin_dir()])


def _ids(kind: str) -> list[str]:
    return sorted(part.id for part in CATALOG.all(kind, curated=True))


CASES, BOARDS, CPUS, PSUS = _ids("case"), _ids("motherboard"), _ids("cpu"), _ids("psu")
OUTLETS, RISERS = _ids("outlet"), [r for r in _ids("riser")]
GPUS = {part.id: part for part in CATALOG.all("gpu", curated=True) if isinstance(part, GpuBoard)}


@st.composite
def builds(draw: st.DrawFn) -> dict[str, Any]:
    circuits = [{"name": f"c{n}", "outlet": draw(st.sampled_from(OUTLETS)),
                 "other_load": f"{draw(st.integers(0, 20_000))} W"} for n in range(draw(st.integers(1, 3)))]
    psus = [{"part": draw(st.sampled_from(PSUS)), "circuit": draw(st.sampled_from(circuits))["name"]}
            for _ in range(draw(st.integers(1, 3)))]
    gpus = []
    for _ in range(draw(st.integers(1, 3))):
        board = GPUS[draw(st.sampled_from(sorted(GPUS)))]
        gpu: dict[str, Any] = {"part": board.id, "count": draw(st.integers(1, 4))}
        if draw(st.booleans()):
            low, high = board.power_limit_min or board.tdp * 0.5, board.power_limit_max or board.tdp
            gpu["power_limit"] = f"{draw(st.integers(math.ceil(low), math.floor(max(low, high))))} W"
        if draw(st.integers(0, 3)) == 0:
            gpu["riser"] = draw(st.sampled_from(RISERS))
        gpus.append(gpu)
    extras = {"ram_modules": draw(st.integers(0, 16)), "drives": draw(st.integers(0, 8)),
              "fans": draw(st.integers(0, 10)), "other": f"{draw(st.integers(0, 500))} W"}
    return {"name": "drawn", "ambient": draw(st.integers(-10, 50)),
            "case": draw(st.sampled_from(CASES)), "motherboard": draw(st.sampled_from(BOARDS)),
            "cpu": draw(st.sampled_from(CPUS)), "circuit": circuits, "psu": psus, "gpu": gpus, "extras": extras}


def _checked(data: dict[str, Any]) -> tuple[Context, Report]:
    text = tomlkit.dumps(data)
    try:
        spec, raw = loads(text, "drawn.toml")
        build = resolve(spec, raw, CATALOG, label="drawn.toml", text=text)
        ctx = Context(build, CATALOG, Settings(), propose_fixes=False)
        findings = run_checks(build, CATALOG, Settings(), propose_fixes=False, context=ctx)
    except (InputError, PlacementTooLarge):
        assume(False)  # not a valid build (or one too large to place): not what the properties are about
        raise
    return ctx, make_report(ctx, findings)


def _numbers(value: Any) -> list[float]:
    if isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        return [float(value)]
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)]
    if isinstance(value, (list, tuple)):
        return [n for v in value for n in _numbers(v)]
    return []


PROPERTY = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                                  HealthCheck.filter_too_much])


@PROPERTY
@given(builds())
def test_no_report_holds_nan_or_infinity(data: dict[str, Any]) -> None:
    _, report = _checked(data)
    assert all(math.isfinite(n) for n in _numbers(to_json(report)))


@PROPERTY
@given(builds())
def test_no_report_holds_negative_watts(data: dict[str, Any]) -> None:
    _, report = _checked(data)
    summary = to_json(report)["summary"]
    watts = [summary["dc_load_w"], summary["dc_peak_w"] or 0.0, *summary["dc_budget"].values(),
             *(p["load_w"] for p in summary["psus"]), *(p["rating_w"] for p in summary["psus"]),
             *(c["wall_w"] for c in summary["circuits"]), *(g["power_limit_w"] for g in summary["gpus"])]
    watts += [v for f in report.findings if f.unit == "W" for v in (f.value, f.limit) if isinstance(v, (int, float))]
    assert all(w >= 0 for w in watts), watts


@PROPERTY
@given(builds())
def test_no_gpu_is_colder_than_its_inlet_air_or_the_room(data: dict[str, Any]) -> None:
    ctx, _ = _checked(data)
    for gpu in ctx.thermal.gpus:
        assert gpu.inlet_c >= ctx.build.ambient - 1e-9
        if gpu.temperature_c is not None:
            assert gpu.temperature_c >= gpu.inlet_c - 1e-9
        if gpu.unthrottled_c is not None:
            assert gpu.unthrottled_c >= gpu.inlet_c - 1e-9


@PROPERTY
@given(builds())
def test_every_circuit_over_its_limit_is_a_finding(data: dict[str, Any]) -> None:
    ctx, report = _checked(data)
    for draw in ctx.power_split.circuits:
        about = [f for f in report.findings if f.code == "outlet.continuous" and draw.name in f.subject]
        if draw.wall > draw.breaker_rating * params.BREAKER_HOLDS.value:
            assert about and about[0].severity == "error", draw.name
        elif draw.wall > draw.continuous_limit:
            assert about and about[0].severity in ("warning", "error"), draw.name
        else:
            assert not about


def test_a_circuit_over_its_limit_is_drawn_at_all() -> None:
    """The strategy reaches the case the last property is about (a property that never meets it proves little)."""
    circuits = {"name": "c0", "outlet": "nema-5-15", "other_load": "20000 W"}
    data = {"name": "drawn", "case": "fractal-meshify-2-xl", "motherboard": "asus-pro-ws-wrx80e-sage-se",
            "cpu": "amd-threadripper-pro-5975wx", "circuit": [circuits],
            "psu": [{"part": "corsair-ax1600i", "circuit": "c0"}], "gpu": [{"part": "nvidia-rtx-3090-fe"}]}
    _, report = _checked(data)
    assert any(f.code == "outlet.continuous" and f.severity == "error" for f in report.findings)


pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
