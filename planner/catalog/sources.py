"""Where catalogs come from, in what order they override each other, and how their files are named to users.

The built-in catalogs come first, then each `--catalog DIR`, then the per-user directory: a later directory
overrides an earlier one by id. Within a directory, bulk-imported entries (`imported/<kind file>`) come first
and curated entries override them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from pathlib import Path

USER_DIR_ENV = "PLANNER_USER_CATALOG"


def builtin_dir() -> Path:
    """The catalogs shipped with the package (inside the wheel) or, in a source tree, `catalogs/`."""
    package = Path(__file__).resolve().parent.parent  # planner/
    packaged = package / "_catalogs"
    return packaged if packaged.is_dir() else package.parent / "catalogs"


def user_dir() -> Path:
    """The per-user catalog directory (`$PLANNER_USER_CATALOG` overrides the platform default)."""
    env = os.environ.get(USER_DIR_ENV)
    if env is not None:
        return Path(env)
    import platformdirs  # only when the variable is unset: start-up time

    return Path(platformdirs.user_data_dir("gpu-rig-planner")) / "catalogs"


def default_dirs(extra: Iterable[Path] = ()) -> list[Path]:
    """Search order, earliest first: built-in, each `--catalog DIR`, the per-user directory."""
    return [builtin_dir(), *extra, user_dir()]


def override_order(dirs: Iterable[Path], file_name: str, listing: Callable[[Path], frozenset[str]]) -> list[Path]:
    """The catalog files called `file_name` in `dirs`, earliest (overridden) first: in each directory its
    `imported/` file, then its own. `listing` gives the names in a folder (empty when there is none)."""
    found = []
    for directory in dirs:
        for folder in (directory / "imported", directory):
            # anything but a directory: a FIFO or a device named like a catalog file is refused when read,
            # with a sentence naming it, rather than skipped without a word
            if file_name in listing(folder) and not (folder / file_name).is_dir():
                found.append(folder / file_name)
    return found


def listing(folder: Path) -> frozenset[str]:
    """The names in a catalog folder (empty when it does not exist or cannot be listed)."""
    try:
        return frozenset(os.listdir(folder))
    except OSError:
        return frozenset()


def is_imported(label: str) -> bool:
    """Whether a catalog file, as `display_path` names it, holds bulk-imported (not curated) entries."""
    return "/imported/" in f"/{label}"


def origin(label: str, dirs: Sequence[Path]) -> str:
    """Where the entries of a catalog file (as `display_path` names it) come from, as lists mark them:
    "curated" (the first catalog directory, normally the built-in catalogs: every figure sourced), "imported"
    (bulk-imported, figures completed by rule) or "user" (a --catalog or per-user directory)."""
    if is_imported(label):
        return "imported"
    if not dirs:
        return "user"
    first = dirs[0]
    prefix = "catalogs/" if inside(first, builtin_dir()) else display_path(first).rstrip("/") + "/"
    return "curated" if label.startswith(prefix) else "user"


def inside(path: Path, directory: Path) -> bool:
    return path.resolve().is_relative_to(directory.resolve())


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
