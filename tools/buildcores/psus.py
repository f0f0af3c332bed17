"""PSUs: one source record to one `psus.toml` entry.

PSUs (500 W and up; ATX, SFX or SFX-L; with an 80 PLUS or Cybenetics rating and connector counts):
  atx_version        "ATX 3.0/3.1" in the name; else "PCIe 5.0" → 3.0, "PCIe 5.1" → 3.1, otherwise 2.x
                     (estimated).
  ac_inlet           not in the source: c20 from 1600 W (over 15 A at 115 V), else c14 (estimated).
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
    strip_prefix,
    tokens,
    whole,
)
from .snapshot import source_of

MIN_PSU_WATTAGE = 500  # W
C20_FROM_WATTS = 1600  # PSUs this big draw over 15 A at 115 V: a C20 inlet (C14 below)

PSU_FORMS = {"ATX": "atx", "ATX/EPS": "atx", "SFX": "sfx", "SFX-L": "sfx-l"}
EIGHTY_PLUS = {"80+ Titanium": "80plus-titanium", "80+ Platinum": "80plus-platinum", "80+ Gold": "80plus-gold",
               "80+ Silver": "80plus-silver", "80+ Bronze": "80plus-bronze", "80+ Standard": "80plus-white",
               "80+ White": "80plus-white", "80+": "80plus-white"}
CYBENETICS = {f"Cybenetics {level.title()}": f"cybenetics-{level}"
              for level in ("diamond", "titanium", "platinum", "gold", "silver", "bronze")}
PSU_NOISE = re.compile(
    r"\b80\s*\+?\s*(plus)?\s*(titanium|platinum|gold|silver|bronze|white|standard)?(\s+certified)?\b"
    r"|\b(fully|semi|non)[- ]?modular\b|\bmodular\b|\bcertified\b|\bpower supply\b|\bpsu\b|\bwatts?\b"
    r"|\batx(?!\s?3)\b|\bsfx(-l)?\b", re.I)


def psu_atx_version(name: str) -> tuple[str, bool]:
    """ATX version and whether it is estimated."""
    if re.search(r"\bATX\s?3\.1(?![\d.])", name, re.I):
        return "3.1", False
    if re.search(r"\bATX\s?3(?:\.0)?(?![\d.])", name, re.I):
        return "3.0", False
    if re.search(r"\bPCI-?e\s?5\.1\b", name, re.I):
        return "3.1", True
    if re.search(r"\bPCI-?e\s?5(?:\.0)?(?![\d.])", name, re.I):
        return "3.0", True
    return "2.x", True


def psu_efficiency(record: dict[str, Any]) -> str:
    rating = EIGHTY_PLUS.get(record.get("efficiency_rating") or "")
    rating = rating or CYBENETICS.get(record.get("cybernetics_efficiency_rating") or "")
    if not rating:
        raise Skip("no 80 PLUS or Cybenetics rating")
    return rating


def map_psu(record: dict[str, Any], ctx: Context) -> Candidate:
    name, maker = record_name(record), ctx.makers["psu"](record)
    wattage = number(record.get("wattage"))
    if not wattage or wattage < MIN_PSU_WATTAGE:
        raise Skip("under 500 W")
    form = PSU_FORMS.get(record.get("form_factor") or "")
    if not form:
        raise Skip("form factor not in the part model (TFX, Flex ATX, Mini-ITX)")
    efficiency = psu_efficiency(record)
    plugs = record.get("connectors") or {}
    pcie, hpwr, eps = (int(number(plugs.get(k)) or 0) for k in ("pcie_6_plus_2_pin", "pcie_12vhpwr", "eps_8_pin"))
    if not (pcie or hpwr or eps):
        raise Skip("connector counts missing")
    atx, atx_estimated = psu_atx_version(name)
    data: dict[str, Any] = {"name": name, "maker": maker, "wattage": whole(wattage), "efficiency": efficiency,
                            "atx_version": atx}
    data["connectors"] = {k: v for k, v in (("pcie-8pin", pcie), ("12vhpwr", hpwr), ("eps-8pin", eps)) if v}
    if form != "atx":  # the model's default
        data["form_factor"] = form
    length = number(record.get("length"))
    if length and 50 < length <= 400:
        data["length"] = whole(length)
    data["ac_inlet"] = "c20" if wattage >= C20_FROM_WATTS else "c14"
    data["estimated"] = [*(["atx_version"] if atx_estimated else []), "ac_inlet"]
    data["source"] = source_of(record["opendb_id"])
    words = psu_words(name, maker, wattage)
    return Candidate(make_id(maker, [], words), data, record["opendb_id"],
                     (colour_slug(record), f"{whole(wattage)}w", efficiency.split("-")[-1], first_part_number(record)),
                     maker, tuple(words), part_numbers(record))


def psu_words(name: str, maker: str, wattage: float) -> list[str]:
    """A PSU's model words: the name without the maker, certification and marketing words, its wattage once."""
    words = strip_prefix(tokens(PSU_NOISE.sub(" ", re.sub(r"(\d)\s+W\b", r"\1W", name))), tokens(maker))
    watt_token = f"{whole(wattage)}w"
    if any(str(whole(wattage)) in w for w in words if w != watt_token):
        words = [w for w in words if w != watt_token]
    return [w for w in words if w not in COLOURS]
