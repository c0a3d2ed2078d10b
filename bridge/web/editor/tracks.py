"""Tracks drawn in the pack editor (`adjutant pack edit`, the page's tracks.js): checked as the mapping
will read them (bridge/mapping/tracks.py), then written into the pack's `[[vassal.tracks]]` with tomlkit.

Why its own module: the editor page and session are reworked elsewhere (sidebar, zoom, unsaved edits);
the track mode keeps to this file, tracks.js, and three small hooks in bridge/web/editor/model.py."""

from __future__ import annotations

from typing import Any

import tomlkit
from tomlkit.items import AoT

from bridge.mapping.tracks import MAX_BOXES, parse_box
from vassal_parser.errors import InputError


class TrackError(ValueError):
    """A track the page must not save (sent back as one line)."""


def track_models(mapping: Any) -> list[dict[str, Any]]:
    """The pack's tracks for the page: each box as a rect where its shape is one (a polygon of four
    axis-aligned corners included), so the page can load a track and adjust its boxes; a track with a
    box that is a VASSAL location or another polygon is listed, not editable."""
    out = []
    for track in mapping.tracks.tracks if mapping is not None else []:
        boxes = []
        for box in track.boxes:
            xs, ys = sorted({x for x, _y in box.polygon}), sorted({y for _x, y in box.polygon})
            if box.location is not None or len(box.polygon) != 4 or len(xs) != 2 or len(ys) != 2:
                boxes = None
                break
            boxes.append({"name": box.name, "value": box.value, "rect": [xs[0], ys[0], xs[1], ys[1]]})
        out.append({"name": track.name, "map": track.map, "board": track.board, "verified": track.verified,
                    "places": track.places, "boxes": boxes})
    return out


def check_track(raw: Any, module: Any) -> dict[str, Any]:
    """The track as the page drew it: a name, a map and board of the module, boxes in board pixels."""
    if not isinstance(raw, dict):
        raise TrackError("a track is an object {name, map, board, boxes}")
    name, map_id, board = raw.get("name"), raw.get("map"), raw.get("board")
    if not isinstance(name, str) or not name.strip() or len(name) > 200:
        raise TrackError("a track needs a name (as the board prints it)")
    map_def = next((m for m in module.maps if m.identifier == map_id), None)
    if map_def is None:
        raise TrackError(f"{map_id!r} is not a map of module {module.name}")
    if board is not None and board not in {b.name for b in map_def.boards}:
        raise TrackError(f"{board!r} is not a board of map {map_id}")
    boxes = raw.get("boxes")
    if not isinstance(boxes, list) or not 1 <= len(boxes) <= MAX_BOXES:
        raise TrackError(f"a track has 1 to {MAX_BOXES} boxes")
    checked = []
    for index, box in enumerate(boxes):
        where = f"track {name!r} box #{index + 1}"
        if not isinstance(box, dict) or set(box) - {"name", "value", "rect"}:
            raise TrackError(f"{where}: a box is {{name, value, rect}}")
        try:
            parse_box(box, where, "the page")
        except InputError as exc:
            raise TrackError(exc.one_line() if hasattr(exc, "one_line") else str(exc)) from None
        checked.append({"name": str(box["name"]), "value": box["value"], "rect": list(box["rect"])})
    verified = raw.get("verified", True)
    if not isinstance(verified, bool):
        raise TrackError("verified is true or false")
    return {"name": name.strip(), "map": map_id, **({"board": board} if board else {}), "boxes": checked,
            "verified": verified}


def write_tracks(vassal: Any, tracks: dict[str, dict[str, Any]]) -> None:
    """Each track into `[[vassal.tracks]]`: a track of the same name is replaced in place (its other
    keys, such as `note` or `places`, and its comments kept), a new one appended."""
    if "tracks" not in vassal:
        vassal["tracks"] = tomlkit.aot()
    entries = vassal["tracks"]
    if not isinstance(entries, AoT | list):
        raise TrackError("[vassal] tracks is not an array of tables")
    for name, track in tracks.items():
        existing = next((t for t in entries if t.get("name") == name), None)
        table = existing if existing is not None else tomlkit.table()
        for key in ("name", "map", "board"):
            if key in track:
                table[key] = track[key]
            elif key in table:
                del table[key]
        if track.get("verified", True):  # drawn on the board image: checked now
            for key in ("verified", "note"):
                if key in table:
                    del table[key]
        else:
            table["verified"] = False
        boxes = tomlkit.array()
        for box in track["boxes"]:
            item = tomlkit.inline_table()
            item.update(box)
            boxes.append(item)
        boxes.multiline(True)
        table["boxes"] = boxes
        if existing is None:
            entries.append(table)
