"""Run `adjutant pack edit`'s server on a background thread (port 0, loopback) for tests."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from bridge.web.editor.model import EditorSession
from bridge.web.editor.server import EditorServer


class EditorThread:
    def __init__(self, pack: Path, module: Path) -> None:
        self.session = EditorSession(pack, module)
        self.server: EditorServer | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            self.server = EditorServer(self.session, port=0)
            await self.server.start()
            self._started.set()
            await self._stop.wait()
            await self.server.stop()

        asyncio.run(main())

    @property
    def url(self) -> str:
        assert self.server is not None
        return self.server.view_url(level="control")  # with the control token (bridge/web/access.py)

    def __enter__(self) -> EditorThread:
        self._thread.start()
        if not self._started.wait(20):
            raise RuntimeError("editor server did not start")
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)
