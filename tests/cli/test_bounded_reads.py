"""Every file the planner reads is read through one bounded reader (planner/util/fileio.py: read_bytes): a device
such as /dev/zero, a FIFO, a directory or a file past the size cap, given as a build, a price file, the
settings file or an input of `planner diff`, is one sentence naming the file and exit 2 — never a hang and
never gigabytes of memory (issue 26; the time and memory are in benchmarks/reads.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from planner.util.errors import InputError

from conftest import ROOT, example, run_cli

BUILD = example("pass-dual-3090-wrx80.toml")
NO_CIRCUIT = example("inline-watercooled-3090s.toml")  # names no [[circuit]]: reads the settings file


@pytest.fixture(autouse=True)
def _bounded_in_time() -> Iterator[None]:
    """A read that blocks (a FIFO opened without O_NONBLOCK) fails the test after 20 s instead of hanging it."""
    def hung(*_: object) -> None:
        raise TimeoutError("the read blocked")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def _dev_zero(tmp_path: Path) -> tuple[Path, str]:
    return Path("/dev/zero"), "is a device"


def _fifo(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "fifo.toml"
    os.mkfifo(path)
    return path, "is a FIFO (named pipe)"


def _sparse(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "huge.toml"
    with path.open("wb") as handle:
        handle.truncate(100_000_000)  # 100 MB of holes: no disk used
    return path, "is larger than"


def _directory(tmp_path: Path) -> tuple[Path, str]:
    return tmp_path, "is a directory"


KINDS: dict[str, Callable[[Path], tuple[Path, str]]] = {
    "dev-zero": _dev_zero, "fifo": _fifo, "100MB-sparse": _sparse, "directory": _directory}


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize("kind", KINDS)
def test_a_build_file_that_is_no_regular_file_or_too_large_is_one_sentence(tmp_path: Path, kind: str) -> None:
    path, why = KINDS[kind](tmp_path)
    result = run_cli("check", path)
    assert result.code == 2
    line = _one_line(result.err)
    assert line.startswith(f"planner: {path}: {why}") and line.endswith("expected a TOML build file"), line


@pytest.mark.parametrize("kind", KINDS)
def test_a_price_file_that_is_no_regular_file_or_too_large_is_one_sentence(tmp_path: Path, kind: str) -> None:
    path, why = KINDS[kind](tmp_path)
    result = run_cli("check", BUILD, "--prices", path)
    assert result.code == 2
    line = _one_line(result.err)
    assert line.startswith(f"planner: {path}: {why}") and line.endswith("expected a TOML price file"), line


@pytest.mark.parametrize("kind", KINDS)
def test_a_settings_file_that_is_no_regular_file_or_too_large_is_one_sentence(
        tmp_path: Path, kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from planner.util import config

    path, why = KINDS[kind](tmp_path)
    config._read.cache_clear()
    monkeypatch.setenv("PLANNER_CONFIG", str(path))
    try:
        result = run_cli("check", NO_CIRCUIT)
    finally:
        config._read.cache_clear()
    assert result.code == 2
    line = _one_line(result.err)
    assert line.startswith(f"planner: {NO_CIRCUIT}: {path}: {why}"), line
    assert line.endswith("expected a TOML settings file"), line


@pytest.mark.parametrize("kind", KINDS)
def test_a_diff_input_that_is_no_regular_file_or_too_large_is_one_sentence(tmp_path: Path, kind: str) -> None:
    path, why = KINDS[kind](tmp_path)
    for argv in ((BUILD, path), (path, BUILD)):
        result = run_cli("diff", *argv)
        assert result.code == 2
        line = _one_line(result.err)
        assert line.startswith(f"planner: {path}: {why}") and line.endswith("expected a TOML build file"), line


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_catalog_file_that_is_no_regular_file_is_named_not_skipped(tmp_path: Path, kind: str) -> None:
    directory = tmp_path / "cat"
    directory.mkdir()
    target, why = KINDS[kind](tmp_path)
    if kind == "fifo":
        os.replace(target, directory / "psus.toml")
    else:
        (directory / "psus.toml").symlink_to(target)
    result = run_cli("check", BUILD, "--catalog", directory)
    assert result.code == 2
    assert f"{directory / 'psus.toml'}: {why}, expected a TOML catalog file" in _one_line(result.err)


def test_stdin_is_read_only_up_to_the_cap() -> None:
    with open("/dev/zero", "rb") as zeros:
        result = subprocess.run([sys.executable, "-m", "planner", "check", "-"], stdin=zeros, capture_output=True,
                                text=True, timeout=60, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 2
    assert _one_line(result.stderr).endswith("<stdin>: is larger than 1,000 kB; expected a TOML build file")


def test_the_reader_reads_a_file_at_the_cap_and_refuses_one_byte_more(tmp_path: Path) -> None:
    from planner.util.fileio import MAX_READ, read_bytes

    path = tmp_path / "catalog.toml"
    path.write_bytes(b"#" * 1000)
    assert read_bytes(path, cap=1000) == b"#" * 1000
    with pytest.raises(InputError, match=r"catalog\.toml: is larger than 999 bytes; expected a file$"):
        read_bytes(path, cap=999)
    assert MAX_READ == 16 * 1024 * 1024


def test_a_fifo_as_the_users_own_price_file_is_named_not_skipped(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANNER_CONFIG", str(tmp_path / "config.toml"))  # prices.toml sits beside it
    os.mkfifo(tmp_path / "prices.toml")
    result = run_cli("check", BUILD)
    assert result.code == 2
    assert _one_line(result.err) == f"planner: {tmp_path / 'prices.toml'}: is a FIFO (named pipe), expected a TOML " \
                                    "price file"
