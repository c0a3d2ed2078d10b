"""Issue 37 item 3: the daemon (`adjutant watch`'s worker-process planner) shows owed steps as still to
do after a partial execution; a step the position shows made is ticked by itself, a person may untick
it, and the untick is kept for that file through re-plans (6.2 Important: a fired event is carried out
in full; 16.1.1 Allied Minor Country Conquest, Steps 1-4).

The partial executions are the demo's own: `adjutant apply` writes 16.1.1's six moves on the
Poland-falls save as six log steps; the log cut after N steps, or a save of the position after N
steps, is a player who stopped there. Loopback websockets, the real reader, mapping and engine.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

from bridge.daemon.planner_process import ProcessPlanner
from bridge.reports.session_owed import FiredMemory, plan_with_owed, replay_with_owed
from bridge.web import protocol
from tests.bridge.harness import daemon_running, receive_until, run, ws_url
from tests.bridge.owed_files import applied_log, cut_log, save_after
from tests.bridge.test_view_filter import demo_save, secrets_of

PROJECT = Path(__file__).resolve().parents[2]
DEMO = PROJECT / "module_patches" / "demo"
MODULE = DEMO / "adjutant-demo.vmod"
POLAND = DEMO / "saves" / "02-poland-falls.vsav"
FAST = {"debounce": 0.03, "retry": 0.05}
SIX = ["PO-1", "PO-2", "PO-RES", "BR-POL", "GE-CORRIDOR"]  # 16.1.1 Steps 2-4's counters (Step 1: Poland)

pytestmark = pytest.mark.skipif(not MODULE.exists(),
                                reason=f"demo module not built at {MODULE} (scripts/make_demo.py builds it)")


@pytest.fixture(scope="module")
def pipeline() -> Any:
    from bridge.pipeline import CheckPipeline

    return CheckPipeline(MODULE, DEMO / "pack")


@pytest.fixture(scope="module")
def full_log(pipeline: Any, tmp_path_factory: Any) -> Path:
    return applied_log(pipeline, POLAND, tmp_path_factory.mktemp("poland") / "02.vlog")


@pytest.fixture(scope="module")
def worker() -> Any:
    planner = ProcessPlanner(MODULE, str(DEMO / "pack"), budget=60)
    planner.start()
    yield planner
    planner.close()


@pytest.fixture()
def planner(worker: Any) -> Any:
    worker.fired = FiredMemory()  # each test a session of its own
    return worker


def conquest(plan: dict) -> dict:
    return next(event for event in plan["events"] if event["rule"] == "16.1.1")


def plan_of(message: dict) -> dict | None:
    return (message.get("state") or message.get("set") or {}).get("plan")


def ticks_only(message: dict) -> bool:
    """A delta of the ticks alone (a tick's answer, no re-plan)."""
    return "ticks" in message.get("set", {}) and "plan" not in message["set"]


def owed_plan(message: dict) -> bool:
    plan = plan_of(message)
    return bool(plan) and conquest(plan)["status"] == "owed"


# --- the judging, where the worker runs it -----------------------------------------------------------


@pytest.mark.parametrize("keep", [1, 3, 5])
def test_a_log_cut_after_n_moves_ends_with_the_rest_owed(pipeline, full_log, tmp_path, keep) -> None:
    """16.1.1: the log's step 0 has the event fired; after `keep` of its six moves the rest are owed."""
    log = cut_log(full_log, tmp_path / f"first-{keep}.vlog", keep)
    plans = replay_with_owed(pipeline, log, {})
    assert [step for step, _plan in plans] == list(range(keep + 1))
    event = conquest(plans[-1][1])
    assert event["status"] == "owed"
    full = conquest(plans[0][1])["steps"]
    assert [s["text"] for s in event["remaining"]] == [s["text"] for s in full[keep:]]
    assert [s["text"] for s in event["done"]] == [s["text"] for s in full[:keep]]
    # who still has to move (the player view shows it them): Step 4's Polish Corridor is the Axis's
    assert event["factions"] == sorted({s["faction"] for s in full[keep:]})


def test_the_whole_log_is_carried_out_not_owed(pipeline, full_log) -> None:
    event = conquest(replay_with_owed(pipeline, full_log, {})[-1][1])
    assert event["status"] == "not_due" and any(w.startswith("carried out") for w in event["why"])


def test_a_save_after_some_moves_is_owed_against_the_sessions_earlier_save(pipeline, full_log,
                                                                          tmp_path) -> None:
    """A save has no earlier step of its own: the save where 16.1.1 fired, planned before it, says what
    is owed. Without it (a fresh session) the save is only "not due" (nothing says it fired)."""
    partial = save_after(pipeline, full_log, tmp_path / "after-3.vsav", 3)
    memory = FiredMemory()
    memory.remember(plan_with_owed(pipeline, POLAND, {}))
    event = conquest(plan_with_owed(pipeline, partial, {}, memory.basis()))
    assert event["status"] == "owed"
    assert [s["counter"] for s in event["remaining"]] == ["PO-RES", "BR-POL", "GE-CORRIDOR"]
    assert conquest(plan_with_owed(pipeline, partial, {}))["status"] == "not_due"


def test_view_annotation_marks_made_steps_and_deviations(pipeline, full_log) -> None:
    """PO 2 Inf put in the Delay Box instead of the Western Conquered Minor Countries Box (16.1.1 Step 2):
    its step carries the deviation in words; the made ones carry `made`."""
    import copy

    from bridge.reports.referee import owed_against
    from rules.packs import hex_label

    result = pipeline.plan_file(full_log, step=2)
    position = copy.deepcopy(result.mapping.position)
    for counter in position["counters"]:
        if counter["id"] == "PO-2":
            counter["location"] = "delay"
    plan = copy.deepcopy(result.plan)
    base = pipeline.plan_file(full_log, step=0).plan
    owed_against(plan, base, position, lambda h: hex_label(pipeline.pack, h))
    annotated = protocol.annotate_step_keys(plan)
    steps = conquest(annotated)["steps"]
    assert [s["made"] for s in steps] == [True, True, False, False, False, False]
    wrong = next(s for s in steps if s["counter"] == "PO-2")
    assert wrong["deviation"] == ("PO 2 Inf (PO-2) is in the Delay Box; 16.1.1 Step 2 puts it in the "
                                  "Western Conquered Minor Countries Box")
    assert protocol.made_step_keys(annotated) == {steps[0]["key"], steps[1]["key"]}
    assert "made" not in conquest(plan)["steps"][0]  # the planner's plan is left as it was


# --- the daemon: websockets ---------------------------------------------------------------------------


def test_owed_steps_reach_the_views_made_ones_ticked_and_an_untick_is_kept_for_the_file(
        planner, pipeline, full_log, tmp_path) -> None:
    """Save 02 (16.1.1 due), then a save after 3 of its 6 moves: owed, its 3 made steps ticked in every
    view by themselves. The control view unticks one: it stays unticked when the same file is planned
    again; the next file is judged afresh (its made steps ticked again)."""
    watched = tmp_path / "watched"
    watched.mkdir()
    partial = save_after(pipeline, full_log, tmp_path / "after-3.vsav", 3)
    later = save_after(pipeline, full_log, tmp_path / "after-4.vsav", 4)

    async def scenario() -> None:
        async with daemon_running(watched, plan_function=planner.plan, plan_async=planner.plan_async,
                                  replay_function=planner.replay, **FAST) as daemon, \
                connect(ws_url(daemon, "control")) as control, connect(ws_url(daemon, "player")) as player:
            shutil.copy(POLAND, watched / "02.vsav")
            first = await receive_until(control, lambda m: bool(plan_of(m)) and conquest(plan_of(m))["status"]
                                        == "fired", timeout=60)
            assert conquest(plan_of(first))["steps"]
            shutil.copy(partial, watched / "02b.vsav")
            message = await receive_until(control, owed_plan, timeout=60)
            steps = conquest(plan_of(message))["steps"]
            made = [s["key"] for s in steps if s["made"]]
            assert len(made) == 3 and [s["counter"] for s in steps if not s["made"]] == [
                "PO-RES", "BR-POL", "GE-CORRIDOR"]
            ticks = message["set"]["ticks"]
            assert ticks == {key: True for key in made}
            seen = await receive_until(player, lambda m: owed_plan(m) and "ticks" in m.get("set", {}))
            assert seen["set"]["ticks"] == ticks
            # untick the Poland Conquered step (the position shows it made)
            await control.send(json.dumps({"type": "tick", "step": made[0], "done": False}))
            unticked = await receive_until(control, ticks_only)
            assert made[0] not in unticked["set"]["ticks"] and len(unticked["set"]["ticks"]) == 2
            # the same file planned again (VASSAL saved over it): the untick is kept
            before = daemon.server.history.seq
            (watched / "02b.vsav").write_bytes(partial.read_bytes())
            await receive_until(control, lambda m: m.get("seq", 0) > before
                                and m.get("set", {}).get("status") == "ok", timeout=60)
            assert owed_plan({"state": daemon.server.history.state})
            assert daemon.server.history.state["ticks"] == unticked["set"]["ticks"]
            # tick it back, untick again, and a next file: judged afresh
            await control.send(json.dumps({"type": "tick", "step": made[0], "done": True}))
            back = await receive_until(control, ticks_only)
            assert back["set"]["ticks"] == ticks
            await control.send(json.dumps({"type": "tick", "step": made[0], "done": False}))
            await receive_until(control, ticks_only)
            shutil.copy(later, watched / "02c.vsav")
            fresh = await receive_until(control, lambda m: owed_plan(m) and plan_of(m) is not None
                                        and m["set"].get("file") == "02c.vsav", timeout=60)
            steps = conquest(plan_of(fresh))["steps"]
            assert fresh["set"]["ticks"] == {s["key"]: True for s in steps if s["made"]}
            assert made[0] in fresh["set"]["ticks"] and len(fresh["set"]["ticks"]) == 4

    run(scenario, timeout=180)


def test_a_cut_log_in_the_folder_is_owed_and_the_stream_never_sees_the_hidden_unit(
        planner, pipeline, tmp_path) -> None:
    """PO 1 Inf hidden in Lvov (e3706) by the Western side; the log made only 16.1.1's first move (the
    Poland Conquered mark). The control view owes PO 1 Inf's Step 2; the stream shows the event owed
    with its other steps, and no byte of it names PO 1 Inf, PO-1, Lvov or e3706 — nor counts its step."""
    hide = {"PO-1": "demo-western"}
    save = demo_save(tmp_path, "02-poland-falls", hide=hide)
    forbidden = secrets_of(hide, "02-poland-falls")
    assert {"PO-1", "PO 1 Inf", "e3706", "Lvov"} <= forbidden
    log = cut_log(applied_log(pipeline, save, tmp_path / "hidden.vlog"), tmp_path / "hidden-1.vlog", 1)
    watched = tmp_path / "watched"
    watched.mkdir()

    async def scenario() -> list[dict]:
        async with daemon_running(watched, plan_function=planner.plan, plan_async=planner.plan_async,
                                  replay_function=planner.replay, **FAST) as daemon, \
                connect(ws_url(daemon, "control")) as control, connect(ws_url(daemon, "stream")) as stream:
            shutil.copy(log, watched / "pbem.vlog")
            message = await receive_until(control, owed_plan, timeout=60)
            event = conquest(plan_of(message))
            assert event["remaining"][0]["counter"] == "PO-1"
            seen: list[dict] = []
            await receive_until(stream, lambda m: seen.append(m) or m.get("seq", 0) >= message["seq"])
            async with connect(ws_url(daemon, "stream")) as later:
                seen.append(json.loads(await later.recv()))
            return seen

    seen = run(scenario, timeout=120)
    text = json.dumps(seen, ensure_ascii=False)
    assert [name for name in sorted(forbidden) if name in text] == []
    final = next(m for m in reversed(seen) if m["type"] == "snapshot")["state"]["plan"]
    event = conquest(final)
    assert event["status"] == "owed"
    assert [s["counter"] for s in event["steps"]] == [None, "PO-2", "PO-RES", "BR-POL", "GE-CORRIDOR"]
    assert event["why"][0].startswith("fired earlier: 1 of 5 steps made")
    assert not any("of 6" in line for line in event["why"])


def test_the_in_process_planner_judges_owed_steps_as_the_worker_does(pipeline, full_log, tmp_path) -> None:
    """`SessionPlanner` (for an in-process daemon such as `adjutant demo`'s): the same judgement, the
    story's answers under the overlay's, the memory kept between files."""
    from bridge.reports.session_owed import SessionPlanner

    partial = save_after(pipeline, full_log, tmp_path / "after-1.vsav", 1)
    planner = SessionPlanner(pipeline, answers_for=lambda path: {})
    assert conquest(planner.plan(partial, {}))["status"] == "not_due"  # nothing earlier this session
    assert conquest(planner.plan(POLAND, {}))["status"] == "fired"
    event = conquest(planner.plan(partial, {}))
    assert event["status"] == "owed" and len(event["remaining"]) == 5
    cut = cut_log(full_log, tmp_path / "first-4.vlog", 4)
    assert conquest(list(planner.replay(cut, {}))[-1][1])["status"] == "owed"


def test_the_console_line_names_the_owed_event() -> None:
    """The daemon's console line: an owed event is neither "due" nor silent."""
    from bridge.daemon.watch import due_summary

    plan = {"events": [{"rule": "16.1.1", "title": "Allied Minor Country Conquest", "status": "owed"},
                       {"rule": "16.2.1", "title": "Axis Conquest", "status": "not_due"}]}
    assert due_summary(plan) == "0 event(s) due; owed: 16.1.1"


def test_an_event_carried_out_is_forgotten_so_later_moves_are_no_deviation(pipeline, full_log,
                                                                          tmp_path) -> None:
    """16.1.1 Step 3 puts BR 1-2-2 Pol in the Delay Box; once a save shows every step made, the event is
    settled: a later save where the unit has left the Delay Box (by a later rule, turns on) is not read
    as a deviation of it. Before it was settled, the same position is one (the wrong box)."""
    from bridge.reports.session_owed import SessionPlanner
    from tests.bridge.owed_files import misplaced_log

    done = save_after(pipeline, full_log, tmp_path / "done.vsav", 6)
    moved_on = save_after(pipeline, misplaced_log(pipeline, POLAND, tmp_path / "moved.vlog", "BR-POL",
                                                  "force_pool:Western"), tmp_path / "moved-on.vsav", 6)
    settled = SessionPlanner(pipeline)
    settled.plan(POLAND, {})
    assert conquest(settled.plan(done, {}))["status"] == "not_due"
    assert settled.fired.basis() == []
    assert conquest(settled.plan(moved_on, {}))["status"] == "not_due"
    unsettled = SessionPlanner(pipeline)
    unsettled.plan(POLAND, {})
    event = conquest(unsettled.plan(moved_on, {}))
    assert event["status"] == "owed" and len(event["deviations"]) == 1
    assert "BR 1-2-2 Pol" in event["deviations"][0]
