"""Edit a build's data at a key path (`gpu[0].power_limit`): used to apply and verify fixes. A `Change` is
one such edit; a fix (planner/checks/engine/findings.py) is a list of them."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, MutableMapping, MutableSequence
from typing import Any, NamedTuple


class Change(NamedTuple):
    """One edit of the build file: set `value` at the key path `path` (`gpu[0].power_limit`, `case`)."""

    path: str
    value: Any


_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def parse_path(path: str) -> list[str | int]:
    """'gpu[0].power_limit' -> ['gpu', 0, 'power_limit']"""
    tokens: list[str | int] = []
    for name, index in _TOKEN.findall(path):
        tokens.append(int(index) if index else name)
    if not tokens:
        raise ValueError(f"empty key path {path!r}")
    return tokens


def set_path(data: MutableMapping[str, Any], path: str, value: Any) -> None:
    """Set `value` at `path`, creating tables on the way; works on dicts and tomlkit documents."""
    tokens = parse_path(path)
    node: Any = data
    for token, following in itertools.pairwise(tokens):
        if isinstance(token, int):
            assert isinstance(node, MutableSequence)
            node = node[token]
        else:
            if token not in node:
                node[token] = [] if isinstance(following, int) else {}
            node = node[token]
    node[tokens[-1]] = value


def apply(data: dict[str, Any], changes: Iterable[Change]) -> dict[str, Any]:
    """The build data with `changes` applied, leaving `data` as it was. Only the tables and arrays on the edited
    paths are copied (fix verification applies one edit per candidate fix); the rest is shared with `data`, so
    neither may be changed in place afterwards (nothing does: a build's data is read, and edits go through here)."""
    changed: dict[str, Any] = dict(data)
    own = {id(changed)}  # the containers this call made: safe to change in place
    for change in changes:
        tokens = parse_path(change.path)
        node: Any = changed
        for token, following in itertools.pairwise(tokens):
            if isinstance(token, int):
                assert isinstance(node, MutableSequence)
                child = node[token]
            else:
                child = node[token] if token in node else [] if isinstance(following, int) else {}
            if id(child) not in own:
                if isinstance(child, dict):
                    child = dict(child)
                elif isinstance(child, list):
                    child = list(child)
                own.add(id(child))
                node[token] = child
            node = child
        node[tokens[-1]] = change.value
    return changed
