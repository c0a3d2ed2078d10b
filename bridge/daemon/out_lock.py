"""One daemon per `--out` folder: a lock taken at start-up, held until the daemon ends.

Why: two daemons watching one folder with the same `--out` both reported writing
`09-border-defense-adjutant.vlog` ("1 move" and "3 moves") and only one file existed — one player's
moves silently lost. The second daemon is now refused at start with one line (exit 2). The lock is an
advisory `flock` on `.adjutant-out.lock` in the folder: released by the kernel when the process ends,
however it ends (kill -9 included), so a stale lock file never blocks the next start.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import IO

from vassal_parser.atomic import DiskError
from vassal_parser.errors import InputError

LOCK_NAME = ".adjutant-out.lock"


class OutLock:
    """The held lock of one output folder (`release` or process exit frees it)."""

    def __init__(self, folder: Path, handle: IO[str]) -> None:
        self.folder = folder
        self._handle: IO[str] | None = handle

    def release(self) -> None:
        if self._handle is not None:
            with contextlib.suppress(OSError):
                self._handle.close()
            self._handle = None


def lock_out_folder(folder: Path) -> OutLock:
    """Take `folder`'s lock or raise InputError naming the daemon (pid) that holds it."""
    path = Path(folder) / LOCK_NAME
    try:
        handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held open for the daemon's life
    except OSError as exc:
        raise DiskError(path, exc) from None
    try:
        _lock(handle)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read(40).strip() or "another process"
        handle.close()
        raise InputError(folder, f"another adjutant watch (pid {holder}) writes its moves into this --out "
                                 "folder; stop it or give another --out") from None
    except OSError as exc:
        handle.close()
        raise DiskError(path, exc) from None
    with contextlib.suppress(OSError):
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
    return OutLock(Path(folder), handle)


def _lock(handle: IO[str]) -> None:
    try:
        import fcntl
    except ImportError:  # Windows: msvcrt locks a byte range of the open file
        import msvcrt

        try:
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            raise BlockingIOError from None
        return
    fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
