"""Location names on real hex modules of the corpus, against examples worked by hand from the
spec formulas (§6.4-§6.7). The arithmetic is in each docstring so a reader can redo it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vassal_parser.grids import HexGrid, ZonedGrid
from vassal_parser.layout import OFFBOARD, MapLayout
from vassal_parser.module import load_module

RAGNAROK = "jzedwards__vassal-hex-n-counters-template/ragnarok/vassal"
TEMPLATE_VMOD = "jzedwards__vassal-hex-n-counters-template/jzhex-n-counters-template-v12-379.vmod"


@pytest.fixture(scope="module")
def ragnarok_main(corpus_dir: Path) -> MapLayout:
    module = load_module(corpus_dir / RAGNAROK / "buildFile.xml")
    return MapLayout(module.map_by_id("Main Map"))


def test_ragnarok_grid_is_sideways_vdescend_hexgrid_in_zone_6_7(ragnarok_main: MapLayout) -> None:
    """The module as SOURCES.md describes it: Map > Board > ZonedGrid > Zone "map" > sideways HexGrid."""
    grid = ragnarok_main.boards[0].board.grid
    assert isinstance(grid, ZonedGrid)
    assert [zone.name for zone in grid.zones] == ["map", "endurance", "rainbow", "warrior"]
    hexes = grid.zones[0].grid
    assert isinstance(hexes, HexGrid)
    assert hexes.sideways and hexes.numbering.v_descend and hexes.numbering.stagger
    # Zone polygon 12,34;3081,34;3074,1760;17,1757 -> bounds 3069 x 1726 is the numbering's container.
    assert hexes.container_size == (3069, 1726)


def test_ragnarok_sideways_vdescend_hex_0915_6_5(ragnarok_main: MapLayout) -> None:
    """(1653,900), a hex where the save has a stack. Sideways: px = y = 900, py = x = 1653.
    dx = 97.71978541535786, dy = 112.39999999999895, x0 = 21, y0 = 24, hOff = vOff = 0.
    rawCol = floor((900-21)/97.7198 + 0.5) = floor(8.9951 + 0.5) = 9; nx = round(8.9951) = 9 (odd)
    rawRow = round((1653 - 24 - 56.2)/112.4) = round(13.9929) = 14.
    maxRows = floor(1726/97.7198 + 0.5) = floor(18.16) = 18; vDescend & sideways: col = 18 - 9 = 9.
    stagger, rawCol odd, hDescend false: row = 14 + 1 = 15.  Name `09` + `15` = `0915`.
    Back: centre(9, 15): stagger -> row 14; col = 18 - 9 = 9; px = (int)(9*97.7198) + 21 = 900;
    py = (int)(14*112.4 + 56.2) + 24 = 1629 + 24 = 1653 -> swapped back (1653, 900)."""
    assert ragnarok_main.location_name(1653, 900) == "0915"
    assert ragnarok_main.zone_at(1653, 900).name == "map"
    assert ragnarok_main.point_for("0915") == (1653, 900)


def test_ragnarok_bottom_left_hex_is_0101_6_5(ragnarok_main: MapLayout) -> None:
    """(80,1682): px = 1682, py = 80. rawCol = floor(1661/97.7198 + 0.5) = floor(17.497) = 17 (odd);
    rawRow = round((80 - 24 - 56.2)/112.4) = round(-0.0018) = 0. col = 18 - 17 = 1; row 0 + 1 = 1 -> `0101`:
    with vDescend on a sideways grid, column 01 is the bottom edge of the map."""
    assert ragnarok_main.location_name(80, 1682) == "0101"


def test_ragnarok_square_grid_zone_with_format_6_6(ragnarok_main: MapLayout) -> None:
    """Zone "endurance" (3091..3252 x 48..1764), SquareGrid dx=136.4, dy=84.3, x0=-104, y0=17,
    hOff=-24, hLeading=0, vOff=1, vDescend; format `Endurance $gridLocation$`. Point (3196,190):
    col = floor((3196+104)/136.4 + 0.5) = floor(24.69) = 24 -> 24-24 = 0 -> `0` (leading 0);
    row = (int)((190-17)/84.3 + 0.5) = (int)(2.55) = 2; maxRows = (int)(1716/84.3 + 0.5) = 20;
    row = 20 - 2 = 18 -> 18+1 = 19 -> `19`. Name `Endurance 019`."""
    assert ragnarok_main.location_name(3196, 190) == "Endurance 019"
    assert ragnarok_main.zone_at(3196, 190).name == "endurance"


def test_ragnarok_point_in_no_zone_and_no_background_is_offboard_5_5(ragnarok_main: MapLayout) -> None:
    """(3363,200) lies in none of the four zones and the ZonedGrid has no background grid -> offboard
    (the save itself records OldLocationName=offboard for this point)."""
    assert ragnarok_main.location_name(3363, 200) == OFFBOARD


def test_tld_normandy_hex_0908_and_zone_6_5(corpus_dir: Path) -> None:
    """tld-mod buildFile, board Normandy: HexGrid dx=55.42562584220407, dy=64, x0=-19, y0=32, stagger
    false, hOff 0, vOff 1. Point (500,500): rawCol = floor(519/55.4256 + 0.5) = floor(9.864) = 9;
    nx = round(9.364) = 9 (odd) -> rawRow = round((500-32-32)/64) = round(6.8125) = 7.
    col 9+0 -> `09`, row 7+1 -> `08`: `0908`. Centre of 0908: x = (int)(9*55.4256) - 19 = 498 - 19 = 479,
    y = (int)(7*64 + 32) + 32 = 512. (1000,100) is inside zone "Cherbourg Alarm Units" (870..1204 x
    0..216) whose format is `$name$`."""
    module = load_module(corpus_dir / "uckelman__tld-mod/buildFile")
    layout = MapLayout(module.map_by_id("Normandy"))
    assert layout.location_name(500, 500) == "0908"
    assert layout.point_for("0908") == (479, 512)
    assert layout.location_name(479, 512) == "0908"
    assert layout.location_name(1000, 100) == "Cherbourg Alarm Units"
    assert layout.zone_at(1000, 100).name == "Cherbourg Alarm Units"
    assert layout.point_for("Cherbourg Alarm Units") == (1037, 108)  # polygon mean, inside the zone


def test_tld_tmp_board_f_offsets_6_5(corpus_dir: Path) -> None:
    """tld-mod tmp/buildFile, Board F: HexGrid x0=-18, y0=64, hOff 16, vOff 58, stagger false.
    (300,300): rawCol = floor(318/55.4256 + 0.5) = floor(6.237) = 6 (even) -> rawRow = round(236/64) =
    round(3.6875) = 4; col 6+16 = `22`, row 4+58 = `62` -> `2262`."""
    module = load_module(corpus_dir / "uckelman__tld-mod/tmp/buildFile")
    normandy = module.map_by_id("Normandy")
    assert [board.name for board in normandy.boards] == [
        "Normandy",
        "Board F",
        "Board G",
        "Board A",
        "Board ABCF",
    ]
    layout = MapLayout(normandy, [("Board F", False, 0, 0)])
    assert layout.location_name(300, 300) == "2262"
    assert layout.point_for("2262") == (314, 320)  # ((int)(6*55.4256) - 18, (int)(4*64) + 64)


def test_template_vmod_board_sizes_from_image_headers_6_2(corpus_dir: Path) -> None:
    """The .vmod holds images/map.jpg (750x750 JPEG): the board size comes from its header (§6.2),
    while image-less boards use width/height (500x500)."""
    module = load_module(corpus_dir / TEMPLATE_VMOD)
    main = module.map_by_id("Main Map")
    assert main.boards[0].image == "map.jpg"
    assert main.boards[0].size == (750, 750)
    assert module.map_by_id("DeadPile").boards[0].size == (500, 500)
    assert module.name == "Hex'n'Counters template"
    assert module.version == "1.2 release (v3.7.9)"
    assert module.vassal_version == "3.7.9"


def test_template_vmod_hex_name_6_5(corpus_dir: Path) -> None:
    """Template .vmod: HexGrid dx=80.88337155288302, dy=93.90000000000086, x0=22, y0=-4, stagger, hOff=vOff=0.
    (300,300): rawCol = floor(278/80.8834 + 0.5) = floor(3.937) = 3 (odd) -> rawRow =
    round((300 + 4 - 46.95)/93.9) = round(2.7375) = 3; stagger: row 4. Name `03` `04` = `0304`.
    Centre of 0304: row 4-1 = 3; x = (int)(3*80.8834) + 22 = 242 + 22 = 264;
    y = (int)(3*93.9 + 46.95) + (-4) = (int)(328.65) - 4 = 324.
    Snapping uses HexGrid's own raw centre instead (§6.4): cy = (int)(93.9*3 + (int)(93.9/2) + y0) =
    (int)(281.7 + 46 - 4) = 323 -- one pixel off the numbering's centre, exactly as in VASSAL."""
    module = load_module(corpus_dir / TEMPLATE_VMOD)
    layout = MapLayout(module.map_by_id("Main Map"))
    assert layout.location_name(300, 300) == "0304"
    assert layout.point_for("0304") == (264, 324)
    assert layout.snap(300, 300) == (264, 323)
    assert layout.location_name(264, 323) == "0304"
    polygon = layout.cell_polygon(300, 300)
    assert polygon is not None and len(polygon) == 6


