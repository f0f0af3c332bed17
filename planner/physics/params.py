"""Every model parameter in one place, each with its source and why it has this value.

A user who doubts a number should find it here in a minute. Values are canonical units (W, V, °C).
"""

from __future__ import annotations

from typing import NamedTuple


class Param(NamedTuple):
    value: float
    unit: str
    source: str
    why: str


# -- DC power budget (SPEC §4.1) ---------------------------------------------------------------------
BOARD_POWER = Param(
    50, "W", "SPEC §4.1 default; workstation boards (VRMs, chipset, BMC, 10 GbE) measure ~30–60 W",
    "the motherboard's own draw when its real figure is not in the catalog")
RAM_MODULE_POWER = Param(
    3, "W", "SPEC §4.1; JEDEC DDR4/DDR5 RDIMMs draw ~2–5 W each under load",
    "per installed DIMM")
DRIVE_POWER = Param(
    7, "W", "SPEC §4.1; NVMe SSDs peak at 5–9 W, 3.5\" HDDs ~6–9 W active",
    "per SSD or HDD")
FAN_POWER = Param(
    3, "W", "SPEC §4.1; 120/140 mm case fans draw 1–3 W at full speed",
    "per case fan")
DEFAULT_RAM_MODULES = Param(
    4, "modules", "planner assumption: a typical multi-GPU desktop has 4 DIMMs", "when [extras] does not say")
DEFAULT_DRIVES = Param(
    2, "drives", "planner assumption: one system SSD and one data drive", "when [extras] does not say")
DEFAULT_FANS = Param(
    4, "fans", "planner assumption: 3 intake + 1 exhaust", "when [extras] does not say")

# -- PSU headroom (SPEC §3 psu.headroom) -------------------------------------------------------------
PSU_TARGET_LOAD = Param(
    0.80, "fraction", "common PSU sizing practice; 80 PLUS efficiency peaks near 50 %, and Dettmers' 4×3090"
    " example calls 1400 W of GPUs on a 1600 W unit too tight", "warn above this sustained load fraction")

# -- Case fit ---------------------------------------------------------------------------------------
GPU_LENGTH_SPARE = Param(
    10, "mm", "planner assumption: power cables and front fans/radiators eat a few mm",
    "warn when a card leaves less spare length than this")
