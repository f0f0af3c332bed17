"""The DC power budget of README: DC budget and each PSU's usable rating at its circuit's voltage.

Who feeds what (the multi-PSU split) is in delivery.py; efficiency and wall draw in efficiency.py and wall.py;
transient peaks in transients.py."""


from typing import NamedTuple

from planner.build.resolve import ResolvedBuild
from planner.models.parts import Psu
from planner.physics import params

LOW_LINE_VOLTS = params.LOW_LINE_VOLTAGE.value  # below: a "115 V class" circuit; derating PSUs give wattage_115v


class DcBudget(NamedTuple):
    """Sustained DC load, by consumer, in W."""

    gpus: float
    cpu: float
    board: float
    ram: float
    drives: float
    fans: float
    other: float

    @property
    def rest(self) -> float:
        """Everything but the GPUs."""
        return self.cpu + self.board + self.ram + self.drives + self.fans + self.other

    @property
    def total(self) -> float:
        return self.gpus + self.rest


def dc_budget(build: ResolvedBuild) -> DcBudget:
    extras = build.extras
    ram = extras.ram_modules if extras.ram_modules is not None else params.DEFAULT_RAM_MODULES.value
    drives = extras.drives if extras.drives is not None else params.DEFAULT_DRIVES.value
    fans = extras.fans if extras.fans is not None else params.DEFAULT_FANS.value
    cpu = build.cpu.package_power if build.cpu.package_power is not None else build.cpu.tdp
    return DcBudget(
        gpus=sum(g.power_limit for g in build.gpus),
        cpu=cpu,
        board=extras.board if extras.board is not None else params.BOARD_POWER.value,
        ram=ram * params.RAM_MODULE_POWER.value,
        drives=drives * params.DRIVE_POWER.value,
        fans=fans * params.FAN_POWER.value,
        other=extras.other,
    )


def psu_rating(build: ResolvedBuild, psu_index: int) -> float:
    """A PSU's continuous rating on its circuit: `wattage_115v` on a 100–127 V circuit if it derates."""
    use = build.psus[psu_index]
    return rated_watts(use.part, build.circuit(use.circuit).outlet.voltage)


def rated_watts(psu: Psu, voltage: float) -> float:
    """A PSU's continuous rating at a circuit voltage (its 230 V wattage, or `wattage_115v` below 200 V)."""
    if voltage < LOW_LINE_VOLTS and psu.wattage_115v is not None:
        return psu.wattage_115v
    return psu.wattage


def runs_on(psu: Psu, voltage: float) -> bool:
    """Whether a PSU accepts this mains voltage (some 2 kW+ units take 200–240 V only)."""
    return psu.min_input_voltage is None or voltage >= psu.min_input_voltage
