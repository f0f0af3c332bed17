"""The catalog loader: built-in catalogs, then `--catalog DIR`s, then the per-user directory.

Later directories override earlier ones by id. Within a directory, bulk-imported entries
(`imported/<kind file>`) come first and curated entries override them. Files are read lazily (only
the kinds a run touches) and entries are validated on first use, so a run never pays for parts it does
not look at; `validate()` checks everything, including references between entries.
"""

from __future__ import annotations

import difflib
import os
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from planner.errors import CatalogError, UnknownPartError
from planner.models.parts import KIND_FILES, KIND_MODELS, Part
from planner.validation import first_problem, problems

P = TypeVar("P", bound=Part)

USER_DIR_ENV = "PLANNER_USER_CATALOG"


def builtin_dir() -> Path:
    """The catalogs shipped with the package (inside the wheel) or, in a source tree, `catalogs/`."""
    here = Path(__file__).resolve().parent
    packaged = here / "_catalogs"
    return packaged if packaged.is_dir() else here.parent / "catalogs"


def user_dir() -> Path:
    """The per-user catalog directory (`$PLANNER_USER_CATALOG` overrides the platform default)."""
    env = os.environ.get(USER_DIR_ENV)
    if env is not None:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_data_dir("gpu-rig-planner")) / "catalogs"


def default_dirs(extra: Iterable[Path] = ()) -> list[Path]:
    """Search order, earliest first: built-in, each `--catalog DIR`, the per-user directory."""
    return [builtin_dir(), *extra, user_dir()]


@dataclass
class Entry:
    """One raw catalog entry and where it came from."""

    kind: str
    id: str
    data: dict[str, Any]
    file: str
    overrides: list[str] = field(default_factory=list)  # files whose entry with this id it replaced


class Catalog:
    """Parts by kind and id, validated on first use."""

    def __init__(self, dirs: Iterable[Path] | None = None) -> None:
        self.dirs = list(dirs) if dirs is not None else default_dirs()
        self._raw: dict[str, dict[str, Entry]] = {}
        self._parsed: dict[tuple[str, str], Part] = {}
        self._files: dict[Path, dict[str, Any]] = {}

    # -- reading ---------------------------------------------------------------------------------
    def files(self, kind: str) -> list[Path]:
        """The files of a kind, in override order."""
        name = KIND_FILES[kind]
        found = []
        for directory in self.dirs:
            for candidate in (directory / "imported" / name, directory / name):
                if candidate.is_file():
                    found.append(candidate)
        return found

    def _file(self, path: Path) -> dict[str, Any]:
        if path not in self._files:
            self._files[path] = read_toml(path)
        return self._files[path]

    def entries(self, kind: str) -> dict[str, Entry]:
        """Raw entries of a kind, by id, after overrides (reads every file of the kind)."""
        if kind not in self._raw:
            merged: dict[str, Entry] = {}
            for path in self.files(kind):
                label = display_path(path)
                for part_id, data in self._file(path).items():
                    entry = _entry(kind, part_id, data, label)
                    previous = merged.get(part_id)
                    if previous is not None:
                        entry.overrides = [*previous.overrides, previous.file]
                    merged[part_id] = entry
            self._raw[kind] = merged
        return self._raw[kind]

    def ids(self, kind: str) -> list[str]:
        return list(self.entries(kind))

    def entry(self, kind: str, part_id: str) -> Entry:
        """The winning raw entry for an id. Reads files from the highest-priority one down and stops at
        the first that has the id, so a large imported file is only read when the id is not curated."""
        if kind in self._raw:
            if part_id in self._raw[kind]:
                return self._raw[kind][part_id]
        else:
            for path in reversed(self.files(kind)):
                data = self._file(path)
                if part_id in data:
                    return _entry(kind, part_id, data[part_id], display_path(path))
        raise UnknownPartError(kind, part_id, suggest(part_id, self.entries(kind)))

    def get(self, kind: str, part_id: str) -> Part:
        """The validated part; UnknownPartError (with suggestions) or CatalogError."""
        key = (kind, part_id)
        if key not in self._parsed:
            entry = self.entry(kind, part_id)
            self._parsed[key] = parse_part(kind, {**entry.data, "id": part_id}, file=entry.file,
                                           entry=part_id)
        return self._parsed[key]

    def typed(self, kind: str, part_id: str, model: type[P]) -> P:
        part = self.get(kind, part_id)
        assert isinstance(part, model)
        return part

    def all(self, kind: str) -> Iterator[Part]:
        """Every valid part of a kind (invalid ones are skipped; `validate()` reports them)."""
        for part_id in self.entries(kind):
            try:
                yield self.get(kind, part_id)
            except CatalogError:
                continue

    def search(self, text: str, kinds: Iterable[str] | None = None) -> Iterator[tuple[str, Part]]:
        """Parts whose id or name contains every word of `text` (case-insensitive)."""
        words = text.lower().split()
        for kind in kinds or KIND_MODELS:
            for part in self.all(kind):
                haystack = f"{part.id} {part.name} {part.maker}".lower()
                if all(w in haystack for w in words):
                    yield kind, part

    def find(self, part_id: str) -> list[tuple[str, Entry]]:
        """Every kind that holds an id."""
        return [(kind, self.entries(kind)[part_id]) for kind in KIND_MODELS if part_id in self.entries(kind)]

    # -- validation ------------------------------------------------------------------------------
    def validate(self) -> list[CatalogError]:
        """Every problem in every entry, plus references that do not resolve."""
        errors: list[CatalogError] = []
        for kind in KIND_MODELS:
            try:
                entries = self.entries(kind)
            except CatalogError as error:
                errors.append(error)
                continue
            for part_id, entry in entries.items():
                errors.extend(validate_part(kind, {**entry.data, "id": part_id}, entry.file, part_id))
        errors.extend(self._reference_problems())
        return errors

    def _reference_problems(self) -> list[CatalogError]:
        errors: list[CatalogError] = []
        try:
            chips = self.entries("gpu-chip")
            boards = self.entries("gpu")
        except CatalogError:
            return errors
        for part_id, entry in boards.items():
            chip = entry.data.get("chip")
            if isinstance(chip, str) and chip not in chips:
                errors.append(CatalogError(f"unknown chip {chip!r}{did_you_mean(chip, chips)}",
                                           file=entry.file, entry=part_id, field="chip"))
        return errors


