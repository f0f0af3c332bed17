"""Shared fixtures: the real example builds, the built-in catalogs, and the CLI run in-process."""

from __future__ import annotations

import datetime
import io
import os
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings

from planner.catalog import Catalog, builtin_dir
from planner.cli.main import main

# CI must not go red on an example a fuzzer happens to draw one day and not the next: the default
# profile draws the same examples every run. `HYPOTHESIS_PROFILE=explore pytest` draws new ones.
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "builds"
#: The day every test runs on, as far as prices are concerned: which are stale does not change with the calendar.
TODAY = datetime.date(2026, 12, 2)


@pytest.fixture(autouse=True)
def _fixed_today(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stale prices are judged against TODAY (planner/catalog/prices.py: today), never the clock."""
    monkeypatch.setattr("planner.catalog.prices.today", lambda: TODAY)


@pytest.fixture(autouse=True)
def _no_user_catalog(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests never read the developer's own per-user catalog directory or cache."""
    monkeypatch.setenv("PLANNER_USER_CATALOG", str(tmp_path_factory.mktemp("user-catalog")))
    monkeypatch.setenv("PLANNER_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))
    monkeypatch.setenv("PLANNER_CONFIG", str(tmp_path_factory.getbasetemp() / "no-config.toml"))


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return Catalog([builtin_dir()])


@dataclass
class Run:
    code: int
    out: str
    err: str


def run_cli(*argv: str | Path) -> Run:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return Run(code, out.getvalue(), err.getvalue())


@pytest.fixture
def cli() -> Iterator[type[Run]]:
    yield Run


def example(name: str) -> Path:
    path = EXAMPLES / name
    assert path.is_file(), path
    return path
