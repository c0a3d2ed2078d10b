"""The daemon's planner in a worker process with a time budget: one hostile save cannot stall it.

Why a process and not a thread: a thread cannot be stopped, and a runaway plan in one holds the
interpreter lock, so on a 2-core machine every later save would crawl behind it. A process is
killed when its budget is spent (its memory goes with it), the file gets a notice, and a fresh
worker plans the next save. The worker keeps its `CheckPipeline` (module, pack and the per-piece
memos) between saves, so the usual save costs what it cost in-process plus a pickled plan.

Memory: the worker's address space is limited (`MEMORY_LIMIT_BYTES`), so a blow-up is a
MemoryError in the worker — reported with the file's name — not the machine swapping.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import multiprocessing
import signal
import sys
import threading
import traceback
from collections.abc import Iterator, Mapping
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from bridge.reports.session_owed import FiredMemory
from vassal_parser.collector import collector_paused, freeze_start_up_state
from vassal_parser.errors import InputError

DEFAULT_PLAN_BUDGET_S = 60.0
START_BUDGET_FACTOR = 3  # loading module and pack may take longer than one plan
MEMORY_LIMIT_BYTES = 4 * 1024**3
SETTLE_BEFORE_COLLECTING_S = 0.05  # after a plan is sent, before the worker's collector runs
_EVENT_KEYS = (
    "id", "rule", "title", "fired", "status", "hidden", "masked", "private", "hidden_by", "masked_by",
)


class PlannerBug(Exception):
    """The worker hit a bug; `details` is its traceback text (for the error log)."""

    def __init__(self, summary: str, details: str) -> None:
        super().__init__(summary)
        self.details = details


def _limit_memory(limit: int | None) -> None:
    if not limit:
        return
    try:
        import resource

        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard == resource.RLIM_INFINITY or hard > limit:
            resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ImportError, ValueError, OSError):
        pass  # not on this platform: the time budget still holds


def _timeline_only(plan: Mapping[str, Any]) -> dict[str, Any]:
    """What `protocol.replay_timeline` reads of a step's plan: each event's identity and due state."""
    events = plan.get("events")
    if not isinstance(events, list):
        return {"events": []}
    return {"events": [{k: e[k] for k in _EVENT_KEYS if k in e} for e in events if isinstance(e, Mapping)]}


def _worker(conn: Connection, module: str, pack: str, extensions: list[str], memory_limit: int | None,
            max_steps: int) -> None:
    """The worker's loop: ("plan"|"replay", path, answers) in, ("ok"|"input"|"bug", payload) out.

    Ctrl+C reaches the whole process group; the daemon stops this worker itself (`_stop_worker`), so
    the worker ignores it rather than print "Process adjutant-planner:" and a traceback (issue 41)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _limit_memory(memory_limit)
    try:
        from bridge.pipeline import CheckPipeline

        pipeline = CheckPipeline(module, pack, extensions=extensions)
        if hasattr(pipeline, "warm_up"):
            pipeline.warm_up()  # layouts built and an empty position planned before the first save
        # What start-up built (module, pack, layouts, warmed memos) lives as long as the worker:
        # out of the collector's sight, a full collection during a big first save visits only the
        # new objects (it visited all of them: ~12 ms of a 5,000-piece first save). Reference
        # counting still frees them; only cycles among them would stay, and they are never garbage.
        gc.collect()
        freeze_start_up_state()
    except InputError as exc:
        conn.send(("input", (exc.source, exc.message)))
        return
    except BaseException:
        conn.send(("bug", ("loading the module and pack", traceback.format_exc())))
        return
    conn.send(("ready", None))
    while True:
        try:
            kind, path, answers, earlier = conn.recv()
        except (EOFError, OSError):
            return
        # A save's plan is made and sent with the cyclic collector paused: the collection of what
        # the read allocated then runs after the overlay has its plan, not before (a 5,000-piece
        # first save's objects cost it ~8 ms). Replays, not waited for by the overlay, run as usual.
        if kind != "plan":
            _answer(conn, pipeline, kind, path, answers, memory_limit, max_steps, earlier)
            continue
        with collector_paused():
            _answer(conn, pipeline, kind, path, answers, memory_limit, max_steps, earlier)
            # ... and not at once either: the daemon now unpickles and publishes the plan, and the
            # page reads it; on a 2-core machine a collection started here takes the core one of
            # them needs. It waits until the next job arrives or the daemon has had its moment.
            with contextlib.suppress(OSError, EOFError):  # the daemon is gone: the next recv says so
                conn.poll(SETTLE_BEFORE_COLLECTING_S)


