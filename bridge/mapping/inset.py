"""The map inset of a due event: the hexes it is about, drawn from the module's own grid geometry.

Why from the module: the overlay must show the hexes where VASSAL shows them, so outlines and
centres come from the save's `MapLayout` (its boards, their order and reversal, each board's
HexGrid numbering) — never from a hand-made drawing. Why small: an inset is a glance at "where",
so it holds only the hexes the event names, the hexes of the countries its steps change, and
their neighbours (found through the grid itself: across each edge of a hex lies its neighbour),
plus the visible counters standing in them. Hidden or masked pieces are never drawn.

Shape (docs/protocol.md, "Map inset"), in map pixels of one map:
    {"map": MAP_ID, "hexes": [{"name", "label", "center": [x, y], "points": [[x, y], ...],
                               "focus": bool}], "counters": [{"name", "counter", "hex", "x", "y"}]}
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vassal_parser.layout import OFFBOARD, MapLayout

MAX_FOCUS_HEXES = 12  # hexes the event is about; more would no longer be an inset
MAX_HEXES = 48  # focus + neighbours
_TOKEN = re.compile(r"[A-Za-z0-9_.:-]+")

LayoutFor = Callable[[str], "MapLayout | None"]


@dataclass(frozen=True)
class HexPlace:
    """Where a pack hex id is in VASSAL: its map and the grid's location name."""

    map_id: str
    location: str


def hex_places(hex_ids: Iterable[str], hex_maps: Sequence[tuple[str, re.Pattern[str], str]]
               ) -> dict[str, HexPlace]:
    """Pack hex id -> VASSAL place, by inverting the pack's `[[vassal.places.hexes]]` templates.

    Why invert rather than ask the pack: the mapping reads `location -> hex id` through a template
    (`"{location}"`, or e.g. `"tk-{location}"`); a template with one `{location}` is reversible by
    stripping its fixed prefix and suffix. Hex ids no template produces are left out (no guessing).
    """
    places: dict[str, HexPlace] = {}
    for hex_id in hex_ids:
        for map_id, pattern, template in hex_maps:
            if template.count("{location}") != 1:
                continue
            prefix, suffix = template.split("{location}")
            if not (hex_id.startswith(prefix) and hex_id.endswith(suffix)):
                continue
            location = hex_id[len(prefix):len(hex_id) - len(suffix)]
            if location and pattern.fullmatch(location):
                places[hex_id] = HexPlace(map_id, location)
                break
    return places


def event_focus(event: Mapping[str, Any], known_hexes: Mapping[str, Any]) -> list[str]:
    """Hex ids the event is about, in order of mention: its steps' hexes and countries, else its why lines.

    Why steps first: a fired event's why lines also explain the countries it did NOT affect
    (16.1.1 names every City of France when only Poland fell); its steps are what the players do.
    """
    found: list[str] = []

    def add(hex_id: Any) -> None:
        if isinstance(hex_id, str) and hex_id in known_hexes and hex_id not in found:
            found.append(hex_id)

    countries: list[str] = []
    for step in event.get("steps") or []:
        for key in ("from", "to"):
            add(step.get(key))
        for token in _TOKEN.findall(str(step.get("text") or "")):
            add(token)
        subject = step.get("subject")
        if isinstance(subject, str) and subject not in countries:
            countries.append(subject)
    for country in countries:  # the hexes of the countries the steps change (6.2: conquest, Vichy, ...)
        for hex_id, info in known_hexes.items():
            if getattr(info, "country", None) == country:
                add(hex_id)
    if not found:
        for line in event.get("why") or []:
            for token in _TOKEN.findall(str(line)):
                add(token)
    return found[:MAX_FOCUS_HEXES]


