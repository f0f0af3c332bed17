"""What each check reads besides the GPUs, so a partial choice can be judged as soon as a check can see it.

The search decides the build in stages (STAGES). A check runs at the first stage by which every part it reads
is chosen; its errors there prune the branch, and the complete build is checked in full at the end, so a
check listed too early here could only lose optimality (the brute-force tests would catch it), never let a
failing build through. A check not listed runs only on complete builds (a test lists every registered code).

Two checks read something the search fixes optimistically before it is known: the thermal checks read how
many PSUs share the heat of conversion (more PSUs, less heat each: judged with as many PSUs as the case
mounts) and, with `--allow-power-limits`, every power-dependent check is judged at the cards' lowest limits
(lower limits never add a power, outlet or thermal error: planner/optimize.py).
"""

from __future__ import annotations

from planner.checks import REGISTRY

#: The search's stages, in order: the board, the case, the riser cables, the CPU, then PSUs and circuits.
STAGES = ("motherboard", "case", "risers", "cpu", "psu")

#: Per check code: the stages whose choices it reads (besides the GPUs and the build's extras).
READS: dict[str, frozenset[str]] = {
    "power-limit.range": frozenset(),
    "power-limit.cost": frozenset(STAGES),  # informs only: read at the end
    "memory.type": frozenset({"motherboard"}),
    "case.form-factor": frozenset({"motherboard", "case"}),
    "case.gpu-length": frozenset({"case"}),
    "case.gpu-height": frozenset({"case"}),
    "thermal.passive": frozenset({"case"}),
    # where the cards sit: board slots, case positions and mounts, riser cables (the CPU's generation changes a
    # link's speed, never its lanes or whether a card has a mount)
    "case.expansion-slots": frozenset({"motherboard", "case", "risers"}),
    "slot.overlap": frozenset({"motherboard", "case", "risers"}),
    "slot.placement": frozenset({"motherboard", "case", "risers"}),
    "slot.lanes": frozenset({"motherboard", "case", "risers"}),
    "slot.sharing": frozenset({"motherboard", "case", "risers"}),
    "riser.mount": frozenset({"motherboard", "case", "risers"}),
    "riser.signal": frozenset({"motherboard", "case", "risers", "cpu"}),
    "pcie.cpu-lanes": frozenset({"motherboard", "case", "risers", "cpu"}),
    "cpu.socket": frozenset({"motherboard", "cpu"}),
    # heat: the cards where they sit, the CPU's power, the case's airflow; the PSUs' count (optimistic until known)
    "thermal.gpu-temp": frozenset({"motherboard", "case", "risers", "cpu"}),
    "thermal.sandwich": frozenset({"motherboard", "case", "risers", "cpu"}),
    "thermal.case": frozenset({"motherboard", "case", "risers", "cpu"}),
    # power: every PSU, circuit and the whole DC budget
    "case.psu-bays": frozenset({"case", "psu"}),
    "case.psu": frozenset({"case", "psu"}),
    "psu.headroom": frozenset({"cpu", "psu"}),
    "psu.transient": frozenset({"cpu", "psu"}),
    "psu.connectors": frozenset({"cpu", "psu"}),
    "psu.split": frozenset({"cpu", "psu"}),
    "psu.multi": frozenset({"cpu", "psu"}),
    "outlet.continuous": frozenset({"cpu", "psu"}),
    "outlet.peak": frozenset({"cpu", "psu"}),
    "outlet.inlet": frozenset({"cpu", "psu"}),
}


def checks_at(stage: str) -> tuple[str, ...]:
    """The codes first judged at `stage` ("" for the GPUs alone): those whose reads are all chosen by then
    and were not all chosen a stage earlier. Every registered code is judged at the last stage at the latest."""
    known = set(STAGES[:STAGES.index(stage) + 1]) if stage else set()
    before = set(STAGES[:STAGES.index(stage)]) if stage else None
    codes = []
    for code in REGISTRY:
        if REGISTRY[code].informs:
            continue
        reads = READS.get(code, frozenset(STAGES))
        if reads <= known and (before is None or not reads <= before):
            codes.append(code)
    return tuple(codes)
