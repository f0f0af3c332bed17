"""Checking the catalogs whole (`planner catalog validate`): every problem of every entry, aliases that cannot
resolve to one entry, and references between entries that do not resolve.

A run validates only the entries it uses (planner/catalog/lookup.py); this reads every file of every kind.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from planner.catalog.read import CatalogFiles, validate_part
from planner.catalog.sources import display_path, inside, listing
from planner.catalog.words import did_you_mean
from planner.kinds import KIND_FILES
from planner.models.parts import KIND_MODELS
from planner.util.errors import CatalogError


class Survey(NamedTuple):
    """What a catalog directory holds, as `catalog validate` reads it."""

    read: dict[str, list[str]]  # the files read, by kind
    unread: list[str]  # warnings: files it does not recognise, so never read (with a did-you-mean for the kind)
    refused: list[CatalogError]  # a catalog file's name on something that is not a regular file


_KIND_OF = {name: kind for kind, name in KIND_FILES.items()}


def survey(directory: Path) -> Survey:
    """The files of a catalog directory (and of its `imported/`): those read by kind, those a catalog run never
    reads because no kind has their name (`gpu.toml`), and the catalog names on a directory or device."""
    read: dict[str, list[str]] = {}
    unread: list[str] = []
    refused: list[CatalogError] = []
    for folder in (directory, directory / "imported"):
        for name in sorted(listing(folder)):
            path = folder / name
            label = display_path(path)
            kind = _KIND_OF.get(name)
            if kind is not None:
                if path.is_file():
                    read.setdefault(kind, []).append(label)
                else:
                    what = "a directory" if path.is_dir() else "not a regular file"
                    refused.append(CatalogError(f"is {what}, not read: the {kind} catalog must be a TOML file",
                                                file=label))
            elif folder == directory and name == "imported" and path.is_dir():
                continue
            elif name.endswith(".toml") or _close(name):
                unread.append(f"{label}: not a catalog file name, so it was not read"
                              + (f"; did you mean {_close(name)[0]}?" if _close(name) else
                                 f" (catalog files: {', '.join(KIND_FILES.values())})"))
    return Survey(read, unread, refused)


def _close(name: str) -> list[str]:
    """Catalog file names close to `name`, with their kind: "gpus.toml (gpu)"."""
    import difflib

    return [f"{match} (kind {_KIND_OF[match]})" for match in difflib.get_close_matches(name, list(_KIND_OF), n=1,
                                                                                      cutoff=0.75)]


def problems(catalog: CatalogFiles, only: Path | None = None) -> list[CatalogError]:
    """Every problem in every entry, plus references that do not resolve; with `only`, just the
    entries that come from that directory (checked against everything else)."""
    prefix = display_path(only.resolve()).rstrip("/") + "/" if only is not None else ""
    kinds = [k for k in KIND_MODELS if only is None or any(inside(f, only) for f in catalog.files(k))]
    errors: list[CatalogError] = []
    for kind in kinds:
        try:
            entries = catalog.entries(kind)
        except CatalogError as error:
            errors.append(error)
            continue
        for part_id, entry in entries.items():
            if entry.file.startswith(prefix):
                errors.extend(validate_part(kind, {**entry.data, "id": part_id}, entry.file, part_id))
    errors.extend(e for e in reference_problems(catalog, set(kinds)) if (e.file or "").startswith(prefix))
    errors.extend(e for e in catalog.skipped if (e.file or "").startswith(prefix))
    errors.extend(e for e in alias_problems(catalog, kinds) if (e.file or "").startswith(prefix))
    return errors


def alias_problems(catalog: CatalogFiles, kinds: list[str]) -> list[CatalogError]:
    """Aliases that cannot resolve to one entry: another entry's id, or claimed by two entries."""
    errors: list[CatalogError] = []
    for kind in kinds:
        try:
            entries = catalog.entries(kind)
        except CatalogError:
            continue  # reported by the entry pass
        claimed: dict[str, str] = {}
        for part_id, entry in entries.items():
            for alias in entry.aliases:
                if alias in entries and alias != part_id:
                    errors.append(CatalogError(f"the alias {alias!r} is the id of another {kind} entry",
                                               file=entry.file, entry=part_id, field="aliases"))
                elif alias in claimed:
                    errors.append(CatalogError(f"the alias {alias!r} is already an alias of {claimed[alias]!r}",
                                               file=entry.file, entry=part_id, field="aliases"))
                else:
                    claimed[alias] = part_id
    return errors


def reference_problems(catalog: CatalogFiles, kinds: set[str]) -> list[CatalogError]:
    """References between entries: each board's chip exists; each motherboard's socket has a CPU; each
    case or board a riser is validated with exists."""
    errors: list[CatalogError] = []
    try:
        if "gpu" in kinds:
            chips = catalog.entries("gpu-chip")
            for part_id, entry in catalog.entries("gpu").items():
                chip = entry.data.get("chip")
                if isinstance(chip, str) and chip not in chips:
                    errors.append(CatalogError(f"unknown chip {chip!r}{did_you_mean(chip, chips)}",
                                               file=entry.file, entry=part_id, field="chip"))
        if "motherboard" in kinds:
            cpus = catalog.entries("cpu").values()
            sockets = sorted({s for e in cpus if isinstance(s := e.data.get("socket"), str)})
            for part_id, entry in catalog.entries("motherboard").items():
                socket = entry.data.get("socket")
                if isinstance(socket, str) and socket not in sockets:
                    errors.append(CatalogError(
                        f"no CPU in the catalogs has socket {socket!r}{did_you_mean(socket, sockets)}",
                        file=entry.file, entry=part_id, field="socket"))
        if "riser" in kinds:
            known = {*catalog.entries("case"), *catalog.entries("motherboard")}
            for part_id, entry in catalog.entries("riser").items():
                pairs = entry.data.get("validated_with")
                for other in pairs if isinstance(pairs, list) else []:
                    if isinstance(other, str) and other not in known:
                        errors.append(CatalogError(
                            f"no case or motherboard {other!r} in the catalogs{did_you_mean(other, sorted(known))}",
                            file=entry.file, entry=part_id, field="validated_with"))
    except CatalogError:
        pass  # an unreadable file is reported by the entry pass
    return errors
