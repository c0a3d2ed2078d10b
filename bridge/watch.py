"""Watch a save folder: notice new/changed .vsav/.vlog, wait until each is complete, re-plan.

Why all the care (docs/protocol.md, spec §8.3): VASSAL 3.5+ rewrites a save IN PLACE, so a
watcher sees an empty or half-written zip; older versions write `tmp*.zip` and rename; a log is
written once, at the end. A file is used only when it is *complete*: its size and mtime did not
change while it was read, the zip's central directory opens, the `savedGame` entry inflates with a
good CRC, and its obfuscation layer decodes to the start of a command stream (the reader judges
the rest: a file it refuses gets a notice, never a plan). Anything else is retried, with a
bounded number of attempts, and the last good plan stays on screen meanwhile.

This module never writes to the watched folder.
"""

from __future__ import annotations

import asyncio
import binascii
import contextlib
import errno
import logging
import lzma
import os
import struct
import threading
import time
import zipfile
import zlib
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from bridge import protocol
from bridge.errorlog import bug_line
from vassal_parser.errors import InputError

LOG = logging.getLogger("adjutant.watch")

WATCHED_SUFFIXES = (".vsav", ".vlog")
MAX_SAVEDGAME_BYTES = 256 * 1024 * 1024  # inflated size cap: refuse zip bombs, not big games
DEFAULT_DEBOUNCE_S = 0.04
DEFAULT_RETRY_S = 0.1
DEFAULT_GIVE_UP_S = 5.0
DEFAULT_FOLDER_CHECK_S = 1.0
MAX_REPLAY_STEPS = 2000
_STREAM_START = b"begin_save"
_HEX_HEAD_DIGITS = 2 * (1 + len(_STREAM_START))  # the key byte, then the stream's first word
_CHECK_CHUNK_BYTES = 64 * 1024  # inflated a step at a time: no copy of the whole entry is kept
INLINE_CHECK_BYTES = 1024 * 1024  # files up to this size get `check_structure` on the event loop

# A planner: a complete file's path and the current answers -> the plan as a JSON dict.
# It raises vassal_parser.errors.InputError for a file it cannot read.
PlanFunction = Callable[[Path, Mapping[str, Any]], dict]
AsyncPlanFunction = Callable[[Path, Mapping[str, Any]], Awaitable[dict]]
# A log replayer: (step, plan after that step) for step 0 (position when logging began) .. last.
ReplayFunction = Callable[[Path, Mapping[str, Any]], Iterator[tuple[int, dict]]]
# "Write the moves": the planned file and the answers -> what was written ({"file", "path", ...});
# raises InputError when nothing can be written (unanswered choices, a step the pack cannot place).
WriteFunction = Callable[[Path, Mapping[str, Any]], dict]
WRITE_HOW = "to write the moves as a VASSAL continuation log, start adjutant watch with --out FOLDER"


class IncompleteFile(Exception):
    """The file is not (yet) a complete, stable VASSAL archive; worth retrying."""


class CheckBug(Exception):
    """The check of a file failed in a way nobody foresaw (its cause is the exception): on its way
    from the verification through the planning round to the watcher, which reports it as a check."""


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


def _decodes(head: bytes) -> bool:
    """Does a `savedGame` payload starting with `head` decode to a command stream (spec §2: `!VCSK`,
    `VOBS`, plain)? Only the first bytes are needed: every form starts with `begin_save`.

    Why only the head: the entry is known to be complete once it inflated with a good CRC (the
    writer streams the entry, then writes its CRC, then the central directory). Decoding the whole
    body belongs to the reader, which is stricter than this check (a non-hex character or an odd
    digit count anywhere is an InputError there, so such a file is refused, with its reason,
    and never planned); here it only cost a second copy of a multi-megabyte body per save."""
    if head.startswith(b"!VCSK"):
        body = head[5:].lstrip()[:_HEX_HEAD_DIGITS]
        if len(body) < _HEX_HEAD_DIGITS:
            return False
        try:
            raw = binascii.unhexlify(body)
        except (binascii.Error, ValueError):
            return False
        key, payload = raw[0], raw[1:]
        decoded = bytes(b ^ key for b in payload)
    elif head.startswith(b"VOBS"):
        if len(head) < 6:
            return False
        key = head[4]
        decoded = bytes(b ^ key for b in head[5:15])
    else:
        decoded = head[:10]
    return decoded.startswith(_STREAM_START)


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 120 else text[:117] + "..."


