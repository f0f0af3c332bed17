"""Everyday CLI use (issue 18): stdin and stdout as `-`, did-you-mean, the short usage, a UTF-8 BOM, the
forum exports and the guarded power-limit scripts; through `main` and through the real entry point."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

from conftest import example, run_cli

PASSING = example("pass-dual-3090-wrx80.toml")
FAILING = example("fail-psu-quad-3090-fe-1600w.toml")
OPTIMISED = example("warn-dettmers-quad-3090-us-15a-optimised.toml")


def planner(*argv: str | Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """The installed command, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "planner", *map(str, argv)], input=stdin, capture_output=True,
                          check=False, env={**os.environ, "NO_COLOR": "1"})


def test_check_dash_reads_the_build_from_stdin() -> None:
    proc = planner("check", "-", "--format", "json", stdin=PASSING.read_bytes())
    [report] = json.loads(proc.stdout)
    assert proc.returncode == 0 and report["file"] == "<stdin>" and report["verdict"] == "pass"


def test_check_dash_reports_a_failing_build_from_stdin_with_exit_1() -> None:
    proc = planner("check", "-", stdin=FAILING.read_bytes())
    assert proc.returncode == 1 and b"<stdin>" in proc.stdout and b"FAIL" in proc.stdout


def test_a_utf8_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    bom = tmp_path / "bom.toml"
    bom.write_bytes(b"\xef\xbb\xbf" + PASSING.read_bytes())
    assert run_cli("check", bom).code == 0


def test_export_md_to_dash_writes_stdout() -> None:
    proc = planner("export", PASSING, "--format", "md", "-o", "-")
    assert proc.returncode == 0 and proc.stdout.startswith(b"**Dual RTX 3090 FE on WRX80**")
    assert not Path("-").exists()


def test_optimize_to_dash_writes_the_build_to_stdout() -> None:
    result = run_cli("optimize", OPTIMISED, "-o", "-")
    assert result.code == 0 and "[[gpu]]" in result.out and not Path("-").exists()


def test_a_misspelt_command_gets_did_you_mean_and_exit_2() -> None:
    proc = planner("chekc", PASSING)
    assert proc.returncode == 2 and b"did you mean `planner check`" in proc.stderr and proc.stdout == b""


def test_a_misspelt_option_shows_the_commands_usage_and_the_closest_option() -> None:
    result = run_cli("check", PASSING, "--strcit")
    assert result.code == 2
    assert "usage: planner check" in result.err and "did you mean --strict?" in result.err


def test_an_option_written_for_a_format_value_suggests_the_format() -> None:
    result = run_cli("check", PASSING, "--jsno")
    assert "usage: planner check" in result.err and "--format json" in result.err


def test_bare_planner_prints_a_short_usage_to_stderr_and_exits_2() -> None:
    proc = planner()
    assert proc.returncode == 2 and proc.stdout == b"" and b"usage: planner" in proc.stderr


def test_schema_accepts_plural_kinds_like_catalog_list() -> None:
    assert run_cli("schema", "gpus").out == run_cli("schema", "gpu").out != ""


def test_markdown_export_of_a_failing_build_puts_the_verdict_and_errors_on_top() -> None:
    out = run_cli("export", FAILING, "--format", "md").out
    head = out.split("Type|Item|Price")[0]
    assert "FAIL" in head and "psu.headroom" in head


def test_markdown_export_prices_in_dollars_with_a_total_and_the_price_dates() -> None:
    out = run_cli("export", PASSING, "--format", "md").out
    assert "**Motherboard** | ASUS Pro WS WRX80E-SAGE SE WIFI | $999.00" in out
    assert "| **Total** | **$" in out and "Prices seen" in out


def test_markdown_export_lists_the_memory_the_build_names() -> None:
    assert "**Memory** | 8 × DIMM" in run_cli("export", FAILING, "--format", "md").out


def test_bbcode_export_is_a_table_with_the_total() -> None:
    out = run_cli("export", PASSING, "--format", "bbcode").out
    assert out.count("[table]") == 1 and "[b]Total[/b]" in out and "$999.00" in out


def test_the_power_limit_script_is_written_executable(tmp_path: Path) -> None:
    out = tmp_path / "limits.sh"
    assert run_cli("export", OPTIMISED, "--format", "nvidia-smi", "-o", out).code == 0
    assert out.stat().st_mode & stat.S_IXUSR


def test_power_limits_of_a_failing_build_are_refused_without_force(tmp_path: Path) -> None:
    out = tmp_path / "limits.sh"
    refused = run_cli("export", FAILING, "--format", "nvidia-smi", "-o", out)
    assert refused.code == 1 and not out.exists() and "FAILS its check" in refused.err
    forced = run_cli("export", FAILING, "--format", "nvidia-smi", "-o", out, "--force")
    assert forced.code == 0 and out.exists() and "WARNING" in forced.err


def test_a_card_without_a_slot_gets_no_nvidia_smi_index() -> None:
    script = run_cli("export", FAILING, "--format", "nvidia-smi", "--force").out  # GPU4 has no slot
    assert [line.split()[2] for line in script.splitlines() if line.startswith("nvidia-smi -i")] == ["0", "1", "2"]
    assert "GPU4 NVIDIA GeForce RTX 3090 Founders Edition has no slot" in script


def test_the_systemd_unit_has_the_scripts_gpu_count_guard() -> None:
    unit = run_cli("export", OPTIMISED, "--format", "systemd").out
    [guard] = [line for line in unit.splitlines() if line.startswith("ExecStartPre=")]
    assert "--query-gpu=index" in guard and "-ne 4" in guard and "exit 1" in guard and "$$found" in guard
