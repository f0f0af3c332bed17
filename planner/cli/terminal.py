"""The terminal channel: everything the CLI prints goes through one escaping rule, applied at the stream.

While a command runs, `sys.stdout` and `sys.stderr` are wrapped so that every control, C1, bidi and separator
character (`planner.util.fmt.UNSAFE_CHARS`) that reaches them is written as its escape (`\\x1b`, `\\u202e`): a
name, a file name, an id or an option a user typed (argparse echoes "unrecognized arguments" and bad
choices) can never clear the screen, retitle the terminal, hide the rest of a line or reorder it. Newlines
and tabs pass (the planner's own lines; `catalog list` is tab-separated when piped). Names are still made one
line (`fmt.printable`) where they are put into a line, so a newline in a name cannot forge a line either.

Rich draws its tables and colours with escape sequences of its own: its console writes to the stream
underneath (`raw`), and every user string it is given goes through `printable` first (render_rich.py).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any, TextIO

from planner.util.fmt import UNSAFE_CHARS


@cache
def _unsafe() -> re.Pattern[str]:
    return re.compile(f"(?!\t)[{UNSAFE_CHARS}]")  # a tab passes (UNSAFE_CHARS has no newline)


def escape(text: str) -> str:
    """`text` as the terminal channel writes it: each unsafe character but newline and tab as its escape."""
    if text.replace("\n", "").replace("\t", "").isprintable():  # nearly every write: no regex compiled
        return text
    return _unsafe().sub(lambda match: repr(match.group())[1:-1], text)


class EscapedStream:
    """A text stream that writes through `escape`; everything else (isatty, fileno, encoding, flush…) is the
    wrapped stream's."""

    def __init__(self, raw: TextIO) -> None:
        self.raw = raw

    def write(self, text: str) -> int:
        self.raw.write(escape(text))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)


def raw(stream: Any) -> Any:
    """The stream under an EscapedStream (for rich, whose escape sequences are its own), else `stream`."""
    return stream.raw if isinstance(stream, EscapedStream) else stream


@contextmanager
def escaped() -> Iterator[None]:
    """stdout and stderr through the terminal channel's rule while the block runs."""
    old_out, old_err = sys.stdout, sys.stderr
    if old_out is not None and not isinstance(old_out, EscapedStream):
        sys.stdout = EscapedStream(old_out)
    if old_err is not None and not isinstance(old_err, EscapedStream):
        sys.stderr = EscapedStream(old_err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = old_out, old_err