def check_complete(path: Path) -> FileStamp:
    """Return the file's stamp if it is a complete, stable save/log; else raise IncompleteFile."""
    return _check_archive(path, whole=True)


def check_structure(path: Path) -> FileStamp:
    """`check_complete` short of inflating the whole `savedGame` entry to prove its CRC: the zip's
    directory is there (VASSAL writes it last, §8.3), the entry is listed, its first bytes decode,
    and the file did not change meanwhile. What the daemon checks before it sends a save to the
    planner; `check_complete` then runs alongside the plan, and the plan is published only once
    that says the file is whole (`FolderWatcher._verification`)."""
    return _check_archive(path, whole=False)


def _small_archive(path: Path) -> bool:
    """Small enough for `check_structure` on the event loop itself: its zip directory is read
    whole, and one of a file this size is at most a few thousand entries (a few ms at worst; a
    save's is three). Why: the thread for it was ~0.8 ms of a save's way to the overlay."""
    try:
        return path.stat().st_size <= INLINE_CHECK_BYTES
    except OSError:
        return False  # the check on its thread says what is wrong


def _check_archive(path: Path, whole: bool) -> FileStamp:
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
            # Inflated in steps and dropped: the CRC (checked by zipfile at the entry's end) is
            # what proves the entry whole, and only its first bytes are decoded here.
            with archive.open(info) as entry:
                head = entry.read(len(_STREAM_START) + 64)
                while whole and entry.read(_CHECK_CHUNK_BYTES):
                    pass
    except zipfile.BadZipFile as exc:
        raise IncompleteFile(f"not a complete zip ({_short(exc)})") from None
    except (OSError, EOFError, ValueError, NotImplementedError, RuntimeError, lzma.LZMAError, zlib.error,
            struct.error, OverflowError) as exc:
        # RuntimeError: an entry flagged encrypted; UnicodeDecodeError (a ValueError): a name
        # flagged UTF-8 that is not; NotImplementedError: a zip version or method Python lacks.
        raise IncompleteFile(f"unreadable ({_short(exc)})") from None
    if not _decodes(head):
        raise IncompleteFile("savedGame does not decode to a VASSAL command stream")
    after = _stamp(path)
    if after != before:
        raise IncompleteFile("changed while being read")
    return after


Result = TypeVar("Result")


