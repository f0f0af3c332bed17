"""Edit a build's data at a key path (`gpu[0].power_limit`): used to apply and verify fixes. A `Change` is
one such edit; a fix (planner/checks/findings.py) is a list of them."""

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


def _copy(value: Any) -> Any:
    """A deep copy of parsed TOML (dicts, lists and immutable scalars): several times faster than
    copy.deepcopy, and fix verification copies the build once per candidate fix."""
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value


def apply(data: dict[str, Any], changes: Iterable[Change]) -> dict[str, Any]:
    """A changed deep copy of the build data."""
    changed: dict[str, Any] = _copy(data)
    for change in changes:
        set_path(changed, change.path, change.value)
    return changed