def _answer(conn: Connection, pipeline: Any, kind: str, path: str, answers: Any, memory_limit: int | None,
            max_steps: int, earlier: Any = ()) -> None:
    """Plan one job and send what came of it. `earlier`: the events fired in the files planned before
    (`FiredMemory.basis`), whose steps a partly made position still owes (issue 37)."""
    from bridge.reports.session_owed import plan_with_owed, replay_with_owed

    try:
        if kind == "plan":
            result: Any = plan_with_owed(pipeline, path, answers, earlier)
        else:
            plans = replay_with_owed(pipeline, path, answers, earlier, max_steps)
            result = [(step, plan if i == len(plans) - 1 else _timeline_only(plan))
                      for i, (step, plan) in enumerate(plans)]
        conn.send(("ok", result))
    except InputError as exc:
        conn.send(("input", (exc.source, exc.message)))
    except MemoryError:
        conn.send(("input", (path, f"planning needed more than {memory_limit} bytes of memory; stopped")))
    except Exception as exc:
        conn.send(("bug", (f"{type(exc).__name__}: {exc}", traceback.format_exc())))


class ProcessPlanner:
    """`plan(path, answers)` and `replay(path, answers)` run in a worker process, each within `budget`.

    Why the lock: calls come from the daemon's worker threads; the coordinator runs one plan at
    a time, and the lock keeps that true even for a call it stopped waiting for.
    """

    def __init__(self, module: str | Path, pack: str, extensions: tuple[str | Path, ...] = (), *,
                 budget: float = DEFAULT_PLAN_BUDGET_S, memory_limit: int | None = MEMORY_LIMIT_BYTES,
                 max_steps: int = 2000) -> None:
        self._args = (str(module), str(pack), [str(e) for e in extensions], memory_limit, max_steps)
        self.module = Path(module)
        self.budget = budget
        self.memory_limit = memory_limit
        self._lock = threading.Lock()
        self._process: Any = None
        self._conn: Connection | None = None
        self.restarts = 0
        # The events fired in the files planned so far (their steps stay owed until a position shows
        # them made, issue 37): kept here, so a worker killed for its budget does not forget them.
        self.fired = FiredMemory()

    # --- worker life -------------------------------------------------------------------------------
    def start(self) -> None:
        """Start the worker and wait until it has loaded module and pack (InputError if they are bad)."""
        with self._lock:
            self._ensure_worker()

    def _ensure_worker(self) -> None:
        if self._process is not None and self._process.is_alive():
            return
        self._stop_worker()
        context = multiprocessing.get_context("spawn")
        ours, theirs = context.Pipe()
        process = context.Process(target=_worker, args=(theirs, *self._args), name="adjutant-planner",
                                  daemon=True)
        process.start()
        theirs.close()
        self._process, self._conn = process, ours
        start_budget = self.budget * START_BUDGET_FACTOR
        status, payload = self._receive(start_budget, self.module, "loading the module and pack")
        if status == "input":
            self._stop_worker()
            raise InputError(payload[0], payload[1])
        if status == "bug":
            self._stop_worker()
            raise PlannerBug(f"the planner could not start ({payload[0]})", payload[1])

    def _receive(self, budget: float, path: str | Path, what: str) -> tuple[str, Any]:
        assert self._conn is not None
        try:
            ready = self._conn.poll(budget)
            if ready:
                return self._conn.recv()
        except (EOFError, OSError):
            raise self._stopped(path, what) from None
        self._stop_worker()
        self.restarts += 1
        raise InputError(path, f"{what} took longer than {budget:g} s and was stopped; "
                               "the next save will be planned")

    def _stop_worker(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._process is not None:
            if self._process.is_alive():
                self._process.kill()
            self._process.join(timeout=5)
            self._process = None

    def close(self) -> None:
        with self._lock:
            self._stop_worker()

    # --- calls -------------------------------------------------------------------------------------
    def _call(self, kind: str, path: Path, answers: Mapping[str, Any]) -> Any:
        with self._lock:
            self._ensure_worker()
            assert self._conn is not None
            try:
                self._conn.send((kind, str(path), dict(answers), self.fired.basis()))
            except (OSError, ValueError):
                self._stop_worker()
                gone = "the planner went away; the next save will be planned afresh"
                raise InputError(path, gone) from None
            status, payload = self._receive(self.budget, path, "planning")
            if status == "ok":
                self.fired.remember(payload if kind == "plan" else payload[-1][1] if payload else None)
        if status == "ok":
            return payload
        if status == "input":
            raise InputError(payload[0], payload[1])
        raise PlannerBug(payload[0], payload[1])

    def plan(self, path: Path, answers: Mapping[str, Any]) -> dict:
        return self._call("plan", path, answers)

    async def plan_async(self, path: Path, answers: Mapping[str, Any]) -> dict:
        """`plan` for the daemon's event loop: the job is sent, and its answer read, on the loop.

        Why: a save's plan went loop -> a new thread -> the worker -> that thread -> the loop, and
        each hop waits to be scheduled (traced: ~1-2 ms of a first save's ~15 ms around the
        plan, more under load). The same budget holds: past it the worker is killed and the file
        gets the same InputError. When the worker is not up and idle (not started, killed after an
        overrun, a call still in flight), the call goes the threaded way, which starts it afresh; so
        it does on Windows, whose event loop cannot wait on a pipe (`add_reader`)."""
        if sys.platform == "win32" or not self._lock.acquire(blocking=False):
            return await self._threaded(path, answers)
        if self._conn is None or self._process is None or not self._process.is_alive():
            self._lock.release()
            return await self._threaded(path, answers)
        try:
            status, payload = await self._exchange(self._conn, path, answers)
            if status == "ok":
                self.fired.remember(payload)
        finally:
            self._lock.release()
        if status == "ok":
            return payload
        if status == "input":
            raise InputError(payload[0], payload[1])
        raise PlannerBug(payload[0], payload[1])

    async def _threaded(self, path: Path, answers: Mapping[str, Any]) -> dict:
        from bridge.daemon.threads import in_daemon_thread

        return await in_daemon_thread(self.plan, path, answers)

    async def _exchange(self, conn: Connection, path: Path, answers: Mapping[str, Any]) -> tuple[str, Any]:
        """Send one plan job and read its answer without blocking the loop; the caller holds the lock."""
        try:
            conn.send(("plan", str(path), dict(answers), self.fired.basis()))
        except (OSError, ValueError):
            self._stop_worker()
            raise InputError(path, "the planner went away; the next save will be planned afresh") from None
        loop = asyncio.get_running_loop()
        readable: asyncio.Future[None] = loop.create_future()

        def ready() -> None:
            if not readable.done():
                readable.set_result(None)

        fd = conn.fileno()
        loop.add_reader(fd, ready)
        try:
            await asyncio.wait_for(readable, self.budget)
        except TimeoutError:
            loop.remove_reader(fd)
            self._stop_worker()
            self.restarts += 1
            raise InputError(path, f"planning took longer than {self.budget:g} s and was stopped; "
                                   "the next save will be planned") from None
        except BaseException:  # cancelled (shutdown): its answer must not be read as the next job's
            loop.remove_reader(fd)
            self._stop_worker()
            raise
        loop.remove_reader(fd)
        try:
            return conn.recv()
        except (EOFError, OSError):
            raise self._stopped(path, "planning") from None

    def _stopped(self, path: str | Path, what: str) -> InputError:
        """The worker went away while `what`: forgotten, counted, and said for `path` in one line."""
        code = self._process.exitcode if self._process is not None else None
        self._stop_worker()
        self.restarts += 1
        return InputError(path, f"the planner stopped while {what} (exit code {code}); "
                                "the next save will be planned afresh")

    def replay(self, path: Path, answers: Mapping[str, Any]) -> Iterator[tuple[int, dict]]:
        yield from self._call("replay", path, answers)
