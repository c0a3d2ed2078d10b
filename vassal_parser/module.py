"""A VASSAL module's build file as plain objects: maps, boards, grids, zones, decks, setups.

Why over 500 lines: the build-file reader is one walk of one XML tree: the dataclasses it fills, the
per-element readers (maps, boards, grids, slots) and the extension merge (run on the same tree before the
walk) share the attribute readers and refusals (`_refuse`, `_int`, `_bool`).

Why our own model: the location names VASSAL stores in saves come from the module's maps,
boards and grids (spec §6); reading them from the build file lets Adjutant recompute every
`LocationName` itself and place pieces by name. Extensions (.vmdx) are merged first, exactly as
VASSAL adds each `ExtensionElement` child at its `target` (spec §7), so the model is the one a
player sees with those extensions loaded.

Public API:
    load_module(path, extensions=()) -> Module
    Module, MapDef, BoardDef, DrawPileDef, SetupStackDef, PieceSlotDef, GlobalPropertyDef,
        PredefinedSetupDef
    setup_file(module, setup, max_bytes) -> bytes | None   (the save a predefined setup starts from)
    parse_board_picker(text) -> (map_identifier, [(board_name, reversed, col, row)])
    image_size(data) -> (width, height) | None
"""

from __future__ import annotations

import copy
import math
import os
import re
import struct
import sys
import zipfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from vassal_parser import grids, xml_light
from vassal_parser.container import Container, open_container, parse_xml, read_xml, safe_xml_parser
from vassal_parser.errors import InputError, about
from vassal_parser.oblique_numbering import module_hex_numberings
from vassal_parser.sequence import decode, java_parse_double, java_parse_int

PKG = "VASSAL.build.module."
BOARD_PKG = PKG + "map.boardPicker."
GRID_PKG = BOARD_PKG + "board."
MAP_TAGS = (PKG + "Map", PKG + "PrivateMap", PKG + "PlayerHand", "VASSAL.build.widget.WidgetMap")
ROOT_TAGS = ("VASSAL.build.GameModule", "VASSAL.launch.BasicModule")
EXTENSION_TAG = PKG + "ModuleExtension"
SLOT_TAGS = ("VASSAL.build.widget.PieceSlot", "VASSAL.build.widget.CardSlot")
NumberingT = TypeVar("NumberingT", bound=grids.RegularGridNumbering)

BoardSelection = list[tuple[str, bool, int, int]]

if TYPE_CHECKING:  # lxml is imported where a big build file or an extension needs it
    from lxml import etree

    # A build file's element: lxml's, or the same tree read by expat (vassal_parser/xml_light.py).
    Element = etree._Element | xml_light.LightElement

# Caps (docs/vassal-reader.md, "Caps"): boards one BoardPicker chooses, and the largest column or
# row number of a board cell.
MAX_BOARDS = 1000
MAX_BOARD_CELL = 1000
# Elements of one build file (the largest corpus module has about 60,000).
MAX_ELEMENTS = 1_000_000
# The largest build file expat reads (vassal_parser/xml_light.py): up to about here its tree comes
# quicker than lxml's import and tree together (a 0.67 MB one: 7 ms against 3 + 15; 4 MB: 45 against
# 19 + 15); a bigger one goes to lxml.
LIGHT_BUILD_BYTES = 2 * 1024 * 1024
# Steps of an extension's target path (real ones have 2-4).
MAX_TARGET_STEPS = 200
# Smallest grid cell size (dx, dy) in pixels.
MIN_PITCH = 0.001


# --------------------------------------------------------------------------------------------
# Image headers (board sizes)
# --------------------------------------------------------------------------------------------

# One way to match each length (`[0-9]*\.?[0-9]+` could split a digit run many ways: quadratic).
_SVG_LENGTH = re.compile(r"^\s*([0-9]{1,12}(?:\.[0-9]{1,12})?|\.[0-9]{1,12})\s*(px)?\s*$")
_JPEG_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """Walk JPEG segments to the first SOFn frame header (height, then width)."""
    pos, n = 2, len(data)
    while pos + 4 <= n:
        if data[pos] != 0xFF:
            pos += 1
            continue
        marker = data[pos + 1]
        if marker == 0xFF:
            pos += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            pos += 2
            continue
        (length,) = struct.unpack(">H", data[pos + 2 : pos + 4])
        if marker in _JPEG_SOF:
            if pos + 9 > n:
                return None
            height, width = struct.unpack(">HH", data[pos + 5 : pos + 9])
            return width, height
        pos += 2 + length
    return None


