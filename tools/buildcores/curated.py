"""One entry per real part: the bulk-imported listings of curated parts are left out."""

from __future__ import annotations

import re
import tomllib
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic_core import ValidationError

from planner.models.parts import KIND_FILES, KIND_MODELS

from .cases import case_words
from .chips import ChipIndex
from .cpus import cpu_words
from .gpus import gpu_id_rest
from .ids import Candidate, compact, is_part_number, tokens
from .motherboards import board_words
from .psus import psu_words

BRACKETS = re.compile(r"\(([^)]*)\)")
#: The kinds whose curated parts a listing may repeat.
CURATED_KINDS = ("gpu", "psu", "case", "motherboard", "cpu")


#: Spellings of one thing, per kind, made equal before model words are compared (not in ids).
KEY_SPELLINGS: dict[str, list[tuple[re.Pattern[str], str]]] = {
    "psu": [(re.compile(r"\batx 3 0\b"), "atx 3")],  # "ATX 3.0" = "ATX3"
    "cpu": [(re.compile(r"\b(extreme|edition)\b"), " ")],  # "Core i7 Extreme 6950X" = "Core i7-6950X"
}
#: Words in maker names that do not tell makers apart ("SilverStone Technology" = "SilverStone").
MAKER_SUFFIXES = {"technology", "technologies", "inc", "co", "ltd", "corp", "corporation", "gmbh", "international"}


def maker_key(maker: str) -> str:
    return "-".join(w for w in tokens(maker) if w not in MAKER_SUFFIXES)


def word_key(kind: str, words: Iterable[str]) -> frozenset[str]:
    """The model's words as a set of letter and digit runs, so "TX-1600", "TX 1600W" and "tx1600" agree and
    word order does not matter ("TURBO GeForce RTX 3090" = "GeForce RTX 3090 TURBO")."""
    text = " ".join(words)
    for pattern, replacement in KEY_SPELLINGS.get(kind, []):
        text = pattern.sub(replacement, text)
    return frozenset(set(re.findall(r"[a-z]+|\d+", text)) - {"w"})  # "1600w" is the wattage "1600"


def number_scheme(number: str) -> str:
    """The maker's numbering scheme of a compacted part number: its leading letters (cp… for Corsair's
    CP-9020201), else its first three characters."""
    return re.match(r"[a-z]*", number).group(0) or number[:3]  # type: ignore[union-attr]


#: Figures a listing must share with a curated part to be that part.
SAME_FIGURES: dict[str, tuple[str, ...]] = {"psu": ("wattage", "efficiency"), "motherboard": ("socket",),
                                             "cpu": ("socket", "cores")}


def name_variants(name: str) -> tuple[list[str], set[str]]:
    """A curated name as written, without its bracketed notes, and with only the part numbers taken out of
    them ("Corsair RM1000x (2021, CP-9020201)" → "… RM1000x 2021"); and those part numbers, compacted."""
    numbers: set[str] = set()

    def words_only(match: re.Match[str]) -> str:
        kept = []
        for word in re.split(r"[\s,/;]+", match.group(1)):
            if is_part_number(compact(word)):
                numbers.add(compact(word))
            elif word:
                kept.append(word)
        return " " + " ".join(kept) + " "

    return [name, BRACKETS.sub(" ", name), BRACKETS.sub(words_only, name)], numbers


