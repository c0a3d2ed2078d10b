"""Printed tracks and box rows on a board, read from where a marker stands (a pack's `[[vassal.tracks]]`).

Why the pack and not the module: many modules draw a turn track, a BRP track or a DP level row on the
board image and define no zone grid there, so VASSAL names every box of it alike (the A3R/AWAW module's
`Turn Tracker` zone, its scenario cards' BRP tracks: `offboard`). A pack describes each box — its name as
printed, its value, its shape in the board's own pixels — and the mapping reads a marker's value from the
box it stands in. Where the module does have a zone grid, a box names VASSAL's own location instead
(`location = "Turn 3"`), so the reading stays VASSAL's. Format: docs/pack-format.md, "Tracks".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from vassal_parser.errors import InputError

GEOMETRY_KEYS = frozenset({"rect", "polygon", "location"})
TRACK_KEYS = frozenset({"name", "map", "board", "boxes", "note", "verified", "places"})
# Variables a track gives the mapping's rules (bridge/mapping/mapper.py `_variables`), besides `track_<key>`.
TRACK_VARIABLES = ("track", "track_box", "track_value")
# Caps (a pack is user input too): every piece on a track's map is tested against its boxes.
MAX_BOXES = 1000
MAX_POINTS = 64


@dataclass(frozen=True)
class TrackBox:
    """One box: its printed name, its value, and where it is (a polygon in board pixels, or a location)."""

    name: str
    value: Any
    polygon: tuple[tuple[int, int], ...] = ()
    location: str | None = None
    extra: tuple[tuple[str, Any], ...] = ()  # further values of the box (`season = "Fall"`)

    def contains(self, x: int, y: int) -> bool:
        """Even-odd rule, as java.awt.Polygon.contains (a point on the left/top edge is inside)."""
        points = self.polygon
        inside = False
        j = len(points) - 1
        for i in range(len(points)):
            xi, yi = points[i]
            xj, yj = points[j]
            if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi:
                inside = not inside
            j = i
        return inside

    def variables(self, track: str) -> dict[str, str]:
        found = {"track": track, "track_box": self.name, "track_value": str(self.value)}
        found.update((f"track_{k}", str(v)) for k, v in self.extra)
        return found

    def typed(self, name: str) -> Any:
        """The box's own (TOML-typed) value behind the variable `name`, for `{track_value}` templates."""
        if name == "track_value":
            return self.value
        if name == "track_box":
            return self.name
        return dict(self.extra).get(name.removeprefix("track_"), None)


@dataclass(frozen=True)
class Track:
    """A pack's track ([[vassal.tracks]]): boxes along which a marker's place is a number the rules read."""

    name: str
    map: str
    board: str | None
    boxes: tuple[TrackBox, ...]
    verified: bool = True
    note: str = ""
    places: bool = False  # its boxes are where counters stand: a box's value is the position's box id

    def box_at(self, location: str | None, point: tuple[int, int] | None) -> TrackBox | None:
        """The box a piece stands in: by VASSAL's location name first, else by its board point."""
        for box in self.boxes:
            if box.location is not None and location == box.location:
                return box
        if point is None:
            return None
        for box in self.boxes:
            if box.polygon and box.contains(*point):
                return box
        return None


@dataclass
class Tracks:
    """Every track of a pack, looked up by (map, board)."""

    tracks: list[Track] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.tracks)

    def box_of(self, piece: Any, origins: Mapping[tuple[str, str], tuple[int, int]],
               places: bool = False) -> tuple[Track, TrackBox] | None:
        """(track, box) the piece stands in. `origins`: (map, board) -> the board's origin in map pixels
        (the save's own layout); without one the board is taken at the map's origin."""
        for track in self.tracks:
            if track.places != places:
                continue
            if piece.map != track.map or (track.board is not None and piece.board != track.board):
                continue
            x, y = getattr(piece, "x", None), getattr(piece, "y", None)
            point = None
            if isinstance(x, int) and isinstance(y, int):
                ox, oy = origins.get((track.map, piece.board or ""), (0, 0))
                point = (x - ox, y - oy)
            box = track.box_at(piece.location, point)
            if box is not None:
                return track, box
        return None


def _point(value: Any, where: str, source: str) -> tuple[int, int]:
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise InputError(source, f"{where}: a point is [x, y] in whole board pixels")
    return value[0], value[1]


