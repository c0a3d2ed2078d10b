"""Issue 14, the daemon and the server: every failure ends a planning round with a notice naming
the file (last good plan kept), one file cannot stall the next, nothing private reaches the
stream view (answers and ticks included), and broken Host/Origin headers get 400."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

from bridge.daemon.planner_process import ProcessPlanner
from bridge.web import protocol
from tests.bridge.harness import daemon_running, receive_until, run, ws_url
from tests.bridge.savefiles import HIDDEN_PIECE, fixture_planner, sample_plan, save_bytes, write_in_place
from vassal_parser.errors import InputError

FAST = {"debounce": 0.03, "retry": 0.05}
DEMO = Path(__file__).resolve().parents[2] / "module_patches" / "demo"


def _has_turn(turn: str):
    return lambda m: ((m.get("set") or m.get("state") or {}).get("plan") or {}).get("turn") == turn


def _notice(m: dict) -> str:
    return (m.get("set") or {}).get("notice") or ""


def test_planner_bug_ends_the_round_with_a_notice_and_a_logged_traceback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Before: a non-InputError left the overlay on "planning" forever ("Task exception was never retrieved").
    log = tmp_path / "errors.log"
    monkeypatch.setenv("ADJUTANT_ERROR_LOG", str(log))
    folder = tmp_path / "saves"
    folder.mkdir()
    lines: list[str] = []

    def planner(path: Path, answers: Any) -> dict:
        if path.name == "b.vsav":
            raise ZeroDivisionError("float division by zero")
        return fixture_planner(path, answers)

    async def scenario() -> None:
        write_in_place(folder / "a.vsav", save_bytes(sample_plan(turn="Spring 1940")))
        async with daemon_running(folder, lines, plan_function=planner, **FAST) as daemon, \
                connect(ws_url(daemon)) as ws:
            await receive_until(ws, _has_turn("Spring 1940"))
            write_in_place(folder / "b.vsav", save_bytes(sample_plan(turn="Fall 1940")))
            message = await receive_until(ws, lambda m: "b.vsav" in _notice(m))
            assert message["set"]["status"] == "error"
            assert daemon.server.history.state["plan"]["turn"] == "Spring 1940"
            write_in_place(folder / "c.vsav", save_bytes(sample_plan(turn="Winter 1940")))
            await receive_until(ws, _has_turn("Winter 1940"))  # the daemon goes on

    run(scenario)
    bug = [line for line in lines if line.startswith("b.vsav: planning: internal error")]
    assert len(bug) == 1 and str(log) in bug[0] and "\n" not in bug[0]
    assert "ZeroDivisionError: float division by zero" in log.read_text()


def test_completeness_check_exception_gets_a_notice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Before: an exception other than IncompleteFile in the check dropped the file silently.
    monkeypatch.setenv("ADJUTANT_ERROR_LOG", str(tmp_path / "errors.log"))
    folder = tmp_path / "saves"
    folder.mkdir()
    import bridge.daemon.folder as folder_watcher

    real_check = folder_watcher.check_complete

    def check(path: Path):
        if path.name == "odd.vsav":
            raise MemoryError("simulated: a check that fails in a way nobody foresaw")
        return real_check(path)

    monkeypatch.setattr(folder_watcher, "check_complete", check)

    async def scenario() -> None:
        async with daemon_running(folder, **FAST) as daemon, connect(ws_url(daemon)) as ws:
            await ws.recv()
            write_in_place(folder / "odd.vsav", save_bytes(sample_plan()))
            message = await receive_until(ws, lambda m: "odd.vsav" in _notice(m))
            assert "could not be checked" in message["set"]["notice"]

    run(scenario)


def test_a_file_over_the_plan_budget_gets_a_notice_and_the_next_save_is_planned(tmp_path: Path) -> None:
    # Before: one small hostile save stalled every later save (25 s in the BoardPicker case).
    def planner(path: Path, answers: Any) -> dict:
        if path.name == "slow.vsav":
            time.sleep(3)
        return fixture_planner(path, answers)

    async def scenario() -> None:
        async with daemon_running(tmp_path, plan_function=planner, plan_budget=0.5, **FAST) as daemon, \
                connect(ws_url(daemon)) as ws:
            await ws.recv()
            write_in_place(tmp_path / "slow.vsav", save_bytes(sample_plan(turn="Spring 1940")))
            message = await receive_until(ws, lambda m: "slow.vsav" in _notice(m))
            assert "longer than 0.5 s" in message["set"]["notice"]
            write_in_place(tmp_path / "next.vsav", save_bytes(sample_plan(turn="Fall 1940")))
            await receive_until(ws, _has_turn("Fall 1940"), timeout=2.5)  # before the slow one ends

    run(scenario)


def test_process_planner_stops_an_overrun_and_plans_the_next_save_in_a_fresh_worker() -> None:
    planner = ProcessPlanner(DEMO / "adjutant-demo.vmod", str(DEMO / "pack"), budget=60)
    save = DEMO / "saves" / "05-case-yellow.vsav"
    try:
        planner.start()
        assert planner.plan(save, {})["turn"]
        planner.budget = 0  # no plan fits: the worker is killed
        with pytest.raises(InputError) as caught:
            planner.plan(save, {})
        assert caught.value.one_line().startswith(f"{save}: planning took longer than")
        planner.budget = 60
        assert planner.plan(save, {})["turn"]
        assert planner.restarts == 1
    finally:
        planner.close()


def test_bad_module_in_the_process_planner_is_one_input_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.vmod"
    bad.write_bytes(b"PK\x03\x04 not really")
    planner = ProcessPlanner(bad, str(DEMO / "pack"))
    with pytest.raises(InputError) as caught:
        planner.start()
    assert caught.value.one_line().startswith(f"{bad}: ")


# --- the stream view ------------------------------------------------------------------------------

REDEPLOY = f"{HIDDEN_PIECE}:2>e3806"


def _plan_with_hidden_choice() -> dict:
    plan = sample_plan(status="waiting")
    plan["events"][0]["choices"].append({
        "id": "16.5.4:redeploy", "rule": "16.5.4", "decider": "Allied",
        "prompt": f"Where does {HIDDEN_PIECE} redeploy?",
        "options": [{"value": REDEPLOY, "label": "e3806"}], "multiple": True, "answer": None,
    })
    return protocol.annotate_step_keys(plan)


def test_stream_projection_filters_answers_ticks_and_notices() -> None:
    plan = _plan_with_hidden_choice()
    hidden_step = plan["events"][0]["steps"][1]["key"]
    public_step = plan["events"][0]["steps"][0]["key"]
    state = {**protocol.empty_state(), "plan": plan,
             "answers": {"16.5.4:redeploy": [REDEPLOY], "16.2.1:country": "Luxembourg"},
             "ticks": {hidden_step: True, public_step: True},
             "notice": f"answers were cleared: {HIDDEN_PIECE} cannot go there"}
    stream = protocol.project_state(state, "stream")
    assert stream["answers"] == {"16.2.1:country": "Luxembourg"}
    assert stream["ticks"] == {public_step: True}
    assert stream["notice"] == protocol.HIDDEN_TEXT
    assert HIDDEN_PIECE not in json.dumps(stream)
    assert protocol.project_state(state, "control")["answers"] == state["answers"]


def test_answering_a_choice_about_a_hidden_unit_leaks_nothing_to_stream_clients(tmp_path: Path) -> None:
    # Before: the control view's answer went to stream clients as {"16.5.4:redeploy": ["RU-1:2>e3806"]}.
    def planner(path: Path, answers: Any) -> dict:
        plan = _plan_with_hidden_choice()
        plan["events"][0]["choices"][1]["answer"] = answers.get("16.5.4:redeploy")
        return plan

    async def scenario() -> None:
        async with daemon_running(tmp_path, plan_function=planner, **FAST) as daemon, \
                connect(ws_url(daemon, "control")) as control, connect(ws_url(daemon, "stream")) as stream:
            write_in_place(tmp_path / "a.vsav", save_bytes(sample_plan()))
            seen: list[dict] = []
            await receive_until(control, lambda m: bool((m.get("set") or {}).get("plan")))
            answer = {"type": "answer", "choice": "16.5.4:redeploy", "option": [REDEPLOY]}
            await control.send(json.dumps(answer))

            def replanned(m: dict) -> bool:
                events = (((m.get("set") or {}).get("plan") or {}).get("events") or [{}])
                return any(c.get("answer") == [REDEPLOY] for c in events[0].get("choices", []))

            last = await receive_until(control, replanned)
            await receive_until(stream, lambda m: seen.append(m) or m.get("seq", 0) >= last["seq"])
            assert any("answers" in (m.get("set") or {}) for m in seen)
            assert daemon.server.history.state["answers"] == {"16.5.4:redeploy": [REDEPLOY]}
        assert seen and HIDDEN_PIECE not in json.dumps(seen)

    run(scenario)


# --- headers --------------------------------------------------------------------------------------


async def _raw_request(port: int, head: str) -> str:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(head.encode("latin-1"))
    await writer.drain()
    data = await asyncio.wait_for(reader.read(4096), 10)
    writer.close()
    return data.decode("latin-1")


@pytest.mark.parametrize("headers", [
    "Host: 127.0.0.1\r\nHost: 127.0.0.1\r\n",
    "Host: 127.0.0.1\r\nOrigin: http://[::1\r\n",
    "Host: 127.0.0.1\r\nOrigin: http://127.0.0.1\r\nOrigin: http://evil.example\r\n",
    "Host: [::1\r\n",
])
def test_malformed_or_duplicated_host_and_origin_give_400_and_one_log_line(
        tmp_path: Path, headers: str, caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> str:
        async with daemon_running(tmp_path) as daemon:
            upgrade = ("Upgrade: websocket\r\nConnection: Upgrade\r\n"
                       "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n")
            return await _raw_request(daemon.server.port, f"GET /ws HTTP/1.1\r\n{headers}{upgrade}\r\n")

    # The logger itself, not the root: a CLI test's `-q` may have left "adjutant" at ERROR.
    with caplog.at_level(logging.INFO, logger="adjutant.server"):
        response = run(scenario)
    assert response.startswith("HTTP/1.1 400"), response[:200]
    assert "Traceback" not in caplog.text
    refused = [r for r in caplog.records if "refused a request" in r.getMessage()]
    assert len(refused) == 1 and "\n" not in refused[0].getMessage()


def test_a_bug_while_writing_the_moves_is_one_line_and_a_writeback_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADJUTANT_ERROR_LOG", str(tmp_path / "errors.log"))
    folder = tmp_path / "saves"
    folder.mkdir()
    lines: list[str] = []

    def writer(path: Path, answers: dict) -> dict:
        raise AttributeError("simulated bug in the writer")

    async def scenario() -> None:
        async with daemon_running(folder, lines, write_function=writer, **FAST) as daemon, \
                connect(ws_url(daemon, "control")) as control:
            write_in_place(folder / "turn1.vsav", save_bytes(sample_plan()))
            await receive_until(control, lambda m: bool((m.get("state") or m.get("set") or {}).get("plan")))
            await control.send(json.dumps({"type": "write_moves"}))
            done = await receive_until(control, lambda m: "writeback" in (m.get("set") or {}))
            assert "internal error" in done["set"]["writeback"]["error"]

    run(scenario)
    assert any(line.startswith("turn1.vsav: writing the moves: internal error") for line in lines)
