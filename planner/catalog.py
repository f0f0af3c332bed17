"""The catalog loader: built-in catalogs, then `--catalog DIR`s, then the per-user directory.

Later directories override earlier ones by id. Within a directory, bulk-imported entries
(`imported/<kind file>`) come first and curated entries override them. Files are read lazily (only
the kinds a run touches) and entries are validated on first use, so a run never pays for parts it does
not look at; `validate()` checks everything, including references between entries.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from pydantic import ValidationError

from planner import tomlfile
from planner.errors import CatalogError, UnknownPartError
from planner.models.parts import KIND_FILES, KIND_MODELS, Part
from planner.validation import first_problem, problems

if TYPE_CHECKING:
    from planner.prices import UserPrice

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
        return "/imported/" in f"/{self.file}"

    @property
    def aliases(self) -> list[str]:
        """Other ids the entry answers to."""
        source = self.validated if self.validated is not None else self.data
        aliases = source.get("aliases")
        return [a for a in aliases if isinstance(a, str)] if isinstance(aliases, list) else []

    def __repr__(self) -> str:
        return f"Entry({self.kind!r}, {self.id!r}, file={self.file!r})"


class _CachedEntries(Mapping[str, Any]):
    """The raw tables of a cached catalog file by id. Runs mostly need only the validated data the cache
    holds, so the raw tables (kept for inline parts based on an entry, and for `validate`) are read from
    the cache's second file, or failing that the catalog file itself, when one is first asked for."""

    def __init__(self, ids: list[str], invalid: dict[str, Any], load: Callable[[], dict[str, Any]]) -> None:
        self._ids = dict.fromkeys(ids)
        self._invalid = invalid  # entries that did not validate: their raw tables come with the ids
        self._load = load
        self._all: dict[str, Any] | None = None

    def __getitem__(self, part_id: str) -> Any:
        if part_id in self._invalid:
            return self._invalid[part_id]
        if part_id not in self._ids:
            raise KeyError(part_id)
        if self._all is None:
            self._all = self._load()
        return self._all[part_id]

    def __contains__(self, part_id: object) -> bool:
        return part_id in self._ids

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)


