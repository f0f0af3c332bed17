"""What every kind's mapper is given: the chips, the makers' spellings, the GPU links, the curated parts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .chips import ChipIndex
    from .curated import CuratedIndex
    from .ids import Makers


@dataclass
class Context:
    chips: ChipIndex
    makers: dict[str, Makers]
    gpu_links: dict[str, tuple[int, int]]
    curated: CuratedIndex | None = None  # listings of these parts are left out
