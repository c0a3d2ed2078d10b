"""The worked examples of the VASSAL format spec (§6.2, §6.4-§6.7), as executable checks.

Each expected value below is the spec's own table, computed there with the real Java classes.
"""

from __future__ import annotations

import pytest

from vassal_parser.grids import (
    HexGrid,
    HexGridNumbering,
    RegularGridNumbering,
    SquareGrid,
    SquareGridNumbering,
    Zone,
    ZonedGrid,
    java_round,
    polygon_contains,
)
from vassal_parser.layout import OFFBOARD, MapLayout
from vassal_parser.module import BoardDef, MapDef, parse_board_picker


def grid_a(stagger: bool = True) -> HexGrid:
    """Spec Grid A: dy=64, dx=55.4256258422, x0=0, y0=32, board 1000x800, numbering defaults."""
    return HexGrid(
        dx=55.42562584220407,
        dy=64.0,
        x0=0,
        y0=32,
        numbering=HexGridNumbering(stagger=stagger),
        container_size=(1000, 800),
    )


def grid_b(**numbering: object) -> HexGrid:
    """Spec Grid B: dy=86.6, dx=75.0, x0=37, y0=43, board 2700x2300, stagger=false."""
    return HexGrid(
        dx=75.0,
        dy=86.6,
        x0=37,
        y0=43,
        numbering=HexGridNumbering(stagger=False, **numbering),  # type: ignore[arg-type]
        container_size=(2700, 2300),
    )


def test_java_round_is_half_up_not_bankers() -> None:
    """§0: Math.round = floor(x + 0.5); Python's round(2.5) would give 2."""
    assert java_round(2.5) == 3
    assert java_round(-2.5) == -2
    assert java_round(0.49999) == 0


@pytest.mark.parametrize(
    ("point", "raw", "col_row", "snapped", "name"),
    [
        ((0, 32), (0, 0), (0, 0), (0, 32), "0101"),
        ((57, 70), (1, 0), (1, 1), (55, 64), "0202"),
        ((300, 190), (5, 2), (5, 3), (277, 192), "0604"),
        ((333, 220), (6, 3), (6, 3), (332, 224), "0704"),
        ((28, 5), (1, -1), (1, 0), (55, 0), "0201"),
    ],
)
def test_grid_a_table_6_5(point, raw, col_row, snapped, name) -> None:
    """§6.5 Grid A table: raw col/row, staggered col/row, snapped centre (§6.4 steps 1-2), name."""
    grid = grid_a()
    assert (grid.raw_column(*point), grid.raw_row(*point)) == raw
    assert grid.column_row(*point) == col_row
    assert grid.snap(*point) == snapped
    assert grid.location_name(*point) == name


def test_grid_a_centres_6_5() -> None:
    """§6.5: centres of numbering (col,row) (0,0) (1,0) (1,1) (5,3)."""
    grid = grid_a()
    assert grid.center_of(0, 0) == (0, 32)
    assert grid.center_of(1, 0) == (55, 0)
    assert grid.center_of(1, 1) == (55, 64)
    assert grid.center_of(5, 3) == (277, 192)
    assert grid.location("0604") == (277, 192)


def test_grid_a_without_stagger_6_5() -> None:
    """§6.5: stagger=false -> (57,70) is `0201`, and `0604` is centred at (277,256)."""
    grid = grid_a(stagger=False)
    assert grid.location_name(57, 70) == "0201"
    assert grid.location("0604") == (277, 256)


def test_grid_b_plain_and_location_format_6_5() -> None:
    """§6.5 Grid B: (2587,1347) -> rawCol 34, rawRow 15 -> `3516`; centre (2587,1342); `w` prefix."""
    grid = grid_b()
    assert (grid.raw_column(2587, 1347), grid.raw_row(2587, 1347)) == (34, 15)
    assert grid.location_name(2587, 1347) == "3516"
    assert grid.location("3516") == (2587, 1342)
    prefixed = grid_b(location_format="w$gridLocation$")
    assert prefixed.location_name(2587, 1347) == "w3516"
    assert prefixed.location("w3516") == (2587, 1342)


