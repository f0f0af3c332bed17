"""Issue 13, items 1, 2 and 7: hostile input in build files, catalog files and the settings file is one clear
error naming the file (and line), never a traceback; every file of a `planner check` batch is reported; the
TUI's session opens and edits files through the CLI's validation. Each test uses the smallest input that
showed the problem."""

from __future__ import annotations

import json
import os
import re
import shutil
import tomllib
from pathlib import Path

import pytest

from planner.catalog import Catalog
from planner.session import BuildSession
from planner.util.errors import InputError

from conftest import example, run_cli

HUGE = "1" + "0" * 309  # past a float's range: float() raised OverflowError
ENORMOUS = "1" + "0" * 4300  # past Python's int-from-text limit: tomllib raised ValueError
DEEP = "[" * 500 + "]" * 500  # tomllib raised RecursionError
NO_CIRCUIT = example("inline-watercooled-3090s.toml")  # names no [[circuit]]: reads the settings file


def _write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def _one_error(result_err: str) -> str:
    lines = result_err.strip().splitlines()
    assert len(lines) == 1, result_err
    assert "Traceback" not in result_err
    return lines[0]


# -- build files ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("value", "expected"), [
    (HUGE, r"build.toml:2: ambient: number too large \(310 digits\)"),
    (ENORMOUS, r"build.toml:2: number too large \(4301 digits\)"),
    (DEEP, r"build.toml:2: arrays or tables nested too deep"),
], ids=["310-digits", "4301-digits", "500-nested-arrays"])
def test_an_absurd_value_in_a_build_file_is_one_input_error_with_its_line(
        tmp_path: Path, value: str, expected: str) -> None:
    build = _write(tmp_path / "build.toml", f'name = "x"\nambient = {value}\n')
    result = run_cli("check", build)
    assert result.code == 2
    assert re.search(expected, _one_error(result.err)), result.err


def test_a_huge_number_where_a_quantity_is_read_is_refused_before_any_float_conversion(tmp_path: Path) -> None:
    text = example("pass-dual-3090-wrx80.toml").read_text().replace('other_load = "60 W"', f"other_load = {HUGE}")
    result = run_cli("check", _write(tmp_path / "build.toml", text))
    assert result.code == 2
    assert "circuit[0].other_load: number too large" in _one_error(result.err)


