"""Second-reader audit of the grid code against the spec (§6.4-§6.8, FormattedString).

These cover what no corpus save can prove (no save records a hex name): quirks the spec states
and that the worked-example tests in `test_spec_examples.py` do not reach.
"""

from __future__ import annotations

import math

from lxml import etree

from vassal_parser.grids import (
    HexGrid,
    HexGridNumbering,
    Region,
    RegionGrid,
    RegularGridNumbering,
    SquareGrid,
    SquareGridNumbering,
    Zone,
    ZonedGrid,
    format_string,
)
from vassal_parser.layout import MapLayout
from vassal_parser.module import GRID_PKG, BoardDef, MapDef, _hex_grid

DEFAULT_DX = math.sqrt(3) / 2 * 64.0


def _hex_element(**attributes: str) -> etree._Element:
    return etree.Element(GRID_PKG + "HexGrid", {key: value for key, value in attributes.items()})


# --- §6.4 the dx recompute quirk ----------------------------------------------------------------


def test_6_4_setting_dy_recomputes_a_default_dx() -> None:
    """§6.4: dy applied after dx; dx still at the exact default -> dx = sqrt(3)/2 * dy."""
    grid = _hex_element(dy="100.0")
    assert _hex_grid(grid, None).dx == math.sqrt(3) / 2 * 100.0


def test_6_4_dx_written_equal_to_the_default_is_still_recomputed() -> None:
    """§6.4: the test is 'dx equals the default exactly', not 'dx was absent'."""
    grid = _hex_element(dx=repr(DEFAULT_DX), dy="100.0")
    assert _hex_grid(grid, None).dx == math.sqrt(3) / 2 * 100.0


def test_6_4_explicit_dx_survives_setting_dy() -> None:
    grid = _hex_element(dx="75.0", dy="86.6")
    parsed = _hex_grid(grid, None)
    assert (parsed.dx, parsed.dy) == (75.0, 86.6)


def test_6_4_no_dy_keeps_default_dx() -> None:
    assert _hex_grid(_hex_element(), None).dx == DEFAULT_DX


# --- §6.4 sideways and the snap polygon -----------------------------------------------------


def test_6_4_sideways_raw_centres_swap_x0_onto_board_y() -> None:
    """§6.4 sideways: x0 offsets along board y, y0 along board x."""
    grid = HexGrid(x0=10, y0=40, sideways=True)
    assert grid.raw_center(0, 0) == (40, 10)
    assert grid.raw_center(1, 0) == (40 + 32, 10 + 55)  # odd column half a hex further along x


def test_6_4_snap_polygon_corners_have_the_plus_one_adjustments() -> None:
    """§6.4 step 2: R = 2dx/3, corners rounded half-up, +1 on the right and bottom corners."""
    grid = HexGrid()  # dx default, dy 64, centre of raw (0,0) = (0,32)
    radius = 2 * DEFAULT_DX / 3  # 36.95...
    assert grid.hex_polygon(0, 0) == [
        (math.floor(-radius + 0.5), 32),
        (math.floor(-radius / 2 + 0.5), 0),
        (math.floor(radius / 2 + 0.5) + 1, 0),
        (math.floor(radius + 0.5) + 1, 32),
        (math.floor(radius / 2 + 0.5) + 1, 65),
        (math.floor(-radius / 2 + 0.5), 65),
    ]


def test_6_4_snap_tries_neighbours_in_spec_order() -> None:
    """§6.4 step 1-2: candidate (0,-1) for (28,5) misses; first neighbour that holds it is (1,-1)."""
    grid = HexGrid()
    assert grid.snap(28, 5) == (55, 0)  # raw (1,-1): odd column -> y = -64 + 32 + 32
    assert grid.snap(0, 32) == (0, 32)


