"""`adjutant watch` as a user runs it: one URL per view, what became due per file, answers kept
across a restart in the daemon's own state folder (never the watched folder)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from websockets.asyncio.client import connect

from bridge.cli.commands.watch import view_urls
from bridge.daemon.answer_store import AnswerStore, state_dir
from module_patches.demo_story import load_story, save_path
from module_patches.demo_world import DEMO_DIR

PROJECT = Path(__file__).resolve().parents[2]
STORY = load_story()


def _start(folder: Path, state: Path) -> tuple[subprocess.Popen[str], list[str]]:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "adjutant",
            "watch",
            str(folder),
            "--module",
            str(DEMO_DIR / "adjutant-demo.vmod"),
            "--pack",
            "demo",
            "--port",
            "0",
            "--state-dir",
            str(state),
            "--debounce",
            "0.05",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=PROJECT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    lines: list[str] = []
    return process, lines


def _read_until(process: subprocess.Popen[str], lines: list[str], marker: str, timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
        if marker in line:
            return line
    raise AssertionError(f"{marker!r} never printed: {lines}")


async def _answer(url: str, choice: str, option: str) -> dict:
    async with connect(url) as ws:
        snapshot = json.loads(await ws.recv())
        await ws.send(json.dumps({"type": "answer", "choice": choice, "option": option}))
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            message = json.loads(await asyncio.wait_for(ws.recv(), 20))
            if (message.get("set") or {}).get("answers", {}).get(choice) == option:
                return snapshot
    raise AssertionError("answer never confirmed")


async def _snapshot(url: str) -> dict:
    async with connect(url) as ws:
        return json.loads(await ws.recv())["state"]


def _stop(process: subprocess.Popen[str]) -> str:
    process.send_signal(signal.SIGINT)
    out, _err = process.communicate(timeout=20)
    return out


def test_watch_prints_every_view_and_keeps_answers_across_a_restart(tmp_path: Path) -> None:
    """16.1.2 (Hungary under Occupation): the Axis's remedy answered in the overlay survives a restart."""
    folder, state = tmp_path / "saves", tmp_path / "state"
    folder.mkdir()
    shutil.copy(save_path(STORY[3]), folder / "game.vsav")
    process, lines = _start(folder, state)
    try:
        _read_until(process, lines, "control (OBS dock / table)")
        urls = {
            m.group(1): m.group(2)
            for m in (re.search(r"adjutant watch: (.+?): (http://\S+)", line) for line in lines)
            if m
        }
        assert set(urls) == {
            "player (Axis)",
            "player (Western)",
            "player (Soviet)",
            "stream (OBS browser source)",
            "control (OBS dock / table)",
        }
        # every URL carries its own token (bridge/web/access.py, issue 43): one per faction's player view,
        # the stream's, the control view's, each opening that view only; a new start prints new ones
        tokens = {label: re.fullmatch(r".*\?view=\w+(?:&faction=\w+)?&token=([\w-]{20,})", url).group(1)
                  for label, url in urls.items()}
        assert urls["player (Axis)"].endswith(f"?view=player&faction=Axis&token={tokens['player (Axis)']}")
        stream = tokens["stream (OBS browser source)"]
        assert urls["stream (OBS browser source)"].endswith(f"?view=stream&token={stream}")
        assert len(set(tokens.values())) == 5
        _read_until(process, lines, "each URL opens its own view only: give each player their faction's")
        control = re.fullmatch(r".*\?view=control&token=([\w-]{20,})", urls["control (OBS dock / table)"])
        first_tokens = tuple(tokens.values())
        due_line = _read_until(process, lines, "game.vsav: planned")
        assert "16.1.2 Axis Minor Country Occupation" in due_line
        ws = (urls["control (OBS dock / table)"].split("?")[0].replace("http://", "ws://")
              + f"ws?view=control&token={control.group(1)}")
        asyncio.run(_answer(ws, "16.1.2:remedy:Hungary", "intern"))
    finally:
        _stop(process)
    saved = list(state.glob("answers-*.json"))
    assert len(saved) == 1 and json.loads(saved[0].read_text())["answers"] == {
        "16.1.2:remedy:Hungary": "intern"
    }
    assert sorted(p.name for p in folder.iterdir()) == ["game.vsav"]  # nothing written where VASSAL saves

    process, lines = _start(folder, state)
    try:
        _read_until(process, lines, "game.vsav: planned")
        ws = next(re.search(r"(http://\S+)", line).group(1) for line in lines if "control (" in line)
        assert not any(token in ws for token in first_tokens)  # per start
        state_now = asyncio.run(_snapshot(ws.replace("http://", "ws://").replace("/?", "/ws?")))
        assert state_now["answers"] == {"16.1.2:remedy:Hungary": "intern"}
        choice = next(
            c for e in state_now["plan"]["events"] for c in e["choices"] if c["id"] == "16.1.2:remedy:Hungary"
        )
        assert choice["answered"] and choice["answer"] == "intern"
    finally:
        _stop(process)


def test_lan_urls_are_printed_when_bound_to_every_address() -> None:
    loopback = view_urls("http://127.0.0.1:8765/", "127.0.0.1")
    assert len(loopback) == 5 and all("127.0.0.1" in url for _label, url in loopback)
    everywhere = view_urls("http://0.0.0.0:8765/", "0.0.0.0")
    assert everywhere[:5] == [(label, url.replace("127.0.0.1", "0.0.0.0")) for label, url in loopback]
    assert all(label.endswith(" on the LAN") for label, _url in everywhere[5:])


def test_state_dir_follows_xdg_and_the_override(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv("ADJUTANT_STATE_DIR", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert state_dir() == tmp_path / "xdg" / "adjutant"
    monkeypatch.setenv("ADJUTANT_STATE_DIR", str(tmp_path / "mine"))
    assert state_dir() == tmp_path / "mine"
    one, two = AnswerStore(tmp_path / "a"), AnswerStore(tmp_path / "b")
    assert one.path.parent == tmp_path / "mine" and one.path != two.path
    one.save({"x": 1})
    assert one.load() == {"x": 1} and two.load() == {}
    one.path.write_text("{not json")
    assert one.load() == {}


def test_console_line_names_what_is_due_what_became_due_and_what_is_undecided() -> None:
    from bridge.daemon.watch import due_summary

    before = {"events": [{"rule": "16.1.1", "title": "Allied Minor Country Conquest", "status": "fired"}]}
    after = {
        "events": [
            *before["events"],
            {"rule": "16.1.2", "title": "Axis Minor Country Occupation", "status": "waiting"},
            {"rule": "16.1.3", "title": "Internment", "status": "undecided"},
        ]
    }
    assert due_summary(before) == "1 event(s) due: 16.1.1 Allied Minor Country Conquest"
    assert due_summary(after, before) == (
        "2 event(s) due: 16.1.1 Allied Minor Country Conquest, 16.1.2 Axis "
        "Minor Country Occupation; became due: 16.1.2; undecided: 16.1.3"
    )
