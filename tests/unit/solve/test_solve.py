"""`planner solve` (README: Completing a partial build): completed builds pass `planner check`, cost what brute force
over every combination finds cheapest, and infeasible ones name what makes them so."""

from __future__ import annotations

import itertools
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
import tomlkit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.catalog import Catalog
from planner.catalog.prices import load_prices
from planner.models.parts import Psu, Riser
from planner.solve import parse_partial, read_partial, solve
from planner.solve.complete import Completion, RiserPlan
from planner.solve.partial import Partial
from planner.solve.reads import STAGE_OF
from planner.solve.search import Search
from planner.solve.space import Objective

from conftest import run_cli
from helpers import TESTS

DATA = TESTS / "data" / "solve"
SMALL = DATA / "small"
PRICES = DATA / "test-prices.toml"
BUILDS = DATA / "builds"


def small_catalog(directory: Path = SMALL, prices: Path | None = PRICES) -> Catalog:
    catalog = Catalog([directory])
    load_prices(catalog, [prices] if prices else [], user_file=False)
    return catalog


def brute_force(partial: Partial, catalog: Catalog, max_psus: int = 2) -> tuple[tuple[int, float], int] | None:
    """The best completion by exhaustive enumeration: every board × case × CPU × riser plan × PSU multiset (up to
    `max_psus`) × circuit assignment, priced, then checked in full from the cheapest up (estimates judged as
    sourced, as the solver judges them). The cheapest with no error and no warning but those every completion
    has; when there is none, the cheapest whose only other warning is psu.multi's (two PSUs or more, wired as it
    says); when there is none, the cheapest with no error, the fewest warnings among equals.
    ((unpriced parts, USD), warnings) or None."""
    search = Search(partial, catalog, Objective("cheapest", 0.0, None))  # only its check() and candidate lists
    kinds = {k: search.lists[k] for k in ("motherboard", "case", "cpu")}
    risers = [c for c in search.lists.get("riser", []) or _risers(catalog)]
    plans: list[tuple[RiserPlan, tuple[int, float]]] = [(RiserPlan(), (0, 0.0))]
    counts = [int(partial.spec.gpu[i].count) for i in search.movable]
    for moved in itertools.product(*(range(n + 1) for n in counts)):
        if sum(moved):
            for riser in risers:
                moves = tuple((i, m) for i, m in zip(search.movable, moved, strict=True) if m)
                plans.append((RiserPlan(moves, riser.part), _cost(riser.part, sum(moved))))  # type: ignore[arg-type]
    psu_sets: list[tuple[tuple[tuple[Psu, int], ...], int, tuple[int, float]]]
    if partial.given["psu"]:
        psu_sets = [((), len(partial.base.circuits), (0, 0.0))]
    else:
        psu_sets = []
        own = len(partial.spec.circuit)
        for k in range(1, max_psus + 1):
            for chosen in itertools.combinations_with_replacement(search.lists["psu"], k):
                cost = _sum(_cost(c.part, 1) for c in chosen)
                for total in range(max(own, 1), partial.max_circuits + 1):
                    for assignment in itertools.product(range(total), repeat=k):
                        first_use = [c for c in dict.fromkeys(assignment) if c >= own]
                        if first_use != list(range(own, total)):
                            continue
                        units = tuple((c.part, a) for c, a in zip(chosen, assignment, strict=True))
                        psu_sets.append((units, total, cost))  # type: ignore[arg-type]
    combos = []
    for board, case, cpu in itertools.product(kinds["motherboard"], kinds["case"], kinds["cpu"]):
        base = _sum([board.cost, case.cost, cpu.cost])
        for plan, plan_cost in plans:
            for units, circuits, psu_cost in psu_sets:
                completion = Completion(board.part, case.part, plan, cpu.part, units, circuits)  # type: ignore[arg-type]
                combos.append((_sum([base, plan_cost, psu_cost]), completion))
    combos.sort(key=lambda item: item[0])
    from planner.solve.complete import completed_raw

    best: tuple[tuple[int, float], int] | None = None
    multi: tuple[tuple[int, float], int] | None = None
    for price, completion in combos:
        checked = search.check(completed_raw(partial, completion))
        assert checked is not None
        findings = checked[1]
        if any(f.severity == "error" for f in findings):
            continue
        warnings = sum(1 for f in findings if f.severity == "warning")
        others = {f.code for f in findings if f.severity == "warning" and f.code not in search.unavoidable}
        if not others:
            return price, warnings  # the cheapest that passes
        if others == {"psu.multi"} and multi is None:
            multi = (price, warnings)  # the cheapest that only warns how to wire its PSUs
        if best is None or (price == best[0] and warnings < best[1]):
            best = (price, warnings)
    return multi or best