class CuratedIndex:
    """The curated parts (`catalogs/*.toml`) a bulk-imported listing may repeat: the same maker and model
    words, or a part number the curated name gives in brackets. A listing that matches is left out, so each
    real part has one entry: the curated one, with its sources. A name match is refused when both sides give
    part numbers and none agree (the 2021 and the 2024 RM1000x share a name)."""

    def __init__(self, folder: Path | None, chips: ChipIndex) -> None:
        self.words: dict[str, dict[tuple[str, frozenset[str]], list[str]]] = defaultdict(dict)
        self.numbers: dict[str, dict[str, dict[str, set[str]]]] = defaultdict(lambda: defaultdict(dict))
        self.figures: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
        self.read = 0
        for kind in CURATED_KINDS if folder is not None else ():
            path = folder / KIND_FILES[kind]  # type: ignore[operator]
            try:
                with path.open("rb") as handle:
                    entries = tomllib.load(handle)
            except (OSError, tomllib.TOMLDecodeError):
                continue
            for part_id, data in sorted(entries.items()):
                try:
                    part = KIND_MODELS[kind].model_validate({**data, "id": part_id})
                except (ValidationError, TypeError):
                    continue
                self.read += 1
                self._add(kind, part_id, part, chips)

    def _add(self, kind: str, part_id: str, part: Any, chips: ChipIndex) -> None:
        maker = maker_key(part.maker)
        self.figures[kind][part_id] = {name: getattr(part, name) for name in SAME_FIGURES.get(kind, ())}
        names, numbers = name_variants(part.name)
        if numbers:
            self.numbers[kind][maker][part_id] = numbers
        for name in names:
            words = curated_words(kind, name, part, chips)
            if words is not None:
                ids = self.words[kind].setdefault((maker, word_key(kind, words)), [])
                if part_id not in ids:
                    ids.append(part_id)

    def match(self, kind: str, cand: Candidate) -> str | None:
        """The curated part a listing repeats, if any: by part number (the longest that agrees), else by
        model words, else by the same id; never when a figure both publish differs."""
        maker, listed = maker_key(cand.maker), set(cand.part_numbers)
        known = self.numbers[kind].get(maker, {})
        by_number = sorted((-len(number), part_id) for part_id, numbers in known.items() for number in numbers
                           if any(same_number(n, number) for n in listed) and self._same_figures(kind, part_id, cand))
        if by_number:
            return by_number[0][1]
        named = self.words[kind].get((maker, word_key(kind, cand.words)), [])
        for part_id in [*named, *([cand.base_id] if cand.base_id in self.figures[kind] else [])]:
            numbers = known.get(part_id, set())
            # the same name with another number of the maker's scheme is another part (RM1000x 2021 / 2024)
            if any(number_scheme(n) == number_scheme(c) for n in listed for c in numbers):
                continue
            if self._same_figures(kind, part_id, cand):
                return part_id
        return None

    def _same_figures(self, kind: str, part_id: str, cand: Candidate) -> bool:
        curated = self.figures[kind][part_id]
        return all(cand.data.get(name) is None or same_figure(name, cand.data[name], value)
                   for name, value in curated.items())


def same_figure(name: str, listed: Any, curated: Any) -> bool:
    if name == "efficiency":  # the level: a unit rated 80 PLUS Titanium may be listed as Cybenetics Titanium
        return str(listed).split("-")[-1] == str(curated).split("-")[-1]
    return bool(listed == curated)


def same_number(listed: str, curated: str) -> bool:
    """A listed part number is the curated one, or it with a region or colour suffix (CP-9020201-NA,
    SSR-850FX WHITE); a digit after it makes another number (MPE-C501-AFCAG-3 is not MPE-C501-AFCAG)."""
    return listed == curated or (listed.startswith(curated) and not listed[len(curated)].isdigit())


def curated_words(kind: str, name: str, part: Any, chips: ChipIndex) -> list[str] | None:
    """A curated part's model words, by the rules that make an imported listing's id."""
    if kind == "gpu":
        chip = chips.chips.get(part.chip)
        if chip is None:
            return None
        return [*chip.id.split("-"), *gpu_id_rest(name, part.maker, chip.name, chip.memory)]
    if kind == "psu":
        return psu_words(name, part.maker, part.wattage)
    if kind == "case":
        return case_words(name, part.maker)
    if kind == "motherboard":
        return board_words(name, part.maker, part.chipset)
    return cpu_words(name, part.maker)
