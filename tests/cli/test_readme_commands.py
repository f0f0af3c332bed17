"""The README's two set-up commands stay true: CI runs the test command verbatim, from the locked versions."""

from __future__ import annotations

import re

from conftest import ROOT


def _commands() -> list[str]:
    return re.findall(r"```sh\n(python3 -m venv .venv && .*)\n```", (ROOT / "README.md").read_text())


def test_ci_runs_the_readmes_test_command_verbatim() -> None:
    [_install_and_run, test] = _commands()
    assert "pytest" in test and test in (ROOT / ".ci" / "run").read_text().splitlines()


def test_the_test_command_installs_from_the_locked_constraints() -> None:
    test = _commands()[1]
    assert "-c constraints.txt" in test
    pins = [line for line in (ROOT / "constraints.txt").read_text().splitlines() if not line.startswith("#")]
    assert pins and all(re.fullmatch(r"[A-Za-z0-9_.\-]+==[0-9][A-Za-z0-9.]*", line) for line in pins)


def test_the_first_command_runs_an_example_that_exists() -> None:
    install_and_run = _commands()[0]
    [example] = re.findall(r"examples/builds/[\w.\-]+\.toml", install_and_run)
    assert (ROOT / example).is_file()