def _risers(catalog: Catalog) -> list[Any]:
    from planner.solve.space import candidates

    return [c for c in candidates(catalog, "riser", priced_only=False) if isinstance(c.part, Riser)
            and c.part.kind == "cable"]


def _cost(part: Any, n: int) -> tuple[int, float]:
    return (n, 0.0) if part.price is None else (0, float(part.price) * n)


def _sum(costs: Any) -> tuple[int, float]:
    total = (0, 0.0)
    for cost in costs:
        total = (total[0] + cost[0], total[1] + cost[1])
    return total


def solved(name: str, *extra: str) -> tuple[int, dict[str, Any]]:
    run = run_cli("solve", BUILDS / name, "--no-builtin", "--catalog", SMALL, "--prices", PRICES, "--format", "json",
                  *extra)
    return run.code, json.loads(run.out)


SIX = ["gpus-only.toml", "gpus-and-case.toml", "gpus-and-board.toml", "four-3-slot-cards.toml",
       "two-psus-two-circuits.toml", "owned-parts.toml"]


@pytest.mark.parametrize("name", SIX)
def test_a_solved_partial_build_passes_planner_check(name: str, tmp_path: Path) -> None:
    out = tmp_path / "completed.toml"
    run = run_cli("solve", BUILDS / name, "--no-builtin", "--catalog", SMALL, "--prices", PRICES, "-o", out)
    assert run.code == 0, run.err
    check = run_cli("check", out, "--catalog", SMALL, "--prices", PRICES)
    assert check.code == 0, check.out


@pytest.mark.parametrize("name", SIX)
def test_solve_finds_the_price_brute_force_finds(name: str) -> None:
    catalog = small_catalog()
    partial = read_partial(BUILDS / name, catalog)
    result = solve(partial, catalog, explain_choices=False)
    oracle = brute_force(partial, catalog)
    assert oracle is not None and result.status == "solved"
    price, warnings = oracle
    assert result.optimal
    assert result.added_usd == pytest.approx(price[1])
    assert result.report is not None
    assert sum(1 for f in result.report.findings if f.severity == "warning") == warnings


def test_four_3_slot_cards_go_onto_risers_in_an_open_frame() -> None:
    code, data = solved("four-3-slot-cards.toml")
    assert code == 0
    kinds = [a["kind"] for a in data["added"]]
    assert "riser" in kinds
    assert any("slot.placement" in reason for reason in data["reasons"])


def test_a_two_psu_need_on_us_15_a_circuits_uses_a_second_circuit() -> None:
    code, data = solved("two-psus-two-circuits.toml")
    assert code == 0
    added = data["added"]
    assert sum(1 for a in added if a["kind"] == "psu") == 2
    assert [a["part"] for a in added if a["kind"] == "circuit"] == ["wall-2"]
    circuits = data["report"]["summary"]["circuits"]
    assert len(circuits) == 2 and all(c["wall_w"] <= 1800 for c in circuits)


def test_owned_parts_are_kept_and_cost_nothing() -> None:
    code, data = solved("owned-parts.toml")
    assert code == 0
    added = {a["kind"] for a in data["added"]}
    assert added == {"motherboard", "cpu"}  # the owned case and PSU are kept, never replaced
    assert data["price_usd"] == sum(a["price_usd"] for a in data["added"])
    assert "owned = true" in data["build_toml"]


def test_an_owned_parts_solve_reports_what_to_buy_and_what_is_owned() -> None:
    code, data = solved("owned-parts.toml")
    catalog = small_catalog()
    owned = (catalog.get("case", "fractal-meshify-2-xl").price + catalog.get("psu", "corsair-ax1600i").price
             + 2 * catalog.get("gpu", "nvidia-rtx-3090-fe").price)
    assert code == 0
    assert data["owned_usd"] == pytest.approx(owned)
    assert data["price_usd"] == pytest.approx(data["added_usd"])  # everything given is owned: nothing else to buy
    assert data["price_usd"] == pytest.approx(sum(a["price_usd"] for a in data["added"]))


