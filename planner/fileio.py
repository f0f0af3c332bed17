"""Writing files safely: atomic (temp file + rename), never overwriting without permission."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from planner.errors import InputError


def atomic_write(path: Path, text: str, *, force: bool = False) -> None:
    """Write `text` to `path` so that readers see the old file or the new one, never half of one.

    Refuses to replace an existing file unless `force`.
    """
    if path.exists() and not force:
        raise InputError("already exists; use --force to overwrite it", file=str(path))
    if path.is_dir():
        raise InputError("is a directory", file=str(path))
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.is_dir():
        raise InputError(f"directory {directory} does not exist", file=str(path))
    mode = _mode_for(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fchmod(handle.fileno(), mode)  # mkstemp makes 0600; give the file the mode a plain write would
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _mode_for(path: Path) -> int:
    """The existing file's permissions, or those the user's umask gives a new file."""
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
