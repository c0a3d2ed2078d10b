"""Watch a save folder: notice new/changed .vsav/.vlog, wait until each is complete, re-plan.

Why all the care (docs/protocol.md, spec §8.3): VASSAL 3.5+ rewrites a save IN PLACE, so a
watcher sees an empty or half-written zip; older versions write `tmp*.zip` and rename; a log is
written once, at the end. A file is used only when it is *complete*: its size and mtime did not
change while it was read, the zip's central directory opens, the `savedGame` entry inflates with a
good CRC, and its obfuscation layer decodes to a command stream. Anything else is retried, with a
bounded number of attempts, and the last good plan stays on screen meanwhile.

This module never writes to the watched folder.
"""

from __future__ import annotations

import asyncio
import binascii
import errno
import logging
import os
import time
import zipfile
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from bridge import protocol
from vassal_parser.errors import InputError

LOG = logging.getLogger("adjutant.watch")

WATCHED_SUFFIXES = (".vsav", ".vlog")
MAX_SAVEDGAME_BYTES = 256 * 1024 * 1024  # inflated size cap: refuse zip bombs, not big games
DEFAULT_DEBOUNCE_S = 0.04
DEFAULT_RETRY_S = 0.1
DEFAULT_GIVE_UP_S = 5.0
MAX_REPLAY_STEPS = 2000

# A planner: a complete file's path and the current answers -> the plan as a JSON dict.
# It raises vassal_parser.errors.InputError for a file it cannot read.
PlanFunction = Callable[[Path, Mapping[str, Any]], dict]
# A log replayer: (step, plan after that step) for step 0 (position when logging began) .. last.
ReplayFunction = Callable[[Path, Mapping[str, Any]], Iterator[tuple[int, dict]]]


class IncompleteFile(Exception):
    """The file is not (yet) a complete, stable VASSAL archive; worth retrying."""


@dataclass(frozen=True)
class FileStamp:
    size: int
    mtime_ns: int


def is_watched_name(path: Path) -> bool:
    """Saves and logs only; VASSAL's `tmp*.zip`, `*.bak`, editor/OS temp files never match.

    Why also skip names starting with `.`/`~`: editors and sync tools park partial copies there.
    """
    name = path.name.lower()
    return not name.startswith((".", "~")) and name.endswith(WATCHED_SUFFIXES)


def _stamp(path: Path) -> FileStamp:
    try:
        stat = path.stat()
    except OSError as exc:
        raise IncompleteFile(f"cannot stat ({exc.strerror or exc})") from None
    return FileStamp(stat.st_size, stat.st_mtime_ns)


def _decodes(data: bytes) -> bool:
    """Does the `savedGame` payload decode to a command stream (spec §2: `!VCSK`, `VOBS`, plain)?"""
    if data.startswith(b"!VCSK"):
        body = data[5:].strip()
        if len(body) < 2 or len(body) % 2:
            return False
        try:
            raw = binascii.unhexlify(body)
        except (binascii.Error, ValueError):
            return False
        key, payload = raw[0], raw[1:]
        head = bytes(b ^ key for b in payload[:10])
    elif data.startswith(b"VOBS"):
        if len(data) < 6:
            return False
        key = data[4]
        head = bytes(b ^ key for b in data[5:15])
    else:
        head = data[:10]
    return head.startswith(b"begin_save")


def check_complete(path: Path) -> FileStamp:
    """Return the file's stamp if it is a complete, stable save/log; else raise IncompleteFile."""
    before = _stamp(path)
    if before.size == 0:
        raise IncompleteFile("empty (being written?)")
    try:
        with zipfile.ZipFile(path) as archive:
            try:
                info = archive.getinfo("savedGame")
            except KeyError:
                raise IncompleteFile("no savedGame entry") from None
            if info.file_size > MAX_SAVEDGAME_BYTES:
                raise IncompleteFile(f"savedGame larger than {MAX_SAVEDGAME_BYTES} bytes")
            data = archive.read(info)  # inflates and checks the CRC
    except zipfile.BadZipFile as exc:
        raise IncompleteFile(f"not a complete zip ({exc})") from None
    except (OSError, EOFError, ValueError, NotImplementedError) as exc:
        raise IncompleteFile(f"unreadable ({exc})") from None
    if not _decodes(data):
        raise IncompleteFile("savedGame does not decode to a VASSAL command stream")
    after = _stamp(path)
    if after != before:
        raise IncompleteFile("changed while being read")
    return after


