"""VASSAL's board grids: point -> location name and name -> point, exactly as the Java computes them.

Why over 500 lines: each grid ports one Java class, but they share the numbering base, the Java casts
(`java_int`, `java_round`) and format strings; a ZonedGrid holds the other kinds inside its zones and
`cell_namer` names cells across every kind, so a grid per file would import the others back.

Why a port and not "nice" geometry: the name VASSAL shows (and stores in `OldLocationName`) comes
from integer truncation, half-up rounding and a few quirks (spec §6.4-§6.8). Players compare our
output with what VASSAL says, so every cast is reproduced: `(int)` truncates toward zero
(`int()`), `Math.round` is `floor(x + 0.5)` (never Python's banker's `round`), `Math.floor`
is `math.floor`. All points here are **board-local** integer pixels; the board origin, edge
buffer and reversed-board flip are `layout.py`'s job.

Public API:
    HexGrid, SquareGrid, RegionGrid, Region, ZonedGrid, Zone, HexGridNumbering,
    ObliqueHexGridNumbering, SquareGridNumbering, java_round(x), format_string(fmt, props, fallback),
    polygon_contains(points, x, y), GridSizeUnknown
"""

from __future__ import annotations

import functools
import math
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from vassal_parser.javahash import iteration_order
from vassal_parser.sequence import decode, fill_format, java_parse_int

Point = tuple[int, int]
PropertyLookup = Callable[[str], str | None]

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_ALPHABETIC_MATCH = "-?(?:" + "|".join(f"{c}+" for c in ALPHABET) + ")"


# Longest row or column part of a grid name we compute. VASSAL's own loops would build names of
# any length (and hang on a huge cell number); real modules use a few characters.
MAX_NAME_PART = 1000


class GridValueError(ValueError):
    """A grid value no real board has (a cell number or padding that makes a name of thousands
    of characters). Callers turn it into an InputError naming the file."""


class GridSizeUnknown(ValueError):
    """A descending numbering needs its container's size, and the module does not tell it.

    Why an error and not a guess: `maxRows/maxCols` come from the board image size; without the
    image (a bare buildFile) a guessed size would silently produce wrong hex names.
    """


# What a layout reports as "cannot compute this location" instead of failing the whole file.
UNCOMPUTABLE = (GridSizeUnknown, GridValueError)


def java_round(value: float) -> int:
    """Java `Math.round(double)`: floor(x + 0.5), i.e. half rounds up (toward +infinity)."""
    return math.floor(value + 0.5)


def java_int(value: float) -> int:
    """Java `(int)` cast of a double: truncation toward zero."""
    return int(value)


@functools.lru_cache(maxsize=1024)
def _format_tokens(fmt: str) -> tuple[str, ...]:
    """SE('$') tokens of a format, split once per distinct format (every located piece uses one)."""
    return tuple(decode(fmt, "$"))


def format_string(fmt: str, props: Mapping[str, str | None], fallback: PropertyLookup | None = None) -> str:
    """VASSAL `FormattedString`: `$name$` substitution, split with SequenceEncoder on `$`.

    Tokens at odd positions are property names (spec §6.5) — but only when another token follows,
    so an unclosed `abc$def` stays literal (`abcdef`), as `FormattedStringExpression` does. A name
    in `props` gives its value even when that is None (then nothing: a Zone without a grid); a
    name not in `props` is asked of `fallback` (module/map/zone properties), else it is empty.
    """
    return fill_format(_format_tokens(fmt), props, fallback, unanswered_as_name=False)


def _bounding_box(xs: Sequence[int], ys: Sequence[int]) -> tuple[int, int, int, int]:
    """(min x, max x, min y, max y); an empty box for fewer than three corners (contains nothing)."""
    if len(xs) <= 2:
        return (0, 0, 0, 0)
    return (min(xs), max(xs), min(ys), max(ys))


def polygon_contains(xs: Sequence[int], ys: Sequence[int], x: float, y: float) -> bool:
    """`java.awt.Polygon.contains(x, y)`: even-odd rule, bounding-box test first.

    Points on the left/top edges count as inside, right/bottom edges as outside (spec §6.7). The
    edges whose half-open y range holds the point are the only ones the Java loop can count (its
    first test of every edge); `_crossings` counts them as it does."""
    n = len(xs)
    if n <= 2:
        return False
    min_x, max_x, min_y, max_y = min(xs), max(xs), min(ys), max(ys)
    if not (min_x <= x < max_x and min_y <= y < max_y):
        return False
    spanning = []
    last_x, last_y = xs[-1], ys[-1]
    for cur_x, cur_y in zip(xs, ys, strict=True):
        if cur_y < last_y:
            if cur_y <= y < last_y:
                spanning.append((cur_x, cur_y, last_x, last_y))
        elif last_y < cur_y and last_y <= y < cur_y:  # (a horizontal edge never counts)
            spanning.append((cur_x, cur_y, last_x, last_y))
        last_x, last_y = cur_x, cur_y
    return (_crossings(spanning, x, y) & 1) != 0


def _crossings(edges: Iterable[tuple[int, int, int, int]], x: float, y: float) -> int:
    """How many of `edges` (cur x, cur y, last x, last y: each edge from the corner before to its
    own, as `Polygon.contains` walks them, every one with y in its half-open y range) the Java loop
    counts as crossed by the point's rightward ray: the rest of its tests, in its order, with the
    same double arithmetic."""
    hits = 0
    for cur_x, cur_y, last_x, last_y in edges:
        if cur_x < last_x:
            if x >= last_x:
                continue
            left_x = cur_x
        else:
            if x >= cur_x:
                continue
            left_x = last_x
        if x < left_x:
            hits += 1
            continue
        if cur_y < last_y:
            test1, test2 = x - cur_x, y - cur_y
        else:
            test1, test2 = x - last_x, y - last_y
        if test1 < (test2 / (last_y - cur_y) * (last_x - cur_x)):
            hits += 1
    return hits


MAX_BAND_EDGES = 64  # edge entries a polygon's bands may hold per vertex before `EdgeBands` gives up
MAX_BAND_ENTRIES = 1 << 18  # and in all, whatever its size (a few MB at most)


