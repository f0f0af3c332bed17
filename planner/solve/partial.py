"""A partial build (README: Completing a partial build): the GPUs given, any of case, motherboard, CPU, PSUs and
circuits missing.

It is read like a build file (same keys, same messages) and resolved with the real resolver: every kind the
file leaves out gets a stand-in catalog part, so the given parts resolve exactly as `planner check` resolves
them, and the search replaces the stand-ins with its choices. Only checks that read none of the stand-ins are
ever run on such a build (planner/solve/reads.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from planner.build import buildfile
from planner.build.resolve import DEFAULT_OUTLETS, DEFAULT_REGION, ResolvedBuild, is_owned, resolve
from planner.catalog import Catalog
from planner.models.build import BuildFile, PartRef, PsuSpec, Region
from planner.models.parts import Case, Cpu, Motherboard, Psu
from planner.util.errors import InputError
from planner.util.record import Field


class PartialBuild(BuildFile):
    """A build file whose case, motherboard, CPU and PSUs may be missing (`planner solve` fills them in)."""

    # (mypy: a field may narrow, not widen, its base's type; it is validated on its own)
    case: PartRef | None = Field(  # type: ignore[assignment]
        default=None, description="Case id or inline case; missing: the solver picks one.")
    motherboard: PartRef | None = Field(  # type: ignore[assignment]
        default=None, description="Motherboard; missing: the solver picks one.")
    cpu: PartRef | None = Field(  # type: ignore[assignment]
        default=None, description="CPU; missing: the solver picks one.")
    psu: list[PsuSpec] = Field(default=[], max_length=8, description="PSUs; none: the solver picks them.")


#: The part kinds the solver may fill in, in the order it decides them.
SINGLE_KINDS = ("motherboard", "case", "cpu")


class Partial(NamedTuple):
    """A read partial build."""

    file: str
    text: str
    raw: dict[str, Any]  # the file's data
    spec: PartialBuild
    base: ResolvedBuild  # resolved with stand-ins for the missing kinds
    given: dict[str, bool]  # per kind (motherboard, case, cpu, psu): the file gives it
    owned: dict[str, bool]  # per single kind: the file marks it owned
    region: str  # whose standard outlet a circuit the solver adds gets
    max_circuits: int


def read_partial(path: Path, catalog: Catalog, region: Region | None = None) -> Partial:
    """Read, validate and resolve a partial build file (InputError, exit 2, on any problem)."""
    text = buildfile.read_text(path)
    return parse_partial(text, buildfile.label_of(path), catalog, region)


def parse_partial(text: str, label: str, catalog: Catalog, region: Region | None = None) -> Partial:
    raw = buildfile.parse_toml(text, label)
    spec = buildfile.validate(raw, text, label, PartialBuild)
    given = {kind: getattr(spec, kind) is not None for kind in SINGLE_KINDS} | {"psu": bool(spec.psu)}
    if not spec.gpu:
        raise InputError("names no GPU: the solver completes a build around its cards; add a [[gpu]] table, e.g."
                         ' [[gpu]] part = "nvidia-rtx-3090-fe" count = 2', file=label, key="gpu")
    for i, gpu in enumerate(spec.gpu):
        if gpu.slot is not None and not given["motherboard"]:
            raise InputError("names motherboard slots, but the build names no motherboard: give the board, or "
                             "leave the slots to the solver", file=label, key=f"gpu[{i}].slot")
        if gpu.psu is not None and not given["psu"]:
            raise InputError("names a PSU, but the build has no [[psu]]: give the PSUs, or leave it to the solver",
                             file=label, key=f"gpu[{i}].psu")
    filled = dict(raw)
    for kind, model in (("motherboard", Motherboard), ("case", Case), ("cpu", Cpu)):
        if not given[kind]:
            filled[kind] = _stand_in(catalog, kind, model, label)
    if not given["psu"]:
        stand_in: dict[str, Any] = {"part": _stand_in(catalog, "psu", Psu, label)}
        if spec.circuit:
            stand_in["circuit"] = spec.circuit[0].name
        filled["psu"] = [stand_in]
    full = buildfile.validate(filled, text, label)
    base = resolve(full, filled, catalog, label=label, text=text, region=region)
    from planner.util.config import default_region

    chosen = spec.region or region or default_region() or DEFAULT_REGION
    if len(spec.circuit) > spec.max_circuits:
        raise InputError(f"the build has {len(spec.circuit)} circuits but max_circuits = {spec.max_circuits}",
                         file=label, key="max_circuits")
    owned = {kind: is_owned(raw.get(kind)) for kind in SINGLE_KINDS}
    return Partial(file=label, text=text, raw=raw, spec=spec, base=base, given=given, owned=owned,
                   region=chosen if chosen in DEFAULT_OUTLETS else DEFAULT_REGION, max_circuits=spec.max_circuits)


def _stand_in(catalog: Catalog, kind: str, model: type[Any], label: str) -> str:
    """Any valid catalog part of a kind, to resolve the given parts around (never judged by a check)."""
    for part in catalog.all(kind):
        if isinstance(part, model):
            return part.id
    raise InputError(f"the catalogs hold no {kind}, so the solver has none to choose from", file=label)
