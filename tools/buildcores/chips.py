"""GPU chips: the chips of gpu-chips.toml a board's chipset name, memory and memory type are matched to."""

from __future__ import annotations

import re
import sys
import tomllib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planner.models.parts import GpuChip

from .ids import Skip, tokens

CHIP_VENDOR_WORDS = {"nvidia", "amd", "intel", "geforce", "radeon", "quadro", "arc", "lhr", "generation",
                     "workstation", "edition", "graphics", "card", "gb"}
MEMORY_TYPE_RE = re.compile(r"^(gddr\d+x?|hbm\d*e?|ddr\d)$")
ARCH_WORDS = {"ada", "ampere", "blackwell", "turing", "hopper", "lovelace"}


@dataclass(frozen=True)
class ChipInfo:
    id: str
    memory: float
    memory_type: str | None
    tdp: float
    architecture: str
    name: str = ""


def chip_key(text: str, drop_arch: bool = False) -> str:
    """Normalised chip name: vendor words, memory sizes and memory types dropped."""
    out = []
    for word in tokens(re.sub(r"\b\d+\s*GB\b", " ", text, flags=re.I)):
        if word in CHIP_VENDOR_WORDS or MEMORY_TYPE_RE.match(word) or re.fullmatch(r"\d+gb?", word):
            continue
        if drop_arch and word in ARCH_WORDS:
            continue
        out.append(word)
    return " ".join(out)


class ChipIndex:
    """The chips of gpu-chips.toml, looked up by a board's chipset name, memory and memory type."""

    def __init__(self, chips: dict[str, Any]) -> None:
        self.chips: dict[str, ChipInfo] = {}
        self.invalid: set[str] = set()
        self.by_key: dict[str, set[str]] = defaultdict(set)
        self.by_loose_key: dict[str, set[str]] = defaultdict(set)
        self.read = len(chips)
        for chip_id, data in chips.items():
            if not isinstance(data, dict):
                continue
            try:
                chip = GpuChip.model_validate({**data, "id": chip_id})
            except ValueError:
                self.invalid.add(chip_id)
                continue
            if chip.form != "pcie" or not chip.workstation_installable:
                continue
            self.chips[chip_id] = ChipInfo(chip_id, chip.memory, chip.memory_type, chip.tdp, chip.architecture,
                                           chip.name)
            for text in (chip_id.replace("-", " "), chip.name):
                self.by_key[chip_key(text)].add(chip_id)
                self.by_loose_key[chip_key(text, drop_arch=True)].add(chip_id)

    def match(self, chipset: str, memory: float, memory_type: str | None) -> ChipInfo:
        found = self.by_key.get(chip_key(chipset)) or self.by_loose_key.get(chip_key(chipset, drop_arch=True))
        if not found:
            raise Skip("chip not in gpu-chips.toml")
        same_memory = [self.chips[c] for c in sorted(found) if self.chips[c].memory == memory]
        if not same_memory:
            raise Skip("memory size differs from every matching chip")
        if len(same_memory) > 1:
            same_memory = [c for c in same_memory if same_type(c.memory_type, memory_type)]
        if len(same_memory) != 1:
            raise Skip("ambiguous chip")
        chip = same_memory[0]
        if chip.memory_type and memory_type and not same_type(chip.memory_type, memory_type):
            raise Skip("memory type differs from the chip's")
        return chip


def same_type(a: str | None, b: str | None) -> bool:
    return bool(a and b and a.lower() == b.lower())


def load_chips(path: Path) -> ChipIndex:
    try:
        with path.open("rb") as handle:
            return ChipIndex(tomllib.load(handle))
    except (OSError, tomllib.TOMLDecodeError) as error:
        sys.exit(f"error: cannot read the GPU chips from {path}: {error}")
