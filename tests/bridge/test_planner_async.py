"""`ProcessPlanner.plan_async`: a save's plan sent to the worker process, and read back, on the
daemon's event loop (no thread hop either side, issue 15), with every guarantee of the threaded
call: the same plan, the same time budget (the worker killed, the file an InputError, the next
save planned by a fresh worker), a worker that dies or a call that is cancelled never leaves an
answer to be read as the next job's, and a worker that is not up goes the threaded way."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from websockets.asyncio.client import connect

from bridge.daemon.planner_process import ProcessPlanner
from bridge.reports.session_owed import FiredMemory
from tests.bridge.harness import daemon_running, receive_until, run, ws_url
from tests.bridge.savefiles import write_in_place
from vassal_parser.errors import InputError

DEMO = Path(__file__).resolve().parents[2] / "module_patches" / "demo"
SAVES = (DEMO / "saves" / "02-poland-falls.vsav", DEMO / "saves" / "05-case-yellow.vsav")


def _fresh(planner: ProcessPlanner) -> ProcessPlanner:
    """The planner with no file planned before (issue 37's session memory of fired events emptied): the
    two ways of calling it are compared from the same state."""
    planner.fired = FiredMemory()
    return planner


@pytest.fixture(scope="module")
def planner() -> ProcessPlanner:
    planner = ProcessPlanner(DEMO / "adjutant-demo.vmod", str(DEMO / "pack"), budget=60)
    planner.start()
    yield planner
    planner.close()


def test_the_plan_on_the_loop_is_the_threaded_plan(planner: ProcessPlanner) -> None:
    for save in SAVES:
        async_plan = run(lambda save=save: _fresh(planner).plan_async(save, {}))
        assert async_plan == _fresh(planner).plan(save, {})


def test_an_overrun_is_stopped_and_a_fresh_worker_plans_the_next_save(planner: ProcessPlanner) -> None:
    restarts = planner.restarts
    planner.budget = 0  # no plan fits: the worker is killed, as in the threaded call
    try:
        with pytest.raises(InputError) as caught:
            run(lambda: planner.plan_async(SAVES[1], {}))
    finally:
        planner.budget = 60
    assert caught.value.one_line().startswith(f"{SAVES[1]}: planning took longer than")
    assert planner.restarts == restarts + 1 and planner._process is None
    assert run(lambda: planner.plan_async(SAVES[1], {}))["turn"]  # the threaded way starts a worker
    assert planner._process is not None and planner._process.is_alive()


def test_a_worker_that_dies_mid_plan_is_an_input_error_and_is_replaced(planner: ProcessPlanner) -> None:
    planner.plan(SAVES[0], {})  # up and idle
    restarts = planner.restarts

    async def scenario() -> None:
        asyncio.get_running_loop().call_soon(planner._process.kill)  # runs once the job is sent
        await planner.plan_async(SAVES[0], {})

    with pytest.raises(InputError, match="the planner stopped while planning"):
        run(scenario)
    assert planner.restarts == restarts + 1
    assert run(lambda: planner.plan_async(SAVES[0], {}))["turn"]


def test_a_cancelled_call_leaves_no_answer_for_the_next_job(planner: ProcessPlanner) -> None:
    planner.plan(SAVES[0], {})

    async def scenario() -> dict:
        job = asyncio.ensure_future(planner.plan_async(SAVES[0], {}))
        await asyncio.sleep(0)  # the job is sent and waits for its answer
        job.cancel()
        with pytest.raises(asyncio.CancelledError):
            await job
        assert planner._process is None  # its answer would have been read by the next call
        _fresh(planner)
        return await planner.plan_async(SAVES[1], {})

    async_plan = run(scenario)
    assert async_plan == _fresh(planner).plan(SAVES[1], {})


def test_a_call_still_in_flight_sends_the_next_one_the_threaded_way(planner: ProcessPlanner) -> None:
    planner.plan(SAVES[0], {})
    planner._lock.acquire()  # a threaded call the coordinator stopped waiting for
    threading.Timer(0.2, planner._lock.release).start()
    async_plan = run(lambda: _fresh(planner).plan_async(SAVES[1], {}))
    assert async_plan == _fresh(planner).plan(SAVES[1], {})
    assert not planner._lock.locked()


def test_the_daemon_plans_saves_on_the_loop_and_replays_logs_on_a_thread(
        planner: ProcessPlanner, tmp_path: Path) -> None:
    planner.plan(SAVES[0], {})
    threads: list[str] = []

    def replay(path: Path, answers: dict):
        threads.append(threading.current_thread().name)
        yield from planner.replay(path, answers)

    async def scenario() -> None:
        async with (
            daemon_running(tmp_path, plan_function=None, plan_async=planner.plan_async,
                           replay_function=replay, debounce=0.03, retry=0.05) as daemon,
            connect(ws_url(daemon, "stream")) as ws,
        ):
            await ws.recv()
            write_in_place(tmp_path / "game.vsav", SAVES[1].read_bytes())
            message = await receive_until(ws, lambda m: "plan" in (m.get("set") or {}))
            assert message["set"]["plan"]["turn"] == planner.plan(SAVES[1], {})["turn"]
            assert threads == []  # a save: on the loop (plan_function is None: a thread would fail)
            write_in_place(tmp_path / "story.vlog", (DEMO / "saves" / "story.vlog").read_bytes())
            message = await receive_until(ws, lambda m: (m.get("set") or {}).get("replay"))
            assert message["set"]["file"] == "story.vlog"

    run(scenario)
    assert threads and all(name.startswith("adjutant-") for name in threads)
