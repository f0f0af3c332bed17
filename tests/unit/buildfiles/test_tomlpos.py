"""Error lines: the line of a key is found by following headers and keys outside strings, so a multi-line string
that holds `[[gpu]]` or `key = …` lines never moves an error to the wrong line."""

from __future__ import annotations

import tomllib

from hypothesis import given
from hypothesis import strategies as st

from planner.util.tomlpos import line_of

_TRAPS = ["[[gpu]]", "[extras]", "part = \"x\"", "count = 3", "# not a comment", "'", '"', "''", '""', "'''",
          "text with \\\"\"\" escaped", "plain words", ""]


@st.composite
def _build(draw: st.DrawFn) -> tuple[str, dict[tuple[str | int, ...], int]]:
    """A build-like TOML text with multi-line strings full of header- and key-like lines, and where each real
    key is."""
    lines: list[str] = []
    where: dict[tuple[str | int, ...], int] = {}
    for index in range(draw(st.integers(1, 4))):
        lines.append("[[gpu]]")
        if draw(st.booleans()):
            quote = draw(st.sampled_from(['"""', "'''"]))
            body = draw(st.lists(st.sampled_from([t for t in _TRAPS if quote not in t and
                                                  not (quote == "'''" and "\\" in t)]), max_size=4))
            lines.append(f"note = {quote}")
            lines.extend(body)
            lines.append(quote)
        lines.append('part = "nvidia-rtx-3090-fe"')
        where[("gpu", index, "part")] = len(lines)
        lines.append(f"count = {draw(st.integers(1, 8))}  # '''")
        where[("gpu", index, "count")] = len(lines)
    return "\n".join(lines) + "\n", where


@given(_build())
def test_every_key_is_found_on_its_own_line_whatever_multi_line_strings_hold(
        case: tuple[str, dict[tuple[str | int, ...], int]]) -> None:
    text, where = case
    tomllib.loads(text)  # the generator writes valid TOML
    for path, line in where.items():
        assert line_of(text, path) == line, (path, text)