def _svg_size(data: bytes) -> tuple[int, int] | None:
    root: Any = xml_light.root_attributes(data)  # the fast path; lxml where expat cannot say
    if root is None:
        from lxml import etree

        try:
            root = etree.fromstring(data, parser=safe_xml_parser())
        except etree.XMLSyntaxError:
            return None
        if root is None:
            return None
    width = _SVG_LENGTH.match(root.get("width") or "")
    height = _SVG_LENGTH.match(root.get("height") or "")
    if width and height:
        return int(float(width.group(1))), int(float(height.group(1)))
    box = (root.get("viewBox") or "").replace(",", " ").split()
    if len(box) == 4:
        width_value, height_value = java_parse_double(box[2]), java_parse_double(box[3])
        if width_value is None or height_value is None:
            return None
        if not all(math.isfinite(v) and 0 <= v <= _INT_MAX for v in (width_value, height_value)):
            return None  # no image size VASSAL could draw: treated as unknown
        return int(width_value), int(height_value)
    return None


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG/GIF/JPEG/SVG header; None for anything else.

    Why no Pillow: only the header is needed, and a board size is all we want from an image.
    """
    if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24 and data[12:16] == b"IHDR":
        return struct.unpack(">II", data[16:24])  # type: ignore[return-value]
    if data.startswith((b"GIF87a", b"GIF89a")) and len(data) >= 10:
        return struct.unpack("<HH", data[6:10])  # type: ignore[return-value]
    if data.startswith(b"\xff\xd8"):
        return _jpeg_size(data)
    if b"<svg" in data.lstrip()[:1024].lower():
        return _svg_size(data)
    return None


# --------------------------------------------------------------------------------------------
# Model
# --------------------------------------------------------------------------------------------


@dataclass
class PieceSlotDef:
    """A piece definition: `PieceSlot`/`CardSlot` (entryName, gpid) holding an AddPiece text."""

    entry_name: str
    gpid: str
    text: str


@dataclass
class GlobalPropertyDef:
    """A Global Property's starting value, which a save's own value overrides (spec §3.4)."""

    name: str
    initial_value: str
    container: str  # "Module", the map name, or "<mapName>:<zoneName>" (spec §3.4)


@dataclass
class PredefinedSetupDef:
    """`PredefinedSetup`: a File > New Game entry; with `use_file` it starts from `file`, a saved game
    packed in the module archive under that name (spec vassal-formats.md, archive entries)."""

    name: str
    file: str
    use_file: bool
    is_menu: bool


@dataclass
class BoardDef:
    """A `Board`: size is the image's (when the .vmod has it), else width/height, else unknown."""

    name: str
    image: str
    width: int | None
    height: int | None
    reversible: bool
    grid: grids.Grid | None = None

    @property
    def size(self) -> tuple[int, int] | None:
        if self.width is None or self.height is None:
            return None
        return (self.width, self.height)


@dataclass
class DrawPileDef:
    """A `DrawPile` (deck holder): x, y relative to `owning_board` when set, else map pixels."""

    name: str
    x: int
    y: int
    owning_board: str | None


@dataclass
class SetupStackDef:
    """An at-start stack: at (x, y) on `owning_board`, or at grid `location` when `use_grid_location`."""

    name: str
    owning_board: str | None
    x: int
    y: int
    location: str
    use_grid_location: bool
    pieces: list[PieceSlotDef] = field(default_factory=list)


@dataclass
class MapDef:
    """One `Map`/`PrivateMap`/`PlayerHand`; `identifier` is what saves use (spec §6.1)."""

    identifier: str
    name: str
    internal_id: str
    kind: str
    edge_width: int
    edge_height: int
    boards: list[BoardDef] = field(default_factory=list)
    default_setup: str | None = None
    draw_pile_defs: list[DrawPileDef] = field(default_factory=list)
    setup_stacks: list[SetupStackDef] = field(default_factory=list)
    global_properties: list[GlobalPropertyDef] = field(default_factory=list)
    stacking_enabled: bool = True  # StackMetrics `disabled` (spec §3.3 merges need it)

    @property
    def draw_piles(self) -> dict[str, tuple[int, int]]:
        """name -> (x, y) as written (board-relative when the pile has an owning board)."""
        return {pile.name: (pile.x, pile.y) for pile in self.draw_pile_defs}

    def board(self, name: str) -> BoardDef | None:
        return next((board for board in self.boards if board.name == name), None)


