"""The fuzz harness (issue 13, acceptance 1 and 3): generated build files, catalog files and settings files go
through the real CLI entry point (`main(["check", …])`) in batches, and build files through the TUI's session
layer (open, check, edit, save, reopen). Promises: no traceback and no internal error, no hang (a time limit
per batch), and every file of a batch reported — a report or one error line naming it.

Seeded by the project's hypothesis profile (tests/conftest.py: the same inputs every run). A few thousand
inputs in CI; more with `PLANNER_FUZZ_EXAMPLES=20000 pytest tests/properties/test_fuzz.py -s`, which also prints the
figures (inputs, batches, time, slowest batch).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import signal
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.catalog import Catalog, builtin_dir
from planner.session import BuildSession
from planner.util import config
from planner.util.errors import PlannerError

from conftest import run_cli
from fuzzing import build_files, catalog_files, settings_files

INPUTS = int(os.environ.get("PLANNER_FUZZ_EXAMPLES", "3000"))  # files through the CLI (the session: one in 20)
BATCH = 10  # inputs per batch, roughly: 5–15 build files (hypothesis favours short lists), catalog and settings
FILE_SECONDS = 10  # per file, a batch past this has hung (the slowest build takes ~1.5 s; room for a busy machine)
REPORT_KEYS = ("file", "build", "verdict", "findings", "summary")


class Hang(BaseException):
    """A batch ran past its time limit (a BaseException: no `except Exception` in the planner may swallow it)."""


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    def expire(signum: int, frame: FrameType | None) -> None:
        raise Hang(f"batch still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def environment(**values: str) -> Iterator[None]:
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


class Figures:
    """What a run did, printed at its end."""

    def __init__(self) -> None:
        self.inputs = self.batches = 0
        self.slowest = self.checking = 0.0
        self.outcomes: dict[str, int] = {}

    def count(self, outcome: str) -> None:
        self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1

    def line(self, started: float) -> str:
        return (f"{self.inputs} inputs in {self.batches} batches, {time.perf_counter() - started:.1f} s"
                f" ({self.checking:.1f} s in the planner), slowest batch {self.slowest:.2f} s;"
                f" outcomes {dict(sorted(self.outcomes.items()))}")


BATCHES = st.fixed_dictionaries({
    "builds": st.lists(build_files(), min_size=BATCH // 2, max_size=BATCH + BATCH // 2),
    "catalog": st.lists(catalog_files(), max_size=3),
    "catalog_as": st.sampled_from(["--catalog", "user"]),
    "settings": st.one_of(st.none(), settings_files()),
    "format": st.sampled_from(["json", "json", "text"]),
})


def _run_batch(batch: dict, root: Path, figures: Figures) -> None:  # type: ignore[type-arg]
    """Write a batch's files, run `planner check` over them, and hold the run to the harness's promises."""
    builds = []
    for i, content in enumerate(batch["builds"]):
        path = root / f"build-{i}.toml"
        path.write_bytes(content)
        builds.append(path)
    catalog_dir = root / "catalog"
    catalog_dir.mkdir()
    for name, content in batch["catalog"]:
        (catalog_dir / name).write_bytes(content)
    settings_path = root / "config.toml"
    if batch["settings"] is not None:
        settings_path.write_bytes(batch["settings"])
    figures.inputs += len(builds) + len(batch["catalog"]) + (batch["settings"] is not None)
    figures.batches += 1
    user = str(catalog_dir if batch["catalog_as"] == "user" else root / "no-user-catalog")
    extra = ["--catalog", str(catalog_dir)] if batch["catalog_as"] == "--catalog" else []
    config._read.cache_clear()
    started = time.perf_counter()
    with environment(PLANNER_CONFIG=str(settings_path), PLANNER_USER_CATALOG=user), time_limit(
            5 + FILE_SECONDS * len(builds)):
        result = run_cli("check", *builds, *extra, "--format", batch["format"])
    figures.slowest = max(figures.slowest, time.perf_counter() - started)
    figures.checking += time.perf_counter() - started
    assert "Traceback" not in result.err + result.out
    assert "internal error" not in result.err, result.err
    errors = [line for line in result.err.splitlines() if not line.startswith("planner: warning: ")]
    assert all(line.startswith("planner: ") for line in errors), result.err
    if batch["format"] == "json":
        reports = json.loads(result.out)
        assert [r["file"] for r in reports] == [str(p) for p in builds]  # every file, in order
        failed = [r for r in reports if "error" in r]
        assert [f"planner: {r['error']}" for r in failed] == errors
        for r in reports:
            assert "error" in r or (all(k in r for k in REPORT_KEYS) and r["verdict"] in ("pass", "warn", "fail"))
            figures.count(r.get("verdict") or "error")
        verdicts = {r.get("verdict") for r in reports}
    else:  # text: each file's report starts with a line `FILE: name — VERDICT` (a name may hold a line break)
        for path in builds:
            named = [line for line in errors if line.startswith(f"planner: {path}:")]
            header = re.search(rf"^{re.escape(str(path))}: ", result.out, re.MULTILINE)
            assert len(named) + bool(header) == 1, f"{path}: {named} {bool(header)}\n{result.out}\n{result.err}"
            figures.count("error" if named else "reported")
        assert all(any(line.startswith(f"planner: {p}:") for p in builds) for line in errors), result.err
        assert result.code in (0, 1, 2) and (result.code == 2) == bool(errors), (result.code, result.err)
        return
    expected = 2 if None in verdicts else 1 if "fail" in verdicts else 0
    assert result.code == expected, (result.code, expected, result.err)


def test_every_generated_file_is_reported_by_planner_check_without_a_traceback_or_a_hang(tmp_path: Path) -> None:
    figures, started, counter = Figures(), time.perf_counter(), itertools.count()

    @settings(max_examples=max(1, INPUTS // BATCH), deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(batch=BATCHES)
    def run(batch: dict) -> None:  # type: ignore[type-arg]
        root = tmp_path / f"batch-{next(counter)}"  # a fresh directory: the catalog cache sees new files
        root.mkdir()
        _run_batch(batch, root, figures)

    run()
    print(f"\nplanner check fuzz: {figures.line(started)}")
    assert figures.inputs >= INPUTS // 2


# -- the TUI's session layer over the same build files ---------------------------------------------------------
@pytest.fixture(scope="module")
def built_in() -> Catalog:
    return Catalog([builtin_dir()])


def _session_round(content: bytes, root: Path, catalog: Catalog, figures: Figures) -> None:
    """Open a file, check it, edit it as the TUI does, save and reopen it: only PlannerErrors on open, no
    internal error in any check."""
    path = root / "build.toml"
    path.write_bytes(content)
    figures.inputs += 1
    try:
        session = BuildSession.open(path, catalog)
    except PlannerError:
        figures.count("refused")
        return
    figures.count("opened")
    result = session.check()
    session.rows()
    edits = [lambda: session.add("psu", "corsair-ax1600i"), lambda: session.add("gpu", "nvidia-rtx-3090-fe"),
             lambda: session.set_field("gpu[0].count", 3), lambda: session.remove("psu[0]")]
    if result.report is not None:
        fixes = [fix for finding in result.report.findings for fix in finding.fixes]
        edits.insert(0, lambda: session.apply(list(fixes[0].changes)) if fixes else None)
    for edit in edits:
        with contextlib.suppress(PlannerError):
            edit()
        after = session.check()
        assert after.problem is None or "internal error" not in after.problem, after.problem
        session.rows()
    saved = session.save(root / "saved.toml")
    again = BuildSession.open(saved, catalog)
    assert again.data() == session.data()


def test_the_session_opens_edits_and_saves_every_generated_build_without_an_unhandled_exception(
        tmp_path: Path, built_in: Catalog) -> None:
    figures, started, counter = Figures(), time.perf_counter(), itertools.count()

    @settings(max_examples=max(1, INPUTS // 20), deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(content=build_files())
    def run(content: bytes) -> None:
        root = Path(tempfile.mkdtemp(dir=tmp_path, prefix=f"s{next(counter)}-"))
        started = time.perf_counter()
        with environment(PLANNER_USER_CATALOG=str(root / "no-user-catalog")), time_limit(10 * FILE_SECONDS):
            _session_round(content, root, built_in, figures)
        figures.batches += 1
        figures.slowest = max(figures.slowest, time.perf_counter() - started)
        figures.checking += time.perf_counter() - started

    run()
    print(f"\nsession fuzz: {figures.line(started)}")
