"""Find the line of a key path in TOML text, so errors can say `build.toml:14`.

tomllib gives no positions, so this scans the text once, following table headers (`[extras]`,
`[[gpu]]` with its running index) and `key =` lines, and skipping what is inside a string: a multi-line string
(three double or three single quotes) may hold lines that look like headers or keys (`[[gpu]]` in a note), and
they are text. It is used only on the error path.
"""

from __future__ import annotations

import re

_ARRAY_HEADER = re.compile(r"^\s*\[\[\s*([^\]]+?)\s*\]\]")
_HEADER = re.compile(r"^\s*\[\s*([^\]]+?)\s*\]")
_KEY = re.compile(r"""^\s*((?:[A-Za-z0-9_\-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_\-]+|"[^"]*"|'[^']*'))*)\s*=""")

# A bare key starts only where no key character precedes it: without the look-behind, a long run of key
# characters (a 100 kB string value) is re-scanned from each of its positions, quadratic in its length.
_INNER_KEY = re.compile(r"(?<![A-Za-z0-9_\-])([A-Za-z0-9_\-]+)\s*=")

Path = tuple[str | int, ...]


def _split_key(text: str) -> tuple[str, ...]:
    parts = re.findall(r"""[A-Za-z0-9_\-]+|"[^"]*"|'[^']*'""", text)
    return tuple(p.strip("\"'") for p in parts)


def key_lines(text: str) -> dict[Path, int]:
    """Every table header and key in the text, mapped to its 1-based line."""
    found: dict[Path, int] = {}
    counters: dict[tuple[str, ...], int] = {}
    current: Path = ()
    inside: str | None = None  # the delimiter of the multi-line string the scan is in
    for number, line in enumerate(text.splitlines(), start=1):
        if inside is not None:
            end = _closing(line, 0, inside)
            if end is None:
                continue
            inside = _open_string(line, end)
            continue
        inside = _open_string(line, 0)
        if match := _ARRAY_HEADER.match(line):
            name = _split_key(match.group(1))
            index = counters.get(name, 0)
            counters[name] = index + 1
            current = (*name, index)
            found.setdefault(current, number)
            found.setdefault(name, number)
        elif match := _HEADER.match(line):
            current = _split_key(match.group(1))
            found.setdefault(current, number)
        elif match := _KEY.match(line):
            path = (*current, *_split_key(match.group(1)))
            found.setdefault(path, number)
            # keys of an inline table on the same line: `part = { base = "x", slot_width = 1 }`
            rest = line[match.end():]
            for inner in _INNER_KEY.finditer(rest):
                found.setdefault((*path, inner.group(1)), number)
    return found


def _closing(line: str, start: int, delimiter: str) -> int | None:
    """Where the string that `delimiter` opened ends on this line (the index after it), or None."""
    i = start
    while (found := line.find(delimiter, i)) >= 0:
        if delimiter[0] == "'" or _escapes_before(line, found) % 2 == 0:
            end = found + len(delimiter)
            while end < len(line) and line[end] == delimiter[0] and end - found < len(delimiter) + 2:
                end += 1  # up to two quotes may end a multi-line string's content: """"" is "" + """
            return end
        i = found + 1
    return None


def _escapes_before(line: str, index: int) -> int:
    n = 0
    while index - n - 1 >= 0 and line[index - n - 1] == "\\":
        n += 1
    return n


def _open_string(line: str, start: int) -> str | None:
    """The delimiter of a multi-line string this line opens after `start` and does not close, or None: strings
    that close on the line are skipped, and a comment ends the scan."""
    i = start
    while i < len(line):
        char = line[i]
        if char == "#":
            return None
        if char in "\"'":
            delimiter = char * 3 if line.startswith(char * 3, i) else char
            end = _closing(line, i + len(delimiter), delimiter)
            if end is None:
                return delimiter if len(delimiter) == 3 else None  # a one-line string cannot go on
            i = end
            continue
        i += 1
    return None


def line_of(text: str, path: Path) -> int | None:
    """The line of the longest prefix of `path` that appears in the text."""
    lines = key_lines(text)
    for end in range(len(path), 0, -1):
        if path[:end] in lines:
            return lines[path[:end]]
    return None
