"""Cases: one source record to one `cases.toml` entry.

Cases (taking an ATX-family board, with a slot count and a maximum GPU length):
  intake_airflow     not in the source: left out (unknown; the thermal checks assume fans and say so).
  psu_bays           not in the source: the model default 1 (estimated).
  vertical_gpu_mounts  1 when the source lists riser slots, else 0 (estimated).
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
    whole,
)
from .platforms import ATX_FAMILY, BOARD_FORMS, FORM_ORDER
from .snapshot import source_of

CASE_CUT = re.compile(
    r"\b(e-?atx|micro[- ]?atx|m-?atx|mini[- ]?itx|atx|(mid|full|mini|super|dual)[- ]?tower|desktop|test bench|"
    r"htpc|computer case|pc case|case|chassis|with|tempered glass)\b|\bw/|[,–|(]", re.I)
CASE_NOTE = "Stock intake fans are not in the source: intake airflow unknown."


def map_case(record: dict[str, Any], ctx: Context) -> Candidate:
    name, maker = record_name(record), ctx.makers["case"](record)
    forms = {BOARD_FORMS[f] for f in record.get("supported_motherboard_form_factors") or [] if f in BOARD_FORMS}
    if not forms & ATX_FAMILY:
        raise Skip("takes no ATX-family board")
    slots = number(record.get("expansion_slots"))
    if not slots:
        raise Skip("no expansion-slot count")
    gpu_length = number(record.get("max_video_card_length"))
    if not gpu_length or not 100 < gpu_length <= 600:
        raise Skip("no maximum GPU length")
    mounts = 1 if number(record.get("riser_expansion_slots")) else 0
    data: dict[str, Any] = {"name": name, "maker": maker,
                            "form_factors": [f for f in FORM_ORDER if f in forms],
                            "expansion_slots": int(slots), "max_gpu_length": whole(gpu_length)}
    psu_length = number(record.get("max_psu_length"))
    if psu_length and 80 < psu_length <= 400:
        data["max_psu_length"] = whole(psu_length)
    if mounts:
        data["vertical_gpu_mounts"] = mounts
    if re.search(r"test bench|open frame", record.get("form_factor") or "", re.I):
        data["open_frame"] = True
    data["estimated"] = ["psu_bays", "vertical_gpu_mounts"]
    data["notes"] = CASE_NOTE
    data["source"] = source_of(record["opendb_id"])
    words = case_words(name, maker)
    meta = record.get("metadata") or {}
    return Candidate(make_id(maker, [], words), data, record["opendb_id"],
                     (colour_slug(record), slug(meta.get("variant") or ""), first_part_number(record)),
                     maker, tuple(words), part_numbers(record))


def case_words(name: str, maker: str) -> list[str]:
    """A case's model words: its name up to the form factor or the first comma, without maker and colours."""
    return [w for w in strip_prefix(tokens(CASE_CUT.split(name)[0]), tokens(maker)) if w not in COLOURS]
