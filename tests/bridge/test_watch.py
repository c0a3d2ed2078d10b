"""Saves caught mid-write, logs replayed, answers and ticks: the daemon end to end, without a browser.

VASSAL 3.5+ rewrites a save in place (spec §8.3), so the watcher sees empty and half-written zips;
the plan on screen must only ever come from complete files.
"""

from __future__ import annotations

import asyncio
import json
import os
import zipfile
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

from bridge.daemon.completeness import IncompleteFile, check_complete, is_watched_name
from tests.bridge.harness import daemon_running, receive_until, run, ws_url
from tests.bridge.savefiles import (
    HIDDEN_PIECE,
    fixture_planner,
    obfuscate,
    sample_plan,
    save_bytes,
    write_in_place,
)

FAST = {"debounce": 0.03, "retry": 0.05}


class RecordingPlanner:
    """The fixture planner, plus a record of every file it was asked to plan."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, bool]] = []

    def __call__(self, path: Path, answers: Any) -> dict:
        try:
            check_complete(path)
            complete = True
        except IncompleteFile:
            complete = False
        self.calls.append((path.name, complete))
        return fixture_planner(path, answers)


async def _collect(ws: Any, until: Any, timeout: float = 10) -> list[dict]:
    seen: list[dict] = []
    await receive_until(ws, lambda m: seen.append(m) or until(m), timeout)
    return seen


def has_plan(message: dict) -> bool:
    """A delta carrying a plan, or a snapshot that already has one."""
    return "plan" in (message.get("set") or {}) or bool((message.get("state") or {}).get("plan"))


def event_fired(message: dict) -> bool:
    return "plan" in (message.get("set") or {}) and message["set"]["plan"]["events"][0]["status"] == "fired"


def _turns(messages: list[dict]) -> list[str]:
    return [m["set"]["plan"]["turn"] for m in messages if m["type"] == "delta" and "plan" in m["set"]]


def test_check_complete_accepts_only_whole_decodable_archives(tmp_path: Path) -> None:
    data = save_bytes(sample_plan())
    path = tmp_path / "game.vsav"
    path.write_bytes(data)
    assert check_complete(path).size == len(data)
    for cut in (0, 10, len(data) // 2, len(data) - 1):
        path.write_bytes(data[:cut])
        with pytest.raises(IncompleteFile):
            check_complete(path)
    with zipfile.ZipFile(path, "w") as archive:  # a zip, but its savedGame is not a command stream
        archive.writestr("savedGame", obfuscate("hello world"))
    with pytest.raises(IncompleteFile, match="decode"):
        check_complete(path)


@pytest.mark.parametrize(
    ("name", "watched"),
    [
        ("game.vsav", True),
        ("GAME.VLOG", True),
        ("tmp4183.zip", False),
        ("game.vsav.bak", False),
        ("~game.vsav", False),
        (".game.vsav", False),
        ("game.vmod", False),
        ("notes.txt", False),
    ],
)
def test_only_saves_and_logs_are_watched(name: str, watched: bool) -> None:
    assert is_watched_name(Path(name)) is watched


def test_save_written_in_chunks_is_planned_once_complete(tmp_path: Path) -> None:
    planner = RecordingPlanner()
    path = tmp_path / "game.vsav"

    async def scenario() -> list[dict]:
        write_in_place(path, save_bytes(sample_plan(turn="Spring 1940")))
        async with (
            daemon_running(tmp_path, plan_function=planner, **FAST) as daemon,
            connect(ws_url(daemon)) as ws,
        ):
            await receive_until(ws, has_plan)
            data = save_bytes(sample_plan(turn="Summer 1940"), pieces=400)
            chunk = len(data) // 5 + 1
            with open(path, "wb") as handle:  # in place, like VASSAL 3.5+, with pauses > debounce
                for start in range(0, len(data), chunk):
                    handle.write(data[start : start + chunk])
                    handle.flush()
                    os.fsync(handle.fileno())
                    await asyncio.sleep(0.12)
            return await _collect(ws, lambda m: "plan" in m.get("set", {}))

    seen = run(scenario)
    plans = _turns(seen)
    assert plans == ["Summer 1940"]  # nothing in between: no plan or error from a partial file
    assert all(m.get("set", {}).get("status") != "error" and not m.get("set", {}).get("notice") for m in seen)
    assert planner.calls and all(complete for _, complete in planner.calls)


def test_truncated_save_keeps_last_good_plan_with_a_notice_naming_it(tmp_path: Path) -> None:
    lines: list[str] = []
    path = tmp_path / "game.vsav"

    async def scenario() -> None:
        write_in_place(path, save_bytes(sample_plan(turn="Spring 1940")))
        async with (
            daemon_running(tmp_path, lines, give_up=0.4, **FAST) as daemon,
            connect(ws_url(daemon)) as ws,
        ):
            await receive_until(ws, has_plan)
            good = save_bytes(sample_plan(turn="Summer 1940"))
            write_in_place(path, good[: len(good) // 2])
            notice = await receive_until(ws, lambda m: (m.get("set") or {}).get("notice"))
            assert "game.vsav" in notice["set"]["notice"]
            assert daemon.server.history.state["plan"]["turn"] == "Spring 1940"  # last good plan stays
            write_in_place(path, good)
            update = await receive_until(ws, lambda m: "plan" in m.get("set", {}))
            assert update["set"]["plan"]["turn"] == "Summer 1940" and update["set"]["notice"] is None

    run(scenario)
    assert any(line.startswith("game.vsav: skipped") for line in lines)
    assert any(line.startswith("game.vsav: planned") for line in lines)


def test_old_vassal_temp_file_then_rename_is_seen_and_temp_ignored(tmp_path: Path) -> None:
    """VASSAL <= 3.4.3 writes tmp*.zip in the save's folder and renames it over the save (spec §8.3)."""
    planner = RecordingPlanner()
    lines: list[str] = []

    async def scenario() -> None:
        async with (
            daemon_running(tmp_path, lines, plan_function=planner, **FAST) as daemon,
            connect(ws_url(daemon)) as ws,
        ):
            await ws.recv()
            temp = tmp_path / "tmp8812734.zip"
            temp.write_bytes(save_bytes(sample_plan(turn="Fall 1940")))
            (tmp_path / "game.vsav.bak").write_bytes(save_bytes(sample_plan(turn="Winter 1940")))
            os.replace(temp, tmp_path / "game.vsav")
            update = await receive_until(ws, lambda m: "plan" in m.get("set", {}))
            assert update["set"]["plan"]["turn"] == "Fall 1940"
            await asyncio.sleep(0.2)
        assert [name for name, _ in planner.calls] == ["game.vsav"]
        assert "tmp8812734.zip: ignored (not a .vsav save or .vlog log)" in lines
        assert "game.vsav.bak: ignored (not a .vsav save or .vlog log)" in lines
        assert sum(line.startswith("game.vsav: planned") for line in lines) == 1

    run(scenario)