@dataclass
class Module:
    """What of a module (with its extensions) the readers need: maps, boards, grids, zones, slots."""

    path: str
    name: str
    version: str
    vassal_version: str
    description: str
    maps: list[MapDef] = field(default_factory=list)
    prototypes: dict[str, str] = field(default_factory=dict)
    piece_slots: list[PieceSlotDef] = field(default_factory=list)
    extensions: list[str] = field(default_factory=list)
    global_properties: list[GlobalPropertyDef] = field(default_factory=list)
    predefined_setups: list[PredefinedSetupDef] = field(default_factory=list)
    sides: list[str] = field(default_factory=list)  # the PlayerRoster's sides, in order (who may hide what)
    # module-level Global Translatable Messages: name -> text (GameModule.getProperty answers them)
    translatable_messages: dict[str, str] = field(default_factory=dict)
    # module_property's index: (the list it was made from, its length, name -> first definition)
    _property_index: tuple[list[GlobalPropertyDef], int, dict[str, GlobalPropertyDef]] | None = field(
        default=None, init=False, repr=False, compare=False)

    def map_by_id(self, identifier: str | None) -> MapDef | None:
        """`Map.getMapById`: the identifier (mapName) or the internal `MapN` id."""
        if identifier is None:
            return None
        for map_def in self.maps:
            if map_def.identifier == identifier:
                return map_def
        for map_def in self.maps:
            if map_def.internal_id == identifier:
                return map_def
        return None

    def module_property(self, name: str) -> str | None:
        """The initial value of the first module-level global property called `name`.

        Why an index: a piece whose label reads properties asks this for each name it does not
        answer itself, and a big module has hundreds of global properties (ForThePeople: 265).
        Made again when the list is another or has grown (extensions append to it); definitions,
        not values, are indexed, so a changed value is seen."""
        properties = self.global_properties
        index = self._property_index
        if index is None or index[0] is not properties or index[1] != len(properties):
            table: dict[str, GlobalPropertyDef] = {}
            for prop in properties:
                table.setdefault(prop.name, prop)
            index = self._property_index = (properties, len(properties), table)
        found = index[2].get(name)
        return None if found is None else found.initial_value


# --------------------------------------------------------------------------------------------
# Attribute helpers (Java-lenient)
# --------------------------------------------------------------------------------------------


_INT_MIN, _INT_MAX = -(1 << 31), (1 << 31) - 1


def _attribute_text(element: Element, key: str) -> str:
    return f"{element.tag.rsplit('.', 1)[-1]} {key}={element.get(key)!r}"


def _int(element: Element, key: str, default: int) -> int:
    """An int attribute as VASSAL reads it (Integer.valueOf), leniently: a decimal like `12.5` is
    truncated, text that is no number gives the default. A number no Java int can hold (`1e400`,
    `NaN`, 99999999999) is an InputError: VASSAL cannot load such a module either."""
    text = (element.get(key) or "").strip()
    if not text:
        return default
    value = java_parse_int(text)
    if value is not None:
        return value
    number = java_parse_double(text)
    if number is None:
        return default
    if not math.isfinite(number) or not _INT_MIN <= number <= _INT_MAX:
        _refuse(element, key)
    return int(number)


def _refuse(element: Element, key: str) -> int:
    raise InputError(None, f"{_attribute_text(element, key)} is not a number VASSAL can use (32-bit int)")


def _float(element: Element, key: str, default: float) -> float:
    """A double attribute as Double.valueOf reads it; text that is no number gives the default.
    May be infinite or NaN (as in Java): `_pitch` refuses those where geometry needs a size."""
    value = java_parse_double(element.get(key) or "")
    return default if value is None else value


