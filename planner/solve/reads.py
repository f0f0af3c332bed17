"""What each check reads besides the GPUs, so a partial choice can be judged as soon as a check can see it.

The search decides the build in stages (STAGES). A check runs at the first stage by which every part it reads
is chosen; its errors there prune the branch, and the complete build is checked in full at the end, so a
check judged too early could only lose optimality (the brute-force tests would catch it), never let a
failing build through. What a check reads comes from its own declaration (`@check(code, reads=…)`,
planner/checks/engine/registry.py), mapped to the stages that choose it (STAGE_OF).

Two fields the search fixes optimistically before they are known: how many PSUs share the heat of conversion
(`psus.count`, read by the thermal checks: more PSUs, less heat each; judged with as many PSUs as the case
mounts) and, with `--allow-power-limits`, the power limits (every check that reads them is judged at the cards'
lowest limits: lower limits never add an error of theirs, planner/checks/optimize.py).
"""

from __future__ import annotations

import functools

from planner.checks.engine.registry import registered, version

#: The search's stages, in order: the board, the case, the riser cables, the CPU, then PSUs and circuits.
STAGES = ("motherboard", "case", "risers", "cpu", "psu")

#: The stage that chooses each field a check may read (registry.FIELDS); None: known before the search starts
#: (given with the GPUs, or fixed optimistically: see above).
STAGE_OF: dict[str, str | None] = {
    "gpus": None,
    "gpus.power_limit": None,  # given, or at the lowest limits (optimistic)
    "gpus.mount": None,  # slots the file names: it names a board then, so the board is given
    "risers": "risers",
    "motherboard": "motherboard",
    "case": "case",
    "cpu": "cpu",
    "ram": None,
    "psus": "psu",
    "psus.count": None,  # as many PSUs as the case mounts (optimistic)
    "circuits": "psu",
    "extras": None,
    "ambient": None,
    "workload": None,
}


def reads(code: str) -> frozenset[str]:
    """The stages whose choices the check `code` reads."""
    return frozenset(stage for field in registered()[code].reads if (stage := STAGE_OF[field]) is not None)


def checks_at(stage: str) -> tuple[str, ...]:
    """The codes first judged at `stage` ("" for the GPUs alone): those whose reads are all chosen by then
    and were not all chosen a stage earlier. Every registered code is judged at the last stage at the latest."""
    return _checks_at(stage, version())


@functools.lru_cache(maxsize=16)
def _checks_at(stage: str, _version: int) -> tuple[str, ...]:
    known = set(STAGES[:STAGES.index(stage) + 1]) if stage else set()
    before = set(STAGES[:STAGES.index(stage)]) if stage else None
    codes = []
    for code, check in registered().items():
        if check.informs:
            continue
        stages = reads(code)
        if stages <= known and (before is None or not stages <= before):
            codes.append(code)
    return tuple(codes)