class EdgeBands:
    """`polygon_contains` of one polygon, with only the edges that can count for the point's row.

    Why: a zone is tested point after point (every piece of a save standing in it), and the plain
    test walks every edge (Almoravid's zones: 31 corners on average, ForThePeople's 16). An edge
    counts for a point only when the point's y lies in [its lower y, its upper y) — the test's
    first condition on it — and the vertices' distinct y values cut the plane into bands in which
    that set of edges does not change. The edges of each band are listed once (each with its end
    points as the test takes them), the point's band found by bisection, and its edges counted by
    `_crossings`, as `polygon_contains` counts the edges it finds spanning the row: the same answer
    for every point (tests/grids compare both with a literal port of the Java loop, at random).
    Bounded: a polygon whose bands would list more than `MAX_BAND_EDGES` edges per vertex, or more
    than `MAX_BAND_ENTRIES` in all, is not banded (`build` gives None; the caller keeps the plain
    test)."""

    __slots__ = ("bands", "box", "levels")

    def __init__(self, box: tuple[int, int, int, int], levels: list[int],
                 bands: list[tuple[tuple[int, int, int, int], ...]]) -> None:
        self.box = box
        self.levels = levels
        self.bands = bands

    @classmethod
    def build(cls, xs: Sequence[int], ys: Sequence[int]) -> EdgeBands | None:
        """The bands by one sweep up the levels, each edge entering at its lower y and leaving at
        its upper y: the corners sorted once, then linear in them and in the bands' entries, which
        the budget bounds."""
        count = len(xs)
        if count <= 2 or len(ys) != count:
            return None
        starting: dict[int, list[tuple[int, int, int, int]]] = {}  # lower y -> edges
        ending: dict[int, list[tuple[int, int, int, int]]] = {}  # upper y -> edges
        last_x, last_y = xs[-1], ys[-1]
        for cur_x, cur_y in zip(xs, ys, strict=True):
            if cur_y != last_y:  # horizontal edges never count
                ends = (cur_x, cur_y, last_x, last_y)
                starting.setdefault(min(cur_y, last_y), []).append(ends)
                ending.setdefault(max(cur_y, last_y), []).append(ends)
            last_x, last_y = cur_x, cur_y
        levels = sorted(set(ys))
        budget = min(MAX_BAND_EDGES * count, MAX_BAND_ENTRIES)
        active: dict[int, tuple[int, int, int, int]] = {}  # id -> edge: lower y <= level < upper y
        bands = []
        for level in levels[:-1]:
            for ends in ending.get(level, ()):
                del active[id(ends)]
            for ends in starting.get(level, ()):
                active[id(ends)] = ends
            budget -= len(active)
            if budget < 0:
                return None
            bands.append(tuple(active.values()))
        return cls((min(xs), max(xs), min(ys), max(ys)), levels, bands)

    def contains(self, x: float, y: float) -> bool:
        min_x, max_x, min_y, max_y = self.box
        if not (min_x <= x < max_x and min_y <= y < max_y):
            return False
        # inside the box, y is in a band: the lowest level is min y, the highest max y
        return (_crossings(self.bands[bisect_right(self.levels, y) - 1], x, y) & 1) != 0


# --------------------------------------------------------------------------------------------
# Numberings (RegularGridNumbering and its two subclasses)
# --------------------------------------------------------------------------------------------


@dataclass
class RegularGridNumbering:
    """Shared numbering rules (spec §6.5): offsets, leading zeros, alphabetic parts, format."""

    first: str = "H"
    sep: str = ""
    h_type: str = "N"
    v_type: str = "N"
    h_leading: int = 1
    v_leading: int = 1
    h_off: int = 1
    v_off: int = 1
    h_descend: bool = False
    v_descend: bool = False
    location_format: str = "$gridLocation$"

    # --- names of single parts -------------------------------------------------------------
    @staticmethod
    def part_name(value: int, kind: str, leading: int) -> str:
        """`RegularGridNumbering.getName(int, char, int)`: sign, then letters or zero-padded digits."""
        text = "-" if value < 0 else ""
        value = abs(value)
        if kind == "A":
            # The Java loop appends ALPHABET[value % 26] and subtracts 26 until negative: the
            # same letter, value // 26 + 1 times. Computed directly (the loop ran value / 26
            # times), and capped: a longer name means an impossible grid, not a real cell.
            count = value // 26 + 1
            if count > MAX_NAME_PART:
                raise GridValueError(f"grid cell number {value} would make a name of {count} letters")
            return text + ALPHABET[value % 26] * count
        # The Java loop pads while value < 10^leading, one zero per step: the zeros are those
        # leading values (counted down from `leading`) not yet below the value's digit count.
        digits = len(str(value))
        zeros = max(leading - digits + 1, 0) if leading > 0 else 0
        if zeros + digits > MAX_NAME_PART:
            raise GridValueError(f"grid leading zeros {leading} would make a name of {zeros + digits} digits")
        return text + "0" * zeros + str(value)

    @staticmethod
    def parse_part(text: str, kind: str) -> int:
        """`RegularGridNumbering.parseName`: `AA` is 26, `BB` 27; numbers as Integer.parseInt."""
        if kind != "A":
            value = java_parse_int(text)
            if value is None:
                raise GridValueError(f"grid cell number {text[:40]!r} is not a 32-bit integer")
            return value
        index = 0
        negative = text.startswith("-")
        if negative:
            index = 1
        value = 0
        while index < len(text) and text[index].isupper():
            value += 26 if index < len(text) - 1 else ALPHABET.index(text[index])
            index += 1
        return -value if negative else value

    def grid_location(self, row: int, col: int) -> str:
        row_name = self.part_name(row + self.v_off, self.v_type, self.v_leading)
        col_name = self.part_name(col + self.h_off, self.h_type, self.h_leading)
        return col_name + self.sep + row_name if self.first == "H" else row_name + self.sep + col_name

    def format_name(self, row: int, col: int, fallback: PropertyLookup | None = None) -> str:
        row_name = self.part_name(row + self.v_off, self.v_type, self.v_leading)
        col_name = self.part_name(col + self.h_off, self.h_type, self.h_leading)
        if self.first == "H":
            grid_location = col_name + self.sep + row_name
        else:
            grid_location = row_name + self.sep + col_name
        if self.location_format == "$gridLocation$":  # the default: the format is just that property
            return grid_location
        props = {"gridLocation": grid_location, "row": row_name, "column": col_name}
        return format_string(self.location_format, props, fallback)

    def _pattern(self, kind: str, leading: int) -> str:
        return _ALPHABETIC_MATCH if kind == "A" else f"-?[0-9]{{{leading + 1},}}"

    def parse_location(self, name: str) -> tuple[int, int] | None:
        """Name -> (col, row) before offsets are removed, as `getLocation` parses it; None = no match.

        The regex is built from `locationFormat` the way the Java does: literal text quoted,
        `$gridLocation$`/`$row$`/`$column$` as groups, other properties skipped, and a last
        token always taken literally.
        """
        tokens = decode(self.location_format, "$")
        regex: list[str] = []
        col_group = row_group = groups = 0
        is_property = True
        for index, token in enumerate(tokens):
            is_property = not is_property
            if not token:
                continue
            has_more = index < len(tokens) - 1
            if not is_property or not has_more:
                regex.append(re.escape(token))
            elif token == "gridLocation":
                h = "(" + self._pattern(self.h_type, self.h_leading) + ")"
                v = "(" + self._pattern(self.v_type, self.v_leading) + ")"
                if self.first == "H":
                    regex += [h, re.escape(self.sep), v]
                    col_group, row_group = groups + 1, groups + 2
                else:
                    regex += [v, re.escape(self.sep), h]
                    row_group, col_group = groups + 1, groups + 2
                groups += 2
            elif token == "row":
                regex.append("(" + self._pattern(self.v_type, self.v_leading) + ")")
                groups += 1
                row_group = groups
            elif token == "column":
                regex.append("(" + self._pattern(self.h_type, self.h_leading) + ")")
                groups += 1
                col_group = groups
        if not regex or not col_group or not row_group:
            return None
        match = re.fullmatch("".join(regex), name)
        if match is None:
            return None
        try:
            col = self.parse_part(match.group(col_group), self.h_type)
            row = self.parse_part(match.group(row_group), self.v_type)
        except GridValueError:
            return None  # Integer.parseInt fails in VASSAL too: no such cell
        return col - self.h_off, row - self.v_off


