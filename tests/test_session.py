"""The build session behind the TUI: edits in place, comments kept, re-checked, saved atomically."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from planner.catalog import Catalog
from planner.errors import InputError
from planner.session import BuildSession

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
