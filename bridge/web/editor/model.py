"""The map editor's session: the pack as the page edits it, its live coverage, and saving it.

Why a session on the server: coverage (rules.facts) and validation (rules.packs) are Python, and the
page must show exactly what `adjutant pack check` would say, so every edit goes to the server, which
keeps the working copy and answers with the new coverage. Nothing is written until `save`.

Why tomlkit for saving: packs are hand-written TOML with comments and an order a user chose; the
editor changes single entries in place (inline tables stay inline, `[hexes.x]` tables stay tables)
and leaves every other byte as it was. A save writes all its files or none (vassal_parser.atomic:
every temp file written and fsynced, then each renamed, modes kept); the pack is then reloaded, and on
any error the previous files are put back, so a save never leaves a pack `check` cannot read. Temp
files a killed save left are removed when a session starts.

Why over 500 lines: `EditorSession` is one working copy — the hexes, border lists, boxes, tracks,
neighbouring countries and [complete] claims, their coverage and their all-or-nothing save — and every
edit, undo and save must see the same state; its history (history.py), track drawing (tracks.py),
neighbour lists (neighbors.py) and Counters pane (counters.py) are modules of their own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import tomlkit
import tomlkit.exceptions
from tomlkit.items import Table

from bridge.mapping.cells import module_cells
from bridge.mapping.mapper import VassalMapping
from bridge.reports.pack_report import capitals_off_module
from bridge.web.editor.counters import CounterPane, RuleEditError
from bridge.web.editor.history import EditHistory, Key
from bridge.web.editor.neighbors import NeighbourError, base_neighbours, check_neighbours, write_neighbours
from bridge.web.editor.tracks import track_models
from rules.facts import FACT_KINDS, count_facts, coverage
from rules.packs import FACTIONS, PACKS_DIR, HexInfo, Pack, inherited_tables, load_pack
from rules.state import BOX_KINDS, BOX_LABELS
from vassal_parser.atomic import remove_leftovers, write_files_atomically
from vassal_parser.errors import InputError
from vassal_parser.layout import OFFBOARD
from vassal_parser.module import Module, load_module

FLAGS = ("city", "capital", "port", "partisan_base", "white_star", "strategic", "road", "rail")
CHOICE_FIELDS = ("country", "area", "strategic_faction")
EDITABLE = (*CHOICE_FIELDS, *FLAGS)
HEX_FIELDS = tuple(f.name for f in dataclasses.fields(HexInfo) if f.name != "id")
NEW_HEXES_FILE = "map.toml"


class EditError(ValueError):
    """An edit the page must not make (a choice not from the pack); sent back as one line."""


def _record(info: HexInfo) -> dict[str, Any]:
    """A hex as TOML fields, defaults left out (what a user would write by hand)."""
    out: dict[str, Any] = {}
    for name in HEX_FIELDS:
        value = getattr(info, name)
        default = next(f.default for f in dataclasses.fields(HexInfo) if f.name == name)
        if value != default:
            out[name] = list(value) if isinstance(value, tuple) else value
    return out


def _extent(size: tuple[int, int] | None, boards: list[dict[str, Any]],
            cells: list[dict[str, Any]]) -> list[int] | None:
    """The map's size in pixels; without board images (a bare buildFile), the extent of its boards,
    grid cells and zones, so that every hex can be reached (a fixed default would cut most of a big map)."""
    if size:
        return list(size)
    xs = [b["x"] + b["width"] for b in boards if b["width"] is not None]
    ys = [b["y"] + b["height"] for b in boards if b["height"] is not None]
    for cell in cells:
        for x, y in cell["points"] or [cell["center"]]:
            xs.append(x)
            ys.append(y)
    if not xs or not ys:
        return None
    margin = 20
    return [max(xs) + margin, max(ys) + margin]


class EditorSession:
    """One pack being edited against one module (which is only ever read)."""

    def __init__(self, pack_dir: str | Path, module_path: str | Path,
                 extensions: Iterable[str] = ()) -> None:
        self.pack = load_pack(pack_dir)
        self.pack_dir = self.pack.path
        if self.pack_dir.resolve().is_relative_to(PACKS_DIR.resolve()):
            # Shipped packs are the edition's rules data for every user; a module's map belongs in a
            # pack of one's own that inherits them (and an upgrade would lose edits made in place).
            raise InputError(self.pack_dir, f"pack {self.pack.name} ships with Adjutant: edit a pack of your "
                                            f"own that inherits it (adjutant pack scaffold {module_path} "
                                            f"--base {self.pack.name} -o my-pack)")
        # What a save killed midway left behind (our own temp names only, vassal_parser/atomic.py).
        self.leftovers_removed = remove_leftovers(self.pack_dir)
        self.module_path = Path(module_path)
        self.module: Module = load_module(self.module_path, list(extensions))
        self.hexes: dict[str, dict[str, Any]] = {h: _record(i) for h, i in self.pack.hexes.items()}
        self.border: dict[str, list[str]] = {area: [str(h) for h in spec.get("hexes", []) or []]
                                             for area, spec in self.pack.border_defense.items()}
        table = self.pack.extra.get("vassal")
        self.mapping = VassalMapping.from_pack(self.pack) if isinstance(table, dict) else None
        self.boxes: dict[str, str] = dict(self.mapping.boxes) if self.mapping else {}
        # [complete]: fact -> subjects whose fact the pack locates in full ("all"); None = no table.
        self.complete: dict[str, set[str] | str] | None = (
            None if self.pack.complete is None else
            {f: v if isinstance(v, str) else set(v) for f, v in self.pack.complete.items()})
        self.changed_complete: set[str] = set()
        self.changed_hexes: set[str] = set()
        self.changed_border: set[str] = set()
        self.changed_boxes: set[str] = set()
        # Each country's neighbouring countries as the page shows them, and the base pack's (issue 38).
        self.neighbors: dict[str, list[str]] = {c: list(i.neighbors) for c, i in self.pack.countries.items()}
        self.base_neighbors = base_neighbours(inherited_tables(self.pack_dir))
        self.changed_neighbors: set[str] = set()
        # A region's own list (`[areas.x] neighbors`, 16.2.2 Step 10); its hexes' borders add to it.
        self.area_neighbors: dict[str, list[str]] = {a: list(i.neighbors) for a, i in self.pack.areas.items()}
        self.base_area_neighbors = base_neighbours(inherited_tables(self.pack_dir), "areas")
        self.changed_area_neighbors: set[str] = set()
        self.track_edits: dict[str, dict[str, Any]] = {}  # tracks drawn on the page (web/editor/tracks.py)
        self.cells = module_cells(self.module)
        # Every pack hex id the module's maps have: a located fact on a hex the module lacks (the base
        # pack's France Capital w3516 on another game's map) locates nothing here.
        self.module_hexes = {self.hex_id_for(m.identifier, c.name) for m in self.module.maps
                             for c in self.cells[m.identifier].cells if c.kind in ("hex", "square")}
        self.module_hexes.discard(None)
        # Countries whose Capital the page marked with K: counted as located in full (a country has one
        # Capital), without a separate "complete" click; removed again when the K goes.
        self.capitals_marked: set[str] = set()
        # The Counters pane (web/editor/counters.py): the pack's rules and the module's pieces they take.
        self.counters = CounterPane(self.pack_dir, self.mapping, self.module, lambda: self.boxes)
        self.history = EditHistory(self._read_entry, self._write_entry)
        self._saved = self._entries()

    # ---- what the page shows -------------------------------------------------------------------
    def hex_id_for(self, map_id: str, location: str) -> str | None:
        """The pack hex id of a VASSAL location, through the pack's hex rules (the names themselves
        when the pack has no [vassal] table yet)."""
        if self.mapping is None:
            return location
        for rule_map, pattern, template in self.mapping.hex_maps:
            if rule_map == map_id and pattern.fullmatch(location):
                return template.replace("{location}", location)
        return None

    def box_choices(self) -> list[dict[str, str]]:
        """The game's boxes, as the rules text names them; qualifiers from the pack, never typed."""
        out = []
        for kind, qualifier in BOX_KINDS.items():
            label = BOX_LABELS[kind]
            if qualifier is None:
                out.append({"value": kind, "label": label})
            elif qualifier == "faction":
                out += [{"value": f"{kind}:{f}", "label": label.format(q=f)} for f in FACTIONS]
            elif qualifier == "country":
                out += [{"value": f"{kind}:{c}", "label": label.format(q=c)}
                        for c in sorted(self.pack.countries)]
        return out

    def model(self) -> dict[str, Any]:
        maps = []
        for index, map_def in enumerate(self.module.maps):
            found = self.cells[map_def.identifier]
            boards = []
            for b_index, placed in enumerate(found.boards):
                size = placed.board.size
                boards.append({"name": placed.name, "x": placed.x, "y": placed.y,
                               "width": size[0] if size else None, "height": size[1] if size else None,
                               "reversed": placed.reversed,
                               "image": f"/board/{index}/{b_index}" if placed.board.image and size else None})
            cells = []
            for cell in found.cells:
                data = cell.to_json()
                if cell.kind in ("hex", "square"):
                    data["hex"] = self.hex_id_for(map_def.identifier, cell.name)
                cells.append(data)
            zones = sorted({c.name for c in found.cells if c.kind in ("zone", "region")})
            if not found.cells and map_def.boards and all(b.grid is None for b in map_def.boards):
                zones = [f"{map_def.identifier}: {OFFBOARD}"]
            missing = [placed.board.image for placed in found.boards
                       if placed.board.image and placed.board.size is None]
            maps.append({"id": map_def.identifier, "size": _extent(found.size, boards, cells),
                         "boards": boards, "cells": cells, "zones": zones, "problems": found.problems,
                         "missing_images": missing})
        pack = self.pack
        return {
            "pack": {"name": pack.name, "title": pack.title, "path": str(self.pack_dir)},
            "module": {"name": self.module.name, "version": self.module.version,
                       "file": self.module_path.name},
            "choices": {
                "country": sorted(pack.countries),
                "area": [{"value": a, "label": info.name, "country": info.country}
                         for a, info in sorted(pack.areas.items())],
                "strategic_faction": list(FACTIONS),
                "border_defense": [{"value": a, "label": pack.areas[a].name if a in pack.areas else a}
                                   for a in sorted(pack.border_defense)],
                "boxes": self.box_choices(),
            },
            "maps": maps,
            "hexes": self.hexes,
            "border": self.border,
            "boxes": self.boxes,
            **self.edit_state(),
            "tracks": track_models(self.mapping),
            "counters": self.counters.model(),
            "counter_pieces": self.counters.pieces_model(),
        }

    @property
    def dirty(self) -> bool:
        return self.unsaved() > 0 or bool(self.track_edits)

    def unsaved(self) -> int:
        """How many entries (hexes, border lists, boxes, [complete] facts) differ from the files on disk."""
        now = self._entries()
        return sum(1 for key in now.keys() | self._saved.keys() if now.get(key) != self._saved.get(key))

    def _entries(self) -> dict[tuple[str, str], Any]:
        out: dict[tuple[str, str], Any] = {("hex", h): dict(r) for h, r in self.hexes.items()}
        out.update({("border", a): list(v) for a, v in self.border.items() if v})
        out.update({("box", z): b for z, b in self.boxes.items()})
        out.update({("neighbors", c): list(v) for c, v in self.neighbors.items()})
        out.update({("area_neighbors", a): list(v) for a, v in self.area_neighbors.items()})
        for fact, listed in (self.complete or {}).items():
            out[("complete", fact)] = listed if isinstance(listed, str) else sorted(listed)
        out.update(self.counters.unsaved())
        return out

    def edit_state(self) -> dict[str, Any]:
        """What the page redraws after an edit, an undo or a redo: counts always, entries after undo/redo."""
        lines = self.coverage()
        counted = count_facts(lines)  # the count `pack check` prints, in the same words (issue 38)
        return {"coverage": lines, "facts": {**counted.to_json(), "text": counted.text()},
                "neighbors": self.neighbors, "base_neighbors": self.base_neighbors,
                "area_neighbors": self.area_neighbors, "base_area_neighbors": self.base_area_neighbors,
                "dirty": self.dirty, "unsaved": self.unsaved(),
                "undo": len(self.history.undo_steps), "redo": len(self.history.redo_steps),
                "counters_version": self.counters.full_version()}

    def preview_pack(self) -> Pack:
        """The pack as edited so far (not saved), for coverage."""
        hexes = {h: HexInfo(id=h, **{k: tuple(v) if isinstance(v, list) else v for k, v in r.items()})
                 for h, r in self.hexes.items() if "country" in r}
        border = {a: {**spec, "hexes": list(self.border.get(a, []))}
                  for a, spec in self.pack.border_defense.items()}
        complete = None if self.complete is None else {
            f: v if isinstance(v, str) else frozenset(v) for f, v in self.complete.items()}
        countries = {c: dataclasses.replace(i, neighbors=tuple(self.neighbors.get(c, i.neighbors)))
                     for c, i in self.pack.countries.items()}
        areas = {a: dataclasses.replace(i, neighbors=tuple(self.area_neighbors.get(a, i.neighbors)))
                 for a, i in self.pack.areas.items()}
        return dataclasses.replace(self.pack, hexes=hexes, border_defense=border, complete=complete,
                                   countries=countries, areas=areas)

    def coverage(self) -> list[dict[str, Any]]:
        """rules.facts.coverage of the edited pack, with the hexes to highlight for each subject."""
        pack = self.preview_pack()
        out = []
        for line in coverage(pack):
            data = line.to_json()
            line_kind = FACT_KINDS[line.fact]
            if line.fact == "capital":
                self._capital_on_module(pack, data)
            data["where"] = {s: self._hexes_of(pack, line.per, s) for s in (*line.have, *line.lack)}
            # Subjects the page may declare complete ("these are all of Poland's City hexes", or "it
            # has none"): only a pack with a [complete] table distinguishes located from complete.
            data["can_complete"] = self._can_complete(line.fact)
            data["complete"] = sorted(s for s in line.have
                                      if self.complete is not None and s in self.complete.get(line.fact, ()))
            # Subjects with nothing of the fact marked: their ✓ declares "none", which the page asks
            # about first (issue 38: a silent ✓ on "Eastern Poland: hexes" recorded none without a word).
            data["empty"] = [s for s in line.lack if not line_kind.lookup(pack, s)]
            if line.fact == "area_neighbors":  # its own list and what its hexes' borders add (shown apart)
                data["values"] = {s: list(line_kind.lookup(pack, s)) for s in (*line.have, *line.lack)}
            out.append(data)
        return out

    def _capital_on_module(self, pack: Pack, data: dict[str, Any]) -> None:
        """A Capital on a hex this module lacks is not located here (bridge/reports/pack_report.py: the
        same adjustment `pack check --module` makes, so both count the same facts)."""
        capitals_off_module(pack, data, self.module_hexes, self.module.name)

    @staticmethod
    def _hexes_of(pack: Pack, per: str, subject: str) -> list[str]:
        if per == "area":
            return sorted(h for h, i in pack.hexes.items() if i.area == subject)
        return sorted(h for h, i in pack.hexes.items() if i.country == subject)

    # ---- edits ---------------------------------------------------------------------------------
    def apply(self, message: dict[str, Any]) -> None:
        """One edit, recorded in the history as part of the step its `step` token names."""
        _refuse_bad_text(message)
        step = message.get("step")
        token = step if isinstance(step, str) and len(step) <= 100 else None
        self.history.record(token, self._touched(message), lambda: self._apply(message))

    def undo(self) -> bool:
        return self.history.undo()

    def redo(self) -> bool:
        return self.history.redo()

    def _touched(self, message: dict[str, Any]) -> list[Key]:
        kind = message.get("type")
        if kind == "rule":  # the Counters pane: one rule, nothing of the map
            if message.get("action") == "add":
                return [("rule", self.counters.next_id(message.get("kind")))]
            return [("rule", message["rule"])] if isinstance(message.get("rule"), str) else []
        if kind == "place":  # the Counters pane: a proposed box pattern
            return [("place", message["name"])] if isinstance(message.get("name"), str) else []
        keys: list[Key] = [("complete", "")]  # the Capital mark may list a country under [complete]
        if kind == "set" and isinstance(message.get("hexes"), list):
            keys += [("hex", h) for h in message["hexes"] if isinstance(h, str)]
        elif kind == "restore" and isinstance(message.get("records"), dict):
            keys += [("hex", h) for h in message["records"] if isinstance(h, str)]
        elif kind == "border" and isinstance(message.get("area"), str):
            keys.append(("border", message["area"]))
        elif kind == "box" and isinstance(message.get("zone"), str):
            keys.append(("box", message["zone"]))
        elif kind == "neighbors" and "area" in message and isinstance(message["area"], str):
            keys.append(("area_neighbors", message["area"]))  # as _neighbours reads it: "area" first
        elif kind == "neighbors" and "area" not in message and isinstance(message.get("country"), str):
            keys.append(("neighbors", message["country"]))
        return keys

    def _read_entry(self, key: Key) -> Any:
        kind, name = key
        if kind == "hex":
            return self.hexes.get(name)
        if kind == "border":
            return self.border.get(name)
        if kind == "box":
            return self.boxes.get(name)
        if kind == "rule":
            return self.counters.read(name)
        if kind == "place":
            return self.counters.read_place(name)
        if kind == "neighbors":
            return list(self.neighbors[name]) if name in self.neighbors else None
        if kind == "area_neighbors":
            return list(self.area_neighbors[name]) if name in self.area_neighbors else None
        return (self.complete, set(self.capitals_marked))

    def _write_entry(self, key: Key, value: Any) -> None:
        kind, name = key
        if kind == "hex":
            if value is None:
                self.hexes.pop(name, None)
            else:
                self.hexes[name] = value
            self.changed_hexes.add(name)
        elif kind == "border":
            if value is None:
                self.border.pop(name, None)
            else:
                self.border[name] = value
            self.changed_border.add(name)
        elif kind == "box":
            if value is None:
                self.boxes.pop(name, None)
            else:
                self.boxes[name] = value
            self.changed_boxes.add(name)
        elif kind == "rule":
            self.counters.write(name, value)
        elif kind == "place":
            self.counters.write_place(name, value)
        elif kind == "neighbors":
            if value is not None:
                self.neighbors[name] = list(value)
                self.changed_neighbors.add(name)
        elif kind == "area_neighbors":
            if value is not None:
                self.area_neighbors[name] = list(value)
                self.changed_area_neighbors.add(name)
        else:
            complete, marked = value
            if complete is not None:
                self.changed_complete.update(f for f in complete.keys() | (self.complete or {}).keys()
                                             if complete.get(f) != (self.complete or {}).get(f))
            self.complete, self.capitals_marked = complete, marked

    def _mark_capitals(self, touched: list[str]) -> None:
        """A hex marked Capital (K) locates its country's Capital in full: list it under [complete] capital.
        Only the hexes this edit touched count (a base pack's Capital is not vouched for by the user)."""
        if self.complete is None or not self._can_complete("capital"):
            return
        with_capital = {r["country"] for r in self.hexes.values() if r.get("capital") and r.get("country")}
        listed = self.complete.get("capital", set())
        assert isinstance(listed, set)
        marked_now = {self.hexes[h]["country"] for h in touched
                      if h in self.hexes and self.hexes[h].get("capital") and self.hexes[h].get("country")}
        added = marked_now - listed
        dropped = self.capitals_marked - with_capital
        if not added and not dropped:
            return
        listed = (listed | added) - dropped
        self.capitals_marked = (self.capitals_marked | added) - dropped
        if listed or "capital" in (self.pack.complete or {}):
            self.complete["capital"] = listed
        else:
            self.complete.pop("capital", None)
        self.changed_complete.add("capital")

    def _apply(self, message: dict[str, Any]) -> None:
        self._apply_one(message)
        touched = [name for kind, name in self._touched(message) if kind == "hex"]
        if touched:
            self._mark_capitals(touched)

    def _apply_one(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "set":
            self._set(message.get("hexes"), message.get("field"), message.get("value"))
        elif kind == "restore":
            self._restore(message.get("records"))
        elif kind == "border":
            self._border(message.get("area"), message.get("hexes"), message.get("member"))
        elif kind == "box":
            self._box(message.get("zone"), message.get("box"))
        elif kind == "neighbors":
            self._neighbours(message)
        elif kind == "complete":
            self._complete(message.get("fact"), message.get("subject"), message.get("value"),
                           message.get("none", False))
        elif kind in ("rule", "place"):
            try:
                (self.counters.apply if kind == "rule" else self.counters.apply_place)(message)
            except RuleEditError as exc:
                raise EditError(str(exc)) from None
        elif kind == "track":
            from bridge.web.editor.tracks import TrackError, check_track

            if self.mapping is None:
                raise EditError(f"pack {self.pack.name} has no [vassal] table to keep tracks in")
            try:
                track = check_track(message.get("track"), self.module)
            except TrackError as exc:
                raise EditError(str(exc)) from None
            self.track_edits[track["name"]] = track
        else:
            raise EditError(f"unknown edit {kind!r}")

    def _neighbours(self, message: dict[str, Any]) -> None:
        """A country's (or a region's) neighbouring countries, as the page lists them (neighbors.py)."""
        area = "area" in message
        subject = message.get("area" if area else "country")
        try:
            listed = check_neighbours(subject, message.get("countries"), self.pack.countries, self.pack.name,
                                      self.pack.areas if area else None, "an area" if area else "a country")
        except NeighbourError as exc:
            raise EditError(str(exc)) from None
        if area:
            self.area_neighbors[subject] = listed
            self.changed_area_neighbors.add(subject)
        else:
            self.neighbors[subject] = listed
            self.changed_neighbors.add(subject)

    def _hex_ids(self, hexes: Any) -> list[str]:
        if (not isinstance(hexes, list) or len(hexes) > 2000
                or not all(isinstance(h, str) and h for h in hexes)):
            raise EditError("hexes must be a list of at most 2000 hex ids")
        return hexes

    def _set(self, hexes: Any, field: Any, value: Any) -> None:
        ids = self._hex_ids(hexes)
        if field not in EDITABLE:
            raise EditError(f"{field!r} is not a field the editor sets")
        if field in FLAGS and not isinstance(value, bool):
            raise EditError(f"{field} is true or false")
        allowed = {"country": self.pack.countries, "area": self.pack.areas, "strategic_faction": FACTIONS}
        if field in CHOICE_FIELDS and value is not None and value not in allowed[field]:
            raise EditError(f"{value!r} is not a {field.replace('_', ' ')} of pack {self.pack.name}")
        if value is None and field in CHOICE_FIELDS:
            inherited = inherited_tables(self.pack_dir).get("hexes", {})
            kept = [h for h in ids if field in (inherited.get(h) or {})]
            if kept:
                raise EditError(f"{kept[0]}: its {field.replace('_', ' ')} comes from the base pack; "
                                "choose another instead of none")
        for hex_id in ids:
            record = self.hexes.get(hex_id)
            if record is None:
                if field != "country":
                    raise EditError(f"{hex_id} has no country yet: set its country first")
                record = {}
            if field == "country" and value is None:
                self.hexes.pop(hex_id, None)
            else:
                if value in (None, False):
                    record.pop(field, None)
                else:
                    record[field] = value
                self.hexes[hex_id] = record
            self.changed_hexes.add(hex_id)

    def _restore(self, records: Any) -> None:
        """Whole hex records (undo, redo and the page's edits): each validated as the pack would be."""
        if not isinstance(records, dict) or len(records) > 2000:
            raise EditError("records must be an object of at most 2000 hex ids")
        checked: dict[str, dict[str, Any] | None] = {}
        inherited = inherited_tables(self.pack_dir).get("hexes", {})
        for hex_id, record in records.items():
            if not hex_id:
                raise EditError("a hex id is never empty")
            if record is None:
                if hex_id in inherited:
                    raise EditError(f"{hex_id} comes from the base pack: it keeps a country")
                checked[hex_id] = None
                continue
            if not isinstance(record, dict) or set(record) - set(HEX_FIELDS):
                raise EditError(f"{hex_id}: a record has only the fields {', '.join(HEX_FIELDS)}")
            self._check_record(hex_id, record, inherited.get(hex_id) or {})
            checked[hex_id] = dict(record)
        for hex_id, record in checked.items():
            if record is None:
                self.hexes.pop(hex_id, None)
            else:
                self.hexes[hex_id] = record
            self.changed_hexes.add(hex_id)

    def _check_record(self, hex_id: str, record: dict[str, Any], inherited: dict[str, Any]) -> None:
        choices = {"country": self.pack.countries, "area": self.pack.areas, "strategic_faction": FACTIONS}
        if record.get("country") is None:
            raise EditError(f"{hex_id} has no country: choose its country first")
        for field_name, allowed in choices.items():
            value = record.get(field_name)
            if value is not None and value not in allowed:
                raise EditError(f"{value!r} is not a {field_name.replace('_', ' ')} of pack {self.pack.name}")
            if value is None and field_name in inherited:
                raise EditError(f"{hex_id}: its {field_name.replace('_', ' ')} comes from the base pack; "
                                "choose another instead of none")
        for flag in FLAGS:
            if flag in record and not isinstance(record[flag], bool):
                raise EditError(f"{hex_id}: {flag} is true or false")
        if "name" in record and not isinstance(record["name"], str):
            raise EditError(f"{hex_id}: name is text")
        for listed in ("adjacent", "borders"):
            if listed in record and not (isinstance(record[listed], list)
                                         and all(isinstance(v, str) for v in record[listed])):
                raise EditError(f"{hex_id}: {listed} is a list of names")

    def _border(self, area: Any, hexes: Any, member: Any) -> None:
        if area not in self.pack.border_defense:
            raise EditError(f"{area!r} has no [border_defense] entry in pack {self.pack.name}")
        if not isinstance(member, bool):
            raise EditError("member is true or false")
        current = self.border.setdefault(area, [])
        for hex_id in self._hex_ids(hexes):
            if member and hex_id not in current:
                current.append(hex_id)
            elif not member and hex_id in current:
                current.remove(hex_id)
        self.changed_border.add(area)

    def _can_complete(self, fact: str) -> bool:
        """A fact the [complete] table can still be told about: not "all", and not one it leaves trusted
        (`others = "trusted"`: naming it would make every unlisted subject missing)."""
        if self.complete is None or self.complete.get(fact) == "all":
            return False
        return fact in self.complete or self.complete.get("others") != "trusted"

    def _complete(self, fact: Any, subject: Any, value: Any, none: Any = False) -> None:
        """`[complete] fact += [subject]`: the pack locates all of that subject's fact (or it has none).

        With nothing of it marked, listing it declares the subject has none: the page asks first and says
        so (`none`), and an edit that does not is refused, so no ✓ ever records "none" unasked."""

        if self.complete is None:
            raise EditError(f"pack {self.pack.name} has no [complete] table: "
                            "every located fact counts as whole already")
        kind = FACT_KINDS.get(fact) if isinstance(fact, str) else None
        if kind is None:
            raise EditError(f"{fact!r} is not a map fact")
        subjects = self.pack.countries if kind.per == "country" else self.pack.areas
        if subject not in subjects and not (kind.per == "country" and subject in self.pack.areas):
            raise EditError(f"{subject!r} is not a {kind.per} of pack {self.pack.name}")
        if not isinstance(value, bool):
            raise EditError("value is true or false")
        if not self._can_complete(fact):
            raise EditError(f"[complete] {fact}: the pack already counts every located {fact} as whole")
        if not isinstance(none, bool):
            raise EditError("none is true or false")
        if value and not none and not kind.lookup(self.preview_pack(), subject):
            shown = self.pack.areas[subject].name if subject in self.pack.areas else subject
            raise EditError(f"nothing is marked as the {kind.label} of {shown}: declaring it complete says "
                            f"it has none (confirm that as \"declare none\")")
        listed = self.complete.setdefault(fact, set())
        if listed == "all":
            raise EditError(f"[complete] {fact} is already \"all\"")
        assert isinstance(listed, set)
        (listed.add if value else listed.discard)(subject)
        self.changed_complete.add(fact)

    def _box(self, zone: Any, box: Any) -> None:
        zones = {z for m in self.model_zones() for z in m}
        if zone not in zones:
            raise EditError(f"{zone!r} is not a zone or region of module {self.module.name}")
        if box is not None and box not in {c["value"] for c in self.box_choices()}:
            raise EditError(f"{box!r} is not a box of the game")
        if self.mapping is None:
            raise EditError(f"pack {self.pack.name} has no [vassal] table to name boxes in")
        if box is None:
            self.boxes.pop(zone, None)
        else:
            self.boxes[zone] = box
        self.changed_boxes.add(zone)

    def model_zones(self) -> list[set[str]]:
        out = []
        for map_def in self.module.maps:
            found = self.cells[map_def.identifier]
            names = {c.name for c in found.cells if c.kind in ("zone", "region")}
            if not found.cells and map_def.boards and all(b.grid is None for b in map_def.boards):
                names.add(f"{map_def.identifier}: {OFFBOARD}")
            out.append(names)
        return out

    # ---- saving --------------------------------------------------------------------------------
    def save(self) -> list[str]:
        """Write the edits into the pack's own files (never the base's, never the module)."""
        documents: dict[Path, tomlkit.TOMLDocument] = {}
        originals: dict[Path, bytes | None] = {}

        def document(path: Path) -> tomlkit.TOMLDocument:
            if path not in documents:
                originals[path] = path.read_bytes() if path.exists() else None
                text = originals[path].decode("utf-8") if originals[path] is not None else ""
                documents[path] = tomlkit.parse(text)
            return documents[path]

        base = inherited_tables(self.pack_dir)
        if self.changed_hexes:
            path = self._file_with("hexes") or self._new_hexes_file()
            doc = document(path)
            if "hexes" not in doc:
                doc.add("hexes", tomlkit.table())
            _write_hexes(doc["hexes"], self.hexes, base.get("hexes", {}), sorted(self.changed_hexes))
        if self.changed_border:
            path = self._file_with("border_defense") or self._file_with("hexes") or self._new_hexes_file()
            doc = document(path)
            if "border_defense" not in doc:
                doc.add("border_defense", tomlkit.table(is_super_table=True))
            for area in sorted(self.changed_border):
                table = doc["border_defense"]
                if area not in table:
                    table[area] = tomlkit.table()
                table[area]["hexes"] = list(self.border.get(area, []))
        if self.changed_complete and self.complete is not None:
            path = self._file_with("complete") or self._file_with("hexes") or self._new_hexes_file()
            doc = document(path)
            if "complete" not in doc:
                doc.add("complete", tomlkit.table())
            for fact in sorted(self.changed_complete):
                listed = self.complete.get(fact, set())
                doc["complete"][fact] = listed if listed == "all" else sorted(listed)
        if self.changed_boxes:
            path = self._file_with("vassal")
            if path is None:
                raise EditError(f"pack {self.pack.name} has no [vassal] table to name boxes in")
            doc = document(path)
            vassal = doc["vassal"]
            if "places" not in vassal:
                vassal["places"] = tomlkit.table()
            if "boxes" not in vassal["places"]:
                vassal["places"]["boxes"] = tomlkit.table()
            boxes = vassal["places"]["boxes"]
            for zone in sorted(self.changed_boxes):
                if zone in self.boxes:
                    boxes[zone] = self.boxes[zone]
                elif zone in boxes:
                    del boxes[zone]
        if self.changed_neighbors:
            path = self._file_with("countries") or self._file_with("hexes") or self._new_hexes_file()
            write_neighbours(document(path), self.neighbors, self.base_neighbors, self.changed_neighbors)
        if self.changed_area_neighbors:
            path = self._file_with("areas") or self._file_with("hexes") or self._new_hexes_file()
            write_neighbours(document(path), self.area_neighbors, self.base_area_neighbors,
                             self.changed_area_neighbors, "areas")
        if self.track_edits:
            from bridge.web.editor.tracks import write_tracks

            path = self._file_with("vassal")
            if path is None:
                raise EditError(f"pack {self.pack.name} has no [vassal] table to keep tracks in")
            write_tracks(document(path)["vassal"], self.track_edits)
        if self.counters.needs_write() and self.counters.path is not None:
            self.counters.write_into(document(self.counters.path))
        try:
            texts = {path: tomlkit.dumps(doc).encode("utf-8") for path, doc in documents.items()}
        except UnicodeEncodeError as exc:  # (apply refuses such text; this keeps a save from half-writing)
            raise EditError(f"the edits hold text that is not valid Unicode ({exc.reason}); nothing was "
                            "saved") from None
        # All files or none: every temp file written and fsynced, then each renamed (issue 23: a save of
        # two files once rewrote geography.toml and then failed on the next one).
        write_files_atomically(texts)
        try:
            reloaded = load_pack(self.pack_dir)
            if isinstance(reloaded.extra.get("vassal"), dict):
                VassalMapping.from_pack(reloaded)
        except InputError:
            kept = {path: data for path, data in originals.items() if data is not None}
            write_files_atomically(kept)
            for path, data in originals.items():
                if data is None:
                    path.unlink(missing_ok=True)
            raise
        self.pack = reloaded
        self.changed_hexes.clear()
        self.changed_border.clear()
        self.changed_boxes.clear()
        self.changed_complete.clear()
        self.changed_neighbors.clear()
        self.changed_area_neighbors.clear()
        self.track_edits.clear()
        self.history.forget(self.counters.after_save())
        self._saved = self._entries()
        if isinstance(reloaded.extra.get("vassal"), dict):
            self.mapping = VassalMapping.from_pack(reloaded)
        return sorted(p.name for p in documents)

    def _file_with(self, table: str) -> Path | None:
        """The pack's own file that holds `table` (the base pack's files are never written)."""
        for path in sorted(self.pack_dir.glob("*.toml")):
            try:
                if table in tomlkit.parse(path.read_text(encoding="utf-8")):
                    return path
            except (tomlkit.exceptions.ParseError, UnicodeDecodeError):  # load_pack refused it already
                continue
        return None

    def _new_hexes_file(self) -> Path:
        path = self.pack_dir / NEW_HEXES_FILE
        if not path.exists():
            return path
        return self.pack_dir / "hexes.toml"


def _refuse_bad_text(value: Any, depth: int = 0) -> None:
    """An edit whose text cannot be written as UTF-8 (a lone surrogate such as "\\udc80" in a hex id)
    is refused with a message, before it reaches the session: kept, it made every later save fail."""
    if depth > 20:
        raise EditError("an edit nested this deep is not one the page sends")
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            shown = value.encode("utf-8", "backslashreplace").decode("ascii", "backslashreplace")[:60]
            raise EditError(f"{shown!r} is not valid text (it holds a lone surrogate); nothing was changed") \
                from None
    elif isinstance(value, dict):
        for key, item in value.items():
            _refuse_bad_text(key, depth + 1)
            _refuse_bad_text(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _refuse_bad_text(item, depth + 1)


def _write_hexes(table: Any, records: dict[str, dict[str, Any]], base: dict[str, Any],
                 changed: list[str]) -> None:
    """Each changed hex as the fields that differ from the base pack's entry (field-by-field merge).

    An existing inline table is replaced by an inline table in place; `[hexes.x]` tables keep being
    tables; a new entry follows the style the file already uses."""
    uses_tables = any(isinstance(v, Table) for v in table.values())
    for hex_id in changed:
        record = records.get(hex_id)
        inherited = base.get(hex_id) or {}
        if record is None:
            if hex_id in table:
                del table[hex_id]
            continue
        fields = {k: v for k, v in record.items() if inherited.get(k) != v}
        fields.update({k: False for k, v in inherited.items() if k in FLAGS and v and not record.get(k)})
        if not fields:
            if hex_id in table:
                del table[hex_id]
            continue
        existing = table.get(hex_id)
        if isinstance(existing, Table):  # `[hexes.x]`: changed in place, its comments stay
            for key in [k for k in existing if k not in fields]:
                del existing[key]
            for key, value in fields.items():
                if existing.get(key) != value:
                    existing[key] = value
            continue
        # Keys in the order the entry had them, new ones after in the order of docs/pack-format.md.
        order = [k for k in (existing or {}) if k in fields] + [k for k in HEX_FIELDS if k in fields]
        ordered = {k: fields[k] for k in dict.fromkeys(order)}
        if existing is None and uses_tables:
            entry: Any = tomlkit.table()
            for key, value in ordered.items():
                entry[key] = value
        else:
            entry = tomlkit.inline_table()
            entry.update(ordered)
        table[hex_id] = entry
