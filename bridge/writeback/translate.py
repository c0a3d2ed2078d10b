"""A plan's steps as VASSAL piece operations: where each counter goes, which trait changes, what it says.

Why a layer between the plan and the VASSAL writer: the plan speaks the rules' language (counter
ids, box ids like `conquered_minors:Western`), VASSAL speaks pieces and pixels. The pack's
`vassal.toml` already says how a piece becomes a counter and a zone a box; its `[vassal.writeback]`
table adds the way back (docs/vassal-mapping.md, "Writing back"): a box's point when the zone name
alone does not give it, what "removed from the game" is, which Layer shows a flipped counter, and
which marker piece shows a country status or a once-per-game event that has fired. Nothing is
guessed: a step the pack cannot place is an error naming the step and the missing fact, and
nothing is written.

Public API:
    Writeback.from_pack(pack) -> Writeback                 (the [vassal.writeback] table, validated)
    Targets(game, module, mapping, writeback, pack)        .point(place_id) -> (map, x, y)
    translate(plan, pieces, mapped, targets, writeback, partial=False) -> Translation
    Translation: steps (list[WriteStep]), stopped (text or None), effects (counter id -> place/flip)
    chat_text(rule, step, text, counter_ids) -> str        (`Adjutant: 16.1.1 Step 2 — move …`)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from bridge.mapping.mapper import VassalMapping
from rules.state import box_label
from vassal_parser.errors import InputError
from vassal_parser.patch import Change, Move, Op, Remove, WriteStep

DELETE = "delete"
REMOVED = "removed"
# Plan actions that move their counter to the step's `to` (docs/plan-format.md).
MOVING_ACTIONS = frozenset({"move", "eliminate", "set_aside", "remove_from_game"})
# Actions that only announce (the moves that carry them out are their own steps): chat line only.
ANNOUNCING_ACTIONS = frozenset({"note", "roll", "breakdown", "lose_steps", "intern", "set_country",
                                # AWAW rule 60: the surrender state, a standing restriction, a BRP grant
                                # and a hex control change without a marker rule: chat lines (docs/awaw.md)
                                "set_surrender", "restriction", "grant", "set_control"})
_TEMPLATE = re.compile(r"\{([^{}]+)\}")


@dataclass(frozen=True)
class PointSpec:
    map: str
    location: str | None = None
    x: int | None = None
    y: int | None = None
    board: str | None = None
    polygon: tuple[tuple[int, int], ...] = ()  # board pixels: a zone `adjutant extension --zones` adds


@dataclass(frozen=True)
class FlipSpec:
    layer: str
    flipped: int
    unflipped: int


@dataclass(frozen=True)
class MarkerRule:
    """A marker piece that shows a non-piece fact of the plan (a country status, a fired event)."""

    index: int
    on: str  # "set_country" | "fired"
    details: dict[str, str]  # set_country: the step's details that must hold (status = "conquered")
    rule: str | None  # fired: the event's rule number
    piece: dict[str, str]  # piece properties the marker has; {subject} = the step's country
    to: str  # box id (or hex) to put it in; {subject} allowed
    text: str | None = None


@dataclass
class Writeback:
    source: str
    points: dict[str, PointSpec]
    removed: str
    flip: FlipSpec | None
    markers: list[MarkerRule]

    @classmethod
    def from_pack(cls, pack: Any) -> Writeback:
        vassal = getattr(pack, "extra", {}).get("vassal") or {}
        source = str(Path(getattr(pack, "path", "<pack>")) / "vassal.toml")
        table = vassal.get("writeback", {})
        if not isinstance(table, dict):
            raise InputError(source, "[vassal.writeback] must be a table")
        unknown = set(table) - {"points", "removed", "flip", "markers"}
        if unknown:
            raise InputError(source, f"[vassal.writeback]: unknown key(s) {', '.join(sorted(unknown))}")
        points = {}
        for box, spec in _table(table.get("points", {}), source, "[vassal.writeback.points]").items():
            where = f"[vassal.writeback.points] {box!r}"
            spec = _table(spec, source, where)
            polygon = _polygon(spec.get("polygon"), source, where)
            if "map" not in spec or not ("location" in spec or ("x" in spec and "y" in spec) or polygon):
                raise InputError(source, f"{where} needs map and location, or map, x and y")
            if "x" in spec and not all(isinstance(spec.get(k), int) for k in ("x", "y")):
                raise InputError(source, f"{where}: x and y must be whole numbers")
            points[str(box)] = PointSpec(str(spec["map"]), spec.get("location"), spec.get("x"), spec.get("y"),
                                         spec.get("board"), polygon)
        removed = str(table.get("removed", DELETE))
        flip = None
        if "flip" in table:
            spec = _table(table["flip"], source, "[vassal.writeback.flip]")
            try:
                flip = FlipSpec(str(spec["layer"]), int(spec.get("flipped", 2)),
                                int(spec.get("unflipped", 1)))
            except (KeyError, TypeError, ValueError):
                raise InputError(source, "[vassal.writeback.flip] needs layer (a Layer name) and "
                                         "whole-number levels flipped / unflipped") from None
        markers = []
        entries = table.get("markers", [])
        if not isinstance(entries, list):
            raise InputError(source, "[[vassal.writeback.markers]] must be an array of tables")
        for index, entry in enumerate(entries):
            where = f"[[vassal.writeback.markers]] #{index + 1}"
            entry = _table(entry, source, where)
            bad = set(entry) - {"on", "details", "rule", "piece", "to", "text", "note"}
            if bad:
                raise InputError(source, f"{where}: unknown key(s) {', '.join(sorted(bad))}")
            on = entry.get("on")
            if on not in ("set_country", "fired"):
                raise InputError(source, f"{where}: on must be \"set_country\" or \"fired\"")
            if on == "fired" and not entry.get("rule"):
                raise InputError(source, f"{where}: on = \"fired\" needs the event's rule")
            piece = _table(entry.get("piece", {}), source, f"{where} piece")
            if not piece or "to" not in entry:
                raise InputError(source, f"{where} needs piece (properties of the marker) and to (a box)")
            markers.append(MarkerRule(index, on, {str(k): str(v) for k, v in
                                                  _table(entry.get("details", {}), source, where).items()},
                                      entry.get("rule"), {str(k): str(v) for k, v in piece.items()},
                                      str(entry["to"]), entry.get("text")))
        return cls(source, points, removed, flip, markers)


def _polygon(value: Any, source: str, where: str) -> tuple[tuple[int, int], ...]:
    if value is None:
        return ()
    try:
        points = tuple((int(x), int(y)) for x, y in value)
    except (TypeError, ValueError):
        raise InputError(source, f"{where}: polygon must be a list of [x, y] whole-number pairs") from None
    if len(points) < 3:
        raise InputError(source, f"{where}: polygon needs at least 3 points")
    return points


def _table(value: Any, source: str, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(source, f"{what} must be a table")
    return value


class Unplaceable(Exception):
    """What the pack lacks to place a counter (the message names the missing fact)."""


class Targets:
    """Box and hex ids of the position -> the map point VASSAL would put a counter on.

    A hex is its grid centre (`Grid.getLocation`, where VASSAL snaps); a box is the point of the
    zone or region the pack names for it (`Zone.getLocation`: the polygon's mean), or the pack's
    explicit point. Each point is checked to read back as the same place through the mapping."""

    def __init__(self, game: Any, module: Any, mapping: VassalMapping, writeback: Writeback,
                 pack: Any) -> None:
        self.game = game
        self.module = module
        self.mapping = mapping
        self.writeback = writeback
        self.hexes = getattr(pack, "hexes", None)
        self._cache: dict[str, tuple[str, int, int]] = {}

    def point(self, place: str) -> tuple[str, int, int]:
        if place not in self._cache:
            self._cache[place] = self._find(place)
        return self._cache[place]

    def _find(self, place: str) -> tuple[str, int, int]:
        spec = self.writeback.points.get(place)
        if spec is not None:
            return self._checked(place, self._from_spec(place, spec))
        if self.hexes is not None and place in self.hexes:
            return self._checked(place, self._hex_point(place))
        names = self.box_names(place)
        if not names:
            raise Unplaceable(f"the pack maps no VASSAL location to {_label(place)} ({place!r}): add it to "
                              "[vassal.places.boxes] or give its point in [vassal.writeback.points]")
        found = []
        for name in names:
            for map_def in self.module.maps:
                layout = self.game.layout(map_def.identifier)
                point = layout.point_for(name) if layout is not None else None
                if point is not None and layout.location_name(*point) == name:
                    found.append((map_def.identifier, *point))
        if not found:
            raise Unplaceable(f"no map of the module has a zone or region named {names[0]!r} for "
                              f"{_label(place)}: give its point in [vassal.writeback.points]")
        if len({f[0] for f in found}) > 1:
            maps = ", ".join(sorted({f[0] for f in found}))
            raise Unplaceable(f"{names[0]!r} is on several maps ({maps}): "
                              f"say which in [vassal.writeback.points] {place!r}")
        return self._checked(place, found[0])

    def box_names(self, place: str) -> list[str]:
        """The VASSAL location names the mapping reads as box `place` (inverting boxes and patterns)."""
        names = [name for name, box in self.mapping.boxes.items() if box == place and ": " not in name]
        for pattern, template in self.mapping.box_patterns:
            name = _invert_pattern(pattern.pattern, template, place)
            if name is not None:
                names.append(name)
        return names

    def _hex_point(self, hex_id: str) -> tuple[str, int, int]:
        for map_name, pattern, template in self.mapping.hex_maps:
            prefix, _, suffix = template.partition("{location}")
            if not (hex_id.startswith(prefix) and hex_id.endswith(suffix)):
                continue
            location = hex_id[len(prefix):len(hex_id) - len(suffix) if suffix else None]
            if not pattern.fullmatch(location):
                continue
            layout = self.game.layout(map_name)
            point = layout.point_for(location) if layout is not None else None
            if point is not None:
                return (map_name, *layout.snap(*point))
        raise Unplaceable(f"hex {hex_id} is on no map of [[vassal.places.hexes]], or that map's grid has no "
                          f"cell named {hex_id}")

    def _from_spec(self, place: str, spec: PointSpec) -> tuple[str, int, int]:
        layout = self.game.layout(spec.map)
        if layout is None:
            raise Unplaceable(f"[vassal.writeback.points] {place!r}: the module has no map {spec.map!r}")
        if spec.location is not None:
            point = layout.point_for(spec.location)
            if point is None and spec.polygon:
                return (spec.map, *_polygon_point(layout, spec))
            if point is None:
                raise Unplaceable(f"[vassal.writeback.points] {place!r}: map {spec.map!r} has no location "
                                  f"{spec.location!r}")
            return (spec.map, *point)
        if spec.x is None and spec.polygon:
            return (spec.map, *_polygon_point(layout, spec))
        return (spec.map, int(spec.x), int(spec.y))  # type: ignore[arg-type]

    def _checked(self, place: str, point: tuple[str, int, int]) -> tuple[str, int, int]:
        """The point must read back as `place`, or the written file would not show the plan's position."""
        layout = self.game.layout(point[0])
        _board, zone, location = layout.place_at(point[1], point[2])
        probe = SimpleNamespace(map=point[0], location=location, zone=zone.name if zone else None)
        back = self.mapping.place_of(probe, self.hexes)  # type: ignore[arg-type]
        if back != place:
            raise Unplaceable(f"the point {point[1]},{point[2]} on map {point[0]!r} reads back as "
                              f"{location!r} ({back or 'no place of the pack'}), not {_label(place)}")
        return point


def _polygon_point(layout: Any, spec: PointSpec) -> tuple[int, int]:
    """Zone.getLocation of the polygon (its mean, Java int division), in map pixels of its board."""
    count = len(spec.polygon)
    x = int(sum(p[0] for p in spec.polygon) / count)
    y = int(sum(p[1] for p in spec.polygon) / count)
    board = next((b for b in layout.boards if spec.board is None or b.name == spec.board), None)
    return board.global_point(x, y) if board is not None else (x, y)


def _invert_pattern(pattern: str, template: str, place: str) -> str | None:
    """`(.+) Posture Box` -> `posture:{0}` read backwards: `posture:Poland` -> `Poland Posture Box`.

    Only patterns of one `(.+)` group between literal text are inverted; others need a point."""
    hit = re.fullmatch(r"([^\\()\[\]{}.*+?^$|]*)\(\.\+\)([^\\()\[\]{}.*+?^$|]*)", pattern)
    if hit is None or template.count("{") != 1:
        return None
    slot = "{0}" if "{0}" in template else None
    if slot is None:
        return None
    before, _, after = template.partition(slot)
    if not (place.startswith(before) and place.endswith(after)) or len(place) <= len(before) + len(after):
        return None
    value = place[len(before):len(place) - len(after) if after else None]
    return hit.group(1) + value + hit.group(2)


def _label(place: str) -> str:
    return box_label(place) or place


def chat_text(rule: str, step: str | None, text: str, counter_ids: Iterable[str]) -> str:
    """The chat line of one step: the rule and Step cited, counters by name only (never ids)."""
    ids = set(counter_ids)

    def drop_id(hit: re.Match[str]) -> str:
        return "" if hit.group(1) in ids else hit.group(0)

    clean = re.sub(r" \(([^()]+)\)", drop_id, text)
    cited = f"{rule} {step}" if step else rule
    return f"*! Adjutant: {cited} — {clean}"


@dataclass
class Translation:
    steps: list[WriteStep]
    stopped: str | None  # why --partial stopped, or None
    effects: dict[str, dict[str, Any]] = field(default_factory=dict)  # counter id -> {"location", "flipped"}
    marker_moves: list[tuple[str, str]] = field(default_factory=list)  # (counter id or "piece:<id>", place)
    rules: list[str] = field(default_factory=list)

    @property
    def operation_count(self) -> int:
        return sum(len(step.ops) for step in self.steps)


def first_unanswered(plan: Mapping[str, Any]) -> tuple[int, str] | None:
    """(event index, why) of the first event that waits on an answer or is undecided (a map fact the
    pack lacks), None when none does: the steps after it may depend on it."""
    for index, event in enumerate(plan.get("events", [])):
        if event.get("status") == "undecided" or event.get("missing"):
            lacks = "; ".join(m.get("text", "") for m in event.get("missing", [])) or "a map fact"
            return index, f"{event['rule']} {event.get('title', '')}: undecided, {lacks}".strip()
        open_ids = [c["id"] for c in event.get("choices", []) if not c.get("answered")]
        if event.get("status") == "waiting" or open_ids:
            ids = open_ids or list(event.get("waiting_for", []))
            return index, f"{event['rule']} {event.get('title', '')}: waiting for {', '.join(ids)}".strip()
    return None


def translate(plan: Mapping[str, Any], pieces: list[Any], piece_counters: Mapping[str, str],
              counters: Mapping[str, Mapping[str, Any]], targets: Targets, writeback: Writeback,
              partial: bool = False) -> Translation:
    """Every fired event's steps, in plan order, as WriteSteps; raises InputError listing every
    step the pack cannot carry out (nothing is written then)."""
    events = list(plan.get("events", []))
    stop = first_unanswered(plan)
    stopped = None
    if stop is not None:
        if not partial:
            raise ValueError("plan has unanswered choices")  # the caller checks before translating
        events = events[:stop[0]]
        stopped = stop[1]
    by_counter = {counter: piece_id for piece_id, counter in piece_counters.items()}
    flipped = {cid: bool(c.get("flipped")) for cid, c in counters.items()}
    problems: list[str] = []
    result = Translation([], stopped)
    for event in events:
        if event.get("status") != "fired":
            continue
        if event["rule"] not in result.rules:
            result.rules.append(event["rule"])
        for step in event.get("steps", []):
            where = f"{step['rule']}{' ' + step['step'] if step.get('step') else ''}"
            chat = chat_text(step["rule"], step.get("step"), step["text"], counters)
            try:
                ops = _step_ops(step, by_counter, flipped, targets, writeback, pieces, result)
            except Unplaceable as problem:
                problems.append(f"{where} ({_without_ids(step['text'], counters)}): {problem}")
                continue
            result.steps.append(WriteStep(chat, ops))
        for marker in writeback.markers:
            if marker.on == "fired" and marker.rule == event["rule"]:
                try:
                    op, text = _marker_op(marker, {"subject": event["rule"]}, pieces, targets, result,
                                          piece_counters)
                except Unplaceable as problem:
                    problems.append(f"{event['rule']} (marker #{marker.index + 1}): {problem}")
                    continue
                result.steps.append(WriteStep(chat_text(event["rule"], None, text, counters), [op]))
    if problems:
        raise InputError(writeback.source, "the pack cannot carry out these steps, nothing was written: "
                         + "; ".join(problems))
    return result


def _without_ids(text: str, counters: Iterable[str]) -> str:
    return chat_text("", None, text, counters).split(" — ", 1)[1]


def _step_ops(step: Mapping[str, Any], by_counter: Mapping[str, str], flipped: dict[str, bool],
              targets: Targets, writeback: Writeback, pieces: list[Any], result: Translation) -> list[Op]:
    action = step.get("action")
    counter = step.get("counter")
    if action == "set_country":
        ops = []
        for marker in writeback.markers:
            details = step.get("details") or {}
            wanted = marker.details.items()
            if marker.on == "set_country" and all(str(details.get(k)) == v for k, v in wanted):
                values = {"subject": step.get("subject") or ""}
                op, _text = _marker_op(marker, values, pieces, targets, result,
                                       {p: c for c, p in by_counter.items()})
                ops.append(op)
        return ops
    if action in ANNOUNCING_ACTIONS or action not in MOVING_ACTIONS | {"flip"}:
        if action not in ANNOUNCING_ACTIONS:
            raise Unplaceable(f"Adjutant cannot write a {action!r} step")
        return []
    if counter not in by_counter:
        raise Unplaceable(f"no piece of the game is counter {counter!r}")
    piece_id = by_counter[counter]
    if action == "flip":
        if writeback.flip is None:
            raise Unplaceable("the pack does not say which Layer shows a flipped counter "
                              "([vassal.writeback.flip] layer, flipped, unflipped)")
        now = not flipped.get(counter, False)
        flipped[counter] = now
        if not _has_layer(pieces, piece_id, writeback.flip.layer):
            raise Unplaceable(f"its piece has no Layer named {writeback.flip.layer!r} "
                              "([vassal.writeback.flip])")
        result.effects.setdefault(counter, {})["flipped"] = now
        level = writeback.flip.flipped if now else writeback.flip.unflipped
        return [Change(piece_id, writeback.flip.layer, level)]
    to = step.get("to")
    if action == "remove_from_game" or to == REMOVED:
        result.effects.setdefault(counter, {})["location"] = REMOVED
        if writeback.removed == DELETE:
            return [Remove(piece_id)]
        to = writeback.removed
    if not to:
        raise Unplaceable("the step names no destination")
    result.effects.setdefault(counter, {})["location"] = step.get("to")
    return [Move(piece_id, *targets.point(to))]


def _has_layer(pieces: list[Any], piece_id: str, layer: str) -> bool:
    from vassal_parser.traits import Layer

    piece = next((p for p in pieces if p.id == piece_id), None)
    return piece is not None and any(isinstance(t, Layer) and t.layer_name == layer for t in piece.traits)


def _fill(template: str, values: Mapping[str, str]) -> str:
    return _TEMPLATE.sub(lambda hit: values.get(hit.group(1), hit.group(0)), template)


def _marker_op(marker: MarkerRule, values: Mapping[str, str], pieces: list[Any], targets: Targets,
               result: Translation, piece_counters: Mapping[str, str]) -> tuple[Op, str]:
    wanted = {k: _fill(v, values) for k, v in marker.piece.items()}
    matching = [p for p in pieces if all(p.properties.get(k) == v for k, v in wanted.items())]
    described = ", ".join(f"{k} = {v}" for k, v in wanted.items())
    if len(matching) != 1:
        count = "no piece" if not matching else f"{len(matching)} pieces"
        raise Unplaceable(f"{count} of the game match marker #{marker.index + 1} ({described}); "
                          "exactly one must ([[vassal.writeback.markers]])")
    piece = matching[0]
    to = _fill(marker.to, values)
    point = targets.point(to)
    counter = piece_counters.get(piece.id)
    result.marker_moves.append((counter or f"piece:{piece.id}", to))
    if counter is not None:
        result.effects.setdefault(counter, {})["location"] = to
    text = _fill(marker.text, values) if marker.text else f"place {piece.piece_name} in {_label(to)}"
    return Move(piece.id, *point), text