# --- watchdog -> asyncio, with debounce and retries ----------------------------------------------


class _Forwarder(FileSystemEventHandler):
    """Runs on watchdog's thread; hands every relevant path to the asyncio loop."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        poke: Callable[[Path, float | None], None],
        ignored: Callable[[Path], None],
    ) -> None:
        self._loop = loop
        self._poke = poke
        self._ignored = ignored

    def on_any_event(self, event: FileSystemEvent) -> None:
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


CompleteHandler = Callable[[Path, FileStamp], Awaitable[None]]
RejectHandler = Callable[[Path, str], Awaitable[None]]


class FolderWatcher:
    """Debounced, retrying watcher of one folder (non-recursive).

    Every event for a path restarts its debounce timer; when the path has been quiet for
    `debounce` seconds it is checked; an incomplete file is re-checked every `retry` seconds until
    `give_up` seconds have passed, then reported once through `on_rejected`. A file whose stamp
    equals the last one handled is not handled twice (watchdog often reports one write many times).
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
        log_line: Callable[[str], None] | None = None,
    ) -> None:
        self.folder = folder
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
        self._tasks: set[asyncio.Future[None]] = set()
        self._observer: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        if not self.folder.is_dir():
            raise InputError(self.folder, "not a folder (adjutant watch needs the folder VASSAL saves into)")
        self._loop = asyncio.get_running_loop()
        self._observer = Observer()
        forwarder = _Forwarder(self._loop, self.poke, self._note_ignored)
        self._observer.schedule(forwarder, str(self.folder), recursive=False)
        self._observer.daemon = True
        self._observer.start()

    def stop(self) -> None:
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)
            self._observer = None

    def _note_ignored(self, path: Path) -> None:
        """One log line per ignored name (VASSAL temp files, backups), bounded in memory."""
        if self._log_line is None or path.name in self._ignored_names or len(self._ignored_names) >= 1000:
            return
        self._ignored_names.add(path.name)
        self._log_line(f"{path.name}: ignored (not a .vsav save or .vlog log)")

    def latest_existing(self) -> Path | None:
        """The most recently modified save in the folder, to show something at start-up."""
        saves = [p for p in self.folder.iterdir() if p.suffix.lower() == ".vsav" and is_watched_name(p)]
        return max(saves, key=lambda p: p.stat().st_mtime_ns, default=None)

    def poke(self, path: Path, delay: float | None = None) -> None:
        """Something happened to `path`: (re)start its debounce timer."""
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
            self.poke(path, self._retry)
            return
        self._busy.add(path)
        task = asyncio.ensure_future(self._check(path))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _check(self, path: Path) -> None:
        assert self._loop is not None
        try:
            try:
                stamp = await self._loop.run_in_executor(None, check_complete, path)
            except IncompleteFile as exc:
                if not path.exists():
                    self._first_seen.pop(path, None)
                    return
                waited = time.monotonic() - self._first_seen.get(path, time.monotonic())
                if waited >= self._give_up:
                    self._first_seen.pop(path, None)
                    await self._on_rejected(path, str(exc))
                elif path not in self._timers:
                    self.poke(path, self._retry)
                return
            self._first_seen.pop(path, None)
            if self._handled.get(path) == stamp:
                return
            self._handled[path] = stamp
            await self._on_complete(path, stamp)
        finally:
            self._busy.discard(path)


