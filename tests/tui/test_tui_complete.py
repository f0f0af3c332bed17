"""The TUI's "complete this build" action (Textual's Pilot): the solver's choice, its price and why, applied as
one edit that ctrl+z takes back."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from planner.catalog import Catalog
from tui.app import make_app
from tui.screens.complete import CompleteBuild

from helpers import TESTS, settle

PARTIAL = TESTS / "data" / "recommend" / "two-4090s-partial.toml"


@pytest.mark.asyncio
async def test_complete_shows_the_choice_and_applies_it_as_one_undoable_edit(catalog: Catalog) -> None:
    app = make_app(PARTIAL, catalog)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)  # the first check lands from its worker
        before = app.session.text()
        assert app.result is not None and app.result.missing  # no board, case, CPU or PSU yet
        await pilot.press("s")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CompleteBuild)
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert screen.result is not None and screen.result.status == "solved"
        shown = str(screen.query_one("#text", Static).render())
        assert "motherboard" in shown and "total added" in shown and "proved optimal" in shown and "Why:" in shown
        await pilot.press("enter")
        await settle(pilot)
        data = app.session.data()
        assert {"motherboard", "case", "cpu", "psu"} <= set(data)
        assert app.result is not None and app.result.report is not None
        assert app.result.report.verdict in ("pass", "warn")
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert app.session.text() == before


@pytest.mark.asyncio
async def test_escape_leaves_the_build_as_it_was(catalog: Catalog) -> None:
    app = make_app(PARTIAL, catalog)
    async with app.run_test(size=(80, 24)) as pilot:
        before = app.session.text()
        await pilot.press("s")
        await app.workers.wait_for_complete()
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert app.session.text() == before and not app.session.dirty


@pytest.mark.asyncio
async def test_complete_without_gpus_asks_for_them_first(catalog: Catalog) -> None:
    app = make_app(None, catalog)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("s")
        await settle(pilot)
        assert not isinstance(app.screen, CompleteBuild)


@pytest.mark.asyncio
async def test_complete_of_a_full_build_has_nothing_to_add_but_prices_its_base_system(catalog: Catalog) -> None:
    from conftest import example

    app = make_app(example("pass-dual-3090-wrx80.toml"), catalog)
    async with app.run_test(size=(100, 30)) as pilot:
        before = app.session.text()
        await pilot.press("s")
        await app.workers.wait_for_complete()
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CompleteBuild) and screen.result is not None
        assert {a.kind for a in screen.result.added} == {"ram", "ssd", "cooler"}  # bought, but not in the file
        assert "Nothing to add" in str(screen.query_one("#text", Static).render())
        await pilot.press("enter")
        await settle(pilot)
        assert app.session.text() == before and not app.session.dirty
