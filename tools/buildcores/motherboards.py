"""Motherboards: one source record to one `motherboards.toml` entry.

Motherboards (ATX family; PCIe 3.0/DDR4-era platforms or newer; two or more physical x16 slots):
  slots              the source gives slot counts per generation and width only. Only x16 slots are written:
                     at positions 1, 3, 5… (1, 2, 3… when that does not fit the 4 positions of micro-ATX,
                     8 of XL-ATX, 7 of the others), highest generation first, generation capped at the
                     platform's; the first 16 lanes from the CPU; the others 4 lanes from the chipset on
                     desktop platforms, 16 from the CPU on 128-lane platforms, alternately 8 and 16 from the
                     CPU on other HEDT ones. Names PCIE1… top to bottom.
"""

from __future__ import annotations

import re
from typing import Any

from .context import Context
from .ids import (
    COLOURS,
    Candidate,
    Skip,
    colour_slug,
    first_part_number,
    make_id,
    number,
    part_numbers,
    record_name,
    slug,
    strip_prefix,
    tokens,
)
from .platforms import (
    ATX_FAMILY,
    BOARD_FORMS,
    DESKTOP_PLATFORMS,
    FULL_X16_PLATFORMS,
    chipset_name,
    normalise_socket,
    platform_gen,
)
from .snapshot import source_of

MIN_X16_SLOTS = 2  # motherboards: physical x16 slots
BOARD_POSITIONS = {"micro-atx": 4, "xl-atx": 8}
DEFAULT_BOARD_POSITIONS = 7
BOARD_NOISE = re.compile(
    r"\b(ddr\d|micro[- ]?atx|m-?atx|mini[- ]?itx|e-?atx|xl[- ]?atx|ssi[- ]?(eeb|ceb)|atx|motherboard|"
    r"lga\s?\d{3,4}(-3)?|am\d\+?|s?trx?\d|swrx\d|str\d|sp\d)\b", re.I)
BOARD_NOTE = "x16 slots only; positions, names and lanes derived by rule (check the manual)."


def board_x16_gens(record: dict[str, Any], cap: int) -> list[int]:
    """PCIe generation of each physical x16 slot, highest first, capped at the platform's."""
    gens: list[int] = []
    for group in record.get("pcie_slots") or []:
        count, width, gen = number(group.get("quantity")), number(group.get("lanes")), group.get("gen")
        if count and width == 16 and isinstance(gen, str) and re.fullmatch(r"\d(\.\d)?", gen):
            gens += [min(int(float(gen)), cap)] * int(count)
    if len(gens) < MIN_X16_SLOTS:
        raise Skip("fewer than two x16 slots (no room for a second GPU)")
    return sorted(gens, reverse=True)


def x16_positions(count: int, positions: int) -> list[int]:
    """Every other position from the top (1, 3, 5…), or every position when that does not fit."""
    if count > positions:
        raise Skip("more x16 slots than the form factor has positions")
    step = 2 if 2 * count - 1 <= positions else 1
    return [1 + step * i for i in range(count)]


def x16_lanes(index: int, socket: str, chipset: str | None) -> tuple[int, str]:
    """Electrical lanes and lane source of the index-th x16 slot from the top, by the documented rule."""
    if index == 0:
        return 16, "cpu"
    if socket in DESKTOP_PLATFORMS:
        return 4, "chipset"
    if socket in FULL_X16_PLATFORMS or (chipset or "").upper().startswith("WRX90"):
        return 16, "cpu"
    return (8 if index % 2 else 16), "cpu"


def board_slots(record: dict[str, Any], form: str, socket: str, chipset: str | None) -> list[dict[str, Any]]:
    gens = board_x16_gens(record, platform_gen(socket, chipset))
    positions = x16_positions(len(gens), BOARD_POSITIONS.get(form, DEFAULT_BOARD_POSITIONS))
    slots = []
    for index, (position, gen) in enumerate(zip(positions, gens, strict=True)):
        lanes, source = x16_lanes(index, socket, chipset)
        slots.append({"name": f"PCIE{index + 1}", "position": position, "size": 16, "lanes": lanes, "gen": gen,
                      "source": source})
    return slots


def map_motherboard(record: dict[str, Any], ctx: Context) -> Candidate:
    name, maker = record_name(record), ctx.makers["motherboard"](record)
    form = BOARD_FORMS.get(record.get("form_factor") or "")
    if form not in ATX_FAMILY:
        raise Skip("not an ATX-family board (mini-ITX, DTX, Flex ATX)")
    socket, dual = normalise_socket(record.get("socket"))
    chipset = chipset_name(record.get("chipset"))
    slots = board_slots(record, form, socket, chipset)
    data: dict[str, Any] = {"name": name, "maker": maker, "form_factor": form, "socket": socket}
    if chipset:
        data["chipset"] = chipset
    memory_slots = number((record.get("memory") or {}).get("slots"))
    if memory_slots and memory_slots <= 32:
        data["memory_slots"] = int(memory_slots)
    data["slots"] = slots
    data["estimated"] = ["slots"]
    notes = [BOARD_NOTE]
    if dual:
        notes.append("Dual-socket board: one CPU's lanes counted.")
    data["notes"] = " ".join(notes)
    data["source"] = source_of(record["opendb_id"])
    words = board_words(name, maker, chipset)
    ram = slug((record.get("memory") or {}).get("ram_type") or "")
    return Candidate(make_id(maker, [], words, max_rest=7), data, record["opendb_id"],
                     (ram, colour_slug(record), first_part_number(record)), maker, tuple(words), part_numbers(record))


def board_words(name: str, maker: str, chipset: str | None) -> list[str]:
    """A board's model words: the name without maker, form factor, socket, memory type and a leading chipset
    that the model name repeats ("TRX40 … TRX40 AORUS MASTER")."""
    words = strip_prefix(tokens(BOARD_NOISE.sub(" ", name)), tokens(maker))
    chip_tokens = tokens(chipset or "")
    if words and chip_tokens and words[0] == chip_tokens[-1] and any(chip_tokens[-1] in w for w in words[1:]):
        words = words[1:]
    return [w for w in words if w not in COLOURS and w not in ("amd", "intel")]
