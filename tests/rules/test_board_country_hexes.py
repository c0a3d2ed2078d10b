"""`Board.country_hexes` (rules/board.py) works out the ceded areas once per call; the answer must be
the hex-by-hex `in_country` one (16.1.1 Step 4 ceded areas, 16.7 annexation, Dependents) on any
position: Ceded Land markers in and out of the Ceded Lands Box, annexed and dependent countries."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.board import Board
from rules.state import CEDED_LANDS, GameState
from tests.rules.builder import mini_pack

PACK = mini_pack()
AREAS = sorted(PACK.areas)
COUNTRIES = sorted(PACK.countries)

markers = st.lists(st.tuples(st.sampled_from(AREAS), st.sampled_from([CEDED_LANDS, "delay", "set_aside"])),
                   max_size=8)
maybe_country = st.none() | st.sampled_from(COUNTRIES)
links = st.dictionaries(st.sampled_from(COUNTRIES), st.tuples(maybe_country, maybe_country), max_size=4)


def position(placed: list[tuple[str, str]], linked: dict[str, tuple[str | None, str | None]]) -> GameState:
    counters = [{"id": f"ceded-{n}", "kind": "ceded_land", "area": area, "location": where}
                for n, (area, where) in enumerate(placed)]
    counters.append({"id": "spare", "kind": "marker", "location": CEDED_LANDS})  # no area: never a ceded one
    countries = {name: {"faction": "Neutral", "status": "neutral", "annexed_to": annexed,
                        "dependent_of": home}
                 for name, (annexed, home) in linked.items() if annexed != name}
    return GameState.from_json({"pack": "mini", "countries": countries, "counters": counters})


@settings(max_examples=200, deadline=None)
@given(markers, links, st.sampled_from(COUNTRIES), st.booleans())
def test_country_hexes_equal_hex_by_hex_in_country(placed, linked, country, dependents) -> None:  # type: ignore[no-untyped-def]
    board = Board(position(placed, linked), PACK)
    expected = [h for h in PACK.hexes if board.in_country(h, country, dependents)]
    assert board.country_hexes(country, dependents) == expected
    ceded = board.ceded_areas()
    for area in PACK.areas.values():
        assert board.ceded_area_active(area, ceded) == board.ceded_area_active(area)


def test_a_ceded_marker_moves_its_hexes() -> None:
    area = next(a for a in PACK.areas.values() if a.ceded_to and not a.dependent and not a.hexes_of)
    hexes = [h for h, info in PACK.hexes.items() if info.area == area.id]
    assert hexes
    before = Board(position([(area.id, "delay")], {}), PACK)
    after = Board(position([(area.id, CEDED_LANDS)], {}), PACK)
    assert set(hexes) <= set(before.country_hexes(PACK.hexes[hexes[0]].country))
    assert set(hexes) <= set(after.country_hexes(area.ceded_to))
