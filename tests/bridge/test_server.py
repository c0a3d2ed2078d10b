"""The daemon's WebSocket protocol and HTTP side, exercised with real clients over 127.0.0.1."""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from bridge.web import protocol
from bridge.web.server import OverlayServer
from tests.bridge.harness import daemon_running, receive_until, run, ws_url
from tests.bridge.savefiles import sample_plan, save_bytes, write_in_place


def _is_plan_delta(message: dict) -> bool:
    return message["type"] == "delta" and "plan" in message["set"]


def test_snapshot_on_connect_then_numbered_deltas(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with daemon_running(tmp_path) as daemon, connect(ws_url(daemon)) as ws:
            snapshot = json.loads(await ws.recv())
            assert snapshot["type"] == "snapshot" and snapshot["protocol"] == protocol.PROTOCOL_VERSION
            assert set(snapshot["state"]) == set(protocol.STATE_KEYS)
            seq = snapshot["seq"]
            write_in_place(tmp_path / "turn1.vsav", save_bytes(sample_plan()))
            seen = []
            message = await receive_until(ws, lambda m: seen.append(m) or _is_plan_delta(m))
            assert [m["seq"] for m in seen] == list(range(seq + 1, seq + 1 + len(seen)))  # no gaps
            assert message["set"]["file"] == "turn1.vsav"
            assert message["set"]["plan"]["events"][0]["rule"] == "16.2.1"

    run(scenario)


def test_reconnect_with_last_seq_gets_only_missed_deltas(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with daemon_running(tmp_path) as daemon:
            async with connect(ws_url(daemon)) as ws:
                last_seq = json.loads(await ws.recv())["seq"]
            write_in_place(tmp_path / "a.vsav", save_bytes(sample_plan(turn="Spring 1940")))
            write_in_place(tmp_path / "b.vsav", save_bytes(sample_plan(turn="Summer 1940")))
            for _ in range(200):  # bounded wait for both plans
                if daemon.server.history.state["plan"] and daemon.coordinator.current == tmp_path / "b.vsav":
                    break
                await asyncio.sleep(0.02)
            target = daemon.server.history.seq
            async with connect(ws_url(daemon, since=last_seq)) as ws:
                missed = []
                await receive_until(ws, lambda m: missed.append(m) or m["seq"] == target)
            assert all(m["type"] == "delta" for m in missed)
            assert [m["seq"] for m in missed] == list(range(last_seq + 1, target + 1))
            assert missed[-1]["seq"] == target

    run(scenario)


def test_resync_too_old_gets_a_full_snapshot(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with daemon_running(tmp_path, history_limit=2) as daemon:
            for n in range(5):
                daemon.server.publish({"updated": n})
            async with connect(ws_url(daemon, since=1)) as ws:
                message = json.loads(await ws.recv())
                assert message["type"] == "snapshot" and message["seq"] == 5
                await ws.send(json.dumps({"type": "resync", "since": 4}))
                message = await receive_until(ws, lambda m: True)
                assert message["type"] == "delta" and message["seq"] == 5

    run(scenario)


def test_bad_messages_get_an_error_and_the_connection_stays_usable(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with daemon_running(tmp_path) as daemon, connect(ws_url(daemon, "control")) as ws:
            await ws.recv()
            for bad in ("{", '{"type":"nope"}', '{"type":"answer","choice":"16.2.1:country","option":"x"}'):
                await ws.send(bad)
                error = await receive_until(ws, lambda m: True)
                assert error["type"] == "error" and error["error"] == "bad-message"
            await ws.send(b"\x00binary")
            assert (await receive_until(ws, lambda m: True))["type"] == "error"
            await ws.send('{"type":"ping"}')
            assert (await receive_until(ws, lambda m: True))["type"] == "pong"

    run(scenario)


def test_stream_view_is_read_only(tmp_path: Path) -> None:
    async def scenario() -> None:
        write_in_place(tmp_path / "a.vsav", save_bytes(sample_plan()))
        async with daemon_running(tmp_path) as daemon, connect(ws_url(daemon, "stream")) as ws:
            await receive_until(
                ws, lambda m: (m.get("type") == "snapshot" and m["state"]["plan"]) or _is_plan_delta(m)
            )
            await ws.send(json.dumps({"type": "answer", "choice": "16.2.1:country", "option": "Luxembourg"}))
            error = await receive_until(ws, lambda m: m["type"] == "error")
            assert "read-only" in error["message"]
            assert daemon.coordinator.answers == {}

    run(scenario)


def test_oversized_message_closes_the_connection(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with daemon_running(tmp_path) as daemon, connect(ws_url(daemon), max_size=None) as ws:
            await ws.recv()
            await ws.send(json.dumps({"type": "ping", "pad": "x" * (protocol.MAX_CLIENT_MESSAGE_BYTES * 2)}))
            with pytest.raises(ConnectionClosed) as closed:
                await asyncio.wait_for(receive_until(ws, lambda m: False), 10)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009  # message too big

    run(scenario)


def test_foreign_origin_is_refused_loopback_and_allowed_origins_accepted(tmp_path: Path) -> None:
    async def scenario() -> None:
        allowed = ("http://studio.example:8080",)
        async with daemon_running(tmp_path, allowed_origins=allowed) as daemon:
            with pytest.raises(InvalidStatus) as refused:
                async with connect(ws_url(daemon), origin="http://evil.example"):
                    pass
            assert refused.value.response.status_code == 403
            for origin in (f"http://127.0.0.1:{daemon.server.port}", "http://localhost:1234", allowed[0]):
                async with connect(ws_url(daemon), origin=origin) as ws:
                    assert json.loads(await ws.recv())["type"] == "snapshot"

    run(scenario)


def test_unknown_view_is_closed_with_policy_violation(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with daemon_running(tmp_path) as daemon, connect(ws_url(daemon, "admin")) as ws:
            with pytest.raises(ConnectionClosed) as closed:
                await asyncio.wait_for(ws.recv(), 10)
            assert closed.value.rcvd.code == 1008

    run(scenario)


def test_heartbeats_carry_the_current_sequence_number(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with daemon_running(tmp_path, heartbeat_interval=0.1) as daemon, connect(ws_url(daemon)) as ws:
            await ws.recv()
            daemon.server.publish({"updated": 1.0})
            beat = await asyncio.wait_for(_next_heartbeat(ws), 5)
            assert beat["seq"] == daemon.server.history.seq

    async def _next_heartbeat(ws) -> dict:
        while True:
            message = json.loads(await ws.recv())
            if message["type"] == "heartbeat":
                return message

    run(scenario)


def _raw_websocket_that_never_reads(port: int, token: str) -> socket.socket:
    """A client that completes the handshake and then never reads a byte (a frozen browser)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.sendall(
        (
            f"GET /ws?view=player&token={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    return sock


def test_a_client_that_never_reads_never_delays_the_others() -> None:
    async def scenario() -> None:
        server = OverlayServer("127.0.0.1", 0, queue_limit=8, heartbeat_interval=60)
        await server.start()
        axis = server.tokens.player("Axis")
        stuck = await asyncio.to_thread(_raw_websocket_that_never_reads, server.port, axis)
        try:
            url = f"ws://127.0.0.1:{server.port}/ws?view=control&token={server.tokens.control}"
            async with connect(url, max_size=None) as healthy:
                await healthy.recv()
                big = {"events": [{"rule": "16.1.1", "why": ["x" * 200_000]}]}
                loop = asyncio.get_running_loop()
                for n in range(300):  # bounded: ~60 MB at most before the stuck client must be dropped
                    server.publish({"plan": {**big, "turn": n}})
                    started = loop.time()
                    message = json.loads(await asyncio.wait_for(healthy.recv(), 5))
                    assert message["set"]["plan"]["turn"] == n
                    assert loop.time() - started < 2
                    if server.dropped_slow_clients and n >= 20:
                        break
                assert server.dropped_slow_clients == 1
                assert len(server.clients) == 1
        finally:
            stuck.close()
            await server.stop()

    run(scenario)


def _http_get(port: int, path: str, host: str | None = None) -> tuple[int, str, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    headers = {"Host": host} if host else {}
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    return response.status, response.getheader("Content-Type", ""), response.read()


def test_http_serves_the_overlay_files_and_nothing_else(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with daemon_running(tmp_path) as daemon:
            port = daemon.server.port
            status, kind, body = await asyncio.to_thread(_http_get, port,
                                                         f"/?view=stream&token={daemon.server.tokens.stream}")
            assert status == 200 and kind.startswith("text/html") and b"<html" in body.lower()
            status, kind, _ = await asyncio.to_thread(_http_get, port, "/overlay.js")
            assert status == 200 and "javascript" in kind
            for path in ("/../watch.py", "/%2e%2e/server.py", "/nothing.txt", "/__init__.py"):
                assert (await asyncio.to_thread(_http_get, port, path))[0] == 404
            assert (await asyncio.to_thread(_http_get, port, "/ws"))[0] == 426
            # DNS rebinding: a loopback-bound server refuses foreign Host headers
            assert (await asyncio.to_thread(_http_get, port, "/", "attacker.example"))[0] == 403

    run(scenario)


def test_since_from_another_server_run_gets_a_snapshot(tmp_path: Path) -> None:
    """Sequence numbers restart with the daemon: a `since` only counts with the run it came from."""

    async def scenario() -> None:
        async with daemon_running(tmp_path) as daemon:
            for n in range(3):
                daemon.server.publish({"updated": n})
            run_id = daemon.server.history.run
            async with connect(ws_url(daemon, since=1) + "&run=another-run") as ws:
                assert json.loads(await ws.recv())["type"] == "snapshot"
            async with connect(ws_url(daemon, since=1) + f"&run={run_id}") as ws:
                assert json.loads(await ws.recv())["seq"] == 2

    run(scenario)