# --- planning ------------------------------------------------------------------------------------

Publish = Callable[[Mapping[str, Any]], None]


class PlanCoordinator:
    """Turns complete files and client answers into state changes.

    Why one plan at a time: planning a big save takes CPU; running two at once only delays both.
    The planner runs in a worker thread so the websocket side keeps serving heartbeats.
    """

    def __init__(
        self,
        plan_function: PlanFunction,
        publish: Publish,
        *,
        replay_function: ReplayFunction | None = None,
        log_line: Callable[[str], None] = print,
    ) -> None:
        self._plan = plan_function
        self._replay = replay_function
        self._publish = publish
        self._log_line = log_line
        self._lock = asyncio.Lock()
        self.answers: dict[str, Any] = {}
        self.ticks: dict[str, bool] = {}
        self.current: Path | None = None
        self.plan: dict | None = None

    async def file_complete(self, path: Path, stamp: FileStamp | None = None) -> None:
        await self._run(path, reason="file")

    async def file_rejected(self, path: Path, reason: str) -> None:
        self._log_line(f"{path.name}: skipped, {reason}; keeping the last good plan")
        notice = f"{path.name}: {reason}; showing the last good plan"
        self._publish({"notice": notice, "updated": time.time()})

    async def set_answer(self, choice: str, option: Any) -> None:
        """Store an answer and re-plan; an answer the planner refuses is taken back (with a notice)."""
        previous = self.answers.get(choice)
        if option is None:
            self.answers.pop(choice, None)
        else:
            self.answers[choice] = option
        self._publish({"answers": dict(self.answers)})
        if self.current is None:
            return
        if not await self._run(self.current, reason="answer", keep_answers=True):
            if previous is None:
                self.answers.pop(choice, None)
            else:
                self.answers[choice] = previous
            self._publish({"answers": dict(self.answers)})

    def set_tick(self, step: str, done: bool) -> None:
        if done:
            self.ticks[step] = True
        else:
            self.ticks.pop(step, None)
        self._publish({"ticks": dict(self.ticks)})

    def _plan_in_thread(self, path: Path, answers: dict[str, Any]) -> tuple[dict, dict[str, Any] | None]:
        if path.suffix.lower() == ".vlog" and self._replay is not None:
            return self._replay_log(path, answers)
        return self._plan(path, answers), None

    async def _run(self, path: Path, reason: str, keep_answers: bool = False) -> bool:
        """Plan `path` with the current answers and publish it; False (and a notice) if refused.

        Why answers may be cleared: answers belong to a position. When a new save makes one of them
        illegal (the engine refuses it), the save is planned without answers and the players are
        told which answers were dropped, rather than every later save failing.
        """
        async with self._lock:
            started = time.monotonic()
            self._publish({"status": "planning"})
            loop = asyncio.get_running_loop()
            answers = dict(self.answers)
            notice = None
            try:
                try:
                    plan, replay = await loop.run_in_executor(None, self._plan_in_thread, path, answers)
                except InputError as exc:
                    if keep_answers or not answers:
                        raise
                    plan, replay = await loop.run_in_executor(None, self._plan_in_thread, path, {})
                    notice = f"answers to {', '.join(sorted(answers))} were cleared: {exc.one_line()}"
                    self.answers = {}
                    self._log_line(f"{path.name}: {notice}")
            except InputError as exc:
                self._log_line(f"{path.name}: rejected, {exc.one_line()}")
                notice = f"{exc.one_line()}; showing the last good plan"
                self._publish({"status": "error", "notice": notice, "updated": time.time()})
                return False
            plan = protocol.annotate_step_keys(plan)
            live_keys = protocol.step_keys(plan)
            self.ticks = {key: True for key in self.ticks if key in live_keys}
            self.current, self.plan = path, plan
            self._publish(
                {
                    "status": "ok",
                    "file": path.name,
                    "plan": plan,
                    "replay": replay,
                    "answers": dict(self.answers),
                    "ticks": dict(self.ticks),
                    "notice": notice,
                    "updated": time.time(),
                }
            )
            due = sum(1 for event in protocol.iter_events(plan) if protocol.event_is_due(event))
            elapsed_ms = (time.monotonic() - started) * 1000
            what = "replayed" if replay is not None else "planned"
            self._log_line(f"{path.name}: {what} ({reason}), {due} event(s) due, {elapsed_ms:.0f} ms")
            return True

    def _replay_log(self, path: Path, answers: Mapping[str, Any]) -> tuple[dict, dict[str, Any]]:
        assert self._replay is not None
        plans: list[tuple[int, dict]] = []
        for count, (step, plan) in enumerate(self._replay(path, answers)):
            if count >= MAX_REPLAY_STEPS:
                raise InputError(path, f"log has more than {MAX_REPLAY_STEPS} steps; replay stopped")
            plans.append((step, plan))
        if not plans:
            raise InputError(path, "log has no position to replay")
        timeline = protocol.replay_timeline(plans)
        final = dict(plans[-1][1])
        return final, {"steps": plans[-1][0], "became_due": timeline}


