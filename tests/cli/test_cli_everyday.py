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
    head = out.split("| Type | Item | Price |")[0]
    assert "FAIL" in head and "psu.headroom" in head


def test_markdown_export_prices_in_dollars_with_a_total_and_the_price_dates() -> None:
    out = run_cli("export", PASSING, "--format", "md").out
    from planner.catalog import Catalog

    price = Catalog().get("motherboard", "asus-pro-ws-wrx80e-sage-se").price
    assert f"**Motherboard** | ASUS Pro WS WRX80E-SAGE SE WIFI | ${price:,.2f}" in out
    assert "| **Total** | **$" in out and "Prices seen" in out


def test_markdown_export_lists_the_memory_the_build_names() -> None:
    memory = [line for line in run_cli("export", FAILING, "--format", "md").out.splitlines()
              if line.startswith("| **Memory** | ")]  # the base system's RAM, as many modules as [extras] names
    assert len(memory) == 1 and "×8" in memory[0]


def test_bbcode_export_is_a_table_with_the_total() -> None:
    out = run_cli("export", PASSING, "--format", "bbcode").out
    from planner.catalog import Catalog

    price = Catalog().get("motherboard", "asus-pro-ws-wrx80e-sage-se").price
    assert out.count("[table]") == 1 and "[b]Total[/b]" in out and f"${price:,.2f}" in out


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


def test_init_writes_a_commented_starter_build_that_check_accepts(tmp_path: Path) -> None:
    out = tmp_path / "build.toml"
    result = run_cli("init", out)
    assert result.code == 0 and out.read_text().startswith("# A starter build")
    assert run_cli("check", out).code == 0 and "checks PASS" in result.err


def test_init_takes_the_gpu_count_and_the_outlet(tmp_path: Path) -> None:
    out = tmp_path / "build.toml"
    assert run_cli("init", out, "--gpus", "3", "--outlet", "nema-6-20").code == 0
    [report] = json.loads(run_cli("check", out, "--format", "json").out)
    assert len(report["summary"]["gpus"]) == 3 and report["summary"]["circuits"][0]["outlet"] == "nema-6-20"


def test_init_refuses_an_unknown_outlet_and_an_impossible_count(tmp_path: Path) -> None:
    assert "nema-5-15" in run_cli("init", tmp_path / "a.toml", "--outlet", "nema-5-1").err
    assert run_cli("init", tmp_path / "b.toml", "--gpus", "40").code == 2
    assert not list(tmp_path.iterdir())


def test_init_never_overwrites_without_force(tmp_path: Path) -> None:
    out = tmp_path / "build.toml"
    out.write_text("mine")
    assert run_cli("init", out).code == 2 and out.read_text() == "mine"


def test_diff_shows_limits_totals_verdict_and_cleared_findings() -> None:
    result = run_cli("diff", example("fail-dettmers-quad-3090-us-15a.toml"), OPTIMISED)
    assert result.code == 0
    assert "verdict: FAIL → WARN" in result.out
    assert "GPU1 gigabyte-rtx-3090-turbo power limit: 350 W → 325 W" in result.out
    assert "error outlet.inlet" in result.out and "cleared" in result.out


def test_diff_json_lists_parts_added_and_removed() -> None:
    proc = planner("diff", example("fail-slots-quad-3090-fe-wrx80.toml"), example("pass-quad-3090-turbo-wrx80.toml"),
                   "--format", "json")
    data = json.loads(proc.stdout)
    assert {"part": "gigabyte-rtx-3090-turbo", "from": 0, "to": 4} in data["parts"]
    assert {"part": "nvidia-rtx-3090-fe", "from": 4, "to": 0} in data["parts"]
    assert (data["old"]["verdict"], data["new"]["verdict"]) == ("fail", "pass")


def test_diff_of_a_build_with_itself_from_stdin_finds_nothing() -> None:
    proc = planner("diff", PASSING, "-", stdin=PASSING.read_bytes())
    assert proc.returncode == 0 and b"no difference" in proc.stdout