def _deny_reading(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Opening `path` fails as it does for a file the user may not read (also when the tests run as root)."""
    real_open = os.open

    def denied(file: object, *args: object, **kwargs: object) -> int:
        if Path(str(file)) == path:
            raise PermissionError(13, "Permission denied")
        return real_open(file, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", denied)


def test_an_unreadable_build_file_is_one_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    build = _write(tmp_path / "build.toml", example("pass-dual-3090-wrx80.toml").read_text())
    _deny_reading(build, monkeypatch)
    result = run_cli("check", build)
    assert result.code == 2
    assert _one_error(result.err) == f"planner: {build}: cannot read: Permission denied"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its mode")
def test_a_build_file_without_read_permission_is_one_clear_error(tmp_path: Path) -> None:
    build = _write(tmp_path / "build.toml", example("pass-dual-3090-wrx80.toml").read_text())
    build.chmod(0)
    result = run_cli("check", build)
    assert result.code == 2
    assert _one_error(result.err) == f"planner: {build}: cannot read: Permission denied"


# -- catalog files -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "expected"), [
    (f'[my-psu]\nname = "x"\nwattage = {HUGE}\n', "psus.toml:3: my-psu.wattage: number too large"),
    (f'[my-psu]\nwattage = {ENORMOUS}\n', "psus.toml:2: number too large"),
    (f'[my-psu]\nwattage = {DEEP}\n', "psus.toml:2: arrays or tables nested too deep"),
    (b'[my-psu]\nname = "\xff"\n', "psus.toml:2: is not UTF-8 text"),
], ids=["310-digits", "4301-digits", "500-nested-arrays", "not-utf8"])
def test_an_absurd_catalog_file_given_with_catalog_is_one_error_naming_it(
        tmp_path: Path, text: str | bytes, expected: str) -> None:
    _write(tmp_path / "cat" / "psus.toml", text)
    build = example("pass-dual-3090-wrx80.toml")
    result = run_cli("check", build, "--catalog", tmp_path / "cat")
    assert result.code == 2
    line = _one_error(result.err)
    assert line.startswith(f"planner: {build}:") and expected in line, line
    validated = run_cli("catalog", "validate", tmp_path / "cat")
    assert validated.code == 1 and expected in validated.err and "Traceback" not in validated.err


def test_a_non_utf8_file_in_the_user_catalog_directory_is_skipped_with_a_warning_not_fatal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    user = tmp_path / "user-catalog"
    monkeypatch.setenv("PLANNER_USER_CATALOG", str(user))
    _write(user / "psus.toml", b'[my-psu]\nname = "\xff"\n')
    result = run_cli("check", example("pass-dual-3090-wrx80.toml"), "--format", "json")
    assert result.code == 0 and json.loads(result.out)[0]["verdict"] == "pass"
    warning = _one_error(result.err)
    assert warning.startswith("planner: warning: ") and "psus.toml:2: is not UTF-8 text" in warning
    assert "skipped" in warning


def test_catalog_validate_still_lists_a_broken_file_of_the_user_catalog_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    user = tmp_path / "user-catalog"
    monkeypatch.setenv("PLANNER_USER_CATALOG", str(user))
    _write(user / "psus.toml", b'[my-psu]\nname = "\xff"\n')
    result = run_cli("catalog", "validate")
    assert result.code == 1
    assert "psus.toml:2: is not UTF-8 text" in result.err and "Traceback" not in result.err


def test_a_broken_built_in_style_catalog_is_still_an_error(tmp_path: Path) -> None:
    _write(tmp_path / "psus.toml", b'[my-psu]\nname = "\xff"\n')
    catalog = Catalog([tmp_path])
    with pytest.raises(InputError, match="is not UTF-8 text"):
        catalog.entries("psu")


# -- the settings file ---------------------------------------------------------------------------------------
@pytest.fixture
def settings_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from planner.util import config

    config._read.cache_clear()
    path = tmp_path / "config.toml"
    monkeypatch.setenv("PLANNER_CONFIG", str(path))
    return path


@pytest.mark.parametrize(("text", "expected"), [
    (f"region = {HUGE}\n", ":1: region: number too large"),
    (f"region = {ENORMOUS}\n", ":1: number too large"),
    (f"region = {DEEP}\n", ":1: arrays or tables nested too deep"),
    (b'region = "\xff"\n', ":1: is not UTF-8 text"),
], ids=["310-digits", "4301-digits", "500-nested-arrays", "not-utf8"])
def test_an_absurd_settings_file_is_one_error_naming_it(settings_file: Path, text: str | bytes, expected: str) -> None:
    _write(settings_file, text)
    result = run_cli("check", NO_CIRCUIT)
    assert result.code == 2
    assert f"{settings_file}{expected}" in _one_error(result.err)


def test_an_unreadable_settings_file_is_one_clear_error(settings_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(settings_file, 'region = "eu"\n')
    _deny_reading(settings_file, monkeypatch)
    result = run_cli("check", NO_CIRCUIT)
    assert result.code == 2
    assert _one_error(result.err) == f"planner: {NO_CIRCUIT}: {settings_file}: cannot read: Permission denied"


# -- a PSU that carries no load (ZeroDivisionError in outlet.continuous) ------------------------------------------
IDLE_PSU = """name = "A second PSU that feeds nothing, on a circuit over its limit"
case = "fractal-meshify-2-xl"
motherboard = "asus-pro-ws-wrx80e-sage-se"
cpu = "amd-threadripper-pro-5975wx"

[[circuit]]
name = "office"
outlet = "nema-5-15"
other_load = "1500 W"

[[psu]]
part = "corsair-ax1600i"

[[psu]]
part = "corsair-ax1600i"

[[gpu]]
part = "nvidia-rtx-3090-fe"
"""


def test_a_psu_with_no_load_on_a_circuit_over_its_limit_is_reported_not_a_crash(tmp_path: Path) -> None:
    result = run_cli("check", _write(tmp_path / "build.toml", IDLE_PSU), "--format", "json")
    assert result.err == ""
    [report] = json.loads(result.out)
    [finding] = [f for f in report["findings"] if f["code"] == "outlet.continuous"]
    assert finding["severity"] == "error" and "0 W DC through" in finding["message"]


def test_adding_a_second_psu_in_the_session_rechecks_without_a_crash(catalog: Catalog) -> None:
    session = BuildSession.new(catalog)
    for kind, part in (("case", "fractal-meshify-2-xl"), ("motherboard", "asus-pro-ws-wrx80e-sage-se"),
                       ("cpu", "amd-threadripper-pro-5975wx")):
        session.set_part(kind, part)
    session.add("circuit", "nema-5-15", other_load="1500 W")
    session.add("gpu", "nvidia-rtx-3090-fe")
    session.add("psu", "corsair-ax1600i")
    assert session.check().report is not None
    session.add("psu", "corsair-ax1600i")
    result = session.check()
    assert result.problem is None and result.report is not None
    assert "outlet.continuous" in {f.code for f in result.report.findings}


# -- item 2: one crashing file never takes the batch down -------------------------------------------------------
@pytest.fixture
def crashing_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A build whose check hits a bug (simulated: the checks raise for this build only)."""
    import planner.api

    real = planner.api.check

    def check(build, *args, **kwargs):  # type: ignore[no-untyped-def]
        if build.name == "crash":
            raise ZeroDivisionError("float division by zero")
        return real(build, *args, **kwargs)

    monkeypatch.setattr(planner.api, "check", check)
    text = example("pass-dual-3090-wrx80.toml").read_text().replace('name = "Dual RTX 3090 FE on WRX80"',
                                                                      'name = "crash"')
    return _write(tmp_path / "bad.toml", text)


def test_an_internal_error_in_one_file_is_one_line_for_it_and_the_others_are_reported(crashing_build: Path) -> None:
    a, b, c = example("pass-dual-3090-wrx80.toml"), example("fail-psu-quad-3090-fe-1600w.toml"), example(
        "warn-dual-4090-fe-x670e.toml")
    result = run_cli("check", a, b, crashing_build, c)
    assert result.code == 2
    for path in (a, b, c):
        assert f"{path}: " in result.out
    assert str(crashing_build) not in result.out
    line = _one_error(result.err)
    assert line.startswith(f"planner: {crashing_build}: internal error (ZeroDivisionError: float division by zero)")


def test_in_json_every_file_has_its_object_in_order_and_the_failed_ones_say_why(crashing_build: Path,
                                                                                tmp_path: Path) -> None:
    good = example("pass-dual-3090-wrx80.toml")
    invalid = _write(tmp_path / "invalid.toml", f"ambient = {HUGE}\n")
    result = run_cli("check", good, crashing_build, invalid, good, "--format", "json")
    assert result.code == 2
    reports = json.loads(result.out)
    assert [r["file"] for r in reports] == [str(good), str(crashing_build), str(invalid), str(good)]
    assert [r.get("verdict") for r in reports] == ["pass", None, None, "pass"]
    assert "internal error" in reports[1]["error"] and "number too large" in reports[2]["error"]
    assert [f"planner: {r['error']}" for r in reports if "error" in r] == result.err.strip().splitlines()


def test_an_internal_error_message_is_one_printable_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import planner.api

    def check(*args: object, **kwargs: object) -> None:
        raise KeyError("a\nb\x1b]0;title\x07")

    monkeypatch.setattr(planner.api, "check", check)
    result = run_cli("check", example("pass-dual-3090-wrx80.toml"))
    line = _one_error(result.err)
    assert "\x1b" not in line and "\x07" not in line and "\\x1b" in line


# -- item 7: the TUI opens and edits through the CLI's validation ---------------------------------------------
def _complete_build_with(tmp_path: Path, old: str, new: str) -> Path:
    text = example("pass-dual-3090-wrx80.toml").read_text()
    assert old in text
    return _write(tmp_path / "build.toml", text.replace(old, new))


@pytest.mark.parametrize(("old", "new"), [
    ("count = 2", 'count = "two"'),
    ('[[gpu]]\npart = "nvidia-rtx-3090-fe"\ncount = 2\nslot = ["PCIEX16_1", "PCIEX16_5"]'
     ' # positions 1–3 and 5–7: one free slot between the coolers', 'gpu = "x"'),
    ('part = "corsair-ax1600i"', 'part = "corsair-ax1600i"\npart = "corsair-ax1600i"'),
], ids=["count-two", "gpu-x", "duplicate-key-in-psu"])
def test_the_session_refuses_a_file_with_the_clis_own_message(
        tmp_path: Path, catalog: Catalog, old: str, new: str) -> None:
    path = _complete_build_with(tmp_path, old, new)
    cli_error = _one_error(run_cli("check", path).err).removeprefix("planner: ")
    with pytest.raises(InputError) as raised:
        BuildSession.open(path, catalog)
    assert str(raised.value) == cli_error


def test_the_session_opens_an_unfinished_build_but_not_a_wrong_one(tmp_path: Path, catalog: Catalog) -> None:
    unfinished = _write(tmp_path / "unfinished.toml", '[[gpu]]\npart = "nvidia-rtx-3090-fe"\ncount = 2\n')
    assert BuildSession.open(unfinished, catalog).check().missing == ["case", "motherboard", "cpu", "psu"]
    wrong = _write(tmp_path / "wrong.toml", '[[gpu]]\npart = "nvidia-rtx-3090-fe"\ncount = "two"\n')
    with pytest.raises(InputError, match=r"wrong.toml:3: gpu\[0\].count: expected a whole number, got \"two\""):
        BuildSession.open(wrong, catalog)


def test_a_table_where_a_list_of_parts_belongs_is_refused_even_in_an_unfinished_build(
        tmp_path: Path, catalog: Catalog) -> None:
    with pytest.raises(InputError, match=r"build.toml:1: gpu: expected a list of \[\[gpu\]\] tables"):
        BuildSession.open(_write(tmp_path / "build.toml", "[gpu]\n"), catalog)


def test_an_edit_that_makes_the_build_invalid_is_the_checks_problem_not_a_crash(
        tmp_path: Path, catalog: Catalog) -> None:
    path = tmp_path / "build.toml"
    shutil.copy(example("pass-dual-3090-wrx80.toml"), path)
    session = BuildSession.open(path, catalog)
    session.set_field("gpu[0].count", "two")
    result = session.check()
    assert result.report is None and result.problem is not None and "gpu[0].count" in result.problem
    assert [row.quantity for row in session.rows() if row.kind == "gpu"] == [1]  # shown, not crashed
    session.set_field("ambient", int(HUGE))
    assert "number too large" in (session.check().problem or "")


# -- found by the fuzz harness (tests/properties/test_fuzz.py) ---------------------------------------------------------
def test_the_line_of_an_error_is_found_in_linear_time_past_a_long_value(tmp_path: Path) -> None:
    """tomlpos re-scanned a run of key characters from each of its positions: 5 s for a 20 kB value, minutes for
    this one; now a few milliseconds (the limit only catches the quadratic scan)."""
    import signal

    build = _write(tmp_path / "build.toml", f'name = "{"a" * 300_000}"\nworkloud = 1\n')

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError("planner check still running after 5 s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(5)
    try:
        result = run_cli("check", build)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert "also workloud (line 2): unknown key 'workloud'; did you mean 'workload'?" in _one_error(result.err)


def test_a_part_added_to_a_file_without_a_final_newline_saves_as_valid_toml(tmp_path: Path, catalog: Catalog) -> None:
    path = _write(tmp_path / "build.toml", '[[gpu]]\npart = "nvidia-rtx-3090-fe"')
    session = BuildSession.open(path, catalog)
    session.add("gpu", "gigabyte-rtx-3090-turbo")
    session.save()
    assert tomllib.loads(path.read_text()) == {"gpu": [{"part": "nvidia-rtx-3090-fe"},
                                                       {"part": "gigabyte-rtx-3090-turbo"}]}


def test_parts_are_added_to_and_removed_from_an_inline_array_of_tables(tmp_path: Path, catalog: Catalog) -> None:
    session = BuildSession.open(_write(tmp_path / "build.toml", "psu = []\n"), catalog)
    session.add("psu", "corsair-ax1600i")
    assert session.data()["psu"] == [{"part": "corsair-ax1600i"}] and "psu" not in session.check().missing
    session.remove("psu[0]")
    assert session.check().missing == ["gpu", "case", "motherboard", "cpu", "psu"]


def test_the_session_never_saves_what_planner_check_cannot_read(tmp_path: Path, catalog: Catalog) -> None:
    session = BuildSession.open(_write(tmp_path / "build.toml", 'name = "x"\n'), catalog)
    session.set_field("ambient", 2**70)  # tomlkit writes it; the loader refuses numbers past 2**53
    with pytest.raises(InputError, match="number too large"):
        session.save()
    assert (tmp_path / "build.toml").read_text() == 'name = "x"\n'


def test_a_build_without_gpus_that_needs_another_case_is_reported_not_a_traceback(tmp_path: Path) -> None:
    """Found by tools/fuzz_commands.py (seed 20261202, input 6331): the EEB-board example cut before its [[gpu]]
    table; the case fixes asked for the longest card of none."""
    text = example("fail-case-eeb-board-in-mid-tower.toml").read_text()
    path = _write(tmp_path / "build.toml", text[:text.index("[[gpu]]")])
    result = run_cli("check", path)
    assert result.code == 1 and "internal error" not in result.err
    assert "case.form-factor" in result.out
