"""Where each GPU sits: motherboard slot or riser mount, the case positions its cooler covers, its lanes.

`Context.placement` (planner/checks/context.py) is what the checks, the report and the thermal model
read: `place(build)` keeps the mounts the build file states (`slot = …`, `riser = …`) and lets the exact
solver of SPEC §4.7 (planner/placement/solver.py) place every other GPU.

Modules: `layout` (the slot/mount model from the catalogs), `solver` (the exact search), `from_build`
(from a build to its Placement), `explain` (why a GPU gets no mount, with the counts), `tree` (the PCIe
tree as a networkx graph, for riser findings and `planner place`), `diagram` (the text slot diagram).
networkx stays off the path of an ordinary `planner check` (its import alone costs ~0.25 s): the solver
and the lane arithmetic are plain Python, and tests hold the tree's links equal to theirs.
"""


from typing import NamedTuple

from planner.resolve import ResolvedBuild


class GpuMount(NamedTuple):
    """One GPU's place in the build."""

    gpu: int  # index into ResolvedBuild.gpus
    mount: str  # motherboard slot name ("PCIEX16_1") or a riser mount ("vertical-1")
    positions: tuple[int, ...]  # case expansion-slot positions the card covers (empty off the slot row)
    lanes: int | None  # electrical lanes after lane-sharing rules; None while not worked out
    riser: str | None  # riser id, when the card is on one
    slot: str | None = None  # the motherboard slot the card, or its riser cable, plugs into
    gen: int | None = None  # PCIe generation of the link (lowest of slot, card and, on CPU lanes, CPU)


class Placement(NamedTuple):
    """Every GPU's mount, in build order, or why no placement exists."""

    mounts: tuple[GpuMount | None, ...]  # None: this GPU is not placed
    feasible: bool
    reason: str | None = None

    def of(self, gpu: int) -> GpuMount | None:
        return self.mounts[gpu] if gpu < len(self.mounts) else None


def place(build: ResolvedBuild) -> Placement:
    """Every GPU's mount: the build's own `slot = …`/`riser = …`, the solver's choice for the rest."""
    from planner.placement.from_build import place_build

    return place_build(build)