@dataclass
class HexGridNumbering(RegularGridNumbering):
    """`HexGridNumbering`: adds `stagger` and the descend rules of sideways grids."""

    stagger: bool = True


_PLAIN_HEX_NUMBERING = HexGridNumbering()  # a grid without numbering counts as this (never changed)


@dataclass
class ObliqueHexGridNumbering(HexGridNumbering):
    """VASSAL core `ObliqueHexGridNumbering` (2022): rows slant by half the column number.

    `getRow` = slantRow(HexGridNumbering row, column): `direction` true -> trunc(col/2) + row,
    false -> row - trunc(col/2) + 1 (Java int division). VASSAL does not override `getLocation`,
    so its own name -> point ignores the slant; ours undoes it (docs/locations.md).
    """

    direction: bool = True

    def slant(self, row: int, col: int) -> int:
        half = int(col / 2)
        return half + row if self.direction else row - half + 1

    def unslant(self, row: int, col: int) -> int:
        half = int(col / 2)
        return row - half if self.direction else row + half - 1


@dataclass
class SquareGridNumbering(RegularGridNumbering):
    """`SquareGridNumbering`: no stagger; rows are truncated, not floored (spec §6.6)."""


# --------------------------------------------------------------------------------------------
# Grids
# --------------------------------------------------------------------------------------------


class Grid:
    """What every board grid answers; the container size is set by the board or zone holding it."""

    container_size: tuple[int, int] | None = None

    def location_name(self, x: int, y: int, fallback: PropertyLookup | None = None) -> str | None:
        raise NotImplementedError

    def location(self, name: str) -> Point | None:
        raise NotImplementedError

    def snap(self, x: int, y: int) -> Point:
        return (x, y)

    def _size(self) -> tuple[int, int]:
        if self.container_size is None:
            raise GridSizeUnknown("descending grid numbering needs the board size, which is unknown")
        return self.container_size


class NumberedGrid(Grid):
    """A grid whose cells a `RegularGridNumbering` names (hex and square grids, spec §6.5).

    Why shared: naming a point and finding a named cell go through the same two steps for both
    kinds (point <-> numbering (col, row) <-> name); only `column_row`/`center_of` differ.
    """

    numbering: RegularGridNumbering | None = None

    def column_row(self, x: int, y: int) -> tuple[int, int]:
        raise NotImplementedError

    def center_of(self, col: int, row: int) -> Point:
        raise NotImplementedError

    def location_name(self, x: int, y: int, fallback: PropertyLookup | None = None) -> str | None:
        if self.numbering is None:
            return None
        col, row = self.column_row(x, y)
        return self.numbering.format_name(row, col, fallback)

    def location(self, name: str) -> Point | None:
        if self.numbering is None:
            return None
        parsed = self.numbering.parse_location(name)
        return None if parsed is None else self.center_of(*parsed)


