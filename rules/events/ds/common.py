"""Pacific-map questions several DS events ask: readings chosen in the pack, Japanese Dependents,
Soviet Countries, dependent markers.

Why here: 16.1.3, 16.5.5, 16.7 and the settlements all ask "is this hex in a Japanese Dependent?" and
"which reading of the text does this pack use?"; answering once keeps the events short.
"""

from __future__ import annotations

from typing import Any

from rules.board import Board
from rules.errata import reading_of
from rules.packs import Pack
from rules.state import Counter, GameState
from vassal_parser.errors import InputError


def reading(pack: Pack, key: str) -> str:
    """The reading the pack uses for an erratum or open wording (rules.errata.reading_of).

    Events that APPLY a reading call `ctx.erratum(key, step)` instead, which also shows it in the plan;
    this silent form is for helpers that only ask which reading is in force (e.g. pack checks)."""
    return reading_of(pack, key)


def pack_fact(pack: Pack, key: str) -> Any:
    """A DS fact the shared pack tables have no column for (`[ds]` in pack.toml, e.g. which Countries
    are Chinese); missing -> one-line InputError naming the pack and the key, never a silent default."""
    facts = pack.extra.get("ds", {})
    if key not in facts:
        raise InputError(pack.path, f"pack {pack.name}: [ds] needs {key!r} in pack.toml")
    return facts[key]


def is_japanese_dependent(board: Board, hex_id: str, japan: str) -> bool:
    """Is the hex in a Dependent of `japan` (pack param `major`) right now (start-of-play Dependent or
    marker in the Ceded Lands Box)? 16.1.3, 16.3.8/16.5.5, 16.7 all ask this."""
    here = board.political_country(hex_id)
    return here != japan and board.home_of(here) == japan


def country_chain(board: Board, hex_id: str) -> list[str]:
    """The Country the hex is in right now, then the home Country it is a Dependent of, if any.

    Why not `Board.home_of` alone: a Minor Country that is also a Dependent (the Philippines, a US
    Dependent) is its own units' Home Country, so the treaty internment Steps (16.2.5 Steps 6-7, 16.2.6
    Step 7, 16.4.3 Step 6) must see both names. DS Dependents are one level deep (pack `dependent_of`)."""
    here = board.political_country(hex_id)
    home = board.home_of(here)
    return [here] if home == here else [here, home]


def japanese_dependents(board: Board, japan: str) -> dict[str, list[str]]:
    """Every Dependent of `japan` the pack's hexes show right now -> its hexes (16.1.3)."""
    found: dict[str, list[str]] = {}
    for hex_id in board.pack.hexes:
        if is_japanese_dependent(board, hex_id, japan):
            found.setdefault(board.political_country(hex_id), []).append(hex_id)
    return found


def is_soviet_country(state: GameState, pack: Pack, country: str, russia: str) -> bool:
    """16.1.3 'Soviet Country' (pack reading `soviet_country`; `russia` is the pack param)."""
    if state.country(country).faction != "Soviet":
        return False
    if reading(pack, "soviet_country") == "russia_and_minors":
        return country == russia or pack.countries[country].kind == "minor"
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
