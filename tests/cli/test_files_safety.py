"""Writing files (export -o, optimize -o, the TUI's save and its crash recovery): only a regular file or a
new path, never replaced unasked, never a traceback (issue 13, items 6 and 7)."""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from planner.catalog import Catalog
from planner.session import BuildSession
from planner.util.errors import InputError
from planner.util.fileio import atomic_write
from planner.util.recovery import save_recovery

from conftest import example, run_cli
from helpers import settle

AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
needs_permissions = pytest.mark.skipif(AS_ROOT, reason="root may write into a read-only directory")
EXAMPLE = example("pass-dual-3090-wrx80.toml")


def export_to(out: Path, *extra: str) -> tuple[int, str]:
    result = run_cli("export", EXAMPLE, "--format", "md", "-o", out, *extra)
    assert "Traceback" not in result.err and len(result.err.strip().splitlines()) <= 1  # one clear line
    return result.code, result.err


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[Path]:
    """A directory nobody may write into (made writable again afterwards, so pytest can remove it)."""
    directory = tmp_path / "read-only"
    directory.mkdir()
    yield directory
    directory.chmod(0o755)


# -- what is at the path --------------------------------------------------------------------------------------
def test_force_onto_a_fifo_is_refused_even_as_root(tmp_path: Path) -> None:
    fifo = tmp_path / "parts.md"
    os.mkfifo(fifo)
    code, err = export_to(fifo, "--force")
    assert code == 2 and "is a FIFO (named pipe); planner writes only regular files" in err
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


@pytest.mark.skipif(not AS_ROOT, reason="making a device node needs root")
def test_force_onto_a_device_is_refused(tmp_path: Path) -> None:
    device = tmp_path / "null"
    os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # the same device as /dev/null
    code, err = export_to(device, "--force")
    assert code == 2 and "is a device; planner writes only regular files" in err
    assert stat.S_ISCHR(device.lstat().st_mode)


def test_force_onto_a_directory_is_refused(tmp_path: Path) -> None:
    code, err = export_to(tmp_path, "--force")
    assert code == 2 and "is a directory" in err


def test_a_dangling_symlink_is_not_replaced_without_force(tmp_path: Path) -> None:
    link = tmp_path / "parts.md"
    link.symlink_to(tmp_path / "elsewhere.md")
    code, err = export_to(link)
    assert code == 2 and "is a symbolic link to" in err and "which does not exist; use --force" in err
    assert link.is_symlink() and not (tmp_path / "elsewhere.md").exists()


def test_force_onto_a_symlink_writes_the_file_it_points_to(tmp_path: Path) -> None:
    target, link = tmp_path / "real.md", tmp_path / "parts.md"
    target.write_text("old")
    link.symlink_to(target)
    code, _ = export_to(link, "--force")
    assert code == 0 and link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text().startswith("**Dual RTX 3090 FE on WRX80")


def test_force_onto_a_dangling_symlink_creates_its_target(tmp_path: Path) -> None:
    target, link = tmp_path / "new.md", tmp_path / "parts.md"
    link.symlink_to(target)
    code, _ = export_to(link, "--force")
    assert code == 0 and link.is_symlink() and target.read_text().startswith("**Dual")


def test_force_onto_a_symlink_to_a_fifo_is_refused(tmp_path: Path) -> None:
    fifo, link = tmp_path / "pipe", tmp_path / "parts.md"
    os.mkfifo(fifo)
    link.symlink_to(fifo)
    code, err = export_to(link, "--force")
    assert code == 2 and "is a FIFO (named pipe) (the link's target" in err
    assert stat.S_ISFIFO(fifo.lstat().st_mode) and link.is_symlink()


def test_a_loop_of_symlinks_is_a_clear_error(tmp_path: Path) -> None:
    a, b = tmp_path / "a.md", tmp_path / "b.md"
    a.symlink_to(b)
    b.symlink_to(a)
    code, err = export_to(a, "--force")
    assert code == 2 and "cannot be followed" in err


# -- the window between "does it exist?" and the rename ---------------------------------------------------------
def test_a_file_that_appears_while_writing_is_never_replaced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "parts.md"
    real_fsync = os.fsync

    def someone_else_writes(fd: int) -> None:  # after the checks, before the new file is put in place
        out.write_text("another program's file")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", someone_else_writes)
    with pytest.raises(InputError, match="already exists"):
        atomic_write(out, "ours")
    assert out.read_text() == "another program's file"
    assert [p.name for p in tmp_path.iterdir()] == ["parts.md"]  # no temp file left behind


