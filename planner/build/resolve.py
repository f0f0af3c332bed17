"""Resolve a BuildFile against the catalogs: part references → validated parts, defaults applied.

The result, a ResolvedBuild, is what every check reads. Resolution problems (an unknown id, an inline
part with a bad field, a PSU on an unknown circuit) become one InputError naming the key path.
"""


import json
from typing import Any, NamedTuple, TypeVar

from pydantic_core import ValidationError

from planner.build.base_system import BaseItem, base_system
from planner.catalog import Catalog, did_you_mean
from planner.catalog.prices import PriceOrigin, for_market
from planner.models.build import BuildFile, Extras, Region, Workload
from planner.models.parts import (
    DERIVED_FIELDS,
    KIND_MODELS,
    Case,
    Cpu,
    GpuBoard,
    GpuChip,
    Motherboard,
    Outlet,
    Part,
    Psu,
    Riser,
    derived_from,
)
from planner.util.errors import CatalogError, InputError, UnknownPartError
from planner.util.validation import location, message

P = TypeVar("P", bound=Part)

#: The outlet assumed for a build that names no circuit, by region (README: Build files).
DEFAULT_OUTLETS: dict[str, str] = {
    "us": "nema-5-15", "eu": "schuko-16a", "uk": "bs-1363-13a", "jp": "jis-c-8303-15a",
    "cn": "gb-2099-10a", "au": "as-nzs-3112-10a",
}
DEFAULT_REGION = "us"


class GpuInstance(NamedTuple):
    """One physical card of the build."""

    index: int  # type: ignore[assignment]  # 0-based over all cards (shadows tuple.index, unused here)
    spec_index: int  # which [[gpu]] table it comes from
    board: GpuBoard
    chip: GpuChip
    power_limit: float  # W
    power_limit_set: bool  # the build sets it (else it is the board's tdp)
    slot: str | None
    riser: Riser | None
    psu: int | None  # 0-based index into the build's PSUs, if the build says

    @property
    def label(self) -> str:
        return f"GPU{self.index + 1} ({self.board.id})"


class CircuitUse(NamedTuple):
    name: str
    outlet: Outlet
    other_load: float
    assumed: bool = False  # not in the file: the default for the region


class PsuUse(NamedTuple):
    index: int  # type: ignore[assignment]  # shadows tuple.index, unused here
    part: Psu
    circuit: str


class ResolvedBuild(NamedTuple):
    """A build with every part resolved: what the checks read."""

    name: str
    file: str
    ambient: float
    workload: Workload
    case: Case
    motherboard: Motherboard
    cpu: Cpu
    circuits: list[CircuitUse]
    psus: list[PsuUse]
    gpus: list[GpuInstance]
    extras: Extras
    spec: BuildFile
    raw: dict[str, Any]
    assumptions: list[str]  # what the planner assumed where the file is silent
    price_origins: dict[str, PriceOrigin]  # parts (by id) whose price is the user's, not the catalog's
    #: RAM, system SSD and CPU cooler the base-system model chooses for this board, CPU and GPUs
    #: (planner/build/base_system.py): in every total, never read by a check
    base: tuple[BaseItem, ...] = ()
    #: The accessories the file names (planner/kinds.py: a UPS…), by kind, in declaration order: listed and
    #: priced, never read by a check
    accessories: tuple[tuple[str, Part], ...] = ()

    def circuit(self, name: str) -> CircuitUse:
        return next(c for c in self.circuits if c.name == name)


