"""The daemon with the real reader, mapping and rules engine (CheckPipeline) on the demo module.

The demo module, pack and saves are project files (module_patches/demo/); each test copies a save
into a temporary watched folder the way VASSAL 3.5+ writes (in place).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from websockets.asyncio.client import connect

from bridge.cli.commands.watch import pipeline_planner
from tests.bridge.harness import daemon_running, receive_until, run, ws_url
from tests.bridge.savefiles import deobfuscate, write_in_place

PROJECT = Path(__file__).resolve().parents[2]
DEMO = PROJECT / "module_patches" / "demo"
MODULE = DEMO / "adjutant-demo.vmod"
PACK = DEMO / "pack"
SAVES = DEMO / "saves"
FAST = {"debounce": 0.03, "retry": 0.05}

pytestmark = pytest.mark.skipif(not MODULE.exists(),
                                reason=f"demo module not built at {MODULE} (scripts/make_demo.py builds it)")


def _planner():
    return pipeline_planner(MODULE, str(PACK))


def _concealed_names() -> set[str]:
    """Names and ids of the demo's masked cards, read from the save with the real parser."""
    from vassal_parser.game import load_game
    from vassal_parser.module import load_module

    module = load_module(MODULE, [])
    names: set[str] = set()
    for piece in load_game(SAVES / "04-hungary-occupied.vsav", module).position():
        if piece.masked_by or piece.hidden_by:
            names.update({piece.basic_name, piece.id})
    return names


def has_plan(message: dict) -> bool:
    return "plan" in (message.get("set") or {}) or bool((message.get("state") or {}).get("plan"))


def test_real_plan_reaches_views_and_stream_never_sees_masked_cards(tmp_path: Path) -> None:
    """16.1.2/16.1.3 wait for answers in the demo's Hungary save; the face-down cards stay private."""
    plan_function, replay_function = _planner()
    secret = _concealed_names()
    assert secret  # the demo has masked cards; otherwise this test would prove nothing

    async def scenario() -> None:
        async with (
            daemon_running(
                tmp_path, plan_function=plan_function, replay_function=replay_function, **FAST
            ) as d,
            connect(ws_url(d, "stream"), max_size=None) as stream,
            connect(ws_url(d, "player"), max_size=None) as player,
        ):
            frames: list[str] = []
            await stream.recv()
            write_in_place(tmp_path / "hungary.vsav", (SAVES / "04-hungary-occupied.vsav").read_bytes())
            while True:
                frame = await stream.recv()
                frames.append(frame)
                if has_plan(json.loads(frame)):
                    break
            message = await receive_until(player, has_plan)
            statuses = {e["rule"]: e["status"] for e in message["set"]["plan"]["events"]}
            assert statuses["16.1.2"] == "waiting" and statuses["16.1.3"] == "waiting"
            # Issue 43: who hides what is the control view's; a player view without a faction (an
            # observer's) is shown no side's masked card
            assert "concealed" not in message["set"]["plan"]["vassal"]
            assert [name for name in secret if name in json.dumps(message)] == []
            public = json.loads(frames[-1])["set"]["plan"]
            assert {e["rule"]: e["status"] for e in public["events"]} == statuses
            for name in secret:
                assert all(name not in frame for frame in frames), name

    run(scenario)


def test_answer_feeds_the_real_engine(tmp_path: Path) -> None:
    """Case Yellow (16.2.1) waits for the Axis choice of country; answering it fires the event."""
    plan_function, replay_function = _planner()

    async def scenario() -> None:
        write_in_place(tmp_path / "yellow.vsav", (SAVES / "05-case-yellow.vsav").read_bytes())
        async with (
            daemon_running(
                tmp_path, plan_function=plan_function, replay_function=replay_function, **FAST
            ) as d,
            connect(ws_url(d, "control"), max_size=None) as control,
        ):
            message = await receive_until(control, has_plan)
            plan = (message.get("set") or message.get("state"))["plan"]
            event = next(e for e in plan["events"] if e["rule"] == "16.2.1")
            assert event["status"] == "waiting"
            choice = event["choices"][0]
            option = choice["options"][0]["value"]
            await control.send(json.dumps({"type": "answer", "choice": choice["id"], "option": option}))

            def fired(m: dict) -> bool:
                plan = (m.get("set") or {}).get("plan")
                return bool(plan) and any(
                    e["rule"] == "16.2.1" and e["status"] == "fired" for e in plan["events"]
                )

            fired_message = await receive_until(control, fired)
            assert fired_message["set"]["plan"]["events"]
            assert d.server.history.state["answers"] == {choice["id"]: option}

    run(scenario)


def test_log_replay_with_the_real_reader(tmp_path: Path) -> None:
    """A .vlog of Poland's fall: 16.1.1 (conquest) is due from step 0 of the replay."""
    from vassal_parser.writer import write_game_file

    plan_function, replay_function = _planner()
    with zipfile.ZipFile(SAVES / "02-poland-falls.vsav") as archive:
        stream = deobfuscate(archive.read("savedGame"))
        moduledata = archive.read("moduledata")
    staging = tmp_path / "staging"
    staging.mkdir()
    log = write_game_file(
        staging / "session.vlog",
        stream + "\x1bLOG\tCHAT<Alice> - Poland falls" + "\x1bLOG\tCHAT<Bob> - noted",
        module_metadata=moduledata,
    )
    watched = tmp_path / "watched"
    watched.mkdir()

    async def scenario() -> None:
        async with (
            daemon_running(
                watched, plan_function=plan_function, replay_function=replay_function, **FAST
            ) as d,
            connect(ws_url(d, "control"), max_size=None) as control,
        ):
            await control.recv()
            write_in_place(watched / "session.vlog", log.read_bytes())
            message = await receive_until(control, lambda m: bool((m.get("set") or {}).get("replay")))
            replay = message["set"]["replay"]
            assert replay["steps"] == 2
            assert ("16.1.1", [0]) in [(e["rule"], e["steps"]) for e in replay["became_due"]]

    run(scenario)


def test_cli_bad_folder_is_one_line_exit_2(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "bridge",
            "watch",
            str(tmp_path / "nope"),
            "--module",
            str(MODULE),
            "--pack",
            "x",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=PROJECT,
    )
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "not a folder" in result.stderr


def test_cli_runs_and_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    write_in_place(tmp_path / "poland.vsav", (SAVES / "02-poland-falls.vsav").read_bytes())
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "bridge",
            "watch",
            str(tmp_path),
            "--module",
            str(MODULE),
            "--pack",
            str(PACK),
            "--port",
            "0",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=PROJECT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        lines: list[str] = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not any("poland.vsav: planned" in line for line in lines):
            line = process.stdout.readline()
            if not line:
                break
            lines.append(line)
        assert any(line.startswith("adjutant watch: watching") and "127.0.0.1" in line for line in lines)
        assert any("poland.vsav: planned" in line and "event(s) due" in line for line in lines), lines
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=15) == 0
        assert "stopped" in process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=5)
        process.stdout.close()
        process.stderr.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["poland.vsav"]  # nothing written to the folder
