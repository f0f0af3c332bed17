"""What a face does with a build through the session (planner/session_tools.py, re-exported by
planner.session): catalogs, the tuner's view, export, part figures."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from planner.api import InputError
from planner.session import BuildSession, export_format, gpu_memory, open_catalog, part_kind
from planner.session_tools import Tuning

from conftest import ROOT, example
from helpers import TEST_CATALOG

BUILD = ROOT / "tests" / "data" / "tui-build.toml"  # two RTX 3090 FE at their stock 350 W


def _tuning() -> Tuning:
    tuning = BuildSession.open(BUILD, TEST_CATALOG).tuning(0)
    assert tuning is not None
    return tuning


def test_a_catalog_directory_that_is_not_one_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is not a directory"):
        open_catalog([tmp_path / "missing"])


def test_the_tuners_view_is_the_entrys_card_its_range_and_its_stock_power() -> None:
    tuning = _tuning()
    assert (tuning.cards, tuning.limit, tuning.stock) == (2, 350, 350)
    assert tuning.low == tuning.board.power_limit_min and tuning.high == tuning.board.power_limit_max
    assert tuning.relative_perf(tuning.stock) == pytest.approx(1.0)
    assert tuning.relative_perf(tuning.low) < 1.0


def test_a_step_never_leaves_the_cards_range() -> None:
    tuning = _tuning()
    assert tuning.stepped(-5).limit == 345
    assert tuning.stepped(-10_000).limit == tuning.low
    assert tuning.stepped(10_000).limit == tuning.high


def test_an_entry_with_no_card_has_no_tuning() -> None:
    session = BuildSession.open(BUILD, TEST_CATALOG)
    assert session.tuning(5) is None


@pytest.mark.parametrize(("name", "fmt"), [("parts.md", "md"), ("limits.sh", "nvidia-smi"),
                                           ("gpu.service", "systemd"), ("parts.txt", "text")])
def test_the_export_format_follows_the_file_suffix(name: str, fmt: str) -> None:
    assert export_format(Path(name)) == fmt


def test_export_never_writes_over_an_existing_file(tmp_path: Path) -> None:
    target = tmp_path / "parts.md"
    target.write_text("mine")
    with pytest.raises(InputError):
        BuildSession.open(BUILD, TEST_CATALOG).export(target)
    assert target.read_text() == "mine"


def test_optimise_writes_the_optimisers_limits_into_the_build(tmp_path: Path) -> None:
    path = tmp_path / "build.toml"
    shutil.copy(example("fail-psu-quad-3090-fe-1600w.toml"), path)
    session = BuildSession.open(path, TEST_CATALOG)
    plan = session.optimise()
    assert plan is not None and plan.changes
    gpus = session.data()["gpu"]
    assert all(str(gpus[int(c.path.split("[")[1].split("]")[0])]["power_limit"]) == c.value for c in plan.changes)
    assert session.dirty


def test_a_part_id_gives_its_kind_and_a_gpu_its_chips_memory() -> None:
    assert part_kind(TEST_CATALOG, "corsair-ax1600i") == "psu"
    assert part_kind(TEST_CATALOG, "no-such-part") is None
    assert gpu_memory(TEST_CATALOG, TEST_CATALOG.get("gpu", "nvidia-rtx-3090-fe")) == 24


def test_an_unknown_key_in_an_unfinished_build_is_its_file_problem() -> None:
    session = BuildSession.new(TEST_CATALOG)
    session.set_field("colour", "black")
    assert "unknown key 'colour'" in (session.file_problem() or "")
    assert BuildSession.new(TEST_CATALOG).file_problem() is None  # parts still missing are no problem
