"""User strings in widgets: build, part and circuit names reach the screen as text, never as markup and
never as raw control characters (a name can hold `[bold]`, `ESC ] 0 ;` or a bidi override)."""

from __future__ import annotations

from rich.text import Text

from planner.api import printable


def plain(value: object, style: str = "", *, newlines: bool = False) -> Text:
    """`value` as a rich Text: its markup left as it is, its control and bidi characters escaped
    (planner.api.printable); `newlines=True` for a block of lines the planner made, such as a diagram."""
    return Text(printable(str(value), newlines=newlines), style=style)
