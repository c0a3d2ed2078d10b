"""From VASSAL pieces to the rules engine's position, driven by a pack's `[vassal]` table.

Why declarative: every module marks its counters differently (Marker properties, piece names,
prototypes, Layer levels), and a user completing a pack for a real module must be able to do it in
TOML, without Python.  Why report instead of guess: a piece or place the mapping does not know is
listed with counts (`MappingResult.unmapped_pieces` / `unmapped_places`), so the user sees exactly
what is missing and the rules never reason from an invented position.  The format is described in
docs/vassal-mapping.md. The rules' own form and TOML checks are in `pack_rules.py`, the per-piece
outcomes and their memo in `memo.py`, the module's PieceSlots in `slots.py`.

Why over 500 lines: `VassalMapping` is one class, and its fast paths (a kind every rule refuses at
its first condition, counted whole) share its tables with the piece-by-piece path they must equal.
"""

from __future__ import annotations

import re
from collections import Counter as Tally
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from bridge.mapping.memo import PER_PIECE, MappingMemo, Outcome, concealment, counted_whole
from bridge.mapping.pack_rules import (
    _MISSING,
    _TEMPLATE,
    SPECIAL_KEYS,
    PieceLike,
    Rule,
    _as_list,
    _as_table,
    _assign,
    _check_box_template,
    _defaults,
    _MissingValue,
    _optional_text,
    _quick_fill,
    _regex,
    _rules,
    _strings,
    _template_form,
    _typed,
    _version_key,
    fill,
    fill_general,
)
from bridge.mapping.slots import _gpid
from bridge.mapping.sums import SumTerm, collect, resolve_sums
from bridge.mapping.tracks import Tracks, parse_tracks
from rules.records import deep_copy
from rules.state import FACTIONS
from vassal_parser.errors import InputError


@dataclass
class MappingResult:
    """The position for the engine, plus everything the mapping could not place (never guessed)."""

    position: dict[str, Any]
    piece_counters: dict[str, str]  # VASSAL piece id -> counter id
    concealed: dict[str, str]  # counter id -> "hidden" | "masked": never show these in a stream view
    unmapped_pieces: dict[str, int]  # piece name -> how many pieces no rule recognised
    unmapped_places: dict[str, int]  # "map: location" -> how many mapped counters stand there
    warnings: list[str] = field(default_factory=list)
    # the position paths the pieces' state rules wrote: a game fact the map gives is not asked
    # (bridge/mapping/game_facts.py `apply_facts`)
    state_paths: frozenset[str] = frozenset()

    def report(self) -> dict[str, Any]:
        return {
            "unmapped_pieces": dict(sorted(self.unmapped_pieces.items())),
            "unmapped_places": dict(sorted(self.unmapped_places.items())),
            "concealed": dict(sorted(self.concealed.items())),
            "warnings": list(self.warnings),
        }


def _sides(value: Any, source: str) -> dict[str, list[str]]:
    """`[vassal.sides]`: faction = ["Side", ...] (a faction left out plays the side of its own name)."""
    table = _as_table(value, source, "[vassal.sides]")
    sides: dict[str, list[str]] = {}
    for faction, names in table.items():
        if faction not in FACTIONS:
            raise InputError(source, f"[vassal.sides] {faction!r} is not a faction "
                                     f"(one of {', '.join(FACTIONS)})")
        listed = [names] if isinstance(names, str) else _strings(names, source, f"[vassal.sides] {faction}")
        sides[faction] = [name for name in listed if name]
    return sides


