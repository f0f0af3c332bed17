"""The CLI contract of README: planner check contract: JSON shape, exit codes, text output, help with examples."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import EXAMPLES, example, run_cli

PASSING = example("pass-dual-3090-wrx80.toml")
WARNING = example("warn-quad-3090-blower-250w.toml")
FAILING = example("fail-psu-quad-3090-fe-1600w.toml")


def test_json_is_an_array_with_one_report_per_file_in_the_contract_shape() -> None:
    files = sorted(EXAMPLES.glob("*.toml"))
    result = run_cli("check", *files, "--format", "json")
    reports = json.loads(result.out)
    assert len(reports) == len(files)
    for report in reports:
        assert {"file", "build", "verdict", "findings", "summary"} <= set(report)
        assert report["verdict"] in ("pass", "warn", "fail")
        for finding in report["findings"]:
            assert {"code", "severity", "message", "subject", "value", "limit", "unit", "fixes"} <= set(finding)
        summary = report["summary"]
        assert {"dc_load_w", "dc_peak_w", "psus", "circuits", "gpus", "relative_perf", "price_usd"} <= set(summary)
        for psu in summary["psus"]:
            assert {"part", "rating_w", "load_w", "load_fraction"} <= set(psu)
        for circuit in summary["circuits"]:
            assert {"name", "outlet", "wall_w", "continuous_limit_w"} <= set(circuit)
        for gpu in summary["gpus"]:
            assert {"part", "mount", "positions", "lanes", "power_limit_w", "temperature_c",
                    "relative_perf"} <= set(gpu)


def test_exit_0_when_every_build_passes() -> None:
    assert run_cli("check", PASSING).code == 0


def test_exit_0_with_warnings_unless_strict() -> None:
    assert run_cli("check", WARNING).code == 0
    assert run_cli("check", WARNING, "--strict").code == 1


def test_exit_1_when_any_build_fails() -> None:
    assert run_cli("check", PASSING, FAILING).code == 1


def test_exit_2_beats_1_when_a_file_is_invalid(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("case = ")
    assert run_cli("check", FAILING, bad).code == 2


def test_numbers_are_plain_json_numbers_in_the_unit_their_key_names() -> None:
    [report] = json.loads(run_cli("check", FAILING, "--format", "json").out)
    summary = report["summary"]
    assert summary["dc_load_w"] == 1780
    assert summary["psus"][0] == {"part": "corsair-ax1600i", "rating_w": 1600.0, "load_w": 1780.0,
                                  "load_fraction": 1.1125, "circuit": "office",
                                  "gpus": ["GPU1", "GPU2", "GPU3", "GPU4"]}
    assert summary["circuits"][0]["continuous_limit_w"] == pytest.approx(1440.0)
    # 1,780 W DC at 111 % load: Titanium at 115 V holds its 100 % point, 90 % → 1,977.8 W at the wall
    assert summary["circuits"][0]["wall_w"] == pytest.approx(1977.8)
    # 4 × 350 W × 1.432 (the default 1–5 ms excursion) + 380 W for the CPU and the rest
    assert summary["dc_peak_w"] == pytest.approx(4 * 350 * 823.6 / 575 + 380, abs=0.1)
    assert summary["gpus"][0]["power_limit_w"] == 350


def test_figures_no_model_can_give_are_null_not_made_up(tmp_path: Path) -> None:
    # a passive card in a desktop case has no temperature to predict: it needs a server chassis's airflow
    passive = tmp_path / "passive.toml"
    passive.write_text(PASSING.read_text().replace('part = "nvidia-rtx-3090-fe"',
                                                   'part = { base = "nvidia-rtx-3090-fe", cooler = "passive" }'))
    [report] = json.loads(run_cli("check", passive, "--format", "json").out)
    assert [g["temperature_c"] for g in report["summary"]["gpus"]] == [None, None]


def test_text_report_when_piped_is_plain_and_names_the_problem() -> None:
    result = run_cli("check", FAILING)
    assert result.out.startswith(f"{FAILING}: Quad RTX 3090 FE at 350 W, one 1600 W PSU, US 15 A — FAIL")
    assert "ERROR psu.headroom: Sustained DC load 1,780 W" in result.out
    assert "\x1b[" not in result.out


def _in_a_terminal(args: list[str], env: dict[str, str]) -> str:
    """Run the real CLI under a pseudo-terminal and return what it printed."""
    import pty

    pid, fd = pty.fork()
    if pid == 0:  # child
        os.execve(sys.executable, [sys.executable, "-m", "planner", *args], {**os.environ, **env, "COLUMNS": "120"})
    chunks = []
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.waitpid(pid, 0)
    return b"".join(chunks).decode("utf-8", "replace")


def test_terminal_output_is_a_coloured_table() -> None:
    out = _in_a_terminal(["check", str(FAILING)], {"TERM": "xterm-256color"})
    assert "\x1b[" in out
    assert "psu.headroom" in out and "╭" in out


def test_no_color_keeps_the_table_and_drops_the_colour() -> None:
    out = _in_a_terminal(["check", str(FAILING)], {"TERM": "xterm-256color", "NO_COLOR": "1"})
    assert "psu.headroom" in out and "╭" in out
    assert "\x1b[3" not in out  # no foreground colours


@pytest.mark.parametrize("command", [["check"], ["catalog", "list"], ["catalog", "show"], ["catalog", "search"],
                                     ["catalog", "validate"], ["schema"], ["export"], []])
def test_every_command_has_help_with_an_example(command: list[str]) -> None:
    result = run_cli(*command, "--help")
    assert result.code == 0
    assert "examples:" in result.out and "planner " in result.out


def test_no_command_prints_a_short_usage_on_stderr_and_exits_2() -> None:
    result = run_cli()
    assert result.code == 2
    assert "usage: planner" in result.err and result.out == ""
    assert len(result.err.splitlines()) <= 4


def test_unknown_option_is_a_usage_error() -> None:
    result = run_cli("check", PASSING, "--frmat", "json")
    assert result.code == 2
    assert "unrecognized arguments" in result.err


def test_psu_target_out_of_range_is_rejected() -> None:
    result = run_cli("check", PASSING, "--psu-target", "7")
    assert result.code == 2
    assert "--psu-target must be a fraction" in result.err


def test_region_sets_the_assumed_circuit() -> None:
    [report] = json.loads(run_cli("check", example("inline-watercooled-3090s.toml"), "--region", "eu",
                                  "--format", "json").out)
    assert report["summary"]["circuits"][0]["outlet"] == "schuko-16a"
    assert report["summary"]["circuits"][0]["assumed"] is True


def test_the_console_script_and_python_m_work_from_any_directory(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("planner")
    for argv in ([str(script)], [sys.executable, "-m", "planner"]):
        proc = subprocess.run([*argv, "check", str(FAILING), "--format", "json"], capture_output=True, text=True,
                              cwd=tmp_path)
        assert proc.returncode == 1, proc.stderr
        assert json.loads(proc.stdout)[0]["verdict"] == "fail"


def test_the_users_configured_region_sets_the_assumed_circuit(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from planner.util import config

    config._read.cache_clear()
    settings = tmp_path / "config.toml"
    settings.write_text('region = "uk"\n')
    monkeypatch.setenv("PLANNER_CONFIG", str(settings))
    [report] = json.loads(run_cli("check", example("inline-watercooled-3090s.toml"), "--format", "json").out)
    assert report["summary"]["circuits"][0]["outlet"] == "bs-1363-13a"
    [overridden] = json.loads(run_cli("check", example("inline-watercooled-3090s.toml"), "--region", "jp",
                                      "--format", "json").out)
    assert overridden["summary"]["circuits"][0]["outlet"] == "jis-c-8303-15a"


def test_a_bad_settings_file_is_one_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from planner.util import config

    config._read.cache_clear()
    settings = tmp_path / "config.toml"
    settings.write_text('region = "mars"\n')
    monkeypatch.setenv("PLANNER_CONFIG", str(settings))
    build = example("inline-watercooled-3090s.toml")
    result = run_cli("check", build)
    assert result.code == 2
    expected = "region must be one of us, eu, uk, jp, cn, au, got 'mars'"
    assert result.err.strip() == f"planner: {build}: {settings}: region: {expected}"  # the build that needed it