def _pitch(element: Element, key: str, default: float) -> float:
    """A grid's cell size (dx, dy): finite and at least MIN_PITCH pixels across, else InputError.

    Why refuse: VASSAL divides by it; zero, NaN or infinity give no cell names at all, and a
    pitch below a thousandth of a pixel gives cell numbers beyond any board."""
    value = _float(element, key, default)
    if not math.isfinite(value) or abs(value) < MIN_PITCH:
        raise InputError(None, f"{_attribute_text(element, key)}: a grid cell size must be a finite "
                               f"number of at least {MIN_PITCH} pixels")
    return value


def _bool(element: Element, key: str, default: bool) -> bool:
    text = element.get(key)
    return default if text is None else text.strip().lower() == "true"


def _first_letter(element: Element, key: str, default: str) -> str:
    text = element.get(key) or ""
    return text[0] if text else default


def parse_board_picker(text: str) -> tuple[str, BoardSelection]:
    """A BoardPicker command (spec §3.4): `<mapId>BoardPicker<TAB>name[/rev]<TAB>col<TAB>row...`.

    Column and row are read as `SequenceEncoder.nextInt(0)` reads them (Integer.parseInt, 0 when
    that fails). Capped (docs/vassal-reader.md, "Caps"): at most MAX_BOARDS boards and cell
    numbers up to MAX_BOARD_CELL — VASSAL sizes arrays by the largest column and row, so a
    larger one is no game VASSAL can open either. InputError (no file name; the caller adds it).
    """
    tokens = decode(text, "\t")
    head = tokens[0]
    map_id = head[: -len("BoardPicker")] if head.endswith("BoardPicker") else head
    selection: BoardSelection = []
    rest = tokens[1:]
    if len(rest) // 3 > MAX_BOARDS:
        raise InputError(None, f"BoardPicker of map {map_id!r} chooses {len(rest) // 3} boards "
                               f"(at most {MAX_BOARDS} are read)")
    for i in range(0, len(rest) - 2, 3):
        name_parts = decode(rest[i], "/")
        reversed_ = len(name_parts) > 1 and name_parts[1] == "rev"
        col = java_parse_int(rest[i + 1])
        row = java_parse_int(rest[i + 2])
        col, row = col or 0, row or 0
        if max(col, row) > MAX_BOARD_CELL:
            raise InputError(None, f"BoardPicker of map {map_id!r} puts board {name_parts[0]!r} at column "
                                   f"{col}, row {row} (at most {MAX_BOARD_CELL} are read)")
        selection.append((name_parts[0], reversed_, col, row))
    return map_id, selection


# --------------------------------------------------------------------------------------------
# Grids
# --------------------------------------------------------------------------------------------


def _numbering_fields(element: Element) -> dict[str, object]:
    return {
        "first": _first_letter(element, "first", "H"),
        "sep": element.get("sep") or "",
        "h_type": _first_letter(element, "hType", "N"),
        "v_type": _first_letter(element, "vType", "N"),
        "h_leading": _int(element, "hLeading", 1),
        "v_leading": _int(element, "vLeading", 1),
        "h_off": _int(element, "hOff", 1),
        "v_off": _int(element, "vOff", 1),
        "h_descend": _bool(element, "hDescend", False),
        "v_descend": _bool(element, "vDescend", False),
        "location_format": element.get("locationFormat", "$gridLocation$"),
    }


def _snap_fields(element: Element) -> dict[str, Any]:
    """Snapping attributes every regular grid (hex, square) reads alike, with VASSAL's defaults."""
    return {
        "snap_to": _bool(element, "snapTo", True),
        "edges_legal": _bool(element, "edgesLegal", False),
        "corners_legal": _bool(element, "cornersLegal", False),
    }


def _grid_numbering(
    element: Element, known: Mapping[str, Callable[[Element], NumberingT]]
) -> tuple[NumberingT | None, str | None]:
    """The grid's numbering child built by `known[tag]`, and the tag of a numbering class we lack.

    Why the unknown tag is kept: a module's own class (e.g. ThirdReich.ObliqueHexGridNumbering)
    names its cells in a way we cannot reproduce, and the caller says so instead of guessing."""
    numbering: NumberingT | None = None
    unknown: str | None = None
    for child in element:
        if not isinstance(child.tag, str):
            continue
        build = known.get(child.tag)
        if build is not None:
            numbering = build(child)
        elif child.tag.endswith("Numbering"):
            unknown = child.tag
    return numbering, unknown


