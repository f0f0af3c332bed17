"""The build session behind the TUI: edits in place, comments kept, re-checked, saved atomically."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from planner.catalog import Catalog
from planner.session import BuildSession
from planner.util.errors import InputError

from conftest import example


@pytest.fixture
def session(tmp_path: Path, catalog: Catalog) -> BuildSession:
    path = tmp_path / "build.toml"
    shutil.copy(example("fail-psu-quad-3090-fe-1600w.toml"), path)
    return BuildSession.open(path, catalog)


def test_a_new_build_says_which_parts_it_still_needs(catalog: Catalog) -> None:
    result = BuildSession.new(catalog).check()
    assert result.report is None and result.missing == ["gpu", "case", "motherboard", "cpu", "psu"]


def test_applying_a_fix_changes_the_build_and_the_verdict(session: BuildSession) -> None:
    before = session.check().report
    assert before is not None and before.verdict == "fail"
    [headroom] = [f for f in before.findings if f.code == "psu.headroom"]
    session.apply(list(headroom.fixes[0].changes))
    after = session.check().report
    assert after is not None and not [f for f in after.findings if f.code == "psu.headroom"]
    assert session.dirty


def test_saving_keeps_the_users_comments(session: BuildSession) -> None:
    session.set_field("gpu[0].count", 2)
    session.save()
    text = session.path.read_text()  # type: ignore[union-attr]
    assert text.startswith("# Shows: a PSU failure")
    assert "# stock 350 W each: no power_limit set" in text and "count = 2" in text
    assert not session.dirty


def test_a_saved_build_reloads_as_the_same_build(session: BuildSession, catalog: Catalog, tmp_path: Path) -> None:
    session.add("gpu", "gigabyte-rtx-3090-turbo", count=2, power_limit="250 W")
    saved = session.save(tmp_path / "copy.toml")
    again = BuildSession.open(saved, catalog)
    assert again.data() == session.data()
    assert again.check().report == session.check().report._replace(file=str(saved))  # type: ignore[union-attr]


def test_removing_and_adding_parts(session: BuildSession) -> None:
    session.remove("case")
    assert session.check().missing == ["case"]
    session.set_part("case", "fractal-meshify-2-xl")
    session.remove("gpu[0]")
    assert "gpu" not in session.data()
    index = session.add("gpu", "nvidia-rtx-4090-fe")
    assert index == 0 and [r.part for r in session.rows() if r.kind == "gpu"] == ["nvidia-rtx-4090-fe"]


def test_an_interrupted_save_leaves_the_file_as_it_was(session: BuildSession,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    original = session.path.read_text()  # type: ignore[union-attr]
    session.set_field("gpu[0].count", 1)

    def crash(fd: int) -> None:
        raise OSError("power cut")

    monkeypatch.setattr(os, "fsync", crash)
    with pytest.raises(InputError, match="power cut"):
        session.save()
    assert session.path.read_text() == original  # type: ignore[union-attr]
    assert session.dirty


def test_a_file_that_is_not_toml_cannot_be_opened(tmp_path: Path, catalog: Catalog) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("case = \n")
    with pytest.raises(InputError, match=r"bad.toml:1: not valid TOML"):
        BuildSession.open(bad, catalog)


def test_a_build_with_a_bad_id_reports_the_problem_instead_of_a_report(session: BuildSession) -> None:
    session.set_part("case", "no-such-case")
    result = session.check()
    assert result.report is None and result.problem and "unknown case id 'no-such-case'" in result.problem


def test_a_crashed_sessions_unsaved_build_is_kept_beside_the_original(session: BuildSession) -> None:
    original = session.path.read_text()  # type: ignore[union-attr]
    session.set_field("gpu[0].count", 2)
    saved = session.save_recovery()
    assert saved.name == "build.recovered.toml"
    assert "count = 2" in saved.read_text()
    assert session.path.read_text() == original  # type: ignore[union-attr]


@pytest.mark.parametrize(("text", "removed", "left"), [
    ('# kept\ngpu = 1\nname = "x"\n', "gpu", '# kept\nname = "x"\n'),
    ('[[gpu]]\npart = "nvidia-rtx-3090-fe"\ncount = "two"\n', "gpu[0].count", '[[gpu]]\npart = "nvidia-rtx-3090-fe"\n'),
    ('[[gpu]]\ncount = 2\n', "gpu[0]", ""),  # `part` is missing: the entry that lacks it goes
    ('psu = [{ part = 1 }]\n', "psu[0].part", "psu = [{  }]\n"),  # tomlkit's spacing
])
def test_the_fix_for_a_file_error_takes_out_the_value_it_names_and_undo_puts_it_back(
        tmp_path: Path, catalog: Catalog, text: str, removed: str, left: str) -> None:
    path = tmp_path / "build.toml"
    path.write_text(text)
    session = BuildSession.open(path, catalog, validate=False)
    error = session.error()
    assert error is not None and error.key is not None
    assert session.droppable(error.key) == removed and session.text() == text  # only says what would go
    assert session.drop(error.key) == removed
    assert session.text() == left and session.dirty
    assert session.undo() and session.text() == text


def test_a_key_path_not_in_the_build_drops_nothing(catalog: Catalog) -> None:
    session = BuildSession.new(catalog)
    before = session.text()
    assert session.drop("gpu[3].count") is None and session.drop("") is None
    assert session.drop("circuit[0].outlet") is None
    assert session.text() == before and not session.history and session.error() is None


# -- undo and redo: every edit, one history of build states ---------------------------------------------------
def test_every_kind_of_edit_is_undone_and_redone(session: BuildSession) -> None:
    start = session.text()
    [headroom] = [f for f in session.check().report.findings if f.code == "psu.headroom"]  # type: ignore[union-attr]
    edits = [
        lambda: session.set_field("gpu[0].count", 3),
        lambda: session.apply(list(headroom.fixes[0].changes), "psu.headroom's fix"),
        lambda: session.set_part("case", "phanteks-enthoo-pro-2"),
        lambda: session.add("gpu", "gigabyte-rtx-3090-turbo", count=2),
        lambda: session.add("circuit", "nema-5-20"),
        lambda: session.remove("gpu[1]"),
        lambda: session.remove("case"),
        lambda: session.remove_field("gpu", 0, "count"),
        lambda: session.replace('name = "completed"\n', "complete the build"),
    ]
    states = [start]
    for edit in edits:
        edit()
        assert session.text() != states[-1]
        states.append(session.text())
    for state in reversed(states[:-1]):  # back to the start, one edit at a time
        assert session.undo() is not None and session.text() == state
    assert session.undo() is None and not session.dirty  # the file as it was read
    for state in states[1:]:
        assert session.redo() is not None and session.text() == state
    assert session.redo() is None


def test_undo_says_what_it_took_back(session: BuildSession) -> None:
    session.remove("gpu[0]")
    assert session.undo() == "remove gpu[0] (4 × nvidia-rtx-3090-fe)"
    assert session.redo() == "remove gpu[0] (4 × nvidia-rtx-3090-fe)" and "gpu" not in session.data()


def test_changes_made_in_one_edit_are_undone_together(session: BuildSession) -> None:
    before = session.text()
    with session.edit("replace the GPUs with 2 × RTX 4090"):
        session.remove("gpu[0]")
        session.add("gpu", "nvidia-rtx-4090-fe", count=2)
        session.set_field("workload", "llm-inference")
    assert len(session.history) == 1
    assert session.undo() == "replace the GPUs with 2 × RTX 4090" and session.text() == before


def test_an_open_edit_records_its_steps_as_one_and_a_cancelled_one_leaves_the_build_as_it_was(
        session: BuildSession) -> None:
    before = session.text()
    tuning = session.begin("power limit of gpu[0]")
    for watts in (340, 330, 320):
        session.set_field("gpu[0].power_limit", f"{watts} W")
    assert session.undo() is None  # not while the edit is open
    assert tuning.done() and len(session.history) == 1
    assert session.undo() == "power limit of gpu[0]" and session.text() == before
    cancelled = session.begin("power limit of gpu[0]")
    session.set_field("gpu[0].power_limit", "250 W")
    cancelled.cancel()
    assert session.text() == before and not cancelled.done() and len(session.history) == 0


def test_a_new_edit_after_an_undo_clears_what_could_be_redone(session: BuildSession) -> None:
    session.set_field("gpu[0].count", 3)
    session.undo()
    session.set_field("gpu[0].count", 2)
    assert session.redo() is None and session.data()["gpu"][0]["count"] == 2


def test_an_edit_that_changes_nothing_is_not_recorded(session: BuildSession) -> None:
    session.remove_field("gpu", 0, "power_limit")  # the example sets none
    session.set_field("gpu[0].count", session.data()["gpu"][0]["count"])
    assert session.history == []


def test_undo_back_to_the_saved_build_leaves_it_clean(session: BuildSession) -> None:
    session.set_field("gpu[0].count", 3)
    session.save()
    session.set_field("gpu[0].count", 2)
    assert session.dirty
    session.undo()
    assert not session.dirty  # as saved
    session.undo()
    assert session.dirty  # as it was before the save: not what the file holds
