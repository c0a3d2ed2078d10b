"""Who may open what: the secret keys of one server start, as Jupyter does it, one per URL.

Why tokens and not only the Origin check: every page on 127.0.0.1 or localhost — any port, any local
web app or dev server the player runs — passed that check, so any of them could open the control
websocket, read the concealed pieces' names, answer choices and write the moves. Why one key per URL
and not one read key for all: the stream URL is shown on air and pasted in chats, and with the one
read key it opened every player view, where a side's hidden pieces are shown; and one player's URL
opened every other player's view. Each start of `watch`, `demo` and `pack edit` now makes random
tokens and prints URLs carrying them, each opening its own view only (`Key.opens`):

* the control token (`?view=control&token=…`, the editor's URL): every view, every write (answers,
  ticks, "Write the moves", editor saves) and the control and editor websockets need it;
* the stream token: the stream view (hidden and masked pieces never shown), nothing else;
* one token per faction (`?view=player&faction=Axis&token=…`): that faction's player view (its own
  sides' hidden pieces, bridge/web/view_filter.py), or a player view without a faction (an observer's:
  nothing concealed), read-only. Edited to `faction=Soviet` it opens nothing.

A page opened with a valid token in its URL gets it back as a cookie (`adjutant-<port>-control`,
`-stream`, `-player-<Faction>`; HttpOnly, SameSite=Strict), so a reload, a bookmark or the VASSAL
extension's menu link without the token still works; a browser holding several (one player's and the
control's) is given what the best of them opens. A cookie counts for a websocket only when the
request's Origin is the page's own (`Origin` host:port = `Host`): cookies are per host, not per port,
so a page of another local server would otherwise ride on it. Tokens are compared in constant time
(`hmac.compare_digest`), each given token against every one.
"""

from __future__ import annotations

import hmac
import re
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from rules.state import FACTIONS

CONTROL = "control"
READ = "read"  # what a stream or player key allows: looking, not driving
STREAM = "stream"
PLAYER = "player"
TOKEN_BYTES = 24
MAX_TOKEN_CHARS = 200
# Printed under the URLs by `watch` and `demo`.
WHO_GETS_WHICH = ("each URL opens its own view only: give each player their faction's player URL (it shows "
                  "their side's hidden pieces), the stream URL is public (OBS, chat), keep the control URL "
                  "to the players' own desk")
_COOKIE_SAFE = re.compile(r"[^A-Za-z0-9_-]")


@dataclass(frozen=True)
class Key:
    """What one token opens: the control view (and all), the stream view, or one faction's player view."""

    view: str  # CONTROL | STREAM | PLAYER
    faction: str | None = None

    @property
    def level(self) -> str:
        return CONTROL if self.view == CONTROL else READ

    def opens(self, view: str | None, faction: str | None) -> bool:
        """May a page of `view` (for `faction`, canonical, None for none or an unknown one) be opened?"""
        if self.view == CONTROL:
            return True
        if self.view == STREAM:
            return view == "stream"
        return view == "player" and (faction is None or faction == self.faction)

    @property
    def cookie_suffix(self) -> str:
        if self.view == PLAYER:
            return f"player-{_COOKIE_SAFE.sub('_', self.faction or '')}"
        return self.view


@dataclass(frozen=True)
class AccessTokens:
    """The secrets of one server start: control, stream, and one per faction's player view."""

    control: str
    stream: str
    players: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def generate(cls, factions: Iterable[str] = FACTIONS) -> AccessTokens:
        def new() -> str:
            return secrets.token_urlsafe(TOKEN_BYTES)

        return cls(control=new(), stream=new(), players={faction: new() for faction in factions})

    def player(self, faction: str) -> str:
        return self.players[faction]

    def keys(self) -> list[tuple[Key, str]]:
        return [(Key(CONTROL), self.control), (Key(STREAM), self.stream),
                *((Key(PLAYER, faction), token) for faction, token in self.players.items())]

    def key(self, token: str | None) -> Key | None:
        """The key a client's token is, or None (compared against every token, whatever matches first)."""
        if not token or len(token) > MAX_TOKEN_CHARS:
            return None
        given = token.encode("utf-8", "surrogatepass")
        found = None
        for key, secret in self.keys():
            if hmac.compare_digest(given, secret.encode("ascii")) and found is None:
                found = key
        return found

    def level(self, token: str | None) -> str | None:
        """CONTROL, READ (a stream or player key) or None for a token a client gave."""
        key = self.key(token)
        return key.level if key is not None else None

    def token_for(self, key: Key) -> str:
        if key.view == CONTROL:
            return self.control
        if key.view == STREAM:
            return self.stream
        return self.players[key.faction or ""]


def cookie_name(port: int, key: Key) -> str:
    return f"adjutant-{port}-{key.cookie_suffix}"


def set_cookie(port: int, key: Key, token: str) -> str:
    """A `Set-Cookie` value: sent back on this host's requests only, never readable by scripts."""
    return f"{cookie_name(port, key)}={token}; Path=/; HttpOnly; SameSite=Strict"


def cookie_tokens(cookie_headers: Iterable[str], port: int) -> list[str]:
    """The tokens of this server's cookies (every key) in the request's `Cookie` headers."""
    prefix = f"adjutant-{port}-"
    found = []
    for header in cookie_headers:
        for part in header[:8192].split(";")[:64]:
            name, _, value = part.strip().partition("=")
            if name.startswith(prefix) and value:
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