def test_bash_completion_completes_commands_options_and_their_values(tmp_path: Path) -> None:
    proc = planner("completion", "bash")
    assert proc.returncode == 0
    script = tmp_path / "planner.bash"
    script.write_bytes(proc.stdout)

    def complete(*words: str) -> list[str]:
        probe = (f'source {script}; COMP_WORDS=(planner {" ".join(repr(w) for w in words)}); '
                 f'COMP_CWORD={len(words)}; _planner; echo "${{COMPREPLY[@]}}"')
        return subprocess.run(["bash", "-c", probe], capture_output=True, text=True, check=True).stdout.split()

    assert complete("ch") == ["check"]
    assert "--format" in complete("check", "--fo")
    assert complete("export", "--format", "bb") == ["bbcode"]
    assert "gpus" in complete("catalog", "list", "gp")


def test_zsh_and_fish_completion_name_every_command() -> None:
    from planner.cli.main import COMMANDS

    for shell in ("zsh", "fish"):
        out = run_cli("completion", shell).out
        assert all(command in out for command in COMMANDS)


def test_optimize_json_gives_the_limits_their_cost_and_the_build() -> None:
    result = run_cli("optimize", example("fail-dettmers-quad-3090-us-15a.toml"), "--format", "json")
    data = json.loads(result.out)
    assert result.code == 0 and data["power_limits_w"] == {"gpu[0]": 325.0}
    assert "psu.headroom" in data["clears"] and 'power_limit = "325 W"' in data["build_toml"]


def test_the_optimised_build_is_named_for_its_new_limits() -> None:
    out = run_cli("optimize", example("fail-dettmers-quad-3090-us-15a.toml")).out
    assert 'name = "Quad RTX 3090 at 350 W, one 1600 W PSU, US 15 A circuit (power limits 325 W by planner optimize)"' \
        in out


def test_every_option_in_the_text_charts_legend_is_drawn() -> None:
    out = run_cli("recommend", "--workload", "llm-inference", "--model", "llama-3-70b", "--precision", "int4",
                  "--budget", "4000").out
    chart = out[out.index("performance per $1,000 (H100"):]
    plot = [line.split("|", 1)[1] for line in chart.splitlines() if "|" in line]
    legend = [line.split()[0] for line in chart.splitlines() if line.startswith("  ") and ": " in line
              and "GiB" in line]
    assert len(legend) >= 6
    assert all(sum(row.count(mark) for row in plot) == 1 for mark in legend)


def test_the_svg_plots_point_labels_do_not_overlap(tmp_path: Path) -> None:
    import re

    svg = tmp_path / "plot.svg"
    assert run_cli("recommend", "--workload", "llm-inference", "--model", "llama-3-70b", "--precision", "int4",
                   "--budget", "4000", "--plot", svg).code == 0
    spots = [(float(x), float(y)) for x, y in re.findall(r'<text x="([\d.]+)" y="([\d.]+)" font-size="11">[A-Z]<',
                                                          svg.read_text())]
    assert len(spots) >= 6
    assert all(abs(a[0] - b[0]) >= 10 or abs(a[1] - b[1]) >= 12 for i, a in enumerate(spots) for b in spots[i + 1:])


def test_the_systemd_guard_stops_the_unit_when_the_gpu_count_differs(tmp_path: Path) -> None:
    """The ExecStartPre line run as systemd would (`$$` is a literal `$`), against a fake nvidia-smi."""
    fake = tmp_path / "nvidia-smi"
    fake.write_text('#!/bin/sh\nseq 0 $((GPUS - 1))\n')
    fake.chmod(0o755)
    unit = run_cli("export", OPTIMISED, "--format", "systemd").out
    [guard] = [line.removeprefix("ExecStartPre=") for line in unit.splitlines() if line.startswith("ExecStartPre=")]
    command = guard.replace("$$", "$").replace("/usr/bin/nvidia-smi", str(fake))
    argv = ["/bin/sh", "-c", command.split("-c ", 1)[1].strip("'")]
    for present, code in ((4, 0), (3, 1)):
        proc = subprocess.run(argv, env={**os.environ, "GPUS": str(present)}, capture_output=True, text=True,
                              check=False)
        assert proc.returncode == code, proc.stderr