def test_the_completed_build_keeps_the_input_comments(tmp_path: Path) -> None:
    code, data = solved("gpus-only.toml")
    assert code == 0
    assert data["build_toml"].startswith("# Two RTX 3090 FE and nothing else")
    assert "# added by planner solve" in data["build_toml"]


def test_solve_json_has_the_issue_keys_and_a_contract_report() -> None:
    code, data = solved("gpus-and-case.toml")
    assert code == 0
    assert {"file", "status", "objective", "price_usd", "added", "build_toml", "report", "searched", "space",
            "optimal", "binding"} <= set(data)
    assert data["status"] == "solved" and data["objective"] == "cheapest"
    assert data["report"]["verdict"] in ("pass", "warn")
    assert 0 < data["searched"] <= data["space"]
    assert all(set(a) == {"kind", "part", "price_usd", "market", "price_date", "stale"} for a in data["added"])


def test_output_is_not_overwritten_without_force(tmp_path: Path) -> None:
    out = tmp_path / "out.toml"
    out.write_text("mine\n")
    run = run_cli("solve", BUILDS / "gpus-only.toml", "--no-builtin", "--catalog", SMALL, "--prices", PRICES,
                  "-o", out)
    assert run.code == 2 and out.read_text() == "mine\n"


def test_four_3090s_on_one_us_15_a_circuit_are_infeasible_and_say_why() -> None:
    catalog = small_catalog()
    partial = parse_partial('region = "us"\n[[gpu]]\npart = "nvidia-rtx-3090-fe"\ncount = 4\n', "quad.toml", catalog)
    result = solve(partial, catalog)
    assert result.status == "infeasible" and result.optimal
    assert result.binding is not None and "NEMA 5-15" in result.binding and "1,800 W" in result.binding


def test_an_infeasible_build_exits_1_with_one_sentence(tmp_path: Path) -> None:
    path = tmp_path / "quad.toml"
    path.write_text('region = "us"\n[[gpu]]\npart = "nvidia-rtx-3090-fe"\ncount = 4\n')
    run = run_cli("solve", path, "--no-builtin", "--catalog", SMALL)
    assert run.code == 1
    assert run.err.count("\n") == 1 and "outlet.continuous" in run.err  # the circuit binds first, before the PSUs


def test_a_card_no_case_holds_is_infeasible_by_its_length(tmp_path: Path) -> None:
    path = tmp_path / "long.toml"
    path.write_text('case = "nzxt-h510"\n[[gpu]]\npart = { base = "nvidia-rtx-3090-fe", length = 420 }\n')
    run = run_cli("solve", path, "--no-builtin", "--catalog", SMALL, "--format", "json")
    assert run.code == 1
    data = json.loads(run.out)
    assert data["status"] == "infeasible" and "case.gpu-length" in data["binding"]


def test_a_power_limit_out_of_range_is_infeasible_before_any_search(tmp_path: Path) -> None:
    path = tmp_path / "low.toml"
    path.write_text('[[gpu]]\npart = "nvidia-rtx-3090-fe"\npower_limit = 50\n')
    run = run_cli("solve", path, "--no-builtin", "--catalog", SMALL, "--format", "json")
    assert run.code == 1 and "power-limit.range" in json.loads(run.out)["binding"]


def test_power_limits_are_lowered_only_when_allowed() -> None:
    catalog = small_catalog()
    text = 'region = "us"\ncase = "generic-8-gpu-aluminium-mining-frame"\n' \
           'motherboard = "supermicro-m12swa-tf"\n[[gpu]]\npart = "gigabyte-rtx-3090-turbo"\ncount = 4\n'
    partial = parse_partial(text, "turbo.toml", catalog)
    assert solve(partial, catalog).status == "infeasible"
    allowed = solve(partial, catalog, allow_power_limits=True)
    assert allowed.status == "solved" and allowed.build_toml is not None
    assert "power_limit" in allowed.build_toml and any("power limits lowered" in n for n in allowed.notes)


def test_a_partial_build_that_names_slots_without_a_board_is_bad_input(tmp_path: Path) -> None:
    path = tmp_path / "slots.toml"
    path.write_text('[[gpu]]\npart = "nvidia-rtx-3090-fe"\nslot = "PCIE1"\n')
    run = run_cli("solve", path, "--no-builtin", "--catalog", SMALL)
    assert run.code == 2 and "gpu[0].slot" in run.err