def _hex_grid(element: Element, size: tuple[int, int] | None) -> grids.HexGrid:
    sqrt3_2 = math.sqrt(3) / 2.0
    dy = _pitch(element, "dy", 64.0)
    dx = _pitch(element, "dx", sqrt3_2 * 64.0)
    if dx == sqrt3_2 * 64.0 and element.get("dy") is not None:
        dx = sqrt3_2 * dy  # HexGrid.setAttribute: dy recomputes a default dx (applied after dx, §6.4)
    numbering, unknown = _grid_numbering(element, {
        GRID_PKG + "mapgrid.HexGridNumbering": lambda child: grids.HexGridNumbering(
            stagger=_bool(child, "stagger", True), **_numbering_fields(child)
        ),
        GRID_PKG + "mapgrid.ObliqueHexGridNumbering": lambda child: grids.ObliqueHexGridNumbering(
            stagger=_bool(child, "stagger", True),
            direction=_bool(child, "direction", True),
            **_numbering_fields(child),
        ),
        **module_hex_numberings(element, _numbering_fields, _bool),  # ThirdReich.* (module-shipped)
    })
    return grids.HexGrid(
        dx=dx,
        dy=dy,
        x0=_int(element, "x0", 0),
        y0=_int(element, "y0", 32),
        sideways=_bool(element, "sideways", False),
        **_snap_fields(element),
        numbering=numbering,
        container_size=size,
        unknown_numbering=unknown,
    )


def _square_grid(element: Element, size: tuple[int, int] | None) -> grids.SquareGrid:
    numbering, unknown = _grid_numbering(element, {
        GRID_PKG + "mapgrid.SquareGridNumbering": lambda child: grids.SquareGridNumbering(
            **_numbering_fields(child)
        ),
    })
    return grids.SquareGrid(
        dx=_pitch(element, "dx", 48.0),
        dy=_pitch(element, "dy", 48.0),
        x0=_int(element, "x0", 24),
        y0=_int(element, "y0", 24),
        **_snap_fields(element),
        numbering=numbering,
        container_size=size,
        unknown_numbering=unknown,
    )


def _region_grid(element: Element, size: tuple[int, int] | None) -> grids.RegionGrid:
    regions = [
        grids.Region(child.get("name") or "", _int(child, "originx", 0), _int(child, "originy", 0))
        for child in element
        if child.tag == GRID_PKG + "Region"
    ]
    return grids.RegionGrid(regions=regions, snap_to=_bool(element, "snapto", True), container_size=size)


def _simple_grid(element: Element, size: tuple[int, int] | None) -> grids.Grid | None:
    if element.tag == GRID_PKG + "HexGrid":
        return _hex_grid(element, size)
    if element.tag == GRID_PKG + "SquareGrid":
        return _square_grid(element, size)
    if element.tag == GRID_PKG + "RegionGrid":
        return _region_grid(element, size)
    return None


def _zoned_grid(element: Element, size: tuple[int, int] | None, map_name: str) -> grids.ZonedGrid:
    zoned = grids.ZonedGrid(container_size=size)
    for child in element:
        if child.tag == GRID_PKG + "mapgrid.Zone":
            xs, ys = grids.Zone.parse_path(child.get("path") or "")
            zone = grids.Zone(
                name=child.get("name") or "",
                xs=xs,
                ys=ys,
                location_format=child.get("locationFormat", "$name$"),
                use_parent_grid=_bool(child, "useParentGrid", False),
                parent=zoned,
            )
            zone_size = zone.bounds()[2:]
            for sub in child:
                grid = _simple_grid(sub, (zone_size[0], zone_size[1]))
                if grid is not None:
                    zone.grid = grid
                elif sub.tag == GRID_PKG + "mapgrid.ZoneProperty":
                    zone.properties[sub.get("name") or ""] = sub.get("initialValue") or ""
            zoned.zones.append(zone)
        else:
            grid = _simple_grid(child, size)
            if grid is not None:
                zoned.background = grid
    return zoned


def _board_grid(element: Element, size: tuple[int, int] | None, map_name: str) -> grids.Grid | None:
    for child in element:
        if child.tag == GRID_PKG + "ZonedGrid":
            return _zoned_grid(child, size, map_name)
        grid = _simple_grid(child, size)
        if grid is not None:
            return grid
    return None