class Resolver:
    """Turns part references into parts, reporting problems at their key path in the file."""

    def __init__(self, catalog: Catalog, label: str, text: str | None) -> None:
        self.catalog = catalog
        self.label = label
        self.text = text
        self.inline_parts: dict[tuple[str, str], str] = {}  # (kind, id) → the inline part's fields, as JSON
        self.price_origins: dict[str, PriceOrigin] = {}

    def error(self, msg: str, loc: tuple[str | int, ...]) -> InputError:
        from planner.util.tomlpos import line_of

        line = line_of(self.text, loc) if self.text else None
        return InputError(msg, file=self.label, line=line, key=location(loc))

    def part(self, kind: str, ref: Any, loc: tuple[str | int, ...], model: type[P]) -> P:
        """A catalog id or an inline table `{ base = "id", field = value, … }` (`owned = true` in it only tells
        `planner solve` that the part costs nothing)."""
        if isinstance(ref, dict) and "owned" in ref:
            if not isinstance(ref["owned"], bool):
                raise self.error(f"owned must be true or false, got {ref['owned']!r}", (*loc, "owned"))
            ref = without_owned(ref)
        if isinstance(ref, str):
            try:
                part = self.catalog.get(kind, ref)
            except UnknownPartError as unknown:
                raise self.error(f"unknown {kind} id {ref!r}{_hint(unknown.suggestions)}", loc) from None
            except CatalogError as bad:
                raise self.error(f"the catalog entry is invalid: {bad}", loc) from None
            if ref in self.catalog.user_prices:
                self.price_origins[part.id] = self.catalog.user_prices[ref].origin
        else:
            part = self.inline(kind, ref, loc)
        assert isinstance(part, model)
        return part

    def inline(self, kind: str, ref: dict[str, Any], loc: tuple[str | int, ...]) -> Part:
        data = dict(ref)
        base = data.pop("base", None)
        origin = PriceOrigin("build-file", "the build file") if "price" in data else None
        if base is not None:
            if not isinstance(base, str):
                raise self.error(f"base must be a catalog id, got {base!r}", (*loc, "base"))
            try:
                entry = self.catalog.entry(kind, base)
            except UnknownPartError as unknown:
                raise self.error(f"unknown {kind} id {base!r}{_hint(unknown.suggestions)}",
                                 (*loc, "base")) from None
            merged = {**entry.data, **data}
            if "aliases" not in data:
                merged.pop("aliases", None)  # the catalog entry's other ids are not this part's
            if "estimated" not in data and isinstance(merged.get("estimated"), list):
                # a figure the build file states is the builder's own, no longer the catalog's estimate
                merged["estimated"] = [name for name in merged["estimated"] if name not in data]
            for key in _derived_reset(kind, entry.data, data):  # e.g. the base's price date, for the base's price
                merged.pop(key, None)
            if "price" not in data and base in self.catalog.user_prices:
                user = self.catalog.user_prices[base]
                merged.update(price=user.price, price_date=user.date, price_source=user.description)
                origin = user.origin
            merged["source"] = data.get("source", f"{entry.data.get('source', '')} (modified in the build file)")
            stem = f"{base}-custom"
        else:
            merged = data
            merged.setdefault("source", "inline part in the build file")
            stem = f"custom-{kind}"
        merged["id"] = self.inline_id(kind, merged, stem, loc)
        if origin is not None:
            self.price_origins[merged["id"]] = origin
        if kind == "gpu" and isinstance(merged.get("chip"), dict):
            raise self.error("chip must be a catalog chip id", (*loc, "chip"))
        same = _fields_key(kind, merged)
        if same is not None and (known := _INLINE.get(same)) is not None:
            return self.priced(known, origin)
        try:
            part = KIND_MODELS[kind].model_validate(merged)
        except ValidationError as invalid:
            detail = invalid.errors(include_url=False)[0]
            sub = tuple(detail["loc"])
            text = message(detail)
            if detail["type"] == "extra_forbidden":
                allowed = [k for k in KIND_MODELS[kind].model_fields if k != "id"]
                text = f"unknown key {sub[-1]!r} for a {kind}{did_you_mean(str(sub[-1]), allowed)}"
            elif detail["type"] == "missing" and base is None:
                text = "required key is missing (an inline part without base must give every required field)"
            elif detail["type"] == "value_error" and base is not None:
                text += _set_too(text, base, entry.data, data)
            raise self.error(text, (*loc, *sub)) from None
        if same is not None:
            if len(_INLINE) >= _INLINE_MAX:
                _INLINE.clear()
            _INLINE[same] = part
        return self.priced(part, origin)

    def priced(self, part: Part, origin: PriceOrigin | None) -> Part:
        """An inline part priced as the catalog prices its parts: the builder's own price (the build file's, or
        a price file's for its base) is "yours"; otherwise its price for the catalog's market. The same validated
        part priced the same way is the same object each time (what is worked out per part is kept by identity)."""
        market = "yours" if origin is not None else self.catalog.market
        if market is None:
            return part
        key = (id(part), market)
        known = _PRICED.get(key)
        if known is not None and known[0] is part:
            return known[1]
        priced = part.model_copy(update={"price_market": "yours"}) if market == "yours" else for_market(part, market)
        if len(_PRICED) >= _INLINE_MAX:
            _PRICED.clear()
        _PRICED[key] = (part, priced)  # the part held: its id stays its own while the entry lives
        return priced

    def inline_id(self, kind: str, fields: dict[str, Any], stem: str, loc: tuple[str | int, ...]) -> str:
        """The id an inline part is known by: its own `id`, else `<base>-custom` (`custom-<kind>` without base),
        and `-2`, `-3`… for each further inline part of the kind that differs from those before it, in file
        order; identical inline parts share one id (one row of the parts list)."""
        content = json.dumps({k: v for k, v in fields.items() if k != "id"}, sort_keys=True, default=str)
        own = fields.get("id")
        if isinstance(own, str):
            if self.inline_parts.setdefault((kind, own), content) != content:
                raise self.error(f"another inline {kind} with different fields already has id {own!r}; "
                                 "give each its own id", (*loc, "id"))
            return own
        number = 1
        while True:
            candidate = stem if number == 1 else f"{stem}-{number}"
            if self.inline_parts.setdefault((kind, candidate), content) == content:
                return candidate
            number += 1


