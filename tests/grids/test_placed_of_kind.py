"""A placed piece of a kind makes its properties (spec §5.5) and trait chain only when they are read
(issue 15): what it then holds, how it compares, prints and pickles must be what an eagerly built
PlacedPiece of the same piece holds."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from tests.grids.test_piece_kinds import DEMO, _with_spares
from vassal_parser.game import PlacedPiece, PositionMemo, load_game
from vassal_parser.module import load_module
from vassal_parser.traits import decode_chain


@pytest.fixture(scope="module")
def demo_module():
    return load_module(DEMO / "adjutant-demo.vmod")


def _eager(placed: PlacedPiece, game, module) -> PlacedPiece:
    """The PlacedPiece `Game._placed` would build for this piece without waiting: Piece.properties()
    (the ids last), then where it stands, in `Game._placed`'s order; the piece's own decoded chain."""
    piece = game._start.pieces[placed.id]
    map_def = module.map_by_id(placed.map) if placed.map is not None else None
    on_board = {"CurrentMap": map_def.name if map_def is not None else "", "CurrentBoard": placed.board or "",
                "CurrentZone": placed.zone or "", "CurrentX": str(placed.x), "CurrentY": str(placed.y),
                "DeckName": placed.deck or ""}
    if placed.location is not None:
        on_board["LocationName"] = placed.location
    properties = piece.properties(lambda key: on_board.get(key) or module.module_property(key))
    properties.update(on_board)
    traits = decode_chain(piece.type_string(), piece.strings()[2])
    return PlacedPiece(placed.id, properties["BasicName"], properties["PieceName"], placed.map, placed.x,
                       placed.y, placed.board, placed.zone, placed.location, placed.stack_id,
                       placed.stack_index, placed.deck, properties, piece.hidden_by, piece.masked_by, traits)


def test_a_kinds_piece_reads_as_the_eager_placed_piece_5_5(tmp_path: Path, demo_module) -> None:
    save = _with_spares(DEMO / "saves" / "05-case-yellow.vsav", tmp_path / "spares.vsav", 80)
    game = load_game(save, demo_module, memo=PositionMemo(demo_module))
    placed = game.position()
    waiting = [p for p in placed if type(p) is not PlacedPiece]
    assert len(waiting) > 60  # the spares and most of the save's own pieces
    for piece in waiting:
        eager = _eager(piece, game, demo_module)
        assert list(piece.properties.items()) == list(eager.properties.items())  # same keys, same order
        assert [(type(t), t.type, t.state) for t in piece.traits] == [(type(t), t.type, t.state)
                                                                       for t in eager.traits]
        assert piece == eager and eager == piece  # both ways: the dataclass's == refuses a subclass
        assert repr(piece) == repr(eager)
        again = pickle.loads(pickle.dumps(piece))
        assert type(again) is PlacedPiece and again == eager


def test_a_kinds_chain_is_made_only_when_asked_for(tmp_path: Path, demo_module) -> None:
    save = _with_spares(DEMO / "saves" / "02-poland-falls.vsav", tmp_path / "spares.vsav", 40)
    game = load_game(save, demo_module)
    placed = {p.id: p for p in game.position()}
    spares = [game._start.pieces[i] for i in placed if i.startswith("90000")]
    assert len(spares) == 40
    waiting = [piece for piece in spares if piece._traits is None]
    assert len(waiting) >= 40 - 3 * 2  # all but the first of each kind (six: see _with_spares)
    chain = placed[waiting[0].id].traits  # asked for: made now, the piece's own
    assert waiting[0]._traits is chain
    assert [(t.type, t.state) for t in chain] == [
        (t.type, t.state) for t in decode_chain(waiting[0].type_string(), waiting[0].strings()[2])]


def test_a_second_read_finds_every_piece_in_the_memo(tmp_path: Path, demo_module) -> None:
    """The first read skips the lookup for pieces never placed before; the next read still hits."""
    save = _with_spares(DEMO / "saves" / "02-poland-falls.vsav", tmp_path / "spares.vsav", 40)
    memo = PositionMemo(demo_module)
    first = load_game(save, demo_module, memo=memo).position()
    hits = memo.hits
    second = load_game(save, demo_module, memo=memo).position()
    assert memo.hits - hits == len(second) and all(a is b for a, b in zip(first, second, strict=True))


def test_a_layouts_point_table_stays_bounded_and_answers_as_the_layout(monkeypatch) -> None:
    """`MapLayout.names_at` keeps the points no plain grid names (the demo's Boxes map: zones, spec
    §6.7), at most MAX_POINT_NAMES, each what `place_at` names (CurrentBoard, CurrentZone,
    LocationName)."""
    from vassal_parser import layout as layout_module
    from vassal_parser.layout import MapLayout

    monkeypatch.setattr(layout_module, "MAX_POINT_NAMES", 50)
    module = load_module(DEMO / "adjutant-demo.vmod")
    boxes = next(m for m in module.maps if any(getattr(b.grid, "zones", None) for b in m.boards))
    layout = MapLayout(boxes, None, module.module_property)
    fresh = MapLayout(boxes, None, module.module_property)
    width, height = layout.size
    points = [(x, y) for x in range(0, width, 17) for y in range(0, height, 13)]
    assert len(points) > 200
    for x, y in points:
        placed, zone, location = fresh.place_at(x, y)
        names = (placed.name if placed else None, zone.name if zone else None, location)
        assert layout.names_at(x, y) == names
        assert 0 < len(layout._point_names) <= 50
