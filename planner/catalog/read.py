"""Reading catalog files: lazily (only the kinds a run touches), from the per-user cache when a file has not
changed (planner/catalog/cache.py), one line at a time for a large bulk-imported file, and merged in override
order (planner/catalog/sources.py) into raw entries; plus parsing and validating one entry.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar, cast

from pydantic_core import ValidationError

from planner.catalog import cache
from planner.catalog.sources import default_dirs, display_path, is_imported, listing, override_order, user_dir
from planner.catalog.words import PartWords, part_words
from planner.models.parts import KIND_FILES, KIND_MODELS, Part
from planner.util import tomlfile
from planner.util.errors import CatalogError
from planner.util.validation import first_problem, problems

T = TypeVar("T")


class Entry:
    """One raw catalog entry and where it came from."""

    __slots__ = ("_data", "_source", "file", "id", "kind", "overrides", "validated")

    def __init__(self, kind: str, part_id: str, source: Mapping[str, Any], file: str,
                 validated: dict[str, Any] | None = None) -> None:
        self.kind = kind
        self.id = part_id
        self._source = source  # the entries of its file; its own raw table is read from it on first use
        self._data: dict[str, Any] | None = None
        self.file = file
        self.overrides: list[str] = []  # files whose entry with this id it replaced
        self.validated = validated  # canonical data from the cache, when it validated before

    @property
    def data(self) -> dict[str, Any]:
        """The entry's table as written in its catalog file."""
        if self._data is None:
            self._data = self._source[self.id]
        return self._data

    @property
    def imported(self) -> bool:
        """Bulk-imported (catalogs/imported/…) rather than curated."""
        return is_imported(self.file)

    @property
    def aliases(self) -> list[str]:
        """Other ids the entry answers to."""
        source = self.validated if self.validated is not None else self.data
        aliases = source.get("aliases")
        return [a for a in aliases if isinstance(a, str)] if isinstance(aliases, list) else []

    def words(self) -> PartWords:
        """What the entry answers to in "did you mean": its id, name, maker and aliases."""
        fields = self.validated if self.validated is not None else self.data
        return part_words(self.id, fields, self.aliases if "aliases" in fields else (), self.imported)

    def __repr__(self) -> str:
        return f"Entry({self.kind!r}, {self.id!r}, file={self.file!r})"


