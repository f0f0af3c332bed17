"""Did you mean: close spellings of a name, and the parts a mistyped or shortened id may mean.

Plain Python over strings (no part models), so a reader of any input file can suggest names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

#: The most parts difflib compares a mistyped id with (each comparison costs ~10 µs).
SUGGEST_POOL = 400


def suggest(word: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """Close spellings (difflib), then names that contain the word (`ram` → `ram_modules`)."""
    import difflib  # only on the error path

    pool = list(candidates)
    close = difflib.get_close_matches(word, pool, n=n, cutoff=0.6)
    if len(word) >= 3:
        close += [c for c in pool if word.lower() in c.lower() and c not in close]
    return close[:n]


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    close = suggest(word, candidates)
    return f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""


class PartWords(NamedTuple):
    """What a part answers to in "did you mean": its id and, lowercase, the words of its id, name, maker and
    aliases."""

    id: str
    spaced: str  # " nvidia rtx 4090 fe nvidia geforce rtx 4090 founders edition nvidia ": a word is " w "
    joined: str  # the same run together ("…rtx4090fe…"), for "RTX4090"
    imported: bool


#: Punctuation (ASCII and what product names use) read as a space between words.
_SPACES = str.maketrans({c: " " for c in "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~™®©–—‘’“”…·×"})
_WORD = re.compile(r"[a-z0-9]+")
_WITH_UNIT = re.compile(r"(\d+)(w|kw|gb|g|mm|a|v)")  # "1600w" also means the word "1600"


def part_words(part_id: str, fields: Mapping[str, Any], aliases: Iterable[str], imported: bool) -> PartWords:
    """The words of a catalog entry: its id, the `name` and `maker` of its fields, and its aliases."""
    text = f"{part_id} {fields.get('name', '')} {fields.get('maker', '')} {' '.join(aliases)}"
    text = text.lower().translate(_SPACES)
    return PartWords(part_id, f" {' '.join(text.split())} ", text.replace(" ", ""), imported)


def suggest_parts(word: str, pool: Iterable[PartWords], n: int = 3) -> list[str]:
    """Ids a mistyped or shortened id may mean. First the parts whose id, name, maker or aliases hold every word
    of it — as a word, or run together with others when it has 4 characters or more ("asus-wrx80e" → the
    WRX80E boards, "RTX 4090" and "rtx4090" → RTX 4090 boards) — curated first, then those with the fewest
    other words in their id; else close spellings of the id (difflib) among the parts holding the most of its
    words. Only substring tests run over the catalog's thousands of parts, so a suggestion takes milliseconds."""
    wanted = _WORD.findall(word.lower())
    if not wanted:
        return []
    padded = [f" {w} " for w in wanted]
    long = [len(w) >= 4 for w in wanted]
    bare = [f" {m.group(1)} " if (m := _WITH_UNIT.fullmatch(w)) else p for w, p in zip(wanted, padded, strict=True)]

    def held(part: PartWords) -> int:
        return sum(1 for w, p, b, ok in zip(wanted, padded, bare, long, strict=True)
                   if p in part.spaced or b in part.spaced or (ok and w in part.joined))

    scored = [(held(part), part) for part in pool if any(w in part.joined for w in wanted)]
    hits = sorted((part.imported, -sum(p in part.spaced for p in padded), part.id.count("-"), part.id)
                  for score, part in scored if score == len(wanted))
    if hits:
        return [part_id for *_, part_id in hits[:n]]
    best = max((score for score, _ in scored), default=0)
    closest = sorted((part.imported, part.id) for score, part in scored if score == best and best > 0)
    return suggest(word, [part_id for _, part_id in closest[:SUGGEST_POOL]], n)
