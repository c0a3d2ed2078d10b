"""Places VASSAL knows and a bare buildFile does not: boards without their image, maps a save names
that its module lacks, zones without a name (spec §5.5, §6.2, §6.7)."""

from __future__ import annotations

from pathlib import Path

from vassal_parser import grids
from vassal_parser.game import load_game
from vassal_parser.layout import OFFBOARD, MapLayout
from vassal_parser.module import BoardDef, MapDef, load_module


def _map(grid: grids.Grid) -> MapDef:
    board = BoardDef("North", "north.png", None, None, False, grid)
    return MapDef("Main Map", "Main Map", "Map0", "Map", 0, 0, boards=[board])


def test_6_5_descending_numbering_on_a_board_of_unknown_size_is_unknown_not_offboard() -> None:
    """§6.5: maxRows comes from the board image; without it the name is unknown (None) and one
    problem names the image, however many points ask."""
    numbering = grids.HexGridNumbering(v_descend=True)
    layout = MapLayout(_map(grids.HexGrid(numbering=numbering)))
    assert layout.location_name(100, 100) is None
    assert layout.place_at(200, 300)[2] is None
    assert layout.location_name(300, 300) is None
    assert len(layout.problems) == 1
    assert "'north.png'" in layout.problems[0] and "'North'" in layout.problems[0]


def test_6_5_names_that_do_not_need_the_size_are_still_answered() -> None:
    """§6.5: an ascending numbering does not depend on the board size; the warning is still given."""
    layout = MapLayout(_map(grids.HexGrid(numbering=grids.HexGridNumbering())))
    name = layout.location_name(100, 100)
    assert name not in (None, OFFBOARD)
    assert name == grids.HexGrid(numbering=grids.HexGridNumbering()).location_name(100, 100)
    assert len(layout.problems) == 1 and "north.png" in layout.problems[0]


def test_6_7_a_zone_without_a_name_is_the_empty_string(corpus_dir: Path) -> None:
    """§6.7: tld-mod's "Allied Non-Divisional Reinforcements" zone has no name and format `$name$`:
    VASSAL's location (and CurrentZone) is "" there, not null."""
    module = load_module(corpus_dir / "uckelman__tld-mod/buildFile")
    layout = MapLayout(module.map_by_id("Allied Non-Divisional Reinforcements"))
    _board, zone, location = layout.place_at(150, 250)
    assert zone is not None and zone.name == ""
    assert location == ""
    assert layout.location_name(150, 250) == ""


def test_5_5_a_map_the_module_lacks_leaves_the_piece_on_no_map(tmp_path: Path) -> None:
    """§5.5: `Map.getMapById` is null for a map the module lacks, so VASSAL's piece is on no map:
    CurrentMap and LocationName are "", and a problem names the map (once)."""
    from tests.grids.builders import piece, stream, write_game, write_module

    module = load_module(write_module(tmp_path, image_size=(500, 400)))
    text = stream([piece("p1", "Panzer", "Lost Map", 10, 10), piece("p2", "Tiger", "Lost Map", 20, 20),
                   piece("p3", "Stug", "Main Map", 100, 100)])
    game = load_game(write_game(tmp_path, text), module)
    by_id = {placed.id: placed for placed in game.position()}
    lost = by_id["p1"]
    assert (lost.map, lost.location, lost.board, lost.zone) == (None, "", None, None)
    assert lost.properties["CurrentMap"] == "" and lost.properties["LocationName"] == ""
    assert by_id["p3"].map == "Main Map" and by_id["p3"].location not in ("", None)
    lost_problems = [problem for problem in game.problems() if "'Lost Map'" in problem]
    assert len(lost_problems) == 1
