"""`python -m planner` runs the CLI."""

from planner.cli.main import entry_point

entry_point()