@dataclass
class HexGrid(NumberedGrid):
    """`HexGrid` (spec §6.4): flat-topped hexes in columns, odd columns half a hex lower.

    `sideways` swaps x and y *before* the origin applies, so x0 runs along board y.
    """

    dx: float = 55.42562584220407
    dy: float = 64.0
    x0: int = 0
    y0: int = 32
    sideways: bool = False
    snap_to: bool = True
    edges_legal: bool = False
    corners_legal: bool = False
    numbering: HexGridNumbering | None = None
    container_size: tuple[int, int] | None = None
    unknown_numbering: str | None = None  # class name of a numbering VASSAL core does not have

    def _rot(self, x: int, y: int) -> Point:
        return (y, x) if self.sideways else (x, y)

    # --- numbering (HexGridNumbering.getRawColumn/getRawRow/getColumn/getRow) -------------------
    def raw_column(self, x: int, y: int) -> int:
        px, _ = self._rot(x, y)
        return math.floor((px - self.x0) / self.dx + 0.5)

    def raw_row(self, x: int, y: int) -> int:
        px, py = self._rot(x, y)
        nx = java_round((px - self.x0) / self.dx)
        if nx % 2 == 0:
            return java_round((py - self.y0) / self.dy)
        return java_round((py - self.y0 - self.dy / 2) / self.dy)

    def _max_rows(self) -> int:
        # Quirk kept: height divided by dx (column pitch), spec §6.5.
        return math.floor(self._size()[1] / self.dx + 0.5)

    def _max_columns(self) -> int:
        return math.floor(self._size()[0] / self.dy + 0.5)

    def column_row(self, x: int, y: int) -> tuple[int, int]:
        """Numbering (col, row) of a board point, before the offsets (spec §6.5)."""
        numbering = self.numbering or _PLAIN_HEX_NUMBERING
        px, py = (y, x) if self.sideways else (x, y)
        raw_col = math.floor((px - self.x0) / self.dx + 0.5)  # raw_column
        col = raw_col
        if numbering.v_descend and self.sideways:
            col = self._max_rows() - col
        if numbering.h_descend and not self.sideways:
            col = self._max_columns() - col
        # raw_row, written out (every located piece comes here): its column test is raw_col
        # (java_round of the same quotient), then java_round of the row's quotient
        if raw_col % 2 == 0:
            row = math.floor((py - self.y0) / self.dy + 0.5)
        else:
            row = math.floor((py - self.y0 - self.dy / 2) / self.dy + 0.5)
        if numbering.v_descend and not self.sideways:
            row = self._max_rows() - row
        if numbering.h_descend and self.sideways:
            row = self._max_columns() - row
        if numbering.stagger and raw_col % 2 != 0:
            descending = numbering.h_descend if self.sideways else numbering.v_descend
            row += -1 if descending else 1
        if isinstance(numbering, ObliqueHexGridNumbering):
            row = numbering.slant(row, col)
        return col, row

    def center_of(self, col: int, row: int) -> Point:
        """`HexGridNumbering.getCenterPoint(col, row)`: numbering (col, row) -> board point."""
        numbering = self.numbering or _PLAIN_HEX_NUMBERING
        if isinstance(numbering, ObliqueHexGridNumbering):
            row = numbering.unslant(row, col)
        if numbering.stagger and col % 2 != 0:
            descending = numbering.h_descend if self.sideways else numbering.v_descend
            row += 1 if descending else -1
        if self.sideways:
            if numbering.v_descend:
                col = self._max_rows() - col
            if numbering.h_descend:
                row = self._max_columns() - row
        else:
            if numbering.h_descend:
                col = self._max_columns() - col
            if numbering.v_descend:
                row = self._max_rows() - row
        px = java_int(col * self.dx) + self.x0
        if col % 2 == 0:
            py = java_int(row * self.dy) + self.y0
        else:
            py = java_int(row * self.dy + self.dy / 2) + self.y0
        return self._rot(px, py)

    # --- raw hex geometry (HexGrid) -----------------------------------------------------------
    def raw_center(self, c: int, r: int) -> Point:
        """Centre of raw hex (c, r) in board pixels (spec §6.4)."""
        cx = java_int(self.dx * c + self.x0)
        if c % 2 == 0:
            cy = java_int(self.dy * r + self.y0)
        else:
            cy = java_int(self.dy * r + java_int(self.dy / 2) + self.y0)
        return self._rot(cx, cy)

    def _hex_polygon_rotated(self, cx: int, cy: int) -> tuple[list[int], list[int]]:
        radius = 2 * self.dx / 3
        half = self.dy / 2
        xs = [
            java_round(cx - radius),
            java_round(cx - radius / 2),
            java_round(cx + radius / 2) + 1,
            java_round(cx + radius) + 1,
            java_round(cx + radius / 2) + 1,
            java_round(cx - radius / 2),
        ]
        ys = [
            java_round(cy),
            java_round(cy - half),
            java_round(cy - half),
            java_round(cy),
            java_round(cy + half) + 1,
            java_round(cy + half) + 1,
        ]
        return xs, ys

    def hex_polygon(self, c: int, r: int) -> list[Point]:
        """The six corners of raw hex (c, r) in board pixels, as VASSAL's snap test builds it.

        Why exposed: a later issue draws an SVG inset from the module's own grid geometry.
        """
        cx, cy = self._rot(*self.raw_center(c, r))  # back into the unrotated frame
        xs, ys = self._hex_polygon_rotated(cx, cy)
        return [self._rot(px, py) for px, py in zip(xs, ys, strict=True)]

    def _snap_to_hex(self, x: int, y: int) -> Point:
        """`HexGrid.snapToHex` (spec §6.4 steps 1-2), in the unrotated frame."""
        px, py = self._rot(x, y)
        c = math.floor((px - self.x0 + self.dx / 2) / self.dx)
        if c % 2 == 0:
            r = math.floor((py - self.y0 + self.dy / 2) / self.dy)
            neighbours = [(c - 1, r - 1), (c - 1, r), (c + 1, r - 1), (c + 1, r)]
        else:
            r = math.floor((py - self.y0) / self.dy)
            neighbours = [(c - 1, r), (c - 1, r + 1), (c + 1, r), (c + 1, r + 1)]
        for cc, rr in [(c, r), *neighbours]:
            cx, cy = self._rot(*self.raw_center(cc, rr))
            xs, ys = self._hex_polygon_rotated(cx, cy)
            if polygon_contains(xs, ys, px, py):
                return self.raw_center(cc, rr)
        return self.raw_center(c, r)

    def snap(self, x: int, y: int) -> Point:
        """Snap to the containing hex centre (edges/corners snapping is not reproduced)."""
        if not self.snap_to:
            return (x, y)
        return self._snap_to_hex(x, y)


