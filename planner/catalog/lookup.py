"""Finding parts in the catalogs: by id or alias, by kind, by words; validated on first use, so a run never pays
for parts it does not look at. The files themselves are read by planner/catalog/read.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from planner.catalog import cache, validate
from planner.catalog.prices import DEFAULT_MARKET, Market, for_market
from planner.catalog.read import CatalogFiles, Entry, make_entry, parse_part
from planner.catalog.sources import default_dirs, display_path, origin
from planner.catalog.words import PartWords, suggest_parts
from planner.models.parts import KIND_MODELS, Part
from planner.util.errors import CatalogError, InputError, UnknownPartError

if TYPE_CHECKING:
    from planner.catalog.prices import UserPrice

P = TypeVar("P", bound=Part)


class Catalog(CatalogFiles):
    """Parts by kind and id (or alias), validated on first use; see CatalogFiles for how files are read.

    Every part it gives is priced here, in one place: for the `market` (the new or the used price, or the cheaper:
    planner/catalog/prices.py `for_market`), then with the user's own price where a price file gives one. Every
    reader (checks, totals, the solver, the ranking) reads `part.price` and follows."""

    def __init__(self, dirs: Iterable[Path] | None = None,
                 on_skip: Callable[[CatalogError], None] | None = None, *,
                 market: Market | None = DEFAULT_MARKET) -> None:
        super().__init__(dirs, on_skip)
        self._parsed: dict[tuple[str, str], Part] = {}
        #: The user's prices by id (planner/catalog/prices.py: load_prices), in place of the catalog's.
        self.user_prices: Mapping[str, UserPrice] = {}
        self._market = market
        self._market_from: Callable[[], Market] | None = None  # `defer_market`: asked on first use
        self._aliases: dict[tuple[str, bool], dict[str, list[str]]] = {}
        self._word_index: dict[str, list[PartWords]] = {}

    @property
    def market(self) -> Market | None:
        """Which price parts get (`--market`): "new", "used" or "any" (the cheaper); None: the catalog's new
        price as written, with no market chosen (what `planner catalog list|show` show)."""
        if self._market_from is not None:
            market = self._market_from()  # may raise InputError (a settings file): before anything is priced
            self._market_from = None
            self._market = market
        return self._market

    @market.setter
    def market(self, market: Market | None) -> None:
        self._market_from = None
        if market != self._market:
            self._market = market
            self._parsed.clear()  # parts priced for the market before

    def defer_market(self, market: Callable[[], Market]) -> None:
        """Price for the market `market()` gives, asked when the first part is priced: a settings file that
        names it is read only then, and a problem in it is an error of the build that needed a price."""
        self._parsed.clear()
        self._market_from = market

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
                    return make_entry(kind, part_id, source, display_path(path), validated)
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
                part = cache.construct(KIND_MODELS[kind], entry.validated)
                assert isinstance(part, Part)
                self._parsed[key] = part
            else:
                self._parsed[key] = parse_part(kind, {**entry.data, "id": part_id}, file=entry.file,
                                               entry=part_id)
            if part_id in self.user_prices:
                self._parsed[key] = self.user_prices[part_id].apply(self._parsed[key])
            elif (market := self.market) is not None:
                self._parsed[key] = for_market(self._parsed[key], market)
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
            self._word_index[kind] = [entry.words() for entry in self.entries(kind).values()]
        return self._word_index[kind]

    def origin(self, kind: str, part_id: str) -> str:
        """Where a part comes from, as lists mark it: "curated" (the first catalog directory, normally the
        built-in catalogs: every figure sourced), "imported" (bulk-imported, figures completed by rule) or
        "user" (a --catalog or per-user directory)."""
        return self.origin_of(self.entry(kind, part_id))

    def origin_of(self, entry: Entry) -> str:
        return origin(entry.file, self.dirs)

    def validate(self, only: Path | None = None) -> list[CatalogError]:
        """Every problem in every entry, plus references that do not resolve; with `only`, just the
        entries that come from that directory (checked against everything else). See
        planner/catalog/validate.py."""
        return validate.problems(self, only)


def open_catalog(directories: Sequence[Path] = (), prices: Sequence[Path] | None = None,
                 on_skip: Callable[[CatalogError], None] | None = None,
                 market: Market | None = DEFAULT_MARKET) -> Catalog:
    """The built-in catalogs, each of `directories` (`--catalog`) and the user's, priced for `market`, with the
    user's prices and the `prices` files (`--prices`) when `prices` is given (commands where prices matter);
    InputError for a directory that is not one. What the CLI and the TUI both open."""
    for directory in directories:
        if not directory.is_dir():
            raise InputError("is not a directory (--catalog takes a catalog directory)", file=str(directory))
    catalog = Catalog(default_dirs(list(directories)), on_skip=on_skip, market=market)
    if prices is not None:
        from planner.catalog.prices import load_prices  # only commands where prices matter read them

        load_prices(catalog, prices)
    return catalog