def test_a_fifo_that_appears_while_writing_with_force_is_not_replaced(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "parts.md"
    real_fsync = os.fsync

    def someone_makes_a_fifo(fd: int) -> None:
        os.mkfifo(out)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", someone_makes_a_fifo)
    with pytest.raises(InputError, match="FIFO"):
        atomic_write(out, "ours", force=True)
    assert stat.S_ISFIFO(out.lstat().st_mode)


# -- permissions ------------------------------------------------------------------------------------------------
@needs_permissions
def test_an_export_into_a_read_only_directory_is_a_clear_error(read_only: Path) -> None:
    read_only.chmod(0o555)
    code, err = export_to(read_only / "parts.md")
    assert code == 2 and f"cannot write in {read_only}: Permission denied" in err


def test_force_onto_a_read_only_file_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "parts.md"
    out.write_text("keep me")
    out.chmod(0o444)
    code, err = export_to(out, "--force")
    assert code == 2 and "is read-only; not replaced" in err
    assert out.read_text() == "keep me"


def test_saving_a_session_onto_a_read_only_file_is_refused(tmp_path: Path, catalog: Catalog) -> None:
    path = tmp_path / "build.toml"
    shutil.copy(EXAMPLE, path)
    path.chmod(0o444)
    session = BuildSession.open(path, catalog)
    session.set_field("gpu[0].count", 1)
    with pytest.raises(InputError, match="is read-only; not replaced"):
        session.save()
    assert path.read_text() == EXAMPLE.read_text() and session.dirty


@pytest.mark.asyncio
async def test_ctrl_s_onto_a_read_only_build_shows_an_error_and_keeps_the_file(tmp_path: Path,
                                                                              catalog: Catalog) -> None:
    from tui.app import make_app
    from tui.screens.dialogs import ShowError

    path = tmp_path / "build.toml"
    shutil.copy(EXAMPLE, path)
    path.chmod(0o444)
    app = make_app(path, catalog)
    async with app.run_test(size=(100, 34)) as pilot:
        await pilot.press("plus", "ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ShowError) and "is read-only; not replaced" in app.screen.message
        assert app.session.dirty
    assert path.read_text() == EXAMPLE.read_text()


@pytest.mark.asyncio
async def test_save_as_onto_another_existing_file_asks_before_replacing_it(tmp_path: Path, catalog: Catalog) -> None:
    from tui.app import make_app
    from tui.screens.dialogs import AskPath, Confirm

    other = tmp_path / "other.toml"
    other.write_text("# someone's other build\n")
    app = make_app(EXAMPLE, catalog)
    async with app.run_test(size=(100, 34)) as pilot:
        app.action_save_as()
        await settle(pilot)
        assert isinstance(app.screen, AskPath)
        app.screen.dismiss(str(other))
        await settle(pilot)
        assert isinstance(app.screen, Confirm) and "already exists" in app.screen.question
        await pilot.press("n")
        await settle(pilot)
    assert other.read_text() == "# someone's other build\n"


@needs_permissions
@pytest.mark.asyncio
async def test_a_tui_export_into_a_read_only_directory_shows_an_error(read_only: Path, catalog: Catalog) -> None:
    from tui.app import make_app
    from tui.screens.dialogs import AskPath, ShowError

    read_only.chmod(0o555)
    app = make_app(EXAMPLE, catalog)
    async with app.run_test(size=(100, 34)) as pilot:
        app.action_export()
        await settle(pilot)
        assert isinstance(app.screen, AskPath)
        app.screen.dismiss(str(read_only / "parts.md"))
        await settle(pilot)
        assert isinstance(app.screen, ShowError) and "Permission denied" in app.screen.message
        assert app.is_running


# -- crash recovery ---------------------------------------------------------------------------------------------
@pytest.fixture
def state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(home))
    return home


def test_recovery_never_overwrites_an_earlier_recovery_file(tmp_path: Path, state_home: Path) -> None:
    build = tmp_path / "build.toml"
    first = save_recovery("count = 1\n", build)
    second = save_recovery("count = 2\n", build)
    assert (first.name, second.name) == ("build.recovered.toml", "build.recovered-2.toml")
    assert first.read_text() == "count = 1\n" and second.read_text() == "count = 2\n"


def test_recovery_does_not_take_a_name_held_by_a_dangling_symlink(tmp_path: Path, state_home: Path) -> None:
    build = tmp_path / "build.toml"
    (tmp_path / "build.recovered.toml").symlink_to(tmp_path / "somewhere-else.toml")
    assert save_recovery("x = 1\n", build).name == "build.recovered-2.toml"
    assert not (tmp_path / "somewhere-else.toml").exists()


@needs_permissions
def test_recovery_goes_to_the_state_directory_when_the_builds_directory_is_read_only(
        read_only: Path, state_home: Path) -> None:
    build = read_only / "build.toml"
    build.write_text("name = 'x'\n")
    read_only.chmod(0o555)
    saved = save_recovery("name = 'edited'\n", build)
    assert saved.parent.is_relative_to(state_home) and saved.name == "build.recovered.toml"
    assert saved.read_text() == "name = 'edited'\n" and build.read_text() == "name = 'x'\n"
    again = save_recovery("name = 'edited again'\n", build)
    assert again.name == "build.recovered-2.toml" and saved.read_text() == "name = 'edited'\n"


def test_a_crashed_tui_session_keeps_its_edits_and_says_where(tmp_path: Path, state_home: Path,
                                                              catalog: Catalog, capsys: pytest.CaptureFixture[str],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse

    import tui.app
    from tui.cli import run

    path = tmp_path / "build.toml"
    shutil.copy(EXAMPLE, path)
    (tmp_path / "build.recovered.toml").write_text("an earlier crash's edits")

    class Crashing:
        return_code = 1

        def __init__(self, session: BuildSession) -> None:
            self.session = session

        def run(self) -> None:
            self.session.set_field("gpu[0].count", 1)

    monkeypatch.setattr(tui.app, "make_app", lambda file, _catalog: Crashing(BuildSession.open(file, catalog)))
    assert run(argparse.Namespace(file=path, catalog=[])) == 1
    assert (tmp_path / "build.recovered.toml").read_text() == "an earlier crash's edits"
    assert "count = 1" in (tmp_path / "build.recovered-2.toml").read_text()
    assert "your unsaved build is in" in capsys.readouterr().err
