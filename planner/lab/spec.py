"""The lab file, as written by the user (records: unknown keys refused, frozen)."""

from typing import Any, Literal

from planner.models.build import Region
from planner.util.record import Field, Record, StrictInt

MAX_MACHINES = 64  # instances in all; a lab is three to twenty machines, a row of racks at most

Place = Literal["office", "closet", "rack"]


class MachineSpec(Record):
    """One kind of machine, `count` alike: a build file (path relative to the lab file) or an inline build."""

    name: str = Field(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_.-]+$",
                      description="Its name; several alike are NAME-1, NAME-2, …")
    build: str | dict[str, Any] = Field(description="A build file, relative to the lab file, or an inline build table.")
    count: StrictInt = Field(default=1, ge=1, le=MAX_MACHINES, description="How many alike.")
    nic_gbps: float | None = Field(default=None, gt=0, le=1_600, description="Its fastest NIC port, Gbit/s.")
    nic: str | None = Field(default=None, description="Its NIC, a nics.toml id (gives nic_gbps).")
    place: Place = Field(default="rack", description="Where it sits: office (with people), closet or rack.")
    power_limit: float | None = Field(default=None, gt=0, le=2_000,
                                      description="Power limit of every GPU of it, W (default: the build's).")


class CircuitSpec(Record):
    """A wall circuit (an outlet from outlets.toml) that PSUs or a UPS plug into."""

    name: str = Field(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_.-]+$", description="Its name.")
    outlet: str = Field(min_length=1, description="Outlet id from outlets.toml (e.g. nema-5-20).")
    receptacles: StrictInt = Field(default=2, ge=1, le=12, description="Receptacles on it (a duplex: 2).")
    other_load: float = Field(default=0, ge=0, le=20_000, description="Other equipment on it, W.")


class FeedSpec(Record):
    """A feed to a rack PDU: single-phase (208/230/240 V) or three-phase (208 V or 400 V, wye or delta)."""

    name: str = Field(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_.-]+$", description="Its name.")
    voltage: float = Field(gt=90, le=480, description="Nominal voltage, V (line-to-line for three-phase).")
    phases: Literal[1, 3] = Field(default=1, description="1 or 3.")
    wiring: Literal["wye", "delta"] | None = Field(
        default=None, description="Three-phase: wye (with neutral) or delta (line-to-line loads only).")
    breaker_a: float = Field(gt=0, le=400, description="Its breaker, A per line.")
    continuous_factor: float | None = Field(
        default=None, gt=0, le=1, description="Share of the breaker a continuous load may use (default: region).")


class BankSpec(Record):
    """A PDU bank: outlets behind one breaker, on one phase (or line pair) of the PDU's feed."""

    name: str = Field(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_.-]+$", description="Its name.")
    phase: str = Field(default="L1", pattern=r"^L[123](-L[123]|-N)?$",
                       description="Lines it draws from: L1-L2, L2-L3, L3-L1 (line-to-line), or L1/L1-N … (wye).")
    breaker_a: float = Field(gt=0, le=63, description="Its breaker, A.")
    c13: StrictInt = Field(default=0, ge=0, le=48, description="C13 outlets.")
    c19: StrictInt = Field(default=0, ge=0, le=48, description="C19 outlets.")


class PduSpec(Record):
    name: str = Field(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_.-]+$", description="Its name.")
    feed: str = Field(description="The [[feed]] it plugs into.")
    model: str | None = Field(default=None, description="Maker and model, for the reader.")
    part: str | None = Field(default=None, description="A pdus.toml id: its banks and per-line limit.")
    source: str | None = Field(default=None, description="Where its figures come from.")
    phase_limit_a: float | None = Field(default=None, gt=0, le=400,
                                        description="Its nameplate current per line, A (default: the feed's).")
    bank: list[BankSpec] = Field(default=[], max_length=12, description="Its banks (default: the part's).")


class UpsSpec(Record):
    name: str = Field(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_.-]+$", description="Its name.")
    model: str | None = Field(default=None, description="Maker and model.")
    source: str | None = Field(default=None, description="Where its ratings and runtime table come from.")
    part: str | None = Field(default=None, description="A ups.toml id: its ratings and runtime table.")
    va: float | None = Field(default=None, gt=0, le=500_000, description="Output rating, VA.")
    w: float | None = Field(default=None, gt=0, le=500_000, description="Output rating, W (= VA × its power factor).")
    runtime: list[list[float]] | None = Field(
        default=None, min_length=1, description="Runtime table from the datasheet: [[load W, minutes], …].")
    shutdown_minutes: float = Field(gt=0, le=600, description="Time the machines need to shut down cleanly, min.")
    feeds: list[str] = Field(min_length=1, description="The PDUs and circuits it feeds.")


class CoolingSpec(Record):
    kind: Literal["room", "office"] = Field(default="office",
                                            description="room: its heat removal is given; office: a stated default.")
    removal_w: float | None = Field(default=None, gt=0, le=2_000_000, description="Heat it removes, W.")
    removal_btu_h: float | None = Field(default=None, gt=0, le=7_000_000, description="Heat it removes, BTU/h.")
    area_m2: float | None = Field(default=None, gt=0, le=10_000, description="Office floor area, m².")
    source: str | None = Field(default=None, description="Where the figure comes from.")


class TrainingSpec(Record):
    """Multi-node data-parallel training: what crosses the network every step."""

    machines: list[str] = Field(min_length=1, description="Machines (kinds or instances) that train together: two "
                                                       "instances at least.")
    params_b: float = Field(gt=0, le=10_000, description="Model size, billions of parameters.")
    step_s: float = Field(gt=0, le=3_600, description="Time of one training step, s.")
    bytes_per_param: float = Field(default=2, gt=0, le=8, description="Gradient bytes per parameter (bf16: 2).")


class NetworkSpec(Record):
    switch_gbps: float | None = Field(default=None, gt=0, le=1_600, description="Switch port speed, Gbit/s.")
    switch_ports: StrictInt | None = Field(default=None, ge=1, le=1_024, description="Switch ports.")
    switch: str | None = Field(default=None, description="A switches.toml id (gives switch_gbps and switch_ports).")
    training: TrainingSpec | None = Field(default=None, description="Multi-node training.")


class PlugSpec(Record):
    """Where one PSU of one machine plugs in; PSUs without a plug are assigned by the solver."""

    machine: str = Field(description="Machine instance (NAME, or NAME-K when count > 1).")
    psu: StrictInt = Field(default=1, ge=1, le=8, description="Which of its PSUs (1-based).")
    into: str = Field(description="A [[circuit]] name, or PDU/BANK.")


class LabFile(Record):
    """A lab: machines, the room's power, cooling and network."""

    name: str | None = Field(default=None, description="Lab name (default: the file name).")
    region: Region = Field(default="us", description="Region: the continuous-load rule of feeds.")
    machine: list[MachineSpec] = Field(min_length=1, max_length=32, description="Machines.")
    circuit: list[CircuitSpec] = Field(default=[], max_length=64, description="Wall circuits.")
    feed: list[FeedSpec] = Field(default=[], max_length=16, description="PDU feeds.")
    pdu: list[PduSpec] = Field(default=[], max_length=32, description="Rack PDUs.")
    ups: list[UpsSpec] = Field(default=[], max_length=8, description="UPSs.")
    cooling: CoolingSpec = Field(default=CoolingSpec(), description="The room's cooling.")
    network: NetworkSpec = Field(default=NetworkSpec(), description="The network.")
    plug: list[PlugSpec] = Field(default=[], max_length=512, description="Which PSU plugs where.")