def test_6_4_name_uses_rounding_not_the_polygon() -> None:
    """§6.4: rawCol/rawRow round; an unsnapped point near a border may name a neighbour hex."""
    grid = HexGrid(numbering=HexGridNumbering(), container_size=(1000, 800))
    # (28,5): rawCol = floor(28/55.4 + 0.5) = 1, odd -> rawRow = round((5-32-32)/64) = -1
    assert (grid.raw_column(28, 5), grid.raw_row(28, 5)) == (1, -1)
    # snapped it lies in raw (1,-1) too; here the two agree, and the name is 0201 (stagger +1)
    assert grid.location_name(28, 5) == "0201"


# --- §6.5 descend under sideways grids --------------------------------------------------------


def _sideways(**numbering: object) -> HexGrid:
    return HexGrid(
        sideways=True,
        numbering=HexGridNumbering(**numbering),  # type: ignore[arg-type]
        container_size=(1000, 800),
    )


def test_6_5_sideways_v_descend_flips_the_column_with_max_rows() -> None:
    """§6.5: vDescend and sideways -> col = maxRows - col, maxRows = floor(800/dx + 0.5) = 14."""
    grid = _sideways(v_descend=True)
    # board (32,0) is raw (0,0) sideways: col 14 - 0 = 14 -> "15"; row 0 -> "01"
    assert grid.location_name(32, 0) == "1501"


def test_6_5_sideways_h_descend_flips_row_and_staggers_minus_one() -> None:
    """§6.5: hDescend and sideways -> row = maxCols - row (maxCols = floor(1000/dy + 0.5) = 16),
    and on odd raw columns the stagger is -1 instead of +1."""
    grid = _sideways(h_descend=True)
    assert grid.location_name(32, 0) == "0117"  # col 0, row 16 - 0
    # (64,55) is raw (1,0) sideways: row 16 - 0 - 1 = 15 -> "0216"
    assert grid.location_name(64, 55) == "0216"
    assert grid.location("0216") == (64, 55)


def test_6_5_upright_v_descend_staggers_minus_one() -> None:
    """§6.5: not sideways + vDescend: row = maxRows - row, then -1 on odd raw columns."""
    grid = HexGrid(numbering=HexGridNumbering(v_descend=True), container_size=(1000, 800))
    # maxRows = floor(800/55.43 + 0.5) = 14; (57,70) raw (1,0): row 14 - 0 - 1 = 13
    assert grid.location_name(57, 70) == "0214"
    assert grid.location("0214") == (55, 64)


# --- §6.5 part names, negatives, alphabetic, name -> point -------------------------------


def test_6_5_negative_parts_keep_their_zero_padding() -> None:
    """§6.5 fmt: '-' then |v| padded; -3 with leading 1 -> '-03'."""
    assert RegularGridNumbering.part_name(-3, "N", 1) == "-03"
    assert RegularGridNumbering.part_name(-27, "A", 1) == "-BB"


def test_6_5_negative_name_parses_back_to_its_hex() -> None:
    """§6.5 getLocation: numeric groups accept a leading '-'."""
    grid = HexGrid(numbering=HexGridNumbering(stagger=False), container_size=(1000, 800))
    point = grid.raw_center(-2, 0)
    name = grid.location_name(*point)
    assert name == "-0101"
    assert grid.location(name) == point


def test_6_5_alphabetic_names_round_trip() -> None:
    """§6.5: alphabetic 0 A, 25 Z, 26 AA, 27 BB; name -> point parses AA as 26."""
    numbering = HexGridNumbering(h_type="A", h_off=0, stagger=False)
    grid = HexGrid(dx=10.0, dy=10.0, y0=5, numbering=numbering, container_size=(1000, 800))
    assert grid.location_name(*grid.raw_center(27, 3)) == "BB04"
    assert grid.location("BB04") == grid.raw_center(27, 3)
    assert grid.location("AA01") == grid.raw_center(26, 0)


