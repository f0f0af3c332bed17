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

#: The tests marked `slow` (`pytest -m "not slow"` leaves them out of the inner loop; CI runs everything): by
#: module, every test ("*") or the tests named. Fuzzing, brute force, completing builds with the solver over the
#: full catalogs, the browser, and the TUI's Pilot sessions (PILOT_FREE below).
SLOW: dict[str, tuple[str, ...]] = {
    # fuzzing: generated and hostile inputs by the thousand
    "test_fuzz.py": ("*",),
    "test_fuzz_commands.py": ("*",),
    "test_catalog_fuzz.py": ("*",),
    "test_tui_fuzz.py": ("*",),
    "test_tui_hostile.py": ("test_a_key_on_a_build_with_a_wrong_shape_is_refused_with_a_notice",
                            "test_the_wizard_refuses_numbers_the_cli_refuses",
                            "test_keys_on_an_empty_or_partial_build_never_fail"),
    "test_output_channels.py": ("test_every_output_channel_parses_and_shows_no_raw_control",
                                "test_catalog_ids_and_argument_values_reach_the_terminal_escaped",
                                "test_recommend_complete_keeps_a_hostile_chip_name_on_one_line",
                                "test_recommend_writes_a_hostile_chip_name_escaped_into_toml_and_svg"),
    "test_bad_build_files.py": ("test_mutated_build_files_never_crash", "test_arbitrary_text_never_crashes"),
    # brute force against the exact searches
    "test_solve.py": ("test_solve_finds_the_price_brute_force_finds",
                      "test_solve_equals_brute_force_on_random_small_catalogs"),
    "test_placement_solver.py": ("test_solver_finds_the_brute_force_optimum",
                                 "test_every_placement_the_solver_returns_keeps_the_rules",
                                 "test_when_the_solver_leaves_a_gpu_out_no_assignment_places_them_all"),
    "test_lab_assign.py": ("test_branch_and_bound_equals_brute_force",
                           "test_the_search_skips_twin_pdus_and_banks_and_still_equals_brute_force"),
    # completing builds with the solver over the full catalogs (a ranking prices each option's machine with it)
    "test_recommend_complete.py": ("*",),
    "test_memory_fit.py": ("test_a_quantised_kv_cache_lowers_the_need",
                           "test_json_keeps_the_old_gb_keys_and_adds_gib_ones"),
    "test_perf_fit.py": ("test_vllm_ranks_four_card_options_differently_from_llama_cpp_and_says_why",
                         "test_users_and_prefill_are_in_the_text_and_json_and_the_old_fields_stay"),
    "test_recommend.py": ("test_plot_writes_an_svg_with_one_point_per_option",),
    "test_cli_everyday.py": ("test_every_option_in_the_text_charts_legend_is_drawn",),
    "test_solve_builders.py": ("*",),
    "test_tui_complete.py": ("*",),
    # the browser
    "test_export_html.py": ("*",),
}


#: The app driven through Textual's Pilot (tests/tui/, but for the session's own tests and the façade's import
#: scan): whole sessions of key presses and screens, seconds each; `pytest tests/tui` is the TUI's own loop.
PILOT_FREE = ("test_session.py", "test_session_tools.py", "test_tui_facade.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        names = SLOW.get(item.path.name, ())
        pilot = item.path.parent.name == "tui" and item.path.name not in PILOT_FREE
        generated = item.path.parent.name == "properties"  # generated inputs by the hundred
        if pilot or generated or "*" in names or getattr(item, "originalname", item.name) in names:
            item.add_marker(pytest.mark.slow)


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