def parse_box(raw: Any, where: str, source: str) -> TrackBox:
    if not isinstance(raw, dict):
        raise InputError(source, f"{where} must be a table {{ name = ..., value = ..., rect = [...] }}")
    if "name" not in raw or "value" not in raw:
        raise InputError(source, f"{where} needs a 'name' (as printed) and a 'value'")
    shapes = GEOMETRY_KEYS & set(raw)
    if len(shapes) != 1:
        raise InputError(source, f"{where} needs exactly one of rect, polygon or location")
    polygon: tuple[tuple[int, int], ...] = ()
    location = None
    if "rect" in raw:
        rect = raw["rect"]
        if (not isinstance(rect, list) or len(rect) != 4
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in rect)):
            raise InputError(source, f"{where}: rect is [left, top, right, bottom] in whole board pixels")
        left, top, right, bottom = rect
        if right <= left or bottom <= top:
            raise InputError(source, f"{where}: rect {rect} is empty (right > left and bottom > top)")
        polygon = ((left, top), (right, top), (right, bottom), (left, bottom))
    elif "polygon" in raw:
        points = raw["polygon"]
        if not isinstance(points, list) or not 3 <= len(points) <= MAX_POINTS:
            raise InputError(source, f"{where}: a polygon has 3 to {MAX_POINTS} [x, y] points")
        polygon = tuple(_point(p, where, source) for p in points)
    else:
        if not isinstance(raw["location"], str) or not raw["location"]:
            raise InputError(source, f"{where}: location is VASSAL's location name (text)")
        location = raw["location"]
    value = raw["value"]
    if not isinstance(value, str | int) or isinstance(value, bool):
        raise InputError(source, f"{where}: value must be text or a whole number")
    extra = tuple(sorted((str(k), v) for k, v in raw.items() if k not in GEOMETRY_KEYS | {"name", "value"}))
    for key, item in extra:
        if not isinstance(item, str | int) or isinstance(item, bool):
            raise InputError(source, f"{where}: {key} must be text or a whole number")
    return TrackBox(str(raw["name"]), value, polygon, location, extra)


def parse_tracks(entries: Any, source: str) -> Tracks:
    """`[[vassal.tracks]]`, validated: one line naming the file and the track for anything wrong."""
    if entries is None:
        return Tracks()
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise InputError(source, "[[vassal.tracks]] must be an array of tables")
    tracks = []
    names: set[str] = set()
    for index, entry in enumerate(entries):
        where = f"[[vassal.tracks]] #{index + 1}"
        unknown = set(entry) - TRACK_KEYS
        if unknown:
            raise InputError(source, f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
        for key in ("name", "map"):
            if not isinstance(entry.get(key), str) or not entry[key]:
                raise InputError(source, f"{where} needs a '{key}' (text)")
        if entry["name"] in names:
            raise InputError(source, f"{where}: a second track named {entry['name']!r}")
        names.add(entry["name"])
        raw_boxes = entry.get("boxes")
        if not isinstance(raw_boxes, list) or not raw_boxes or len(raw_boxes) > MAX_BOXES:
            raise InputError(source, f"{where} ({entry['name']}) needs a 'boxes' array of 1 to "
                                     f"{MAX_BOXES} boxes")
        boxes = tuple(parse_box(b, f"{where} ({entry['name']}) box #{n + 1}", source)
                      for n, b in enumerate(raw_boxes))
        board = entry.get("board")
        if board is not None and not isinstance(board, str):
            raise InputError(source, f"{where}: board must be the board's name (text)")
        tracks.append(Track(entry["name"], entry["map"], board, boxes, bool(entry.get("verified", True)),
                            str(entry.get("note", "")), bool(entry.get("places", False))))
    return Tracks(tracks)


def row_of_boxes(first: tuple[int, int, int, int], last: tuple[int, int, int, int], count: int,
                 values: list[Any], names: list[str] | None = None) -> list[dict[str, Any]]:
    """`count` boxes from the first to the last, evenly spaced (what `pack edit` draws from two boxes).

    Why interpolate: a printed track is a row of equal boxes; a player drags the first and the last
    and gives the count, then adjusts any box that is off."""
    if count < 1 or len(values) != count or (names is not None and len(names) != count):
        raise ValueError("count must be >= 1 with one value (and name) per box")
    boxes = []
    for n in range(count):
        t = n / (count - 1) if count > 1 else 0.0
        rect = [round(a + (b - a) * t) for a, b in zip(first, last, strict=True)]
        name = names[n] if names is not None else str(values[n])
        boxes.append({"name": name, "value": values[n], "rect": rect})
    return boxes