class CatalogFiles:
    """The catalog files of some directories, each read at most once, and their raw entries by kind.

    A file in the per-user directory that cannot be read or parsed is skipped, not fatal: a broken file
    there would otherwise break every command. It is kept in `skipped` (and reported by `validate()`), and
    `on_skip` is called with it when it is found; a broken built-in or `--catalog` file is an error.
    """

    def __init__(self, dirs: Iterable[Path] | None = None,
                 on_skip: Callable[[CatalogError], None] | None = None) -> None:
        self.dirs = list(dirs) if dirs is not None else default_dirs()
        self.skipped: list[CatalogError] = []
        self._on_skip = on_skip
        self._user_dir = user_dir()
        self._raw: dict[str, dict[str, Entry]] = {}
        self._files: dict[Path, Mapping[str, Any]] = {}
        self._valid: dict[Path, dict[str, Any]] = {}  # validated data of each file's valid entries
        self._texts: dict[Path, str] = {}
        self._kind_files: dict[str, list[Path]] = {}
        self._listings: dict[Path, frozenset[str]] = {}
        self._curated_entries: dict[str, dict[str, Entry]] = {}  # read from the curated files alone
        self._curated_read: dict[str, dict[str, Entry]] = {}  # taken from `entries()`
        self._derived: dict[Hashable, Any] = {}  # see `derived`

    def files(self, kind: str) -> list[Path]:
        """The files of a kind, in override order."""
        if kind not in self._kind_files:
            self._kind_files[kind] = override_order(self.dirs, KIND_FILES[kind], self._listing)
        return self._kind_files[kind]

    def _listing(self, folder: Path) -> frozenset[str]:
        """The names in a catalog folder, listed once per run (empty when it does not exist)."""
        if folder not in self._listings:
            self._listings[folder] = listing(folder)
        return self._listings[folder]

    def _file(self, path: Path) -> Mapping[str, Any]:
        """A file's entries by id, from the per-user cache when the file has not changed since it was made."""
        if path not in self._files:
            try:
                cached = cache.cache_path(path)
            except OSError:
                cached = None
            hit = cache.read(cached) if cached is not None else None
            if cached is not None and hit is not None:
                self._files[path] = cache.CachedEntries(hit["ids"], hit["invalid"],
                                                   lambda: cache.read_raw(cached) or read_toml(path))
                self._valid[path] = hit["valid"]
            else:
                try:
                    raw = read_toml(path)
                except CatalogError as problem:
                    self._skip(path, problem)
                    self._files[path], self._valid[path] = {}, {}
                    return self._files[path]
                valid = _validated(path, raw)
                self._files[path], self._valid[path] = raw, valid
                if cached is not None:
                    cache.write(cached, raw, valid)
        return self._files[path]

    def _source(self, path: Path, part_id: str) -> Mapping[str, Any] | None:
        """Entries of a file that include `part_id`, or None. Bulk-imported files (thousands of entries, each
        on one line `id = { … }` as tools/import_buildcores.py writes them) are not parsed whole for one id:
        the entry's line is found and parsed alone, which keeps a cold `planner check` fast."""
        if path in self._files or path.parent.name != "imported":
            entries = self._file(path)
            return entries if part_id in entries else None
        text = self._texts.get(path)
        if text is None:
            try:
                text = self._texts[path] = "\n" + _read_text(path)
            except CatalogError as problem:
                self._skip(path, problem)
                self._files[path], self._valid[path] = {}, {}
                return None
        start = text.find(f"\n{part_id} = {{")
        if start >= 0 and _defined_again(text, part_id):
            start = -1  # the id is defined twice (invalid TOML): parse it all, so its error is the file's
        if start >= 0:
            end = text.find("\n", start + 1)
            try:
                found = tomlfile.loads(text[start:end if end >= 0 else len(text)], "").get(part_id)
            except CatalogError:
                found = None  # parsed whole below, which reports the problem with its line
            if found is not None:
                return {part_id: found}
        if part_id not in text:
            return None
        entries = self._file(path)  # not in the importer's one-line layout: parse it all
        return entries if part_id in entries else None

    def _skip(self, path: Path, problem: CatalogError) -> None:
        """Skip an unreadable file of the per-user directory (re-raise the problem for any other file)."""
        if path.parent not in (self._user_dir, self._user_dir / "imported"):
            raise problem
        self.skipped.append(problem)
        if self._on_skip is not None:
            self._on_skip(problem)

    def entries(self, kind: str) -> dict[str, Entry]:
        """Raw entries of a kind, by id, after overrides (reads every file of the kind)."""
        if kind not in self._raw:
            merged: dict[str, Entry] = {}
            for path in self.files(kind):
                label = display_path(path)
                source, valid = self._file(path), self._valid.get(path, {})
                for part_id in source:
                    entry = make_entry(kind, part_id, source, label, valid.get(part_id))
                    previous = merged.get(part_id)
                    if previous is not None:
                        entry.overrides = [*previous.overrides, previous.file]
                    merged[part_id] = entry
            self._raw[kind] = merged
            self._derived.clear()  # the curated entries of the kind are now taken from these
        return self._raw[kind]

    def derived(self, key: Hashable, compute: Callable[[], T]) -> T:
        """`compute()`, a value worked out from this catalog's parts alone (a ranking of its curated PSUs…),
        once per catalog and `key`; computed again after a kind is read whole, which may change its curated
        entries."""
        if key not in self._derived:
            self._derived[key] = compute()
        return cast(T, self._derived[key])

    def _curated(self, kind: str) -> dict[str, Entry]:
        """The curated (not bulk-imported) entries of a kind, by id, after overrides: those of `entries()`
        once the kind was read whole, else read from the curated files alone (the imported files, which hold
        thousands of entries, are not read)."""
        if kind in self._raw:
            if kind not in self._curated_read:  # the winning entries, in the curated files' order (as below)
                ids = dict.fromkeys(i for path in self._curated_files(kind) for i in self._file(path))
                self._curated_read[kind] = {i: entry for i in ids if not (entry := self._raw[kind][i]).imported}
            return self._curated_read[kind]
        if kind in self._curated_entries:
            return self._curated_entries[kind]
        merged: dict[str, Entry] = self._curated_entries.setdefault(kind, {})
        for path in self._curated_files(kind):
            label = display_path(path)
            source, valid = self._file(path), self._valid.get(path, {})
            merged.update({i: make_entry(kind, i, source, label, valid.get(i)) for i in source})
        return merged

    def _curated_files(self, kind: str) -> list[Path]:
        """The kind's files of curated (not bulk-imported) entries, lowest priority first."""
        return [path for path in self.files(kind) if path.parent.name != "imported"]

def make_entry(kind: str, part_id: str, source: Mapping[str, Any], label: str,
               validated: dict[str, Any] | None = None) -> Entry:
    """The entry `part_id` of a file's entries (`source`); one that validated before is a table."""
    if validated is None and not isinstance(source[part_id], dict):
        raise CatalogError("each entry must be a table [id] with fields", file=label, entry=part_id)
    return Entry(kind, part_id, source, label, validated=validated)


_KIND_OF_FILE = {name: kind for kind, name in KIND_FILES.items()}


def _validated(path: Path, raw: dict[str, Any]) -> dict[str, Any]:
    """The canonical data of every entry of a file that validates (what the cache keeps)."""
    kind = _KIND_OF_FILE.get(path.name)
    if kind is None:
        return {}
    model = KIND_MODELS[kind]
    valid = {}
    for part_id, data in raw.items():
        if not isinstance(data, dict):
            continue
        try:
            valid[part_id] = model.model_validate({**data, "id": part_id}).model_dump(mode="json")
        except ValidationError:
            continue
    return valid


def _defined_again(text: str, part_id: str) -> bool:
    """Whether a catalog file's text defines `part_id` at the start of more than one line (as `id = …`,
    `id.field = …`, `[id]`, `[id.…]`, quoted or not): that makes the whole file invalid TOML, so the one-line
    fast path must not pick either definition. ~0.5 ms for a 1 MB file whose text names the id once."""
    if text.count(part_id) < 2:
        return False
    key = re.compile(r"\n\[?[\"']?" + re.escape(part_id) + r"[\"']?\s*[=.\]]")
    return len(key.findall(text)) > 1


def _read_text(path: Path) -> str:
    return tomlfile.read_text(path, CatalogError, label=display_path(path), what="a TOML catalog file")


def read_toml(path: Path) -> dict[str, Any]:
    """Parse one catalog file (planner/util/tomlfile.py); any problem becomes a CatalogError, with the line when
    it is known."""
    return tomlfile.loads(_read_text(path), display_path(path), CatalogError)


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
