"""The editor's server: the overlay server's hardening, the editor's page, board images, and edits.

Why a subclass of `bridge.web.server.OverlayServer`: the editor writes the user's pack, so it must be at
least as closed as the overlay — loopback only, the Host check against DNS rebinding, GET/HEAD only
over HTTP, a whitelist of its own static files, bounded WebSocket messages. All of that is the
overlay server's `_process_request`, reused as is; this class adds the editor's routes and its
WebSocket handler, and narrows the Origin check to the editor's own page (a page served by another
local program must not be able to rewrite a pack).

Routes: `/` the page, `/model.json` the session model (bridge/web/editor/model.py), `/board/M/B` the
module's board image as stored in the .vmod (served with a `sandbox` CSP: an SVG board's scripts never
run at this origin), `/piece/N` the image of its N-th PieceSlot (the Counters pane, served the same
way), `/ws` edits, previews and saves (JSON messages, one edit per message).
"""

from __future__ import annotations

import asyncio
import http
import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Response

from bridge.web import access
from bridge.web.editor.model import EditError, EditorSession
from bridge.web.server import OverlayServer, _response, is_loopback_host
from vassal_parser.container import open_container
from vassal_parser.errors import InputError

EDITOR_DIR = Path(__file__).resolve().parent / "static"
IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
               ".svg": "image/svg+xml"}


class EditorServer(OverlayServer):
    def __init__(self, session: EditorSession, host: str = "127.0.0.1", port: int = 8766) -> None:
        super().__init__(host, port, static_dir=EDITOR_DIR, heartbeat_interval=3600)
        self.session = session
        self._lock = asyncio.Lock()
        self.saves = 0
        self._pages: set[ServerConnection] = set()  # open editor pages, told of each other's edits

    # ---- HTTP ----------------------------------------------------------------------------------
    def required_level(self, path: str, query: Any) -> str | None:
        """The control token (bridge/web/access.py) for the page, the model, the boards and the websocket:
        the editor writes the user's pack. Its scripts and styles are public code."""
        if (Path(path).suffix in (".js", ".css", ".ico", ".svg", ".png")
                and not path.startswith(("/board/", "/piece/"))):
            return None
        return access.CONTROL

    def origin_allowed(self, origin: str | None, host_header: str | None = None) -> bool:
        """Only the editor's own page: same scheme, loopback host and port as this server."""
        if origin is None:
            return False  # a browser always sends one on a WebSocket; anything else is not our page
        parts = urlsplit(origin)
        return parts.scheme == "http" and is_loopback_host(parts.hostname) and parts.port == self.port

    def _static(self, path: str) -> Response:
        if path == "/model.json":
            body = json.dumps(self.session.model(), ensure_ascii=False).encode("utf-8")
            return _response(http.HTTPStatus.OK, body, "application/json; charset=utf-8")
        if path.startswith("/board/"):
            return self._board(path)
        if path.startswith("/piece/"):
            return self._piece_image(path)
        return super()._static(path)

    def _board(self, path: str) -> Response:
        parts = path.split("/")
        not_found = _response(http.HTTPStatus.NOT_FOUND, b"Not found\n", "text/plain; charset=utf-8")
        if len(parts) != 4 or not (parts[2].isascii() and parts[2].isdigit() and parts[3].isascii()
                                   and parts[3].isdigit()):
            return not_found
        maps = self.session.module.maps
        m, b = int(parts[2]), int(parts[3])
        if m >= len(maps) or b >= len(maps[m].boards):
            return not_found
        return self._module_image(maps[m].boards[b].image)

    def _piece_image(self, path: str) -> Response:
        """`/piece/N`: the image of the module's N-th PieceSlot (the Counters pane), by number only —
        never by a name from the request, so nothing but a piece's own image can be read."""
        number = path[len("/piece/"):]
        if not (number.isascii() and number.isdigit() and len(number) < 9):
            return _response(http.HTTPStatus.NOT_FOUND, b"Not found\n", "text/plain; charset=utf-8")
        return self._module_image(self.session.counters.image_entry(int(number)))

    def _module_image(self, image: str | None) -> Response:
        """An image of the .vmod as stored, with a `sandbox` CSP (an SVG's scripts never run here)."""
        not_found = _response(http.HTTPStatus.NOT_FOUND, b"Not found\n", "text/plain; charset=utf-8")
        if not image:
            return not_found
        content_type = IMAGE_TYPES.get(Path(image).suffix.lower())
        if not image or content_type is None:
            return not_found
        try:
            container = open_container(self.session.module_path)
            entry = next((e for e in (f"images/{image}", image) if container.has_entry(e)), None)
            if entry is None:
                return not_found
            body = container.read_entry(entry)
        except InputError:
            return not_found
        response = _response(http.HTTPStatus.OK, body, content_type)
        response.headers["Content-Security-Policy"] = "sandbox; default-src 'none'; style-src 'unsafe-inline'"
        response.headers["Cache-Control"] = "private, max-age=3600"
        return response

    # ---- WebSocket -----------------------------------------------------------------------------
    async def _handle(self, connection: ServerConnection) -> None:
        self._pages.add(connection)
        try:
            async for raw in connection:
                reply = await self._on_edit(raw)
                await connection.send(json.dumps(reply, ensure_ascii=False))
                if reply.get("type") in ("applied", "state", "saved"):
                    await self._tell_others(connection)
        except ConnectionClosed:
            pass
        finally:
            self._pages.discard(connection)

    async def _tell_others(self, source: ServerConnection) -> None:
        """Every other open page gets the working copy as it now is (`changed`, never a reply), so that
        a second tab never toggles a City it still shows as it was before the first tab's edit."""
        others = [page for page in self._pages if page is not source]
        if not others:
            return
        session = self.session
        text = json.dumps({"type": "changed", "hexes": session.hexes, "border": session.border,
                           "boxes": session.boxes, **session.edit_state()}, ensure_ascii=False)
        for page in others:
            try:
                await page.send(text)
            except ConnectionClosed:
                self._pages.discard(page)

    async def _on_edit(self, raw: str | bytes) -> dict[str, Any]:
        try:
            message = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            return {"type": "error", "text": "not a JSON message"}
        if not isinstance(message, dict):
            return {"type": "error", "text": "a message is a JSON object"}
        async with self._lock:
            try:
                if message.get("type") == "save":
                    files = await asyncio.to_thread(self.session.save)
                    self.saves += 1
                    return {"type": "saved", "files": files, **self.session.edit_state()}
                if message.get("type") == "model":
                    return {"type": "model", "model": self.session.model()}
                if message.get("type") == "counters":  # the Counters pane, redrawn after an edit or undo
                    return {"type": "counters", "counters": self.session.counters.model()}
                if message.get("type") in ("undo", "redo"):
                    return self._undo_redo(message)
                self.session.apply(message)
            except (EditError, InputError) as exc:
                return {"type": "error", "text": str(exc), "id": message.get("id")}
            return {"type": "applied", "id": message.get("id"), **self.session.edit_state()}

    def _undo_redo(self, message: dict[str, Any]) -> dict[str, Any]:
        """The history is the server's (web/editor/history.py): the reply carries the entries to redraw."""
        session = self.session
        done = session.undo() if message["type"] == "undo" else session.redo()
        return {"type": "state", "id": message.get("id"), "done": done, "hexes": session.hexes,
                "border": session.border, "boxes": session.boxes, **session.edit_state()}
