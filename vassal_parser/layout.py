"""One module map with the boards a game chose: map pixels -> board, zone, location name, and back.

Why over 500 lines: `MapLayout` is one object: board placement, zones, location names and their inverse
`point_for` all read the same placed boards; the rest are its small helpers.

Why separate from `module.py`: the same map lays out differently per game (the save's
BoardPicker command picks boards, their cells and which are reversed), and every piece's
`LocationName` depends on that layout (spec §6.2, §5.5).

Public API:
    MapLayout(map_def, board_selection=None, properties=None)
        .boards -> list[PlacedBoard]; .size -> (w, h) | None; .serial (this layout's number, never reused)
        .board_at(x, y) -> PlacedBoard | None
        .zone_at(x, y) -> Zone | None            (CurrentZone: no reversed flip)
        .location_name(x, y) -> str | None       (DrawPile at the exact point, else grid, else "offboard";
                                                  None: the name needs a board size that is unknown)
        .place_at(x, y) -> (board_at, zone_at, location_name)   (the three at once, for speed)
        .names_at(x, y) -> (board name, zone name, location_name)   (what a located piece records)
        .point_for(name) -> (x, y) | None        (inverse: a location name -> map pixels)
        .snap(x, y) -> (x, y)
        .setup_stack_position(setup_stack) -> (x, y) | None
        .cell_polygon(x, y) -> list[(x, y)] | None   (hex/square/zone outline in map pixels)
        .draw_pile_positions -> dict[name, (x, y)]
        .problems -> list[str]   (what could not be computed: boards of unknown size (once each, naming
                                  the image), unplaceable boards, non-core numberings)
    OFFBOARD
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

from vassal_parser import grids
from vassal_parser.module import BoardDef, BoardSelection, MapDef, SetupStackDef, parse_board_picker

OFFBOARD = "offboard"  # VASSAL's English `Map.offboard` resource string
MAX_CELL_NAMES = 1 << 16  # cell names kept per layout (`MapLayout._cell_name`); emptied when full
MAX_POINT_NAMES = 1 << 14  # points `names_at` keeps (those no plain grid names; ~3 MB); then emptied
_NUMBERED_NAME = grids.NumberedGrid.location_name
_SERIALS = itertools.count(1)  # each MapLayout's own number (`MapLayout.serial`)
_PLAIN, _SWAPPED, _WHOLE = 0, 1, 2  # how `place_at` calls a board's namer (`MapLayout._fast_entry`)


@dataclass
class PlacedBoard:
    """A board at its place in the map: origin in map pixels, and whether it is reversed."""

    board: BoardDef
    reversed: bool
    col: int
    row: int
    x: int = 0
    y: int = 0

    @property
    def name(self) -> str:
        return self.board.name

    def contains(self, x: int, y: int) -> bool:
        """`Rectangle.contains`; a board of unknown size extends without limit right and down."""
        if x < self.x or y < self.y:
            return False
        size = self.board.size
        if size is None:
            return True
        return x < self.x + size[0] and y < self.y + size[1]

    def local(self, x: int, y: int) -> tuple[int, int]:
        """`Board.localCoordinates`: map -> board pixels, flipped when the board is reversed."""
        lx, ly = x - self.x, y - self.y
        if self.reversed:
            size = self._known_size()
            lx, ly = size[0] - lx, size[1] - ly
        return lx, ly

    def global_point(self, lx: int, ly: int) -> tuple[int, int]:
        """`Board.globalCoordinates`: the inverse of `local`."""
        if self.reversed:
            size = self._known_size()
            lx, ly = size[0] - lx, size[1] - ly
        return lx + self.x, ly + self.y

    def _known_size(self) -> tuple[int, int]:
        size = self.board.size
        if size is None:
            raise grids.GridSizeUnknown(
                f"board {self.name!r} is reversed but its size is unknown (its image is not in the module)"
            )
        return size


class MapLayout:
    """A `MapDef` with chosen boards placed as `Map.setBoardBoundaries` places them (spec §6.2)."""

    def __init__(
        self,
        map_def: MapDef,
        board_selection: BoardSelection | None = None,
        properties: Callable[[str], str | None] | None = None,
    ) -> None:
        self.map_def = map_def
        self._properties = properties
        # Never another layout's, in this process: a memo key naming the layout a piece was located
        # on (`Game._placed`) hashes one int, not the map id and every chosen board (~1.8 M of a
        # 5,000-piece first read's instructions).
        self.serial = next(_SERIALS)
        if board_selection is None:
            board_selection = self.default_selection(map_def)
        self.problems: list[str] = []
        self._cell_names: dict[tuple[int, int, int], str] = {}  # (grid id, col, row) -> name
        self._zone_names: dict[int, str] = {}  # zone id -> its name, for zones naming no point
        self.boards: list[PlacedBoard] = []
        for name, reversed_, col, row in board_selection:
            board = map_def.board(name)
            if board is None:
                continue  # VASSAL skips boards the module no longer has
            self.boards.append(PlacedBoard(board, reversed_, col, row))
        self._place()
        self.draw_pile_positions = self._draw_piles()
        # What `board_at` and `deck_at` compare, worked out once: every located piece asks both.
        self._board_boxes = [
            (placed, placed.x, placed.y, *((placed.x + placed.board.size[0], placed.y + placed.board.size[1])
                                           if placed.board.size is not None else (None, None)))
            for placed in self.boards]
        self._deck_points: dict[tuple[int, int], str] = {}
        for name, position in self.draw_pile_positions.items():
            self._deck_points.setdefault(position, name)  # the first pile at a point answers
        self._fast = [self._fast_entry(box) for box in self._board_boxes]
        # `names_at`'s boxes: a plain grid's namer and whether it takes (y, x); no namer: `place_at`
        self._named = [(left, top, right, bottom, placed.name, name_at, how == _SWAPPED)
                       if how in (_PLAIN, _SWAPPED) else (left, top, right, bottom, None, None, False)
                       for left, top, right, bottom, placed, name_at, how in self._fast]
        self._point_names: dict[tuple[int, int], tuple[str | None, str | None, str | None]] = {}

    @staticmethod
    def default_selection(map_def: MapDef) -> BoardSelection:
        """No save selection: the BoardPicker `<setup>`, else the only board (BoardPicker rules)."""
        if map_def.default_setup:
            return parse_board_picker(map_def.default_setup)[1]
        if len(map_def.boards) == 1:
            return [(map_def.boards[0].name, False, 0, 0)]
        return []

    def _place(self) -> None:
        """Origins as `Map.setBoardBoundaries` computes them; a board after one of unknown size cannot be
        placed and is left out (recorded in `problems`) rather than guessed."""
        widths: dict[tuple[int, int], int | None] = {}
        heights: dict[tuple[int, int], int | None] = {}
        for placed in self.boards:
            size = placed.board.size
            widths[(placed.col, placed.row)] = size[0] if size else None
            heights[(placed.col, placed.row)] = size[1] if size else None
        # Empty cells add nothing, so only the occupied cells of a row (column) are summed: the
        # work depends on the number of boards, never on how large a column or row number is
        # (`range(col)` over a save's column 100000000 took 23 s and 0.9 GB).
        row_cells: dict[int, list[tuple[int, int | None]]] = {}
        col_cells: dict[int, list[tuple[int, int | None]]] = {}
        for (col, row), width in widths.items():
            row_cells.setdefault(row, []).append((col, width))
            col_cells.setdefault(col, []).append((row, heights[(col, row)]))
        kept: list[PlacedBoard] = []
        for placed in self.boards:
            before_x = [width for col, width in row_cells[placed.row] if 0 <= col < placed.col]
            before_y = [height for row, height in col_cells[placed.col] if 0 <= row < placed.row]
            if None in before_x or None in before_y:
                self._problem(
                    f"map {self.map_def.identifier!r}: board {placed.name!r} cannot be placed, a board "
                    "before it has no known size (its image is not in the module); pass the .vmod"
                )
                continue
            placed.x = self.map_def.edge_width + sum(before_x)  # type: ignore[arg-type]
            placed.y = self.map_def.edge_height + sum(before_y)  # type: ignore[arg-type]
            kept.append(placed)
        self.boards = kept
        for placed in kept:
            if placed.board.size is None:
                self._problem(_unknown_size_problem(self.map_def.identifier, placed.board))
            grid = placed.board.grid
            unknown = _unknown_numberings(grid) if grid is not None else []
            for class_name in unknown:
                self._problem(
                    f"map {self.map_def.identifier!r}: board {placed.name!r} numbers its grid with "
                    f"{class_name}, which is not part of VASSAL; those location names cannot be computed"
                )

    def _problem(self, text: str) -> None:
        if text not in self.problems:
            self.problems.append(text)

    def _draw_piles(self) -> dict[str, tuple[int, int]]:
        """`DrawPile.getPosition`: x, y are relative to the owning board when it is in the map."""
        positions: dict[str, tuple[int, int]] = {}
        for pile in self.map_def.draw_pile_defs:
            x, y = pile.x, pile.y
            owner = next((p for p in self.boards if p.name == pile.owning_board), None)
            if owner is not None:
                x, y = x + owner.x, y + owner.y
            positions.setdefault(pile.name, (x, y))
        return positions

    @property
    def size(self) -> tuple[int, int] | None:
        """Map size: union of boards plus the edge buffer on both sides; None if a size is unknown."""
        right = bottom = 0
        for placed in self.boards:
            size = placed.board.size
            if size is None:
                return None
            right = max(right, placed.x + size[0])
            bottom = max(bottom, placed.y + size[1])
        return right + self.map_def.edge_width, bottom + self.map_def.edge_height

    # --- point -> things ---------------------------------------------------------------------
    def board_at(self, x: int, y: int) -> PlacedBoard | None:
        """`Map.findBoard`: the first selected board whose rectangle holds the point
        (`PlacedBoard.contains`, from the boxes kept at start)."""
        for placed, left, top, right, bottom in self._board_boxes:
            if left <= x and top <= y and (right is None or (x < right and y < bottom)):
                return placed
        return None

    def zone_at(self, x: int, y: int) -> grids.Zone | None:
        """`CurrentZone` (`Map.findZone`): board-relative point, deliberately NOT reversed (§6.7)."""
        placed = self.board_at(x, y)
        if placed is None or not isinstance(placed.board.grid, grids.ZonedGrid):
            return None
        return placed.board.grid.zone_at(x - placed.x, y - placed.y)

    def deck_at(self, x: int, y: int) -> str | None:
        return self._deck_points.get((x, y))

    def location_name(self, x: int, y: int) -> str | None:
        """`Map.locationName` (spec §5.5): DrawPile at the exact point, else the grid, else offboard.

        None when the name depends on a board size the module does not give (a descending
        numbering, a reversed board): unknown, not `offboard` — `problems` names the board's image.
        """
        deck = self.deck_at(x, y)
        if deck is not None:
            return deck
        placed = self.board_at(x, y)
        if placed is not None and placed.board.grid is not None:
            try:
                name = placed.board.grid.location_name(*placed.local(x, y), self._properties)
            except grids.GridSizeUnknown:
                self._problem(_unknown_size_problem(self.map_def.identifier, placed.board))
                return None
            except grids.GridValueError as exc:
                self._problem(f"map {self.map_def.identifier!r}, board {placed.name!r}: {exc}")
                return None
            if name is not None:
                return name
        return OFFBOARD

    def place_at(self, x: int, y: int) -> tuple[PlacedBoard | None, grids.Zone | None, str | None]:
        """(`board_at`, `zone_at`, `location_name`) of one point: `place_at_reference`'s answer, faster.

        Why: every piece of a save is located here, most of them at points never seen before
        (issue 15). The usual point is on a board of known size with a plain hex or square grid
        (or zones over one, board not reversed) and no draw pile there: it is named by the board's
        `grids.cell_namer` (per-pixel tables filled by the grid's own expressions), from boxes
        worked out once. Every other point, and any point whose name cannot be computed (so that
        `problems` is written as before), takes `place_at_reference`.
        """
        if self._deck_points and (x, y) in self._deck_points:
            return self.place_at_reference(x, y)
        for left, top, right, bottom, placed, name_at, how in self._fast:
            if left <= x < right and top <= y < bottom:  # `board_at`: the first board holding it
                if name_at is not None:
                    try:
                        if how == _PLAIN:
                            return placed, None, name_at(x - left, y - top)
                        if how == _SWAPPED:
                            return placed, None, name_at(y - top, x - left)
                        return name_at(x - left, y - top)  # type: ignore[no-any-return]
                    except grids.UNCOMPUTABLE:
                        pass  # the reference answers it and records the problem
                return self.place_at_reference(x, y)
        return None, None, OFFBOARD

    def names_at(self, x: int, y: int) -> tuple[str | None, str | None, str | None]:
        """(board name, zone name, LocationName) of a point: `place_at`'s answer by name, which is
        what `Game._placed` records for every piece.

        Why not `place_at` and then the names: a 5,000-piece first read locates thousands of points
        never seen before; on a plain hex or square grid (most of them) this is one box test and the
        grid's namer, the board's name taken from the box. Every other point (zones, region grids,
        reversed zoned boards, draw piles, uncomputable names) is `place_at`'s answer, kept per point
        (a zone lookup costs more than the table; at most MAX_POINT_NAMES points, then emptied).
        Measured with the other first-read changes of its round (docs/vassal-reader.md, "Fifth
        round"): a 5,000-piece save's position 175 -> 143 M instructions."""
        deck_points = self._deck_points
        if not deck_points or (x, y) not in deck_points:
            for left, top, right, bottom, board_name, name_at, swapped in self._named:
                if left <= x < right and top <= y < bottom:  # `board_at`: the first board holding it
                    if name_at is not None:
                        try:
                            name = name_at(y - top, x - left) if swapped else name_at(x - left, y - top)
                            return board_name, None, name
                        except grids.UNCOMPUTABLE:
                            pass  # `place_at` answers it and records the problem
                    break
            else:
                return None, None, OFFBOARD
        points = self._point_names
        found = points.get((x, y))
        if found is None:
            placed, zone, location = self.place_at(x, y)
            found = (placed.name if placed else None, zone.name if zone else None, location)
            if len(points) >= MAX_POINT_NAMES:
                points.clear()
            points[(x, y)] = found
        return found

    def _fast_entry(self, box: tuple) -> tuple:
        """One board's line of `_fast`: its box (an unknown size reaches without limit), and how its
        points are named: (namer, _PLAIN | _SWAPPED) for a plain hex or square grid (the namer takes
        offsets from the board's corner), (function -> the whole answer, _WHOLE) for a board without
        a grid or with zones (not reversed; of any size when no grid is under the zones), (None,
        None) for `place_at_reference`."""
        placed, left, top, right, bottom = box
        if right is None:
            grid = placed.board.grid
            if isinstance(grid, grids.ZonedGrid) and not placed.reversed and grid.background is None:
                # zones over no grid name a point by the zone alone, which needs no board size
                # (ForThePeople's main map: every piece there was named by the reference before)
                return (left, top, math.inf, math.inf, placed, self._zoned_namer(placed, grid, 0, 0), _WHOLE)
            return (left, top, math.inf, math.inf, placed, None, None)
        width, height = right - left, bottom - top
        grid = placed.board.grid
        entry: tuple = (None, None)
        if grid is None:
            answer = (placed, None, OFFBOARD)
            entry = (lambda _x, _y: answer, _WHOLE)
        elif isinstance(grid, grids.ZonedGrid):
            if not placed.reversed:
                entry = (self._zoned_namer(placed, grid, width, height), _WHOLE)
        else:
            namer = grids.cell_namer(grid, width, height, placed.reversed, self._properties)
            if namer is not None:
                entry = (namer[0], _SWAPPED if namer[1] else _PLAIN)
        return (left, top, right, bottom, placed, *entry)

    def _zoned_namer(
        self, placed: PlacedBoard, grid: grids.ZonedGrid, width: int, height: int
    ) -> Callable[[int, int], tuple[PlacedBoard, grids.Zone | None, str]]:
        """`place_at_reference`'s zoned branch for a board that is not reversed: the zone holding the
        point names it (once per zone when its name reads no point), else the background grid."""
        zone_at, zone_names, properties = grid.zone_at, self._zone_names, self._properties
        background = grid.background
        namer = grids.cell_namer(background, width, height, False, properties) if background else None
        background_name: Callable[[int, int], str | None] | None = None
        if namer is not None:
            name_at = namer[0]
            background_name = (lambda lx, ly: name_at(ly, lx)) if namer[1] else name_at
        elif background is not None:
            background_name = functools.partial(self._cell_name, background)

        def name_zoned(lx: int, ly: int) -> tuple[PlacedBoard, grids.Zone | None, str]:
            zone = zone_at(lx, ly)
            if zone is not None:
                name = zone_names.get(id(zone))  # the layout's boards keep their zones alive
                if name is None:
                    name = zone.location_name(lx, ly, properties)
                    if not zone.name_reads_point():  # one name for every point of the zone
                        zone_names[id(zone)] = name
            elif background_name is not None:
                name = background_name(lx, ly)
            else:
                name = None
            return placed, zone, OFFBOARD if name is None else name

        return name_zoned

    def place_at_reference(
        self, x: int, y: int
    ) -> tuple[PlacedBoard | None, grids.Zone | None, str | None]:
        """(`board_at`, `zone_at`, `location_name`) of one point, each lookup done once.

        Why: locating every piece of a 5,000-piece save asks all three for each piece; on a board
        that is not reversed, CurrentZone and the ZonedGrid's location use the same board point
        (§6.7), so the zone found for one serves the other (`ZonedGrid.location_name`: the zone's
        name, else the background grid's). Reversed boards take the separate lookups.
        """
        placed = self.board_at(x, y)
        grid = placed.board.grid if placed is not None else None
        zone = None
        if isinstance(grid, grids.ZonedGrid):
            zone = grid.zone_at(x - placed.x, y - placed.y)  # type: ignore[union-attr]
        deck = self.deck_at(x, y)
        if deck is not None:
            return placed, zone, deck
        if placed is None or grid is None:
            return placed, zone, OFFBOARD
        try:
            if isinstance(grid, grids.ZonedGrid) and not placed.reversed:
                lx, ly = x - placed.x, y - placed.y
                if zone is not None:
                    name = self._zone_names.get(id(zone))  # the layout's boards keep their zones alive
                    if name is None:
                        name = zone.location_name(lx, ly, self._properties)
                        if not zone.name_reads_point():  # one name for every point of the zone
                            self._zone_names[id(zone)] = name
                elif grid.background is not None:
                    name = self._cell_name(grid.background, lx, ly)
                else:
                    name = None
            else:
                name = self._cell_name(grid, *placed.local(x, y))
        except grids.GridSizeUnknown:
            self._problem(_unknown_size_problem(self.map_def.identifier, placed.board))
            return placed, zone, None
        except grids.GridValueError as exc:
            self._problem(f"map {self.map_def.identifier!r}, board {placed.name!r}: {exc}")
            return placed, zone, None
        return placed, zone, OFFBOARD if name is None else name

    def _cell_name(self, grid: grids.Grid, x: int, y: int) -> str | None:
        """`grid.location_name(x, y)` with this layout's properties; a hex or square cell's name is
        formatted once per cell (`_cell_names`), since every point of the cell has it.

        Why here: locating a 5,000-piece save formats a name for every piece, and most of them
        stand in a few hundred cells. Only for grids that name a point exactly as
        `NumberedGrid.location_name` does (numbering (col, row), then its format): the format's
        other properties come from the module (`properties`), which never change."""
        if type(grid).location_name is not _NUMBERED_NAME or grid.numbering is None:  # type: ignore[attr-defined]
            return grid.location_name(x, y, self._properties)
        col, row = grid.column_row(x, y)  # type: ignore[attr-defined]
        key = (id(grid), col, row)  # the layout's boards keep their grids alive
        name = self._cell_names.get(key)
        if name is None:
            name = grid.numbering.format_name(row, col, self._properties)  # type: ignore[attr-defined]
            if len(self._cell_names) >= MAX_CELL_NAMES:
                self._cell_names.clear()
            self._cell_names[key] = name
        return name

    def snap(self, x: int, y: int) -> tuple[int, int]:
        placed = self.board_at(x, y)
        if placed is None or placed.board.grid is None:
            return (x, y)
        try:
            return placed.global_point(*placed.board.grid.snap(*placed.local(x, y)))
        except grids.GridSizeUnknown:
            self._problem(_unknown_size_problem(self.map_def.identifier, placed.board))
            return (x, y)
        except grids.GridValueError as exc:
            self._problem(f"map {self.map_def.identifier!r}, board {placed.name!r}: {exc}")
            return (x, y)

    # --- name -> point -----------------------------------------------------------------------
    def point_for(self, name: str) -> tuple[int, int] | None:
        """Map pixels of a location name: a DrawPile's position, else the first board grid that parses it."""
        if name in self.draw_pile_positions:
            return self.draw_pile_positions[name]
        for placed in self.boards:
            grid = placed.board.grid
            if grid is None:
                continue
            try:
                local = grid.location(name)
                if local is not None:
                    return placed.global_point(*local)
            except grids.GridSizeUnknown:
                self._problem(_unknown_size_problem(self.map_def.identifier, placed.board))
            except grids.GridValueError as exc:
                self._problem(f"map {self.map_def.identifier!r}, board {placed.name!r}: {exc}")
        return None

    def setup_stack_position(self, stack: SetupStackDef) -> tuple[int, int] | None:
        """Where an at-start stack goes: its grid `location` on the owning board when
        `useGridLocation`, else (x, y) relative to that board (map pixels without one)."""
        owner = next((p for p in self.boards if p.name == stack.owning_board), None)
        if stack.owning_board and owner is None:
            return None  # its board is not in this game's selection
        if owner is None:
            return (stack.x, stack.y)
        if stack.use_grid_location and stack.location and owner.board.grid is not None:
            try:
                local = owner.board.grid.location(stack.location)
                return None if local is None else owner.global_point(*local)
            except grids.GridSizeUnknown:
                self._problem(_unknown_size_problem(self.map_def.identifier, owner.board))
                return None
            except grids.GridValueError as exc:
                self._problem(f"map {self.map_def.identifier!r}, board {owner.name!r}: {exc}")
                return None
        return (stack.x + owner.x, stack.y + owner.y)

    # --- geometry for drawing ----------------------------------------------------------------
    def cell_polygon(self, x: int, y: int) -> list[tuple[int, int]] | None:
        """Outline (map pixels) of the hex, square or zone holding the point; None when there is none.

        Why: a later issue draws an SVG inset of a location from the module's own grid geometry.
        """
        placed = self.board_at(x, y)
        if placed is None or placed.board.grid is None:
            return None
        try:
            lx, ly = placed.local(x, y)
        except grids.UNCOMPUTABLE:
            return None
        grid = placed.board.grid
        outline: list[tuple[int, int]] | None = None
        if isinstance(grid, grids.ZonedGrid):
            zone = grid.zone_at(lx, ly)
            if zone is not None:
                inner = zone.effective_grid()
                outline = _grid_cell(inner, lx, ly) if inner is not None else None
                if outline is None:
                    outline = zone.points
            elif grid.background is not None:
                outline = _grid_cell(grid.background, lx, ly)
        else:
            outline = _grid_cell(grid, lx, ly)
        if outline is None:
            return None
        return [placed.global_point(px, py) for px, py in outline]


def _unknown_size_problem(map_id: str, board: BoardDef) -> str:
    """The one warning per board whose size is unknown (its image is not in the module archive)."""
    what = f"its image {board.image!r} is not in the module" if board.image else "it has no image and no size"
    return (
        f"map {map_id!r}, board {board.name!r}: {what}, so names that depend on the board's size "
        "(descending grid numbering, reversed boards, points beyond the board) cannot be computed; "
        "pass the .vmod"
    )


def _grid_cell(grid: grids.Grid, x: int, y: int) -> list[tuple[int, int]] | None:
    if isinstance(grid, grids.HexGrid):
        return grid.hex_polygon(grid.raw_column(x, y), grid.raw_row(x, y))
    if isinstance(grid, grids.SquareGrid):
        cx = grid.x0 + math.floor((x - grid.x0) / grid.dx + 0.5) * grid.dx
        cy = grid.y0 + math.floor((y - grid.y0) / grid.dy + 0.5) * grid.dy
        half_x, half_y = grid.dx / 2, grid.dy / 2
        return [
            (grids.java_int(cx - half_x), grids.java_int(cy - half_y)),
            (grids.java_int(cx + half_x), grids.java_int(cy - half_y)),
            (grids.java_int(cx + half_x), grids.java_int(cy + half_y)),
            (grids.java_int(cx - half_x), grids.java_int(cy + half_y)),
        ]
    return None


def _unknown_numberings(grid: grids.Grid) -> list[str]:
    found: list[grids.Grid] = [grid]
    if isinstance(grid, grids.ZonedGrid):
        found += [zone.grid for zone in grid.zones if zone.grid is not None]
        if grid.background is not None:
            found.append(grid.background)
    return [g.unknown_numbering for g in found if getattr(g, "unknown_numbering", None)]