# --------------------------------------------------------------------------------------------
# Building the model
# --------------------------------------------------------------------------------------------


class _ImageSource:
    """Board image sizes from the module archive (`images/<name>`), when it has them."""

    def __init__(self, container: Container | None) -> None:
        self._container = container
        self._names: set[str] = (
            set(container.entry_names) if container is not None and container.is_zip else set()
        )

    def size(self, image: str) -> tuple[int, int] | None:
        if not image or self._container is None:
            return None
        for entry in (f"images/{image}", image):
            if entry in self._names:
                try:
                    return image_size(self._container.read_entry(entry))
                except InputError:
                    return None
        return None


def _board(element: Element, images: _ImageSource, map_name: str) -> BoardDef:
    image = element.get("image") or ""
    size = images.size(image) if image else None
    width: int | None
    height: int | None
    if size is not None:
        width, height = size
    elif not image:
        # Board.boundaries defaults to 500x500; width/height attributes override it.
        width, height = _int(element, "width", 500), _int(element, "height", 500)
    else:
        # Image not in hand (bare build file): the attributes are a fallback, else the size is unknown.
        width = _int(element, "width", 0) if element.get("width") else None
        height = _int(element, "height", 0) if element.get("height") else None
    board = BoardDef(
        name=element.get("name") or "",
        image=image,
        width=width,
        height=height,
        reversible=_bool(element, "reversible", False),
    )
    board.grid = _board_grid(element, board.size, map_name)
    return board


def _slot(element: Element) -> PieceSlotDef:
    return PieceSlotDef(element.get("entryName") or "", element.get("gpid") or "", element.text or "")


def _map(element: Element, index: int) -> MapDef:
    """The map's own attributes; its parts are added by `_map_part` as the walk meets them."""
    map_name = element.get("mapName") or ""
    edge_width = _int(element, "edgeWidth", 0)
    edge_height = _int(element, "edgeHeight", 0)
    legacy_edge = element.get("edge")
    if legacy_edge and element.get("edgeWidth") is None:
        parts = legacy_edge.split(",")
        if len(parts) == 2 and all(java_parse_int(p.strip()) is not None for p in parts):
            edge_width, edge_height = int(parts[0]), int(parts[1])
    internal_id = f"Map{index}"
    return MapDef(
        identifier=map_name or internal_id,
        name=map_name,
        internal_id=internal_id,
        kind=element.tag.rsplit(".", 1)[-1],
        edge_width=edge_width,
        edge_height=edge_height,
    )


def _map_part(map_def: MapDef, node: Element, images: _ImageSource) -> None:
    """One element inside a map: its boards, draw piles, at-start stacks, stacking, properties."""
    tag = node.tag
    map_name = map_def.name
    if tag.endswith("BoardPicker"):
        for child in node:
            if isinstance(child.tag, str) and child.tag.endswith("Board"):
                map_def.boards.append(_board(child, images, map_name))
            elif child.tag == "setup" and (child.text or "").strip():
                map_def.default_setup = child.text
    elif tag == PKG + "map.DrawPile":
        owning = node.get("owningBoard") or None
        map_def.draw_pile_defs.append(
            DrawPileDef(node.get("name") or "", _int(node, "x", 0), _int(node, "y", 0), owning)
        )
    elif tag == PKG + "map.SetupStack":
        map_def.setup_stacks.append(
            SetupStackDef(
                name=node.get("name") or "",
                owning_board=node.get("owningBoard") or None,
                x=_int(node, "x", 0),
                y=_int(node, "y", 0),
                location=node.get("location") or "",
                use_grid_location=_bool(node, "useGridLocation", False),
                pieces=[_slot(slot) for slot in node if slot.tag in SLOT_TAGS],
            )
        )
    elif tag == PKG + "map.StackMetrics":
        map_def.stacking_enabled = not _bool(node, "disabled", False)
    elif tag == PKG + "properties.GlobalProperty":
        map_def.global_properties.append(
            GlobalPropertyDef(node.get("name") or "", node.get("initialValue") or "", map_name)
        )


def _is_map(element: Element) -> bool:
    """Stock map classes, or a module's own Map subclass (recognised by its BoardPicker child)."""
    if element.tag in MAP_TAGS:
        return True
    return element.get("mapName") is not None and any(
        isinstance(child.tag, str) and child.tag.endswith("BoardPicker") for child in element
    )


