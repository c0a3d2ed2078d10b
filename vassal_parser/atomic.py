"""Writing user files without ever losing one: temp name, fsync, rename; several files all or nothing.

Why each step:
* a temporary file in the target's own folder, then `os.replace`: a watcher (ours, VASSAL, a sync tool)
  never sees half a file, and the old file stays whole until the new one is complete;
* `fsync` of the temp file before the rename (and of the folder after it): without it a power cut can
  leave the renamed name pointing at an empty file — the rename reaches the disk before the data;
* the target's own mode kept (a 0600 pack file stays 0600); new files get 0644 like any editor's;
* a file that must be new (`exclusive=True`: `apply` without --force, the daemon's "Write the moves")
  claims its name at the instant of writing, never by a check before it: the finished temp file is
  hard-linked to the name (`os.link` fails if the name exists, however it came there), then the temp
  name is removed. Where the file system has no hard links, the name is created empty with `O_EXCL`
  and the temp file renamed over it. Two writers of one new name: one wins, the other is told
  `AlreadyExists` and the file is the winner's, whole;
* temp names `.NAME.adjutant-XXXXXXXX.tmp`: recognisable, so what a killed writer left behind is found
  and removed (`remove_leftovers`), and ignored by the watcher (names starting with `.`);
* a full disk, a read-only folder, a denied permission, a name too long: `DiskError`, one line naming the
  path and the reason — the user's disk, never "a bug in Adjutant". It is both an `InputError` (the
  command line: exit 2) and an `OSError` (callers that already handle those).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
from collections.abc import Mapping
from pathlib import Path

from vassal_parser.errors import InputError

TEMP_MARK = ".adjutant-"
TEMP_SUFFIX = ".tmp"
_TEMP_NAME = re.compile(r"^\..+\.adjutant-[0-9a-f]{8}\.tmp$")
NEW_FILE_MODE = 0o644
REASONS = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EROFS: "the folder is on a read-only file system",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.ENAMETOOLONG: "the file name is too long for this file system",
    errno.ENOENT: "the folder does not exist",
    errno.ENOTDIR: "a part of the path is not a folder",
}


class DiskError(InputError, OSError):
    """A file could not be written for a reason of the user's disk (see the module docstring)."""

    def __init__(self, path: str | Path, cause: OSError) -> None:
        reason = REASONS.get(cause.errno or 0) or (cause.strerror or str(cause))
        super().__init__(path, f"cannot write: {reason} ({cause.strerror or cause})"
                         if reason != cause.strerror else f"cannot write: {reason}")
        self.errno = cause.errno
        self.strerror = cause.strerror

    def __str__(self) -> str:  # OSError's own would be "[Errno 28] ...", without the path
        return self.one_line()


class AlreadyExists(InputError, FileExistsError):
    """The name a new file was to take exists (made by anyone, up to the instant of writing)."""

    def __init__(self, path: str | Path, message: str = "already exists") -> None:
        InputError.__init__(self, path, message)
        self.errno = errno.EEXIST
        self.strerror = message

    def __str__(self) -> str:
        return self.one_line()


def is_temp_name(name: str) -> bool:
    """One of our writers' temporary names (`.NAME.adjutant-XXXXXXXX.tmp`)."""
    return bool(_TEMP_NAME.match(name))


def remove_leftovers(folder: Path) -> list[str]:
    """Remove the temporary files a killed writer left in `folder`; returns their names."""
    removed = []
    with contextlib.suppress(OSError):
        for entry in Path(folder).iterdir():
            if is_temp_name(entry.name) and entry.is_file() and not entry.is_symlink():
                with contextlib.suppress(OSError):
                    entry.unlink()
                    removed.append(entry.name)
    return sorted(removed)


def _write_all(fd: int, data: bytes) -> None:
    """Every byte of `data` to `fd`, then fsync (a test replaces this to be the full disk)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
    os.fsync(fd)


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable (POSIX; Windows has no folder handles to sync)."""
    if os.name != "posix":
        return
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _target_mode(target: Path) -> int:
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except OSError:
        return NEW_FILE_MODE


