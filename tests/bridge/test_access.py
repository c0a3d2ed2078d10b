"""Issue 23: who may drive the control view and the editor (bridge/web/access.py).

Before, any page on another loopback origin (another port on 127.0.0.1, `localhost:*`, `[::1]:*`,
`evil.localhost`, `https://127.0.0.1`) could open the control websocket, read `concealed_names`, answer
choices and write the moves, and a foreign page could frame the control view and the editor. Now each
start has a control token and a read token; the Origin check stays. Real sockets, 127.0.0.1 only.
"""

from __future__ import annotations

import asyncio
import hmac
import http.client
import json
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from bridge.web import access
from tests.bridge.harness import daemon_running, receive_until, run
from tests.bridge.savefiles import sample_plan, save_bytes, write_in_place

FAST = {"debounce": 0.03, "retry": 0.05}
FOREIGN = ["http://127.0.0.1:1", "http://localhost:3000", "http://[::1]:8080", "http://evil.localhost:8765",
           "https://127.0.0.1"]


def _get(port: int, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def _ws(port: int, query: str) -> str:
    return f"ws://127.0.0.1:{port}/ws?{query}"


def test_foreign_loopback_origins_cannot_open_the_control_websocket_even_with_the_cookie(
        tmp_path: Path) -> None:
    async def scenario() -> None:
        async with daemon_running(tmp_path) as daemon:
            port, tokens = daemon.server.port, daemon.server.tokens
            # the player opened the control URL: the browser now holds the cookie for 127.0.0.1
            status, headers, _ = await asyncio.to_thread(_get, port, f"/?view=control&token={tokens.control}")
            assert status == 200
            cookie = headers["set-cookie"].split(";")[0]
            assert cookie == f"adjutant-{port}-control={tokens.control}"
            assert "HttpOnly" in headers["set-cookie"] and "SameSite=Strict" in headers["set-cookie"]
            for origin in FOREIGN:  # a browser sends the cookie along (cookies ignore ports): refused
                with pytest.raises(InvalidStatus) as refused:
                    async with connect(_ws(port, "view=control"), origin=origin,
                                       additional_headers={"Cookie": cookie}):
                        pass
                assert refused.value.response.status_code == 403, origin
            with pytest.raises(InvalidStatus):  # no token at all, no Origin (not a browser)
                async with connect(_ws(port, "view=control")):
                    pass
            # the page's own origin with the cookie: a reload of the control view
            async with connect(_ws(port, "view=control"), origin=f"http://127.0.0.1:{port}",
                               additional_headers={"Cookie": cookie}) as ws:
                assert json.loads(await ws.recv())["type"] == "snapshot"

    run(scenario)


def test_view_tokens_show_their_own_views_and_drive_nothing(tmp_path: Path) -> None:
    written: list[Path] = []

    def writer(path: Path, answers: Any) -> dict:
        written.append(path)
        return {"file": "x-adjutant.vlog", "path": str(path)}

    async def scenario() -> None:
        write_in_place(tmp_path / "a.vsav", save_bytes(sample_plan(status="waiting")))
        async with daemon_running(tmp_path, write_function=writer, **FAST) as daemon:
            port, tokens = daemon.server.port, daemon.server.tokens
            axis = tokens.player("Axis")
            shown = (("view=stream", tokens.stream), ("view=player&faction=Axis", axis), ("", axis))
            for query, token in shown:
                assert (await asyncio.to_thread(_get, port, f"/?{query}&token={token}"))[0] == 200
            for query in ("view=control", "view=stream", "view=player"):
                assert (await asyncio.to_thread(_get, port, f"/?{query}"))[0] == 403  # no token
            for token in (tokens.stream, axis):
                assert (await asyncio.to_thread(_get, port, f"/?view=control&token={token}"))[0] == 403
                with pytest.raises(InvalidStatus):
                    async with connect(_ws(port, f"view=control&token={token}")):
                        pass
            async with connect(_ws(port, f"view=player&faction=Axis&token={axis}")) as player:
                await receive_until(player,
                                    lambda m: bool((m.get("state") or m.get("set") or {}).get("plan")))
                for message in ({"type": "answer", "choice": "16.2.1:country", "option": "Luxembourg"},
                                {"type": "tick", "step": "16.2.1/Step 1#0", "done": True},
                                {"type": "write_moves"}):
                    await player.send(json.dumps(message))
                    error = await receive_until(player, lambda m: m["type"] == "error")
                    assert "read-only" in error["message"], error
            assert daemon.server.history.state["answers"] == {} and daemon.server.history.state["ticks"] == {}
            assert written == []
            wrong = tokens.stream[:-1] + ("y" if tokens.stream.endswith("x") else "x")  # always another token
            with pytest.raises(InvalidStatus):  # a wrong token is no token
                async with connect(_ws(port, f"view=stream&token={wrong}")):
                    pass

    run(scenario)


def test_every_page_and_refusal_forbids_framing(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with daemon_running(tmp_path) as daemon:
            port, tokens = daemon.server.port, daemon.server.tokens
            for path in (f"/?view=control&token={tokens.control}", f"/?view=stream&token={tokens.stream}",
                         "/overlay.js", "/?view=control", "/nothing.txt", "/ws"):
                status, headers, _ = await asyncio.to_thread(_get, port, path)
                assert "frame-ancestors 'none'" in headers.get("content-security-policy", ""), (path, status)
                assert headers.get("x-frame-options") == "DENY", path
            status, headers, _ = await asyncio.to_thread(_get, port, "/", {"Host": "attacker.example"})
            assert status == 403 and headers.get("x-frame-options") == "DENY"

    run(scenario)


def test_tokens_are_compared_in_constant_time_each_against_every_one(monkeypatch: pytest.MonkeyPatch) -> None:
    tokens = access.AccessTokens.generate()
    every = [tokens.control, tokens.stream, *tokens.players.values()]
    assert len(set(every)) == 5 and set(tokens.players) == {"Axis", "Western", "Soviet"}
    assert min(len(token) for token in every) >= 32
    compared: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(access.hmac, "compare_digest", spy)
    assert tokens.level(tokens.control) == access.CONTROL
    assert tokens.key(tokens.stream) == access.Key(access.STREAM)
    assert tokens.key(tokens.player("Soviet")) == access.Key(access.PLAYER, "Soviet")
    assert tokens.level("guess") is None and tokens.level("") is None and tokens.level("\udc80") is None
    assert len(compared) == 25  # five comparisons for each of the five non-empty tokens, whatever matched
    assert access.AccessTokens.generate() != tokens  # per start


def test_a_page_reload_without_the_token_works_from_the_cookie(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with daemon_running(tmp_path) as daemon:
            port, tokens = daemon.server.port, daemon.server.tokens
            _, headers, _ = await asyncio.to_thread(_get, port, f"/?view=stream&token={tokens.stream}")
            cookie = headers["set-cookie"].split(";")[0]
            assert cookie == f"adjutant-{port}-stream={tokens.stream}"
            assert (await asyncio.to_thread(_get, port, "/?view=stream", {"Cookie": cookie}))[0] == 200
            assert (await asyncio.to_thread(_get, port, "/?view=control", {"Cookie": cookie}))[0] == 403
            other = f"adjutant-{port + 1}-control={tokens.control}"  # another port's cookie counts not
            assert (await asyncio.to_thread(_get, port, "/?view=control", {"Cookie": other}))[0] == 403

    run(scenario)


def test_the_snapshot_says_what_the_connections_token_allows(tmp_path: Path) -> None:
    """So a page can tell a read-only player URL from the control one (its buttons would be refused)."""

    async def scenario() -> None:
        async with daemon_running(tmp_path) as daemon:
            port, tokens = daemon.server.port, daemon.server.tokens
            for token, level in ((tokens.player("Axis"), "read"), (tokens.control, "control")):
                async with connect(_ws(port, f"view=player&faction=Axis&token={token}")) as ws:
                    assert json.loads(await ws.recv())["access"] == level

    run(scenario)
