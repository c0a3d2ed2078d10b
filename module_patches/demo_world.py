"""The demo world as Python objects: boards, hex numbering, boxes and counters from `demo/world.toml`.

Why a separate model: the module builder, the story script that writes the demo saves, and the
tests all need the same answers ("where is the centre of w3516 on the map?"), and they must not
depend on the VASSAL reader they are meant to check.  The numbering computed here is the demo's
own design (rows counted up from the bottom, VASSAL `vDescend`), derived independently of
`vassal_parser.grids`, so a test comparing the two is a real cross-check.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

DEMO_DIR = Path(__file__).resolve().parent / "demo"
WORLD_FILE = DEMO_DIR / "world.toml"
MAIN_MAP = "Europe"


@dataclass(frozen=True)
class HexGeometry:
    dx: float
    dy: float
    x0: int
    y0: int
    columns: int
    rows: int
    width: int
    height: int

    @property
    def max_rows(self) -> int:
        # VASSAL's RegularGridNumbering uses height / dx here (sic, spec §6.5); the demo's row
        # numbers are chosen with that same quirk so that VASSAL shows them.
        return math.floor(self.height / self.dx + 0.5)

    def centre(self, col: int, row: int) -> tuple[int, int]:
        """Board-local centre of raw hex (col, row), HexGrid.getRawPosition semantics."""
        x = int(self.dx * col + self.x0)
        y = int(self.dy * row + self.y0) if col % 2 == 0 else int(self.dy * row + int(self.dy / 2) + self.y0)
        return x, y


@dataclass(frozen=True)
class BoardSpec:
    name: str
    prefix: str
    column: int
    first_column: int
    top_row: int
    color: str
    origin_x: int

    @property
    def v_off(self) -> int:
        """VASSAL vOff giving `top_row` to raw row 0 under vDescend."""
        return self.top_row - WORLD().hexgrid.max_rows

    def hex_name(self, col: int, row: int) -> str:
        geometry = WORLD().hexgrid
        number = (geometry.max_rows - row) + self.v_off
        return f"{self.prefix}{number:02d}{col + self.first_column:02d}"


@dataclass(frozen=True)
class BoxSpec:
    name: str
    x: int
    y: int
    width: int
    height: int

    @property
    def centre(self) -> tuple[int, int]:
        return self.x + self.width // 2, self.y + self.height // 2

    @property
    def path(self) -> str:
        x2, y2 = self.x + self.width, self.y + self.height
        return f"{self.x},{self.y};{x2},{self.y};{x2},{y2};{self.x},{y2}"


@dataclass(frozen=True)
class CounterSpec:
    id: str
    name: str
    nation: str
    kind: str
    steps: int = 0
    code: str = ""
    stripe: bool = False
    tag: str = ""
    area: str = ""
    colonial: str = ""
    card: str = ""
    layer: str = "none"
    mask: bool = False
    hide: bool = False

    @property
    def image(self) -> str:
        return f"{self.id.lower()}.svg"

    @property
    def prototype(self) -> str:
        """Prototype the module's PieceSlot uses: lets a pack match pieces by prototype name."""
        if self.kind == "card":
            return "Card"
        if self.kind in ("ceded_land", "marker", "state"):
            return "Marker"
        return "Unit"


@dataclass
class World:
    module: dict[str, Any]
    hexgrid: HexGeometry
    boards: list[BoardSpec]
    places: dict[str, str]
    boxes: list[BoxSpec]
    boxes_window: str
    boxes_size: tuple[int, int]
    nations: dict[str, dict[str, str]]
    counters: list[CounterSpec]
    layers: dict[str, list[str]]
    _hex_index: dict[str, tuple[BoardSpec, int, int]] = field(default_factory=dict)

    def board(self, name: str) -> BoardSpec:
        return next(b for b in self.boards if b.name == name)

    def counter(self, counter_id: str) -> CounterSpec:
        return next(c for c in self.counters if c.id == counter_id)

    def box(self, name: str) -> BoxSpec:
        return next(b for b in self.boxes if b.name == name)

    def all_hexes(self) -> dict[str, tuple[BoardSpec, int, int]]:
        """Every hex name on the demo map -> (board, raw col, raw row)."""
        if not self._hex_index:
            for board in self.boards:
                for col in range(self.hexgrid.columns):
                    for row in range(self.hexgrid.rows):
                        self._hex_index[board.hex_name(col, row)] = (board, col, row)
        return self._hex_index

    def hex_point(self, hex_name: str) -> tuple[int, int]:
        """Map coordinates (map `Europe`, no edge buffer) of a hex centre, e.g. `w3516`."""
        try:
            board, col, row = self.all_hexes()[hex_name]
        except KeyError:
            raise KeyError(f"{hex_name} is not a hex of the demo map") from None
        x, y = self.hexgrid.centre(col, row)
        return board.origin_x + x, y

    def place_point(self, place: str) -> tuple[str, int, int]:
        """(map, x, y) for a hex name or a box name: how the story script says where a counter is."""
        if place in self.all_hexes():
            return (MAIN_MAP, *self.hex_point(place))
        box = self.box(place)
        return (self.boxes_window, *box.centre)


def _layout_boxes(spec: dict[str, Any]) -> tuple[list[BoxSpec], tuple[int, int]]:
    margin = 20
    columns = int(spec["columns"])
    width, height = int(spec["box_width"]), int(spec["box_height"])
    boxes: list[BoxSpec] = []
    for index, name in enumerate(spec["names"]):
        col, row = index % columns, index // columns
        boxes.append(BoxSpec(name, margin + col * (width + margin), margin + row * (height + margin),
                             width, height))
    rows = math.ceil(len(spec["names"]) / columns)
    track_y = margin + rows * (height + margin)
    turn_w, turn_h = int(spec["turn_box_width"]), int(spec["turn_box_height"])
    for index, label in enumerate(spec["turns"]):
        x = margin + index * (turn_w + 4)
        boxes.append(BoxSpec(f"Turn {index + 1} {label}", x, track_y, turn_w, turn_h))
    total_w = max(margin + columns * (width + margin), margin + len(spec["turns"]) * (turn_w + 4) + margin)
    total_h = track_y + turn_h + margin
    return boxes, (total_w, total_h)


@cache
def WORLD() -> World:
    """The demo world read once from world.toml."""
    raw = tomllib.loads(WORLD_FILE.read_text(encoding="utf-8"))
    grid = HexGeometry(**raw["hexgrid"])
    boards = [BoardSpec(origin_x=b["column"] * grid.width, **b) for b in raw["boards"]]
    boxes, size = _layout_boxes(raw["boxes"])
    counters = [CounterSpec(**c) for c in raw["counters"]]
    return World(module=raw["module"], hexgrid=grid, boards=boards, places=raw["places"], boxes=boxes,
                 boxes_window=raw["boxes"]["window"], boxes_size=size, nations=raw["nations"],
                 counters=counters, layers=raw["layers"])