def test_6_5_empty_separator_needs_exactly_leading_plus_one_digits() -> None:
    """§6.5: sep="" -> the first numeric group is greedy; 3 digits then 2 splits as '010'+'11'?
    No: the second group needs >= 2 digits, so '01011' is col 010, row 11 -> raw col 9, row 10."""
    grid = HexGrid(numbering=HexGridNumbering(stagger=False), container_size=(2000, 2000))
    assert grid.location("01011") == grid.center_of(9, 10)
    assert grid.location("0101") == grid.center_of(0, 0)
    assert grid.location("011") is None  # not enough digits for two groups


def test_6_5_leading_zero_setting_widens_the_pattern() -> None:
    numbering = HexGridNumbering(h_leading=2, v_leading=2, stagger=False)
    grid = HexGrid(numbering=numbering, container_size=(1000, 800))
    assert grid.location_name(0, 32) == "001001"
    assert grid.location("001001") == (0, 32)
    assert grid.location("0101") is None


# --- FormattedString ($...$) ------------------------------------------------------------------


def test_6_5_escaped_dollar_is_a_literal_dollar() -> None:
    """§6.5: the format is SequenceEncoder-split on '$', so '\\$' stays a literal dollar."""
    assert format_string("cost \\$5 $name$", {"name": "N"}) == "cost $5 N"


def test_6_5_unknown_property_asks_the_fallback_else_is_empty() -> None:
    assert format_string("<$x$>", {}, lambda key: "M" if key == "x" else None) == "<M>"
    assert format_string("<$x$>", {}) == "<>"


def test_6_5_unclosed_dollar_leaves_the_last_token_literal() -> None:
    """FormattedString: only odd tokens with a token after them are property names, so an
    unclosed `$name` is literal text ("abc$def" -> "abcdef"; the `$` itself is consumed)."""
    assert format_string("abc$def", {"def": "X"}) == "abcdef"
    assert format_string("w$gridLocation", {"gridLocation": "3516"}) == "wgridLocation"


def test_6_7_known_but_null_property_is_empty_not_looked_up() -> None:
    """FormattedString: a key present in the format's own properties with a null value gives
    nothing; it is not asked of the module (a Zone without a grid and `$gridLocation$`)."""
    assert format_string("$name$/$gridLocation$", {"name": "Z", "gridLocation": None}, lambda k: "M") == "Z/"


# --- §6.6 square grid ----------------------------------------------------------------------


def test_6_6_square_centre_truncates_the_product_before_adding_the_origin() -> None:
    """§6.6: centre = ((int)(col*dx) + x0, (int)(row*dy) + y0); casting after adding x0
    differs when the product is negative and fractional."""
    grid = SquareGrid(dx=48.3, dy=48.3, x0=50, y0=50, numbering=SquareGridNumbering(h_off=0, v_off=0))
    # (int)(-48.3) + 50 = -48 + 50 = 2, not (int)(1.7) = 1
    assert grid.center_of(-1, -1) == (2, 2)
    assert grid.center_of(3, 2) == (int(3 * 48.3) + 50, int(2 * 48.3) + 50)


def test_6_6_square_descend_uses_truncated_max() -> None:
    """§6.6: maxCols = (int)(width/dx + 0.5), maxRows likewise."""
    numbering = SquareGridNumbering(h_descend=True, v_descend=True)
    grid = SquareGrid(numbering=numbering, container_size=(480, 480))  # max 10 x 10
    assert grid.location_name(24, 24) == "1111"
    assert grid.location("1111") == (24, 24)


# --- §6.7 zones ----------------------------------------------------------------------------


def test_6_7_zone_grid_is_asked_with_the_board_point_not_zone_relative() -> None:
    """§6.7: `$gridLocation$` is the zone grid's name of the same board-local point."""
    inner = SquareGrid(numbering=SquareGridNumbering())
    square = ([100, 300, 300, 100], [100, 100, 300, 300])
    zone = Zone("Z", xs=square[0], ys=square[1], location_format="$name$-$gridLocation$")
    zone.grid = inner
    zoned = ZonedGrid(zones=[zone])
    zone.parent = zoned
    # board (120,120): square col round((120-24)/48)=2 -> "0303"; zone-relative would give "0101"
    assert zoned.location_name(120, 120) == "Z-0303"


