"""`write_moves` in the protocol: only the control view may ask; the players see the file written, never
its folder; the stream is told nothing of it (issue 23: the "Moves written" line stayed on air)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from websockets.asyncio.client import connect

from bridge.web import protocol, view_filter
from tests.bridge.harness import daemon_running, receive_until, run, ws_url
from tests.bridge.savefiles import sample_plan, save_bytes, write_in_place

WRITTEN = {"file": "turn1-adjutant.vlog", "path": "/home/player/secret/turn1-adjutant.vlog",
           "description": "Adjutant: Conditional Events of Spring 1940, Axis — 2 moves, TK 16.2.1",
           "steps": 2}


def _writeback_delta(message: dict) -> bool:
    return message["type"] == "delta" and "writeback" in message["set"]


def test_parse_write_moves_and_unknown_types() -> None:
    assert protocol.parse_client_message('{"type": "write_moves"}').kind == "write_moves"
    with pytest.raises(protocol.ProtocolError, match="write_moves"):
        protocol.parse_client_message('{"type": "write"}')


def test_the_view_filter_keeps_writeback_off_the_stream_and_the_folder_off_the_players() -> None:
    state = {"enabled": True, "last": WRITTEN, "error": "x", "how": None}
    delta = {"type": "delta", "protocol": 1, "run": "r", "seq": 1, "set": {"writeback": state}}
    assert view_filter.for_view(delta, "stream", protocol.empty_state())["set"]["writeback"] is None
    player = view_filter.for_view(delta, "player", protocol.empty_state())["set"]["writeback"]
    assert player["last"] == {k: v for k, v in WRITTEN.items() if k != "path"}
    assert view_filter.for_view(delta, "control", protocol.empty_state())["set"]["writeback"] == state


@pytest.mark.parametrize("view", ["player", "stream"])
def test_only_the_control_view_writes(tmp_path: Path, view: str) -> None:
    calls: list[Path] = []

    def writer(path: Path, answers: dict) -> dict:
        calls.append(path)
        return dict(WRITTEN)

    async def scenario() -> None:
        async with daemon_running(tmp_path, write_function=writer) as daemon:
            write_in_place(tmp_path / "turn1.vsav", save_bytes(sample_plan()))
            async with connect(ws_url(daemon, view)) as ws:
                await receive_until(ws, lambda m: (m["type"] == "snapshot" and m["state"]["plan"])
                                    or (m["type"] == "delta" and "plan" in m["set"]))
                await ws.send(json.dumps({"type": "write_moves"}))
                error = await receive_until(ws, lambda m: m["type"] == "error")
                assert "read-only" in error["message"] or "only the control view" in error["message"]
            assert calls == []

    run(scenario)


def test_control_view_write_reaches_the_players_and_not_the_stream(tmp_path: Path) -> None:
    def writer(path: Path, answers: dict) -> dict:
        return {**WRITTEN, "source": path.name}

    async def scenario() -> None:
        async with daemon_running(tmp_path, write_function=writer) as daemon:
            write_in_place(tmp_path / "turn1.vsav", save_bytes(sample_plan()))
            async with connect(ws_url(daemon, "control")) as control, \
                    connect(ws_url(daemon, "stream")) as stream, connect(ws_url(daemon, "player")) as player:
                first = json.loads(await control.recv())
                assert first["state"]["writeback"]["enabled"] is True
                if not first["state"]["plan"]:
                    await receive_until(control, lambda m: (m.get("state") or m.get("set") or {}).get("plan"))
                await control.send(json.dumps({"type": "write_moves"}))
                done = await receive_until(control, _writeback_delta)
                assert done["set"]["writeback"]["last"]["path"] == WRITTEN["path"]
                seen = await receive_until(player, _writeback_delta)
                assert seen["set"]["writeback"]["last"]["file"] == WRITTEN["file"]
                assert "secret" not in json.dumps(seen)
                on_air = await receive_until(stream, _writeback_delta)
                assert on_air["set"]["writeback"] is None

    run(scenario)


def test_without_a_writer_the_state_says_how_to_enable_it(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with daemon_running(tmp_path) as daemon, connect(ws_url(daemon, "control")) as ws:
            state = json.loads(await ws.recv())["state"]["writeback"]
            assert state["enabled"] is False and "--out FOLDER" in state["how"]

    run(scenario)
