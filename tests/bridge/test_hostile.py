"""Hostile or unlucky use of the live daemon (audit): Ctrl-C mid-plan, a vanishing folder, odd HTTP,
a LAN-bound overlay, answers racing each other. Real processes and sockets, 127.0.0.1 only."""

from __future__ import annotations

import asyncio
import http.client
import json
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from bridge.web.server import OverlayServer
from tests.bridge.harness import daemon_running, receive_until, run, ws_url
from tests.bridge.savefiles import fixture_planner, sample_plan, save_bytes
from vassal_parser.errors import InputError

PROJECT = Path(__file__).resolve().parents[2]
FAST = {"debounce": 0.03, "retry": 0.05}

SLOW_DAEMON = textwrap.dedent(
    """
    import asyncio, sys, time
    from pathlib import Path
    from bridge.cli.commands.watch import serve_until_signal
    from bridge.daemon.watch import WatchDaemon
    from tests.bridge.savefiles import fixture_planner

    def slow_planner(path, answers):
        print("planning started", flush=True)
        time.sleep(60)
        return fixture_planner(path, answers)

    daemon = WatchDaemon(Path(sys.argv[1]), slow_planner, port=0, log_line=lambda s: print(s, flush=True))
    asyncio.run(serve_until_signal(daemon))
    print("stopped", flush=True)
    """
)


