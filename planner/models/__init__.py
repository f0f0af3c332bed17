"""The models of parts (catalog entries) and build files: records (planner/util/record/) validated by pydantic-core;
quantities are canonical floats."""

from planner.models.build import BuildFile, CircuitSpec, Extras, GpuSpec, PsuSpec
from planner.models.parts import (
    KIND_MODELS,
    Case,
    Cpu,
    GpuBoard,
    GpuChip,
    Motherboard,
    Outlet,
    Part,
    PcieSlot,
    Psu,
    PsuConnectors,
    Riser,
)

__all__ = [
    "KIND_MODELS",
    "BuildFile",
    "Case",
    "CircuitSpec",
    "Cpu",
    "Extras",
    "GpuBoard",
    "GpuChip",
    "GpuSpec",
    "Motherboard",
    "Outlet",
    "Part",
    "PcieSlot",
    "Psu",
    "PsuConnectors",
    "PsuSpec",
    "Riser",
]