class Catalog:
    """Parts by kind and id, validated on first use.

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
        self._parsed: dict[tuple[str, str], Part] = {}
        self._files: dict[Path, Mapping[str, Any]] = {}
        self._valid: dict[Path, dict[str, Any]] = {}  # validated data of each file's valid entries
        self._texts: dict[Path, str] = {}
        self._kind_files: dict[str, list[Path]] = {}
        self._listings: dict[Path, frozenset[str]] = {}
        self._curated_entries: dict[str, dict[str, Entry]] = {}
        #: The user's prices by id (planner/prices.py: load_prices), in place of the catalog's.
        self.user_prices: Mapping[str, UserPrice] = {}
        self._aliases: dict[tuple[str, bool], dict[str, list[str]]] = {}
        self._word_index: dict[str, list[PartWords]] = {}

    # -- reading ---------------------------------------------------------------------------------
    def files(self, kind: str) -> list[Path]:
        """The files of a kind, in override order."""
        if kind not in self._kind_files:
            name = KIND_FILES[kind]
            found = []
            for directory in self.dirs:
                for folder in (directory / "imported", directory):
                    if name in self._listing(folder) and (folder / name).is_file():
                        found.append(folder / name)
            self._kind_files[kind] = found
        return self._kind_files[kind]

    def _listing(self, folder: Path) -> frozenset[str]:
        """The names in a catalog folder, listed once per run (empty when it does not exist)."""
        if folder not in self._listings:
            try:
                self._listings[folder] = frozenset(os.listdir(folder))
            except OSError:
                self._listings[folder] = frozenset()
        return self._listings[folder]

    def _file(self, path: Path) -> Mapping[str, Any]:
        """A file's entries by id, from the per-user cache when the file has not changed since it was made."""
        if path not in self._files:
            from planner import catalog_cache

            try:
                cached = catalog_cache.cache_path(path)
            except OSError:
                cached = None
            hit = catalog_cache.read(cached) if cached is not None else None
            if cached is not None and hit is not None:
                self._files[path] = _CachedEntries(hit["ids"], hit["invalid"],
                                                   lambda: catalog_cache.read_raw(cached) or read_toml(path))
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
                    catalog_cache.write(cached, raw, valid)
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
                    entry = _entry(kind, part_id, source, label, valid.get(part_id))
                    previous = merged.get(part_id)
                    if previous is not None:
                        entry.overrides = [*previous.overrides, previous.file]
                    merged[part_id] = entry
            self._raw[kind] = merged
        return self._raw[kind]

    def _curated(self, kind: str) -> dict[str, Entry]:
        """Entries of the curated (not bulk-imported) files only, without reading the imported ones."""
        if kind in self._raw:
            return self._raw[kind]
        if kind in self._curated_entries:
            return self._curated_entries[kind]
        merged: dict[str, Entry] = self._curated_entries.setdefault(kind, {})
        for path in self.files(kind):
            if path.parent.name != "imported":
                label = display_path(path)
                source, valid = self._file(path), self._valid.get(path, {})
                merged.update({i: _entry(kind, i, source, label, valid.get(i)) for i in source})
        return merged

    def ids(self, kind: str) -> list[str]:
        return list(self.entries(kind))

    def entry(self, kind: str, part_id: str) -> Entry:
        """The winning raw entry for an id or an alias. Reads files from the highest-priority one down and
        stops at the first that has the id, so a large imported file is only read when the id is not curated;
        aliases are looked up only when no entry has the id."""
        if kind in self._raw:
            if part_id in self._raw[kind]:
                return self._raw[kind][part_id]
        else:
            for path in reversed(self.files(kind)):
                source = self._source(path, part_id)
                if source is not None:
                    validated = self._valid.get(path, {}).get(part_id)
                    return _entry(kind, part_id, source, display_path(path), validated)
        target = self.alias_target(kind, part_id)
        if target is not None:
            return self.entry(kind, target)
        raise UnknownPartError(kind, part_id, self.suggest(kind, part_id))

    def alias_target(self, kind: str, alias: str) -> str | None:
        """The id an alias stands for, or None. Curated aliases are looked up without reading the imported
        files; an alias two entries claim is a CatalogError (`validate()` reports it too)."""
        for curated in (True, False):
            targets = self._alias_index(kind, curated=curated).get(alias)
            if targets:
                if len(targets) > 1:
                    raise CatalogError(f"the alias {alias!r} is claimed by {' and '.join(map(repr, targets))}",
                                       file=self.entries(kind)[targets[-1]].file, entry=targets[-1],
                                       field="aliases")
                return targets[0]
        return None

    def _alias_index(self, kind: str, *, curated: bool) -> dict[str, list[str]]:
        """Alias → the ids that claim it, over the curated (and user) entries or over every entry."""
        key = (kind, curated)
        if key not in self._aliases:
            index: dict[str, list[str]] = {}
            for part_id, entry in (self._curated(kind) if curated else self.entries(kind)).items():
                for alias in entry.aliases:
                    index.setdefault(alias, []).append(part_id)
            self._aliases[key] = index
        return self._aliases[key]

    def holds(self, kind: str, part_id: str) -> bool:
        """Whether a catalog of the kind has the id (a large imported file is searched, not parsed whole)."""
        if kind in self._raw:
            return part_id in self._raw[kind]
        return any(self._source(path, part_id) is not None for path in self.files(kind))

    def curated_ids(self, kind: str) -> list[str]:
        """Ids of the curated (not bulk-imported) entries of a kind."""
        return [i for i, entry in self._curated(kind).items() if not entry.imported]

    def get(self, kind: str, part_id: str) -> Part:
        """The validated part for an id or an alias; UnknownPartError (with suggestions) or CatalogError."""
        key = (kind, part_id)
        if key not in self._parsed:
            self._parsed[key] = self._part(kind, self.entry(kind, part_id))
        return self._parsed[key]

    def _part(self, kind: str, entry: Entry) -> Part:
        """The validated part of an entry (cached by kind and id)."""
        key, part_id = (kind, entry.id), entry.id
        if key not in self._parsed:
            if entry.validated is not None:
                from planner.catalog_cache import construct

                part = construct(KIND_MODELS[kind], entry.validated)
                assert isinstance(part, Part)
                self._parsed[key] = part
            else:
                self._parsed[key] = parse_part(kind, {**entry.data, "id": part_id}, file=entry.file,
                                               entry=part_id)
            if part_id in self.user_prices:
                self._parsed[key] = self.user_prices[part_id].apply(self._parsed[key])
        return self._parsed[key]

    def typed(self, kind: str, part_id: str, model: type[P]) -> P:
        part = self.get(kind, part_id)
        assert isinstance(part, model)
        return part

    def all(self, kind: str, *, curated: bool = False) -> Iterator[Part]:
        """Every valid part of a kind (invalid ones are skipped; `validate()` reports them); with `curated`,
        only hand-curated entries (fully sourced; what fixes suggest)."""
        entries = self.entries(kind) if not curated else self._curated(kind)
        for entry in entries.values():
            if curated and entry.imported:
                continue
            try:
                yield self._part(kind, entry)
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
        """Every kind that holds an id, or else an alias."""
        found = [(kind, self.entries(kind)[part_id]) for kind in KIND_MODELS if part_id in self.entries(kind)]
        if not found:
            found = [(kind, self.entries(kind)[target]) for kind in KIND_MODELS
                     if (target := self.alias_target(kind, part_id)) is not None]
        return found

    def suggest(self, kind: str, word: str, n: int = 3) -> list[str]:
        """Ids of a kind a mistyped or shortened id may mean: see `suggest_parts`."""
        return self.suggest_any(word, [kind], n)

    def suggest_any(self, word: str, kinds: Iterable[str], n: int = 3) -> list[str]:
        """Ids of any of `kinds` a mistyped or shortened id may mean: see `suggest_parts`."""
        pool = [found for kind in kinds for found in self._words(kind)]
        return suggest_parts(word, pool, n)

    def _words(self, kind: str) -> list[PartWords]:
        """Each entry's id and the words it answers to (id, name, maker, aliases), built once per run and
        only when an id is not found."""
        if kind not in self._word_index:
            self._word_index[kind] = [part_words(part_id, entry) for part_id, entry in self.entries(kind).items()]
        return self._word_index[kind]

    def origin(self, kind: str, part_id: str) -> str:
        """Where a part comes from, as lists mark it: "curated" (the first catalog directory, normally the
        built-in catalogs: every figure sourced), "imported" (bulk-imported, figures completed by rule) or
        "user" (a --catalog or per-user directory)."""
        return self.origin_of(self.entry(kind, part_id))

    def origin_of(self, entry: Entry) -> str:
        if entry.imported:
            return "imported"
        if not self.dirs:
            return "user"
        first = self.dirs[0]
        label = "catalogs/" if _inside(first, builtin_dir()) else display_path(first).rstrip("/") + "/"
        return "curated" if entry.file.startswith(label) else "user"

    # -- validation ------------------------------------------------------------------------------
    def validate(self, only: Path | None = None) -> list[CatalogError]:
        """Every problem in every entry, plus references that do not resolve; with `only`, just the
        entries that come from that directory (checked against everything else)."""
        prefix = display_path(only.resolve()).rstrip("/") + "/" if only is not None else ""
        kinds = [k for k in KIND_MODELS if only is None or any(_inside(f, only) for f in self.files(k))]
        errors: list[CatalogError] = []
        for kind in kinds:
            try:
                entries = self.entries(kind)
            except CatalogError as error:
                errors.append(error)
                continue
            for part_id, entry in entries.items():
                if entry.file.startswith(prefix):
                    errors.extend(validate_part(kind, {**entry.data, "id": part_id}, entry.file, part_id))
        errors.extend(e for e in self._reference_problems(set(kinds)) if (e.file or "").startswith(prefix))
        errors.extend(e for e in self.skipped if (e.file or "").startswith(prefix))
        errors.extend(e for e in self._alias_problems(kinds) if (e.file or "").startswith(prefix))
        return errors

    def _alias_problems(self, kinds: list[str]) -> list[CatalogError]:
        """Aliases that cannot resolve to one entry: another entry's id, or claimed by two entries."""
        errors: list[CatalogError] = []
        for kind in kinds:
            try:
                entries = self.entries(kind)
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

    def _reference_problems(self, kinds: set[str]) -> list[CatalogError]:
        """References between entries: each board's chip exists; each motherboard's socket has a CPU; each
        case or board a riser is validated with exists."""
        errors: list[CatalogError] = []
        try:
            if "gpu" in kinds:
                chips = self.entries("gpu-chip")
                for part_id, entry in self.entries("gpu").items():
                    chip = entry.data.get("chip")
                    if isinstance(chip, str) and chip not in chips:
                        errors.append(CatalogError(f"unknown chip {chip!r}{did_you_mean(chip, chips)}",
                                                   file=entry.file, entry=part_id, field="chip"))
            if "motherboard" in kinds:
                cpus = self.entries("cpu").values()
                sockets = sorted({s for e in cpus if isinstance(s := e.data.get("socket"), str)})
                for part_id, entry in self.entries("motherboard").items():
                    socket = entry.data.get("socket")
                    if isinstance(socket, str) and socket not in sockets:
                        errors.append(CatalogError(
                            f"no CPU in the catalogs has socket {socket!r}{did_you_mean(socket, sockets)}",
                            file=entry.file, entry=part_id, field="socket"))
            if "riser" in kinds:
                known = {*self.entries("case"), *self.entries("motherboard")}
                for part_id, entry in self.entries("riser").items():
                    pairs = entry.data.get("validated_with")
                    for other in pairs if isinstance(pairs, list) else []:
                        if isinstance(other, str) and other not in known:
                            errors.append(CatalogError(
                                f"no case or motherboard {other!r} in the catalogs{did_you_mean(other, known)}",
                                file=entry.file, entry=part_id, field="validated_with"))
        except CatalogError:
            pass  # an unreadable file is reported by the entry pass
        return errors


