"""One port, two jobs: the overlay page over HTTP and the live protocol over WebSocket.

Why one port: an OBS browser source or a player's browser needs a single address, and the page's
WebSocket then comes from the same origin, which makes the Origin check simple (loopback pages
only, unless `--allow-origin` names another). HTTP is answered from websockets' `process_request`
hook, so there is no second server to run or secure.

Why per-client queues: one stalled browser (a laptop gone to sleep, an OBS scene not refreshing)
must never delay the others. Each client has a bounded queue drained by its own sender task; when
the queue is full the client is disconnected, and on reconnect it resyncs from its last sequence
number (docs/protocol.md).

Why over 500 lines: one HTTP + websocket server whose hardening (Host, Origin, tokens, methods,
static files, framing headers, per-client queues) must be read together; the tokens are in access.py,
the view filter in view_filter.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import http
import ipaddress
import logging
import mimetypes
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from bridge.web import access, protocol, view_filter

LOG = logging.getLogger("adjutant.server")

OVERLAY_DIR = Path(__file__).resolve().parent / "overlay"
WEBSOCKET_PATH = "/ws"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
DEFAULT_QUEUE_LIMIT = 64
DEFAULT_HEARTBEAT_S = 5.0
# Each answer re-plans the current file. A client may have this many still being planned; more are
# refused, so one page (or a stuck button) cannot queue minutes of re-plans ahead of the next save.
MAX_PENDING_ANSWERS = 3
UNKNOWN_FACTION = "?"  # a player view's faction no key is for (OverlayServer.faction_of)
STATIC_SUFFIXES = frozenset({".html", ".js", ".css", ".svg", ".png", ".ico"})

AnswerHandler = Callable[[str, Any], Awaitable[None]]
TickHandler = Callable[[str, bool], None]
WriteHandler = Callable[[], Awaitable[None]]


def is_loopback_host(host: str | None) -> bool:
    if not host:
        return False
    name = host.strip("[]").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _is_ip_literal(host: str | None) -> bool:
    try:
        ipaddress.ip_address((host or "").strip("[]"))
    except ValueError:
        return False
    return True


def _host_without_port(value: str) -> str:
    """`127.0.0.1:8765` -> `127.0.0.1`; `[::1]:8765` -> `::1`."""
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


class _Client:
    """One connected page: its view and its bounded outgoing queue."""

    def __init__(self, connection: ServerConnection, view: str, queue_limit: int,
                 level: str | None = access.CONTROL, faction: str | None = None) -> None:
        self.connection = connection
        self.view = view
        self.level = level  # bridge/web/access.py: what its token allows (read-only pages drive nothing)
        self.faction = faction  # a player view's faction (bridge/web/view_filter.py: what it is shown)
        self.queue: asyncio.Queue[str] = asyncio.Queue(maxsize=queue_limit)
        self.sender: asyncio.Task[None] | None = None
        self.dropped = False
        self.answers_pending = 0

    def offer(self, text: str) -> bool:
        """Queue a message without ever waiting; False means the client is too slow."""
        if self.dropped:
            return False
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            return False
        return True

    def answer_planned(self) -> None:
        self.answers_pending -= 1

    async def drain(self) -> None:
        while True:
            text = await self.queue.get()
            await self.connection.send(text)


class OverlayServer:
    """The state document, its history, and every connected page."""

    def __init__(
        self,
        host: str = DEFAULT_HOST,
        port: int = DEFAULT_PORT,
        *,
        allowed_origins: Iterable[str] = (),
        history_limit: int = protocol.DEFAULT_HISTORY_LIMIT,
        queue_limit: int = DEFAULT_QUEUE_LIMIT,
        heartbeat_interval: float = DEFAULT_HEARTBEAT_S,
        static_dir: Path = OVERLAY_DIR,
        tokens: access.AccessTokens | None = None,
    ) -> None:
        self.host = host
        # This start's secrets (bridge/web/access.py): printed in the URLs, required by pages and sockets.
        self.tokens = tokens if tokens is not None else access.AccessTokens.generate()
        self.port = port
        self.allowed_origins = frozenset(origin.rstrip("/") for origin in allowed_origins)
        self.history = protocol.StateHistory(history_limit)
        self.queue_limit = queue_limit
        self.heartbeat_interval = heartbeat_interval
        self.static_dir = static_dir
        self.on_answer: AnswerHandler | None = None
        self.on_tick: TickHandler | None = None
        self.on_write: WriteHandler | None = None  # "Write the moves" (control view)
        self.clients: set[_Client] = set()
        self.dropped_slow_clients = 0
        self._server: Server | None = None
        self._heartbeat: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._stream_view: view_filter.StreamView | None = None
        self._side_views: dict[str | None, view_filter.SideView] = {}  # player views, per faction
        # The daemon's own folders (watched, --out): texts name their files by base name on public views.
        self.private_folders: tuple[str, ...] = ()

    # --- lifecycle -------------------------------------------------------------------------------

    async def start(self) -> None:
        self._server = await serve(
            self._handle,
            self.host,
            self.port,
            process_request=self._process_request,
            max_size=protocol.MAX_CLIENT_MESSAGE_BYTES,
            max_queue=8,
            ping_interval=10,
            ping_timeout=10,
            close_timeout=1,
            compression=None,
        )
        sockets = list(self._server.sockets)
        if sockets:
            self.port = sockets[0].getsockname()[1]
        self._heartbeat = asyncio.ensure_future(self._beat())

    async def stop(self) -> None:
        if self._heartbeat is not None:
            self._heartbeat.cancel()
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._server.wait_closed(), timeout=3)
            self._server = None
        for task in list(self._tasks):
            task.cancel()

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    def view_url(self, query: str = "", level: str | None = None, base: str | None = None) -> str:
        """A page's URL with the token that opens it and nothing more (bridge/web/access.py): the control
        token for the control view (or `level="control"`), the stream's for the stream, a faction's own
        for its player view."""
        parsed = parse_qs(query)
        view = (parsed.get("view") or ["player"])[0]
        faction = self.faction_of((parsed.get("faction") or [None])[0])
        if level == access.CONTROL or view == "control":
            key = access.Key(access.CONTROL)
        elif view == "stream":
            key = access.Key(access.STREAM)
        elif faction in self.tokens.players:
            key = access.Key(access.PLAYER, faction)
        else:
            raise ValueError(f"no URL key opens {query!r}: a player view's URL names its faction")
        token = self.tokens.token_for(key)
        return f"{base or self.url}?{query + '&' if query else ''}token={token}"

    def faction_of(self, requested: str | None) -> str | None:
        """A player view's faction as the URL gives it, made canonical (`axis` -> `Axis`, as the page
        matches it); None for none; an unknown name is kept apart (`UNKNOWN_FACTION`): no player's key
        opens it, and its view shows no concealed piece."""
        if requested is None or requested == "":
            return None
        wanted = requested.casefold()
        for faction in self.tokens.players:
            if wanted == faction.casefold():
                return faction
        # a VASSAL side the current plan says a faction plays (`vassal.sides`): the extension's link
        plan = self.history.state.get("plan")
        vassal = plan.get("vassal") if isinstance(plan, Mapping) else None
        sides = vassal.get("sides") if isinstance(vassal, Mapping) else None
        if isinstance(sides, Mapping):
            found = [faction for faction, names in sides.items() if faction in self.tokens.players
                     and isinstance(names, list) and any(str(name).casefold() == wanted for name in names)]
            if len(found) == 1:
                return found[0]
        return UNKNOWN_FACTION

    # --- state -----------------------------------------------------------------------------------

    def publish(self, changes: Mapping[str, Any]) -> None:
        """Apply state changes and send the delta to every client (projected per view)."""
        delta = self.history.update(changes)
        if delta is None:
            return
        self._broadcast(delta)

    def _broadcast(self, message: Mapping[str, Any]) -> None:
        """One message to every client, through the view filter once per view."""
        texts: dict[tuple[str, str | None], str] = {}
        for client in list(self.clients):
            seen_as = (client.view, client.faction if client.view == "player" else None)
            if seen_as not in texts:
                texts[seen_as] = self.encode_for(message, *seen_as)
            self._send(client, texts[seen_as])

    def encode_for(self, message: Mapping[str, Any], view: str, faction: str | None = None) -> str:
        """The text of `message` as `view` (a player view: of `faction`) may receive it: the one way out
        (bridge/web/view_filter.py)."""
        stream = side = None
        if view == "stream":
            stream = self._stream_view = view_filter.stream_view_for(self.history.state, self._stream_view,
                                                                     self.private_folders)
        elif view == "player":
            side = view_filter.side_view_for(self.history.state, faction, self._side_views.get(faction),
                                             self.private_folders)
            self._side_views[faction] = side
        return protocol.encode(view_filter.for_view(message, view, self.history.state, stream,
                                                    self.private_folders, faction=faction, side=side))

    def _send_message(self, client: _Client, message: Mapping[str, Any]) -> None:
        self._send(client, self.encode_for(message, client.view, client.faction))

    def _send(self, client: _Client, text: str) -> None:
        if not client.offer(text):
            self._drop(client, "too slow: outgoing queue full")

    def _drop(self, client: _Client, reason: str) -> None:
        if client.dropped:
            return
        client.dropped = True
        self.dropped_slow_clients += 1
        self.clients.discard(client)
        LOG.info("dropping client (%s view): %s", client.view, reason)
        self._spawn(client.connection.close(code=1013, reason="too slow; reconnect and resync"))
        transport = client.connection.transport
        loop = asyncio.get_running_loop()
        loop.call_later(1.5, transport.abort)  # a client that never reads never completes the close

    def _spawn(self, coroutine: Awaitable[Any], done: Callable[[], None] | None = None) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        if done is not None:
            task.add_done_callback(lambda _task: done())

    def _catch_up(self, client: _Client, since: int | None, run: str | None = None) -> None:
        """Deltas after `since` if the history reaches back that far (same run), else a snapshot."""
        deltas = self.history.deltas_since(since, run) if since is not None else None
        if deltas is None:
            history = self.history
            message = {"type": "snapshot", "protocol": protocol.PROTOCOL_VERSION, "run": history.run,
                       "seq": history.seq, "view": client.view, "access": client.level,
                       "state": history.state}
            self._send_message(client, message)
            return
        for delta in deltas:
            self._send_message(client, delta)

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(self.heartbeat_interval)
            self._broadcast(protocol.heartbeat_message(self.history.seq, time.time(), self.history.run))

    # --- HTTP ------------------------------------------------------------------------------------

    def origin_allowed(self, origin: str | None, host_header: str | None = None) -> bool:
        """Loopback pages, origins given with --allow-origin, and our own page at an IP address.

        Why the last one: bound to a LAN address (`--host 192.168.1.5`), the page a player opens at
        `http://192.168.1.5:8765/` must reach its own WebSocket without an extra flag. Only an IP
        *literal* equal to the Host header counts: a DNS-rebound attacker page has a name for an
        origin, never our address. No Origin = not a browser.
        """
        if origin is None:
            return True
        if origin.rstrip("/") in self.allowed_origins or "*" in self.allowed_origins:
            return True
        parts = urlsplit(origin)
        if is_loopback_host(parts.hostname):
            return True
        return bool(host_header) and _is_ip_literal(parts.hostname) and parts.netloc == host_header

    def _process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        """Refuse a request whose Host or Origin header is missing its sense (two of them, an
        unparsable URL) with 400 and one log line; then the Host/Origin/method/token checks below.
        Every response, refusals too, says it must not be framed (no clickjacking of the control view
        or the editor; an OBS browser source loads the URL itself, it does not frame it)."""
        problem = _header_problem(request)
        if problem is not None:
            LOG.info("refused a request: %s", problem)
            return _unframed(connection.respond(http.HTTPStatus.BAD_REQUEST, f"Bad request: {problem}\n"))
        try:
            response = self._checked_request(connection, request)
        except Exception as exc:  # never a 500 with a traceback per request: one line, 400
            LOG.info("refused a request: %s: %s", type(exc).__name__, " ".join(str(exc).split())[:200])
            response = connection.respond(http.HTTPStatus.BAD_REQUEST, "Bad request\n")
        return None if response is None else _unframed(response)

    # --- tokens (bridge/web/access.py) -----------------------------------------------------------------

    def required_level(self, path: str, query: Mapping[str, list[str]]) -> str | None:
        """What a request for `path` needs: the page and the websocket need a token (control for the
        control view), the page's scripts and styles are public code and need none."""
        if path in (WEBSOCKET_PATH, "/", "", "/index.html"):
            view = (query.get("view") or ["player"])[0]
            return access.CONTROL if view == "control" else access.READ
        return None

    def request_key(self, request: Request, query: Mapping[str, list[str]], websocket: bool,
                    needed: str | None) -> access.Key | None:
        """The key that lets this request through (None: refused): the URL's token if it opens what
        is asked, else the best of this server's cookies that does (for a websocket only when it comes
        from this server's own page: cookies do not tell ports apart). A key opens a view
        (`access.Key.opens`); where the control level is needed (the control view, the editor), only
        the control key does."""
        view = (query.get("view") or ["player"])[0]
        faction = self.faction_of((query.get("faction") or [None])[0])

        def fits(key: access.Key | None) -> bool:
            if key is None:
                return False
            if needed == access.CONTROL:
                return key.view == access.CONTROL
            return key.opens(view, faction)

        given = self.tokens.key((query.get("token") or [None])[0])
        if fits(given):
            return given
        headers = request.headers
        if websocket and not access.same_origin(headers.get("Origin"), headers.get("Host")):
            return None
        tokens = access.cookie_tokens(headers.get_all("Cookie"), self.port)
        found = [key for key in (self.tokens.key(token) for token in tokens) if fits(key)]
        return next((key for key in found if key is not None and key.view == access.CONTROL),
                    found[0] if found else None)

    def _refused_token(self, needed: str) -> Response:
        which = "the control URL" if needed == access.CONTROL else "its own URL"
        body = (f"This page needs {which} adjutant printed when it started (it carries a token; each\n"
                "URL's token opens that view only: the stream's is not a player's, one player's is not\n"
                "another's). Tokens change with every start: copy the URL again. (Once it is open in\n"
                "this browser, links without the token - a bookmark, the VASSAL extension's menu - work\n"
                "too.)\n").encode()
        return _response(http.HTTPStatus.FORBIDDEN, body, "text/plain; charset=utf-8")

    def _checked_request(self, connection: ServerConnection, request: Request) -> Response | None:
        host_header = request.headers.get("Host", "")
        if is_loopback_host(self.host) and not is_loopback_host(_host_without_port(host_header)):
            # Bound to loopback: a foreign Host header means DNS rebinding, not a real user.
            return connection.respond(http.HTTPStatus.FORBIDDEN, "Host not allowed\n")
        method = getattr(request, "method", "GET")  # websockets < 14 parsed GET only
        if method not in ("GET", "HEAD"):
            # Read-only server: a POST/PUT must not get the page back as if it had done something.
            response = _response(http.HTTPStatus.METHOD_NOT_ALLOWED, b"Method not allowed\n", "text/plain")
            response.headers["Allow"] = "GET, HEAD"
            return response
        parts = urlsplit(request.path)
        path = parts.path
        query = parse_qs(parts.query, keep_blank_values=True)
        needed = self.required_level(path, query)
        if path == WEBSOCKET_PATH:
            if request.headers.get("Upgrade", "").lower() != "websocket":
                return connection.respond(http.HTTPStatus.UPGRADE_REQUIRED, "WebSocket endpoint\n")
            if not self.origin_allowed(request.headers.get("Origin"), request.headers.get("Host")):
                return connection.respond(http.HTTPStatus.FORBIDDEN, "Origin not allowed\n")
            if needed is not None and self.request_key(request, query, True, needed) is None:
                return connection.respond(http.HTTPStatus.FORBIDDEN, "Token required\n")
            return None
        key = self.request_key(request, query, False, needed) if needed is not None else None
        if needed is not None and key is None:
            return self._refused_token(needed)
        given = self.tokens.key((query.get("token") or [None])[0])
        response = self._static(path)
        if given is not None and given == key and response.status_code == 200:
            # the token from the URL, kept for a reload, a bookmark or the extension's link without it
            response.headers["Set-Cookie"] = access.set_cookie(self.port, given, self.tokens.token_for(given))
        if method == "HEAD":  # same headers (Content-Length included), no body: RFC 9110 §9.3.2
            response = dataclasses.replace(response, body=b"")
        return response

    def _static(self, path: str) -> Response:
        name = "index.html" if path in ("/", "") else path.lstrip("/")
        allowed = {
            entry.name
            for entry in self.static_dir.iterdir()
            if entry.is_file() and entry.suffix in STATIC_SUFFIXES
        }
        if name not in allowed:  # whitelist of the folder's own files: no path traversal possible
            return _response(http.HTTPStatus.NOT_FOUND, b"Not found\n", "text/plain; charset=utf-8")
        body = (self.static_dir / name).read_bytes()
        content_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
        if content_type.startswith("text/") or content_type.endswith("javascript"):
            content_type += "; charset=utf-8"
        return _response(http.HTTPStatus.OK, body, content_type)

    # --- WebSocket -------------------------------------------------------------------------------

    async def _handle(self, connection: ServerConnection) -> None:
        query = parse_qs(urlsplit(connection.request.path if connection.request else "").query,
                         keep_blank_values=True)  # `view=` (empty) is an unknown view, not the player's
        view = (query.get("view") or ["player"])[0]
        if view not in protocol.VIEWS:
            shown = ascii(view[:40])  # a close reason is at most 123 bytes of UTF-8: keep it ASCII
            await connection.close(code=1008, reason=f"unknown view {shown[:100]}")
            return
        since = _int_or_none((query.get("since") or [None])[0])
        run = (query.get("run") or [None])[0]
        needed = self.required_level(WEBSOCKET_PATH, query)
        key = self.request_key(connection.request, query, True, needed) if connection.request else None
        faction = self.faction_of((query.get("faction") or [None])[0]) if view == "player" else None
        client = _Client(connection, view, self.queue_limit, key.level if key is not None else None, faction)
        self.clients.add(client)
        self._catch_up(client, since, run)  # no await before this: nothing can slip in between
        client.sender = asyncio.ensure_future(client.drain())
        try:
            async for raw in connection:
                await self._on_message(client, raw)
        except ConnectionClosed:
            pass
        finally:
            self.clients.discard(client)
            client.sender.cancel()

    async def _on_message(self, client: _Client, raw: str | bytes) -> None:
        try:
            message = protocol.parse_client_message(raw)
            if message.kind == "resync":
                self._catch_up(client, message.since, message.run)
            elif message.kind == "ping":
                pong = {"type": "pong", "run": self.history.run, "seq": self.history.seq}
                self._send_message(client, pong)
            elif client.view not in protocol.ACTING_VIEWS:
                raise protocol.ProtocolError(f"the {client.view} view is read-only")
            elif client.level != access.CONTROL:
                raise protocol.ProtocolError("this page's token is read-only (a player or stream URL); "
                                             "answers, ticks and writing the moves need the control URL")
            elif message.kind == "write_moves":
                if client.view not in protocol.WRITING_VIEWS:
                    raise protocol.ProtocolError("only the control view writes the moves")
                if self.on_write is not None:
                    self._spawn(self.on_write())
            elif message.kind == "answer":
                assert message.choice is not None
                value = self._answer_value(message.choice, message.option)
                if client.answers_pending >= MAX_PENDING_ANSWERS:
                    raise protocol.ProtocolError("earlier answers are still being planned; wait for the plan")
                if self.on_answer is not None:
                    client.answers_pending += 1
                    self._spawn(self.on_answer(message.choice, value), done=client.answer_planned)
            elif message.kind == "tick":
                assert message.step is not None
                if message.step not in protocol.step_keys(self.history.state.get("plan")):
                    raise protocol.ProtocolError(f"no step {message.step!r} in the current plan")
                if self.on_tick is not None:
                    self.on_tick(message.step, message.done)
        except protocol.ProtocolError as exc:
            self._send_message(client, protocol.error_message("bad-message", str(exc)))

    def _answer_value(self, choice_id: str, option: str | tuple[str, ...] | None) -> Any:
        """The plan's own option value(s) for this answer (None clears it); unknown ids are errors."""
        if choice_id.startswith("fact:"):  # a game fact the plan asks or shows (bridge/mapping/game_facts.py)
            facts = (self.history.state.get("plan") or {}).get("game_facts") or {}
            names = {f["name"] for f in [*facts.get("questions", []), *facts.get("given", [])]}
            # a fact of the pack this plan does not ask (no answer changes its verdicts, issue 41) may
            # still be given: it is remembered for the plans that will need it
            names |= {str(name) for name in facts.get("not_asked", [])}
            if choice_id[len("fact:"):] not in names:
                raise protocol.ProtocolError(f"no game fact {choice_id[5:]!r} in the current plan")
            return list(option) if isinstance(option, tuple) else option
        choice = protocol.find_choice(self.history.state.get("plan"), choice_id)
        if choice is None:
            raise protocol.ProtocolError(f"no choice {choice_id!r} in the current plan")
        if option is None:
            return None
        if isinstance(option, tuple) != bool(choice.get("multiple")):
            wanted = "a list of options" if choice.get("multiple") else "one option"
            raise protocol.ProtocolError(f"choice {choice_id!r} takes {wanted}")
        if isinstance(option, tuple):
            return [protocol.match_option(choice, item) for item in option]
        return protocol.match_option(choice, option)


