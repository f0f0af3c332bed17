"""Every error a builder could act on comes with a fix (issue 25): the test walks the check registry, and for each
code either the code never reports an error (the set below, each with its reason, and no test build shows one), or
tests/data/fixes/<code>.toml is a real build whose report has that error with a fix that was verified by
re-checking the changed build (or, for the few errors no build edit can fix, NO_VERIFIED_FIX with the reason and the
advice the check gives instead). A code added to the registry without one of these fails here."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.api import check_file
from planner.catalog import Catalog
from planner.checks.engine.registry import registered
from planner.report import Report

from conftest import EXAMPLES
from helpers import TESTS

FIXES = TESTS / "data" / "fixes"

#: Codes that never report an error, with the reason; each is checked against every test build below.
NEVER_AN_ERROR: dict[str, str] = {
    # a link narrowed by the CPU's lanes still works: the cost is bandwidth, stated as a warning or info
    "pcie.cpu-lanes": "warning or info only: the CPU's lanes narrow a link, they never leave a card without one",
    # whether a marginal riser link fails depends on the card, the board and the cable (riser.py: signal)
    "riser.signal": "warning only: a marginal riser link may or may not fail; its fixes are better risers or the BIOS",
    # load steps over the circuit's breaker last milliseconds; breakers trip on sustained load (outlet.continuous)
    "outlet.peak": "warning or info only: peaks are too short to trip a breaker by themselves",
    # running two PSUs needs a sync relay and one PSU per card's cables: advice, not a failure
    "psu.multi": "warning only: what a multi-PSU build needs to start and run its units safely",
    # the estimated throughput at the power limits: always reported, as information
    "power-limit.cost": "info only (registered with informs=True): the throughput at the build's power limits",
    # cards touching cost temperature, which thermal.gpu-temp judges (as an error when it is one)
    "thermal.sandwich": "warning or info only: cards touching; thermal.gpu-temp judges the temperature it costs",
}


#: Codes that do report errors, but whose fix the catalog cannot express as a build edit to re-check; each with the
#: reason. Their test build must still show the error, with the advice the check gives instead.
NO_VERIFIED_FIX: dict[str, str] = {
    # the only catalog chassis with server airflow takes server PSU modules, and the catalog lists none: moving the
    # build into it leaves its ATX PSUs without a bay (case.psu-bays), so the move cannot verify
    "thermal.passive": "a server chassis needs its own PSU modules, which the catalog does not list",
}


def _reports(catalog: Catalog, paths: list[Path]) -> dict[Path, Report]:
    return {path: check_file(path, catalog) for path in paths}


@pytest.fixture(scope="module")
def every_test_build(catalog: Catalog) -> dict[Path, Report]:
    return _reports(catalog, sorted(FIXES.glob("*.toml")) + sorted(EXAMPLES.glob("*.toml")))


def test_every_code_in_the_registry_has_a_fix_build_or_a_reason_it_never_errs() -> None:
    codes = set(registered())
    missing = sorted(code for code in codes - NEVER_AN_ERROR.keys() if not (FIXES / f"{code}.toml").is_file())
    assert not NO_VERIFIED_FIX.keys() & NEVER_AN_ERROR.keys()
    assert not missing, (
        f"check codes {missing} have neither a test build tests/data/fixes/<code>.toml (a real build whose report "
        "has that error with a verified fix) nor an entry in NEVER_AN_ERROR (with the reason it never reports an "
        "error): a new check must say which")
    unknown = (NEVER_AN_ERROR.keys() | NO_VERIFIED_FIX.keys()) - codes
    assert not unknown, f"codes no check has: {sorted(unknown)}"
    assert not NEVER_AN_ERROR.keys() & {p.stem for p in FIXES.glob("*.toml")}, "a code is in both"


@pytest.mark.parametrize("code", sorted(set(registered()) - NEVER_AN_ERROR.keys()))
def test_the_error_has_a_verified_fix(code: str, every_test_build: dict[Path, Report]) -> None:
    path = FIXES / f"{code}.toml"
    assert path.read_text().startswith("#"), f"{path.name}: a leading comment says what the build shows"
    errors = [f for f in every_test_build[path].findings if f.code == code and f.severity == "error"]
    assert errors, f"{path.name} does not make {code} report an error"
    verified = [fix for finding in errors for fix in finding.fixes if fix.verified is True and fix.changes]
    if code in NO_VERIFIED_FIX:  # no build edit can say it: advice, marked as not re-checked
        assert not verified, f"{code} has a verified fix now: take it out of NO_VERIFIED_FIX"
        assert all(finding.fixes for finding in errors) and "not re-checked" in errors[0].fixes[-1].description
        return
    assert verified, f"{code}'s error in {path.name} has no verified fix: {[f.fixes for f in errors]}"


def test_codes_said_never_to_err_err_in_no_test_build(every_test_build: dict[Path, Report]) -> None:
    erring = {(path.name, f.code) for path, report in every_test_build.items() for f in report.findings
              if f.code in NEVER_AN_ERROR and f.severity == "error"}
    assert not erring, f"codes in NEVER_AN_ERROR report errors: {sorted(erring)}"


def test_a_riser_plug_shortage_gets_a_board_with_the_slots(every_test_build: dict[Path, Report]) -> None:
    [finding] = [f for f in every_test_build[FIXES / "riser-plugs-4-on-3-slots.toml"].findings
                 if f.code == "slot.placement"]
    assert "4 riser plugs need 4 full-length slots; this board has 3" in finding.message
    boards = [fix for fix in finding.fixes if fix.verified and fix.changes[0].path == "motherboard"]
    assert boards, finding.fixes


def test_a_riser_plug_shortage_no_board_fixes_gets_the_shared_slot_kit_advice(
        every_test_build: dict[Path, Report]) -> None:
    [finding] = [f for f in every_test_build[FIXES / "riser-plugs-8-on-7-slots.toml"].findings
                 if f.code == "slot.placement"]
    assert "8 riser plugs need 8 full-length slots; this board has 7" in finding.message
    [advice] = finding.fixes
    assert advice.verified is None and not advice.changes  # the placement model cannot re-check a shared slot
    assert "c-payne-slimsas-pcie4-x8-kit" in advice.description and "GPU7, GPU8" in advice.description
    assert "x8x8" in advice.description and "not re-checked" in advice.description


def test_a_card_too_tall_for_the_side_panel_gets_a_lower_card_of_the_same_chip(
        every_test_build: dict[Path, Report]) -> None:
    [finding] = [f for f in every_test_build[FIXES / "case.gpu-height.toml"].findings if f.code == "case.gpu-height"]
    first = finding.fixes[0]
    assert first.verified and first.changes[0].path == "gpu[0].part"
    assert "another chip" not in first.description  # a same-chip card exists, so only those are offered


def test_an_inline_case_gets_the_more_fans_fix_on_its_own_fields(every_test_build: dict[Path, Report]) -> None:
    [finding] = [f for f in every_test_build[FIXES / "thermal.case.toml"].findings if f.code == "thermal.case"]
    fans = finding.fixes[0]
    assert fans.verified and fans.changes[0].path == "case"
    assert fans.changes[0].value["base"] == "fractal-meshify-2-xl"
    assert fans.changes[0].value["intake_airflow"] != "60 cfm"