def _build(root: Element, path: str, images: _ImageSource, extensions: list[str]) -> Module:
    """One walk over the build file, each element seen once, in document order.

    Why one walk with the enclosing map carried along: walking each map's subtree again (and
    each property's ancestors) is quadratic in the nesting depth — a small file of deeply nested
    Map elements took seconds. An element belongs to its nearest enclosing map, as in VASSAL,
    where a component is added to its parent. Elements count against MAX_ELEMENTS.
    """
    module = Module(
        path=path,
        name=root.get("name") or "",
        version=root.get("version") or "",
        vassal_version=root.get("VassalVersion") or root.get("vassalVersion") or "",
        description=root.get("description") or "",
        extensions=extensions,
    )
    map_index = 0
    seen = 0
    stack: list[tuple[Element, MapDef | None]] = [(root, None)]
    while stack:
        node, owner = stack.pop()
        seen += 1
        if seen > MAX_ELEMENTS:
            raise InputError(path, f"build file has more than {MAX_ELEMENTS} elements")
        tag = node.tag
        if not isinstance(tag, str):
            continue
        if _is_map(node):
            owner = _map(node, map_index)
            module.maps.append(owner)
            map_index += 1
        elif owner is not None:
            _map_part(owner, node, images)
        elif tag == PKG + "properties.GlobalProperty":
            module.global_properties.append(
                GlobalPropertyDef(node.get("name") or "", node.get("initialValue") or "", "Module")
            )
        elif tag == PKG + "properties.GlobalTranslatableMessage":
            module.translatable_messages.setdefault(node.get("name") or "", node.get("initialValue") or "")
        if tag == PKG + "PrototypeDefinition":
            module.prototypes[node.get("name") or ""] = node.text or ""
        elif tag in SLOT_TAGS:
            module.piece_slots.append(_slot(node))
        elif tag == PKG + "PlayerRoster":
            entries = ((entry.text or "").strip() for entry in node if entry.tag == "entry")
            module.sides.extend(side for side in entries if side and side not in module.sides)
        elif tag == PKG + "PredefinedSetup":
            module.predefined_setups.append(PredefinedSetupDef(
                node.get("name") or "", node.get("file") or "", node.get("useFile", "true") == "true",
                node.get("isMenu", "false") == "true"))
        stack.extend((child, owner) for child in reversed(node))
    return module


# --------------------------------------------------------------------------------------------
# Extensions (spec §7)
# --------------------------------------------------------------------------------------------


def configure_name(element: Element) -> str | None:
    for key in ("mapName", "name", "entryName"):
        value = element.get(key)
        if value is not None:
            return value or None
    return None


def find_target(root: etree._Element, target: str, source: str) -> etree._Element:
    """Resolve an ExtensionElement `target` (SE('/') of SE(':')(class, name)) in the module tree.

    Spec §7 (`ComponentPathBuilder`): at each step the child of the same class and configure name
    wins; failing that, the same-class children are tried in order, each with the rest of the
    path, and the first that resolves is taken (the first one outright on the last step).
    """
    if not target:
        return root
    steps = [_target_step(step) for step in decode(target, "/")]
    if len(steps) > MAX_TARGET_STEPS:
        raise InputError(source, f"extension target has {len(steps)} steps (at most {MAX_TARGET_STEPS})")
    found = _resolve_steps(root, steps, {})
    if found is None:
        raise InputError(source, f"extension target {target!r} not found in the module")
    return found


def _target_step(step: str) -> tuple[str, str | None]:
    parts = decode(step, ":")
    return parts[0], (parts[1] if len(parts) > 1 and parts[1] else None)


def _resolve_steps(
    node: Element,
    steps: list[tuple[str, str | None]],
    failed: dict[tuple[int, int], Element],
    at: int = 0,
) -> Element | None:
    """Steps `at`.. resolved from `node`. `failed` remembers (element, step) pairs that led nowhere,
    so the backtracking visits each pair once (without it, many same-class children at every
    level made it exponential). It keeps the element too: lxml proxies are made afresh, and an
    id is unique only while its object lives."""
    if (id(node), at) in failed:
        return None
    class_name, name = steps[at]
    same_class = [child for child in node if child.tag == class_name]
    exact = [child for child in same_class if configure_name(child) == name]
    candidates = exact[:1] if exact else same_class
    if at == len(steps) - 1:
        return candidates[0] if candidates else None
    for candidate in candidates:
        found = _resolve_steps(candidate, steps, failed, at + 1)
        if found is not None:
            return found
    failed[(id(node), at)] = node
    return None