def test_daemon_never_writes_to_the_watched_folder(tmp_path: Path) -> None:
    async def scenario() -> None:
        write_in_place(tmp_path / "a.vsav", save_bytes(sample_plan()))
        before = {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()}
        async with daemon_running(tmp_path, **FAST) as daemon, connect(ws_url(daemon, "control")) as ws:
            await receive_until(ws, has_plan)
            await ws.send(json.dumps({"type": "answer", "choice": "16.2.1:country", "option": "Luxembourg"}))
            await receive_until(ws, lambda m: "plan" in m.get("set", {}))
        assert {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()} == before

    run(scenario)


def test_planner_input_error_keeps_last_good_plan(tmp_path: Path) -> None:
    lines: list[str] = []

    async def scenario() -> None:
        write_in_place(tmp_path / "a.vsav", save_bytes(sample_plan(turn="Spring 1940")))
        async with daemon_running(tmp_path, lines, **FAST) as daemon, \
                connect(ws_url(daemon, "control")) as ws, connect(ws_url(daemon)) as player:
            await receive_until(ws, has_plan)
            with zipfile.ZipFile(tmp_path / "b.vsav", "w") as archive:  # complete, but no plan inside
                archive.writestr("savedGame", obfuscate("begin_save\x1b\x1bend_save"))
            notice = await receive_until(ws, lambda m: (m.get("set") or {}).get("notice"))
            assert notice["set"]["notice"].startswith(str(tmp_path / "b.vsav"))
            # a player's view names the file, not the folder (issue 23)
            seen = await receive_until(player, lambda m: (m.get("set") or {}).get("notice"))
            assert seen["set"]["notice"].startswith("b.vsav: ")
            assert daemon.server.history.state["plan"]["turn"] == "Spring 1940"

    run(scenario)
    assert any(line.startswith("b.vsav: rejected") for line in lines)


