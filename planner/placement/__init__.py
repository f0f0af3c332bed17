"""Where each GPU sits: motherboard slot or riser mount, the case positions its cooler covers, its lanes.

`Context.placement` (planner/checks/engine/context.py) is what the checks, the report and the thermal model
read: `place(build)` keeps the mounts the build file states (`slot = …`, `riser = …`) and lets the exact
solver of README: Placement (planner/placement/solver.py) place every other GPU.

Modules: `layout` (the slot/mount model from the catalogs), `solver` (the exact search), `mounts`
(the records), `from_build` (from a build to its Placement), `explain` (why a GPU gets no mount, with
the counts), `tree` (the PCIe tree as a networkx graph, for riser findings and `planner place`),
`diagram` (the text slot diagram).
networkx stays off the path of an ordinary `planner check` (docs/architecture.md, "Start-up"): the
solver and the lane arithmetic are plain Python, and tests hold the tree's links equal to theirs.
"""


from planner.placement.from_build import place_build as place
from planner.placement.mounts import GpuMount, Placement

__all__ = ["GpuMount", "Placement", "place"]
