"""Run the daemon inside a test: in-process (asyncio) or on a background thread (browser tests)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from bridge.daemon.watch import WatchDaemon
from tests.bridge.savefiles import fixture_planner, fixture_replayer

TEST_TIMEOUT_S = 30


def run(scenario: Callable[[], Awaitable[Any]], timeout: float = TEST_TIMEOUT_S) -> Any:
    """Every async test goes through here, so none can hang."""
    return asyncio.run(asyncio.wait_for(scenario(), timeout))


def make_daemon(folder: Path, lines: list[str] | None = None, **options: Any) -> WatchDaemon:
    options.setdefault("port", 0)
    options.setdefault("replay_function", fixture_replayer)
    options.setdefault("heartbeat_interval", 0.5)
    sink = lines if lines is not None else []
    return WatchDaemon(folder, options.pop("plan_function", fixture_planner), log_line=sink.append, **options)


@contextlib.asynccontextmanager
async def daemon_running(
    folder: Path, lines: list[str] | None = None, **options: Any
) -> AsyncIterator[WatchDaemon]:
    daemon = make_daemon(folder, lines, **options)
    await daemon.start()
    try:
        yield daemon
    finally:
        await daemon.stop()


def ws_url(daemon: WatchDaemon, view: str = "player", since: int | None = None,
           token: str | None = None) -> str:
    """The daemon's websocket for `view`, with the control token unless `token` says otherwise
    (bridge/web/access.py; tests of read-only pages pass the read token)."""
    token = daemon.server.tokens.control if token is None else token
    url = f"ws://127.0.0.1:{daemon.server.port}/ws?view={view}&token={token}"
    return url if since is None else f"{url}&since={since}"


async def receive_until(connection: Any, predicate: Callable[[dict], bool], timeout: float = 10) -> dict:
    """Read messages (skipping heartbeats) until one satisfies `predicate`."""

    async def loop() -> dict:
        while True:
            message = json.loads(await connection.recv())
            if message.get("type") != "heartbeat" and predicate(message):
                return message

    return await asyncio.wait_for(loop(), timeout)


class DaemonThread:
    """The daemon on its own event loop in a thread, so synchronous Playwright can drive a browser."""

    def __init__(self, folder: Path, port: int = 0, **options: Any) -> None:
        self.folder = folder
        self.options = {"port": port, **options}
        self.lines: list[str] = []
        self.daemon: WatchDaemon | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._main, daemon=True)
        self.error: BaseException | None = None

    def _main(self) -> None:
        async def body() -> None:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            self.daemon = make_daemon(self.folder, self.lines, **self.options)
            try:
                await self.daemon.start()
            finally:
                self._ready.set()
            try:
                await self._stop.wait()
            finally:
                await self.daemon.stop()

        try:
            asyncio.run(body())
        except BaseException as exc:  # reported to the test thread
            self.error = exc
            self._ready.set()

    def __enter__(self) -> DaemonThread:
        self._thread.start()
        if not self._ready.wait(TEST_TIMEOUT_S) or self.error:
            raise RuntimeError(f"daemon did not start: {self.error}")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(TEST_TIMEOUT_S)

    @property
    def port(self) -> int:
        assert self.daemon is not None
        return self.daemon.server.port

    def url(self, query: str, token: str | None = None) -> str:
        """A page of the daemon, with the control token unless `token` says otherwise (web/access.py)."""
        assert self.daemon is not None
        token = self.daemon.server.tokens.control if token is None else token
        return f"http://127.0.0.1:{self.port}/?{query}&token={token}"
