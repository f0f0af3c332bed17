"""Reading TOML input safely. Build files, catalog files and the settings file are all read and parsed here,
so hostile input (a file that is not UTF-8 or cannot be read, an integer with thousands of digits, arrays
nested hundreds deep) becomes one InputError naming the file and, when it is known, the line — never a
traceback from deep inside the parser or from the float conversion of an absurd number later on.

Callers pass the error class to raise (`InputError` for builds and settings, `CatalogError` for catalogs).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from planner.util.errors import InputError
from planner.util.fileio import MAX_READ, read_bytes
from planner.util.fmt import UNSAFE_CHARS

#: Deepest nesting of tables and arrays accepted. A build file nests 4 levels (`gpu` → entry → inline
#: part → a list in it), a catalog file about as many; 32 leaves room for anything a person writes and
#: keeps every recursive walk over the data (validation, copies, the TUI's document) far from Python's
#: recursion limit.
MAX_DEPTH = 32
#: Largest whole number accepted: 2**53, the largest up to which every integer is exactly a float (and a
#: JSON number). No figure a build or catalog holds comes near it; past it, converting to float loses the
#: number or (past ~1.8e308) fails.
MAX_INT = 2**53

_KeyPath = tuple[str | int, ...]


def read_text(path: Path, error: type[InputError] = InputError, *, label: str | None = None,
              what: str = "a TOML file", cap: int = MAX_READ) -> str:
    """The file's text, read through `fileio.read_bytes` (a regular file of at most `cap` bytes); `error`
    naming the file when it cannot be read, is no regular file, is too large or is not UTF-8."""
    label = label or str(path)
    return decode(read_bytes(path, label=label, what=what, cap=cap, error=error), label, error, what=what)


def decode(data: bytes, label: str, error: type[InputError] = InputError, *, what: str = "a TOML file") -> str:
    """UTF-8 text (a byte order mark, which Windows editors write, is fine); `error` naming the byte and line."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as problem:
        line = data[:problem.start].count(b"\n") + 1
        raise error(f"is not UTF-8 text (byte {problem.start + 1}); expected {what}", file=label,
                    line=line) from None


def loads(text: str, label: str, error: type[InputError] = InputError) -> dict[str, Any]:
    """Parse TOML text; any problem, including numbers and nesting no input needs, is an `error`."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as problem:
        detail = str(problem)
        match = re.search(r"\(at line (\d+), column \d+\)", detail)
        line = int(match.group(1)) if match else None
        detail = re.sub(r"\s*\(at line \d+, column \d+\)", "", detail)
        raise error(f"not valid TOML: {detail[0].lower()}{detail[1:]}", file=label, line=line) from None
    except RecursionError:
        raise error(f"arrays or tables nested too deep (at most {MAX_DEPTH} levels)", file=label,
                    line=_deep_line(text)) from None
    except ValueError:  # int() refuses more than sys.get_int_max_str_digits() digits
        match = re.search(r"[0-9A-Za-z_]{4300,}", text)
        line = text.count("\n", 0, match.start()) + 1 if match else None
        raise error(_too_large(len(match.group()) if match else None), file=label, line=line) from None
    check_values(data, text, label, error)
    return data


def check_values(data: dict[str, Any], text: str, label: str, error: type[InputError] = InputError) -> None:
    """Refuse nesting deeper than MAX_DEPTH and whole numbers beyond ±MAX_INT, naming the key and its line."""
    if _plausible(data):
        return
    for path, problem in _problems(data, ()):
        from planner.util.tomlpos import line_of
        from planner.util.validation import location

        raise error(f"{location(path)}: {problem}" if path else problem, file=label, line=line_of(text, path))


def _plausible(data: dict[str, Any]) -> bool:
    """No nesting or number out of bounds (the fast pass: builds no key paths; a large imported catalog
    takes ~5 ms)."""
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        items = value.values() if type(value) is dict else value
        for item in items:
            kind = type(item)
            if kind is int:
                if not -MAX_INT <= item <= MAX_INT:
                    return False
            elif kind is dict or kind is list:
                if depth >= MAX_DEPTH:
                    return False
                stack.append((item, depth + 1))
    return True


def _problems(value: Any, path: _KeyPath) -> Iterator[tuple[_KeyPath, str]]:
    if isinstance(value, (dict, list)):
        if len(path) > MAX_DEPTH:
            yield path[:1], f"arrays or tables nested too deep (at most {MAX_DEPTH} levels)"
            return
        for key, item in value.items() if isinstance(value, dict) else enumerate(value):
            yield from _problems(item, (*path, key))
    elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
        yield path, _too_large(len(str(abs(value))))


def _too_large(digits: int | None) -> str:
    return f"number too large ({digits or 'thousands of'} digits); numbers here are at most {MAX_INT:,}"


def _deep_line(text: str) -> int | None:
    """The line where brackets and braces first nest deeper than MAX_DEPTH, outside strings and comments."""
    depth, line, quote, i = 0, 1, "", 0
    while i < len(text):
        char = text[i]
        if char == "\n":
            line += 1
        if quote:
            if char == "\\" and quote in ('"', '"""'):
                line += text[i + 1:i + 2] == "\n"
                i += 2
                continue
            if text.startswith(quote, i):
                i += len(quote)
                quote = ""
                continue
        elif char in "\"'":
            quote = char * 3 if text.startswith(char * 3, i) else char
            i += len(quote)
            continue
        elif char == "#":
            end = text.find("\n", i)
            i = end if end >= 0 else len(text)
            continue
        elif char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return line
        elif char in "]}":
            depth = max(depth - 1, 0)
        i += 1
    return None