async def in_daemon_thread(function: Callable[..., Result], *args: Any) -> Result:
    """Run blocking work (reading, planning) off the event loop, on a daemon thread.

    Why not `run_in_executor`: `asyncio.run` joins the default executor's threads on exit, so
    Ctrl-C/SIGTERM during a long plan (a 2000-step log replay) would wait for it to finish. A
    daemon thread is simply abandoned at exit; its result, if any, is dropped.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Result] = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if future.done():  # the awaiting task was cancelled (shutdown)
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def work() -> None:
        try:
            outcome: tuple[Any, BaseException | None] = (function(*args), None)
        except BaseException as exc:  # handed to the awaiting task, which re-raises it
            outcome = (None, exc)
        with contextlib.suppress(RuntimeError):  # the loop is already closed: nobody is waiting any more
            loop.call_soon_threadsafe(settle, *outcome)

    name = f"adjutant-{getattr(function, '__name__', 'work')}"
    threading.Thread(target=work, name=name, daemon=True).start()
    return await future


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
                stamp = (check_structure(path) if _small_archive(path)
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


# --- planning ------------------------------------------------------------------------------------

Publish = Callable[[Mapping[str, Any]], None]


def due_summary(plan: Mapping[str, Any], previous: Mapping[str, Any] | None = None) -> str:
    """What the console says of a plan: what is due (rule and title), what became due since the
    previous plan, and what is undecided (a fact it needs is missing)."""
    events = protocol.iter_events(plan)
    due = [e for e in events if protocol.event_is_due(e)]
    before = {e.get("rule") for e in protocol.iter_events(previous) if protocol.event_is_due(e)}
    undecided = [str(e.get("rule")) for e in events if e.get("status") == "undecided"]
    named = [f"{event.get('rule')} {event.get('title')}" for event in due]
    text = f"{len(due)} event(s) due" + (f": {', '.join(named)}" if named else "")
    became = [str(e.get("rule")) for e in due if e.get("rule") not in before]
    if previous is not None and became:
        text += f"; became due: {', '.join(became)}"
    return text + (f"; undecided: {', '.join(undecided)}" if undecided else "")


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
        write_function: WriteFunction | None = None,
        log_line: Callable[[str], None] = print,
        plan_budget: float | None = None,
        plan_async: AsyncPlanFunction | None = None,
    ) -> None:
        self._write = write_function
        # The same planner for the event loop itself (`ProcessPlanner.plan_async`): a save is then
        # planned without a thread hop on either side; logs are still replayed on a thread.
        self._plan_async = plan_async
        self.writeback: dict[str, Any] = {
            "enabled": write_function is not None, "last": None, "error": None,
            "how": None if write_function is not None else WRITE_HOW}
        self._plan = plan_function
        # Seconds one planning round may take before the file gets a notice and the next save is
        # planned (None: no limit here; `bridge.planner_process` bounds the real planner itself).
        self._plan_budget = plan_budget
        self._replay = replay_function
        self._publish = publish
        self._log_line = log_line
        self._lock = asyncio.Lock()
        self.answers: dict[str, Any] = {}
        self.ticks: dict[str, bool] = {}
        self.current: Path | None = None
        self.plan: dict | None = None
        self._settled = "waiting"  # the status of the last round that ended ("ok", "error")
        self._file_requests = 0

    async def file_complete(self, path: Path, stamp: FileStamp | None = None,
                            verification: Awaitable[None] | None = None) -> None:
        """Plan a complete file, unless a newer one arrives while it waits for the planner.

        Why skip: in a burst (a folder of saves copied in) only the newest is what the players
        are looking at; planning every superseded one first only delays it. `verification`
        (`FolderWatcher._verification`) is awaited before the plan, or the planner's refusal, is
        acted on: it raises IncompleteFile when the file is not whole, and then nothing is shown
        (the watcher tries the file again)."""
        self._file_requests += 1
        await self._run(path, reason="file", ticket=self._file_requests, verification=verification)

    async def file_rejected(self, path: Path, reason: str) -> None:
        self._log_line(f"{path.name}: skipped, {reason}; keeping the last good plan")
        notice = f"{path.name}: {reason}; showing the last good plan"
        self._publish({"notice": notice, "updated": time.time()})

    def folder_notice(self, message: str) -> None:
        """The watched folder vanished or came back: players see it; the last plan stays."""
        self._publish({"notice": message, "updated": time.time()})

    async def set_answer(self, choice: str, option: Any) -> None:
        """Store an answer and re-plan; an answer the planner refuses is taken back (with a notice).

        Why all of it under the planning lock: two players answering at once must not interleave
        (the second's answer would be planned by the first's run, and the first's take-back would
        then erase an answer that was accepted)."""
        async with self._lock:
            previous = self.answers.get(choice)
            if option is None:
                self.answers.pop(choice, None)
            elif choice.startswith("fact:"):  # a game fact: kept with who gave it and the map's game turn
                turn = ((self.plan or {}).get("game_facts") or {}).get("turn")
                self.answers[choice] = {"value": option, "by": "control view", "turn": turn}
            else:
                self.answers[choice] = option
            self._publish({"answers": dict(self.answers)})
            if self.current is None:
                return
            if not await self._run_locked(self.current, reason="answer", keep_answers=True):
                if previous is None:
                    self.answers.pop(choice, None)
                else:
                    self.answers[choice] = previous
                self._publish({"answers": dict(self.answers)})

    async def write_moves(self) -> None:
        """Write the current plan's moves (the control view's button): a continuation log.

        Why under the planning lock: the file written must be the plan every view shows, with the
        answers it was planned with — not a plan half replaced by a save landing meanwhile."""
        async with self._lock:
            if self._write is None:
                self._publish_writeback(error=WRITE_HOW)
                return
            if self.current is None:
                self._publish_writeback(error="no game file has been planned yet")
                return
            try:
                written = await in_daemon_thread(self._write, self.current, dict(self.answers))
            except InputError as exc:
                self._log_line(f"{self.current.name}: moves not written, {exc.one_line()}")
                self._publish_writeback(error=exc.one_line())
                return
            except Exception as exc:  # a bug: one line and the log, the daemon goes on (issue 14)
                self._log_line(bug_line(f"{self.current.name}: writing the moves", exc))
                self._publish_writeback(error=f"{self.current.name}: moves not written (internal error, "
                                              "see the log)")
                return
            self._log_line(f"{self.current.name}: moves written to {written.get('path')}")
            self._publish_writeback(last={**written, "time": time.time()}, error=None)

    def _publish_writeback(self, **changes: Any) -> None:
        self.writeback = {**self.writeback, **changes}
        self._publish({"writeback": dict(self.writeback)})

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

    async def _run(
        self, path: Path, reason: str, keep_answers: bool = False, ticket: int | None = None,
        verification: Awaitable[None] | None = None,
    ) -> bool:
        """Plan `path` with the current answers and publish it; False (and a notice) if refused.

        Why answers may be cleared: answers belong to a position. When a new save makes one of them
        illegal (the engine refuses it), the save is planned without answers and the players are
        told which answers were dropped, rather than every later save failing.
        """
        async with self._lock:
            if ticket is not None and ticket != self._file_requests:
                self._log_line(f"{path.name}: skipped, superseded by a newer file")
                return False
            return await self._run_locked(path, reason, keep_answers, verification)

    async def _run_locked(self, path: Path, reason: str, keep_answers: bool = False,
                          verification: Awaitable[None] | None = None) -> bool:
        """`_run`'s body; the caller holds the planning lock."""
        started = time.monotonic()
        # "planning" goes out once the job is on its way: the planner's first step (sending the job
        # to the worker process) runs before this coroutine first waits, and the message is then
        # published while the worker plans, not before the job is sent. A round that ends before
        # it is published (the planner refused at once) cancels it.
        planning = asyncio.get_running_loop().call_soon(self._publish, {"status": "planning"})
        answers = dict(self.answers)
        notice = None
        try:
            try:
                plan, replay = await self._proved(self._plan_bounded(path, answers), verification)
            except InputError as exc:
                if keep_answers or not answers:
                    raise
                plan, replay = await self._plan_bounded(path, {})
                notice = f"answers to {', '.join(sorted(answers))} were cleared: {exc.one_line()}"
                self.answers = {}
                self._log_line(f"{path.name}: {notice}")
        except (IncompleteFile, CheckBug):  # the watcher's to handle: the file was not proved whole
            planning.cancel()
            raise
        except InputError as exc:
            planning.cancel()
            self._settled = "error"
            self._log_line(f"{path.name}: rejected, {exc.one_line()}")
            notice = f"{exc.one_line()}; showing the last good plan"
            self._publish({"status": "error", "notice": notice, "updated": time.time()})
            return False
        except Exception as exc:  # a planner bug: end the round with a notice, keep the last plan
            planning.cancel()
            self._settled = "error"
            details = getattr(exc, "details", None)  # a worker process's traceback text
            self._log_line(bug_line(f"{path.name}: planning", details if isinstance(details, str) else exc,
                                    f"{type(exc).__name__}: {exc}"))
            notice = (f"{path.name}: could not be planned (internal error, see the log); "
                      "showing the last good plan")
            self._publish({"status": "error", "notice": notice, "updated": time.time()})
            return False
        planning.cancel()  # (only a planner that never waited gets here before it ran)
        self._settled = "ok"
        plan = protocol.annotate_step_keys(plan)
        live_keys = protocol.step_keys(plan)
        self.ticks = {key: True for key in self.ticks if key in live_keys}
        previous = self.plan
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
        elapsed_ms = (time.monotonic() - started) * 1000
        # The pages' senders run first (they were woken by the publish); the console line after.
        await asyncio.sleep(0)
        what = "replayed" if replay is not None else "planned"
        self._log_line(f"{path.name}: {what} ({reason}), {due_summary(plan, previous)}, {elapsed_ms:.0f} ms")
        return True

    async def _proved(self, work: Awaitable[Result], verification: Awaitable[None] | None) -> Result:
        """`work`'s outcome (its failure too) once `verification` proved the file whole: of a file
        that is not, IncompleteFile, and nothing is shown and no answer is dropped for it."""
        try:
            result = await work
        except Exception:
            await self._whole(verification)
            raise
        await self._whole(verification)
        return result

    async def _whole(self, verification: Awaitable[None] | None) -> None:
        """Wait for the file's verification; when it is not whole, the pages' "planning" gives way
        to the status before this round, and IncompleteFile goes to the watcher."""
        if verification is None:
            return
        try:
            await verification
        except (IncompleteFile, CheckBug):
            self._publish({"status": self._settled})
            raise

    async def _plan_bounded(self, path: Path, answers: dict[str, Any]) -> tuple[dict, dict[str, Any] | None]:
        """The planner on a worker thread, given at most `plan_budget` seconds (when set).

        Past the budget the round ends with an InputError naming the file; the thread is left to
        finish on its own (its result is dropped), so the next save is planned meanwhile."""
        if self._plan_async is not None and not (path.suffix.lower() == ".vlog" and self._replay is not None):
            work = self._planned_on_loop(path, answers)
        else:
            work = in_daemon_thread(self._plan_in_thread, path, answers)
        if self._plan_budget is None:
            return await work
        try:
            return await asyncio.wait_for(work, self._plan_budget)
        except TimeoutError:
            raise InputError(path, f"planning took longer than {self._plan_budget:g} s and was stopped; "
                                   "the next save will be planned") from None

    async def _planned_on_loop(self, path: Path, answers: dict[str, Any]) -> tuple[dict, None]:
        assert self._plan_async is not None
        return await self._plan_async(path, answers), None

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