def test_grid_b_zone_with_parent_grid_6_7() -> None:
    """§6.5/§6.7: a Zone `w` with `$name$$gridLocation$` and useParentGrid gives `w3516` too."""
    zoned = ZonedGrid(background=grid_b(), container_size=(2700, 2300))
    zone = Zone("w", [0, 2700, 2700, 0], [0, 0, 2300, 2300], "$name$$gridLocation$", True, parent=zoned)
    zoned.zones.append(zone)
    assert zoned.location_name(2587, 1347) == "w3516"
    assert zoned.location("w3516") == (2587, 1342)


def test_grid_b_descending_quirk_6_5() -> None:
    """§6.5: vDescend -> `3517` (maxRows = floor(2300/75+0.5) = 31); hDescend -> `-0216`
    (maxCols = floor(2700/86.6+0.5) = 31, col 31-34 = -3): the height/dx, width/dy pitch swap."""
    assert grid_b(v_descend=True).location_name(2587, 1347) == "3517"
    assert grid_b(h_descend=True).location_name(2587, 1347) == "-0216"


def test_grid_b_with_edge_buffer_map_coordinates_6_5() -> None:
    """§6.5: on a board with an edge buffer of (100,100), `3516` is at map (2687,1442)."""
    board = BoardDef("B", "", 2700, 2300, False, grid_b())
    map_def = MapDef("Main Map", "Main Map", "Map0", "Map", 100, 100, [board])
    layout = MapLayout(map_def, [("B", False, 0, 0)])
    assert layout.point_for("3516") == (2687, 1442)
    assert layout.location_name(2687, 1447) == "3516"
    assert layout.location_name(50, 50) == OFFBOARD  # in the edge buffer, on no board


def test_sideways_grid_a_6_5() -> None:
    """§6.5 sideways Grid A (x0/y0 in the rotated frame): (32,0) `0101`; (70,57) `0202` centred
    at (64,55); centre of (col 5,row 3) = (192,277), named `0604`."""
    grid = HexGrid(x0=0, y0=32, sideways=True, numbering=HexGridNumbering(), container_size=(800, 1000))
    assert grid.location_name(32, 0) == "0101"
    assert grid.location_name(70, 57) == "0202"
    assert grid.snap(70, 57) == (64, 55)
    assert grid.center_of(5, 3) == (192, 277)
    assert grid.location_name(192, 277) == "0604"
    assert grid.location("0604") == (192, 277)


def test_square_grid_0303_and_c3_6_6() -> None:
    """§6.6: defaults, board 480x480: (100,130) -> col 2,row 2 -> `0303`, snapped (120,120);
    hType=A, hOff=0, vLeading=0 -> `C3`."""
    grid = SquareGrid(numbering=SquareGridNumbering(), container_size=(480, 480))
    assert grid.column_row(100, 130) == (2, 2)
    assert grid.location_name(100, 130) == "0303"
    assert grid.snap(100, 130) == (120, 120)
    alpha = SquareGrid(
        numbering=SquareGridNumbering(h_type="A", h_off=0, v_leading=0),
        container_size=(480, 480),
    )
    assert alpha.location_name(100, 130) == "C3"
    assert alpha.location("C3") == (120, 120)


def test_square_grid_row_truncates_toward_zero_6_6() -> None:
    """§6.6: row = (int)((y-y0)/dy + 0.5) truncates: y=-40 gives (int)((-40-24)/48 + 0.5) =
    (int)(-0.833) = 0 where floor would give -1; the column uses floor: x=-40 -> -1."""
    grid = SquareGrid(numbering=SquareGridNumbering(), container_size=(480, 480))
    assert grid.column_row(24, -40)[1] == 0
    assert grid.column_row(-40, 24)[0] == -1


