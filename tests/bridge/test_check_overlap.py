"""Issue 15: the whole-file check (`check_complete`: every byte of `savedGame` inflated against its
CRC) runs while the planner reads the save, not before the job is sent; a save is sent once its
zip directory is there and its first bytes decode (`check_structure`), and its plan is shown only
once the whole-file check has passed (spec §8.3: VASSAL rewrites saves in place)."""

from __future__ import annotations

import io
import struct
import threading
import zipfile
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

import bridge.daemon.completeness as completeness
import bridge.daemon.folder as folder
from tests.bridge.harness import daemon_running, receive_until, run, ws_url
from tests.bridge.savefiles import fixture_planner, sample_plan, save_bytes, write_in_place

FAST = {"debounce": 0.03, "retry": 0.05}


def _state_of(message: dict) -> dict:
    return message.get("set") or message.get("state") or {}


def _turn(message: dict) -> str | None:
    return (_state_of(message).get("plan") or {}).get("turn")


def test_the_planner_starts_while_the_whole_file_check_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    order: list[str] = []
    planner_called = threading.Event()
    real_check = folder.check_complete

    def slow_check(path: Path) -> completeness.FileStamp:
        planner_called.wait(5)  # a check that finishes only once the planner has the job
        order.append("whole-file check done")
        return real_check(path)

    def planner(path: Path, answers: Any) -> dict:
        order.append("planner called")
        planner_called.set()
        return fixture_planner(path, answers)

    monkeypatch.setattr(folder, "check_complete", slow_check)

    async def scenario() -> None:
        async with daemon_running(tmp_path, plan_function=planner, **FAST) as daemon, \
                connect(ws_url(daemon)) as ws:
            await ws.recv()
            write_in_place(tmp_path / "game.vsav", save_bytes(sample_plan(turn="Spring 1940")))
            await receive_until(ws, lambda m: _turn(m) == "Spring 1940")

    run(scenario)
    assert order == ["planner called", "whole-file check done"]


def _with_wrong_crc(data: bytes, name: str = "savedGame") -> bytes:
    """The archive with `name`'s CRC-32 changed in its local header and in the central directory:
    its bytes inflate, its first bytes decode, but reading it to the end fails the CRC check."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        info = archive.getinfo(name)
    wrong = struct.pack("<I", info.CRC ^ 0xFFFFFFFF)
    right = struct.pack("<I", info.CRC)
    patched = bytearray(data)
    local = info.header_offset + 14  # local file header: the CRC-32 at offset 14
    assert patched[local:local + 4] == right
    patched[local:local + 4] = wrong
    central = data.index(b"PK\x01\x02")  # central directory entries: CRC-32 at 16, the name at 46
    while data[central + 46:central + 46 + len(name)] != name.encode():
        central = data.index(b"PK\x01\x02", central + 4)
    patched[central + 16:central + 20] = wrong
    return bytes(patched)


def test_a_save_that_fails_its_crc_is_never_shown_and_is_given_up_on(tmp_path: Path) -> None:
    planned: list[str] = []

    def planner(path: Path, answers: Any) -> dict:
        planned.append(path.name)
        return fixture_planner(path, answers)

    bad = _with_wrong_crc(save_bytes(sample_plan(turn="Autumn 1940")))
    with pytest.raises(completeness.IncompleteFile):
        completeness.check_complete(_written(tmp_path / "probe.bin", bad))
    # check_structure is what sends it to the planner
    assert completeness.check_structure(tmp_path / "probe.bin").size == len(bad)

    async def scenario() -> None:
        async with daemon_running(tmp_path, plan_function=planner, give_up=0.6, **FAST) as daemon, \
                connect(ws_url(daemon)) as ws:
            await ws.recv()
            write_in_place(tmp_path / "good.vsav", save_bytes(sample_plan(turn="Spring 1940")))
            await receive_until(ws, lambda m: _turn(m) == "Spring 1940")
            write_in_place(tmp_path / "bad.vsav", bad)
            message = await receive_until(
                ws, lambda m: _turn(m) == "Autumn 1940" or "bad.vsav" in str(_state_of(m).get("notice")))
            assert _turn(message) is None, "a save that is not whole was shown"
            assert "CRC" in _state_of(message)["notice"]
            state = daemon.server.history.state
            assert state["plan"]["turn"] == "Spring 1940" and state["status"] == "ok"

    run(scenario)
    assert "bad.vsav" in planned  # it was read alongside its check, and its plan dropped


def _written(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path