def _temp_for(target: Path, data: bytes) -> Path:
    """Write `data` to a new temp file beside `target` with `target`'s mode; fsynced."""
    folder = target.parent
    for _attempt in range(20):
        temp = folder / f".{target.name}{TEMP_MARK}{secrets.token_hex(4)}{TEMP_SUFFIX}"
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
        except FileExistsError:
            continue
        except OSError as exc:
            raise DiskError(target, exc) from None
        try:
            try:
                if hasattr(os, "fchmod"):  # (not on Windows, where a mode is only read-only or not)
                    os.fchmod(fd, _target_mode(target))
                _write_all(fd, data)
            finally:
                os.close(fd)
        except OSError as exc:
            with contextlib.suppress(OSError):
                temp.unlink()
            raise DiskError(target, exc) from None
        return temp
    raise DiskError(target, OSError(errno.EEXIST, "no free temporary name"))


def write_atomically(target: str | os.PathLike[str], data: bytes, *, exclusive: bool = False) -> Path:
    """Write `data` to `target`: temp file beside it, fsync, rename (or, `exclusive`, link), fsync the folder.

    `exclusive`: `target` must not exist at the instant it is written, else `AlreadyExists` and the
    file there is left as it is. On any failure the temp file is removed, `target` is as it was, and
    `DiskError` says why."""
    target = Path(target)
    temp = _temp_for(target, data)
    try:
        if exclusive:
            _claim(temp, target)
        else:
            os.replace(temp, target)
    except AlreadyExists:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
    except OSError as exc:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise DiskError(target, exc) from None
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
    _fsync_folder(target.parent)
    return target


# Errors of `os.link` that say "this file system (or platform) has no hard links", not "no room/no right".
_NO_LINKS = {errno.EPERM, errno.EXDEV, errno.EMLINK, getattr(errno, "ENOTSUP", -1),
             getattr(errno, "EOPNOTSUPP", -1), errno.ENOSYS}


def _claim(temp: Path, target: Path) -> None:
    """Give the finished `temp` the name `target`, which must be new (see the module docstring)."""
    try:
        os.link(temp, target)
    except FileExistsError:
        raise AlreadyExists(target) from None
    except (OSError, NotImplementedError, AttributeError) as exc:
        if isinstance(exc, OSError) and exc.errno not in _NO_LINKS:
            raise
        _claim_without_link(temp, target)
        return
    with contextlib.suppress(OSError):  # the file is in place; a temp name left is found by remove_leftovers
        temp.unlink()


def _claim_without_link(temp: Path, target: Path) -> None:
    """No hard links here: create the name empty with O_EXCL (the claim), then rename the file over it."""
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
    except FileExistsError:
        raise AlreadyExists(target) from None
    os.close(fd)
    try:
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            if target.stat().st_size == 0:  # still our empty claim: give the name back
                target.unlink()
        raise


def write_files_atomically(files: Mapping[Path, bytes]) -> list[Path]:
    """Write several files all or nothing: every temp file written and fsynced first, then each renamed.

    A failure while writing the temps removes them all and leaves every target as it was. A rename
    that fails after others succeeded (rare: same folder, files already written) puts the renamed
    ones back from what they held before, so the files never mix two saves."""
    targets = [Path(path) for path in files]
    before: dict[Path, bytes | None] = {}
    for target in targets:
        try:
            before[target] = target.read_bytes() if target.exists() else None
        except OSError as exc:
            raise DiskError(target, exc) from None
    temps: dict[Path, Path] = {}
    try:
        for target in targets:
            temps[target] = _temp_for(target, files[target])
    except BaseException:
        for temp in temps.values():
            with contextlib.suppress(OSError):
                temp.unlink()
        raise
    renamed: list[Path] = []
    try:
        for target in targets:
            os.replace(temps[target], target)
            renamed.append(target)
    except BaseException as exc:
        for target in targets:
            if target not in renamed:
                with contextlib.suppress(OSError):
                    temps[target].unlink()
        for target in renamed:  # best effort: what was there before
            with contextlib.suppress(OSError, InputError):
                old = before[target]
                if old is None:
                    target.unlink()
                else:
                    write_atomically(target, old)
        if isinstance(exc, OSError):
            failed = next(t for t in targets if t not in renamed)
            raise DiskError(failed, exc) from None
        raise
    for folder in {target.parent for target in targets}:
        _fsync_folder(folder)
    return targets
