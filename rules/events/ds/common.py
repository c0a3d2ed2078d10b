"""Pacific-map questions several DS events ask: readings chosen in the pack, Japanese Dependents,
Soviet Countries, dependent markers.

Why here: 16.1.3, 16.5.5, 16.7 and the settlements all ask "is this hex in a Japanese Dependent?" and
"which reading of the text does this pack use?"; answering once keeps the events short.
"""

from __future__ import annotations

from typing import Any

from rules.board import Board
from rules.packs import Pack
from rules.state import Counter, GameState
from vassal_parser.errors import InputError

JAPAN = "Japan"
# Tag put on a Japanese Dependent marker placed by Forced Settlement (16.2.5) or a Surrender (16.4.x,
# 16.6.x): Allied counters in such a Dependent are interned (16.7, third Allied condition).
SETTLEMENT_DEPENDENT_TAG = "settlement_dependent"


def reading(pack: Pack, key: str) -> str:
    """The reading the pack uses for an erratum or open wording: `[options]` override, else `used`."""
    entry = pack.extra.get("errata", {}).get(key) or pack.extra.get("readings", {}).get(key)
    if entry is None:
        raise InputError(pack.path, f"no errata/readings entry {key!r} in pack {pack.name}")
    chosen = pack.extra.get("options", {}).get(key, entry.get("used"))
    if chosen not in entry.get("readings", {}):
        legal = ", ".join(entry.get("readings", {}))
        raise InputError(pack.path, f"options.{key} = {chosen!r} is not one of its readings ({legal})")
    return str(chosen)






def is_japanese_dependent(board: Board, hex_id: str) -> bool:
    """Is the hex in a Japanese Dependent right now (start-of-play Dependent or marker in the Box)?"""
    here = board.political_country(hex_id)
    return here != JAPAN and board.home_of(here) == JAPAN




def japanese_dependents(board: Board) -> dict[str, list[str]]:
    """Every Japanese Dependent the pack's hexes show right now -> its hexes."""
    found: dict[str, list[str]] = {}
    for hex_id in board.pack.hexes:
        if is_japanese_dependent(board, hex_id):
            found.setdefault(board.political_country(hex_id), []).append(hex_id)
    return found


def is_soviet_country(state: GameState, pack: Pack, country: str) -> bool:
    """16.1.3 'Soviet Country' (pack reading `soviet_country`)."""
    if state.country(country).faction != "Soviet":
        return False
    if reading(pack, "soviet_country") == "russia_and_minors":
        return country == "Russia" or pack.countries[country].kind == "minor"
    return True


def borders_country(board: Board, hex_id: str, test: Any) -> list[str]:
    """Countries next to the hex for which `test(country)` holds: by adjacency, else the pack's `borders`."""
    info = board.pack.hex(hex_id)
    here = board.political_country(hex_id)
    neighbours = {board.political_country(h) for h in info.adjacent if h in board.pack.hexes}
    neighbours |= set(info.borders)
    return sorted(c for c in neighbours if c != here and test(c))


def marker_for(state: GameState, area_id: str) -> Counter | None:
    """The Ceded Land / Dependent marker counter standing for the area, wherever it is."""
    return next((c for c in state.counters.values() if c.kind == "ceded_land" and c.area == area_id), None)