def test_6_7_first_zone_in_build_order_wins_and_background_answers_outside() -> None:
    first = Zone("A", xs=[0, 100, 100, 0], ys=[0, 0, 100, 100])
    second = Zone("B", xs=[50, 150, 150, 50], ys=[50, 50, 150, 150])
    zoned = ZonedGrid(zones=[first, second], background=SquareGrid(numbering=SquareGridNumbering()))
    assert zoned.location_name(60, 60) == "A"
    assert zoned.location_name(120, 120) == "B"
    assert zoned.location_name(400, 400) == "0909"
    assert ZonedGrid(zones=[first]).location_name(400, 400) is None


def test_6_7_zone_path_parsing_trims_and_skips_bad_pairs() -> None:
    """§6.7: `x1,y1;x2,y2;...`, whitespace trimmed, bad pairs skipped, empty = no points."""
    assert Zone.parse_path(" 1, 2;x,3; 4 ,5 ;6") == ([1, 4], [2, 5])
    assert Zone.parse_path("") == ([], [])


# --- §6.8 region grid ------------------------------------------------------------------------


def test_6_8_nearest_region_by_squared_distance() -> None:
    grid = RegionGrid(regions=[Region("Paris", 100, 100), Region("Berlin", 300, 100)])
    assert grid.location_name(180, 140) == "Paris"
    assert grid.location_name(220, 0) == "Berlin"
    assert grid.snap(220, 0) == (300, 100)
    assert RegionGrid(regions=[Region("Paris", 100, 100)], snap_to=False).snap(5, 5) == (5, 5)


def test_6_8_regions_at_the_same_point_collapse_to_the_last_added() -> None:
    """§6.8: regions are kept in a map keyed by point (`regionList.put(origin, region)`), so a
    later region at the same point replaces the earlier one, for names and name -> point."""
    grid = RegionGrid(regions=[Region("Old", 10, 10), Region("New", 10, 10), Region("Far", 500, 500)])
    assert grid.location_name(12, 12) == "New"
    assert grid.location("New") == (10, 10)
    assert grid.location("Old") is None


# --- §6.2 board placement and reversed snapping ---------------------------------------------


def test_6_2_two_by_two_boards_place_by_row_and_column_sums() -> None:
    """§6.2: x = edge + widths of the boards left in the same row, y = edge + heights above in
    the same column; map size adds the edge buffer once more on the right/bottom."""
    boards = [
        BoardDef("NW", "", 100, 50, False, None),
        BoardDef("NE", "", 200, 60, False, None),
        BoardDef("SW", "", 110, 70, False, None),
        BoardDef("SE", "", 120, 80, False, None),
    ]
    map_def = MapDef("M", "M", "Map0", "Map", 10, 20, boards)
    selection = [("NW", False, 0, 0), ("NE", False, 1, 0), ("SW", False, 0, 1), ("SE", False, 1, 1)]
    layout = MapLayout(map_def, selection)
    assert [(b.name, b.x, b.y) for b in layout.boards] == [
        ("NW", 10, 20),
        ("NE", 110, 20),
        ("SW", 10, 70),
        ("SE", 120, 80),
    ]
    assert layout.size == (max(110 + 200, 120 + 120) + 10, max(70 + 70, 80 + 80) + 20)


def test_6_2_snap_on_a_reversed_board_is_flipped_back() -> None:
    """§6.2: the grid snaps the flipped board point; the result is flipped back the same way."""
    grid = SquareGrid()  # 48 px cells centred at 24 + 48k
    board = BoardDef("B", "", 100, 100, True, grid)
    layout = MapLayout(MapDef("M", "M", "Map0", "Map", 0, 0, [board]), [("B", True, 0, 0)])
    # map (90,90) -> local (10,10) -> snapped (24,24) -> map (76,76)
    assert layout.snap(90, 90) == (76, 76)