def _entry(kind: str, part_id: str, data: Any, label: str) -> Entry:
    if not isinstance(data, dict):
        raise CatalogError("each entry must be a table [id] with fields", file=label, entry=part_id)
    return Entry(kind, part_id, data, label)


def read_toml(path: Path) -> dict[str, Any]:
    """Parse one catalog file; a syntax error becomes a CatalogError with the line."""
    label = display_path(path)
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as error:
        raise CatalogError(f"not valid TOML: {error}", file=label) from None
    except OSError as error:
        raise CatalogError(f"cannot read: {error.strerror}", file=label) from None


def parse_part(kind: str, data: dict[str, Any], *, file: str, entry: str) -> Part:
    """Validate one entry; the first problem becomes a CatalogError naming file, entry and field."""
    try:
        return KIND_MODELS[kind].model_validate(data)
    except ValidationError as error:
        location, message = first_problem(error)
        raise CatalogError(message, file=file, entry=entry, field=location or None) from None


def validate_part(kind: str, data: dict[str, Any], file: str, entry: str) -> list[CatalogError]:
    """Every problem of one entry (for `planner catalog validate`)."""
    try:
        KIND_MODELS[kind].model_validate(data)
    except ValidationError as error:
        return [CatalogError(message, file=file, entry=entry, field=location or None)
                for location, message in problems(error)]
    return []


def suggest(word: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """Close spellings (difflib), then names that contain the word (`ram` → `ram_modules`)."""
    pool = list(candidates)
    close = difflib.get_close_matches(word, pool, n=n, cutoff=0.6)
    if len(word) >= 3:
        close += [c for c in pool if word.lower() in c.lower() and c not in close]
    return close[:n]


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    close = suggest(word, candidates)
    return f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""


def display_path(path: Path) -> str:
    """A path as users know it: `catalogs/gpus.toml` for built-in files, else as given/relative."""
    builtin = builtin_dir()
    try:
        return "catalogs/" + path.resolve().relative_to(builtin.resolve()).as_posix()
    except ValueError:
        pass
    try:
        return path.resolve().relative_to(Path.cwd()).as_posix()
    except ValueError:
        return str(path)