@dataclass
class SquareGrid(NumberedGrid):
    """`SquareGrid` (spec §6.6): cells of dx x dy, (x0, y0) the centre of cell (0, 0)."""

    dx: float = 48.0
    dy: float = 48.0
    x0: int = 24
    y0: int = 24
    snap_to: bool = True
    edges_legal: bool = False
    corners_legal: bool = False
    numbering: SquareGridNumbering | None = None
    container_size: tuple[int, int] | None = None
    unknown_numbering: str | None = None

    def _max_rows(self) -> int:
        return java_int(self._size()[1] / self.dy + 0.5)

    def _max_columns(self) -> int:
        return java_int(self._size()[0] / self.dx + 0.5)

    def column_row(self, x: int, y: int) -> tuple[int, int]:
        numbering = self.numbering or SquareGridNumbering()
        col = math.floor((x - self.x0) / self.dx + 0.5)
        row = java_int((y - self.y0) / self.dy + 0.5)  # truncation, not floor (spec §6.6)
        if numbering.h_descend:
            col = self._max_columns() - col
        if numbering.v_descend:
            row = self._max_rows() - row
        return col, row

    def center_of(self, col: int, row: int) -> Point:
        numbering = self.numbering or SquareGridNumbering()
        if numbering.v_descend:
            row = self._max_rows() - row
        if numbering.h_descend:
            col = self._max_columns() - col
        # (int)(col*dx) + x0: the cast comes before the origin is added (spec §6.6)
        return (java_int(col * self.dx) + self.x0, java_int(row * self.dy) + self.y0)

    def snap(self, x: int, y: int) -> Point:
        """Cell centre: `x0 + round(2*round((x-x0)/dx)*dx/2)` (edges/corners not reproduced)."""
        if not self.snap_to:
            return (x, y)
        cx = self.x0 + java_round(2 * java_round((x - self.x0) / self.dx) * self.dx / 2)
        cy = self.y0 + java_round(2 * java_round((y - self.y0) / self.dy) * self.dy / 2)
        return (cx, cy)


@dataclass(frozen=True)
class Region:
    """A named point of a RegionGrid: VASSAL names a piece by the nearest one (spec §6.8)."""

    name: str
    x: int
    y: int


def _java_int(value: int) -> int:
    """Wrap to a signed 32-bit int, as Java's `int` arithmetic does on overflow."""
    value &= 0xFFFFFFFF
    return value - 0x100000000 if value & 0x80000000 else value


_INDEX_COORDINATE_LIMIT = 16_000  # |x|, |y| below this: squared distances stay under 2**31 (no wrap)