def test_ctrl_c_while_a_plan_is_running_stops_at_once(tmp_path: Path) -> None:
    """A long plan (a big log replay) must not hold Ctrl-C/SIGTERM hostage until it ends."""
    (tmp_path / "game.vsav").write_bytes(save_bytes(sample_plan()))
    for signum in (signal.SIGINT, signal.SIGTERM):
        process = subprocess.Popen(
            [sys.executable, "-c", SLOW_DAEMON, str(tmp_path)],
            cwd=PROJECT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            assert process.stdout is not None
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                line = process.stdout.readline()
                if not line or "planning started" in line:
                    break
            assert "planning started" in line
            process.send_signal(signum)
            stopped_at = time.monotonic()
            process.wait(timeout=20)
            assert time.monotonic() - stopped_at < 5, f"{signum!r} waited for the running plan"
            assert process.returncode == 0
            assert "stopped" in process.stdout.read()
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(5)


def test_a_deleted_watched_folder_is_reported_once_and_watching_resumes_when_it_returns(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    lines: list[str] = []

    async def scenario() -> None:
        async with daemon_running(folder, lines, folder_check=0.1, **FAST) as daemon:
            ws = await connect(ws_url(daemon))
            try:
                await ws.recv()
                shutil.rmtree(folder)
                notice = await receive_until(ws, lambda m: "notice" in (m.get("set") or {}))
                assert "saves" in notice["set"]["notice"] and "gone" in notice["set"]["notice"]
                await asyncio.sleep(0.5)
                assert sum("gone" in line for line in lines) == 1, lines  # one line, not one per check
                folder.mkdir()
                await asyncio.sleep(0.4)
                (folder / "game.vsav").write_bytes(save_bytes(sample_plan()))
                await receive_until(ws, lambda m: "plan" in (m.get("set") or {}))
            finally:
                await ws.close()
        assert any("game.vsav: planned" in line for line in lines), lines

    run(scenario)


def _http(port: int, method: str, path: str = "/") -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request(method, path)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def test_http_head_has_no_body_and_other_methods_are_refused(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with daemon_running(tmp_path) as daemon:
            port = daemon.server.port
            page = f"/?token={daemon.server.tokens.player('Axis')}"
            get_status, get_headers, body = await asyncio.to_thread(_http, port, "GET", page)
            head_status, head_headers, _ = await asyncio.to_thread(_http, port, "HEAD", page)
            assert get_status == head_status == 200
            assert head_headers["Content-Length"] == get_headers["Content-Length"] == str(len(body))
            # http.client reads no body for HEAD, so read the raw bytes: headers and nothing else
            raw = await asyncio.to_thread(_raw_exchange, port,
                                          f"HEAD {page} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            assert raw.endswith(b"\r\n\r\n"), raw[-80:]
            for method in ("POST", "PUT", "DELETE"):
                status, headers, _ = await asyncio.to_thread(_http, port, method)
                assert status == 405 and headers["Allow"] == "GET, HEAD"

    run(scenario)


def _raw_exchange(port: int, request: bytes) -> bytes:

    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(request)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    return received


def test_a_lan_bound_overlay_accepts_its_own_pages_but_not_foreign_ones() -> None:
    """--host 192.168.x.y without --allow-origin: the page served from that address must connect,
    while a named site (possibly DNS-rebound to it) stays refused. Not started: no network used."""
    server = OverlayServer("0.0.0.0", 8765)
    assert server.origin_allowed("http://192.168.1.5:8765", "192.168.1.5:8765")
    assert server.origin_allowed("http://[fe80::1]:8765", "[fe80::1]:8765")
    assert not server.origin_allowed("http://192.168.1.5:8765", "192.168.1.6:8765")
    assert not server.origin_allowed("http://evil.example:8765", "evil.example:8765")
    assert not server.origin_allowed("http://192.168.1.5:9999", "192.168.1.5:8765")
    assert server.origin_allowed("http://127.0.0.1:8765", "192.168.1.5:8765")  # loopback pages stay fine


def test_deeply_nested_json_gets_an_error_reply_and_the_connection_stays_open(tmp_path: Path) -> None:
    """`[[[[…]]]]` under the 16 KiB limit made json.loads raise RecursionError: a traceback and 1011."""

    async def scenario() -> None:
        async with daemon_running(tmp_path) as daemon, connect(ws_url(daemon, "control")) as ws:
            await ws.recv()
            await ws.send("[" * 5000 + "]" * 5000)
            error = await receive_until(ws, lambda m: m["type"] == "error")
            assert "nested" in error["message"]
            await ws.send('{"type": "ping"}')
            assert (await receive_until(ws, lambda m: True))["type"] == "pong"

    run(scenario)


def _slow_planner(path: Path, answers: object) -> dict:
    time.sleep(0.15)  # a real 5,000-piece plan takes about this long cold
    return fixture_planner(path, answers)  # type: ignore[arg-type]


def test_a_burst_of_saves_ends_on_the_newest_and_skips_the_superseded(tmp_path: Path) -> None:
    """Copying in 10 saves at once: plans queued behind a newer file are skipped (each logged once),
    and the screen ends on the last file written, not on whichever was planned last."""
    lines: list[str] = []

    async def scenario() -> None:
        async with daemon_running(tmp_path, lines, plan_function=_slow_planner, **FAST) as daemon:
            for n in range(10):
                (tmp_path / f"game-{n}.vsav").write_bytes(save_bytes(sample_plan(turn=f"Turn {n}")))
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline and sum("game-" in line for line in lines) < 10:
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.3)
            assert daemon.server.history.state["file"] == "game-9.vsav"
        planned = [line for line in lines if ": planned" in line]
        skipped = [line for line in lines if "superseded" in line]
        assert len(planned) < 10 and planned[-1].startswith("game-9.vsav"), lines
        outcomes = sorted(line.split(":")[0] for line in planned + skipped)
        assert outcomes == [f"game-{n}.vsav" for n in range(10)]  # one line per file seen

    run(scenario)


def test_a_file_whose_check_finishes_late_does_not_replace_a_newer_plan(tmp_path: Path) -> None:
    """The checks run on threads and can finish out of order (seen live: b3-06 planned before b3-05)."""
    lines: list[str] = []
    older, newer = tmp_path / "older.vsav", tmp_path / "newer.vsav"

    async def scenario() -> None:
        older.write_bytes(save_bytes(sample_plan(turn="Older")))  # written before the daemon starts:
        newer.write_bytes(save_bytes(sample_plan(turn="Newer")))  # only the pokes below report them
        async with daemon_running(tmp_path, lines, plan_existing=False, **FAST) as daemon:
            daemon.watcher.poke(older, 0.4)  # the older file was seen first but is checked last
            daemon.watcher.poke(newer, 0.0)
            await asyncio.sleep(1.0)
            assert daemon.server.history.state["file"] == "newer.vsav"
            assert daemon.server.history.state["plan"]["turn"] == "Newer"
        assert any(line.startswith("older.vsav: skipped") for line in lines), lines

    run(scenario)


def _planner_refusing_luxembourg(path: Path, answers: Any) -> dict:
    """16.2.1: the engine may refuse an option the plan listed (e.g. the position changed)."""
    time.sleep(0.1)
    if answers.get("16.2.1:country") == "Luxembourg":
        raise InputError("<answers>", "Luxembourg cannot be invaded now (16.2.1)")
    return fixture_planner(path, answers)


def test_two_clients_answering_the_same_choice_at_once_keep_the_accepted_answer(
    tmp_path: Path,
) -> None:
    """16.2.1 choice answered by two controls at once, one answer refused by the engine: the
    accepted answer stays (before: the refused one's take-back erased it) and the plan is its plan."""
    lines: list[str] = []

    async def scenario() -> None:
        (tmp_path / "a.vsav").write_bytes(save_bytes(sample_plan(status="waiting")))
        async with (
            daemon_running(tmp_path, lines, plan_function=_planner_refusing_luxembourg, **FAST) as daemon,
            connect(ws_url(daemon, "control")) as first,
            connect(ws_url(daemon, "control")) as second,
        ):
            for ws in (first, second):
                await receive_until(ws, lambda m: bool((m.get("state") or m.get("set") or {}).get("plan")))
            good = {"type": "answer", "choice": "16.2.1:country", "option": "Belgium-Holland"}
            refused = {"type": "answer", "choice": "16.2.1:country", "option": "Luxembourg"}
            await asyncio.gather(first.send(json.dumps(refused)), second.send(json.dumps(good)))
            state = daemon.server.history.state
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and not any("Luxembourg cannot" in line for line in lines):
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.5)  # let every queued re-plan finish
            assert state["answers"] == {"16.2.1:country": "Belgium-Holland"}
            assert state["plan"]["events"][0]["status"] == "fired"

    run(scenario)


def test_a_save_replaced_by_a_rename_while_it_is_planned_ends_on_the_new_content(tmp_path: Path) -> None:
    """VASSAL <= 3.4.3 renames `tmp*.zip` over the save (spec §8.3); if that lands mid-plan, the
    plan of the old content is published first and the new content is planned right after."""
    save = tmp_path / "game.vsav"
    save.write_bytes(save_bytes(sample_plan(turn="Old")))

    async def scenario() -> None:
        async with daemon_running(tmp_path, plan_function=_slow_planner, **FAST) as daemon:
            while daemon.server.history.state["status"] != "planning":
                await asyncio.sleep(0.01)
            replacement = tmp_path / "tmp1234.zip"
            replacement.write_bytes(save_bytes(sample_plan(turn="New")))
            replacement.replace(save)
            state = daemon.server.history.state
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and (state.get("plan") or {}).get("turn") != "New":
                await asyncio.sleep(0.05)
            assert state["plan"]["turn"] == "New" and state["file"] == "game.vsav"

    run(scenario)


def test_200_clients_connecting_and_dropping_leave_no_trace_and_the_next_is_served(tmp_path: Path) -> None:

    handshake = (
        b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )

    async def scenario() -> None:
        async with daemon_running(tmp_path) as daemon:

            async def one(n: int) -> str:
                view = ("player", "stream", "control")[n % 3]
                async with connect(ws_url(daemon, view), open_timeout=20) as ws:
                    return json.loads(await ws.recv())["type"]

            kinds = await asyncio.gather(*(one(n) for n in range(200)))
            assert set(kinds) == {"snapshot"}
            for _ in range(50):  # handshake sent, then the socket vanishes without a close frame
                with socket.create_connection(("127.0.0.1", daemon.server.port)) as raw:
                    raw.sendall(handshake)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and daemon.server.clients:
                await asyncio.sleep(0.05)
            assert not daemon.server.clients
            async with connect(ws_url(daemon, "stream")) as ws:
                await ws.recv()
                daemon.server.publish({"notice": "still serving"})
                delta = await receive_until(ws, lambda m: m["type"] == "delta")
                assert delta["set"]["notice"] == "still serving"

    run(scenario)


def test_a_watched_folder_deleted_and_recreated_at_once_is_watched_again(tmp_path: Path) -> None:
    """Gone and back between two looks (a sync tool replacing the folder): the old inotify watch is
    dead, so the new folder (same name, new inode) must be watched afresh."""
    folder = tmp_path / "saves"
    folder.mkdir()
    lines: list[str] = []

    async def scenario() -> None:
        async with daemon_running(folder, lines, folder_check=0.1, **FAST) as daemon:
            shutil.rmtree(folder)
            folder.mkdir()
            await asyncio.sleep(0.5)
            (folder / "game.vsav").write_bytes(save_bytes(sample_plan(turn="After")))
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and daemon.server.history.state["file"] != "game.vsav":
                await asyncio.sleep(0.05)
            assert daemon.server.history.state["file"] == "game.vsav", lines

    run(scenario)


def test_a_since_that_is_not_a_plain_number_gets_a_snapshot_not_a_crash(tmp_path: Path) -> None:
    """`since=²` passed str.isdigit() and `since=9…9` (5,000 digits) broke int(): both crashed the
    connection handler (1011 and a traceback) instead of being treated as unknown."""

    async def scenario() -> None:
        async with daemon_running(tmp_path) as daemon:
            base = f"{ws_url(daemon)}&run={daemon.server.history.run}"
            for since in ("%C2%B2", "9" * 5000, "-1", "1e3"):
                async with connect(f"{base}&since={since}") as ws:
                    assert json.loads(await asyncio.wait_for(ws.recv(), 5))["type"] == "snapshot"

    run(scenario)


def test_an_unknown_view_with_a_long_non_ascii_name_is_closed_with_1008(tmp_path: Path) -> None:
    """The close reason echoes the view; a WebSocket close reason is at most 123 bytes of UTF-8."""

    async def scenario() -> None:
        async with daemon_running(tmp_path) as daemon:
            async with connect(ws_url(daemon, '%E2%82%AC' * 60)) as ws:
                with pytest.raises(ConnectionClosed) as closed:
                    await asyncio.wait_for(ws.recv(), 5)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008

    run(scenario)


def test_a_client_flooding_answers_cannot_hold_up_the_next_save(tmp_path: Path) -> None:
    """Each answer re-plans (16.2.1 choice); 50 answers sent at once queued 50 plans ahead of the
    players' next save. Answers a client still has being planned are bounded; the rest get an error."""
    calls: list[str] = []

    def counting_slow_planner(path: Path, answers: Any) -> dict:
        calls.append(path.name)
        return _slow_planner(path, answers)

    async def scenario() -> None:
        (tmp_path / "a.vsav").write_bytes(save_bytes(sample_plan(status="waiting")))
        async with (
            daemon_running(tmp_path, plan_function=counting_slow_planner, **FAST) as daemon,
            connect(ws_url(daemon, "control"), max_queue=None) as flooder,  # reads on: closes fast
        ):
            await receive_until(flooder, lambda m: bool((m.get("state") or m.get("set") or {}).get("plan")))
            for n in range(50):
                country = ("Belgium-Holland", "Luxembourg")[n % 2]
                await flooder.send(
                    json.dumps({"type": "answer", "choice": "16.2.1:country", "option": country})
                )
            await asyncio.sleep(0.2)
            written = time.monotonic()
            (tmp_path / "b.vsav").write_bytes(save_bytes(sample_plan(turn="Next turn")))
            deadline = written + 10
            while time.monotonic() < deadline and daemon.server.history.state["file"] != "b.vsav":
                await asyncio.sleep(0.02)
            assert daemon.server.history.state["file"] == "b.vsav"
            assert time.monotonic() - written < 2.0, (
                f"the save waited behind {calls.count('a.vsav')} answer plans"
            )

    run(scenario)