def _header_problem(request: Request) -> str | None:
    """Why the request's Host/Origin headers cannot be judged, or None when they can."""
    for name in ("Host", "Origin"):
        values = request.headers.get_all(name)
        if len(values) > 1:
            return f"{len(values)} {name} headers"
    origin = request.headers.get("Origin")
    if origin is not None:
        try:
            parts = urlsplit(origin)
            _ = parts.hostname, parts.port  # both parse lazily and raise on nonsense
        except ValueError:
            return f"malformed Origin header {origin[:60]!a}"
    host = request.headers.get("Host")
    if host is not None:
        try:
            _ = urlsplit(f"//{host}").port
        except ValueError:
            return f"malformed Host header {host[:60]!a}"
    return None


def _int_or_none(value: str | None) -> int | None:
    """A sequence number from the URL, or None. ASCII digits only (`str.isdigit` also accepts `²`)
    and at most 18 of them (`int` refuses 4,300+ digits): anything else just means a snapshot."""
    if value is None or not (0 < len(value) <= 18 and value.isascii() and value.isdigit()):
        return None
    return int(value)


FRAME_POLICY = "frame-ancestors 'none'"


def _unframed(response: Response) -> Response:
    """`response` with the headers that forbid framing it (CSP frame-ancestors, X-Frame-Options)."""
    policy = response.headers.get("Content-Security-Policy")
    if policy is None:
        response.headers["Content-Security-Policy"] = FRAME_POLICY
    elif "frame-ancestors" not in policy:
        del response.headers["Content-Security-Policy"]
        response.headers["Content-Security-Policy"] = f"{policy}; {FRAME_POLICY}"
    if "X-Frame-Options" not in response.headers:
        response.headers["X-Frame-Options"] = "DENY"
    return response


def _response(status: http.HTTPStatus, body: bytes, content_type: str) -> Response:
    headers = Headers(
        [
            ("Content-Type", content_type),
            ("Content-Length", str(len(body))),
            ("Cache-Control", "no-store"),
            ("X-Content-Type-Options", "nosniff"),
            ("Connection", "close"),
        ]
    )
    return Response(status.value, status.phrase, headers, body)
