"""Where an interactive session's unsaved build goes when the session ends with an error.

Next to the build file (`build.toml` → `build.recovered.toml`) so it is easy to find; when that directory
cannot be written (a read-only checkout, a mounted share), in the user's state directory
(`~/.local/state/gpu-rig-planner/recovered/` on Linux, platformdirs). An earlier recovery file is never
overwritten: the next one is `build.recovered-2.toml`, and so on.
"""

from __future__ import annotations

import os
from pathlib import Path

from planner.util.errors import InputError
from planner.util.fileio import atomic_write

APP_NAME = "gpu-rig-planner"
MAX_COPIES = 1000  # recovery files of one build in one directory before giving up on that directory


def state_dir() -> Path:
    """The user's state directory for recovery files (platformdirs; XDG_STATE_HOME on Linux)."""
    import platformdirs

    return Path(platformdirs.user_state_dir(APP_NAME)) / "recovered"


def candidates(build_path: Path | None, directory: Path) -> list[Path]:
    """Recovery file names in `directory` for a build, in the order they are tried."""
    stem = build_path.stem if build_path is not None else "new-build"
    return [directory / f"{stem}.recovered.toml",
            *(directory / f"{stem}.recovered-{n}.toml" for n in range(2, MAX_COPIES + 1))]


def save_recovery(text: str, build_path: Path | None) -> Path:
    """Write `text` (the unsaved build) to a new recovery file and return its path.

    Tries the build's directory (the working directory for a build never saved), then the state directory;
    InputError when neither can be written.
    """
    beside = build_path.parent if build_path is not None else Path.cwd()
    problems = []
    for directory in dict.fromkeys([beside, state_dir()]):  # the same directory once
        try:
            if directory != beside:
                directory.mkdir(parents=True, exist_ok=True)
            return _write_new(text, build_path, directory)
        except (InputError, OSError) as error:
            problems.append(str(error))
    raise InputError("the unsaved build could not be written anywhere: " + "; ".join(problems))


def _write_new(text: str, build_path: Path | None, directory: Path) -> Path:
    """The first name of `candidates` that is free, taken atomically (never an earlier recovery file)."""
    for path in candidates(build_path, directory):
        if os.path.lexists(path):
            continue
        try:
            atomic_write(path, text, force=False)
        except InputError:
            if os.path.lexists(path):  # another session took the name meanwhile: try the next one
                continue
            raise
        return path
    raise InputError(f"{MAX_COPIES} recovery files of this build are already there", file=str(directory))
