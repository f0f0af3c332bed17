"""Part kinds of README: Catalogs. One catalog file per kind; each entry is keyed by its id.

Field docstrings become the JSON Schema descriptions and the catalog docs. Quantities accept a bare
number in the documented unit or a string with a unit ("313 mm", "13.5 in", "120 cfm").
"""

from collections.abc import Sequence
from typing import Annotated, Literal, Self

from planner.kinds import KIND_FILES as KIND_FILES  # re-exported: the kinds and their files
from planner.models.base import Part as Part  # re-exported: the base of every part kind
from planner.models.workloads import WorkloadModel
from planner.util.memo import per_part
from planner.util.record import Field, Record, model_validator
from planner.util.units import (
    Airflow,
    Bandwidth,
    Cache,
    Current,
    Length,
    Memory,
    Power,
    Price,
    Temperature,
    Throughput,
    Voltage,
)

PowerConnector = Literal["pcie-6pin", "pcie-8pin", "12vhpwr", "12v-2x6", "eps-8pin", "none"]
Cooler = Literal["blower", "open-air", "flow-through", "passive", "liquid"]
Efficiency = Literal[
    "80plus-white", "80plus-bronze", "80plus-silver", "80plus-gold", "80plus-platinum", "80plus-titanium",
    "cybenetics-bronze", "cybenetics-silver", "cybenetics-gold", "cybenetics-platinum",
    "cybenetics-titanium", "cybenetics-diamond",
]
BelowSlots = Literal["psu", "drive-cage", "intake-fans", "floor"]
PsuFormFactor = Literal["atx", "sfx", "sfx-l", "crps", "server"]
FormFactor = Literal["mini-itx", "micro-atx", "atx", "e-atx", "eeb", "ssi-eeb", "ceb", "xl-atx", "ssi-ceb"]
#: DIMM kinds: unbuffered (`ddr4`, `ddr5`, ECC or not) or registered (`…-rdimm`, LRDIMM included).
RamType = Literal["ddr4", "ddr5", "ddr4-rdimm", "ddr5-rdimm"]
#: A CPU generation as boards' CPU support lists name it, e.g. `threadripper-pro-5000wx`, `ryzen-9000`, `xeon-w-2200`.
CpuGeneration = Annotated[str, Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")]



class Excursions(Record):
    """Measured power excursions of a card, each as peak ÷ the card's default power, in the time windows reviewers
    measure (Igor's Lab: < 1 ms, 1–5 ms, 5–10 ms, 10–20 ms)."""

    under_1ms: float = Field(ge=1, le=4, description="Peak over spikes shorter than 1 ms ÷ default power.")
    ms_1_5: float = Field(ge=1, le=4, description="Peak over 1–5 ms ÷ default power.")
    ms_5_10: float = Field(ge=1, le=4, description="Peak over 5–10 ms ÷ default power.")
    ms_10_20: float = Field(ge=1, le=4, description="Peak over 10–20 ms ÷ default power.")
    source: str = Field(min_length=3, description="Who measured it, on which card, at what power.")

    @model_validator(mode="after")
    def _shorter_is_higher(self) -> Self:
        if not self.under_1ms >= self.ms_1_5 >= self.ms_5_10 >= self.ms_10_20:
            raise ValueError("a peak averaged over a longer window cannot be higher than over a shorter one")
        return self


class PerfPoint(Record):
    """One measured point of a power-limit curve."""

    power_fraction: float = Field(
        gt=0, le=1.5,
        description="Power limit ÷ the reference power of what was measured: the chip's tdp for a chip's curve,"
                    " the board's default power for a board's own.")
    relative_perf: float = Field(gt=0, le=1.5, description="Throughput ÷ throughput at that reference power.")


class PerfCurve(Record):
    """A measured power-limit → throughput curve for one kind of work."""

    kind: Literal["compute-bound", "memory-bound"] = Field(description="Which workloads it represents.")
    workload: str = Field(description="What was measured, e.g. resnet50-fp16-training.")
    source: str = Field(min_length=3)
    points: list[PerfPoint] = Field(min_length=2)


class GpuChip(Part):
    """A GPU model (e.g. the RTX 3090), independent of who made the board."""

    architecture: str = Field(min_length=2, description="e.g. ampere, ada, hopper, blackwell, rdna3, cdna2.")
    year: int = Field(ge=2012, le=2035, description="Launch year.")
    launch_date: str | None = Field(default=None, description="Launch date (YYYY-MM-DD).")
    launch_price: Price | None = Field(default=None, ge=0, le=500_000, description="Launch MSRP, USD.")
    memory: Memory = Field(ge=1, le=1024, description="Memory size, GB (at least 1: no ML card has less).")
    memory_type: str | None = Field(default=None, description="e.g. GDDR6X, HBM3.")
    memory_bus_width: int | None = Field(default=None, ge=32, le=8192, description="Memory bus, bits.")
    memory_data_rate: float | None = Field(
        default=None, gt=0, le=40, description="Effective data rate per pin, Gbit/s.")
    memory_bandwidth: Bandwidth = Field(ge=10, le=20_000, description="Memory bandwidth, GB/s (at least 10).")
    l2_cache: Cache | None = Field(default=None, ge=0, le=1024, description="L2 (or last-level) cache, MB.")
    tensor_fp16: Throughput | None = Field(
        default=None, gt=0, le=20_000,
        description="Dense fp16/bf16 tensor TFLOPS with fp32 accumulate (absent where unsupported).")
    tensor_fp16_acc16: Throughput | None = Field(
        default=None, gt=0, le=20_000, description="Dense fp16 tensor TFLOPS with fp16 accumulate.")
    tensor_tf32: Throughput | None = Field(default=None, gt=0, le=20_000, description="Dense TF32 TFLOPS.")
    tensor_fp8: Throughput | None = Field(default=None, gt=0, le=40_000, description="Dense FP8 TFLOPS.")
    tensor_int8: Throughput | None = Field(default=None, gt=0, le=40_000, description="Dense INT8 TOPS.")
    tensor_fp4: Throughput | None = Field(default=None, gt=0, le=80_000, description="Dense FP4 TFLOPS.")
    fp32: Throughput | None = Field(default=None, gt=0, le=2_000, description="Non-tensor FP32 TFLOPS.")
    fp64: Throughput | None = Field(default=None, gt=0, le=2_000, description="Non-tensor FP64 TFLOPS.")
    sparsity: bool = Field(default=False, description="2:4 structured sparsity doubles tensor throughput.")
    nvlink: bool = Field(default=False, description="Has an NVLink (or Infinity Fabric) bridge/port.")
    p2p: bool | None = Field(default=None, description="PCIe peer-to-peer enabled by the driver.")
    tdp: Power = Field(ge=10, le=2_000, description="Reference board power, W (at least 10).")
    form: Literal["pcie", "sxm", "oam", "mezzanine"] = Field(default="pcie", description="Module form.")
    workstation_installable: bool = Field(
        default=True, description="False for SXM/OAM modules that need a server baseboard.")
    excursions: Excursions | None = Field(
        default=None, description="Measured power excursions by time window (overrides the architecture's).")
    perf_curve: list[PerfCurve] = Field(
        default=[],
        description="Measured power-limit curves, one per kind of work, in fractions of the chip's tdp: they"
                    " hold for every board built on the chip.")

    @model_validator(mode="after")
    def _bandwidth_matches_bus(self) -> Self:
        if self.memory_bus_width and self.memory_data_rate:
            derived = self.memory_bus_width * self.memory_data_rate / 8
            if abs(derived - self.memory_bandwidth) > 0.05 * self.memory_bandwidth:
                raise ValueError(
                    f"memory_bandwidth {self.memory_bandwidth:g} GB/s disagrees with bus width × data rate / 8"
                    f" = {derived:g} GB/s")
        return self


class GpuBoard(Part):
    """A real card: a chip plus its board's size, cooler, power and connectors."""

    chip: str = Field(description="Id of its GPU chip in gpu-chips.toml.")
    tdp: Power = Field(ge=10, le=2_000, description="Default board power (power limit at stock), W (at least 10).")
    power_limit_min: Power = Field(ge=10, le=2_000, description="Lowest settable power limit, W (at least 10).")
    power_limit_max: Power = Field(ge=10, le=2_000, description="Highest settable power limit, W (at least 10).")
    power_connectors: list[PowerConnector] = Field(
        min_length=1,
        description="Power inputs on the card, e.g. ['pcie-8pin', 'pcie-8pin'], ['pcie-6pin'] or ['12vhpwr'].")
    slot_width: float = Field(
        ge=1, le=5, description="Expansion-slot positions the card covers (1, 2, 2.5, 3…; at least 1: a bracket takes"
                                " a whole slot).")
    length: Length = Field(gt=50, le=450, description="Card length, mm.")
    height: Length = Field(
        gt=50, le=250,
        description="Card height from the slot's bottom edge, mm (a full-height bracket is 111 mm).")
    cooler: Cooler = Field(description="blower | open-air | flow-through | passive | liquid.")
    pcie_gen: int = Field(ge=1, le=6, description="PCIe generation of the card's link.")
    pcie_lanes: int = Field(default=16, ge=1, le=16, description="Lanes of the card's link.")
    temp_target: Temperature = Field(
        default=83, ge=40, le=110, description="GPU Boost temperature target, °C (clocks drop above it).")
    temp_max_operating: Temperature = Field(
        default=93, ge=50, le=120, description="Maximum operating temperature, °C (hard throttling).")
    excursions: Excursions | None = Field(
        default=None, description="Power excursions measured on this card (overrides its chip's and architecture's).")
    perf_curve: list[PerfCurve] = Field(
        default=[],
        description="Curves measured on this board itself, in fractions of its own default power; they override"
                    " its chip's for their kind of work.")

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if not self.power_limit_min <= self.tdp <= self.power_limit_max:
            raise ValueError(
                f"tdp {self.tdp:g} W must lie within power_limit_min {self.power_limit_min:g} W"
                f" and power_limit_max {self.power_limit_max:g} W")
        if self.temp_target >= self.temp_max_operating:
            raise ValueError("temp_target must be below temp_max_operating")
        deliverable = connector_capacity(self.power_connectors)
        # 5 % tolerance: NVIDIA's own RTX A5000 draws 230 W through one 8-pin + slot (225 W by the spec)
        if deliverable * CONNECTOR_TOLERANCE < self.tdp:
            raise ValueError(
                f"connectors {', '.join(self.power_connectors)} deliver at most {deliverable:g} W"
                f" (75 W slot + 75 W per 6-pin + 150 W per 8-pin + 600 W per 12VHPWR) but tdp is {self.tdp:g} W")
        return self


#: Deliverable watts per GPU power input (PCIe CEM: 6-pin 75 W, 8-pin 150 W, 12VHPWR/12V-2x6 600 W).
CONNECTOR_WATTS: dict[str, float] = {"pcie-6pin": 75.0, "pcie-8pin": 150.0, "12vhpwr": 600.0, "12v-2x6": 600.0,
                                     "eps-8pin": 300.0, "none": 0.0}
SLOT_WATTS = 75.0  # PCIe x16 slot (CEM)
CONNECTOR_TOLERANCE = 1.05  # shipping cards exceed the connector spec by a few watts


def connector_capacity(connectors: Sequence[str]) -> float:
    """Watts a card can draw by specification: the x16 slot plus each power input."""
    return SLOT_WATTS + sum(CONNECTOR_WATTS[c] for c in connectors)


class PsuConnectors(Record):
    """Native cables a PSU offers."""

    pcie_8pin: int = Field(default=0, ge=0, le=32, alias="pcie-8pin", description="PCIe 8-pin (6+2) plugs.")
    hpwr: int = Field(default=0, ge=0, le=16, alias="12vhpwr", description="12VHPWR / 12V-2x6 plugs.")
    eps_8pin: int = Field(default=0, ge=0, le=8, alias="eps-8pin", description="EPS 8-pin (4+4) CPU plugs.")


class SocketUse(Record):
    """How many of a PSU's shared modular sockets one cable of each kind takes."""

    pcie_8pin: int = Field(default=1, ge=0, le=4, alias="pcie-8pin",
                           description="Sockets a PCIe 8-pin (6+2) cable takes (one plug per cable, no pigtails).")
    hpwr: int | None = Field(
        default=None, ge=0, le=4, alias="12vhpwr",
        description="Sockets a 12VHPWR / 12V-2x6 cable takes: 2 where it plugs into two 8-pin sockets, 0 where the"
                    " unit has a dedicated 12V-2x6 socket; absent: the planner's default"
                    " (2, params.HPWR_CABLE_SOCKETS).")
    eps_8pin: int = Field(default=1, ge=0, le=4, alias="eps-8pin", description="Sockets an EPS 8-pin cable takes.")


class Psu(Part):
    """A power supply."""

    wattage: Power = Field(gt=100, le=5_000, description="Continuous DC rating at 230 V, W.")
    wattage_115v: Power | None = Field(
        default=None, gt=100, le=5_000, description="Continuous rating at 115–120 V where the unit derates, W.")
    efficiency: Efficiency = Field(description="80 PLUS (or Cybenetics) certification.")
    atx_version: Literal["2.x", "3.0", "3.1"] = Field(description="ATX spec the unit conforms to.")
    excursion_rating: Power | None = Field(
        default=None, gt=0, le=5_000,
        description="Load up to which the unit meets ATX 3.x excursions, if less than its rating, W.")
    opp_trip: Power | None = Field(
        default=None, gt=100, le=10_000,
        description="Measured over-power protection trip point (a review's load ramp; the hot figure where there"
                    " are two), W.")
    opp_source: str | None = Field(default=None, min_length=3, description="The review that measured opp_trip.")
    connectors: PsuConnectors = Field(description="Native cables (counts of pcie-8pin, 12vhpwr, eps-8pin).")
    shared_sockets: int | None = Field(
        default=None, ge=1, le=32,
        description="Modular sockets that the PCIe, EPS (and 12VHPWR) cables share, where the maker lets one"
                    " socket take either kind (e.g. 10 on the Corsair AX1600i); absent where each kind has its own"
                    " sockets and the plug counts are the budget.")
    socket_use: SocketUse | None = Field(
        default=None,
        description="Shared sockets one cable of each kind takes, only with shared_sockets; absent: PCIe 8-pin 1,"
                    " EPS 8-pin 1, 12VHPWR 2.")
    form_factor: Literal["atx", "sfx", "sfx-l", "crps", "server"] = Field(default="atx")
    length: Length | None = Field(default=None, gt=50, le=400, description="Depth, mm.")
    ac_inlet: Literal["c14", "c20"] = Field(description="AC inlet: C14 (10 A cord) or C20 (16 A cord).")
    min_input_voltage: Voltage | None = Field(
        default=None, gt=50, le=300,
        description="Lowest AC input voltage the unit runs on, V (e.g. 200 for units sold for 200–240 V only);"
                    " absent for full-range 100–240 V units.")

    @model_validator(mode="after")
    def _derating(self) -> Self:
        if self.wattage_115v is not None and self.wattage_115v > self.wattage:
            raise ValueError("wattage_115v cannot exceed wattage (the 230 V rating)")
        if (self.opp_trip is None) != (self.opp_source is None):
            raise ValueError("opp_trip and opp_source go together: a measured trip point names its review")
        if self.opp_trip is not None and self.opp_trip < (self.wattage_115v or self.wattage):
            raise ValueError("opp_trip below the unit's rating: a unit that shuts down under its rating is faulty")
        if self.socket_use is not None and self.shared_sockets is None:
            raise ValueError("socket_use without shared_sockets: say how many sockets the cables share")
        return self


class PsuMount(Record):
    """One place in a case that holds a PSU: its size class, the longest unit it takes, and what it needs."""

    form_factor: PsuFormFactor = Field(
        description="Largest PSU form factor it takes: an ATX mount also takes SFX/SFX-L units on an adapter plate,"
                    " an SFX-L mount SFX units; a CRPS bay takes only CRPS modules, a 'server' bay only its chassis'"
                    " own modules.")
    max_length: Length | None = Field(default=None, gt=50, le=400, description="Longest PSU it takes, mm.")
    needs: str | None = Field(
        default=None, min_length=3,
        description="What it needs that is not in the box, e.g. 'the optional second-PSU bracket'.")


#: PSU form factors each mount size takes (SFX units go into an ATX mount on the SFX-to-ATX plate most ship with).
MOUNT_TAKES: dict[str, frozenset[str]] = {
    "atx": frozenset({"atx", "sfx-l", "sfx"}), "sfx-l": frozenset({"sfx-l", "sfx"}), "sfx": frozenset({"sfx"}),
    "crps": frozenset({"crps"}), "server": frozenset({"server"})}


class Case(Part):
    """A case, open frame or rack chassis."""

    form_factors: list[FormFactor] = Field(min_length=1, description="Motherboard form factors it takes.")
    expansion_slots: int = Field(ge=1, le=20, description="Rear expansion-slot positions.")
    max_gpu_length: Length = Field(gt=100, le=600, description="Longest card that fits, mm.")
    max_gpu_height: Length | None = Field(
        default=None, gt=80, le=400,
        description="Tallest card (from the slot's bottom edge) the side panel clears, mm; absent if unpublished.")
    psu_bays: int = Field(default=1, ge=0, le=8, description="PSUs it holds.")
    psu_mounts: list[PsuMount] | None = Field(
        default=None,
        description="Each PSU mount (form factor, longest unit, what it needs), when they differ from psu_bays ATX"
                    " mounts of max_psu_length; as many as psu_bays.")
    max_psu_length: Length | None = Field(default=None, gt=80, le=400, description="Longest PSU that fits, mm.")
    vertical_gpu_mounts: int = Field(default=0, ge=0, le=16, description="Riser-fed vertical/remote GPU mounts.")
    intake_airflow: Airflow | None = Field(
        default=None, ge=0, le=2_000,
        description="Stock intake airflow (sum of the included intake fans' ratings), CFM; 0 for a case sold without"
                    " intake fans; absent when not published (the thermal checks then assume fans and say so).")
    max_fans: int | None = Field(default=None, ge=0, le=30, description="Fans it can hold.")
    below_slots: BelowSlots | None = Field(
        default=None,
        description="What sits under the last expansion slot: the PSU (bottom-mounted, usually under a shroud), a"
                    " drive cage, intake fans in the floor blowing up, or the bare floor; absent if not known"
                    " (a bottom PSU is assumed).")
    floor_clearance: Length | None = Field(
        default=None, ge=0, le=200,
        description="Room between the last expansion slot position and what sits under it (shroud, cage, floor),"
                    " mm; absent if unpublished (an assumed figure is used and named).")
    server_airflow: bool = Field(
        default=False, description="Forced front-to-back airflow fit for passive datacenter cards.")
    open_frame: bool = Field(default=False, description="Open-air frame (mining rig style), no enclosure.")
    rackmount: bool = Field(default=False, description="Rack chassis.")
    rack_units: int | None = Field(default=None, ge=1, le=10, description="Height in rack units.")

    @model_validator(mode="after")
    def _mounts_match_bays(self) -> Self:
        if self.psu_mounts is not None and len(self.psu_mounts) != self.psu_bays:
            raise ValueError(f"psu_mounts lists {len(self.psu_mounts)} mounts but psu_bays is {self.psu_bays}")
        return self

    def mounts(self) -> list[PsuMount]:
        """The case's PSU mounts: `psu_mounts`, else `psu_bays` ATX mounts of `max_psu_length`."""
        return list(_mounts(self))


@per_part  # once per catalog case: every PSU-in-case check and re-check asks
def _mounts(case: Case) -> tuple[PsuMount, ...]:
    if case.psu_mounts is not None:
        return tuple(case.psu_mounts)
    return (PsuMount(form_factor="atx", max_length=case.max_psu_length),) * case.psu_bays


class ShareRule(Record):
    """A lane-sharing rule: when another slot (or M.2 socket) is used, this slot narrows or switches off."""

    when_used: str = Field(min_length=1, description="Name of the slot or M.2 socket that triggers the rule.")
    lanes: int = Field(ge=0, le=16, description="This slot's lanes then (0 = disabled).")


class PcieSlot(Record):
    """One PCIe slot on a motherboard."""

    name: str = Field(min_length=1, description="Name printed on the board, e.g. PCIE1.")
    position: int = Field(ge=1, le=20, description="Expansion-slot index from the top (1 = nearest the CPU).")
    size: Literal[1, 4, 8, 16] = Field(description="Physical size (x16 = a full-length slot).")
    lanes: Literal[1, 2, 4, 8, 16] = Field(description="Electrical lanes when nothing is shared.")
    gen: int = Field(ge=1, le=6, description="PCIe generation.")
    source: Literal["cpu", "chipset"] = Field(description="Lanes from the CPU or the chipset.")
    shares: list[ShareRule] = Field(default=[], description="Lane-sharing rules.")

    @model_validator(mode="after")
    def _lanes_fit(self) -> Self:
        if self.lanes > self.size:
            raise ValueError(f"slot {self.name} has {self.lanes} lanes but is only x{self.size} physically")
        return self


class PcieSwitch(Record):
    """A PCIe switch on the board (e.g. a PLX PEX8747): slots behind it get their full link width to the
    switch, and share its one upstream link to the CPU (or chipset)."""

    name: str = Field(min_length=1, description="What findings call it, e.g. 'switch A'.")
    model: str = Field(min_length=1, description="The chip, e.g. 'PLX PEX8747'.")
    upstream_lanes: Literal[1, 2, 4, 8, 16] = Field(description="Lanes of its link to the CPU (or chipset).")
    upstream_gen: int = Field(ge=1, le=6, description="PCIe generation of that link.")
    slots: list[str] = Field(min_length=1, description="Names of the slots it feeds (downstream).")


class Motherboard(Part):
    """A motherboard with its real PCIe slot layout."""

    form_factor: FormFactor = Field(description="Board form factor.")
    socket: str = Field(min_length=2, description="CPU socket, e.g. sWRX8, AM5, LGA4677.")
    cpu_generations: list[CpuGeneration] = Field(
        default=[], description="The CPU generations its maker supports on it (the board's or its platform's CPU "
                                "support list, source in platform_source); empty: not recorded. A CPU of its socket "
                                "whose generation is not listed gets a platform caveat.")
    bios_update_for: list[CpuGeneration] = Field(
        default=[], description="CPU generations it supports only from a BIOS newer than early boards shipped with.")
    memory_types: list[RamType] = Field(
        default=[], description="DIMM kinds it takes (ddr4, ddr5: unbuffered; ddr4-rdimm, ddr5-rdimm: registered); "
                                "empty: not recorded.")
    platform_source: str | None = Field(
        default=None, description="Where cpu_generations, bios_update_for and memory_types come from.")
    chipset: str | None = Field(default=None, description="Chipset, e.g. WRX80, X670E.")
    memory_slots: int | None = Field(default=None, ge=1, le=32, description="DIMM slots.")
    slots: list[PcieSlot] = Field(min_length=1, description="PCIe slots, top to bottom.")
    switches: list[PcieSwitch] = Field(
        default=[], description="PCIe switches and the slots behind them (a slot's `source` is where its switch's "
                                "upstream link goes).")

    @model_validator(mode="after")
    def _slots_consistent(self) -> Self:
        if self.cpu_generations and (unlisted := sorted(set(self.bios_update_for) - set(self.cpu_generations))):
            raise ValueError(f"bios_update_for names {unlisted[0]!r}, which cpu_generations does not list")
        names = [s.name for s in self.slots]
        positions = [s.position for s in self.slots]
        if len(set(names)) != len(names):
            raise ValueError("two slots share a name")
        if len(set(positions)) != len(positions):
            raise ValueError("two slots share a position")
        switch_names = [w.name for w in self.switches]
        if len(set(switch_names)) != len(switch_names):
            raise ValueError("two switches share a name")
        sources = {s.name: s.source for s in self.slots}
        if clash := set(switch_names) & set(sources):
            raise ValueError(f"a switch and a slot share the name {sorted(clash)[0]}")
        behind: dict[str, str] = {}
        for switch in self.switches:
            for slot in switch.slots:
                if slot not in sources:
                    raise ValueError(f"switch {switch.name} feeds slot {slot}, which the board does not have")
                if slot in behind:
                    raise ValueError(f"slot {slot} sits behind two switches ({behind[slot]} and {switch.name})")
                behind[slot] = switch.name
            if len({sources[slot] for slot in switch.slots}) > 1:
                raise ValueError(f"the slots behind switch {switch.name} disagree on their source (cpu or chipset)")
        return self

    def switch_of(self, slot: str) -> PcieSwitch | None:
        """The switch a slot sits behind, if any."""
        return next((w for w in self.switches if slot in w.slots), None)


class Cpu(Part):
    """A CPU: socket, lanes and package power."""

    socket: str = Field(min_length=2, description="CPU socket.")
    generation: CpuGeneration | None = Field(
        default=None, description="Its generation as boards' CPU support lists name it, e.g. threadripper-pro-5000wx, "
                                  "xeon-w-2200 (see motherboards' cpu_generations); none: not recorded.")
    cores: int = Field(ge=1, le=512, description="Cores.")
    tdp: Power = Field(ge=10, le=1_000, description="Rated TDP, W (at least 10).")
    package_power: Power | None = Field(
        default=None, gt=0, le=1_500, description="Sustained package power under all-core load (PPT/PL1), W.")
    pcie_lanes: int = Field(ge=1, le=256, description="PCIe lanes usable for add-in cards.")
    pcie_gen: int = Field(ge=1, le=6, description="PCIe generation of the CPU's lanes.")


class Riser(Part):
    """A riser cable, extender or retimer kit."""

    kind: Literal["cable", "extender"] = Field(
        description="cable: to a vertical/remote mount; extender: raises the card in its own slot.")
    signal: Literal["passive", "redriver", "retimer"] = Field(
        default="passive", description="passive, or a redriver (re-amplifies) or retimer (recovers the clock and"
                                       " resets the channel's loss budget) on its adapter boards.")
    construction: Literal["ribbon", "twinax"] = Field(
        default="ribbon",
        description="ribbon: a flat riser cable (however shielded) from a slot connector to an edge connector, the"
                    " usual vertical-mount riser; twinax: shielded twinax cable assemblies on connectors specified"
                    " for PCIe (SlimSAS SFF-8654, MCIO SFF-TA-1016) between adapter boards. Assumed ribbon when"
                    " not given.")
    pcie_gen: int = Field(ge=1, le=6, description="Generation it is rated for.")
    length: Length = Field(ge=50, le=2_000, description="Cable length, mm (at least 50).")
    lanes: Literal[1, 4, 8, 16] = Field(default=16)
    validated_with: list[str] = Field(
        default=[],
        description="Catalog ids of the cases or motherboards its maker validated it with at its rated generation"
                    " (a case maker's riser tested in that case), with the source in `source`.")


class Outlet(Part):
    """A wall outlet and the branch circuit behind it."""

    region: str = Field(min_length=2, description="Where it is used (us, ca, eu, uk, jp, cn, au, in, ch…).")
    standard: str = Field(min_length=2, description="Plug/socket standard, e.g. NEMA 5-15.")
    voltage: Voltage = Field(gt=50, le=480, description="Nominal voltage, V.")
    breaker_current: Current = Field(ge=1, le=100, description="Breaker or fuse rating, A (at least 1).")
    continuous_factor: float = Field(
        gt=0, le=1, description="Share of the breaker rating allowed continuously (NEC: 0.8).")
    continuous_source: str = Field(min_length=3, description="Where the continuous factor comes from.")
    plug_current: Current | None = Field(
        default=None, gt=0, le=100,
        description="Rating of the plug a PSU cord needs for this outlet, A (NEMA 5-15P 15 A, fused BS 1363"
                    " 13 A…); absent when PSUs are fed through a PDU plugged into it.")

    @property
    def continuous_limit(self) -> float:
        """Watts the circuit may carry continuously."""
        return self.voltage * self.breaker_current * self.continuous_factor


class Pdu(Part):
    """A rack PDU: its input (feed, phases, current per line) and its banks of outlets, each behind a breaker."""

    input_voltage: Voltage = Field(gt=90, le=480, description="Input voltage, V (line-to-line for three-phase).")
    phases: Literal[1, 3] = Field(description="Input phases.")
    wiring: Literal["wye", "delta"] | None = Field(default=None, description="Three-phase: wye or delta.")
    input_current: Current = Field(gt=0, le=100, description="Nameplate input current per line, A (continuous).")
    plug: str = Field(min_length=2, description="Input plug (NEMA L6-30P, L21-30P, IEC 60309 …).")
    bank_phases: list[str] = Field(min_length=1, max_length=12,
                                   description="Each bank's lines: L1-L2, L2-L3, L3-L1, L1 (wye to neutral) …")
    bank_breaker: Current = Field(gt=0, le=63, description="Each bank's breaker, A.")
    bank_c13: int = Field(ge=0, le=48, description="C13 outlets per bank.")
    bank_c19: int = Field(ge=0, le=48, description="C19 outlets per bank.")


class Ups(Part):
    """A UPS: its output ratings and the maker's runtime table."""

    va: float = Field(gt=0, le=500_000, description="Output rating, VA.")
    w: float = Field(gt=0, le=500_000, description="Output rating, W.")
    voltage: Voltage = Field(gt=90, le=480, description="Output voltage, V.")
    runtime: list[list[float]] = Field(min_length=1, description="Runtime table: [[load W, minutes], …].")


class Nic(Part):
    """A network card."""

    speed_gbps: float = Field(gt=0, le=1_600, description="Speed per port, Gbit/s.")
    ports: int = Field(ge=1, le=8, description="Ports.")
    fabric: Literal["ethernet", "infiniband", "both"] = Field(description="Ethernet, InfiniBand or either (VPI).")
    pcie_gen: int = Field(ge=3, le=6, description="PCIe generation of its host link.")
    lanes: Literal[4, 8, 16, 32] = Field(description="PCIe lanes of its host link.")
    power_w: Power | None = Field(default=None, ge=1, le=200, description="Typical power, W.")


class Switch(Part):
    """A network switch."""

    speed_gbps: float = Field(gt=0, le=1_600, description="Speed per port, Gbit/s.")
    ports: int = Field(ge=1, le=1_024, description="Ports at that speed.")
    fabric: Literal["ethernet", "infiniband"] = Field(description="Ethernet or InfiniBand.")
    power_w: Power | None = Field(default=None, ge=1, le=5_000, description="Typical power, W.")


class Cable(Part):
    """A cable a lab buys: a power cord from a PDU outlet to a PSU's inlet, or a network cable (DAC) from a NIC
    to the switch. A PSU on a wall circuit uses the cord in its box; one on a PDU needs a cord with IEC plugs."""

    use: Literal["power", "network"] = Field(description="power: a PDU-to-PSU cord; network: a NIC-to-switch cable.")
    pdu_outlet: Literal["c13", "c19"] | None = Field(
        default=None, description="power: the PDU outlet its plug takes (its plug is a C14 or a C20).")
    psu_inlet: Literal["c14", "c20"] | None = Field(
        default=None, description="power: the PSU inlet its connector takes (its connector is a C13 or a C19).")
    current_a: Current | None = Field(default=None, gt=0, le=32, description="power: its rating, A.")
    speed_gbps: float | None = Field(default=None, gt=0, le=1_600, description="network: its speed, Gbit/s.")
    port: str | None = Field(default=None, min_length=2, description="network: its ends (SFP+, QSFP28, OSFP …).")
    length_m: float = Field(gt=0, le=100, description="Length, m.")

    @model_validator(mode="after")
    def _use_fields(self) -> Self:
        need = {"power": ("pdu_outlet", "psu_inlet"), "network": ("speed_gbps", "port")}[self.use]
        missing = [name for name in need if getattr(self, name) is None]
        if missing:
            raise ValueError(f"a {self.use} cable needs {', '.join(missing)}")
        return self


BaseRole = Literal["ram", "ssd", "cooler"]


class BasePart(Part):
    """A part of the base system every machine needs besides board, CPU, case and PSUs: a RAM kit, the system
    SSD, a CPU cooler. Chosen by one base-system model (planner/build/base_system.py) for every total."""

    role: BaseRole = Field(description="ram: a kit of modules; ssd: the system drive; cooler: a CPU cooler.")
    ram_type: RamType | None = Field(default=None, description="ram: module type (ddr4, ddr5, ddr4-rdimm, ddr5-rdimm).")
    modules: int | None = Field(default=None, ge=1, le=16, description="ram: modules in the kit.")
    module_size: float | None = Field(default=None, ge=1, le=512, description="ram: GB per module (at least 1).")
    speed: int | None = Field(default=None, ge=800, le=12_000, description="ram: MT/s.")
    capacity: float | None = Field(default=None, ge=16, le=100_000, description="ssd: capacity, GB (at least 16).")
    interface: Literal["nvme-pcie3", "nvme-pcie4", "nvme-pcie5", "sata"] | None = Field(
        default=None, description="ssd: interface.")
    sockets: list[str] = Field(default=[], description="cooler: CPU sockets it mounts on (as cpus.toml names them).")
    cooler_tdp: Power | None = Field(
        default=None, ge=10, le=1_000,
        description="cooler: the heat it is rated to remove (the maker's TDP rating, or a review's), W (at least 10).")
    cooler_height: Length | None = Field(default=None, ge=20, le=300,
                                         description="cooler: height above the board, mm (at least 20).")
    cooler_type: Literal["air", "aio", "server-active", "server-passive"] | None = Field(
        default=None, description="cooler: tower air, all-in-one liquid, server (active or passive, for ducted"
                                  " chassis).")

    @model_validator(mode="after")
    def _role_fields(self) -> Self:
        need = {"ram": ("ram_type", "modules", "module_size"), "ssd": ("capacity",),
                "cooler": ("sockets", "cooler_tdp", "cooler_type")}[self.role]
        missing = [name for name in need if not getattr(self, name)]
        if missing:
            raise ValueError(f"a {self.role} needs {', '.join(missing)}")
        return self


#: Fields an entry states for (or works out from) another of its fields, by kind ("*": every kind). An inline
#: part that changes such a field on its base drops the base's derived figures, which described the base's value,
#: not the builder's: `{ base = "…-mining-frame", psu_bays = 4 }` gets 4 ATX mounts, not the frame's 2 listed ones.
DERIVED_FIELDS: dict[str, dict[str, tuple[str, ...]]] = {
    "*": {"price": ("price_date", "price_source"),
          "used_price": ("used_price_low", "used_price_high", "used_price_date", "used_price_source")},
    "case": {"psu_bays": ("psu_mounts",)},
    "motherboard": {"slots": ("switches",)},
    "gpu-chip": {"memory_bandwidth": ("memory_bus_width", "memory_data_rate"),
                 "memory_bus_width": ("memory_bandwidth",), "memory_data_rate": ("memory_bandwidth",)},
    "psu": {"opp_trip": ("opp_source",)},
}


def derived_from(kind: str, field: str) -> tuple[str, ...]:
    """The fields of a `kind` entry derived from `field` (DERIVED_FIELDS)."""
    return DERIVED_FIELDS["*"].get(field, ()) + DERIVED_FIELDS.get(kind, {}).get(field, ())


KIND_MODELS: dict[str, type[Part]] = {
    "gpu-chip": GpuChip,
    "gpu": GpuBoard,
    "psu": Psu,
    "case": Case,
    "motherboard": Motherboard,
    "cpu": Cpu,
    "riser": Riser,
    "outlet": Outlet,
    "llm": WorkloadModel,
    "base-part": BasePart,
    "pdu": Pdu,
    "ups": Ups,
    "nic": Nic,
    "switch": Switch,
    "cable": Cable,
}
