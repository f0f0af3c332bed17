"""The parts list of a build: one row per distinct part, with quantity, unit price and line total."""


from typing import NamedTuple

from planner.models.parts import Part
from planner.resolve import ResolvedBuild


class Row(NamedTuple):
    kind: str
    part_id: str
    name: str
    quantity: int
    unit_price: float | None

    @property
    def line_total(self) -> float | None:
        return None if self.unit_price is None else self.unit_price * self.quantity


def parts_list(build: ResolvedBuild) -> list[Row]:
    """Rows in build order: case, motherboard, CPU, GPUs, risers, PSUs."""
    counted: dict[tuple[str, str], tuple[Part, int]] = {}

    def add(kind: str, part: Part, quantity: int = 1) -> None:
        key = (kind, part.id)
        _, before = counted.get(key, (part, 0))
        counted[key] = (part, before + quantity)

    add("case", build.case)
    add("motherboard", build.motherboard)
    add("cpu", build.cpu)
    for gpu in build.gpus:
        add("gpu", gpu.board)
    for gpu in build.gpus:
        if gpu.riser is not None:
            add("riser", gpu.riser)
    for psu in build.psus:
        add("psu", psu.part)
    return [Row(kind, part.id, part.name, quantity, part.price) for (kind, _), (part, quantity) in counted.items()]
