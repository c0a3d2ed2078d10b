"""Hex numberings that ship inside a module rather than in VASSAL core.

Why a module of its own: `ThirdReich.ObliqueHexGridNumbering` is Java code inside the "A3R with AWAW
Map" module (Advanced Third Reich / A World at War family), not a VASSAL class, so `grids.py` (a port of
VASSAL core) does not know it. Its semantics, read from the class's public LGPL source ("3R4 Oblique Hex
Grid Numbering"): it is VASSAL's `HexGridNumbering` with one change to `getRow` — on a *sideways* grid
the row is lowered by half the column, `row - (int)(col - 1) / 2` (Java integer division, which
truncates toward zero, so column 0 is not shifted), where `row` and `col` are HexGridNumbering's own
(stagger and descend already applied, offsets not yet). On a grid that is not sideways it numbers as
HexGridNumbering. Columns are unchanged. The module does not override name -> point; ours undoes the
slant so that `point_for(name)` finds the hex it names.

The result is the Third Reich map's oblique numbering: a letter per map row (the sideways grid's
column) and a number that runs along a slant, so that the six neighbours of hex (c, n) are
(c, n-1), (c, n+1), (c-1, n), (c-1, n+1), (c+1, n-1), (c+1, n) for every column c >= 1
(`oblique_neighbors`; tests/grids/test_oblique_numbering.py checks it against the grid's geometry).

The hook into the module reader is `module_hex_numberings` (one line in `module._hex_grid`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from vassal_parser import grids

THIRD_REICH_OBLIQUE = "ThirdReich.ObliqueHexGridNumbering"


def java_int_div(a: int, b: int) -> int:
    """Java `int / int`: the quotient truncated toward zero (Python's `//` floors)."""
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b > 0) else -quotient


@dataclass
class ThirdReichObliqueNumbering(grids.ObliqueHexGridNumbering):
    """`ThirdReich.ObliqueHexGridNumbering`: rows slant by (col - 1) / 2 on a sideways grid only.

    A subclass of core's oblique numbering because `HexGrid` already routes every point -> (col, row)
    and (col, row) -> point through `slant`/`unslant`; only the slant differs (and `direction`, a core
    attribute, is not read by this class)."""

    sideways: bool = False

    def slant(self, row: int, col: int) -> int:
        return row - java_int_div(col - 1, 2) if self.sideways else row

    def unslant(self, row: int, col: int) -> int:
        return row + java_int_div(col - 1, 2) if self.sideways else row


def module_hex_numberings(
    element: Any,
    numbering_fields: Callable[[Any], dict[str, Any]],
    read_bool: Callable[[Any, str, bool], bool],
) -> dict[str, Callable[[Any], grids.HexGridNumbering]]:
    """Builders for module-shipped hex numberings, keyed by their element tag, for one HexGrid element.

    Why the grid element: this numbering's result depends on the grid's `sideways`, which the
    numbering element does not carry (the Java asks `getGrid().isSideways()`)."""
    sideways = read_bool(element, "sideways", False)
    return {
        THIRD_REICH_OBLIQUE: lambda child: ThirdReichObliqueNumbering(
            stagger=read_bool(child, "stagger", True), sideways=sideways, **numbering_fields(child)
        ),
    }


def oblique_neighbors(col: int, number: int) -> list[tuple[int, int]]:
    """The six neighbours of numbering cell (col, number) on a sideways ThirdReich grid (col >= 1).

    Derived from the grid: a sideways hex grid's column c touches c-1 and c+1 at raw rows (r-1, r)
    when c is even and (r, r+1) when odd; the stagger and the (c-1)/2 slant turn both cases into
    the same axial pattern below."""
    return [
        (col, number - 1),
        (col, number + 1),
        (col - 1, number),
        (col - 1, number + 1),
        (col + 1, number - 1),
        (col + 1, number),
    ]