def test_log_replay_reports_the_step_each_event_became_due(tmp_path: Path) -> None:
    """A .vlog is replayed step by step; 16.2.1 becomes due at step 2 (6.2 checked after each step)."""

    async def scenario() -> None:
        steps = [sample_plan(status=status) for status in ("not_due", "not_due", "fired", "fired")]
        async with daemon_running(tmp_path, **FAST) as daemon, connect(ws_url(daemon)) as ws:
            await ws.recv()
            write_in_place(tmp_path / "session.vlog", save_bytes(steps[0], log_plans=steps[1:]))
            update = await receive_until(ws, lambda m: "replay" in m.get("set", {}))
        replay = update["set"]["replay"]
        assert replay["steps"] == 3
        assert [(e["rule"], e["steps"]) for e in replay["became_due"]] == [("16.2.1", [2])]

    run(scenario)


def test_answer_in_control_view_replans_and_every_view_sees_it(tmp_path: Path) -> None:
    """16.2.1's country choice answered in the control view fires the event for all views."""

    async def scenario() -> None:
        write_in_place(tmp_path / "a.vsav", save_bytes(sample_plan(status="waiting")))
        async with (
            daemon_running(tmp_path, **FAST) as daemon,
            connect(ws_url(daemon, "control")) as control,
            connect(ws_url(daemon, "player")) as player,
            connect(ws_url(daemon, "stream")) as stream,
        ):
            for ws in (control, player, stream):
                await receive_until(ws, has_plan)
            await control.send(
                json.dumps({"type": "answer", "choice": "16.2.1:country", "option": "Luxembourg"})
            )
            for ws in (control, player, stream):
                message = await receive_until(ws, event_fired)
                steps = [s["text"] for s in message["set"]["plan"]["events"][0]["steps"]]
                assert "Axis units enter Luxembourg" in steps
                if ws is stream:
                    assert HIDDEN_PIECE not in json.dumps(message)
            assert daemon.server.history.state["answers"] == {"16.2.1:country": "Luxembourg"}

    run(scenario)


def test_ticks_are_shared_and_unknown_steps_refused(tmp_path: Path) -> None:
    async def scenario() -> None:
        write_in_place(tmp_path / "a.vsav", save_bytes(sample_plan()))
        async with (
            daemon_running(tmp_path, **FAST) as daemon,
            connect(ws_url(daemon, "control")) as control,
            connect(ws_url(daemon, "stream")) as stream,
        ):
            for ws in (control, stream):
                await receive_until(ws, has_plan)
            key = daemon.server.history.state["plan"]["events"][0]["steps"][0]["key"]
            await control.send(json.dumps({"type": "tick", "step": key, "done": True}))
            seen = await receive_until(stream, lambda m: "ticks" in m.get("set", {}))
            assert seen["set"]["ticks"] == {key: True}
            await control.send(json.dumps({"type": "tick", "step": "no-such-step", "done": True}))
            assert (await receive_until(control, lambda m: m["type"] == "error"))["error"] == "bad-message"

    run(scenario)


def test_answers_a_new_save_makes_illegal_are_cleared_with_a_notice(tmp_path: Path) -> None:
    """16.2.1: Luxembourg was answered; the next save only offers France, so the answer is dropped."""
    lines: list[str] = []

    async def scenario() -> None:
        write_in_place(tmp_path / "a.vsav", save_bytes(sample_plan(status="waiting")))
        async with (
            daemon_running(tmp_path, lines, **FAST) as daemon,
            connect(ws_url(daemon, "control")) as control,
        ):
            await receive_until(control, has_plan)
            await control.send(
                json.dumps({"type": "answer", "choice": "16.2.1:country", "option": "Luxembourg"})
            )
            await receive_until(control, event_fired)
            write_in_place(
                tmp_path / "a.vsav", save_bytes(sample_plan(status="waiting", countries=("France",)))
            )
            message = await receive_until(control, lambda m: "plan" in (m.get("set") or {}))
            assert message["set"]["answers"] == {}
            assert "16.2.1:country" in message["set"]["notice"]
            assert message["set"]["plan"]["events"][0]["status"] == "waiting"

    run(scenario)
    assert any("were cleared" in line for line in lines)


