"""Name -> point -> name round trips (hypothesis) over hex and square numberings (spec §6.5, §6.6).

Start from a cell centre, take its name, turn the name back into a point with `getLocation`'s
rules, and name that point again: the two names must match, and the point must be the cell's
centre give or take the one-pixel difference between the grid's and the numbering's centre
formulas (§6.4 vs §6.5).

Restrictions, each a property of VASSAL's own formulas rather than of this port:
* with `sep=""` and numeric parts, a part with more than `leading+1` digits makes the name
  ambiguous (the regex's first group is greedy, §6.5), so parts are kept to `leading+1` digits;
* when a descending flip applies to the column axis, `locationName` tests the stagger parity on
  the raw column but `getCenterPoint` on the flipped one; they agree only when the flip's
  maximum (maxCols, or maxRows for sideways grids) is even, so containers are sized to make it even.
"""

from __future__ import annotations

import math

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from vassal_parser.grids import HexGrid, HexGridNumbering, SquareGrid, SquareGridNumbering

numbering_common = {
    "first": st.sampled_from(["H", "V"]),
    "sep": st.sampled_from(["", "-", ".", " "]),
    "h_type": st.sampled_from(["N", "A"]),
    "v_type": st.sampled_from(["N", "A"]),
    "h_leading": st.integers(0, 2),
    "v_leading": st.integers(0, 2),
    "h_off": st.integers(-3, 3),
    "v_off": st.integers(-3, 3),
    "h_descend": st.booleans(),
    "v_descend": st.booleans(),
    "location_format": st.sampled_from(["$gridLocation$", "hex $gridLocation$", "c$column$r$row$"]),
}


def _parts_unambiguous(numbering, col_value: int, row_value: int) -> bool:
    """§6.5: without a separator, numeric parts need exactly leading+1 digits (and no sign between)."""
    if numbering.sep or "$gridLocation$" not in numbering.location_format:
        return True
    for value, kind, leading in (
        (col_value, numbering.h_type, numbering.h_leading),
        (row_value, numbering.v_type, numbering.v_leading),
    ):
        if kind == "N" and len(str(abs(value))) > leading + 1:
            return False
    # `AAAA` is ambiguous (VASSAL's own comment in RegularGridNumbering).
    return not numbering.h_type == numbering.v_type == "A"


@settings(max_examples=300, deadline=None)
@given(
    data=st.data(),
    dx=st.floats(30, 140),
    dy=st.floats(30, 140),
    x0=st.integers(-40, 40),
    y0=st.integers(-40, 40),
    sideways=st.booleans(),
    stagger=st.booleans(),
    c=st.integers(0, 30),
    r=st.integers(0, 30),
)
def test_hex_name_point_name_round_trip_6_5(data, dx, dy, x0, y0, sideways, stagger, c, r) -> None:
    """§6.5 HexGridNumbering: locationName(getLocation(name)) == name for every cell."""
    numbering = HexGridNumbering(stagger=stagger, **{k: data.draw(v) for k, v in numbering_common.items()})
    # Container: big enough for the cells drawn, sized so the column flip's maximum is even.
    width, height = 3200, 3200
    flips_column = (numbering.h_descend and not sideways) or (numbering.v_descend and sideways)
    if flips_column:
        pitch = dx if sideways else dy  # maxRows uses dx, maxCols dy (the §6.5 quirk)
        size = height if sideways else width
        if math.floor(size / pitch + 0.5) % 2:
            size += int(pitch)
            assume(math.floor(size / pitch + 0.5) % 2 == 0)
        width, height = (width, size) if sideways else (size, height)
    grid = HexGrid(
        dx=dx, dy=dy, x0=x0, y0=y0, sideways=sideways, numbering=numbering, container_size=(width, height)
    )
    point = grid.raw_center(c, r)
    col, row = grid.column_row(*point)
    assume(_parts_unambiguous(numbering, col + numbering.h_off, row + numbering.v_off))
    name = grid.location_name(*point)
    back = grid.location(name)
    assert back is not None, name
    assert grid.location_name(*back) == name
    assert abs(back[0] - point[0]) <= 1 and abs(back[1] - point[1]) <= 1


@settings(max_examples=300, deadline=None)
@given(
    data=st.data(),
    dx=st.floats(20, 140),
    dy=st.floats(20, 140),
    x0=st.integers(-40, 40),
    y0=st.integers(-40, 40),
    c=st.integers(0, 30),
    r=st.integers(0, 30),
)
def test_square_name_point_name_round_trip_6_6(data, dx, dy, x0, y0, c, r) -> None:
    """§6.6 SquareGridNumbering: the centre of a named cell is named the same."""
    numbering = SquareGridNumbering(**{k: data.draw(v) for k, v in numbering_common.items()})
    grid = SquareGrid(dx=dx, dy=dy, x0=x0, y0=y0, numbering=numbering, container_size=(3000, 2500))
    point = (int(c * dx) + x0, int(r * dy) + y0)  # the cell centre as getCenterPoint casts it (§6.6)
    col, row = grid.column_row(*point)
    assume(_parts_unambiguous(numbering, col + numbering.h_off, row + numbering.v_off))
    name = grid.location_name(*point)
    back = grid.location(name)
    assert back is not None, name
    assert grid.location_name(*back) == name
    assert back == point
