"""The power-limit tuner re-checks the build in a worker (Pilot): a key moves the limit at once, the effect
follows when the check ends, a check made stale by a later key is dropped, and one check runs at a time."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from textual.widgets import Static

from planner.api import watts
from planner.session import BuildSession, CheckResult, PendingCheck
from tui.app import PlannerApp, make_app
from tui.screens.tuner import Tuner

from conftest import ROOT
from helpers import TEST_CATALOG, settle

BUILD = ROOT / "tests" / "data" / "tui-build.toml"  # two RTX 3090 FE at their stock 350 W
STOCK = 350.0


class Gate:
    """Once armed (the tuner open), holds every check run off the main thread until opened; counts them."""

    def __init__(self) -> None:
        self.armed = threading.Event()
        self.open = threading.Event()
        self.runs: list[str] = []  # the power limit each worker check saw

    def hold(self, pending: PendingCheck) -> None:
        if self.armed.is_set() and threading.current_thread() is not threading.main_thread():
            self.runs.append(str(pending.data["gpu"][0].get("power_limit", "stock")))
            assert self.open.wait(timeout=20), "the test never opened the gate"


@pytest.fixture()
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    gate = Gate()
    original = PendingCheck.run

    def run(pending: PendingCheck) -> CheckResult:
        gate.hold(pending)
        return original(pending)

    monkeypatch.setattr(PendingCheck, "run", run)
    yield gate
    gate.open.set()  # a test that failed early leaves no thread waiting


def _text(tuner: Tuner, part: str) -> str:
    return str(tuner.query_one(f"#{part}", Static).render())


def _limit_checked(tuner: Tuner) -> float:
    """The power limit of the check whose effect the tuner shows."""
    assert tuner.result is not None and tuner.result.build is not None
    return tuner.result.build.gpus[0].power_limit


def _dc_load_now(app: PlannerApp) -> str:
    """The DC load line a check of the build as it is now gives (run here, on the test's thread)."""
    report = BuildSession(app.session.catalog, app.session.document).check().report
    assert report is not None
    return f"DC load {watts(report.summary.dc_load_w)}"


async def _open_tuner(app: PlannerApp, pilot: object, gate: Gate | None = None) -> Tuner:
    """The tuner, opened once the app's own check of the build has landed; then `gate` holds the checks."""
    await settle(pilot)
    await pilot.press("t")  # type: ignore[attr-defined]
    await pilot.pause()  # type: ignore[attr-defined]
    assert isinstance(app.screen, Tuner)
    if gate is not None:
        gate.armed.set()
    return app.screen


@pytest.mark.asyncio
async def test_a_key_shows_the_new_limit_before_the_check_of_its_effect_ends(gate: Gate) -> None:
    app = make_app(BUILD, TEST_CATALOG)
    async with app.run_test(size=(120, 40)) as pilot:
        tuner = await _open_tuner(app, pilot, gate)
        effect_before = _text(tuner, "effect")
        await pilot.press("left")
        await pilot.pause()
        assert f"{watts(STOCK - 5)} (stock {watts(STOCK)})" in _text(tuner, "title")  # at once
        assert _text(tuner, "effect") == effect_before and _limit_checked(tuner) == STOCK  # not yet
        gate.open.set()
        await settle(pilot)
        assert _limit_checked(tuner) == STOCK - 5
        assert _dc_load_now(app) in _text(tuner, "effect") and _text(tuner, "effect") != effect_before


@pytest.mark.asyncio
async def test_keys_pressed_during_a_check_start_one_check_of_the_last_limit(gate: Gate) -> None:
    app = make_app(BUILD, TEST_CATALOG)
    async with app.run_test(size=(120, 40)) as pilot:
        tuner = await _open_tuner(app, pilot, gate)
        await pilot.press("left", "left", "left", "left")
        await pilot.pause()
        assert tuner.tuning is not None and tuner.tuning.limit == STOCK - 20
        gate.open.set()
        await settle(pilot)
        # the first key's check, made stale by the next keys, then one of the build as it is now
        assert gate.runs == [f"{STOCK - 5:g} W", f"{STOCK - 20:g} W"]


@pytest.mark.asyncio
async def test_a_stale_check_is_never_shown(gate: Gate, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(BUILD, TEST_CATALOG)
    async with app.run_test(size=(120, 40)) as pilot:
        await _open_tuner(app, pilot, gate)
        shown: list[float] = []
        show = Tuner.show
        monkeypatch.setattr(Tuner, "show", lambda self, result: (
            shown.append(result.build.gpus[0].power_limit), show(self, result)))  # type: ignore[union-attr]
        await pilot.press("left", "left")
        gate.open.set()
        await settle(pilot)
        assert shown == [STOCK - 10]


@pytest.mark.asyncio
async def test_quick_arrows_end_with_the_findings_and_totals_of_the_last_limit() -> None:
    app = make_app(BUILD, TEST_CATALOG)
    async with app.run_test(size=(120, 40)) as pilot:
        tuner = await _open_tuner(app, pilot)
        await pilot.press("down", "left", "left", "down", "right")  # −25, −5, −5, −25, +5 W
        await settle(pilot)
        assert str(app.session.data()["gpu"][0]["power_limit"]) == f"{STOCK - 55:g} W"
        assert _limit_checked(tuner) == STOCK - 55
        assert f"{watts(STOCK - 55)} (stock" in _text(tuner, "title")
        assert _dc_load_now(app) in _text(tuner, "effect")


@pytest.mark.asyncio
async def test_stock_removes_the_limit_and_shows_the_stock_power_at_once(gate: Gate) -> None:
    app = make_app(BUILD, TEST_CATALOG)
    async with app.run_test(size=(120, 40)) as pilot:
        tuner = await _open_tuner(app, pilot, gate)
        await pilot.press("down", "r")
        await pilot.pause()
        assert f"{watts(STOCK)} (stock {watts(STOCK)})" in _text(tuner, "title")
        assert "power_limit" not in app.session.data()["gpu"][0]
        gate.open.set()
        await settle(pilot)
        assert _limit_checked(tuner) == STOCK


@pytest.mark.asyncio
async def test_escape_during_a_check_restores_the_limit_and_the_app_shows_it(gate: Gate) -> None:
    app = make_app(BUILD, TEST_CATALOG)
    async with app.run_test(size=(120, 40)) as pilot:
        await _open_tuner(app, pilot, gate)
        await pilot.press("down", "escape")
        await pilot.pause()
        gate.open.set()
        await settle(pilot)
        assert not isinstance(app.screen, Tuner)
        assert "power_limit" not in app.session.data()["gpu"][0]
        assert app.result is not None and app.result.build is not None
        assert app.result.build.gpus[0].power_limit == STOCK


def test_the_tuner_watches_the_codes_the_session_names_for_power_limits() -> None:
    codes = BuildSession.new(TEST_CATALOG).power_limit_codes()
    assert {"psu.headroom", "psu.transient", "outlet.continuous", "thermal.gpu-temp", "power-limit.range"} <= codes
    assert not codes & {"slot.placement", "case.gpu-length", "cpu.socket"}


def test_a_pending_check_sees_the_build_as_it_was_when_taken() -> None:
    session = BuildSession.open(BUILD, TEST_CATALOG)
    pending = session.pending_check()
    session.set_field("gpu[0].power_limit", "250 W")
    result = pending.run()
    assert result.build is not None and result.build.gpus[0].power_limit == STOCK
    assert session.check().build.gpus[0].power_limit == 250  # type: ignore[union-attr]
