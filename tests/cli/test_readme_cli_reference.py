"""The README's command-line reference holds to the parsers: every command and every option that `--help`
shows is in the row of its command, and every --format says what its formats are."""

from __future__ import annotations

import argparse
import re

import pytest

from planner.cli.completion_cmd import tree
from planner.cli.main import build_parser, subparser_of

from conftest import ROOT

README = (ROOT / "README.md").read_text()
REFERENCE = README.split("## Command-line reference")[1].split("\n## ")[0]
COMMANDS = tree(build_parser())
LEAVES = [path for path, info in COMMANDS.items() if path and not info["commands"]]


def _rows(path: str) -> str:
    """The reference table's rows for one command (`planner catalog list …`)."""
    rows = [line for line in REFERENCE.splitlines() if re.match(rf"\| `planner {re.escape(path)}( |`)", line)]
    return "\n".join(rows)


@pytest.mark.parametrize("path", LEAVES)
def test_every_command_has_a_row_in_the_readme(path: str) -> None:
    assert _rows(path), f"README command-line reference has no row for `planner {path}`"


@pytest.mark.parametrize("path", LEAVES)
def test_every_option_help_shows_is_in_its_commands_row(path: str) -> None:
    words = path.split()
    chosen = argparse.Namespace(command=words[0], catalog_command=words[1] if len(words) > 1 else None)
    parser = subparser_of(build_parser(), chosen)
    options = [a.option_strings for a in parser._actions if a.option_strings and a.help != argparse.SUPPRESS
               and "--help" not in a.option_strings]
    missing = [o[-1] for o in options if not any(re.search(rf"{re.escape(s)}(?![\w-])", _rows(path)) for s in o)]
    assert not missing, f"`planner {path}`: {missing} not in its README row"


def test_the_top_level_options_are_in_the_readme() -> None:
    assert "planner --version" in REFERENCE


def _actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    found = list(parser._actions)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found += _actions(sub)
    return found


def test_every_format_option_has_help_text() -> None:
    formats = [a for a in _actions(build_parser()) if "--format" in a.option_strings]
    assert formats and all(a.help for a in formats)
