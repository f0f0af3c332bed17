"""Reading and writing files safely. Every file the planner reads goes through `read_bytes`: only a regular
file, at most `MAX_READ` bytes, opened so that a FIFO cannot block. Every file it writes goes through
`atomic_write`: atomic (temp file + rename), never overwriting without permission, and only ever a regular file.

What `atomic_write` does with what is already at the path:

- nothing: the new file is linked into place, which fails if a file appeared meanwhile (no window between
  "does it exist?" and the rename in which another program's new file could be replaced);
- a regular file: replaced only with `force` and only when the user may write it and it is not marked
  read-only (0444 is refused even for root; a rename in a writable directory would silently replace it);
- a symbolic link: with `force`, the file it points to is written (the link stays a link; a dangling link
  creates its target); without, refused like any existing file, a dangling link too;
- a directory, FIFO, socket or device: always refused, `force` or not, root or not.

Every failure is an InputError with one clear sentence (the CLI's exit 2, the TUI's error dialog).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path

from planner.util.errors import InputError

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a device"),
          (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))
_EXISTS = "already exists; use --force to overwrite it"


#: The most any file the planner reads may hold (16 MiB). The largest it ships, the imported catalogs, are a
#: few MB; past the cap a file is refused before it is decoded, so `/dev/zero`, a huge log or a sparse file
#: given by mistake costs at most this much memory.
MAX_READ = 16 * 1024 * 1024


def read_bytes(path: Path, *, label: str | None = None, what: str = "a file", cap: int = MAX_READ,
               error: type[InputError] = InputError) -> bytes:
    """The bytes of the regular file at `path`, at most `cap` of them: the one way the planner reads a file.

    Opened without blocking (a FIFO with no writer would otherwise wait forever), its kind checked on the
    opened descriptor (no window between a check and the open), and read only up to `cap` + 1 bytes, so a
    device such as `/dev/zero`, a FIFO, a socket, a directory or a file larger than `cap` is one `error`
    naming the file (`label`, else the path) and saying what was expected (`what`), never a hang or gigabytes
    of memory.
    """
    label = label or str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise error("no such file", file=label) from None
    except IsADirectoryError:
        raise error(f"is a directory, expected {what}", file=label) from None
    except OSError as problem:  # a socket cannot be opened (ENXIO): say what it is
        with contextlib.suppress(OSError):
            _refuse_kind(os.stat(path).st_mode, label, what, error)
        raise error(f"cannot read: {_reason(problem)}", file=label) from None
    try:
        info = os.fstat(fd)
        _refuse_kind(info.st_mode, label, what, error)
        if info.st_size > cap:
            raise error(f"is larger than {_size(cap)}; expected {what}", file=label)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(cap + 1)
    except OSError as problem:
        raise error(f"cannot read: {_reason(problem)}", file=label) from None
    finally:
        os.close(fd)
    if len(data) > cap:
        raise error(f"is larger than {_size(cap)}; expected {what}", file=label)
    return data


def _refuse_kind(mode: int, label: str, what: str, error: type[InputError]) -> None:
    for test, kind in _KINDS:
        if test(mode):
            raise error(f"is {kind}, expected {what}", file=label)
    if not stat.S_ISREG(mode):
        raise error(f"is not a regular file, expected {what}", file=label)


def _size(count: int) -> str:
    """`16 MiB`, `1,000 kB`, `999 bytes`: a cap as a person reads it."""
    if count % (1024 * 1024) == 0:
        return f"{count // (1024 * 1024)} MiB"
    if count % 1000 == 0:
        return f"{count // 1000:,} kB"
    return f"{count:,} bytes"


def atomic_write(path: Path, text: str, *, force: bool = False, executable: bool = False) -> None:
    """Write `text` to `path` so that readers see the old file or the new one, never half of one.

    Refuses to replace an existing file unless `force`, and refuses anything but a regular file or a new
    path (module docstring). `executable` adds the execute bit wherever the file is readable (a new
    script is 0755 under the usual umask 022).
    """
    target = _target(path, force)
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise InputError(f"directory {directory} does not exist", file=str(path))
    mode = _mode_for(target)
    if executable:
        mode |= (mode & 0o444) >> 2
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as error:
        raise InputError(f"cannot write in {directory}: {_reason(error)}", file=str(path)) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fchmod(handle.fileno(), mode)  # mkstemp makes 0600; give the file the mode a plain write would
            os.fsync(handle.fileno())
        _publish(tmp, target, path, force)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(error, OSError):
            raise InputError(f"not written: {_reason(error)}", file=str(path)) from None
        raise


def _target(path: Path, force: bool) -> Path:
    """The file to write: `path`, or with `force` the file a symbolic link at `path` points to."""
    info = _lstat(path)
    if info is None:
        return path
    if stat.S_ISLNK(info.st_mode):
        try:
            target = Path(os.path.realpath(path, strict=False))
        except OSError as error:  # a loop of links, on some Pythons
            raise InputError(f"is a symbolic link that cannot be followed: {_reason(error)}", file=str(path)) from None
        if not force:
            dangling = "" if target.exists() else ", which does not exist"
            raise InputError(f"is a symbolic link to {target}{dangling}; use --force to write that file",
                             file=str(path))
        info = _lstat(target)
        if info is not None and stat.S_ISLNK(info.st_mode):  # realpath stopped at a loop
            raise InputError("is a symbolic link that cannot be followed (a loop of links)", file=str(path))
        _check_kind(target, info, path, force=True)
        return target
    _check_kind(path, info, path, force)
    return path


def _check_kind(target: Path, info: os.stat_result | None, path: Path, force: bool) -> None:
    """Only a new path or, with `force`, a regular file the user may write."""
    if info is None:
        return
    for test, kind in _KINDS:
        if test(info.st_mode):
            via = "" if target == path else f" (the link's target {target})"
            raise InputError(f"is {kind}{via}; planner writes only regular files", file=str(path))
    if not force:
        raise InputError(_EXISTS, file=str(path))
    # Marked read-only for everyone (0444): refused even for root, who may write anything, as editors do.
    if not os.access(target, os.W_OK) or not info.st_mode & 0o222:
        raise InputError("is read-only; not replaced (make it writable, or write to another file)", file=str(path))


def _publish(tmp: str, target: Path, path: Path, force: bool) -> None:
    """Move the finished temp file to `target`: a new path is claimed atomically (hard link, or O_EXCL where
    the file system has no hard links), so a file that appeared since the checks is never replaced unless
    `force` (and then only a regular file)."""
    try:
        os.link(tmp, target)
    except FileExistsError:
        _check_kind(target, _lstat(target), path, force)  # appeared meanwhile: the same rules as before
        os.replace(tmp, target)
        return
    except OSError as error:
        if error.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.EXDEV):
            raise
        _claim(target, path, force)
        os.replace(tmp, target)
        return
    os.unlink(tmp)


def _claim(target: Path, path: Path, force: bool) -> None:
    """Create `target` empty with O_EXCL (so no one else's new file is taken), or check the one that is there."""
    try:
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        _check_kind(target, _lstat(target), path, force)


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return path.lstat()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise InputError(f"cannot be written: {_reason(error)}", file=str(path)) from None


def _reason(error: OSError) -> str:
    """`Permission denied`, `No space left on device`: the system's words, without errno and file name."""
    return error.strerror or str(error)


def _mode_for(path: Path) -> int:
    """The existing file's permissions, or those the user's umask gives a new file."""
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