def _merge_extension(root: etree._Element, ext_path: Path, module_name: str) -> str:
    container = open_container(ext_path)
    if container.kind != "extension":
        raise InputError(ext_path, f"is a {container.kind}, not a VASSAL extension (.vmdx)")
    ext_root = parse_xml(container.build_xml_bytes(), ext_path, huge=True)
    if ext_root.tag != EXTENSION_TAG:
        raise InputError(ext_path, f"build file root is {ext_root.tag}, not {EXTENSION_TAG}")
    universal = (ext_root.get("anyModule") or "").lower() == "true"
    base = ext_root.get("module") or ""
    if not universal and base != module_name:
        raise InputError(ext_path, f"extension is for module {base!r}, not {module_name!r}")
    for element in ext_root:
        if element.tag != PKG + "ExtensionElement":
            continue
        children = [child for child in element if isinstance(child.tag, str)]
        if not children:
            continue
        target = find_target(root, element.get("target") or "", str(ext_path))
        target.append(copy.deepcopy(children[0]))
    return ext_path.stem


def setup_file(module: Module, setup: PredefinedSetupDef, max_bytes: int) -> bytes | None:
    """The saved game a predefined setup starts from, read from the module archive (or, for an
    unpacked module, the file next to its build file); None when there is none, it is larger than
    `max_bytes`, or it cannot be read. Only the module's own archive is looked in: a setup an
    extension adds packs its file in the extension."""
    if not (setup.use_file and setup.file) or setup.is_menu:
        return None
    path = Path(module.path)
    try:
        container = open_container(path)
        if container.is_zip:
            with zipfile.ZipFile(path) as archive:
                info = archive.getinfo(setup.file)
                if info.file_size > max_bytes:
                    return None
            return container.read_entry(setup.file)
        beside = path.parent / setup.file
        if not beside.resolve().is_relative_to(path.parent.resolve()) or beside.stat().st_size > max_bytes:
            return None
        return beside.read_bytes()
    except (InputError, KeyError, OSError, zipfile.BadZipFile, ValueError):
        return None


def load_module(path: str | os.PathLike[str], extensions: Iterable[str | os.PathLike[str]] = ()) -> Module:
    """Load a `.vmod`, a bare `buildFile`/`buildFile.xml`, with `.vmdx` extensions merged (spec §1, §7).

    Module name/version come from `moduledata` when present (what saves record), else from the
    build file's root attributes.
    """
    path = Path(path)
    with about(path):
        container = open_container(path, hold=True)
        with container.kept_open():
            return _load_module(path, container, extensions)


def _load_module(path: Path, container: Container, extensions: Iterable[str | os.PathLike[str]]) -> Module:
    if container.kind not in ("module", "buildfile"):
        raise InputError(path, f"is a {container.kind}, not a VASSAL module (.vmod or buildFile)")
    extensions = list(extensions)
    data = container.build_xml_bytes()
    # A small build file without extensions is read by expat (vassal_parser/xml_light.py: the same
    # tree, without lxml's import); a big one, or one an extension is merged into, by lxml.
    if not extensions and len(data) <= LIGHT_BUILD_BYTES and "lxml.etree" not in sys.modules:
        root: Any = read_xml(data, path, huge=True)
    else:
        root = parse_xml(data, path, huge=True)
    if root.tag == EXTENSION_TAG:
        raise InputError(path, "is a module extension; pass it with --extension next to its module")
    if root.tag not in ROOT_TAGS:
        raise InputError(path, f"build file root is {root.tag}, not a VASSAL GameModule")
    metadata = container.metadata_entries.get("moduledata", {})
    module_name = metadata.get("name") or root.get("name") or ""
    ext_names = [_merge_extension(root, Path(ext), module_name) for ext in extensions]
    module = _build(root, str(path), _ImageSource(container), ext_names)
    module.name = module_name
    module.version = metadata.get("version") or module.version
    module.vassal_version = metadata.get("VassalVersion") or module.vassal_version
    return module