def _inside(path: Path, directory: Path) -> bool:
    return path.resolve().is_relative_to(directory.resolve())


def _entry(kind: str, part_id: str, source: Mapping[str, Any], label: str,
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
    """Parse one catalog file (planner/tomlfile.py); any problem becomes a CatalogError, with the line when
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


def suggest(word: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """Close spellings (difflib), then names that contain the word (`ram` → `ram_modules`)."""
    import difflib  # only on the error path

    pool = list(candidates)
    close = difflib.get_close_matches(word, pool, n=n, cutoff=0.6)
    if len(word) >= 3:
        close += [c for c in pool if word.lower() in c.lower() and c not in close]
    return close[:n]


class PartWords(NamedTuple):
    """What a part answers to in "did you mean": its id and, lowercase, the words of its id, name, maker and
    aliases."""

    id: str
    spaced: str  # " nvidia rtx 4090 fe nvidia geforce rtx 4090 founders edition nvidia ": a word is " w "
    joined: str  # the same run together ("…rtx4090fe…"), for "RTX4090"
    imported: bool


#: Punctuation (ASCII and what product names use) read as a space between words.
_SPACES = str.maketrans({c: " " for c in "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~™®©–—‘’“”…·×"})
_WORD = re.compile(r"[a-z0-9]+")
_WITH_UNIT = re.compile(r"(\d+)(w|kw|gb|g|mm|a|v)")  # "1600w" also means the word "1600"


def part_words(part_id: str, entry: Entry) -> PartWords:
    source = entry.validated if entry.validated is not None else entry.data
    aliases = " ".join(entry.aliases) if "aliases" in source else ""
    text = f"{part_id} {source.get('name', '')} {source.get('maker', '')} {aliases}".lower().translate(_SPACES)
    return PartWords(part_id, f" {' '.join(text.split())} ", text.replace(" ", ""), entry.imported)


def suggest_parts(word: str, pool: Iterable[PartWords], n: int = 3) -> list[str]:
    """Ids a mistyped or shortened id may mean. First the parts whose id, name, maker or aliases hold every word
    of it — as a word, or run together with others when it has 4 characters or more ("asus-wrx80e" → the
    WRX80E boards, "RTX 4090" and "rtx4090" → RTX 4090 boards) — curated first, then those with the fewest
    other words in their id; else close spellings of the id (difflib) among the parts holding the most of its
    words. Only substring tests run over the catalog's thousands of parts, so a suggestion takes milliseconds."""
    wanted = _WORD.findall(word.lower())
    if not wanted:
        return []
    padded = [f" {w} " for w in wanted]
    long = [len(w) >= 4 for w in wanted]
    bare = [f" {m.group(1)} " if (m := _WITH_UNIT.fullmatch(w)) else p for w, p in zip(wanted, padded, strict=True)]

    def held(part: PartWords) -> int:
        return sum(1 for w, p, b, ok in zip(wanted, padded, bare, long, strict=True)
                   if p in part.spaced or b in part.spaced or (ok and w in part.joined))

    scored = [(held(part), part) for part in pool if any(w in part.joined for w in wanted)]
    hits = sorted((part.imported, -sum(p in part.spaced for p in padded), part.id.count("-"), part.id)
                  for score, part in scored if score == len(wanted))
    if hits:
        return [part_id for *_, part_id in hits[:n]]
    best = max((score for score, _ in scored), default=0)
    closest = sorted((part.imported, part.id) for score, part in scored if score == best and best > 0)
    return suggest(word, [part_id for _, part_id in closest[:SUGGEST_POOL]], n)


#: The most parts difflib compares a mistyped id with (each comparison costs ~10 µs).
SUGGEST_POOL = 400


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    close = suggest(word, candidates)
    return f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""


@cache
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