def test_a3r_awaw_custom_numbering_names_hexes_6_3(corpus_dir: Path) -> None:
    """The "A3R with AWAW Map" build file (patricksurry/jspy-vassal, XML despite its .yml name) numbers
    its sideways hex grid with `ThirdReich.ObliqueHexGridNumbering`, a class shipped inside that module,
    not VASSAL core; `vassal_parser/oblique_numbering.py` implements it (hand-worked cases in
    tests/grids/test_oblique_numbering.py), so every piece on that map now names a hex or a zone."""
    from vassal_parser.game import load_game

    folder = corpus_dir / "patricksurry__jspy-vassal/test"
    module = load_module(folder / "buildFile-a3r.yml")
    grid = module.map_by_id("Map Window").boards[0].grid
    assert isinstance(grid, ZonedGrid) and isinstance(grid.background, HexGrid)
    assert grid.background.numbering is not None
    assert grid.background.unknown_numbering is None
    game = load_game(folder / "A3R_1939_Scenario_Template_Rev1702_AWAW.vsav", module)
    on_map = [p for p in game.position() if p.map == "Map Window"]
    names = {p.location for p in on_map}
    assert "offboard" not in names and {"US Box", "Turn Tracker", "C35", "H55"} <= names
    assert not any("ThirdReich.ObliqueHexGridNumbering" in problem for problem in game.problems())


