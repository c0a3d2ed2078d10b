"""watchdog -> asyncio: one folder's saves and logs noticed, debounced, retried until whole.

A file reaches the daemon's round (bridge/daemon/watch.py) only once `check_structure` passed
(bridge/daemon/completeness.py); the CRC pass then runs alongside its plan. A folder that is deleted
or replaced is watched again when it comes back. This module never writes to the watched folder.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from bridge.common.errorlog import bug_line
from bridge.daemon.completeness import (
    CheckBug,
    FileStamp,
    IncompleteFile,
    check_complete,
    check_structure,
    is_small_archive,
    is_watched_name,
)
from bridge.daemon.threads import in_daemon_thread
from vassal_parser.errors import InputError

LOG = logging.getLogger("adjutant.watch")
DEFAULT_DEBOUNCE_S = 0.04
DEFAULT_RETRY_S = 0.1
DEFAULT_GIVE_UP_S = 5.0
DEFAULT_FOLDER_CHECK_S = 1.0
# --- watchdog -> asyncio, with debounce and retries ----------------------------------------------


class _Forwarder(FileSystemEventHandler):
    """Runs on watchdog's thread; hands every relevant path to the asyncio loop."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        poke: Callable[[Path, float | None], None],
        ignored: Callable[[Path], None],
        folder: Path | None = None,
        folder_lost: Callable[[], None] | None = None,
    ) -> None:
        self._loop = loop
        self._poke = poke
        self._ignored = ignored
        self._folder = folder
        self._folder_lost = folder_lost

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.is_directory and event.event_type == "deleted" and self._folder_lost is not None:
            if Path(os.fsdecode(event.src_path)) == self._folder:  # our inotify watch just died
                self._loop.call_soon_threadsafe(self._folder_lost)
            return
        if event.is_directory or event.event_type in ("opened", "closed_no_write", "deleted"):
            return
        # A writer closing the file (inotify's close-write) or renaming it into place has finished:
        # check at once. Other events (and platforms without close events) wait out the debounce.
        finished = event.event_type in ("closed", "moved")
        for raw in (getattr(event, "dest_path", ""), event.src_path):
            if raw:
                path = Path(os.fsdecode(raw))
                if is_watched_name(path):
                    self._loop.call_soon_threadsafe(self._poke, path, 0.0 if finished else None)
                else:
                    self._loop.call_soon_threadsafe(self._ignored, path)


# (path, stamp, verification): the verification is awaited before the file's plan is shown; it
# raises IncompleteFile when the file turns out not to be whole after all.
CompleteHandler = Callable[[Path, FileStamp, "asyncio.Future[None]"], Awaitable[None]]
RejectHandler = Callable[[Path, str], Awaitable[None]]