def neighbours(layout: MapLayout, center: tuple[int, int]) -> list[str]:
    """Location names of the cells across each edge of the cell at `center` (hex or square grids).

    Why geometry, not numbering arithmetic: the reflection of the centre across an edge's midpoint
    is the neighbour's centre for any regular grid, whatever its orientation, stagger, numbering or
    board reversal — so the module's own grid decides what is adjacent.
    """
    outline = layout.cell_polygon(*center)
    if not outline:
        return []
    cx, cy = center
    names: list[str] = []
    for (x1, y1), (x2, y2) in zip(outline, [*outline[1:], outline[0]], strict=True):
        nx, ny = x1 + x2 - cx, y1 + y2 - cy  # 2 * midpoint - centre
        name = layout.location_name(round(nx), round(ny))
        if name is not None and name != OFFBOARD and name not in names:
            names.append(name)
    return names


Cell = tuple[tuple[int, int], tuple[tuple[int, int], ...]]  # (centre, outline), map pixels
_Cells = dict[str, "Cell | None"]  # location name -> its cell
_Around = dict[tuple[int, int], tuple[str, ...]]  # a cell's centre -> its neighbours' names


def grid_cell(layout: MapLayout, location: str) -> Cell | None:
    """The centre and outline of the cell a location name names, None when the grid has none."""
    center = layout.point_for(location)
    if center is None:
        return None
    outline = layout.cell_polygon(*center)
    if not outline:
        return None
    return (center[0], center[1]), tuple((x, y) for x, y in outline)


class InsetGeometry:
    """The grid answers the insets ask (`grid_cell`, `neighbours`), remembered per layout.

    Why: an inset's cells and their neighbours cost about 5 M instructions of the demo's first
    save (each name parsed by the grid's numbering pattern, each outline and neighbour computed), yet
    they depend only on the layout — the module's boards as the save chose them — never on the
    pieces. `CheckPipeline.warm_up` fills this for every pack hex on the default boards' layouts, so
    a first save's insets are lookups. Exact: an answer is the layout's own, kept only when working it
    out recorded no new layout problem (so a remembered answer is one a new call would give without
    side effects); layouts are told apart by identity and held (at most MAX_LAYOUTS, then the
    oldest is dropped), each with at most MAX_CELLS answers."""

    MAX_LAYOUTS = 8
    MAX_CELLS = 20_000

    def __init__(self) -> None:
        # id(layout) -> (layout, location -> cell, centre -> neighbour names)
        self._tables: dict[int, tuple[MapLayout, _Cells, _Around]] = {}

    def _of(self, layout: MapLayout) -> tuple[_Cells, _Around]:
        found = self._tables.get(id(layout))
        if found is None or found[0] is not layout:
            if len(self._tables) >= self.MAX_LAYOUTS:
                del self._tables[next(iter(self._tables))]
            found = self._tables[id(layout)] = (layout, {}, {})
        return found[1], found[2]

    def cell(self, layout: MapLayout, location: str) -> Cell | None:
        cells, _ = self._of(layout)
        if location in cells:
            return cells[location]
        problems = len(layout.problems)
        found = grid_cell(layout, location)
        if len(layout.problems) == problems and len(cells) < self.MAX_CELLS:
            cells[location] = found
        return found

    def neighbours(self, layout: MapLayout, center: tuple[int, int]) -> list[str]:
        _, around = self._of(layout)
        names = around.get(center)
        if names is None:
            problems = len(layout.problems)
            names = tuple(neighbours(layout, center))
            if len(layout.problems) == problems and len(around) < self.MAX_CELLS:
                around[center] = names
        return list(names)

    def warm(self, layout: MapLayout, locations: Iterable[str]) -> int:
        """Work out the cells of `locations` and of their neighbours; returns how many cells."""
        done = 0
        for location in locations:
            found = self.cell(layout, location)
            if found is None:
                continue
            done += 1
            for name in self.neighbours(layout, found[0]):
                done += self.cell(layout, name) is not None
        return done


def _hex_entry(layout: MapLayout, location: str, label: str | None, focus: bool,
               geometry: InsetGeometry | None = None) -> dict[str, Any] | None:
    found = geometry.cell(layout, location) if geometry is not None else grid_cell(layout, location)
    if found is None:
        return None
    center, outline = found
    return {"name": location, "label": label, "center": [center[0], center[1]],
            "points": [[x, y] for x, y in outline], "focus": focus}