def test_multiple_choice_is_answered_with_a_list(tmp_path: Path) -> None:
    async def scenario() -> None:
        write_in_place(tmp_path / "a.vsav", save_bytes(sample_plan(status="waiting", multiple=True)))
        async with daemon_running(tmp_path, **FAST) as daemon, connect(ws_url(daemon, "control")) as control:
            await receive_until(control, has_plan)
            await control.send(
                json.dumps({"type": "answer", "choice": "16.2.1:country", "option": "Luxembourg"})
            )
            assert "list" in (await receive_until(control, lambda m: m["type"] == "error"))["message"]
            both = ["Belgium-Holland", "Luxembourg"]
            await control.send(json.dumps({"type": "answer", "choice": "16.2.1:country", "option": both}))
            await receive_until(control, event_fired)
            assert daemon.server.history.state["answers"] == {"16.2.1:country": both}

    run(scenario)


class _ImmediateLoop:
    """Stands in for the asyncio loop: runs what watchdog's thread hands over at once."""

    def call_soon_threadsafe(self, function: Any, *args: Any) -> None:
        function(*args)


@pytest.mark.parametrize(
    ("event", "delay"),
    [
        ("closed", 0.0),  # the writer closed the file (inotify close-write): check at once
        ("moved", 0.0),  # renamed into place (VASSAL <= 3.4.3, spec §8.3): complete, check at once
        ("modified", None),  # still being written: wait out the debounce
        ("created", None),
    ],
)
def test_a_finished_write_is_checked_at_once_other_events_wait_for_the_debounce(
    tmp_path: Path, event: str, delay: float | None
) -> None:
    """docs/protocol.md "Latency": the debounce only covers writes still in progress."""
    from watchdog.events import FileClosedEvent, FileCreatedEvent, FileModifiedEvent, FileMovedEvent

    from bridge.daemon.folder import _Forwarder

    pokes: list[tuple[Path, float | None]] = []
    forwarder = _Forwarder(_ImmediateLoop(), lambda path, wait: pokes.append((path, wait)), lambda _: None)
    save = tmp_path / "game.vsav"
    made = {
        "closed": lambda: FileClosedEvent(str(save)),
        "moved": lambda: FileMovedEvent(str(tmp_path / "tmp123.zip"), str(save)),
        "modified": lambda: FileModifiedEvent(str(save)),
        "created": lambda: FileCreatedEvent(str(save)),
    }[event]()
    forwarder.on_any_event(made)
    assert pokes == [(save, delay)]


def test_a_replay_follows_steps_0_to_the_cap_and_refuses_one_more(tmp_path: Path) -> None:
    """A log of MAX_REPLAY_STEPS steps (step 0 .. the cap: one plan more than the cap) is replayed
    whole; one of a step more is refused in one line naming the file."""
    from bridge.daemon.watch import MAX_REPLAY_STEPS, PlanCoordinator
    from vassal_parser.errors import InputError

    def replay(last: int):
        def steps(path, answers):
            for step in range(last + 1):
                status = "fired" if step else "not_due"
                yield step, {"events": [{"id": "e", "rule": "16.2.1", "status": status}]}
        return steps

    path = tmp_path / "session.vlog"
    whole = PlanCoordinator(lambda p, a: {}, lambda m: None, replay_function=replay(MAX_REPLAY_STEPS),
                            log_line=lambda line: None)
    final, summary = whole._replay_log(path, {})
    assert summary["steps"] == MAX_REPLAY_STEPS and final["events"][0]["status"] == "fired"
    longer = PlanCoordinator(lambda p, a: {}, lambda m: None,
                             replay_function=replay(MAX_REPLAY_STEPS + 1), log_line=lambda line: None)
    with pytest.raises(InputError) as refused:
        longer._replay_log(path, {})
    assert refused.value.source == str(path)
    assert f"more than {MAX_REPLAY_STEPS} steps" in refused.value.message