class FolderWatcher:
    """Debounced, retrying watcher of one folder (non-recursive).

    Every event for a path restarts its debounce timer; when the path has been quiet for
    `debounce` seconds it is checked; an incomplete file is re-checked every `retry` seconds until
    `give_up` seconds have passed, then reported once through `on_rejected`. A file whose stamp
    equals the last one handled is not handled twice (watchdog often reports one write many times).

    Why the folder itself is polled: when the watched folder is deleted (or a USB stick/network
    share goes away) inotify just stops reporting, silently. Every `folder_check` seconds the
    watcher looks; a vanished folder is reported once through `on_folder`, and when it is back
    the observer is started again and its newest save is planned.
    """

    def __init__(
        self,
        folder: Path,
        on_complete: CompleteHandler,
        on_rejected: RejectHandler,
        *,
        debounce: float = DEFAULT_DEBOUNCE_S,
        retry: float = DEFAULT_RETRY_S,
        give_up: float = DEFAULT_GIVE_UP_S,
        folder_check: float = DEFAULT_FOLDER_CHECK_S,
        on_folder: Callable[[str], None] | None = None,
        log_line: Callable[[str], None] | None = None,
    ) -> None:
        self.folder = folder
        self._folder_check = folder_check
        self._on_folder = on_folder
        self._folder_task: asyncio.Task[None] | None = None
        self._watch_lost = False
        self._log_line = log_line
        self._ignored_names: set[str] = set()
        self._on_complete = on_complete
        self._on_rejected = on_rejected
        self._debounce = debounce
        self._retry = retry
        self._give_up = give_up
        self._timers: dict[Path, asyncio.TimerHandle] = {}
        self._first_seen: dict[Path, float] = {}
        self._handled: dict[Path, FileStamp] = {}
        self._busy: set[Path] = set()
        # Why event numbers: checks run on threads and finish out of order; a file whose last
        # event is older than the one last delivered is stale and must not replace its plan.
        self._event_count = 0
        self._last_event: dict[Path, int] = {}
        self._delivered_event = 0
        self._tasks: set[asyncio.Future[None]] = set()
        self._observer: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        if not self.folder.is_dir():
            raise InputError(self.folder, "not a folder (adjutant watch needs the folder VASSAL saves into)")
        self._loop = asyncio.get_running_loop()
        self._start_observer()
        self._folder_task = asyncio.ensure_future(self._watch_folder())

    def _start_observer(self) -> None:
        assert self._loop is not None
        self._observer = Observer()
        forwarder = _Forwarder(self._loop, self.poke, self._note_ignored, self.folder, self._lost_watch)
        self._observer.schedule(forwarder, str(self.folder), recursive=False)
        self._observer.daemon = True
        self._observer.start()

    def _stop_observer(self) -> None:
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)
            self._observer = None

    def stop(self) -> None:
        if self._folder_task is not None:
            self._folder_task.cancel()
            self._folder_task = None
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        self._stop_observer()

    def _lost_watch(self) -> None:
        self._watch_lost = True

    def _folder_identity(self) -> tuple[int, int] | None:
        """(device, inode) of the folder, or None when it is not there (or not a folder)."""
        try:
            stat = self.folder.stat()
        except OSError:
            return None
        return (stat.st_dev, stat.st_ino) if self.folder.is_dir() else None

    async def _watch_folder(self) -> None:
        """Report a vanished folder once; resume watching when it (or a new one by that name) is back.

        Why more than "is it there": a folder deleted and recreated between two looks (a sync tool
        replacing it) leaves inotify watching the dead one, silently. A new (device, inode), or
        watchdog's report that the watched folder itself was deleted (the inode number is often
        reused at once), means: watch it afresh."""
        watched = self._folder_identity()
        while True:
            await asyncio.sleep(self._folder_check)
            present = self._folder_identity()
            if present == watched and not self._watch_lost:
                continue
            self._watch_lost = False
            self._stop_observer()
            if present is None:
                watched = None
                message = f"{self.folder.name}: the watched folder is gone (deleted or unmounted); waiting"
            else:
                try:
                    self._start_observer()
                except OSError as exc:  # gone again already, or unreadable: try on the next look
                    self._stop_observer()
                    LOG.debug("cannot watch %s yet: %s", self.folder, exc)
                    continue
                replaced = watched is not None
                watched = present
                again = "was replaced; watching the new one" if replaced else "is back; watching it again"
                message = f"{self.folder.name}: the watched folder {again}"
                latest = self.latest_existing()
                if latest is not None:
                    self.poke(latest, 0)
            if self._log_line is not None:
                self._log_line(message)
            if self._on_folder is not None:
                self._on_folder(message)

    def _note_ignored(self, path: Path) -> None:
        """One log line per ignored name (VASSAL temp files, backups), bounded in memory."""
        if self._log_line is None or path.name in self._ignored_names or len(self._ignored_names) >= 1000:
            return
        self._ignored_names.add(path.name)
        self._log_line(f"{path.name}: ignored (not a .vsav save or .vlog log)")

    def latest_existing(self) -> Path | None:
        """The most recently modified save in the folder, to show something at start-up."""
        stamped = []
        try:
            for path in self.folder.iterdir():
                if path.suffix.lower() == ".vsav" and is_watched_name(path):
                    with contextlib.suppress(OSError):  # removed between listing and stat
                        stamped.append((path.stat().st_mtime_ns, path))
        except OSError:
            return None
        return max(stamped)[1] if stamped else None

    def poke(self, path: Path, delay: float | None = None) -> None:
        """Something happened to `path`: number the event and (re)start its debounce timer."""
        self._event_count += 1
        self._last_event[path] = self._event_count
        if len(self._last_event) > 10_000:  # bounded: forget the oldest names (dicts keep order)
            del self._last_event[next(iter(self._last_event))]
        self._schedule(path, delay)

    def _schedule(self, path: Path, delay: float | None = None) -> None:
        """(Re)start the path's timer without counting a new event (retries, busy re-checks)."""
        assert self._loop is not None
        self._first_seen.setdefault(path, time.monotonic())
        timer = self._timers.pop(path, None)
        if timer is not None:
            timer.cancel()
        wait = self._debounce if delay is None else delay
        self._timers[path] = self._loop.call_later(wait, self._fire, path)

    def _fire(self, path: Path) -> None:
        self._timers.pop(path, None)
        if path in self._busy:  # a check is running: look again right after it
            self._schedule(path, self._retry)
            return
        self._busy.add(path)
        task = asyncio.ensure_future(self._check(path))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _verification(self, path: Path, stamp: FileStamp) -> asyncio.Future[None]:
        """`check_complete` of `path` on a thread, started now: it runs while the planner reads the
        file (the whole entry inflated for its CRC: ~1-3 ms of a 5,000-piece save, no longer before
        the job is sent). Its failure is always retrieved, so one nobody waits for (a superseded
        file) is not reported as never retrieved."""

        async def verify() -> None:
            try:
                whole = await in_daemon_thread(check_complete, path)
            except IncompleteFile:
                raise
            except InputError as exc:  # (as the watcher's own check takes it: worth retrying)
                raise IncompleteFile(exc.one_line()) from None
            except Exception as exc:
                raise CheckBug(str(exc)) from exc
            if whole != stamp:
                raise IncompleteFile("changed while being read")

        task = asyncio.ensure_future(verify())
        task.add_done_callback(lambda done: done.cancelled() or done.exception())
        return task

    async def _deliver(self, path: Path, stamp: FileStamp, verification: asyncio.Future[None]) -> None:
        """Hand a file that passed `check_structure` on, unless a newer file was delivered since.
        It counts as seen through only once `verification` passed: a file that never proves whole
        is still given up on after `give_up` seconds."""
        self._handled[path] = stamp
        event = self._last_event.get(path, 0)
        if event < self._delivered_event:
            self._first_seen.pop(path, None)
            if self._log_line is not None:
                self._log_line(f"{path.name}: skipped, superseded by a newer file")
            return
        self._delivered_event = event
        await self._on_complete(path, stamp, verification)
        await verification  # (long done: the plan waited for it) its IncompleteFile is handled here
        self._first_seen.pop(path, None)

    async def _check(self, path: Path) -> None:
        assert self._loop is not None
        stamp: FileStamp | None = None
        try:
            try:
                stamp = (check_structure(path) if is_small_archive(path)
                         else await in_daemon_thread(check_structure, path))
                if self._handled.get(path) == stamp:
                    self._first_seen.pop(path, None)
                    return
                verification = self._verification(path, stamp)
                await self._deliver(path, stamp, verification)
            except (IncompleteFile, InputError) as exc:
                if stamp is not None and self._handled.get(path) == stamp:
                    del self._handled[path]  # not whole after all: the retry must not skip it
                if not path.exists():
                    self._first_seen.pop(path, None)
                    return
                waited = time.monotonic() - self._first_seen.get(path, time.monotonic())
                if waited >= self._give_up:
                    self._first_seen.pop(path, None)
                    await self._on_rejected(path, str(exc))
                elif path not in self._timers:
                    self._schedule(path, self._retry)
                return
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug: the file still gets its notice, the daemon goes on
            self._first_seen.pop(path, None)
            cause = exc.__cause__ if isinstance(exc, CheckBug) and exc.__cause__ is not None else exc
            line = bug_line(f"{path.name}: checking the file", cause)
            if self._log_line is not None:
                self._log_line(line)
            with contextlib.suppress(Exception):
                await self._on_rejected(path, "could not be checked (internal error, see the log)")
        finally:
            self._busy.discard(path)
