"""The catalogs of parts: where they come from, reading them, finding parts in them, checking them whole.

Modules, each importing only those above it in this list (tests/unit/catalog/test_catalog_package.py holds them to it):

* `words`: did-you-mean over names and part words (plain Python);
* `sources`: the catalog directories and their override order, file names as users know them;
* `cache`: the per-user cache of validated catalog files;
* `read`: reading files into raw entries (`Entry`, `CatalogFiles`), parsing and validating one entry;
* `validate`: every problem of every entry, aliases and references (`planner catalog validate`);
* `prices`: the user's price file, whose prices replace the catalog's (checked against a catalog it is given);
* `lookup`: `Catalog`, the parts by kind and id or alias (with the user's prices), search and suggestions.

The public names below are loaded from their module on first use, so that importing a light module (`words`,
`sources`, `prices`) does not load pydantic and the part models.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from planner.catalog.lookup import Catalog as Catalog
    from planner.catalog.lookup import open_catalog as open_catalog
    from planner.catalog.read import CatalogFiles as CatalogFiles
    from planner.catalog.read import Entry as Entry
    from planner.catalog.read import parse_part as parse_part
    from planner.catalog.read import read_toml as read_toml
    from planner.catalog.read import validate_part as validate_part
    from planner.catalog.sources import USER_DIR_ENV as USER_DIR_ENV
    from planner.catalog.sources import builtin_dir as builtin_dir
    from planner.catalog.sources import default_dirs as default_dirs
    from planner.catalog.sources import display_path as display_path
    from planner.catalog.sources import user_dir as user_dir
    from planner.catalog.words import SUGGEST_POOL as SUGGEST_POOL
    from planner.catalog.words import PartWords as PartWords
    from planner.catalog.words import did_you_mean as did_you_mean
    from planner.catalog.words import suggest as suggest
    from planner.catalog.words import suggest_parts as suggest_parts

#: Each public name and the module that defines it.
_HOMES = {
    "Catalog": "lookup", "open_catalog": "lookup",
    "CatalogFiles": "read", "Entry": "read", "parse_part": "read", "read_toml": "read", "validate_part": "read",
    "USER_DIR_ENV": "sources", "builtin_dir": "sources", "default_dirs": "sources", "display_path": "sources",
    "user_dir": "sources",
    "SUGGEST_POOL": "words", "PartWords": "words", "did_you_mean": "words", "suggest": "words",
    "suggest_parts": "words",
}

__all__ = sorted(_HOMES)

if not TYPE_CHECKING:  # mypy reads the imports above; a name missing from them is an error it reports

    def __getattr__(name: str) -> object:
        home = _HOMES.get(name)
        if home is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
        globals()[name] = value  # later look-ups find it without this function
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *_HOMES})
