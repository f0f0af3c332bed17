"""`python -m planner` runs the CLI."""

from planner.cli.startup import entry_point

entry_point()