#: Inline parts validated so far, by kind and all their fields (id included): each fix re-check resolves the
#: build's inline tables again, and a part is a frozen model, so the one validated object serves them all.
_INLINE: dict[tuple[str, Any], Part] = {}
#: Each of those parts priced for a market (or at the builder's own price), by its identity and the market.
_PRICED: dict[tuple[int, str], tuple[Part, Part]] = {}
_INLINE_MAX = 1024  # emptied when full


def _fields_key(kind: str, fields: dict[str, Any]) -> tuple[str, Any] | None:
    """A key equal for equal fields of equal types (1 and 1.0, a date and its text differ), or None for a value
    that has no such key."""
    def frozen(value: Any) -> Any:
        if isinstance(value, dict):
            return dict, frozenset((k, frozen(v)) for k, v in value.items())
        if isinstance(value, list):
            return list, tuple(frozen(v) for v in value)
        return type(value), value

    key = (kind, frozen(fields))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def without_owned(ref: Any) -> Any:
    """A part reference without its `owned` mark: `{ base = "id", owned = true }` is the catalog part `id` itself."""
    if not isinstance(ref, dict) or "owned" not in ref:
        return ref
    rest = {key: value for key, value in ref.items() if key != "owned"}
    return rest["base"] if set(rest) == {"base"} else rest


def is_owned(ref: Any) -> bool:
    """Whether a part reference (an inline table) is marked `owned = true`."""
    return isinstance(ref, dict) and ref.get("owned") is True


def _derived_reset(kind: str, base: dict[str, Any], written: dict[str, Any]) -> list[str]:
    """The base's fields an inline part drops: those derived from a field it changes (DERIVED_FIELDS), unless
    it writes them too. A price it gives is its own even when it equals the base's: the base's date and source
    go with it (a field it repeats unchanged, such as the base's `psu_bays`, keeps what derives from it)."""
    return [derived for field, value in written.items() if base.get(field) != value or field in DERIVED_FIELDS["*"]
            for derived in derived_from(kind, field) if derived not in written and derived in base]