def build_inset(event: Mapping[str, Any], pieces: Iterable[Any], layout_for: LayoutFor,
                known_hexes: Mapping[str, Any], places: Mapping[str, HexPlace],
                piece_counters: Mapping[str, str] | None = None,
                geometry: InsetGeometry | None = None) -> dict[str, Any] | None:
    """The inset for one event, or None when it names no hex the module's grid can place.

    `geometry` (a daemon's, see `InsetGeometry`) answers the grid questions from memory; the
    inset is the same with or without it."""
    focus = [places[h] for h in event_focus(event, known_hexes) if h in places]
    if not focus:
        return None
    map_id = focus[0].map_id  # one inset shows one map: the first hex named decides which
    layout = layout_for(map_id)
    if layout is None:
        return None
    labels = {place.location: getattr(known_hexes.get(hex_id), "name", None)
              for hex_id, place in places.items() if place.map_id == map_id}
    hexes: list[dict[str, Any]] = []
    seen: set[str] = set()
    for place in focus:
        if place.map_id != map_id or place.location in seen:
            continue
        entry = _hex_entry(layout, place.location, labels.get(place.location), True, geometry)
        if entry is not None:
            hexes.append(entry)
            seen.add(place.location)
    for entry in list(hexes):
        center = (entry["center"][0], entry["center"][1])
        around = geometry.neighbours(layout, center) if geometry is not None else neighbours(layout, center)
        for name in around:
            if len(hexes) >= MAX_HEXES:
                break
            if name in seen:
                continue
            neighbour = _hex_entry(layout, name, labels.get(name), False, geometry)
            seen.add(name)
            if neighbour is not None:
                # the named hex it is drawn around (bridge/web/view_filter.py)
                neighbour["near"] = entry["name"]
                hexes.append(neighbour)
    if not hexes:
        return None
    counters = [_counter(piece, piece_counters) for piece in _shown_in(pieces, map_id, seen)]
    return {"map": map_id, "hexes": hexes, "counters": counters}


def _shown_in(pieces: Iterable[Any], map_id: str, seen: set[str]) -> list[Any]:
    """The pieces an inset shows: on its map, in one of its hexes, neither hidden nor masked.

    Why two forms: every piece of the position is looked at (5,000 in a big save), and plain
    attribute reads cost a fifth of `getattr` with a default; a piece-like object lacking one of
    them (a caller's own) is read the general way."""
    pieces = pieces if isinstance(pieces, (list, tuple)) else list(pieces)  # read twice, perhaps
    try:
        return [piece for piece in pieces if piece.location in seen and piece.map == map_id
                and not piece.hidden_by and not piece.masked_by]
    except AttributeError:
        return [piece for piece in pieces
                if getattr(piece, "map", None) == map_id and getattr(piece, "location", None) in seen
                and not getattr(piece, "hidden_by", None) and not getattr(piece, "masked_by", None)]


def _counter(piece: Any, piece_counters: Mapping[str, str] | None) -> dict[str, Any]:
    return {"name": piece.basic_name or piece.piece_name, "counter": (piece_counters or {}).get(piece.id),
            "hex": piece.location, "x": piece.x, "y": piece.y}


def add_insets(plan: dict[str, Any], pieces: Sequence[Any], layout_for: LayoutFor,
               known_hexes: Mapping[str, Any], places: Mapping[str, HexPlace],
               piece_counters: Mapping[str, str] | None = None,
               geometry: InsetGeometry | None = None) -> None:
    """Give every due event (fired or waiting) its `map` inset, in place."""
    for event in plan.get("events") or []:
        if event.get("status") not in ("fired", "waiting"):
            continue
        inset = build_inset(event, pieces, layout_for, known_hexes, places, piece_counters, geometry)
        if inset is not None:
            event["map"] = inset