# -- writing -------------------------------------------------------------------------------------------------
def dumps(document: Any) -> str:
    """A tomlkit document as TOML text: the one way the planner writes TOML (`optimize`, `solve`, `recommend
    --into`/`--complete`, the TUI's saves).

    tomlkit keeps a parsed string as the file wrote it and writes a new one with only C0 controls escaped, so
    a name holding U+202E, U+2028, U+0085 or U+009B went into the file raw (and a lone CR or ESC in a comment
    made the file invalid TOML). Here every string and quoted key that holds a control, C1, bidi or separator
    character (`fmt.UNSAFE_CHARS`, or a newline in a one-line string) is written as a basic string with that
    character as its escape (`\\u202e`): the same value when read back, inert in an editor or a terminal.
    Every comment carries only printable text (each such character shown as its escape, `fmt.printable`).
    Values are unchanged; the document is updated in place.
    """
    import tomlkit

    for item in _items(document):
        _make_safe(item)
    return tomlkit.dumps(document)


def _items(node: Any) -> Iterator[Any]:
    """Every item and key of a tomlkit container, table, array of tables or array, depth first."""
    from tomlkit.container import Container
    from tomlkit.items import AoT, Array, InlineTable, Table

    stack = [node]
    while stack:
        item = stack.pop()
        yield item
        if isinstance(item, Container):
            for key, child in item.body:
                if key is not None:
                    yield key
                stack.append(child)
        elif isinstance(item, (Table, InlineTable)):
            stack.append(item.value)
        elif isinstance(item, AoT):
            stack.extend(item.body)
        elif isinstance(item, Array):
            for group in item._value:  # each value with its comment and whitespace
                stack.extend(part for part in (group.value, group.comment) if part is not None)


def _make_safe(item: Any) -> None:
    from tomlkit.items import Item, KeyType, SingleKey, String, StringType, Whitespace

    from planner.util.fmt import printable

    if isinstance(item, String):
        if _raw_unsafe(item._original, multiline=item._t.is_multiline()):
            item._t, item._original = StringType.SLB, _basic(str(item))
    elif isinstance(item, SingleKey) and _raw_unsafe(item._original, multiline=False):
        spacing = item._original[len(item._original.rstrip()):]  # before the `=`, as the file had it
        item.t, item._original = KeyType.Basic, f'"{_basic(item.key)}"{spacing}'
    if isinstance(item, Item) and not isinstance(item, Whitespace):
        comment = item.trivia.comment
        if comment and not comment.isprintable():
            item.trivia.comment = printable(comment)


@cache
def _unsafe_in_toml() -> re.Pattern[str]:
    return re.compile(f"[{UNSAFE_CHARS}]")  # compiled when the planner first writes TOML, not when it reads


_SHORT_ESCAPES = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r", '"': '\\"', "\\": "\\\\"}


def _raw_unsafe(original: str, *, multiline: bool) -> bool:
    """Whether a string's text as written holds an unsafe character raw (an escape, `\\u202e`, is fine)."""
    return bool(_unsafe_in_toml().search(original)) or (not multiline and "\n" in original)


def _basic(value: str) -> str:
    """The body of a TOML basic string for `value`: quotes and backslashes escaped, each unsafe character as
    its short escape (`\\n`) or `\\uXXXX`."""
    out = []
    for char in value:
        if char in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[char])
        elif 0xD800 <= ord(char) <= 0xDFFF:  # a non-UTF-8 byte of a file name: no TOML escape can hold it
            out.append("\\ufffd")
        elif _unsafe_in_toml().match(char):
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return "".join(out)
