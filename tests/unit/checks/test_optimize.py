"""The power-limit optimiser (README: Power-limit optimiser) and `planner optimize`."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

from planner.checks.engine.findings import Change
from planner.checks.optimize import apply_to_toml, optimize, power_limit_codes

from conftest import EXAMPLES, example, run_cli
from helpers import BASE, TEST_CATALOG, TESTS, build, gpus, report

DETTMERS = ["fail-dettmers-quad-3090-us-15a.toml", "fail-dettmers-quad-3090-230v.toml"]
OPTIMISER_FIX = re.compile(r"^set \d+ W on .+: ([−+]\d+ % estimated throughput|no measurable throughput cost);"
                           r" clears [a-z.\-, ]+( \(errors cleared; [a-z.\-, ]+ still warns?\))?$")


def _report(path: Path) -> dict:  # type: ignore[type-arg]
    [report] = json.loads(run_cli("check", path, "--format", "json").out)
    return report  # type: ignore[no-any-return]


def _errors(report: dict) -> set[str]:  # type: ignore[type-arg]
    return {f["code"] for f in report["findings"] if f["severity"] == "error"}


def _apply(path: Path, changes: list[dict], out: Path) -> Path:  # type: ignore[type-arg]
    out.write_text(apply_to_toml(path.read_text(), [Change(c["path"], c["value"]) for c in changes], "test"))
    return out


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.toml")), ids=lambda p: p.stem)
def test_every_fix_the_optimiser_proposes_passes_check_when_applied(path: Path, tmp_path: Path) -> None:
    before = _report(path)
    proposed = [fix for f in before["findings"] for fix in f["fixes"] if OPTIMISER_FIX.match(fix["description"])]
    for fix in proposed:
        after = _report(_apply(path, fix["changes"], tmp_path / path.name))
        assert not {c for c in _errors(after) if c in power_limit_codes()}, fix["description"]
        assert _errors(after) <= _errors(before)  # nothing new breaks
        if all(c in power_limit_codes() for c in _errors(before)):
            assert after["verdict"] != "fail"  # only power/outlet/thermal errors: the fix makes it pass


@pytest.mark.parametrize("name", DETTMERS)
def test_dettmers_builds_fail_and_pass_with_the_limits_the_optimiser_writes(name: str, tmp_path: Path) -> None:
    assert run_cli("check", example(name)).code == 1
    out = tmp_path / name
    written = run_cli("optimize", example(name), "-o", out)
    assert written.code == 0 and "estimated throughput; clears" in written.err
    assert run_cli("check", out).code == 0


def test_the_optimiser_offers_its_limits_with_their_cost_on_the_power_limit_cost_finding() -> None:
    report = _report(example("fail-dettmers-quad-3090-us-15a.toml"))
    [cost] = [f for f in report["findings"] if f["code"] == "power-limit.cost"]
    [fix] = cost["fixes"]
    assert fix["verified"] is True
    assert re.match(r"set \d+ W on all four GPUs: −\d+ % estimated throughput; clears .*outlet\.continuous",
                    fix["description"]), fix["description"]
    assert "psu.headroom" in fix["description"]


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.toml")), ids=lambda p: p.stem)
def test_the_optimisers_fix_names_the_problems_it_leaves_warning(path: Path, tmp_path: Path) -> None:
    # it clears errors at the least cost; the checks' own limits clear their warnings too
    before = _report(path)
    if path.name == "fail-psu-quad-3090-fe-1600w.toml":  # 305 W: the circuit and the PSU's rating still warn
        assert any("(errors cleared; outlet.continuous and psu.headroom still warn)"
                   in fix["description"] and OPTIMISER_FIX.match(fix["description"])
                   for f in before["findings"] for fix in f["fixes"])
    for fix in {fix["description"]: fix for f in before["findings"] for fix in f["fixes"]
                if OPTIMISER_FIX.match(fix["description"])}.values():
        after = _report(_apply(path, fix["changes"], tmp_path / path.name))
        warned = sorted({f["code"] for f in after["findings"] if f["severity"] == "warning"
                         and f["code"] in fix["description"].split("; clears ")[1].split(" (")[0].split(", ")})
        said = re.search(r"\(errors cleared; (.*) still warns?\)", fix["description"])
        assert sorted(re.split(r", | and ", said.group(1))) == warned if said else not warned, fix["description"]


@pytest.mark.parametrize("name", DETTMERS)
def test_the_optimised_limit_is_the_highest_that_clears_the_errors(name: str, tmp_path: Path) -> None:
    from planner.api import load_build
    from planner.catalog import Catalog

    plan = optimize(load_build(example(name), Catalog()), Catalog())
    [limit] = plan.limits.values()
    one_step_up = _report(_apply(example(name), [{"path": "gpu[0].power_limit", "value": f"{limit + 5:g} W"}],
                                 tmp_path / name))
    assert {c for c in _errors(one_step_up) if c in power_limit_codes()}  # 5 W more and it fails again


def test_with_two_kinds_of_card_each_is_raised_as_far_as_it_goes() -> None:
    text = BASE.replace("nema-5-20", "nema-5-15") + gpus("nvidia-rtx-3090-fe", 2) + gpus("nvidia-rtx-4090-fe", 2)
    resolved = build(text)
    plan = optimize(resolved, TEST_CATALOG)
    assert set(plan.limits) == {0, 1} and plan.clears and not _power_errors(text, plan.limits)
    for group, limit in plan.limits.items():
        if limit < resolved.gpus[2 * group].board.tdp:
            assert _power_errors(text, {**plan.limits, group: limit + 5}), f"table {group} could go 5 W higher"


def _power_errors(text: str, limits: dict[int, float]) -> set[str]:
    changed = apply_to_toml(text, [Change(f"gpu[{g}].power_limit", f"{w:g} W") for g, w in limits.items()], "")
    return {f.code for f in report(changed).findings if f.severity == "error" and f.code in power_limit_codes()}


def test_what_no_power_limit_clears_is_reported_as_remaining(tmp_path: Path) -> None:
    few = BASE.replace('part = "corsair-ax1600i"',
                       'part = { base = "corsair-ax1600i", connectors = { "pcie-8pin" = 3, "eps-8pin" = 2 } }')
    text = few + gpus("nvidia-rtx-3090-fe", 2, 'power_limit = "300 W"')  # 4 plugs wanted at any limit
    plan = optimize(build(text), TEST_CATALOG)
    assert "psu.connectors" in plan.remaining
    path = tmp_path / "few-plugs.toml"
    path.write_text(text)
    result = run_cli("optimize", path, "--catalog", TESTS / "data" / "catalog")
    assert result.code == 1 and "no power limit clears psu.connectors" in result.err


def test_optimize_exits_1_and_names_the_slot_error_that_remains_after_its_limits() -> None:
    # the limits clear the PSU and outlet errors, but four 3-slot cards still do not fit the board
    result = run_cli("optimize", example("fail-psu-quad-3090-fe-1600w.toml"))
    assert result.code == 1
    assert "no power limit clears slot.placement: the build still fails" in result.err
    assert "slot.placement" in json.loads(run_cli("optimize", example("fail-psu-quad-3090-fe-1600w.toml"),
                                                  "--format", "json").out)["remaining"]


def test_a_problem_of_a_check_that_reads_no_power_limit_is_not_the_optimisers() -> None:
    passive = BASE + '[[gpu]]\npart = { base = "gigabyte-rtx-3090-turbo", cooler = "passive", name = "Passive" }\n'
    plan = optimize(build(passive), TEST_CATALOG)
    assert "thermal.passive" not in power_limit_codes()
    assert not plan.remaining and not plan.clears and not plan.changes


# -- planner optimize: the file it writes ----------------------------------------------------------------
def test_optimize_keeps_the_files_comments_and_order_and_adds_the_limit(tmp_path: Path) -> None:
    source = example("fail-dettmers-quad-3090-us-15a.toml")
    out = tmp_path / "out.toml"
    assert run_cli("optimize", source, "-o", out).code == 0
    original, written = source.read_text().splitlines(), out.read_text().splitlines()
    assert [line for line in written if not line.startswith(("power_limit", "name = "))] == [
        line for line in original if not line.startswith("name = ")]
    [limit] = [line for line in written if line.startswith("power_limit")]
    assert re.fullmatch(r'power_limit = "\d+ W" # planner optimize: −\d+ % estimated throughput', limit)


def test_optimize_without_o_prints_the_new_build_on_stdout() -> None:
    result = run_cli("optimize", example("fail-dettmers-quad-3090-230v.toml"))
    assert result.code == 0
    assert tomllib.loads(result.out)["gpu"][0]["power_limit"].endswith(" W")


def test_optimize_replaces_an_existing_limit_and_keeps_the_users_comment(tmp_path: Path) -> None:
    text = re.sub(r"^count = 4.*$", 'count = 4\npower_limit = "350 W"  # my note',
                  example("fail-dettmers-quad-3090-230v.toml").read_text(), flags=re.M)
    path = tmp_path / "b.toml"
    path.write_text(text)
    out = run_cli("optimize", path).out
    [line] = [line for line in out.splitlines() if line.startswith("power_limit")]
    assert line.endswith("# my note") and '"350 W"' not in line


def test_optimize_never_overwrites_a_file_without_force(tmp_path: Path) -> None:
    out = tmp_path / "out.toml"
    out.write_text("mine")
    result = run_cli("optimize", example("fail-dettmers-quad-3090-230v.toml"), "-o", out)
    assert result.code == 2 and out.read_text() == "mine" and "--force" in result.err
    assert run_cli("optimize", example("fail-dettmers-quad-3090-230v.toml"), "-o", out, "--force").code == 0
    assert "power_limit" in out.read_text()


def test_optimize_strict_clears_the_warnings_too(tmp_path: Path) -> None:
    out = tmp_path / "strict.toml"
    assert run_cli("optimize", example("fail-dettmers-quad-3090-us-15a.toml"), "--strict", "-o", out).code == 0
    report = _report(out)
    assert not [f for f in report["findings"] if f["code"] in power_limit_codes() and f["severity"] != "info"]


def test_a_build_the_optimiser_cannot_improve_is_printed_unchanged() -> None:
    source = example("pass-dual-3090-wrx80.toml")
    result = run_cli("optimize", source)
    assert result.code == 0 and result.out == source.read_text() and "unchanged" in result.err


def test_any_check_can_offer_the_optimisers_limits_on_its_own_finding() -> None:
    from planner.api import load_build
    from planner.catalog import Catalog
    from planner.checks.engine.context import Context, Settings
    from planner.checks.engine.runner import _recheck, run_checks
    from planner.checks.rules.power_limit import power_limit_fix

    catalog, settings = Catalog(), Settings()
    resolved = load_build(example("fail-dettmers-quad-3090-us-15a.toml"), catalog)
    errors = {f.code for f in run_checks(resolved, catalog, propose_fixes=False) if f.severity == "error"}
    ctx = Context(resolved, catalog, settings, errors_before=errors,
                  recheck=lambda changes: _recheck(resolved, catalog, settings, changes))
    fix = power_limit_fix(ctx, "outlet.continuous")
    assert fix is not None and fix.verified and "clears" in fix.description, fix
    assert power_limit_fix(ctx, "case.gpu-height") is None  # not a problem a power limit clears
