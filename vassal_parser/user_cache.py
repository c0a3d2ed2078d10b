"""What a command works out afresh at every start from inputs that rarely change, kept between runs.

Why: a `check` of a small save is mostly start-up (issue 27), and most of start-up recomputes the
same things from the same text: the methods `dataclasses` compiles for each record class (about a
third of a small check) and the pack's TOML. Python keeps its own byte code in `__pycache__` for
the same reason; this is that, for the two things Python does not cache.

Why it can never be stale: an entry's key is the exact text it was made from (the generated
source, the TOML file's text) and a key is looked up whole, so a changed input is simply a new
key. The file names carry the interpreter's cache tag and byte-code magic number, so two Pythons
never read each other's code objects. Values are kept marshalled, so every `get` returns fresh
objects a caller may change freely.

Why only the command line writes it (`enable`): a library user, a test or the daemon's worker
gets the plain behaviour — `get` finds nothing, `put` keeps nothing — unless the process opted
in. Where: `$ADJUTANT_CACHE_DIR` (empty: off), else `$XDG_CACHE_HOME/adjutant`, else
`~/.cache/adjutant` (on Windows `%LOCALAPPDATA%\\adjutant\\cache`). A cache is never the user's
data: a missing, unreadable, corrupt or oversized file is an empty cache, and a folder that cannot
be written is no cache (a read-only home, a full disk) — never an error. Files are written at exit,
only when something was added, to a temporary name and renamed (a torn file reads as empty; no
fsync, since losing a cache costs one slow start).

Trust: like `__pycache__`, the folder holds code the process runs, so it is created 0700 and its
files 0600, and (POSIX) a file another user owns, or others may write, is not read — a cache folder
named in a shared place cannot be fed someone else's code.

Bounds: a file over `MAX_FILE_BYTES` is not read; a store keeps at most `MAX_ENTRIES` entries, and
when a run ends with more, only the ones used or added in that run are written.
"""

from __future__ import annotations

import atexit
import contextlib
import marshal
import os
import sys
from pathlib import Path

MAX_FILE_BYTES = 32 * 1024 * 1024
MAX_ENTRIES = 4096
_enabled = False
_stores: dict[str, Store] = {}


def cache_dir() -> Path | None:
    """The folder the stores live in, or None when caching is turned off (`ADJUTANT_CACHE_DIR=`)."""
    explicit = os.environ.get("ADJUTANT_CACHE_DIR")
    if explicit is not None:
        return Path(explicit) if explicit else None
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "adjutant" / "cache"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "adjutant"


def enable() -> None:
    """Let this process read and write the stores on disk (the command line calls it once)."""
    global _enabled
    if not _enabled:
        _enabled = True
        atexit.register(save_all)


def _trusted(status: os.stat_result) -> bool:
    """Written by this user and by nobody else (POSIX; elsewhere the folder's own protection)."""
    if not hasattr(os, "geteuid"):
        return True
    return status.st_uid == os.geteuid() and not status.st_mode & 0o022


def store(name: str) -> Store:
    """The store `name` (one file), made on first use."""
    found = _stores.get(name)
    if found is None:
        found = _stores[name] = Store(name)
    return found


def save_all() -> None:
    for each in _stores.values():
        each.save()


class Store:
    """One file of entries: key text -> marshalled value."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._entries: dict[str, bytes] | None = None
        self._used: set[str] = set()
        self._added = False

    def path(self) -> Path | None:
        folder = cache_dir()
        if folder is None:
            return None
        tag = sys.implementation.cache_tag or sys.implementation.name
        from importlib.util import MAGIC_NUMBER

        return folder / f"{self.name}-{tag}-{MAGIC_NUMBER.hex()}.marshal"

    def get(self, key: str) -> object | None:
        """A fresh copy of the value kept under `key`, or None."""
        if not _enabled:
            return None
        raw = self._loaded().get(key)
        if raw is None:
            return None
        try:
            value = marshal.loads(raw)
        except (EOFError, ValueError, TypeError):
            return None
        self._used.add(key)
        return value

    def put(self, key: str, value: object) -> None:
        """Keep `value` under `key`; a value marshal cannot write (a TOML date) is not kept."""
        if not _enabled:
            return
        try:
            raw = marshal.dumps(value)
        except ValueError:
            return
        self._loaded()[key] = raw
        self._used.add(key)
        self._added = True

    def _loaded(self) -> dict[str, bytes]:
        if self._entries is None:
            self._entries = self._read()
        return self._entries

    def _read(self) -> dict[str, bytes]:
        path = self.path()
        if path is None:
            return {}
        try:
            with open(path, "rb") as handle:
                if not _trusted(os.fstat(handle.fileno())):
                    return {}
                data = handle.read(MAX_FILE_BYTES + 1)
            if len(data) > MAX_FILE_BYTES:
                return {}
            entries = marshal.loads(data)
        except (OSError, EOFError, ValueError, TypeError):
            return {}
        if not isinstance(entries, dict):
            return {}
        return {key: raw for key, raw in entries.items() if isinstance(key, str) and isinstance(raw, bytes)}

    def save(self) -> None:
        """Write the store if this run added to it (see the module docstring: never an error)."""
        path = self.path()
        if not (_enabled and self._added and path is not None and self._entries is not None):
            return
        entries = self._entries
        if len(entries) > MAX_ENTRIES:
            entries = {key: raw for key, raw in entries.items() if key in self._used}
        temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            with open(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as handle:
                marshal.dump(entries, handle)
            os.replace(temp, path)
            self._added = False
        except (OSError, ValueError):
            with contextlib.suppress(OSError):
                temp.unlink()