class _RegionIndex:
    """Regions bucketed in square cells, for the nearest region without visiting every region.

    Why: a region grid of a few hundred named points is walked once per piece located on it
    (issue 15). The answer is the walk's: among regions at the least squared distance, the
    one first in HashMap order. Cells are searched in rings around the point's cell; after ring
    k every region not yet seen is at least k cell widths away, so the search stops once the
    best distance found is strictly less than that."""

    __slots__ = ("bottom", "cells", "columns", "left", "right", "rows", "size", "top")

    def __init__(self, left: int, top: int, right: int, bottom: int, size: int) -> None:
        self.left, self.top, self.right, self.bottom, self.size = left, top, right, bottom, size
        self.columns = (right - left) // size + 1
        self.rows = (bottom - top) // size + 1
        self.cells: dict[tuple[int, int], list[tuple[int, Region]]] = {}

    @classmethod
    def build(cls, regions: list[Region]) -> _RegionIndex | bool:
        """The index, or False when the walk must answer (few regions, or coordinates that wrap)."""
        if len(regions) < 16:
            return False
        xs = [region.x for region in regions]
        ys = [region.y for region in regions]
        left, right, top, bottom = min(xs), max(xs), min(ys), max(ys)
        if max(-left, right, -top, bottom) >= _INDEX_COORDINATE_LIMIT:
            return False
        area = max(1, (right - left + 1) * (bottom - top + 1))
        size = max(1, math.isqrt(area // len(regions)) + 1)  # about one region per cell
        index = cls(left, top, right, bottom, size)
        for order, region in enumerate(regions):
            cell = ((region.x - left) // size, (region.y - top) // size)
            index.cells.setdefault(cell, []).append((order, region))
        return index

    def covers(self, x: int, y: int) -> bool:
        return self.left <= x <= self.right and self.top <= y <= self.bottom

    def nearest(self, x: int, y: int) -> Region | None:
        size, cells = self.size, self.cells
        column, row = (x - self.left) // size, (y - self.top) // size
        best: tuple[int, int, Region] | None = None  # (distance, HashMap order, region)
        reach = max(self.columns, self.rows)
        for ring in range(reach + 1):
            if best is not None and best[0] < (ring - 1) * (ring - 1) * size * size:
                break  # ring `ring` and beyond are at least (ring - 1) cells away
            for cell in _ring_cells(column, row, ring):
                for order, region in cells.get(cell, ()):
                    dx, dy = x - region.x, y - region.y
                    candidate = (dx * dx + dy * dy, order, region)
                    if best is None or candidate[:2] < best[:2]:
                        best = candidate
        return None if best is None else best[2]


def _ring_cells(column: int, row: int, ring: int) -> list[tuple[int, int]]:
    """The cells at Chebyshev distance `ring` from (column, row)."""
    if ring == 0:
        return [(column, row)]
    top, bottom = row - ring, row + ring
    cells = [(c, top) for c in range(column - ring, column + ring + 1)]
    cells += [(c, bottom) for c in range(column - ring, column + ring + 1)]
    cells += [(column - ring, r) for r in range(top + 1, bottom)]
    cells += [(column + ring, r) for r in range(top + 1, bottom)]
    return cells


@dataclass
class RegionGrid(Grid):
    """`RegionGrid` (spec §6.8): the nearest named point wins (strictly smaller squared distance).

    VASSAL keeps the regions in a `HashMap<Point, Region>` keyed by origin and `doSnap` walks its
    `keySet()`: a region put at an origin already there replaces the earlier one (in the earlier
    one's place), and of two origins at exactly the same distance the one the HashMap visits first
    wins. That order is worked out by `javahash.iteration_order` (docs/locations.md).
    """

    regions: list[Region] = field(default_factory=list)
    snap_to: bool = True
    container_size: tuple[int, int] | None = None
    _order: list[Region] | None = field(default=None, init=False, repr=False, compare=False)
    _index: _RegionIndex | bool | None = field(default=None, init=False, repr=False, compare=False)

    def distinct(self) -> list[Region]:
        """The regions VASSAL keeps, in its HashMap's iteration order: one per origin, the last put."""
        if self._order is None:
            by_point: dict[Point, Region] = {}
            for region in self.regions:
                by_point[(region.x, region.y)] = region
            self._order = [by_point[point] for point in iteration_order(by_point)]
        return self._order

    def nearest(self, x: int, y: int) -> Region | None:
        """`RegionGrid.doSnap`: int arithmetic (wrapping on overflow, as Java's), first strict minimum.

        Answered from a bucket index (`_RegionIndex`) where it gives the same region as the walk:
        the point within the regions' bounding box, every coordinate small enough that no squared
        distance wraps. Elsewhere, the walk itself."""
        if self._index is None:
            self._index = _RegionIndex.build(self.distinct())
        index = self._index
        if index is not False and index.covers(x, y):
            return index.nearest(x, y)
        return self._walk(x, y)

    def _walk(self, x: int, y: int) -> Region | None:
        """`doSnap` literally: every region in HashMap order, the first strictly nearest kept."""
        best: Region | None = None
        best_distance = 0
        for region in self.distinct():
            dx, dy = x - region.x, y - region.y
            distance = dx * dx + dy * dy
            if distance > 0x7FFFFFFF:
                distance = _java_int(_java_int(dx * dx) + _java_int(dy * dy))
            if best is None or distance < best_distance:
                best, best_distance = region, distance
        return best

    def location_name(self, x: int, y: int, fallback: PropertyLookup | None = None) -> str | None:
        region = self.nearest(x, y)
        return None if region is None else region.name

    def location(self, name: str) -> Point | None:
        """`RegionGrid.findRegion`: the first region of that name in HashMap order."""
        for region in self.distinct():
            if region.name == name:
                return (region.x, region.y)
        return None

    def snap(self, x: int, y: int) -> Point:
        region = self.nearest(x, y)
        if not self.snap_to or region is None:
            return (x, y)
        return (region.x, region.y)


@dataclass
class Zone:
    """`Zone` (spec §6.7): a polygon in board pixels with its own name format and optional grid."""

    name: str
    xs: list[int] = field(default_factory=list)
    ys: list[int] = field(default_factory=list)
    location_format: str = "$name$"
    use_parent_grid: bool = False
    grid: Grid | None = None
    properties: dict[str, str] = field(default_factory=dict)
    parent: ZonedGrid | None = field(default=None, repr=False)

    @staticmethod
    def parse_path(path: str) -> tuple[list[int], list[int]]:
        """`PolygonEditor.reset`: `x1,y1;x2,y2;...`, trimmed, bad pairs skipped."""
        xs: list[int] = []
        ys: list[int] = []
        for pair in path.split(";"):
            parts = pair.split(",")
            if len(parts) != 2:
                continue
            x, y = java_parse_int(parts[0].strip()), java_parse_int(parts[1].strip())
            if x is None or y is None:
                continue  # Integer.parseInt fails: VASSAL skips the pair too
            xs.append(x)
            ys.append(y)
        return xs, ys

    @property
    def points(self) -> list[Point]:
        return list(zip(self.xs, self.ys, strict=True))

    def bounds(self) -> tuple[int, int, int, int]:
        """`Polygon.getBounds()`: (x, y, width, height); all zero for an empty polygon."""
        if not self.xs:
            return (0, 0, 0, 0)
        return (min(self.xs), min(self.ys), max(self.xs) - min(self.xs), max(self.ys) - min(self.ys))

    def contains(self, x: float, y: float) -> bool:
        return polygon_contains(self.xs, self.ys, x, y)

    def effective_grid(self) -> Grid | None:
        if self.use_parent_grid:
            return self.parent.background if self.parent is not None else None
        return self.grid

    def name_reads_point(self) -> bool:
        """Whether `location_name` can differ between two points of the zone: only through
        `$gridLocation$` of a zone with a grid. A format naming other properties than `name` and
        `gridLocation` counts as reading the point too (its values are asked of the fallback, which
        callers may change), so a caller may keep the name of a zone for which this is False."""
        tokens = _format_tokens(self.location_format)
        last = len(tokens) - 1
        for index in range(1, last, 2):  # the property names (an unclosed last one is literal)
            token = tokens[index]
            if token and token != "name" and (token != "gridLocation" or self.effective_grid() is not None):
                return True
        return False

    def location_name(self, x: int, y: int, fallback: PropertyLookup | None = None) -> str:
        grid = self.effective_grid()
        grid_location = grid.location_name(x, y, fallback) if grid is not None else None

        def zone_first(key: str) -> str | None:
            # Zone.getProperty: the zone's own ZoneProperty values first, then the map's/module's.
            if key in self.properties:
                return self.properties[key]
            return fallback(key) if fallback is not None else None

        return format_string(
            self.location_format, {"name": self.name, "gridLocation": grid_location}, zone_first
        )

    def location(self, name: str) -> Point | None:
        """`Zone.getLocation`: match the format; grid part via the grid, else the polygon's mean."""
        tokens = decode(self.location_format, "$")
        regex: list[str] = []
        groups = 0
        is_property = True
        grid = self.effective_grid()
        for index, token in enumerate(tokens):
            is_property = not is_property
            if not token:
                continue
            if not is_property or index == len(tokens) - 1:
                regex.append(re.escape(token))
            elif token == "name":
                regex.append(re.escape(self.name))
            elif token == "gridLocation" and grid is not None:
                regex.append("(.*)")
                groups += 1
        if not regex:
            return None
        match = re.fullmatch("".join(regex), name)
        if match is None:
            return None
        if groups and grid is not None:
            point = grid.location(match.group(groups))
            if point is None or not self.contains(*point):
                return None
            return point
        if not self.xs:
            return None
        px = java_int(sum(self.xs) / len(self.xs))
        py = java_int(sum(self.ys) / len(self.ys))
        if not self.contains(px, py):
            return (self.xs[0], self.ys[0])  # concave polygon: VASSAL falls back to the first point
        return (px, py)

    def snap(self, x: int, y: int) -> Point:
        grid = self.effective_grid()
        return grid.snap(x, y) if grid is not None else (x, y)


@dataclass
class ZonedGrid(Grid):
    """`ZonedGrid`: zones in build order over an optional background grid (spec §6.7)."""

    zones: list[Zone] = field(default_factory=list)
    background: Grid | None = None
    container_size: tuple[int, int] | None = None
    _index: _ZoneIndex | None = field(default=None, init=False, repr=False, compare=False)

    def zone_at(self, x: int, y: int) -> Zone | None:
        """The first zone in build order whose polygon holds the point (`ZonedGrid.findZone`).

        Through a bucket index of the zones' bounding boxes (`_ZoneIndex`, made again when the
        zone list changes): a point is tested against the few zones whose boxes reach its
        bucket, in build order, so the answer is the linear scan's."""
        index = self._index
        if index is None or index.zone_count != len(self.zones):
            index = self._index = _ZoneIndex(self.zones)
        return index.find(x, y)

    def location_name(self, x: int, y: int, fallback: PropertyLookup | None = None) -> str | None:
        zone = self.zone_at(x, y)
        if zone is not None:
            return zone.location_name(x, y, fallback)
        if self.background is not None:
            return self.background.location_name(x, y, fallback)
        return None

    def location(self, name: str) -> Point | None:
        for zone in self.zones:
            point = zone.location(name)
            if point is not None:
                return point
        if self.background is not None:
            return self.background.location(name)
        return None

    def snap(self, x: int, y: int) -> Point:
        zone = self.zone_at(x, y)
        if zone is not None and zone.effective_grid() is not None:
            return zone.snap(x, y)
        if self.background is not None:
            return self.background.snap(x, y)
        return (x, y)


def _is_rectangle(xs: Sequence[int], ys: Sequence[int], box: tuple[int, int, int, int]) -> bool:
    """Whether a polygon is its own bounding box traced once: four distinct corners joined by
    axis-parallel edges. Then `polygon_contains` is the box test (left/top edges in, right/bottom
    out), which most zones (boxes of a chart) need no more than."""
    if len(xs) != 4 or len(ys) != 4:
        return False
    min_x, max_x, min_y, max_y = box
    if min_x == max_x or min_y == max_y:
        return False
    if set(zip(xs, ys, strict=True)) != {(min_x, min_y), (max_x, min_y), (max_x, max_y), (min_x, max_y)}:
        return False
    return all(xs[i] == xs[i - 1] or ys[i] == ys[i - 1] for i in range(4))


_PointTest = Callable[[float, float], bool]


def _point_test(zone: Zone, box: tuple[int, int, int, int]) -> _PointTest | None:
    """How `_ZoneIndex.find` tests a point inside a zone's box: None for a rectangle (the box test
    is the whole answer), else the zone's `EdgeBands`, else (too many edges to band) its plain test."""
    if _is_rectangle(zone.xs, zone.ys, box):
        return None
    bands = EdgeBands.build(zone.xs, zone.ys)
    return bands.contains if bands is not None else zone.contains


class _ZoneIndex:
    """The zones of a ZonedGrid by bucket of board pixels: each bucket lists, in build order, the
    zones whose bounding box reaches it.

    Why: a chart board has dozens of zones and every located piece asked each in turn (a bounding
    box test each, a polygon test for the one that holds it): most of locating a big save. The
    first zone of a bucket's list that holds the point is the first in build order that does, since
    a zone not in the list cannot hold it (its box does not reach the bucket). Bounded: about four
    buckets a zone, and where the boxes overlap so much that the lists would hold more than
    `_ZONE_INDEX_ENTRIES` per zone, one bucket (the plain scan in build order)."""

    __slots__ = ("buckets", "columns", "left", "rows", "side", "top", "zone_count")

    def __init__(self, zones: Sequence[Zone]) -> None:
        self.zone_count = len(zones)
        boxes = []
        for zone in zones:
            box = _bounding_box(zone.xs, zone.ys)
            if box[0] < box[1] and box[2] < box[3]:  # an empty box holds no point
                boxes.append((*box, zone, _point_test(zone, box)))
        self.left = self.top = 0
        self.side = self.columns = self.rows = 1
        self.buckets: list[list[tuple[int, int, int, int, Zone, _PointTest | None]]] = [boxes]
        if len(boxes) < 2:
            return
        left, right = min(b[0] for b in boxes), max(b[1] for b in boxes)
        top, bottom = min(b[2] for b in boxes), max(b[3] for b in boxes)
        side = max(1, math.isqrt((right - left) * (bottom - top) // (4 * len(boxes))) + 1)
        columns, rows = (right - left) // side + 1, (bottom - top) // side + 1
        while columns * rows > 8 * len(boxes) + 64:  # a long thin spread: fewer, longer buckets
            side *= 2
            columns, rows = (right - left) // side + 1, (bottom - top) // side + 1
        spans = [((b[0] - left) // side, (b[1] - left) // side, (b[2] - top) // side, (b[3] - top) // side)
                 for b in boxes]
        entries = sum((c1 - c0 + 1) * (r1 - r0 + 1) for c0, c1, r0, r1 in spans)
        if entries > _ZONE_INDEX_ENTRIES * len(boxes):
            return  # boxes piled on each other: the scan is as good
        buckets: list[list[tuple[int, int, int, int, Zone, _PointTest | None]]] = [
            [] for _ in range(columns * rows)]
        for box, (c0, c1, r0, r1) in zip(boxes, spans, strict=True):
            for row in range(r0, r1 + 1):
                for column in range(c0, c1 + 1):
                    buckets[row * columns + column].append(box)
        self.left, self.top, self.side, self.columns, self.rows = left, top, side, columns, rows
        self.buckets = buckets

    def find(self, x: float, y: float) -> Zone | None:
        column = int((x - self.left) // self.side)
        row = int((y - self.top) // self.side)
        if column < 0 or row < 0 or column >= self.columns or row >= self.rows:
            if self.columns > 1 or self.rows > 1:
                return None  # outside every box
            column = row = 0
        for min_x, max_x, min_y, max_y, zone, test in self.buckets[row * self.columns + column]:
            if min_x <= x < max_x and min_y <= y < max_y and (test is None or test(x, y)):
                return zone
        return None


_ZONE_INDEX_ENTRIES = 64  # bucket entries a zone may take before the index gives way to the scan
# (and at most 8 buckets a zone, plus 64: memory follows the zone count, not the board's pixels)


# --------------------------------------------------------------------------------------------
# Fast naming of board points (MapLayout.place_at)
# --------------------------------------------------------------------------------------------

MAX_TABLE_SIDE = 1 << 16  # longest board side (pixels) a cell namer keeps per-pixel tables for
MAX_NAMER_NAMES = 1 << 16  # cell names a namer keeps; past that, names are formatted each time

CellNamer = Callable[[int, int], str]


def cell_namer(
    grid: Grid,
    width: int,
    height: int,
    flipped: bool,
    fallback: PropertyLookup | None = None,
) -> tuple[CellNamer, bool] | None:
    """A function naming the points of a plain hex or square grid on a board of known size, the same
    names as `grid.location_name` gives, and whether it takes its two offsets swapped.

    The namer takes the offsets (0 <= ox < width, 0 <= oy < height) of a point from the board's
    top-left corner in the map (board-local when not `flipped`; `flipped`: the board is reversed, so
    the local point is (width - ox, height - oy)); a sideways hex grid's namer takes (oy, ox).

    Why exact: a point's numbering column depends only on its coordinate along the columns, and its
    row only on the other coordinate and the parity of the raw column (`HexGrid.column_row`,
    `SquareGrid.column_row`). Points are integers on a board of known size, so each of those is a
    table over the board's pixels, each entry filled (the first time a point needs it) by the same
    expressions in the same order as `column_row`, with the descending and stagger adjustments of
    that axis folded in; the name of a (col, row) is formatted once. None where this does not apply
    (other grid classes or numbering classes, no numbering, a descending numbering whose size is
    unknown, a board side over MAX_TABLE_SIDE): the caller asks the grid itself. The grid's values
    are read when the namer is made: it is for the grids of a loaded module, which do not change
    (as `MapLayout` keeps its boards' boxes)."""
    numbering = getattr(grid, "numbering", None)
    if numbering is None or width <= 0 or height <= 0:
        return None
    if max(width, height) > MAX_TABLE_SIDE:
        return None
    kind = type(grid)
    if kind is HexGrid and type(numbering) in (HexGridNumbering, ObliqueHexGridNumbering):
        sideways = grid.sideways  # type: ignore[attr-defined]
    elif kind is SquareGrid and type(numbering) in (SquareGridNumbering, RegularGridNumbering):
        sideways = False
    else:
        return None
    x0, y0, dx, dy = grid.x0, grid.y0, grid.dx, grid.dy  # type: ignore[attr-defined]
    h_descend, v_descend = numbering.h_descend, numbering.v_descend
    try:
        max_rows = grid._max_rows() if v_descend else 0  # type: ignore[attr-defined]
        max_columns = grid._max_columns() if h_descend else 0  # type: ignore[attr-defined]
    except GridSizeUnknown:
        return None
    # the offsets along the columns and along the rows: the pixels each table covers
    column_side, row_side = (height, width) if sideways else (width, height)
    column_pixels = range(column_side, 0, -1) if flipped else range(column_side)
    row_pixels = range(row_side, 0, -1) if flipped else range(row_side)
    floor = math.floor
    hex_grid = kind is HexGrid
    if hex_grid:
        col_descends, col_max = (v_descend, max_rows) if sideways else (h_descend, max_columns)
        row_descends, row_max = (h_descend, max_columns) if sideways else (v_descend, max_rows)
        step = (-1 if row_descends else 1) if numbering.stagger else 0  # type: ignore[attr-defined]
    else:
        col_descends, col_max, row_descends, row_max, step = h_descend, max_columns, v_descend, max_rows, 0
    slant = numbering.slant if type(numbering) is ObliqueHexGridNumbering else None  # type: ignore[attr-defined]
    format_name = numbering.format_name
    half = dy / 2
    # per pixel, filled when a point first needs it (a save's pieces meet few of a board's pixels:
    # ForThePeople's two 2,660 x 530 boards hold 14): a column pixel's (rows table, column, names),
    # and each rows table's row for a row pixel
    columns: list[tuple[list[int | None], bool, int, dict[int, str]] | None] = [None] * column_side
    even_rows: list[int | None] = [None] * row_side
    odd_rows: list[int | None] = [None] * row_side if hex_grid else even_rows
    by_raw: dict[int, tuple[list[int | None], bool, int, dict[int, str]]] = {}
    stored = [0]

    def column_at(offset: int) -> tuple[list[int | None], bool, int, dict[int, str]]:
        """The expressions of `column_row` for one column pixel, in their order."""
        raw = floor((column_pixels[offset] - x0) / dx + 0.5)
        entry = by_raw.get(raw)
        if entry is None:
            odd = hex_grid and raw % 2 != 0
            col = col_max - raw if col_descends else raw
            entry = by_raw[raw] = (odd_rows if odd else even_rows, odd, col, {})
        columns[offset] = entry
        return entry

    def row_at(rows: list[int | None], odd: bool, offset: int) -> int:
        """`column_row`'s row for one row pixel of an even (or, on a hex grid, odd) column."""
        pixel = row_pixels[offset]
        if not hex_grid:
            row = int((pixel - y0) / dy + 0.5)  # truncation (spec §6.6)
        elif odd:
            row = floor((pixel - y0 - half) / dy + 0.5)
        else:
            row = floor((pixel - y0) / dy + 0.5)
        if row_descends:
            row = row_max - row
        if odd and step:
            row += step
        rows[offset] = row
        return row

    def name_at(column_offset: int, row_offset: int) -> str:
        entry = columns[column_offset]
        if entry is None:
            entry = column_at(column_offset)
        rows, odd, col, names = entry
        row = rows[row_offset]
        if row is None:
            row = row_at(rows, odd, row_offset)
        if slant is not None:
            row = slant(row, col)
        name = names.get(row)
        if name is None:
            name = format_name(row, col, fallback)
            if stored[0] < MAX_NAMER_NAMES:
                stored[0] += 1
                names[row] = name
        return name

    return name_at, sideways