@dataclass
class VassalMapping:
    """A pack's `[vassal]` table, validated once and applied to every position."""

    source: str
    module_name: str | None
    min_version: str | None
    max_version: str | None
    extensions: tuple[str, ...]
    hex_maps: list[tuple[str, re.Pattern[str], str]]  # (map, location pattern, hex id template)
    boxes: dict[str, str]  # VASSAL location -> box id
    box_patterns: list[tuple[re.Pattern[str], str]]
    counters: list[Rule]
    state: list[Rule]
    ignore: list[Rule]
    countries: dict[str, dict[str, Any]]
    turn: dict[str, Any]
    not_boxes: list[re.Pattern[str]] = field(default_factory=list)  # zones whose markers only give state
    tracks: Tracks = field(default_factory=Tracks)  # printed tracks read from where a marker stands
    defaults: dict[str, Any] = field(default_factory=dict)  # position parts before any piece is read
    # faction -> the module's sides it plays (bridge/mapping/sides.py): whose hidden pieces its view shows
    sides: dict[str, list[str]] = field(default_factory=dict)
    # `[vassal.places] proposed`: box and box-pattern names `pack scaffold` proposed, not yet reviewed
    proposed_places: tuple[str, ...] = ()

    @property
    def proposed_rules(self) -> list[Rule]:
        """The counter, state and ignore rules still marked proposed (issue 38)."""
        return [r for r in (*self.counters, *self.state, *self.ignore) if r.proposed]

    # ---- loading --------------------------------------------------------------------------------
    @classmethod
    def from_pack(cls, pack: Any) -> VassalMapping:
        table = getattr(pack, "extra", {}).get("vassal")
        source = str(Path(getattr(pack, "path", "<pack>")) / "vassal.toml")
        if not isinstance(table, dict):
            raise InputError(getattr(pack, "path", "<pack>"),
                             "this pack has no [vassal] table: it cannot read VASSAL files (start a pack "
                             "for your module that inherits this one's rules data: "
                             f"`adjutant pack scaffold MODULE.vmod --base {getattr(pack, 'name', 'tk')}`)")
        return cls.from_table(table, source)

    @classmethod
    def from_table(cls, table: dict[str, Any], source: str) -> VassalMapping:
        module = _as_table(table.get("module", {}), source, "[vassal.module]")
        places = _as_table(table.get("places", {}), source, "[vassal.places]")
        hex_maps = []
        for index, entry in enumerate(_as_list(places.get("hexes", []), source, "[[vassal.places.hexes]]")):
            if "map" not in entry:
                raise InputError(source, f"[[vassal.places.hexes]] #{index + 1} has no 'map'")
            template = str(entry.get("hex", "{location}"))
            if set(_TEMPLATE.findall(template)) - {"location"}:
                raise InputError(source, f"[[vassal.places.hexes]] #{index + 1}: hex template {template!r} "
                                         "may only use {location}")
            hex_maps.append((str(entry["map"]), _regex(entry.get("pattern", ".*"), source), template))
        boxes = {str(k): str(v) for k, v in _as_table(places.get("boxes", {}), source,
                                                      "[vassal.places.boxes]").items()}
        pattern_table = _as_table(places.get("box_patterns", {}), source, "[vassal.places.box_patterns]")
        box_patterns = [(_regex(k, source), str(v)) for k, v in pattern_table.items()]
        for pattern, template in box_patterns:
            _check_box_template(pattern, template, source)
        proposed_places = tuple(_strings(places.get("proposed", []), source, "[vassal.places] proposed"))
        unknown_places = [n for n in proposed_places if n not in boxes and n not in pattern_table]
        if unknown_places:
            raise InputError(source, "[vassal.places] proposed names no box or box pattern: "
                                     + ", ".join(repr(n) for n in unknown_places))
        return cls(
            source=source,
            module_name=module.get("name"),
            min_version=_optional_text(module.get("min_version")),
            max_version=_optional_text(module.get("max_version")),
            extensions=tuple(_strings(module.get("extensions", []), source, "[vassal.module] extensions")),
            hex_maps=hex_maps,
            boxes=boxes,
            box_patterns=box_patterns,
            counters=_rules(table.get("counters", []), "counters", source),
            state=_rules(table.get("state", []), "state", source),
            ignore=_rules(table.get("ignore", []), "ignore", source),
            countries={name: _as_table(fields, source, f"[vassal.countries] {name!r}")
                       for name, fields in _as_table(table.get("countries", {}), source,
                                                     "[vassal.countries]").items()},
            turn=_as_table(table.get("turn", {}), source, "[vassal.turn]"),
            not_boxes=[_regex(n[3:] if str(n).startswith("re:") else re.escape(str(n)), source)
                       for n in _strings(places.get("not_boxes", []), source, "[vassal.places] not_boxes")],
            tracks=parse_tracks(table.get("tracks"), source),
            defaults=_defaults(table.get("defaults", {}), source),
            sides=_sides(table.get("sides", {}), source),
            proposed_places=proposed_places,
        )

    # ---- module check -----------------------------------------------------------------------------
    def module_warnings(self, name: str, version: str, extensions: Iterable[str]) -> list[str]:
        """Why this module/version/extension set may not be what the pack was written for."""
        warnings = []
        if self.module_name and name != self.module_name:
            warnings.append(f"the pack maps module {self.module_name!r}, this file is from {name!r}")
        if self.min_version and _version_key(version) < _version_key(self.min_version):
            warnings.append(f"module version {version} is older than the pack's minimum {self.min_version}")
        if self.max_version and _version_key(version) > _version_key(self.max_version):
            warnings.append(f"module version {version} is newer than the pack's maximum {self.max_version}")
        present = set(extensions)
        for missing in sorted(set(self.extensions) - present):
            warnings.append(f"the pack expects extension {missing!r}, which this file does not use")
        for extra in sorted(present - set(self.extensions)):
            warnings.append(f"extension {extra!r} is in use but the pack does not map it")
        return warnings

    # ---- places -----------------------------------------------------------------------------------
    def place_of(self, piece: PieceLike, known_hexes: Mapping[str, Any] | None) -> str | None:
        """The position's location id for a piece (a hex id or a box id), None when unknown."""
        location = piece.location or ""
        # "MAP: LOCATION" as the unmapped-places report prints it, so that an off-map window without
        # zones (every piece `offboard`) can be a box without taking every other map's `offboard`.
        reported = f"{piece.map or 'no map'}: {location or 'offboard'}"
        if reported in self.boxes:
            return self.boxes[reported]
        names = [n for n in (location, piece.zone) if n]
        for name in names:
            if name in self.boxes:
                return self.boxes[name]
            for pattern, template in self.box_patterns:
                hit = pattern.fullmatch(name)
                if hit:
                    return template.format(*hit.groups(), **hit.groupdict())
        if self.tracks:  # a box of a track that places counters (`places = true`): its value is the box id
            found = self.tracks.box_of(piece, getattr(self, "_origins", {}), places=True)
            if found is not None:
                return str(found[1].value)
        for map_name, pattern, template in self.hex_maps:
            if piece.map != map_name:
                continue
            hit = pattern.fullmatch(location)
            if hit:
                hex_id = template.replace("{location}", location)
                if known_hexes is None or hex_id in known_hexes:
                    return hex_id
        return None

    # ---- the whole position -------------------------------------------------------------------------
    def map_pieces(self, pieces: Iterable[PieceLike], pack: Any = None,
                   prototypes: Mapping[str, tuple[str, ...]] | None = None,
                   memo: MappingMemo | None = None,
                   board_origins: Mapping[tuple[str, str], tuple[int, int]] | None = None) -> MappingResult:
        """Map every piece.  `prototypes` (gpid -> prototype names, from `slot_prototypes(module)`,
        computed once per module) lets `@prototype` rules match pieces in a save.

        `memo` (a daemon's, see `MappingMemo`) remembers each piece's outcome under the piece's
        `memo_key`; pieces without one are always worked out. The result is the same either way:
        an outcome depends only on the piece, this mapping, the pack's hexes and the prototypes."""
        known_hexes = getattr(pack, "hexes", None)
        self._prototypes = prototypes if prototypes is not None else {}
        # (map, board) -> board origin in map pixels: where a track's boxes are (bridge/mapping/tracks.py)
        self._origins = dict(board_origins or {})
        if memo is not None:
            pieces = pieces if isinstance(pieces, list) else list(pieces)
            memo.use(self, pack, prototypes, self._origins if self.tracks else None)
            memo.fit(len(pieces))
        counters: dict[str, dict[str, Any]] = {}
        piece_counters: dict[str, str] = {}
        concealed: dict[str, str] = {}
        unmapped_pieces: Tally[str] = Tally()
        unmapped_places: Tally[str] = Tally()
        warnings: list[str] = []
        position: dict[str, Any] = {
            "pack": getattr(pack, "name", None),
            # Deep copies: state rules append to lists (`turn.fired+`), and this mapping's tables
            # are the starting point of every later save's position too (rules.records: plain data
            # copied without deepcopy's generic walk).
            "turn": deep_copy(self.turn),
            "countries": deep_copy(self.countries),
            "counters": [],
            **deep_copy(self.defaults),
        }
        first_names = self._first_names if memo is not None else None
        remembered = memo.outcomes.get if memo is not None else None
        remember = memo.outcomes.put if memo is not None else None
        by_kind = memo.kinds if memo is not None and self._first_reads_kind else None
        # Kinds every rule refuses (`_unmatched`), counted whole: kind -> [pieces, name]. Why: a first
        # save of 5,000 pieces is mostly a few dozen kinds of marker no rule takes; each such piece only
        # adds one to its name's count, so after its kind's first piece that is all the loop does.
        whole: dict[Any, list[Any]] = {}
        whole_get = whole.get
        terms: dict[str, list[SumTerm]] = {}  # `[[vassal.state]] sum`: written once every piece is read
        written: set[str] = set()
        for piece in pieces:
            outcome = None
            kind = None
            if by_kind is not None:
                try:  # an attribute read, not `getattr` with a default: this runs for every piece
                    kind = piece.kind
                except AttributeError:  # a piece-like object without kinds
                    kind = None
            if kind is not None:
                tally = whole_get(kind)
                if tally is not None:
                    tally[0] += 1
                    continue
                # pieces of one kind that every rule refuses at its first condition: decided once
                outcome = by_kind.get(kind)  # type: ignore[union-attr]
                if outcome is None:  # the kind's properties: the first conditions read no per-piece one
                    outcome = self._unmatched(piece, first_names, memo,  # type: ignore[arg-type]
                                              getattr(kind, "properties", None)) or PER_PIECE
                    by_kind[kind] = outcome  # type: ignore[index]
                if outcome is PER_PIECE:
                    outcome = None
                elif counted_whole(outcome):
                    whole[kind] = [1, outcome.unmapped_piece]
                    unmapped_pieces[outcome.unmapped_piece] += 0  # listed where its first piece is
                    continue
            key = getattr(piece, "memo_key", None) if memo is not None and outcome is None else None
            if key is not None:
                outcome = remembered(key)  # type: ignore[misc]
            if not isinstance(outcome, Outcome):
                # (a piece of a kind was just asked that through its kind: some rule may take it)
                if first_names is not None and kind is None:
                    outcome = self._unmatched(piece, first_names, memo)  # type: ignore[arg-type]
                if not isinstance(outcome, Outcome):
                    outcome = self._outcome(piece, known_hexes)
                if key is not None:
                    remember(key, outcome)  # type: ignore[misc]
            if outcome.ignored:
                if outcome.concealed:
                    concealed[f"piece:{piece.id}"] = outcome.concealed
                continue
            for path, value in outcome.writes:
                if value.__class__ is SumTerm:
                    collect(terms, path, value)
                    continue
                try:
                    _assign(position, path, value)
                    written.add(path.rstrip("+"))
                except _MissingValue as problem:
                    warnings.append(str(problem))
            warnings.extend(outcome.warnings)
            if outcome.unmapped_piece is not None:
                unmapped_pieces[outcome.unmapped_piece] += 1
                continue
            if outcome.unmapped_place is not None:
                unmapped_places[outcome.unmapped_place] += 1
                continue
            if outcome.counter is None:  # read by a state rule only
                continue
            # A copy (lists too: `tags`): the position is the caller's, the memo keeps the outcome.
            counter = {k: list(v) if isinstance(v, list) else v for k, v in outcome.counter.items()}
            if counter["id"] in counters:
                warnings.append(f"counter id {counter['id']!r} is on two pieces ({piece.basic_name!r}); "
                                "the second one was left out")
                continue
            counters[counter["id"]] = counter
            piece_counters[piece.id] = counter["id"]
            if outcome.concealed:
                concealed[counter["id"]] = outcome.concealed
        for count, name in whole.values():
            unmapped_pieces[name] += count
        if terms:
            sums, unread = resolve_sums(terms)
            warnings.extend(unread)
            for path, total in sums.items():
                try:
                    _assign(position, path, total)
                    written.add(path)
                except _MissingValue as problem:
                    warnings.append(str(problem))
        position["counters"] = list(counters.values())
        return MappingResult(position=position, piece_counters=piece_counters, concealed=concealed,
                             unmapped_pieces=dict(unmapped_pieces), unmapped_places=dict(unmapped_places),
                             warnings=warnings, state_paths=frozenset(written))

    def outcome_of(self, piece: PieceLike, pack: Any = None,
                   prototypes: Mapping[str, tuple[str, ...]] | None = None,
                   memo: MappingMemo | None = None) -> Outcome:
        """What `map_pieces` makes of this piece on its own (the same memo tables, the same order of
        shortcuts), for a caller that follows a position piece by piece (bridge/reports/step_plans.py)."""
        self._prototypes = prototypes if prototypes is not None else {}
        kind = None
        if memo is not None:
            memo.use(self, pack, prototypes)
            if self._first_reads_kind:
                kind = getattr(piece, "kind", None)
        if kind is not None:
            outcome = memo.kinds.get(kind)  # type: ignore[union-attr]
            if outcome is None:
                outcome = self._unmatched(piece, self._first_names, memo,  # type: ignore[arg-type]
                                          getattr(kind, "properties", None)) or PER_PIECE
                memo.kinds[kind] = outcome  # type: ignore[union-attr]
            if outcome is not PER_PIECE:
                return outcome
        key = getattr(piece, "memo_key", None) if memo is not None else None
        found = memo.outcomes.get(key) if key is not None else None  # type: ignore[union-attr]
        if isinstance(found, Outcome):
            return found
        outcome = None
        if memo is not None and self._first_names is not None and kind is None:
            outcome = self._unmatched(piece, self._first_names, memo)
        if not isinstance(outcome, Outcome):
            outcome = self._outcome(piece, getattr(pack, "hexes", None))
        if key is not None:
            memo.outcomes.put(key, outcome)  # type: ignore[union-attr]
        return outcome

    @staticmethod
    def shapes_position(outcome: Outcome) -> bool:
        """Whether a piece with this outcome adds to `MappingResult.position` (a counter or a state
        write): the position `map_pieces` gives is the one the pieces that do give, in their order.
        The others only count as unmapped, are ignored, or warn."""
        return not outcome.ignored and (bool(outcome.writes) or outcome.counter is not None)

    def _outcome(self, piece: PieceLike, known_hexes: Mapping[str, Any] | None) -> Outcome:
        """What the rules make of one piece on its own; `map_pieces` then combines the pieces in order
        (state writes, counter-id clashes), so this part can be remembered per piece."""
        variables = self._variables(piece)
        if next(_matching(self.ignore, piece, variables), None) is not None:
            return Outcome(True, concealment(piece))
        warning_list: list[str] = []
        write_list: list[tuple[str, Any]] = []
        unplaced: list[str] = []
        used_by_state = self._apply_state(piece, variables, write_list, warning_list, known_hexes, unplaced)
        counter = self._counter_fields(piece, variables, warning_list)
        writes = tuple(write_list) if write_list else ()
        warnings = tuple(warning_list) if warning_list else ()
        if counter is None:
            unmapped = None if used_by_state else (piece.basic_name or piece.piece_name or "?")
            # a state marker on no pack hex (`{hex}`): its place is reported, as a counter's would be
            return Outcome(False, None, writes, warnings, None, unmapped, unplaced[0] if unplaced else None)
        place = self.place_of(piece, known_hexes)
        if place is None:
            where = f"{piece.map or 'no map'}: {piece.location or 'offboard'}"
            return Outcome(False, None, writes, warnings, None, None, where)
        counter["location"] = place
        return Outcome(False, concealment(piece), writes, warnings, counter)

    @cached_property
    def _first_names(self) -> tuple[str, ...] | None:
        """The variables the first condition of every rule reads (see `_unmatched`), or None when
        some first condition reads more than a property or a place (then there is no shortcut)."""
        if self._uses_prototypes:
            return None
        names: list[str] = []
        for rule in (*self.ignore, *self.state, *self.counters):
            key, name, _pattern, _expected = rule._conditions[0]  # type: ignore[attr-defined]
            if (key.startswith("@") and key not in SPECIAL_KEYS) or key == "@track":
                return None  # read from the piece's attributes (`_lookup`) or its board point
            if name not in names:
                names.append(name)
        return tuple(names)

    @cached_property
    def _first_reads_kind(self) -> bool:
        """Whether the first conditions (`_first_names`) read only what pieces of one kind share
        (`vassal_parser.game.PieceKind`): no piece attribute (location, map, zone, board, id) and no
        property that differs from piece to piece of a kind (`PER_PIECE_PROPERTIES`). Then whether
        every rule refuses a piece at its first condition is decided once per kind, not per piece."""
        from vassal_parser.game import PER_PIECE_PROPERTIES

        if self._first_names is None:
            return False
        property_names, own = self._first_readers
        return not own and not PER_PIECE_PROPERTIES.intersection(property_names)

    @cached_property
    def _first_readers(self) -> tuple[tuple[str, ...], tuple[tuple[str, str, bool], ...]]:
        """`_first_names` split as `_variables` fills them: (the piece's property names, and for the
        rest (name, the piece attribute it comes from, whether None reads as ""))."""
        names = self._first_names or ()
        return (tuple(name for name in names if name not in _OWN_VARIABLES),
                tuple((name, *_OWN_VARIABLES[name]) for name in names if name in _OWN_VARIABLES))

    def _unmatched(self, piece: PieceLike, names: tuple[str, ...], memo: MappingMemo,
                   properties: Mapping[str, str] | None = None) -> Outcome | None:
        """The outcome of a piece every rule refuses at its first condition, else None.

        Why: most pieces of a big save (markers, spare counters) are taken by no rule, and that is
        decided by the first condition of each: with the values of those few variables (`names`)
        nothing else of the piece is read, and the outcome is "unmapped" under its name. So it is
        kept by those values and the name alone (`MappingMemo.unmatched`), and a first save of
        5,000 pieces decides it once per kind of piece, not once per piece. A rule's first
        condition sees the piece's variables before any regex group is added (`Rule.test`).

        `properties`: where to read the properties, when not `piece.properties` — its kind's, which
        hold the same values for every property the first conditions read (`_first_reads_kind`),
        so a piece of a kind no rule takes never has its own properties made."""
        if getattr(piece, "prototypes", None) is not None:
            return None  # a PieceSlot's own prototype list is a variable too
        property_names, own = self._first_readers
        # `_variables`: the piece's properties, then the variables it takes from the piece itself
        read = tuple(map((piece.properties if properties is None else properties).get, property_names))
        taken = tuple(getattr(piece, attribute) or "" if empty else getattr(piece, attribute)
                      for _name, attribute, empty in own) if own else ()
        key = (piece.basic_name, piece.piece_name, read, taken)
        found = memo.unmatched.get(key)
        if found is not memo.unmatched.MISSING:
            return found  # type: ignore[return-value]
        variables = dict(zip(property_names, read, strict=True))
        variables.update((name, value) for (name, _attribute, _empty), value in zip(own, taken, strict=True))
        outcome = None
        if self._refused_by_all(variables):
            outcome = Outcome(False, None, (), (), None, piece.basic_name or piece.piece_name or "?")
        memo.unmatched.put(key, outcome)
        return outcome

    @cached_property
    def _first_conditions(self) -> tuple[tuple[str, frozenset[str], tuple[re.Pattern[str], ...]], ...]:
        """The first condition of every rule (`Rule.refused_at_first`), grouped by the variable it
        reads: (variable, the values some rule expects it to equal, the patterns some rule fullmatches)."""
        groups: dict[str, tuple[set[str], list[re.Pattern[str]]]] = {}
        for rule in (*self.ignore, *self.state, *self.counters):
            _key, name, pattern, expected = rule._conditions[0]  # type: ignore[attr-defined]
            plain, patterns = groups.setdefault(name, (set(), []))
            if pattern is None:
                plain.add(expected)
            else:
                patterns.append(pattern)
        return tuple((name, frozenset(plain), tuple(patterns)) for name, (plain, patterns) in groups.items())

    def _refused_by_all(self, variables: Mapping[str, str | None]) -> bool:
        """Whether every rule's `refused_at_first` holds for these variables.

        Why grouped (`_first_conditions`): `_unmatched` asks this for every new kind of piece, and
        one set lookup per variable answers what one call per rule did (about a seventh of the
        plan stage on the demo's first save, 1,000 pieces of 126 new kinds, 15 rules)."""
        for name, plain, patterns in self._first_conditions:
            actual = variables.get(name)
            if actual is None:
                continue
            if actual in plain:
                return False
            for pattern in patterns:
                if pattern.fullmatch(actual):
                    return False
        return True

    def _variables(self, piece: PieceLike) -> dict[str, str]:
        variables = dict(piece.properties)
        variables.update({"BasicName": piece.basic_name, "PieceName": piece.piece_name,
                          "location": piece.location or "", "map": piece.map or "",
                          "zone": piece.zone or "", "board": piece.board or "", "piece_id": piece.id})
        if self.tracks:
            found = self.tracks.box_of(piece, getattr(self, "_origins", {}))
            if found is not None:
                variables.update(found[1].variables(found[0].name))
        prototypes = getattr(piece, "prototypes", None)
        if prototypes is None and not self._uses_prototypes:
            return variables
        if prototypes is None:
            prototypes = getattr(self, "_prototypes", {}).get(_gpid(piece), ())
        variables["prototypes"] = "\n".join(prototypes)
        return variables

    @cached_property
    def _uses_prototypes(self) -> bool:
        return any("@prototype" in rule.match for rule in (*self.ignore, *self.state, *self.counters))

    def recognises(self, piece: PieceLike) -> bool:
        """True when some rule (ignore, state or counter) takes this piece: `pack check` on PieceSlots."""
        variables = self._variables(piece)
        rules = [*self.ignore, *self.state, *self.counters]
        return any(rule.test(piece, variables, placed=False) is not None for rule in rules)

    def maps_box_name(self, name: str) -> bool:
        """A zone is accounted for when it is a box, or listed as read by state rules (`not_boxes`)."""
        if name in self.boxes or any(p.fullmatch(name) for p, _t in self.box_patterns):
            return True
        return any(p.fullmatch(name) for p in self.not_boxes)

    def _counter_fields(self, piece: PieceLike, variables: dict[str, str],
                        warnings: list[str]) -> dict[str, Any] | None:
        fields: dict[str, Any] = {}
        delta = 0
        for rule, found in _matching(self.counters, piece, variables):
            try:
                for name, template, form in rule.setters:  # type: ignore[attr-defined]
                    # `fill` with the form worked out once per rule (and the place named only when needed)
                    value = _quick_fill(template, form, found)
                    if value is _MISSING:
                        where = f"{self.source} [[vassal.counters]] #{rule.index + 1}"
                        value = fill_general(template, found, where)
                    fields[name] = _typed(name, value)
            except _MissingValue as problem:
                warnings.append(f"piece {piece.basic_name!r}: {problem}")
                return None
            delta += rule.steps_delta
        if "id" not in fields or "kind" not in fields:
            return None
        fields.setdefault("name", piece.basic_name)
        if delta:
            fields["steps"] = max(0, int(fields.get("steps", 0)) + delta)
        return fields

    def _apply_state(self, piece: PieceLike, variables: dict[str, str], writes: list[tuple[str, Any]],
                     warnings: list[str], known_hexes: Mapping[str, Any] | None = None,
                     unplaced: list[str] | None = None) -> bool:
        """The state rules' (path, value) writes for one piece, in rule order; True if any matched.

        `{hex}` is the pack hex the piece stands in; a rule using it on a piece that stands on no pack
        hex writes its `unlocated` table instead (so the position can say what it could not place)."""
        used = False
        for rule, found in _matching(self.state, piece, variables):
            used = True
            where = f"{self.source} [[vassal.state]] #{rule.index + 1}"
            values = rule.values
            if any("{hex}" in str(k) or "{hex}" in str(v) for k, v in values.items()):
                place = self.place_of(piece, known_hexes)
                if place is not None and (known_hexes is None or place in known_hexes):
                    found = {**found, "hex": place}
                else:
                    values = rule.unlocated
                    if unplaced is not None:
                        unplaced.append(f"{piece.map or 'no map'}: {piece.location or 'offboard'}")
            for dotted, template in values.items():
                try:
                    path = fill(dotted, found, where)
                    value = self._state_value(template, found, where, rule.types.get(dotted), piece)
                    summed = rule.sums.get(dotted) if values is rule.values else None
                    if summed is not None:  # one term of a sum (bridge/mapping/sums.py)
                        value = SumTerm(str(fill(summed[0], found, where)), value, summed[1],
                                        piece.basic_name or piece.piece_name or "?")
                except _MissingValue as problem:
                    warnings.append(f"piece {piece.basic_name!r}: {problem}")
                    continue
                writes.append((path, value))
        return used

    def _state_value(self, template: Any, found: Mapping[str, str], where: str, kind: str | None,
                     piece: PieceLike) -> Any:
        """A state value: a whole `{track_...}` template keeps the box's own TOML type; `types` converts."""
        form = _template_form(template) if isinstance(template, str) else None
        if form and form.startswith("track_") and self.tracks and form in found:
            box = self.tracks.box_of(piece, getattr(self, "_origins", {}))
            value = box[1].typed(form) if box is not None else None
            if value is None:
                value = fill(template, found, where)
        else:
            value = fill(template, found, where)
        if kind == "int" and not isinstance(value, int):
            try:
                return int(str(value).strip())
            except ValueError:
                raise _MissingValue(f"{where}: {value!r} is not a whole number") from None
        return value


# The variables `VassalMapping._variables` takes from the piece itself (over its properties):
# name -> (attribute, whether None reads as "").
_OWN_VARIABLES = {"BasicName": ("basic_name", False), "PieceName": ("piece_name", False),
                  "location": ("location", True), "map": ("map", True), "zone": ("zone", True),
                  "board": ("board", True), "piece_id": ("id", False)}


def _matching(rules: Iterable[Rule], piece: PieceLike,
              variables: dict[str, str]) -> Iterator[tuple[Rule, dict[str, str]]]:
    """Each rule whose conditions hold for the piece, in order, with the variables it found.

    The rule's gate (its first plain equality) is checked here before `Rule.test`: most rules
    fail on it, and this runs for every piece x rule (5,000-piece saves)."""
    for rule in rules:
        name, expected = rule.gate
        if name is not None and variables.get(name) != expected:
            continue
        found = rule.test(piece, variables)
        if found is not None:
            yield rule, found


