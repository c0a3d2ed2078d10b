"""Every named cell (hex, square, zone, region) of a module's maps, drawn from Adjutant's own geometry.

Why one enumeration: the map editor (`adjutant pack edit`) draws each hex with the name VASSAL shows,
`adjutant pack check --module` verifies that every hex id a pack uses names a real location, and
`adjutant pack scaffold --base` reads the module's numbering from real names. All three must agree
with `adjutant pieces`, so names come from `MapLayout.location_name` at each cell's centre (boards
placed as VASSAL places them, each board's own numbering and zone formats), outlines from the grids.

Capped: a map with more than MAX_CELLS cells (a tiny dx on a huge board) stops there and says so.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field

from vassal_parser import grids
from vassal_parser.layout import OFFBOARD, MapLayout, PlacedBoard
from vassal_parser.module import MapDef, Module

MAX_CELLS = 60_000  # per map: AE's two maps hold ~6,000 hexes; a real module stays far below this
Point = tuple[int, int]


@dataclass(frozen=True)
class Cell:
    """One named cell in map pixels: its VASSAL location name, board, kind, centre and outline."""

    name: str
    board: str
    kind: str  # "hex" | "square" | "zone" | "region"
    center: Point
    points: tuple[Point, ...]

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "board": self.board, "kind": self.kind, "center": list(self.center),
                "points": [list(p) for p in self.points]}


@dataclass
class MapCells:
    """The cells of one map (default board selection), and what could not be enumerated."""

    map_id: str
    size: Point | None
    boards: list[PlacedBoard]
    cells: list[Cell] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def names(self) -> set[str]:
        return {c.name for c in self.cells}


def _hex_cells(grid: grids.HexGrid, width: int, height: int) -> Iterator[tuple[Point, list[Point], str]]:
    """Raw hexes whose centre lies on the board (width x height, board pixels)."""
    w, h = (height, width) if grid.sideways else (width, height)
    c_lo = math.floor(-grid.x0 / grid.dx) - 1
    c_hi = math.ceil((w - grid.x0) / grid.dx) + 1
    r_lo = math.floor(-grid.y0 / grid.dy) - 1
    r_hi = math.ceil((h - grid.y0) / grid.dy) + 1
    for c in range(c_lo, c_hi + 1):
        for r in range(r_lo, r_hi + 1):
            cx, cy = grid.raw_center(c, r)
            if 0 <= cx < width and 0 <= cy < height:
                yield (cx, cy), grid.hex_polygon(c, r), "hex"


def _square_cells(grid: grids.SquareGrid, width: int, height: int
                  ) -> Iterator[tuple[Point, list[Point], str]]:
    half_x, half_y = grid.dx / 2, grid.dy / 2
    for c in range(math.floor(-grid.x0 / grid.dx) - 1, math.ceil((width - grid.x0) / grid.dx) + 1):
        for r in range(math.floor(-grid.y0 / grid.dy) - 1, math.ceil((height - grid.y0) / grid.dy) + 1):
            cx, cy = grids.java_int(c * grid.dx) + grid.x0, grids.java_int(r * grid.dy) + grid.y0
            if 0 <= cx < width and 0 <= cy < height:
                outline = [(grids.java_int(cx - half_x), grids.java_int(cy - half_y)),
                           (grids.java_int(cx + half_x), grids.java_int(cy - half_y)),
                           (grids.java_int(cx + half_x), grids.java_int(cy + half_y)),
                           (grids.java_int(cx - half_x), grids.java_int(cy + half_y))]
                yield (cx, cy), outline, "square"


def _grid_cells(grid: grids.Grid | None, width: int, height: int
                ) -> Iterator[tuple[Point, list[Point], str]]:
    if isinstance(grid, grids.HexGrid) and grid.numbering is not None:
        yield from _hex_cells(grid, width, height)
    elif isinstance(grid, grids.SquareGrid) and grid.numbering is not None:
        yield from _square_cells(grid, width, height)
    elif isinstance(grid, grids.RegionGrid):
        for region in grid.distinct():
            yield (region.x, region.y), [], "region"
    elif isinstance(grid, grids.ZonedGrid):
        for zone in grid.zones:
            inner = zone.effective_grid()
            x0, y0, zw, zh = zone.bounds()
            x1, y1 = x0 + zw, y0 + zh
            if isinstance(inner, (grids.HexGrid, grids.SquareGrid)) and inner.numbering is not None:
                for center, outline, kind in _grid_cells(inner, width, height):
                    if x0 <= center[0] <= x1 and y0 <= center[1] <= y1 and zone.contains(*center):
                        yield center, outline, kind
            else:
                cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
                if not zone.contains(cx, cy):
                    cx, cy = zone.points[0] if zone.points else (cx, cy)
                yield (cx, cy), list(zone.points), "zone"
        if grid.background is not None:
            for center, outline, kind in _grid_cells(grid.background, width, height):
                if grid.zone_at(*center) is None:
                    yield center, outline, kind


def map_cells(map_def: MapDef) -> MapCells:
    """Every named cell of the map as its default board selection places the boards."""
    layout = MapLayout(map_def)
    result = MapCells(map_def.identifier, layout.size, list(layout.boards), problems=list(layout.problems))
    seen: set[tuple[str, Point]] = set()
    for placed in layout.boards:
        size = placed.board.size
        grid = placed.board.grid
        if size is None and isinstance(grid, grids.ZonedGrid) and grid.zones:
            # No image to size the board: its zones still say where they are (a bare buildFile).
            size = (max(max(z.xs) for z in grid.zones if z.xs) + 1,
                    max(max(z.ys) for z in grid.zones if z.ys) + 1)
        if size is None:
            if placed.board.grid is not None:
                result.problems.append(f"board {placed.name!r}: size unknown (no image in the module), "
                                       "its cells cannot be drawn")
            continue
        try:
            for center, outline, kind in _grid_cells(placed.board.grid, *size):
                gx, gy = placed.global_point(*center)
                name = layout.location_name(gx, gy)
                if not name or name == OFFBOARD or (name, (gx, gy)) in seen:
                    continue
                seen.add((name, (gx, gy)))
                points = tuple(placed.global_point(px, py) for px, py in outline)
                result.cells.append(Cell(name, placed.name, kind, (gx, gy), points))
                if len(result.cells) >= MAX_CELLS:
                    result.problems.append(f"more than {MAX_CELLS} cells: the rest are not listed")
                    return result
        except grids.GridSizeUnknown as exc:
            result.problems.append(f"board {placed.name!r}: {exc}")
    return result


def module_cells(module: Module) -> dict[str, MapCells]:
    """map id -> its cells, for every map of the module."""
    return {m.identifier: map_cells(m) for m in module.maps}
