"""Who may drive: the secret tokens of one server start, as Jupyter does it.

Why tokens and not only the Origin check: every page on 127.0.0.1 or localhost — any port, any local
web app or dev server the player runs — passed that check, so any of them could open the control
websocket, read the concealed pieces' names, answer choices and write the moves. Each start of `watch`,
`demo` and `pack edit` now makes two random tokens and prints URLs carrying them:

* the control token (`?view=control&token=…`, the editor's URL): the control view, every write
  (answers, ticks, "Write the moves", editor saves) and the control and editor websockets need it;
* the read token (player and stream URLs): those views, read-only. A stream URL shown on air or pasted
  in a chat drives nothing.

A page opened with a valid token in its URL gets it back as a cookie (`adjutant-<port>-<level>`,
HttpOnly, SameSite=Strict), so a reload or a bookmark without the token still works. A cookie counts
for a websocket only when the request's Origin is the page's own (`Origin` host:port = `Host`): cookies
are per host, not per port, so a page of another local server would otherwise ride on it. Tokens are
compared in constant time (`hmac.compare_digest`), each given token against both.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

CONTROL = "control"
READ = "read"
LEVELS = (READ, CONTROL)  # each allows what the ones before it allow
TOKEN_BYTES = 24
MAX_TOKEN_CHARS = 200


def allows(level: str | None, needed: str | None) -> bool:
    """Does a client holding `level` get what needs `needed` (None: anyone)?"""
    if needed is None:
        return True
    return level is not None and LEVELS.index(level) >= LEVELS.index(needed)


@dataclass(frozen=True)
class AccessTokens:
    """The two secrets of one server start."""

    control: str
    read: str

    @classmethod
    def generate(cls) -> AccessTokens:
        return cls(control=secrets.token_urlsafe(TOKEN_BYTES), read=secrets.token_urlsafe(TOKEN_BYTES))

    def level(self, token: str | None) -> str | None:
        """CONTROL, READ or None for a token a client gave (both compared, whatever the first says)."""
        if not token or len(token) > MAX_TOKEN_CHARS:
            return None
        given = token.encode("utf-8", "surrogatepass")
        is_control = hmac.compare_digest(given, self.control.encode("ascii"))
        is_read = hmac.compare_digest(given, self.read.encode("ascii"))
        return CONTROL if is_control else READ if is_read else None

    def token_for(self, level: str) -> str:
        return self.control if level == CONTROL else self.read

    def best(self, tokens: Iterable[str | None]) -> str | None:
        """The highest level any of `tokens` gives."""
        found = [self.level(token) for token in tokens]
        for level in reversed(LEVELS):
            if level in found:
                return level
        return None


def cookie_name(port: int, level: str) -> str:
    return f"adjutant-{port}-{level}"


def set_cookie(port: int, level: str, token: str) -> str:
    """A `Set-Cookie` value: sent back on this host's requests only, never readable by scripts."""
    return f"{cookie_name(port, level)}={token}; Path=/; HttpOnly; SameSite=Strict"


def cookie_tokens(cookie_headers: Iterable[str], port: int) -> list[str]:
    """The tokens of this server's cookies (both levels) in the request's `Cookie` headers."""
    wanted = {cookie_name(port, level) for level in LEVELS}
    found = []
    for header in cookie_headers:
        for part in header[:8192].split(";"):
            name, _, value = part.strip().partition("=")
            if name in wanted and value:
                found.append(value.strip().strip('"'))
    return found


def same_origin(origin: str | None, host_header: str | None) -> bool:
    """The request comes from a page of this very server (scheme http, Origin's host:port = Host)."""
    if not origin or not host_header:
        return False
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    return parts.scheme == "http" and parts.netloc.lower() == host_header.lower()
