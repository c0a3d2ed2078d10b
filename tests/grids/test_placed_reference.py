"""`Game._placed` (the first read's fast path, issue 15: `Piece.where` from a known kind's tail, the
layout's `names_at`, one memo serial per layout, the map of the piece before reused, the memo's puts
at once) gives for every piece what the general path gives: the full BasicPiece parse for where it
stands (spec §5.3), its container's point for a piece in a stack or deck (§3.2), the reference
locator `MapLayout.place_at_reference` on a fresh layout for board, zone and LocationName (§5.5,
§6.2-§6.8), no map for a map the module lacks, and its properties, traits, hidden_by and masked_by
from its own decoded chain. Every attribute is compared (PlacedPiece equality, then the properties'
order, the chain and the memo key), on demo and corpus saves (stacks, decks, zones, region grids,
several boards, escaped and quoted states) and on random saves, with and without a memo, twice."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.grids.builders import deck, stack, stream, write_game, write_module
from tests.grids.test_piece_kinds import DEMO, _with_spares
from vassal_parser.game import Game, PlacedPiece, PositionMemo, load_game
from vassal_parser.layout import MapLayout
from vassal_parser.module import Module, load_module
from vassal_parser.pieces import Piece
from vassal_parser.sequence import encode
from vassal_parser.traits import decode_chain_slowly


def _reference(game: Game, module: Module | None, piece_id: str) -> PlacedPiece:
    """The piece as the general path places it, from nothing the fast path keeps."""
    board = game._start
    original = board.pieces[piece_id]
    piece = Piece(piece_id, original.type_string(), original.strings()[2])  # a new one: no shortcut taken
    piece._traits = decode_chain_slowly(piece.type_string(), original.strings()[2])
    container = board.containers.get(board.parent.get(piece_id)) if board.parent.get(piece_id) else None
    stack_id = stack_index = deck_name = None
    if container is not None:
        map_id, x, y = container.map, container.x, container.y
        if container.deck_name is not None:
            deck_name = container.deck_name
        else:
            stack_id = container.id
        stack_index = container.members.index(piece_id)
    else:
        map_id, x, y = piece.map, piece.x, piece.y
    map_def = module.map_by_id(map_id) if module is not None and map_id is not None else None
    if module is not None and map_id is not None and map_def is None:
        map_id = None  # Map.getMapById is null: on no map
    board_name = zone = None
    location = "" if module is not None else None
    if map_def is not None:
        layout = MapLayout(map_def, board.selections.get(map_def.identifier), module.module_property)
        placed_board, found_zone, location = layout.place_at_reference(x, y)
        board_name = placed_board.name if placed_board else None
        zone = found_zone.name if found_zone else None
    on_board = {"CurrentMap": map_def.name if map_def is not None else (map_id or ""),
                "CurrentBoard": board_name or "", "CurrentZone": zone or "", "CurrentX": str(x),
                "CurrentY": str(y), "DeckName": deck_name or ""}
    if location is not None:
        on_board["LocationName"] = location

    def context(key: str) -> str | None:
        value = on_board.get(key)
        return value if value is not None or module is None else module.module_property(key)

    properties = piece.properties(context)
    properties.update(on_board)
    return PlacedPiece(piece_id, properties["BasicName"], properties["PieceName"], map_id, x, y, board_name,
                       zone, location, stack_id, stack_index, deck_name, properties, piece.hidden_by,
                       piece.masked_by, piece.traits)


def _check(path: Path, module: Module | None) -> int:
    memo = PositionMemo(module) if module is not None else None
    for read in range(2):  # the second read with a memo: every piece from it
        for with_memo in (False, True):
            game = load_game(path, module, memo=memo if with_memo else None)
            placed = game.position()
            assert len({p.id for p in placed}) == len(placed)
            for got in placed:
                expected = _reference(game, module, got.id)
                assert got == expected, (path.name, read, with_memo, got.id)
                assert list(got.properties.items()) == list(expected.properties.items()), got.id
                assert [(t.type, t.state) for t in got.traits] == [(t.type, t.state) for t in expected.traits]
                assert (got.hidden_by, got.masked_by) == (expected.hidden_by, expected.masked_by)
                assert (got.memo_key is not None) == (with_memo and memo is not None)
    return len(placed)


def test_demo_saves_place_as_the_general_path_5_5(tmp_path: Path) -> None:
    """The demo's saves (the benchmark's maps: two descending hex boards, a zoned box map, decks),
    with spare markers of a few kinds, some hidden."""
    module = load_module(DEMO / "adjutant-demo.vmod")
    for name in ("02-poland-falls.vsav", "05-case-yellow.vsav", "06-finest-hour.vsav"):
        save = _with_spares(DEMO / "saves" / name, tmp_path / f"spares-{name}", 120)
        assert _check(save, module) > 120


TLD = "uckelman__tld-mod/tmp"


@pytest.mark.parametrize("name", ["campaign.sav", "scenario_1.sav", "scenario_4.sav"])
def test_corpus_saves_place_as_the_general_path_6_7(corpus_dir: Path, name: str) -> None:
    """tld-mod: five boards, stacks, zones and region grids."""
    module = load_module(corpus_dir / TLD / "buildFile")
    assert _check(corpus_dir / TLD / name, module) > 20


def test_corpus_save_without_its_module_places_as_the_general_path(corpus_dir: Path) -> None:
    assert _check(corpus_dir / TLD / "campaign.sav", None) > 20


def _random_piece(rng: random.Random, piece_id: str, maps: list[str]) -> str:
    """A piece with a Marker over its BasicPiece; the BasicPiece tail now plain, now with an escape,
    a quote, a sign, a long number or extra tokens; the kinds few, so most pieces share one."""
    kind = rng.randrange(4)
    side = ["Allies", "Axis", "it's", "a\\b"][kind]
    x = rng.choice([str(rng.randint(0, 700)), str(rng.randint(0, 700)), "-5", "+7", "0012", "1234567890", ""])
    y = str(rng.randint(0, 500))
    rest = rng.choice([[], ["1", "0"], ["", "0"], ["g;p", "1", "k", "v\\;w"], ["1", "1", "k", "it's"]])
    basic = encode([rng.choice(maps), x, y, *rest], ";")
    type_chain = encode(["mark;Side", f"piece;;;k{kind}.png;Kind {kind}"], "\t")
    return "+/" + encode([piece_id, type_chain, encode([side, basic], "\t")], "/")


def test_random_saves_place_as_the_general_path_3_2_5_3(tmp_path: Path) -> None:
    """Random saves on a module of one board: pieces on its map, on a map it lacks and on no map,
    some in stacks and decks (which take their container's point)."""
    module = load_module(write_module(tmp_path, image_size=(600, 450)))
    rng = random.Random(1915)
    for round_ in range(6):
        ids = [f"p{round_}-{n}" for n in range(60)]
        maps = ["Main Map", "Main Map", "Lost Map", "null"]
        pieces = [_random_piece(rng, piece_id, maps) for piece_id in ids]
        stacked, dealt = ids[:6], ids[6:10]
        containers = [stack(f"s{round_}", "Main Map", rng.randint(0, 600), rng.randint(0, 450), stacked),
                      deck(f"d{round_}", "Draw", "Main Map", 30, 40, dealt)]
        folder = tmp_path / str(round_)
        folder.mkdir()
        assert _check(write_game(folder, stream(pieces + containers)), module) == 60