def test_part_names_leading_zeros_and_alphabet_6_5() -> None:
    """§6.5 fmt(): leading 1: 5 `05`, 35 `35`; leading 2: 5 `005`; leading 0: 7 `7`; -3 `-03`;
    alphabetic 0 `A`, 25 `Z`, 26 `AA`, 27 `BB`, 52 `AAA`."""
    name = RegularGridNumbering.part_name
    assert [name(5, "N", 1), name(35, "N", 1), name(5, "N", 2), name(7, "N", 0), name(-3, "N", 1)] == [
        "05",
        "35",
        "005",
        "7",
        "-03",
    ]
    assert [name(v, "A", 1) for v in (0, 25, 26, 27, 52)] == ["A", "Z", "AA", "BB", "AAA"]
    assert [RegularGridNumbering.parse_part(t, "A") for t in ("A", "Z", "AA", "BB", "AAA", "-C")] == [
        0,
        25,
        26,
        27,
        52,
        -2,
    ]


def test_vertical_first_separator_and_row_column_format_6_5() -> None:
    """§6.5: first='V' puts the row first; sep between; $row$/$column$ substitute the parts."""
    numbering = HexGridNumbering(first="V", sep="-", location_format="r$row$c$column$ [$gridLocation$]")
    grid = HexGrid(x0=0, y0=32, numbering=numbering, container_size=(1000, 800))
    assert grid.location_name(300, 190) == "r04c06 [04-06]"
    assert grid.location("r04c06 [04-06]") == (277, 192)


def test_polygon_contains_even_odd_edges_6_7() -> None:
    """§6.7: java.awt.Polygon.contains — left/top edges inside, right/bottom edges outside."""
    xs, ys = [0, 10, 10, 0], [0, 0, 10, 10]
    assert polygon_contains(xs, ys, 0, 0)
    assert polygon_contains(xs, ys, 0, 5)
    assert not polygon_contains(xs, ys, 10, 5)
    assert not polygon_contains(xs, ys, 5, 10)
    # A self-overlapping "bow tie" path: even-odd leaves the doubly covered middle outside.
    star_x, star_y = [0, 30, 30, 10, 10, 20, 20, 0], [0, 0, 20, 20, 10, 10, 30, 30]
    assert polygon_contains(star_x, star_y, 5, 5)
    assert not polygon_contains(star_x, star_y, 15, 15)


def test_board_placement_with_reversed_board_6_2() -> None:
    """§6.2: West 1000x800 at (0,0), East 1200x800 at (1,0), edge 50x40 -> origins (50,40) and
    (1050,40), map 2300x880; map (1600,440) is East local (550,400), or (650,400) when reversed."""
    seen: list[tuple[int, int]] = []

    class RecordingGrid(SquareGrid):
        def location_name(self, x, y, fallback=None):  # type: ignore[override]
            seen.append((x, y))
            return f"{x},{y}"

    west = BoardDef("West", "", 1000, 800, False, RecordingGrid())
    east = BoardDef("East", "", 1200, 800, True, RecordingGrid())
    map_def = MapDef("Main Map", "Main Map", "Map0", "Map", 50, 40, [west, east])
    command = "Main MapBoardPicker\tWest\t0\t0\tEast/rev\t1\t0"
    map_id, selection = parse_board_picker(command)
    assert map_id == "Main Map"
    assert selection == [("West", False, 0, 0), ("East", True, 1, 0)]
    layout = MapLayout(map_def, selection)
    assert [(b.x, b.y) for b in layout.boards] == [(50, 40), (1050, 40)]
    assert layout.size == (2300, 880)
    assert layout.board_at(1600, 440).name == "East"
    assert layout.location_name(1600, 440) == "650,400"
    not_reversed = MapLayout(map_def, [("West", False, 0, 0), ("East", False, 1, 0)])
    assert not_reversed.location_name(1600, 440) == "550,400"