def _persisting(publish: Publish, store: Any, log_line: Callable[[str], None],
                kept: Mapping[str, Any] | None = None) -> Publish:
    """`publish`, also writing the answers to the store whenever a change carries new ones.

    Why only new ones: every plan's change carries the answers, and rewriting an unchanged file
    (a temporary name, a rename, on the first write the writer's import too) put ~15 ms between a
    save's plan and the overlay. `kept` is what the store already holds (its `load()`); a write that
    fails is tried again with the next change."""
    written: list[dict[str, Any] | None] = [dict(kept) if kept is not None else None]

    def publish_and_keep(changes: Mapping[str, Any]) -> None:
        publish(changes)
        if "answers" in changes:
            answers = dict(changes["answers"] or {})
            if answers == written[0]:
                return
            try:
                store.save(answers)
            except OSError as exc:
                log_line(f"cannot keep the answers in {store.path}: {exc.strerror or exc}")
                return
            written[0] = answers

    return publish_and_keep


class WatchDaemon:
    """Folder watcher + planner + overlay server, wired together (what `adjutant watch` runs)."""

    def __init__(
        self,
        folder: Path,
        plan_function: PlanFunction,
        *,
        replay_function: ReplayFunction | None = None,
        write_function: WriteFunction | None = None,
        host: str = "127.0.0.1",
        port: int = 8765,
        allowed_origins: tuple[str, ...] = (),
        debounce: float = DEFAULT_DEBOUNCE_S,
        retry: float = DEFAULT_RETRY_S,
        give_up: float = DEFAULT_GIVE_UP_S,
        folder_check: float = DEFAULT_FOLDER_CHECK_S,
        heartbeat_interval: float = 5.0,
        queue_limit: int = 64,
        history_limit: int = protocol.DEFAULT_HISTORY_LIMIT,
        plan_existing: bool = True,
        log_line: Callable[[str], None] = print,
        plan_budget: float | None = None,
        answer_store: Any = None,
        plan_async: AsyncPlanFunction | None = None,
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
        publish = self.server.publish
        kept = answer_store.load() if answer_store is not None else {}
        if answer_store is not None:  # bridge.answer_store: answers kept across a restart
            publish = _persisting(publish, answer_store, log_line, kept)
        self.coordinator = PlanCoordinator(
            plan_function, publish, replay_function=replay_function,
            write_function=write_function, log_line=log_line, plan_budget=plan_budget,
            plan_async=plan_async,
        )
        # The starting state, not a change: no delta (sequence numbers still start at 0).
        self.server.history.state["writeback"] = dict(self.coordinator.writeback)
        self.server.on_write = self.coordinator.write_moves
        if answer_store is not None:  # the answers given before a restart (starting state, too)
            self.coordinator.answers = dict(kept)
            if self.coordinator.answers:
                self.server.history.state["answers"] = dict(self.coordinator.answers)
        self.server.on_answer = self.coordinator.set_answer
        self.server.on_tick = self.coordinator.set_tick
        self.watcher = FolderWatcher(
            self.folder,
            self._on_complete,
            self.coordinator.file_rejected,
            debounce=debounce,
            retry=retry,
            give_up=give_up,
            folder_check=folder_check,
            on_folder=self.coordinator.folder_notice,
            log_line=log_line,
        )
        self._plan_existing = plan_existing
        self._log_line = log_line

    async def _on_complete(self, path: Path, stamp: FileStamp, verification: asyncio.Future[None]) -> None:
        await self.coordinator.file_complete(path, stamp, verification)

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
        from bridge.server import is_loopback_host

        if not is_loopback_host(self.server.host):
            self._log_line(
                f"bound to {self.server.host}: anyone on the network can open the overlay (the stream view"
                " hides private pieces; player/control do not); other sites' pages need --allow-origin"
            )
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
