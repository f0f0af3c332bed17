"""One-line summaries of parts, shared by `planner catalog` and the TUI's picker."""

from __future__ import annotations

from planner.models.parts import Case, Cpu, GpuBoard, GpuChip, Motherboard, Outlet, Part, Psu, Riser
from planner.util.fmt import mm, num, watts


def summary(part: Part) -> str:
    """The figures a builder compares at a glance."""
    if isinstance(part, GpuChip):
        return f"{num(part.memory)} GB, {num(part.memory_bandwidth)} GB/s, {watts(part.tdp)}, {part.architecture}"
    if isinstance(part, GpuBoard):
        return (f"{part.chip}, {num(part.slot_width, 1)}-slot {part.cooler}, {mm(part.length)}, "
                f"{watts(part.tdp)}, {'+'.join(part.power_connectors)}")
    if isinstance(part, Psu):
        derate = f" ({watts(part.wattage_115v)} at 115 V)" if part.wattage_115v else ""
        return f"{watts(part.wattage)}{derate}, {part.efficiency}, ATX {part.atx_version}, {part.ac_inlet.upper()}"
    if isinstance(part, Case):
        return (f"{part.expansion_slots} slots, GPUs ≤ {mm(part.max_gpu_length)}, "
                f"{'/'.join(part.form_factors)}, "
                + (f"{num(part.intake_airflow)} CFM intake" if part.intake_airflow is not None else "intake unknown"))
    if isinstance(part, Motherboard):
        wide = sum(1 for s in part.slots if s.size == 16)
        return f"{part.form_factor}, {part.socket}, {len(part.slots)} PCIe slots ({wide} × x16 physical)"
    if isinstance(part, Cpu):
        return f"{part.socket}, {part.cores} cores, {watts(part.tdp)}, {part.pcie_lanes} lanes PCIe {part.pcie_gen}"
    if isinstance(part, Riser):
        return f"{part.kind}, PCIe {part.pcie_gen} x{part.lanes}, {mm(part.length)}, {part.construction}, {part.signal}"
    if isinstance(part, Outlet):
        return (f"{num(part.voltage)} V {num(part.breaker_current)} A, continuous "
                f"{watts(part.continuous_limit)} ({part.region})")
    from planner.models.workloads import WorkloadModel

    if isinstance(part, WorkloadModel):
        context = f", {part.context_length:,}-token context" if part.context_length else ""
        return f"{part.category}, {part.parameters:g} B parameters{context}"
    return part.name
