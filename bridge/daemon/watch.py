"""The daemon's rounds: a whole file planned, the answers kept, the plan published; the daemon itself.

A file arrives here from the folder watcher (bridge/daemon/folder.py) once it is known to be a VASSAL
archive; its plan is shown only when the CRC pass (bridge/daemon/completeness.py) proved it whole, and
the last good plan stays on screen meanwhile. `WatchDaemon` wires the watcher, the rounds and the
overlay server (bridge/web/server.py) together. This module never writes to the watched folder.
"""

from __future__ import annotations

import asyncio
import errno
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from bridge.common.errorlog import bug_line
from bridge.daemon.completeness import CheckBug, FileStamp, IncompleteFile
from bridge.daemon.folder import (
    DEFAULT_DEBOUNCE_S,
    DEFAULT_FOLDER_CHECK_S,
    DEFAULT_GIVE_UP_S,
    DEFAULT_RETRY_S,
    FolderWatcher,
)
from bridge.daemon.threads import Result, in_daemon_thread
from bridge.daemon.ticks import TickBook
from bridge.web import protocol
from vassal_parser.errors import InputError

MAX_REPLAY_STEPS = 2000

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


# --- planning ------------------------------------------------------------------------------------

Publish = Callable[[Mapping[str, Any]], None]


def due_summary(plan: Mapping[str, Any], previous: Mapping[str, Any] | None = None) -> str:
    """What the console says of a plan: what is due (rule and title), what became due since the
    previous plan, what is owed (fired earlier, not all made) and what is undecided (a fact is missing)."""
    events = protocol.iter_events(plan)
    due = [e for e in events if protocol.event_is_due(e)]
    before = {e.get("rule") for e in protocol.iter_events(previous) if protocol.event_is_due(e)}
    undecided = [str(e.get("rule")) for e in events if e.get("status") == "undecided"]
    owed = [str(e.get("rule")) for e in events if protocol.event_is_owed(e)]
    named = [f"{event.get('rule')} {event.get('title')}" for event in due]
    text = f"{len(due)} event(s) due" + (f": {', '.join(named)}" if named else "")
    became = [str(e.get("rule")) for e in due if e.get("rule") not in before]
    if previous is not None and became:
        text += f"; became due: {', '.join(became)}"
    if owed:  # fired earlier, its steps only partly made (issue 37)
        text += f"; owed: {', '.join(owed)}"
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
        # planned (None: no limit here; `bridge.daemon.planner_process` bounds the real planner itself).
        self._plan_budget = plan_budget
        self._replay = replay_function
        self._publish = publish
        self._log_line = log_line
        self._lock = asyncio.Lock()
        self.answers: dict[str, Any] = {}
        self.ticks: dict[str, bool] = {}  # what the views are sent: step key -> True, ticked off
        self._tick_book = TickBook()  # hand ticks, and owed steps ticked as the position judges them
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
        self._log_line(f"{path.name}: skipped, {reason}; {self._kept('keeping')}")
        notice = f"{path.name}: {reason}; {self._kept()}"
        self._publish({"notice": notice, "updated": time.time()})

    def _kept(self, verb: str = "showing") -> str:
        """What stays on screen after a refusal: the last good plan, or (before any) nothing yet."""
        if self.plan is None:
            return "no plan yet: waiting for a save that can be read"
        return f"{verb} the last good plan"

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
            # `for`: the save the moves belong to, so a view can tell once another save is planned.
            last = {**written, "for": self.current.name, "time": time.time()}
            self._publish_writeback(last=last, error=None)

    def _publish_writeback(self, **changes: Any) -> None:
        self.writeback = {**self.writeback, **changes}
        self._publish({"writeback": dict(self.writeback)})

    def set_tick(self, step: str, done: bool) -> None:
        """A person ticked or unticked a step. Of an owed event's step (judged by the position) it is
        kept for the current file: a made step unticked stays unticked through re-plans of that file."""
        self._tick_book.set(self.plan, self._file_key(), step, done)
        self.ticks = self._tick_book.ticks(self.plan, self._file_key())
        self._publish({"ticks": dict(self.ticks)})

    def _file_key(self) -> str:
        return str(self.current) if self.current is not None else ""

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
            notice = f"{exc.one_line()}; {self._kept()}"
            self._publish({"status": "error", "notice": notice, "updated": time.time()})
            return False
        except Exception as exc:  # a planner bug: end the round with a notice, keep the last plan
            planning.cancel()
            self._settled = "error"
            details = getattr(exc, "details", None)  # a worker process's traceback text
            self._log_line(bug_line(f"{path.name}: planning", details if isinstance(details, str) else exc,
                                    f"{type(exc).__name__}: {exc}"))
            notice = f"{path.name}: could not be planned (internal error, see the log); {self._kept()}"
            self._publish({"status": "error", "notice": notice, "updated": time.time()})
            return False
        planning.cancel()  # (only a planner that never waited gets here before it ran)
        self._settled = "ok"
        plan = protocol.annotate_step_keys(plan)
        live_keys = protocol.step_keys(plan)
        self._tick_book.keep_only(live_keys)
        previous = self.plan
        self.current, self.plan = path, plan
        self.ticks = self._tick_book.ticks(plan, self._file_key())
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
            if count > MAX_REPLAY_STEPS:  # steps 0 .. MAX_REPLAY_STEPS are followed
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
    failing = [False]

    def publish_and_keep(changes: Mapping[str, Any]) -> None:
        publish(changes)
        if "answers" in changes:
            answers = dict(changes["answers"] or {})
            if answers == written[0]:
                return
            try:
                store.save(answers)
            except OSError as exc:
                line = f"cannot keep the answers in {store.path}: {exc.strerror or exc}"
                log_line(line)
                # the control view says so (issue 23: they were lost on restart with only this log line)
                publish({"storage": {"answers_kept": False, "error": line}})
                failing[0] = True
                return
            if failing[0]:
                publish({"storage": None})
            failing[0] = False
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
        tokens: Any = None,
    ) -> None:
        from bridge.web.server import OverlayServer  # server imports nothing from here; keep it one-way

        self.folder = Path(folder)
        self.server = OverlayServer(
            host,
            port,
            allowed_origins=allowed_origins,
            heartbeat_interval=heartbeat_interval,
            queue_limit=queue_limit,
            history_limit=history_limit,
            tokens=tokens,  # bridge/web/access.py: None = this start's own
        )
        self.server.private_folders = tuple(dict.fromkeys((str(self.folder), str(self.folder.resolve()))))
        publish = self.server.publish
        kept = answer_store.load() if answer_store is not None else {}
        if answer_store is not None:  # bridge.daemon.answer_store: answers kept across a restart
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
        self._log_line(f"watching {self.folder} — overlay at {self.server.url} (each page needs its URL "
                       "with this start's token)")
        from bridge.web.server import is_loopback_host

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
