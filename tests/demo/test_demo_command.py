"""`adjutant demo`: the printed walk-through, and the live run (daemon + overlay) end to end.

The live tests run the real command in a subprocess, as a user would, with a short `--pause` and
`--port 0`: the URLs it prints are served, a WebSocket client sees the story's rule numbers arrive,
the process ends by itself (exit 0) and its temporary watched folder is gone.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from websockets.asyncio.client import connect

from bridge.cli.commands.demo import copy_into, walk_through
from bridge.cli.main import main
from module_patches.demo_story import load_story, save_path

PROJECT = Path(__file__).resolve().parents[2]
STORY_RULES = ("16.1.1", "16.1.2", "16.2.1", "16.3.3", "16.3.4", "16.3.5", "16.5.4")


def test_walk_through_tells_every_story_event_by_rule_number() -> None:
    out = io.StringIO()
    assert walk_through(out) == 0
    text = out.getvalue()
    events = (("16.1.1", "Allied Minor Country Conquest"), ("16.1.2", "Axis Minor Country Occupation"),
              ("16.2.1", "Case Yellow"), ("16.3.3", "Their Finest Hour"), ("16.3.4", "Paris Threatened"),
              ("16.3.5", "Reduced US Impact"), ("16.5.4", "Border Defense Check"))
    for rule, title in events:
        assert f"  {rule} {title}: " in text
    assert text.count("\n[") == len(load_story())
    assert "! the story expected" not in text


def test_no_serve_prints_the_walk_through(capsys) -> None:
    out = io.StringIO()
    walk_through(out)
    assert main(["demo", "--no-serve"]) == 0
    assert capsys.readouterr().out == out.getvalue()


def test_copy_into_renames_a_complete_file_into_place(tmp_path: Path) -> None:
    """The watched folder only ever holds complete saves: written under a temporary name, renamed."""
    source = save_path(load_story()[0])
    target = copy_into(tmp_path, source)
    assert target == tmp_path / source.name
    assert target.read_bytes() == source.read_bytes()
    assert [p.name for p in tmp_path.iterdir()] == [source.name]


def _start_demo(*options: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "bridge", "demo", "--port", "0", *options],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=PROJECT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def _read_until(process: subprocess.Popen[str], lines: list[str], marker: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not any(marker in line for line in lines):
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
    assert any(marker in line for line in lines), "".join(lines)


def _url(lines: list[str], label: str) -> str:
    found = [re.search(r"(http://\S+)", line) for line in lines if line.strip().startswith(label)]
    assert found and found[0], f"no {label} URL in {lines}"
    return found[0].group(1)


def _collect_frames(url: str, frames: list[str], done: threading.Event) -> None:
    """A stream client that reads until the daemon closes (the demo's end)."""

    async def read() -> None:
        try:
            async with connect(url, max_size=None) as ws:
                async for frame in ws:
                    frames.append(frame)
        except Exception:  # the server going away ends the test client, nothing else
            pass
        finally:
            done.set()

    asyncio.run(read())


def test_live_demo_serves_the_story_and_ends_by_itself() -> None:
    """The README's first command: URLs served, deltas name the story's rules (16.1.1 .. 16.5.4)."""
    process = _start_demo("--pause", "0.6", "--exit", "--linger", "1.5")
    frames: list[str] = []
    stream_frames: list[str] = []
    done = threading.Event()
    stream_done = threading.Event()
    try:
        lines: list[str] = []
        _read_until(process, lines, "watched folder")
        base = _url(lines, "control")
        folder = Path(lines[-1].split(": ", 1)[1].strip())
        assert folder.is_dir() and not folder.is_relative_to(PROJECT)
        for label in ("player (Axis)", "player (Western)", "player (Soviet)", "stream", "control"):
            with urllib.request.urlopen(_url(lines, label), timeout=10) as response:
                assert response.status == 200 and b"<html" in response.read().lower()
        # each URL carries its token (bridge/web/access.py): control for the control view, read for the others
        assert re.search(r"\?view=control&token=[\w-]{20,}$", base), base
        stream_page = _url(lines, "stream")
        assert re.search(r"\?view=stream&token=[\w-]{20,}$", stream_page), stream_page
        assert base.rsplit("=", 1)[1] != stream_page.rsplit("=", 1)[1]
        ws_url = base.replace("http://", "ws://").replace("/?", "/ws?")
        reader = threading.Thread(target=_collect_frames, args=(ws_url, frames, done), daemon=True)
        reader.start()
        stream_url = stream_page.replace("http://", "ws://").replace("/?", "/ws?")
        stream_reader = threading.Thread(target=_collect_frames, daemon=True,
                                         args=(stream_url, stream_frames, stream_done))
        stream_reader.start()
        out, err = process.communicate(timeout=90)
        lines.append(out)
        assert process.returncode == 0, err
        done.wait(timeout=10)
        stream_done.wait(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate(timeout=10)
    text = "".join(lines)
    for rule in STORY_RULES[2:]:  # the first scenes may be planned before the client connects
        assert re.search(rf"^  (DUE|WAITING) {re.escape(rule)} ", text, re.M), text
    assert "every save made the story's events due" in text
    assert not folder.exists()
    seen: set[str] = set()
    for frame in frames:
        message = json.loads(frame)
        plan = (message.get("set") or message.get("state") or {}).get("plan") or {}
        seen.update(e["rule"] for e in plan.get("events", []) if e["status"] in ("fired", "waiting"))
    assert set(STORY_RULES[2:]) <= seen, seen
    # the demo's hidden Soviet unit and the Western player's face-down card never reach the stream
    assert len(stream_frames) > 3
    for secret in ("RU Secret Reserve", "RU-RES", "Card W1 Rearmament"):
        assert not any(secret in frame for frame in stream_frames), secret
        assert any(secret in frame for frame in frames)  # the control view (the players') has them


def test_live_demo_keeps_serving_after_the_story_until_ctrl_c() -> None:
    """Without --exit the last plan stays up (a newcomer needs time to open the pages); Ctrl-C ends it."""
    process = _start_demo("--pause", "0.2")
    try:
        lines: list[str] = []
        _read_until(process, lines, "story over")
        assert "stays up until Ctrl-C" in lines[-1]
        time.sleep(1.0)
        assert process.poll() is None  # still serving
        with urllib.request.urlopen(_url(lines, "stream"), timeout=10) as response:
            assert response.status == 200
        process.send_signal(signal.SIGINT)
        _out, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate(timeout=10)
    assert process.returncode == 0 and "Traceback" not in err


def test_demo_json_is_the_walk_through_with_a_header(capsys) -> None:
    assert main(["demo", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["format"], data["version"]) == ("adjutant-demo", 1)
    assert [s["file"] for s in data["scenes"]] == [f"{scene.file}.vsav" for scene in load_story()]
    assert all(scene["matches_story"] for scene in data["scenes"])
    assert data["scenes"][4]["events"][0]["rule"] == "16.2.1"


def test_live_demo_stops_cleanly_on_sigterm() -> None:
    process = _start_demo("--pause", "30")
    try:
        lines: list[str] = []
        _read_until(process, lines, "[1/")
        folder = Path(next(line for line in lines if "watched folder" in line).split(": ", 1)[1].strip())
        assert folder.is_dir()
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate(timeout=10)
    assert process.returncode == 130
    assert "Traceback" not in err and "stopped before the story ended" in out
    assert "[2/" not in out  # no save is copied after the stop
    assert not folder.exists()


def test_busy_port_is_one_line_exit_2() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = subprocess.run([sys.executable, "-m", "bridge", "demo", "--port", str(port)],
                                capture_output=True, text=True, timeout=60, cwd=PROJECT)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "cannot listen" in result.stderr and "--port" in result.stderr


def test_broken_pipe_prints_no_traceback() -> None:
    """`adjutant demo --no-serve | head -1`: the reader is gone; one quiet exit, no traceback."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader left before anything was written: every write is EPIPE
    try:
        result = subprocess.run([sys.executable, "-m", "bridge", "demo", "--no-serve"], stdout=write_end,
                                stderr=subprocess.PIPE, text=True, timeout=60, cwd=PROJECT)
    finally:
        os.close(write_end)
    assert result.returncode == 141
    assert "Traceback" not in result.stderr and "BrokenPipeError" not in result.stderr, result.stderr


def test_bad_live_options_are_one_line_exit_2(capsys) -> None:
    for argv in (["demo", "--pause", "-1"], ["demo", "--port", "70000"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("adjutant: ")
