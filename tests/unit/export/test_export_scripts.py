"""Power-limit exports (README: Command-line reference): the nvidia-smi script and the systemd unit, run against a fake
nvidia-smi that records its arguments; golden files for both."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import pytest

from planner.export.formats import export

from conftest import ROOT, example, run_cli
from helpers import BASE, build, gpus

GOLDEN = ROOT / "tests" / "golden"
# GPU1 (FE, 300 W) sits lowest, in PCIE5; GPU2–3 (blowers, 250 W) in PCIE1 and PCIE3: nvidia-smi, counting in
# PCI bus order from the slot nearest the CPU, sees GPU2, GPU3, GPU1.
MIXED = (BASE + gpus("nvidia-rtx-3090-fe", 1, 'power_limit = "300 W"\nslot = "PCIE5"')
         + gpus("gigabyte-rtx-3090-turbo", 2, 'power_limit = "250 W"\nslot = ["PCIE1", "PCIE3"]'))
FAKE_NVIDIA_SMI = """#!/usr/bin/env bash
echo "$*" >> "$NVSMI_LOG"
if [[ "$*" == *--query-gpu=index* ]]; then seq 0 $((NVSMI_GPUS - 1)); fi
"""


@pytest.fixture
def fake_nvidia_smi(tmp_path: Path) -> Path:
    """A directory whose `nvidia-smi` appends its arguments to tmp_path/calls and lists NVSMI_GPUS GPUs."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "nvidia-smi"
    fake.write_text(FAKE_NVIDIA_SMI)
    fake.chmod(0o755)
    return bin_dir


def _run(argv: list[str], bin_dir: Path, gpus_present: int) -> tuple[int, list[str]]:
    log = bin_dir.parent / "calls"
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "NVSMI_LOG": str(log),
           "NVSMI_GPUS": str(gpus_present)}
    code = subprocess.run(argv, env=env, capture_output=True, text=True, check=False).returncode
    return code, log.read_text().splitlines() if log.exists() else []


@pytest.mark.parametrize(("fmt", "golden"), [("nvidia-smi", "power-limits.sh"), ("systemd", "power-limits.service")])
def test_power_limit_export_matches_its_golden_file(fmt: str, golden: str) -> None:
    text = export(build(MIXED), fmt)
    path = GOLDEN / golden
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text(), f"UPDATE_GOLDEN=1 pytest {__file__} regenerates it after a deliberate change"


def test_the_script_enables_persistence_mode_and_sets_each_limit_in_pci_bus_order(
        tmp_path: Path, fake_nvidia_smi: Path) -> None:
    script = tmp_path / "set-power-limits.sh"
    script.write_text(export(build(MIXED), "nvidia-smi"))
    code, calls = _run(["bash", str(script)], fake_nvidia_smi, gpus_present=3)
    assert code == 0
    assert calls == ["--query-gpu=index --format=csv,noheader", "-pm 1",
                     "-i 0 -pl 250", "-i 1 -pl 250", "-i 2 -pl 300"]


def test_the_script_changes_nothing_when_the_machine_has_a_different_number_of_gpus(
        tmp_path: Path, fake_nvidia_smi: Path) -> None:
    script = tmp_path / "set-power-limits.sh"
    script.write_text(export(build(MIXED), "nvidia-smi"))
    code, calls = _run(["bash", str(script)], fake_nvidia_smi, gpus_present=2)
    assert code == 1 and not [c for c in calls if "-pl" in c or "-pm" in c]


def test_the_systemd_unit_is_a_oneshot_that_runs_the_same_commands_at_boot(fake_nvidia_smi: Path) -> None:
    unit = export(build(MIXED), "systemd")
    lines = unit.splitlines()
    assert {"Type=oneshot", "RemainAfterExit=yes", "WantedBy=multi-user.target"} <= set(lines)
    commands = [line.removeprefix("ExecStart=") for line in lines if line.startswith("ExecStart=")]
    calls: list[str] = []
    for command in commands:
        program, *args = shlex.split(command)
        assert program == "/usr/bin/nvidia-smi"  # systemd wants an absolute path
        code, calls = _run([str(fake_nvidia_smi / "nvidia-smi"), *args], fake_nvidia_smi, gpus_present=3)
        assert code == 0
    assert calls == ["-pm 1", "-i 0 -pl 250", "-i 1 -pl 250", "-i 2 -pl 300"]


def test_a_build_name_cannot_inject_commands_or_systemd_specifiers(tmp_path: Path, fake_nvidia_smi: Path) -> None:
    evil = 'name = "rig\\nreboot $(touch pwned) 100%h"\n' + BASE + gpus("nvidia-rtx-3090-fe")
    script = export(build(evil), "nvidia-smi")
    assert all(line.startswith(("#", "nvidia-smi", "set ", "expected=", "found=", "if ", "    ", "fi"))
               for line in script.splitlines() if line)
    (tmp_path / "s.sh").write_text(script)
    _run(["bash", str(tmp_path / "s.sh")], fake_nvidia_smi, gpus_present=1)
    assert not (tmp_path / "pwned").exists() and not Path("pwned").exists()
    [description] = [line for line in export(build(evil), "systemd").splitlines() if line.startswith("Description=")]
    assert "100%%h" in description


def test_export_writes_the_script_with_the_cli(tmp_path: Path) -> None:
    out = tmp_path / "limits.sh"
    result = run_cli("export", example("warn-dettmers-quad-3090-us-15a-optimised.toml"), "--format", "nvidia-smi",
                     "-o", out)
    assert result.code == 0
    assert [line.split("  #")[0] for line in out.read_text().splitlines() if "-pl" in line] == [
        f"nvidia-smi -i {i} -pl 325" for i in range(4)]
