"""Bad build files: one clear sentence naming the file and the line or key, exit 2, never a traceback."""

from __future__ import annotations

import re
import string
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import EXAMPLES, ROOT, run_cli

BAD = sorted((ROOT / "tests" / "data" / "bad-builds").glob("*.toml"))


def _expected(path: Path) -> str:
    first = path.read_bytes().split(b"\n", 1)[0].decode("utf-8", "replace")
    if first.startswith("# expect: "):
        return first.removeprefix("# expect: ")
    return r"is not UTF-8 text"


def test_there_are_at_least_twenty_hand_written_bad_files() -> None:
    assert len(BAD) >= 20


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.stem)
def test_bad_build_file_gives_one_clear_error_with_file_and_place(path: Path) -> None:
    result = run_cli("check", path)
    assert result.code == 2
    assert result.out.strip() in ("", "[]")
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert lines[0].startswith(f"planner: {path}"), lines[0]
    assert re.search(_expected(path), lines[0]), lines[0]
    assert "Traceback" not in result.err


def test_a_build_with_no_memory_modules_is_refused_naming_the_key(tmp_path: Path) -> None:
    text = (EXAMPLES / "pass-dual-3090-wrx80.toml").read_text()
    assert "ram_modules = 8" in text
    path = tmp_path / "no-memory.toml"
    path.write_text(text.replace("ram_modules = 8", "ram_modules = 0"))
    result = run_cli("check", path)
    assert result.code == 2
    assert "extras.ram_modules: input should be greater than or equal to 1, got 0: a board needs memory" in result.err


def test_a_bad_file_among_good_ones_exits_2_and_still_reports_the_good_ones() -> None:
    good = EXAMPLES / "pass-dual-3090-wrx80.toml"
    result = run_cli("check", good, BAD[0], "--format", "json")
    assert result.code == 2
    assert '"verdict": "pass"' in result.out
    assert str(BAD[0]) in result.err


def test_missing_file_is_named() -> None:
    result = run_cli("check", "no/such/build.toml")
    assert result.code == 2
    assert result.err.strip() == "planner: no/such/build.toml: no such file"


def test_a_directory_is_not_a_build_file(tmp_path: Path) -> None:
    result = run_cli("check", tmp_path)
    assert result.code == 2
    assert "is a directory" in result.err


def test_bad_file_through_the_real_entry_point_has_no_traceback() -> None:
    proc = subprocess.run([sys.executable, "-m", "planner", "check", str(BAD[1])], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1


# -- fuzzing: mutate a real build file and feed arbitrary text; every outcome is a report or one clear error --
GOOD = (EXAMPLES / "fail-psu-quad-3090-fe-1600w.toml").read_text()
KEYS = ["name", "ambient", "workload", "case", "motherboard", "cpu", "count", "power_limit", "part", "outlet",
        "circuit", "other_load", "slot", "base", "slot_width", "extras", "ram_modules"]
VALUES = st.one_of(
    st.integers(min_value=-(10**12), max_value=10**12).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(lambda f: repr(f).replace("inf", "inf")),
    st.text(alphabet=string.printable, max_size=20).map(lambda s: '"' + s.replace('"', "").replace("\\", "") + '"'),
    st.sampled_from(['"350 W"', '"12 zorks"', '"-5 W"', '"1e9 W"', '"120 cfm"', "true", "[]", "{}", '["PCIE1"]',
                     '{ base = "nvidia-rtx-3090-fe", slot_width = 0 }', '"nvidia-rtx-3090-fe"', '"nema-5-15"']),
)


@st.composite
def mutated_builds(draw: st.DrawFn) -> str:
    lines = GOOD.splitlines()
    for _ in range(draw(st.integers(1, 4))):
        action = draw(st.sampled_from(["set", "drop", "insert", "garble"]))
        index = draw(st.integers(0, len(lines) - 1))
        if action == "set" and "=" in lines[index]:
            key = lines[index].split("=", 1)[0]
            lines[index] = f"{key}= {draw(VALUES)}"
        elif action == "drop":
            lines.pop(index)
        elif action == "insert":
            lines.insert(index, f"{draw(st.sampled_from(KEYS))} = {draw(VALUES)}")
        else:
            lines[index] = draw(st.text(alphabet=string.printable, max_size=30))
        if not lines:
            lines = [""]
    return "\n".join(lines)


def _assert_clean(path: Path) -> None:
    result = run_cli("check", path, "--format", "json")
    assert result.code in (0, 1, 2)
    if result.code == 2:
        lines = result.err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"planner: {path}"), result.err
    else:
        assert result.err == ""


@settings(max_examples=700, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=mutated_builds())
def test_mutated_build_files_never_crash(text: str, tmp_path: Path) -> None:
    path = tmp_path / "fuzz.toml"
    path.write_text(text)
    _assert_clean(path)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=200))
def test_arbitrary_text_never_crashes(text: str, tmp_path: Path) -> None:
    path = tmp_path / "fuzz.toml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    _assert_clean(path)