def test_current_zone_ignores_reversal_but_location_name_does_not_6_7() -> None:
    """§6.7/§9.17: CurrentZone uses the untransformed board point; LocationName the flipped one."""
    zoned = ZonedGrid(container_size=(100, 100))
    zoned.zones.append(Zone("left", [0, 50, 50, 0], [0, 0, 100, 100], parent=zoned))
    zoned.zones.append(Zone("right", [50, 100, 100, 50], [0, 0, 100, 100], parent=zoned))
    board = BoardDef("B", "", 100, 100, True, zoned)
    layout = MapLayout(MapDef("M", "M", "Map0", "Map", 0, 0, [board]), [("B", True, 0, 0)])
    assert layout.zone_at(10, 10).name == "left"
    assert layout.location_name(10, 10) == "right"


def test_draw_pile_at_exact_point_names_the_location_5_5() -> None:
    """§5.5/§9.8: LocationName at a DrawPile's exact position is the deck name (board-relative x,y)."""
    from vassal_parser.module import DrawPileDef

    board = BoardDef("B", "", 500, 500, False, SquareGrid(numbering=SquareGridNumbering()))
    map_def = MapDef(
        "M", "M", "Map0", "Map", 10, 20, [board], draw_pile_defs=[DrawPileDef("Deck", 100, 100, "B")]
    )
    layout = MapLayout(map_def)
    assert layout.draw_pile_positions == {"Deck": (110, 120)}
    assert layout.location_name(110, 120) == "Deck"
    assert layout.location_name(111, 120) != "Deck"
    assert layout.point_for("Deck") == (110, 120)


def test_oblique_hex_numbering_slants_rows_6_5() -> None:
    """Core ObliqueHexGridNumbering on Grid A: (300,190) is col 5, row 3 by HexGridNumbering; slantRow:
    direction=true -> trunc(5/2) + 3 = 5 -> `0606`; direction=false -> 3 - 2 + 1 = 2 -> `0603`.
    Our name -> point undoes the slant, so `0606` is centred at (277,192) again."""
    from vassal_parser.grids import ObliqueHexGridNumbering

    forward = HexGrid(x0=0, y0=32, numbering=ObliqueHexGridNumbering(), container_size=(1000, 800))
    assert forward.location_name(300, 190) == "0606"
    assert forward.location("0606") == (277, 192)
    backward = HexGrid(
        x0=0, y0=32, numbering=ObliqueHexGridNumbering(direction=False), container_size=(1000, 800)
    )
    assert backward.location_name(300, 190) == "0603"
    assert backward.location("0603") == (277, 192)


def test_zone_format_reads_zone_property_then_module_6_7() -> None:
    """§6.5/§6.7: `$prop$` in a zone's format resolves through the zone's ZoneProperty values first,
    then the fallback (module properties); unknown names become empty."""
    zoned = ZonedGrid(container_size=(100, 100))
    zone = Zone("Box", [0, 100, 100, 0], [0, 0, 100, 100], "$name$ ($Terrain$/$Owner$/$Nope$)", parent=zoned)
    zone.properties["Terrain"] = "Forest"
    zoned.zones.append(zone)
    module_props = {"Owner": "Axis", "Terrain": "Clear"}
    assert zoned.location_name(5, 5, module_props.get) == "Box (Forest/Axis/)"


def test_setup_stack_positions_6_2() -> None:
    """At-start stacks: (x, y) relative to the owning board, or the board grid's centre of `location`."""
    from vassal_parser.module import SetupStackDef

    board = BoardDef("B", "", 480, 480, False, SquareGrid(numbering=SquareGridNumbering()))
    layout = MapLayout(MapDef("M", "M", "Map0", "Map", 10, 20, [board]))
    assert layout.setup_stack_position(SetupStackDef("s", "B", 5, 6, "", False)) == (15, 26)
    assert layout.setup_stack_position(SetupStackDef("s", "B", 5, 6, "0303", True)) == (130, 140)
    assert layout.setup_stack_position(SetupStackDef("s", None, 5, 6, "", False)) == (5, 6)
    assert layout.setup_stack_position(SetupStackDef("s", "Other", 5, 6, "", False)) is None
