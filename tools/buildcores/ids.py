"""Ids and names: a listing's words and maker, its id, and one entry per id.

Ids are `<maker>-<name words>` (GPU boards: `<maker>-<chip id>-<name words>`); records with the same id and
the same figures are kept once (`dedupe`); other collisions get distinguishing parts (`assign_ids`).
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

COLOURS = {
    "black", "white", "silver", "grey", "gray", "red", "blue", "green", "gold", "orange", "purple", "pink",
    "yellow", "brown", "titanium", "gunmetal", "snow", "pitch", "chalk", "charcoal", "matte", "frost",
}


class Skip(Exception):
    """A record that is not imported; `reason` is the category counted in the summary."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class Candidate:
    """One mapped entry before its final id is known."""

    base_id: str
    data: dict[str, Any]
    uuid: str
    discriminators: tuple[str, ...] = ()
    maker: str = ""  # with `words` and `part_numbers`: what matches the listing to a curated part
    words: tuple[str, ...] = ()  # the model's words (the id's words after the maker, uncapped)
    part_numbers: tuple[str, ...] = ()


# -- text helpers -------------------------------------------------------------------------------------

def ascii_fold(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()


def tokens(text: str) -> list[str]:
    """Lowercase id tokens: runs of ASCII letters and digits ("Rev. 2.0" → rev, 2, 0; ids have no dots, so
    each is a bare TOML key the catalog loader can find by its line)."""
    text = re.sub(r"(?<=[A-Za-z0-9])\+", " plus", ascii_fold(re.sub("[™®©]", " ", text))).lower()
    return re.findall(r"[a-z0-9]+", text)


def slug(text: str) -> str:
    return "-".join(tokens(text))


def clean_name(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def strip_prefix(words: list[str], prefix: list[str]) -> list[str]:
    """Drop the leading run of `words` that repeats `prefix` (e.g. the maker at the start of a name)."""
    i = 0
    while i < len(words) and i < len(prefix) and words[i] == prefix[i]:
        i += 1
    return words[i:]


def remove_run(words: list[str], run: list[str]) -> list[str]:
    """Remove every occurrence of the contiguous token run `run`."""
    if not run:
        return words
    out: list[str] = []
    i = 0
    while i < len(words):
        if words[i:i + len(run)] == run:
            i += len(run)
        else:
            out.append(words[i])
            i += 1
    return out


def make_id(maker: str, middle: list[str], rest: list[str], max_rest: int = 6) -> str:
    """`<maker>-<middle>-<rest>` without repeated tokens, the rest capped to keep ids readable."""
    seen: set[str] = set()
    parts: list[str] = []
    for word in [*tokens(maker), *middle]:
        parts.append(word)
        seen.add(word)
    kept = 0
    for word in rest:
        if word in seen or kept >= max_rest:
            continue
        parts.append(word)
        seen.add(word)
        kept += 1
    return "-".join(parts)


def colour_slug(record: dict[str, Any]) -> str:
    meta = record.get("metadata") or {}
    named = meta.get("manufacturer_color")
    if named:
        return slug(named)
    colours = record.get("color") or []
    return "-".join(slug(c) for c in colours if isinstance(c, str))


def first_part_number(record: dict[str, Any]) -> str:
    numbers = (record.get("metadata") or {}).get("part_numbers") or []
    return slug(numbers[0]) if numbers and isinstance(numbers[0], str) else ""


def part_numbers(record: dict[str, Any]) -> tuple[str, ...]:
    """The record's part numbers that look like part numbers, compacted (`CP-9020201-NA` → cp9020201na)."""
    numbers = (record.get("metadata") or {}).get("part_numbers") or []
    return tuple(sorted({c for n in numbers if isinstance(n, str) and is_part_number(c := compact(n))}))


def compact(text: str) -> str:
    """Letters and digits only, lowercase: how part numbers are compared."""
    return "".join(tokens(text))


PART_NUMBER = re.compile(r"(?=[a-z]*\d)(?=\d*[a-z])[a-z0-9]{5,}")
NOT_PART_NUMBER = re.compile(r"(atx|pcie|gen|ddr|rev|v)\d")  # "ATX 3.1", "PCIe 5.0": versions, not parts


def is_part_number(text: str) -> bool:
    return bool(PART_NUMBER.fullmatch(text)) and not NOT_PART_NUMBER.match(text)


def number(value: Any) -> float | None:
    """A positive finite number or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if not math.isfinite(value) or value <= 0:
        return None
    return float(value)


def whole(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def round5(value: float) -> int:
    return int(5 * round(value / 5))


# -- makers ---------------------------------------------------------------------------------------------

class Makers:
    """Canonical maker spelling per kind: the most common spelling of each case-folded name."""

    def __init__(self, records: Iterable[dict[str, Any]]) -> None:
        spellings: dict[str, Counter[str]] = defaultdict(Counter)
        for record in records:
            maker = (record.get("metadata") or {}).get("manufacturer")
            if isinstance(maker, str) and maker.strip():
                spellings[slug(maker)][clean_name(maker)] += 1
        self.canonical = {key: sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
                          for key, c in spellings.items()}

    def __call__(self, record: dict[str, Any]) -> str:
        maker = (record.get("metadata") or {}).get("manufacturer")
        if not isinstance(maker, str) or not slug(maker):
            raise Skip("no manufacturer")
        return self.canonical.get(slug(maker), clean_name(maker))


def record_name(record: dict[str, Any]) -> str:
    name = (record.get("metadata") or {}).get("name")
    if not isinstance(name, str) or not name.strip():
        raise Skip("no name")
    return clean_name(name)


# -- one id per entry -------------------------------------------------------------------------------------

def dedupe(candidates: list[Candidate], skipped: Counter[str], matched: Iterable[str] = ()) -> list[Candidate]:
    """Keep one record of each set with the same base id and figures (colour variants, repeated listings):
    the one with the shortest name, then the lowest uuid. Records in `matched` (listings of curated parts,
    counted as such) are not counted again as skipped."""
    counted = set(matched)
    seen: set[str] = set()
    kept = []
    for cand in sorted(candidates, key=lambda c: (len(c.data["name"]), c.uuid)):
        figures = {k: v for k, v in cand.data.items() if k not in ("name", "source")}
        key = cand.base_id + json.dumps(figures, sort_keys=True)
        if key in seen:
            if cand.uuid not in counted:
                skipped["same id and figures as another record (colour variant or repeat)"] += 1
            continue
        seen.add(key)
        kept.append(cand)
    return kept


def assign_ids(candidates: list[Candidate]) -> dict[str, Candidate]:
    """Base ids, with distinguishing parts appended on collisions (then the record uuid's first 8 digits)."""
    groups: dict[str, list[Candidate]] = defaultdict(list)
    for cand in candidates:
        groups[cand.base_id].append(cand)
    assigned: dict[str, list[Candidate]] = defaultdict(list)
    for base, members in groups.items():
        _resolve(base, sorted(members, key=lambda c: c.uuid), 0, assigned)
    result: dict[str, Candidate] = {}
    for part_id, members in assigned.items():
        if len(members) == 1:
            result[part_id] = members[0]
        else:
            for cand in members:
                result[f"{part_id}-{cand.uuid[:8]}"] = cand
    return result


def _resolve(prefix: str, members: list[Candidate], level: int, out: dict[str, list[Candidate]]) -> None:
    if len(members) == 1:
        out[prefix].append(members[0])
        return
    if level >= max(len(m.discriminators) for m in members):
        for cand in members:
            out[f"{prefix}-{cand.uuid[:8]}"].append(cand)
        return
    values = [m.discriminators[level] if level < len(m.discriminators) else "" for m in members]
    if len(set(values)) == 1:
        _resolve(prefix, members, level + 1, out)
        return
    by_value: dict[str, list[Candidate]] = defaultdict(list)
    for value, cand in zip(values, members, strict=True):
        by_value[value].append(cand)
    for value, sub in by_value.items():
        extra = "-".join(w for w in value.split("-") if w and w not in prefix.split("-"))
        _resolve(f"{prefix}-{extra}" if extra else prefix, sub, level + 1, out)