def test_no_builtin_without_a_catalog_is_bad_input() -> None:
    run = run_cli("solve", BUILDS / "gpus-only.toml", "--no-builtin")
    assert run.code == 2 and "--catalog" in run.err


def test_every_field_a_check_may_read_has_the_stage_that_chooses_it() -> None:
    from planner.checks.engine.registry import FIELDS

    assert STAGE_OF.keys() == FIELDS.keys()


def test_a_build_file_with_owned_parts_and_max_circuits_checks(tmp_path: Path) -> None:
    text = (BUILDS / "owned-parts.toml").read_text() + 'motherboard = "asus-pro-ws-wrx80e-sage-se"\n'
    text = 'motherboard = "asus-pro-ws-wrx80e-sage-se"\ncpu = "amd-threadripper-pro-5965wx"\nmax_circuits = 2\n' + \
        (BUILDS / "owned-parts.toml").read_text()
    path = tmp_path / "owned.toml"
    path.write_text(text)
    run = run_cli("check", path, "--catalog", SMALL, "--format", "json")
    assert run.code in (0, 1), run.err
    assert json.loads(run.out)[0]["summary"]["psus"][0]["part"] == "corsair-ax1600i"


# -- random small catalogs against brute force ------------------------------------------------------------------

KINDS = {"motherboards.toml": 2, "cases.toml": 2, "cpus.toml": 2, "psus.toml": 2, "risers.toml": 1}
GPU_CHOICES = ["nvidia-rtx-3090-fe", "gigabyte-rtx-3090-turbo", "nvidia-rtx-4090-fe", "msi-rtx-3060-ventus-2x-12g"]


@st.composite
def small_catalogs(draw: st.DrawFn) -> tuple[dict[str, list[str]], dict[str, int], str, int, str]:
    chosen: dict[str, list[str]] = {}
    prices: dict[str, int] = {}
    for name, least in KINDS.items():
        ids = list(tomlkit.parse((SMALL / name).read_text()).keys())
        picked = draw(st.lists(st.sampled_from(ids), min_size=least, max_size=min(len(ids), least + 1), unique=True))
        chosen[name] = picked
        for part in picked:
            prices[part] = draw(st.integers(min_value=20, max_value=3000))
    return chosen, prices, draw(st.sampled_from(GPU_CHOICES)), draw(st.integers(1, 3)), draw(st.sampled_from(
        ["us", "eu"]))


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_catalogs())
def test_solve_equals_brute_force_on_random_small_catalogs(drawn: tuple[dict[str, list[str]], dict[str, int], str,
                                                                        int, str]) -> None:
    chosen, prices, gpu, count, region = drawn
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        for name in ("gpu-chips.toml", "gpus.toml", "outlets.toml"):
            (directory / name).write_text((SMALL / name).read_text())
        for name, ids in chosen.items():
            source = tomlkit.parse((SMALL / name).read_text())
            document = tomlkit.document()
            for part in ids:
                document[part] = source[part]
            (directory / name).write_text(tomlkit.dumps(document))
        price_file = directory / "prices.toml"
        price_file.write_text("[prices]\n" + "".join(f'{part} = {{ price = {price}, date = "2026-01" }}\n'
                                                     for part, price in prices.items()))
        catalog = small_catalog(directory, price_file)
        text = f'region = "{region}"\n[[gpu]]\npart = "{gpu}"\ncount = {count}\n'
        partial = parse_partial(text, "random.toml", catalog)
        result = solve(partial, catalog, explain_choices=False)
        oracle = brute_force(partial, catalog)
        if oracle is None:
            assert result.status == "infeasible"
            return
        assert result.status == "solved" and result.optimal
        assert result.added_usd == pytest.approx(oracle[0][1])
        assert result.report is not None
        assert sum(1 for f in result.report.findings if f.severity == "warning") == oracle[1]


# -- estimated figures are never a loophole ---------------------------------------------------------------------
_CHEAP_PSU = """
[budget-2000w]
name = "Budget 2000 W (test)"
maker = "Test"
wattage = 2000
efficiency = "80plus-gold"
atx_version = "3.0"
connectors = {{ "pcie-8pin" = 6, "eps-8pin" = 2 }}
form_factor = "atx"
length = "180 mm"
ac_inlet = "c20"
price = 100
price_date = "2026-11"
price_source = "a test price, not market data"
source = "a test entry: its plug counts are{what}"
{estimated}
"""