# --- the whole daemon ----------------------------------------------------------------------------


class WatchDaemon:
    """Folder watcher + planner + overlay server, wired together (what `adjutant watch` runs)."""

    def __init__(
        self,
        folder: Path,
        plan_function: PlanFunction,
        *,
        replay_function: ReplayFunction | None = None,
        host: str = "127.0.0.1",
        port: int = 8765,
        allowed_origins: tuple[str, ...] = (),
        debounce: float = DEFAULT_DEBOUNCE_S,
        retry: float = DEFAULT_RETRY_S,
        give_up: float = DEFAULT_GIVE_UP_S,
        heartbeat_interval: float = 5.0,
        queue_limit: int = 64,
        history_limit: int = protocol.DEFAULT_HISTORY_LIMIT,
        plan_existing: bool = True,
        log_line: Callable[[str], None] = print,
    ) -> None:
        from bridge.server import OverlayServer  # server imports nothing from here; keep it one-way

        self.folder = Path(folder)
        self.server = OverlayServer(
            host,
            port,
            allowed_origins=allowed_origins,
            heartbeat_interval=heartbeat_interval,
            queue_limit=queue_limit,
            history_limit=history_limit,
        )
        self.coordinator = PlanCoordinator(
            plan_function, self.server.publish, replay_function=replay_function, log_line=log_line
        )
        self.server.on_answer = self.coordinator.set_answer
        self.server.on_tick = self.coordinator.set_tick
        self.watcher = FolderWatcher(
            self.folder,
            self._on_complete,
            self.coordinator.file_rejected,
            debounce=debounce,
            retry=retry,
            give_up=give_up,
            log_line=log_line,
        )
        self._plan_existing = plan_existing
        self._log_line = log_line

    async def _on_complete(self, path: Path, stamp: FileStamp) -> None:
        await self.coordinator.file_complete(path, stamp)

    async def start(self) -> None:
        self.watcher.start()  # validates the folder before a port is taken
        try:
            await self.server.start()
        except OSError as exc:
            self.watcher.stop()
            where = f"{self.server.host}:{self.server.port}"
            hint = "; pick another --port (0 = any free port)" if exc.errno == errno.EADDRINUSE else ""
            raise InputError(where, f"cannot listen: {exc.strerror or exc}{hint}") from None
        self._log_line(f"watching {self.folder} — overlay at {self.server.url}")
        if self._plan_existing:
            latest = self.watcher.latest_existing()
            if latest is not None:
                self.watcher.poke(latest, 0)

    async def stop(self) -> None:
        self.watcher.stop()
        await self.server.stop()

    async def run_until(self, stop: asyncio.Event) -> None:
        await self.start()
        try:
            await stop.wait()
        finally:
            await self.stop()