def _set_too(text: str, base: str, base_data: dict[str, Any], written: dict[str, Any]) -> str:
    """When a rule between fields refuses an inline part, the fields it names that came from the base: the
    builder wrote only some of them, so say which base figures to set as well."""
    import re

    named = [field for field in dict.fromkeys(re.findall(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z]{3,}", text))
             if field in base_data and field not in written]
    if not named:
        return ""
    fields = " and ".join(f"`{field}`" for field in named)
    return f" (the base {base} gives {fields}: set {'it' if len(named) == 1 else 'them'} in the inline table too)"


def _hint(suggestions: list[str]) -> str:
    return f"; did you mean {' or '.join(repr(s) for s in suggestions)}?" if suggestions else ""


def _unknown_chip(r: Resolver, ref: Any, chip: str, suggestions: list[str], index: int) -> InputError:
    """A GPU board's chip that no catalog holds, reported where it is written: the build file's line when the
    build names the chip itself (an inline part), else the catalog entry of the board (or of its base), as
    `planner catalog validate` reports it."""
    if isinstance(ref, dict) and "chip" in ref:
        return r.error(f"unknown gpu-chip id {chip!r}{_hint(suggestions)}", ("gpu", index, "part", "chip"))
    board_id = ref if isinstance(ref, str) else ref.get("base")
    entry = r.catalog.entry("gpu", str(board_id))
    return CatalogError(f"unknown chip {chip!r}{_hint(suggestions)}", file=entry.file, entry=entry.id, field="chip")


def resolve(spec: BuildFile, raw: dict[str, Any], catalog: Catalog, *, label: str, text: str | None = None,
            region: Region | None = None) -> ResolvedBuild:
    """Resolve every part reference of a validated build file."""
    r = Resolver(catalog, label, text)
    case = r.part("case", spec.case, ("case",), Case)
    motherboard = r.part("motherboard", spec.motherboard, ("motherboard",), Motherboard)
    cpu = r.part("cpu", spec.cpu, ("cpu",), Cpu)
    assumptions: list[str] = []

    circuits: list[CircuitUse] = []
    for i, c in enumerate(spec.circuit):
        if any(existing.name == c.name for existing in circuits):
            raise r.error(f"a circuit named {c.name!r} is already defined", ("circuit", i, "name"))
        outlet = r.part("outlet", c.outlet, ("circuit", i, "outlet"), Outlet)
        circuits.append(CircuitUse(c.name, outlet, c.other_load))
    if not circuits:
        from planner.util.config import default_region

        chosen = spec.region or region or default_region() or DEFAULT_REGION
        outlet_id = DEFAULT_OUTLETS[chosen]
        try:
            outlet = catalog.typed("outlet", outlet_id, Outlet)
        except (UnknownPartError, CatalogError) as missing:
            raise InputError(f"the default outlet for region {chosen!r} is unavailable: {missing}",
                             file=label) from None
        circuits.append(CircuitUse("wall", outlet, 0.0, assumed=True))
        assumptions.append(f"no [[circuit]] given: assumed one {outlet.standard} circuit "
                           f"({outlet.voltage:g} V, {outlet.breaker_current:g} A) for region {chosen!r}")

    names = [c.name for c in circuits]
    psus: list[PsuUse] = []
    for i, p in enumerate(spec.psu):
        part = r.part("psu", p.part, ("psu", i, "part"), Psu)
        if p.circuit is None:
            if len(circuits) > 1:
                raise r.error(f"this build has {len(circuits)} circuits ({', '.join(names)}); "
                              "say which one this PSU plugs into", ("psu", i))
            circuit = names[0]
        elif p.circuit not in names:
            raise r.error(f"no circuit named {p.circuit!r}{did_you_mean(p.circuit, names)}"
                          f" (circuits: {', '.join(names)})", ("psu", i, "circuit"))
        else:
            circuit = p.circuit
        psus.append(PsuUse(i, part, circuit))

    slot_names = [s.name for s in motherboard.slots]
    gpus: list[GpuInstance] = []
    for i, g in enumerate(spec.gpu):
        board = r.part("gpu", g.part, ("gpu", i, "part"), GpuBoard)
        try:
            chip = catalog.typed("gpu-chip", board.chip, GpuChip)
        except UnknownPartError as unknown:
            raise _unknown_chip(r, g.part, board.chip, unknown.suggestions, i) from None
        except CatalogError as bad:
            raise r.error(f"the chip's catalog entry is invalid: {bad}", ("gpu", i, "part")) from None
        riser = r.part("riser", g.riser, ("gpu", i, "riser"), Riser) if g.riser is not None else None
        slots = _slots(r, g.slot, g.count, slot_names, i)
        if g.psu is not None and g.psu > len(psus):
            raise r.error(f"psu = {g.psu} but the build has {len(psus)} PSU(s)", ("gpu", i, "psu"))
        for n in range(g.count):
            gpus.append(GpuInstance(
                index=len(gpus), spec_index=i, board=board, chip=chip,
                power_limit=g.power_limit if g.power_limit is not None else board.tdp,
                power_limit_set=g.power_limit is not None, slot=slots[n], riser=riser,
                psu=g.psu - 1 if g.psu is not None else None))

    used = [g.slot for g in gpus if g.slot]
    duplicates = sorted({s for s in used if used.count(s) > 1})
    if duplicates:
        raise r.error(f"slot {duplicates[0]} is given to more than one GPU", ("gpu",))

    return ResolvedBuild(
        name=spec.name or label.rsplit("/", 1)[-1].removesuffix(".toml"), file=label, ambient=spec.ambient,
        workload=spec.workload, case=case, motherboard=motherboard, cpu=cpu, circuits=circuits, psus=psus,
        gpus=gpus, extras=spec.extras, spec=spec, raw=raw, assumptions=assumptions, price_origins=r.price_origins,
        base=base_system(catalog, motherboard, cpu, sum(g.chip.memory for g in gpus), spec.extras.ram_modules,
                         spec.extras.ram_type),
        accessories=_accessories(r, spec))


def _accessories(r: Resolver, spec: BuildFile) -> tuple[tuple[str, Part], ...]:
    """The accessories the build file names, resolved against their kinds' catalogs."""
    from planner.kinds import ACCESSORIES

    found = []
    for kind in ACCESSORIES:
        key = kind.build_key or kind.name
        if (ref := getattr(spec, key, None)) is not None:
            found.append((kind.name, r.part(kind.name, ref, (key,), KIND_MODELS[kind.name])))
    return tuple(found)


def _slots(r: Resolver, slot: str | list[str] | None, count: int, names: list[str], i: int) -> list[str | None]:
    if slot is None:
        return [None] * count
    wanted = [slot] if isinstance(slot, str) else list(slot)
    if len(wanted) != count:
        raise r.error(f"{count} card(s) but {len(wanted)} slot name(s); give one slot per card", ("gpu", i, "slot"))
    for name in wanted:
        if name not in names:
            raise r.error(f"this motherboard has no slot {name!r}{did_you_mean(name, names)}"
                          f" (slots: {', '.join(names)})", ("gpu", i, "slot"))
    return list(wanted)
