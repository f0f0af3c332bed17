"""From a build to its Placement: the layout, the solver's answer, the mounts the report shows."""

from __future__ import annotations

from planner.build.resolve import ResolvedBuild
from planner.placement.explain import why_unplaced
from planner.placement.layout import covered, layout_of, link_gen, needs_of, slot_lanes
from planner.placement.mounts import GpuMount, Placement
from planner.placement.solver import PlacementTooLarge, Problem, Solution, solve

MOUNT_PREFIX = "vertical-"


def problem_of(build: ResolvedBuild) -> Problem:
    """The build's placement problem: its layout and what each GPU needs."""
    return Problem(layout_of(build), needs_of(build))


def place_build(build: ResolvedBuild) -> Placement:
    """Solve the build's placement and describe each GPU's mount."""
    problem = problem_of(build)
    try:
        solution = solve(problem)
    except PlacementTooLarge as error:
        raise PlacementTooLarge(error.message, file=build.file) from None
    return placement_of(problem, solution)


def placement_of(problem: Problem, solution: Solution) -> Placement:
    """Each GPU's mount (slot or `vertical-N`), covered positions, link lanes and generation."""
    layout, needs = problem
    used = {s for s in solution.slots if s is not None}
    mounts: list[GpuMount | None] = []
    for need, name, mount in zip(needs, solution.slots, solution.mounts, strict=True):
        if name is None:
            mounts.append(None)
            continue
        site = layout.slot(name)
        lanes = min(slot_lanes(site, used), need.link_cap)
        mounts.append(GpuMount(
            gpu=need.gpu, mount=f"{MOUNT_PREFIX}{mount}" if need.on_mount else name,
            positions=() if need.on_mount else tuple(covered(site.position, need.width)),
            lanes=lanes, riser=need.riser, slot=name, gen=link_gen(site, need, layout.cpu_gen)))
    feasible = all(m is not None for m in mounts)
    return Placement(tuple(mounts), feasible, None if feasible else why_unplaced(problem, solution.slots))
