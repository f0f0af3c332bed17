"""A model parameter with its source and why it has its value: every figure the physics, placement and
recommendation models use is one of these, kept in their `params.py` modules."""

from typing import NamedTuple


class Param(NamedTuple):
    value: float
    unit: str
    source: str
    why: str


class Table(NamedTuple):
    """A parameter that is a small table (a curve per grade, a figure per architecture…)."""

    values: dict[str, tuple[float | None, ...]]
    unit: str
    source: str
    why: str
