"""What cases, motherboards and CPUs share: board form factors and the platforms (sockets) that are kept."""

from __future__ import annotations

import re
from typing import Any, get_args

from planner.models.parts import FormFactor

from .ids import Skip

# -- board form factors -----------------------------------------------------------------------------------

#: source spelling -> the part model's form factor
BOARD_FORMS = {"ATX": "atx", "Micro ATX": "micro-atx", "Mini-ITX": "mini-itx", "EATX": "e-atx",
               "SSI EEB": "ssi-eeb", "SSI CEB": "ssi-ceb", "XL ATX": "xl-atx"}
#: The part model's board form factors, smallest first: the order a case's `form_factors` are written in.
FORM_ORDER: tuple[str, ...] = get_args(FormFactor)
#: Boards with ATX mounting: every form factor of the model but mini-ITX.
ATX_FAMILY = frozenset(FORM_ORDER) - {"mini-itx"}


# -- platforms --------------------------------------------------------------------------------------------

#: Highest PCIe generation of each kept platform; older platforms (before PCIe 3.0/DDR4) are skipped.
PLATFORM_GEN = {"AM4": 4, "AM5": 5, "LGA1151": 3, "LGA1200": 4, "LGA1700": 5, "LGA1851": 5, "LGA1954": 5,
                "LGA2011-3": 3, "LGA2066": 3, "sTR4": 3, "sTRX4": 4, "sWRX8": 4, "sTR5": 5, "SP3": 4, "SP5": 5,
                "SP6": 5, "LGA3647": 3, "LGA4189": 4, "LGA4677": 5, "LGA4710": 5, "LGA7529": 5}
#: Platforms whose CPUs feed every x16 slot with 16 lanes (128-lane parts).
FULL_X16_PLATFORMS = {"sWRX8", "SP3", "SP5"}
DESKTOP_PLATFORMS = {"AM4", "AM5", "LGA1151", "LGA1200", "LGA1700", "LGA1851", "LGA1954"}


def normalise_socket(raw: Any) -> tuple[str, bool]:
    """Socket in catalog spelling (LGA1700, sTR4) and whether the board is dual-socket."""
    if not isinstance(raw, str) or not raw.strip():
        raise Skip("no socket")
    text = raw.strip()
    dual = text.startswith("2 x ")
    text = text.removeprefix("2 x ").removesuffix(" Narrow")
    text = re.sub(r"^LGA\s+", "LGA", text)
    text = {"TR4": "sTR4", "LGA1151v2": "LGA1151"}.get(text, text)
    if text not in PLATFORM_GEN:
        raise Skip("platform older than PCIe 3.0/DDR4 or not a socket")
    return text, dual


def chipset_name(raw: Any) -> str | None:
    if not isinstance(raw, str) or not raw.strip():
        return None
    return re.sub(r"^(Intel|AMD)\s+", "", raw.strip())


def platform_gen(socket: str, chipset: str | None) -> int:
    gen = PLATFORM_GEN[socket]
    chip = (chipset or "").upper()
    if socket == "AM4" and not re.match(r"(X570|B550)", chip):
        return 3
    if socket == "LGA1200" and not re.match(r"(Z590|B560|H570|H510|W580|Q570)", chip):
        return 3
    return gen