def _stack_points(path: Path) -> list[tuple[str | None, int, int]]:
    """(map, x, y) of every Stack in a file's restore commands (empty ones included)."""
    from vassal_parser.commands import decode_stream, split_log
    from vassal_parser.container import open_container
    from vassal_parser.pieces import Stack, piece_from_command

    restore, _ = split_log(decode_stream(open_container(path).command_text()))
    stacks = [piece_from_command(c) for c in restore if c.kind == "add_piece"]
    return [(s.map, s.x, s.y) for s in stacks if isinstance(s, Stack)]


@pytest.mark.parametrize(
    ("save", "module", "points"),
    [
        ("uckelman__tld-mod/tmp/campaign.sav", "uckelman__tld-mod/tmp/buildFile", 898),
        ("uckelman__tld-mod/tmp/scenario_1.sav", "uckelman__tld-mod/tmp/buildFile", 78),
        ("uckelman__tld-mod/tmp/scenario_2.sav", "uckelman__tld-mod/tmp/buildFile", 26),
        ("uckelman__tld-mod/tmp/scenario_3.sav", "uckelman__tld-mod/tmp/buildFile", 25),
        ("uckelman__tld-mod/tmp/scenario_4.sav", "uckelman__tld-mod/tmp/buildFile", 263),
        ("uckelman__tld-mod/game/0611-2", "uckelman__tld-mod/buildFile", 2208),
        (f"{RAGNAROK}/ragnarok-start.vsav", f"{RAGNAROK}/buildFile.xml", 16),
    ],
)
def test_saved_pieces_sit_on_our_snapped_hex_centres_6_4(
    corpus_dir: Path, save: str, module: str, points: int
) -> None:
    """Independent evidence for the hex geometry (origin, pitch, odd-column shift, sideways swap, a
    grid inside a Zone using board -- not zone -- coordinates): VASSAL snapped these pieces and stacks
    when they were placed, so each one on a hex grid sits exactly on the centre our snapToHex (§6.4)
    computes. The tld-mod scenarios use five boards (Normandy, Board F, G, A, ABCF: various x0/y0)."""
    from vassal_parser.game import load_game

    game = load_game(corpus_dir / save, load_module(corpus_dir / module))
    located = [(p.map, p.x, p.y) for p in game.position_at(-1)] + _stack_points(corpus_dir / save)
    on_hexes = 0
    for map_id, x, y in located:
        layout = game.layout(map_id)
        placed = layout.board_at(x, y) if layout is not None else None
        if placed is None:
            continue
        zone = layout.zone_at(x, y)
        grid = placed.board.grid
        hexes = zone.effective_grid() if zone is not None else getattr(grid, "background", grid)
        if isinstance(hexes, HexGrid):
            on_hexes += 1
            assert layout.snap(x, y) == (x, y), (map_id, x, y)
    assert on_hexes == points