_INPUTS = ", ".join(['"pcie-8pin"'] * 20)
_MANY_INPUTS = f"""
name = "One card with 20 PCIe 8-pin inputs"
region = "eu"
[[gpu]]
part = {{ base = "nvidia-rtx-3090-fe", power_connectors = [{_INPUTS}] }}
"""


def _solve_with_psu(tmp_path: Path, estimated: bool) -> Any:
    directory = tmp_path / ("estimated" if estimated else "sourced")
    directory.mkdir()
    for path in SMALL.iterdir():
        (directory / path.name).write_text(path.read_text())
    entry = _CHEAP_PSU.format(what=" an estimate" if estimated else " published",
                              estimated='estimated = ["connectors"]' if estimated else "")
    (directory / "psus.toml").write_text((SMALL / "psus.toml").read_text() + entry)
    catalog = small_catalog(directory)
    partial = parse_partial(_MANY_INPUTS, "many-inputs.toml", catalog)
    return solve(partial, catalog, explain_choices=False)


def test_an_estimated_plug_count_never_lets_solve_pick_a_psu_the_same_count_sourced_would_reject(
        tmp_path: Path) -> None:
    estimated, sourced = _solve_with_psu(tmp_path, True), _solve_with_psu(tmp_path, False)
    assert sourced.status == "infeasible"  # no unit has 20 PCIe plugs, and a card's cables come from one unit
    assert estimated.status == sourced.status
    assert "budget-2000w" not in (estimated.build_toml or "")


def test_a_check_still_warns_not_fails_on_an_estimated_plug_count(tmp_path: Path) -> None:
    directory = tmp_path / "cat"
    directory.mkdir()
    (directory / "psus.toml").write_text(_CHEAP_PSU.format(what=" an estimate", estimated='estimated = ["connectors"]'))
    build = tmp_path / "b.toml"
    platform = ('case = "fractal-meshify-2-xl"\nmotherboard = "asus-pro-ws-wrx80e-sage-se"\n'
                'cpu = "amd-threadripper-pro-5975wx"\n[[psu]]\npart = "budget-2000w"\n')
    build.write_text(_MANY_INPUTS.replace('region = "eu"\n', 'region = "eu"\n' + platform))
    run = run_cli("check", build, "--catalog", directory, "--format", "json")
    [report] = json.loads(run.out)
    [finding] = [f for f in report["findings"] if f["code"] == "psu.connectors"]
    assert finding["severity"] == "warning" and "estimate" in finding["message"]


def test_a_partial_build_without_gpus_is_one_sentence_not_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "nogpu.toml"
    path.write_text('name = "No cards yet"\n')
    run = run_cli("solve", path, "--no-builtin", "--catalog", SMALL)
    assert run.code == 2 and "Traceback" not in run.err
    assert run.err == f"planner: {path}: gpu: names no GPU: the solver completes a build around its cards; add a" \
                      ' [[gpu]] table, e.g. [[gpu]] part = "nvidia-rtx-3090-fe" count = 2\n'


def test_a_card_with_more_8_pin_inputs_than_any_psu_has_plugs_is_infeasible_before_the_search() -> None:
    """Issue 26: this took the search to its limit (29 s); a card's cables come from one PSU, so the bound is
    known before any part is chosen."""
    catalog = small_catalog()
    partial = parse_partial(_MANY_INPUTS, "many-inputs.toml", catalog)
    result = solve(partial, catalog, explain_choices=False)
    assert result.status == "infeasible" and result.searched == 0
    assert "has 20 PCIe 8-pin inputs" in (result.binding or "")


def test_more_cards_than_any_board_has_slots_for_is_infeasible_before_the_search() -> None:
    """Issue 26: an infeasible 16-card solve searched to its limit (13–17 s); a board's slot count bounds it."""
    catalog = small_catalog()
    text = ('name = "Sixteen cards"\nregion = "us"\nmax_circuits = 4\n'
            '[[gpu]]\npart = "gigabyte-rtx-3090-turbo"\ncount = 16\n')
    result = solve(parse_partial(text, "sixteen.toml", catalog), catalog, allow_power_limits=True,
                   explain_choices=False)
    assert result.status == "infeasible" and result.searched == 0
    assert "slot.placement: 16 cards need 16 " in (result.binding or "")
