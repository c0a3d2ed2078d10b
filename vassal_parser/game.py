"""A saved game or log replayed into a position: every piece with its map, board, zone and location.

Why over 500 lines: the replay is one walk: the placed piece, its kind and the two memos are filled by
the same restore-and-replay pass (`Game`), which alone knows the containers, boards and stacking of the
moment; the memo types live here because their keys are that walk's own inputs.

Why replay and not just list AddPiece commands: VASSAL's position is the result of executing the
restore commands in order (members join stacks and decks by id, spec §3.2) and, for a log, of
each replay step (moves, merges onto other pieces via `underId`, state changes, removals; spec
§3.5). Only the replayed state says which stack or deck a piece is in and where it really is: a
piece inside a stack or deck takes its container's position (`BasicPiece.getPosition`).

Public API:
    load_game(path, module=None, memo=None) -> Game
    game_from_container(path, container, module=None, memo=None) -> Game   (the same, already opened)
    PositionMemo(module, factor=2, minimum=1000)   (per-piece work kept across saves; a daemon's)
    BoundedCache(capacity)       (the two-generation table the memos use)
    Game: path, kind ("save"|"log"), module, module_name, module_version, vassal_version,
        extensions [(name, version)], board_selections {map_id: [(board, reversed, col, row)]},
        global_properties {(container, name): value}, steps (list of replay steps),
        position() -> list[PlacedPiece]          (what VASSAL shows when the file is opened)
        position_at(step) -> list[PlacedPiece]   (after `step` replay steps; negative counts from the end)
        layout(map_id) -> MapLayout | None
        problems() -> list[str]      (what the layouts used so far could not compute)
    check_same_module(game, module)  (InputError when the save names another module)
    PlacedPiece (docs/architecture.md)
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass, field
from operator import attrgetter, countOf
from pathlib import Path
from typing import Any

from vassal_parser.collector import collector_paused
from vassal_parser.commands import Command, add_piece_strings, decode_stream, split_log
from vassal_parser.container import Container, open_container
from vassal_parser.errors import InputError, about
from vassal_parser.layout import MapLayout
from vassal_parser.module import BoardSelection, Module, parse_board_picker
from vassal_parser.pieces import Deck, Piece, Stack, make_piece
from vassal_parser.scopes import DeckProperty, PropertyScopes, deck_properties
from vassal_parser.traits import Trait, never_stacks

_MISSING = object()
# Caps (docs/vassal-reader.md, "Caps"): AddPiece commands in a file's restore, and replay steps of
# a log. The largest corpus files have 5,500 pieces and about 1,000 steps.
MAX_PIECES = 500_000
MAX_STEPS = 200_000
# Things the merge finder looks at over one replay (each move looks at every top-level thing);
# the largest corpus log (tld-mod 0608-3, 5,097 pieces, 1,144 steps) needs about 1 million.
MAX_MERGE_VISITS = 20_000_000
_KIND = attrgetter("kind")  # a command's kind, read in C over a file's restore
_Names = tuple[str | None, str | None, str | None]  # (board, zone, LocationName) of a point
_MEMO_TOKENS = itertools.count(1)  # each memo filling gets its own: memo keys never collide


@dataclass(slots=True)
class PlacedPiece:
    """One non-stack piece where the game has it; `location` is VASSAL's LocationName.

    Slots: a big save makes one for each of thousands of pieces (and `_PlacedOfKind` sets them)."""

    id: str
    basic_name: str
    piece_name: str
    map: str | None
    x: int
    y: int
    board: str | None
    zone: str | None
    location: str | None
    stack_id: str | None
    stack_index: int | None
    deck: str | None
    properties: dict[str, str] = field(default_factory=dict)
    hidden_by: str | None = None
    masked_by: str | None = None
    traits: list[Trait] = field(default_factory=list, repr=False)
    # Set only when the game was read with a PositionMemo: every input this piece was computed
    # from, so a later consumer (bridge.mapping.mapper) may remember its own per-piece work under it.
    memo_key: tuple | None = field(default=None, repr=False, compare=False)
    # What this piece shares with every piece of its kind in the position (same type, same state but
    # for where it stands; across positions too with a PositionMemo), one object for all of them;
    # None where it shares nothing (a name that reads where it stands, an escaped BasicPiece state).
    kind: PieceKind | None = field(default=None, repr=False, compare=False)


# The order `Game._placed` passes PlacedPiece's fields in (tests/grids/test_position_memo.py checks it).
_PLACED_FIELDS = ("id", "basic_name", "piece_name", "map", "x", "y", "board", "zone", "location", "stack_id",
                  "stack_index", "deck", "properties", "hidden_by", "masked_by", "traits", "memo_key", "kind")
# What PlacedPiece's `==` compares (its dataclass fields but memo_key and kind).
_COMPARED_FIELDS = tuple(name for name in _PLACED_FIELDS if name not in ("memo_key", "kind"))
# The properties `Game._placed` gives each piece beside its kind's (where it stands, its id): a
# consumer keeping work per kind (bridge.mapping.mapper) may do so only for work that reads none of them.
PER_PIECE_PROPERTIES = frozenset(("CurrentMap", "CurrentBoard", "CurrentZone", "CurrentX", "CurrentY",
                                  "DeckName", "LocationName", "PieceUID", "UniqueID"))


class PieceKind:
    """Properties (without PieceUID/UniqueID and where the piece stands), hidden_by and masked_by
    shared by every piece of one `Piece.unplaced_key`: one object for all of them, so a consumer
    may keep work per kind under it (it hashes by identity, in no time).

    Unpacks and indexes as the (properties, hidden_by, masked_by) triple it holds."""

    __slots__ = ("basic_name", "hidden_by", "masked_by", "piece_name", "properties", "without_ids")

    def __init__(self, properties: dict[str, str], hidden_by: str | None, masked_by: str | None) -> None:
        self.properties = properties
        self.hidden_by = hidden_by
        self.masked_by = masked_by
        self.basic_name = properties["BasicName"]  # Piece.properties() sets both, unshadowed
        self.piece_name = properties["PieceName"]
        # no trait of the kind answers PieceUID or UniqueID: each piece's own id does
        self.without_ids = "PieceUID" not in properties and "UniqueID" not in properties

    def _triple(self) -> tuple[dict[str, str], str | None, str | None]:
        return self.properties, self.hidden_by, self.masked_by

    def __iter__(self) -> Iterator[Any]:
        return iter(self._triple())

    def __getitem__(self, index: int) -> Any:
        return self._triple()[index]


class _PlacedOfKind(PlacedPiece):
    """A placed piece of a kind (`PieceKind`) whose properties and traits are made when first read.

    Why: a big save's first read places thousands of pieces that no consumer reads beyond where
    they stand (the mapping decides per kind; the insets read map and location); building each
    one's properties dict and trait chain up front was a tenth of a 5,000-piece first save. What
    is read is what `PlacedPiece` would hold: the kind's properties, then the ids (where no trait
    of the kind has them, `PieceKind.without_ids`), then where it stands (PER_PIECE_PROPERTIES,
    in `Game._placed`'s order); the traits are the piece's own chain. It compares, prints and
    pickles as the PlacedPiece it stands for."""

    __slots__ = ("_current_map", "_made_properties", "_made_traits", "_source")

    def __init__(self, piece_id: str, map_id: str | None, x: int, y: int, board: str | None,
                 zone: str | None, location: str | None, stack_id: str | None, stack_index: int | None,
                 deck: str | None, kind: PieceKind, source: Piece, memo_key: tuple | None,
                 current_map: str) -> None:
        self.id = piece_id
        self.basic_name = kind.basic_name
        self.piece_name = kind.piece_name
        self.map = map_id
        self.x = x
        self.y = y
        self.board = board
        self.zone = zone
        self.location = location
        self.stack_id = stack_id
        self.stack_index = stack_index
        self.deck = deck
        self.hidden_by = kind.hidden_by
        self.masked_by = kind.masked_by
        self.memo_key = memo_key
        self.kind = kind
        self._source = source
        self._current_map = current_map
        self._made_properties: dict[str, str] | None = None
        self._made_traits: list[Trait] | None = None

    @property  # type: ignore[override]
    def properties(self) -> dict[str, str]:
        found = self._made_properties
        if found is None:
            location, identifier = self.location, self.id
            found = {**self.kind.properties, "PieceUID": identifier, "UniqueID": identifier,  # type: ignore[union-attr]
                     "CurrentMap": self._current_map, "CurrentBoard": self.board or "",
                     "CurrentZone": self.zone or "", "CurrentX": str(self.x), "CurrentY": str(self.y),
                     "DeckName": self.deck or ""}
            if location is not None:
                found["LocationName"] = location
            self._made_properties = found
        return found

    @properties.setter
    def properties(self, value: dict[str, str]) -> None:
        self._made_properties = value

    @property  # type: ignore[override]
    def traits(self) -> list[Trait]:
        found = self._made_traits
        if found is None:
            found = self._made_traits = self._source.traits
        return found

    @traits.setter
    def traits(self, value: list[Trait]) -> None:
        self._made_traits = value

    def __eq__(self, other: object) -> bool:
        # the dataclass's own comparison refuses another class: compare the fields it compares
        if not isinstance(other, PlacedPiece):
            return NotImplemented
        return _compared(self) == _compared(other)

    __hash__ = None  # type: ignore[assignment]  # as PlacedPiece's

    def __repr__(self) -> str:  # the dataclass's, under the name of the class it stands for
        return "PlacedPiece" + PlacedPiece.__repr__(self)[len(type(self).__qualname__):]

    def __reduce__(self) -> tuple:
        # pickled as the plain PlacedPiece it stands for (a plan's worker sends pieces as data)
        return PlacedPiece, tuple(getattr(self, name) for name in _PLACED_FIELDS)


def _compared(piece: PlacedPiece) -> tuple:
    return tuple(getattr(piece, name) for name in _COMPARED_FIELDS)


class BoundedCache:
    """A table that keeps at least the `capacity` keys used last (put or found), and at most
    twice as many entries; the capacity can grow or shrink between positions.

    Why two generations, not an LRU list: a 5,000-piece first read puts and looks up tens of
    thousands of entries, and keeping an exact recency order (OrderedDict.move_to_end, one
    eviction per put) was a tenth of it. Here a key lives in the new generation or the old one;
    the new one is a plain dict, and when it holds `capacity` keys it becomes the old one (the
    previous old one is dropped); a key found in the old generation moves to the new one. So
    every key used since the last turn-over, and every one used in the `capacity` uses before it,
    is kept. Why not functools.lru_cache: the memos size the table from the game's piece count
    and drop it whole when the module changes.
    """

    __slots__ = ("_new", "_old", "capacity")
    MISSING = _MISSING  # what `get` returns for an unknown key

    def __init__(self, capacity: int) -> None:
        self.capacity = max(1, capacity)
        self._new: dict[Hashable, object] = {}
        self._old: dict[Hashable, object] = {}

    def get(self, key: Hashable) -> object:
        """The value, or `BoundedCache.MISSING` (a stored value may legitimately be None)."""
        value = self._new.get(key, _MISSING)
        if value is _MISSING:
            value = self._old.pop(key, _MISSING)
            if value is not _MISSING:
                self.put(key, value)  # used again: into the new generation
        return value

    def put(self, key: Hashable, value: object) -> None:
        new = self._new
        new[key] = value
        if len(new) >= self.capacity:
            self._old = new
            self._new = {}
        # A key put without a lookup before may still be in the old generation too: the new one
        # answers first, and the value is the same (a memo's entries are what a fresh computation
        # gives), so it is left there until its generation goes.

    def put_many(self, items: list[tuple[Hashable, object]]) -> None:
        """`put` of each (key, value) in turn, a generation's worth at a time (one C-level update
        each): a 5,000-piece first read puts every piece, and its `put` calls were ~3 M of its
        ~140 M instructions."""
        start, count = 0, len(items)
        while start < count:
            new = self._new
            room = self.capacity - len(new)  # puts before the generation turns over (at least 1)
            new.update(items[start:start + room])
            start += room
            if len(new) >= self.capacity:
                self._old = new
                self._new = {}

    def resize(self, capacity: int) -> None:
        """A larger capacity keeps everything; a smaller one (the memos only grow) starts again from
        the last `capacity` keys the new generation took."""
        shrinks = capacity < self.capacity
        self.capacity = capacity = max(1, capacity)
        if shrinks:
            self._old = {}
            if len(self._new) >= capacity:
                self._old, self._new = dict(list(self._new.items())[-capacity:]), {}

    def clear(self) -> None:
        self._new.clear()
        self._old.clear()

    def __len__(self) -> int:
        return len(self._new) + len(self._old)


class PositionMemo:
    """Per-piece work kept between the positions of one game, for a daemon that re-reads every save.

    Why: between two saves of the same game almost every `+/id/type/state` text is identical, and
    decoding a piece's traits and locating it on the map grid is most of the cost of a position
    (docs/vassal-reader.md, "Speed"). Every table is keyed by ALL the inputs of what it stores:
      * `pieces`: the exact AddPiece command text -> the Piece it creates (pieces are immutable:
        moves and changes make new Piece objects);
      * `placed`: (token, (id, type, state), map, x, y, stack, index, deck, layout serial) -> the
        PlacedPiece, where `token` names this memo's module (it changes when the memo empties) and
        the serial the `MapLayout` (from `layouts`) the piece was located on;
      * `unplaced`: `Piece.unplaced_key()` (type, state without the BasicPiece's map and x, y) ->
        (properties without the id ones, hidden_by, masked_by), or None for a piece whose names
        read where it is (`Piece.uses_formats`): pieces of one type share this work wherever
        they stand, so a first read of a save with many alike counters does it once per kind;
      * `layouts`: layout key (map id, chosen boards) -> MapLayout (which names its points,
        `MapLayout.names_at`, keeping those no plain grid names).
    So a hit returns what a fresh computation would; tests/grids/test_position_memo.py checks
    it. Bounded: tables (`BoundedCache`) keeping `factor` times the largest position read (at least
    `minimum`; at most twice that). The memo belongs to one module: given another, it empties itself.

    PlacedPiece objects handed out are shared between positions: callers must not modify them
    (the pipeline never does). `Game.problems()` of a memoised game reports the problems of the
    shared layouts, i.e. also those found in earlier positions of the same boards.
    """

    def __init__(self, module: Module | None, factor: int = 2, minimum: int = 1000) -> None:
        self.module = module
        self.factor = factor
        self.minimum = minimum
        self.pieces = BoundedCache(minimum)
        self.placed = BoundedCache(minimum)
        self.unplaced = BoundedCache(minimum)
        # keys of `placed` entries whose names read the position's Global Properties or deck sizes
        # -> `PropertyScopes.token()` of the position they were made in (reused only there)
        self.worldly: dict[tuple, int] = {}
        self.layouts: dict[tuple[str, tuple | None], MapLayout | None] = {}
        self.hits = 0  # placed-piece hits and misses, for benchmarks and tests
        self.misses = 0
        self.token = next(_MEMO_TOKENS)

    def use_module(self, module: Module | None) -> None:
        """Forget everything when the module is not the one the tables were filled from."""
        if module is not self.module:
            self.module = module
            self.clear()

    def clear(self) -> None:
        for table in (self.pieces, self.placed, self.unplaced):
            table.clear()
        self.layouts.clear()
        self.worldly.clear()
        self.token = next(_MEMO_TOKENS)

    def fit(self, piece_count: int) -> None:
        """Make room for a position of `piece_count` pieces (tables hold `factor` positions' worth)."""
        capacity = max(self.minimum, self.factor * piece_count)
        for table in (self.pieces, self.placed, self.unplaced):
            if capacity > table.capacity:
                table.resize(capacity)
        if len(self.layouts) > 256:  # boards re-chosen hundreds of times
            self.layouts.clear()
        if len(self.worldly) > 2 * capacity:  # a missing entry makes a miss, never a wrong hit
            self.worldly.clear()

    def unplaced_facts(self, piece: Piece) -> PieceKind | None:
        """(properties without PieceUID/UniqueID, hidden_by, masked_by) of a piece, shared by every
        piece with its `unplaced_key`; None when they must be worked out for this piece where it
        stands (no key, or names that read the map)."""
        key = piece.unplaced_key()
        if key is None:
            return None
        found = self.unplaced.get(key)
        if found is _MISSING:
            facts = piece.kind_facts()
            found = None if facts is None else PieceKind(*facts)
            self.unplaced.put(key, found)
        return found  # type: ignore[return-value]


class _Container:
    """A stack or deck during replay: where it is and its member ids, bottom first."""

    __slots__ = ("deck_name", "deck_type", "id", "map", "members", "x", "y")

    def __init__(
        self,
        container_id: str,
        map_id: str | None,
        x: int,
        y: int,
        deck_name: str | None,
        deck_type: str = "",
    ) -> None:
        self.id = container_id
        self.deck_type = deck_type
        self.map = map_id
        self.x = x
        self.y = y
        self.members: list[str] = []
        self.deck_name = deck_name


class _Board:
    """The replayed state: pieces by id (insertion order), containers, and who contains whom."""

    def __init__(
        self,
        stacking: Callable[[str], bool] | None = None,
        legacy: bool = False,
        memo: PositionMemo | None = None,
    ) -> None:
        self.memo = memo
        self.pieces: dict[str, Piece] = {}
        self.containers: dict[str, _Container] = {}
        self.parent: dict[str, str] = {}
        self.selections: dict[str, BoardSelection] = {}
        self.global_properties: dict[tuple[str, str], str] = {}
        self.stacking = stacking or (lambda map_id: True)
        self.legacy = legacy  # written by VASSAL 2.x (see _change)
        # Draw order of top-level things (lone pieces, stacks, decks): Map.apply visits the top first.
        self.raised: dict[str, int] = {}
        self.merge_visits = 0  # things looked at by the merge finder (capped: MAX_MERGE_VISITS)
        # The merge finder's index: point -> ids of top-level things put there (`_spot`), built at
        # the first lookup (`_things_at`). Entries may be stale (a thing moved on, went into a stack):
        # a lookup keeps those still top-level at the point. Why: looking at every top-level thing
        # for every move made a replay moves x pieces (a 1,600-step log over 2,000 pieces: 10 s).
        self.spots: dict[tuple[str | None, int, int], list[str]] | None = None
        # Ids of the pieces whose placement the commands applied may have changed (`Game.walk`
        # sets it; None: not tracked), so a walk places only those again after a step.
        self.touched: set[str] | None = None
        self._clock = 0
        self._synthetic = 0

    def _raise(self, thing_id: str) -> None:
        self._clock += 1
        self.raised[thing_id] = self._clock
        if self.spots is not None:
            self._spot(thing_id)

    def _spot(self, thing_id: str) -> None:
        """Enter a top-level thing in the merge finder's index at the point it stands on now."""
        point = self._at(thing_id)
        if point is not None and self.spots is not None:
            self.spots.setdefault(point, []).append(thing_id)

    def _things_at(self, point: tuple[str | None, int, int]) -> list[str]:
        """The top-level things at `point` (each once, in no set order); counts the ids it looks
        at into `merge_visits`."""
        raised = self.raised
        if self.spots is None:
            self.spots = {}
            self.merge_visits += len(raised)
            for thing_id in raised:
                self._spot(thing_id)
        candidates = self.spots.get(point)
        if not candidates:
            return []
        self.merge_visits += len(candidates)
        at = self._at
        here = [thing_id for thing_id in dict.fromkeys(candidates)
                if thing_id in raised and at(thing_id) == point]
        self.spots[point] = list(here)  # the stale entries go
        return here

    def _touch(self, piece_ids: Iterable[str]) -> None:
        if self.touched is not None:
            self.touched.update(piece_ids)

    def copy(self) -> _Board:
        other = _Board(self.stacking, self.legacy, self.memo)
        other.raised = dict(self.raised)
        other._clock = self._clock
        other.pieces = dict(self.pieces)
        for key, container in self.containers.items():
            clone = _Container(
                container.id,
                container.map,
                container.x,
                container.y,
                container.deck_name,
                container.deck_type,
            )
            clone.members = list(container.members)
            other.containers[key] = clone
        other.parent = dict(self.parent)
        other.selections = dict(self.selections)
        other.global_properties = dict(self.global_properties)
        other._synthetic = self._synthetic
        other.merge_visits = self.merge_visits
        return other

    # --- membership ------------------------------------------------------------------------
    def _detach(self, piece_id: str) -> None:
        container_id = self.parent.pop(piece_id, None)
        if container_id is None:
            return
        container = self.containers.get(container_id)
        if container is None:
            return
        if self.touched is not None:  # the members above it move down one
            self.touched.update(container.members)
        if piece_id in container.members:
            container.members.remove(piece_id)
        if not container.members and container.deck_name is None:
            del self.containers[container_id]  # an emptied Stack disappears; a Deck stays
            self.raised.pop(container_id, None)

    def _set_members(self, container: _Container, member_ids: list[str]) -> None:
        """`Stack.setState`/`Deck.setState`: ids not (yet) known are skipped silently (spec §3.2)."""
        if self.touched is not None:
            self.touched.update(container.members)
            self.touched.update(member for member in member_ids if member in self.pieces)
        for old in container.members:
            if self.parent.get(old) == container.id:
                del self.parent[old]
        container.members = []
        for member in member_ids:
            if member not in self.pieces:
                continue
            self._detach(member)
            container.members.append(member)
            self.parent[member] = container.id
            self.raised.pop(member, None)

    def position_of(self, piece_id: str) -> tuple[str | None, int, int]:
        """`BasicPiece.getPosition/getMap`: a contained piece is where its container is."""
        container_id = self.parent.get(piece_id)
        if container_id is not None and container_id in self.containers:
            container = self.containers[container_id]
            return container.map, container.x, container.y
        return self.pieces[piece_id].where

    # --- commands --------------------------------------------------------------------------
    def apply(self, command: Command) -> None:
        kind = command.kind
        if kind == "add_piece":
            self._add_all((command,))
        elif kind == "remove_piece":
            self._remove(command.fields["id"])
        elif kind == "change_piece":
            self._change(command.fields["id"], command.fields["new_state"])
        elif kind == "move_piece":
            self._move(command.fields)
        elif kind == "board_picker":
            map_id, selection = parse_board_picker(command.text)
            self.selections[map_id] = selection
            self._touch(self.pieces)  # every piece on that map may stand on another board now
        elif kind == "global_property":
            fields = command.fields
            self.global_properties[(fields["container"], fields["name"])] = fields["value"]

    def restore(self, commands: list[Command]) -> list[tuple[str, str]]:
        """`apply` each of a file's restore commands in order; the (name, version) of the extensions
        they name. A run of AddPieces (a save's thousands of pieces) goes to `_add_all` at once,
        without the dispatch of `apply` for each (itertools.groupby cuts the runs, in C)."""
        extensions: list[tuple[str, str]] = []
        for kind, run in itertools.groupby(commands, _KIND):
            if kind == "add_piece":
                self._add_all(run)
                continue
            for command in run:
                self.apply(command)
                if kind == "extension":
                    extensions.append((command.fields["name"], command.fields["version"]))
        return extensions

    def _add_all(self, commands: Iterable[Command]) -> None:
        """AddPiece commands in order: an AddPiece of a known id does nothing in VASSAL. With a memo,
        the Piece comes from its `pieces` table when the same text was read before, and a Piece
        made is put there (stacks and decks are not: cheap, and they change with every move).

        Why one loop for a run, with `add_piece_strings` and `make_piece` written out for a plain
        text (no backslash, no quote: every AddPiece of the benchmark's never-seen 5,000-piece
        save; its tokens are the parts of a split on `/`, as `add_piece_strings` says): the load
        of that save spent about 11 Python calls per AddPiece between `apply`, `_add`, the memo,
        the fields dict (which no one reads afterwards) and the piece; here 3 (the table's `get`
        and `put`, `Piece`): 5.4k instructions fewer per piece (docs/vassal-reader.md, "Speed").
        tests/parser/test_restore_fast_path.py compares."""
        table = self.memo.pieces if self.memo is not None else None
        pieces, containers, raised = self.pieces, self.containers, self.raised
        clock = self._clock  # (`_raise` written out: a local, kept in `_clock` around containers)
        stacks: dict[str, Stack] = {}  # a stack's state -> its Stack (read once per state text)
        for command in commands:
            text = command.text
            thing = _MISSING if table is None else table.get(text)
            if thing is _MISSING:
                if "\\" in text or "'" in text:
                    thing = make_piece(*add_piece_strings(text))
                else:
                    parts = text.split("/", 4)
                    if len(parts) < 4:
                        parts += ("", "")
                    piece_id, type_string = parts[1], parts[2]
                    if piece_id == "null":
                        piece_id = None
                    if type_string == "stack":
                        # Stacks alike but for their id (a save's many empty `null;0;0;@@-1` ones):
                        # read once; only the id differs, and `_install_container` reads no more.
                        if piece_id is None or piece_id in pieces or piece_id in containers:
                            continue  # AddPiece of a known id does nothing in VASSAL
                        stack = stacks.get(parts[3])
                        if stack is None:
                            stack = stacks[parts[3]] = Stack(None, parts[3])
                        self._clock = clock
                        self._install_container(piece_id, stack)
                        clock = self._clock
                        continue
                    if type_string.startswith("deck;"):
                        thing = make_piece(piece_id, type_string, parts[3])
                    else:
                        thing = Piece(piece_id, type_string, parts[3])
                if table is not None and isinstance(thing, Piece):
                    table.put(text, thing)
            piece_id = thing.id  # type: ignore[union-attr]
            if piece_id is None or piece_id in pieces or piece_id in containers:
                continue  # AddPiece of a known id does nothing in VASSAL
            if isinstance(thing, Piece):
                pieces[piece_id] = thing
                clock += 1
                raised[piece_id] = clock
                if self.spots is not None:  # (a log's AddPiece; none yet while a save is restored)
                    self._spot(piece_id)
                if self.touched is not None:
                    self.touched.add(piece_id)
            else:
                self._clock = clock
                self._install_container(piece_id, thing)  # type: ignore[arg-type]
                clock = self._clock
        self._clock = clock

    def _install_container(self, piece_id: str, thing: Stack | Deck) -> None:
        deck_name = thing.name if isinstance(thing, Deck) else None
        deck_type = thing.type_string() if isinstance(thing, Deck) else ""
        container = _Container(piece_id, thing.map, thing.x, thing.y, deck_name, deck_type)
        self.containers[piece_id] = container
        self._set_members(container, thing.member_ids)
        self._raise(piece_id)

    def _remove(self, piece_id: str) -> None:
        self.raised.pop(piece_id, None)
        if piece_id in self.pieces:
            self._touch((piece_id,))
            self._detach(piece_id)
            del self.pieces[piece_id]
        elif piece_id in self.containers:
            self._touch(self.containers[piece_id].members)
            for member in self.containers[piece_id].members:
                self.parent.pop(member, None)
            del self.containers[piece_id]

    def _change(self, piece_id: str, new_state: str) -> None:
        if piece_id in self.containers:
            container = self.containers[piece_id]
            if container.deck_name is not None:
                thing: Stack | Deck = Deck(piece_id, container.deck_type, new_state)
            else:
                thing = Stack(piece_id, new_state)
            container.map, container.x, container.y = thing.map, thing.x, thing.y
            self._set_members(container, thing.member_ids)
            if self.spots is not None and piece_id in self.raised:
                self._spot(piece_id)
            return
        old = self.pieces.get(piece_id)
        if old is None:
            return
        new = Piece(piece_id, old.type_string(), new_state)
        # BasicPiece.setState compares the new map with getMap(), which for a stacked piece is its
        # stack's map: only a move to another map unstacks it; a null map takes a lone piece off.
        # VASSAL 2.x wrote stacked pieces' states with `null` or stale map ids and kept them in their
        # stack, and a null map left a lone piece where it was (the next save lists it there).
        old_map = self.position_of(piece_id)[0]
        stacked = piece_id in self.parent
        if self.legacy:
            if new.map is None and not stacked and old_map is not None:
                new = new.moved_to(old_map, new.x, new.y)
        elif new.map is not None and new.map != old_map:
            self._detach(piece_id)
            self._raise(piece_id)
        self.pieces[piece_id] = new
        self._touch((piece_id,))
        if self.spots is not None and piece_id in self.raised:
            self._spot(piece_id)  # a lone piece's state says where it stands

    def _move(self, fields: dict) -> None:
        """`MovePiece.executeCommand`. The piece is looked at where it stands, still in its stack:
        merged onto `new_under` when that is at the new point, else onto what the merge finder
        finds there (which may be its own stack, or the piece itself: then nothing changes), else
        `stackOrPlacePiece` — a piece in no stack gets a new Stack of its own on a map that stacks,
        a stacked piece leaves its stack and stands alone. Without `new_under`, a piece that ends in
        a stack is put at its bottom (`getParent().insert(piece, 0)`)."""
        piece_id = fields["id"]
        point = (fields["new_map"], fields["new_x"], fields["new_y"])
        under = fields.get("new_under")
        if piece_id in self.containers:
            container = self.containers[piece_id]
            was_here = (container.map, container.x, container.y) == point
            self._touch(container.members)
            if point[0] is None:
                container.map, container.x, container.y = point
                self._raise(piece_id)
                return
            if container.deck_name is None and self._merged_here(piece_id, point, under, was_here):
                return
            container.map, container.x, container.y = point
            self._raise(piece_id)
            return
        piece = self.pieces.get(piece_id)
        if piece is None:
            return
        self._touch((piece_id,))
        if point[0] is None:
            self._detach(piece_id)
            self.pieces[piece_id] = piece.moved_to(*point)
            self._raise(piece_id)
            return
        was_here = piece_id not in self.parent and self.position_of(piece_id) == point
        self.pieces[piece_id] = piece.moved_to(*point)
        if not self._merged_here(piece_id, point, under, was_here):
            self._place(piece_id, point)
        if under is None and piece_id in self.parent:
            members = self.containers[self.parent[piece_id]].members
            if members[0] != piece_id:
                self._touch(members)  # the members below it move up one
                members.remove(piece_id)
                members.insert(0, piece_id)

    def _merged_here(self, moving: str, point: tuple[str | None, int, int], under: str | None,
                     was_here: bool) -> bool:
        """Whether `MovePiece` merges `moving` (into `under`, or what its merge finder finds at
        `point`); `was_here`: `moving` is a top-level thing standing at `point` already, which the
        finder visits too (merging a thing with itself changes nothing)."""
        if under and self._at(under) == point:
            self._merge(under, moving)
            return True
        target = self._merge_target(moving, point, was_here)
        if target is None:
            return False
        if target != moving:
            self._merge(target, moving)
        return True

    def _place(self, piece_id: str, point: tuple[str | None, int, int]) -> None:
        """`stackOrPlacePiece`: a piece in no stack, on a map that stacks and not refusing to,
        goes into a new Stack (index 0) placed at the point; otherwise it stands alone there
        (`Map.placeAt` takes a stacked piece out of its stack)."""
        if piece_id in self.parent:
            self._detach(piece_id)
        elif self.stacking(point[0] or "") and not self._does_not_stack(piece_id):
            self.raised.pop(piece_id, None)
            self._synthetic += 1
            container = _Container(f"{piece_id}#stack{self._synthetic}", *point, None)
            container.members = [piece_id]
            self.containers[container.id] = container
            self.parent[piece_id] = container.id
            self._raise(container.id)
            return
        self._raise(piece_id)

    def _members_of(self, thing_id: str) -> list[str]:
        container = self.containers.get(thing_id)
        return container.members if container is not None else []

    def _does_not_stack(self, piece_id: str) -> bool:
        """`Properties.NO_STACK`: a "Does not stack" (`immob;`) trait whose stacking option is not `L`."""
        piece = self.pieces.get(piece_id)
        return piece is not None and any(never_stacks(trait) for trait in piece.traits)

    def _merge_target(self, moving: str, point: tuple[str | None, int, int],
                      was_here: bool = False) -> str | None:
        """`MovePiece.createMergeFinder`, top-most first: a Deck at the point always takes the piece;
        a non-empty Stack or a lone piece only when the map stacks and neither piece refuses to;
        `moving` itself when it stands there (`was_here`) and would merge with itself."""
        stacking = self.stacking(point[0] or "") and not self._does_not_stack(moving)
        # Only the top-level things entered at the point are looked at (`_things_at`); many that
        # do not stack on one point still make a replay moves x pieces, so it is capped
        # (MAX_MERGE_VISITS) like sizes and counts.
        here = [thing_id for thing_id in self._things_at(point) if thing_id != moving or was_here]
        if self.merge_visits > MAX_MERGE_VISITS:
            raise InputError(None, f"replay looks for stacks more than {MAX_MERGE_VISITS} times "
                                   "(moves x pieces); stopped")
        clock = self.raised.__getitem__
        if len(set(map(clock, here))) < len(here):  # equal clocks: `raised` order breaks the tie
            order = {thing_id: index for index, thing_id in enumerate(self.raised)}
            here.sort(key=order.__getitem__)
        for thing_id in sorted(here, key=clock, reverse=True):
            container = self.containers.get(thing_id)
            if container is not None:
                if container.deck_name is not None and moving not in self.containers:
                    return thing_id
                if container.deck_name is None and container.members and stacking:
                    return thing_id
            elif (
                stacking
                and thing_id in self.pieces
                and thing_id not in self.parent
                and not self._does_not_stack(thing_id)
            ):
                return thing_id
        return None

    def _at(self, thing_id: str) -> tuple[str | None, int, int] | None:
        if thing_id in self.containers:
            container = self.containers[thing_id]
            return container.map, container.x, container.y
        if thing_id in self.pieces:
            return self.position_of(thing_id)
        return None

    def _merge(self, fixed: str, moving: str) -> None:
        """`StackMetrics.merge`: onto a stack/deck's top piece, above a stacked piece, or into a new
        stack of two; a moving Stack brings all its pieces (bottom first) and disappears. Merging a
        thing with itself, its own stack or a member of itself changes nothing; a piece already in
        the stack it merges into takes its new place in it (`Stack.insert`)."""
        if fixed in self.containers and self.containers[fixed].members:
            fixed = self.containers[fixed].members[-1]  # the top piece (invisibility not read)
        fixed_parent = self.parent.get(fixed)
        if moving in (fixed, fixed_parent):
            return
        moving_stack = moving in self.containers
        if moving_stack:
            incoming = list(self.containers[moving].members)
            for member in incoming:
                self.parent.pop(member, None)
            del self.containers[moving]
            self.raised.pop(moving, None)
        else:
            incoming = [moving]
        if fixed in self.containers:  # an empty stack or deck
            container = self.containers[fixed]
            index = len(container.members)
        elif fixed_parent is not None:
            container = self.containers[fixed_parent]
            index = container.members.index(fixed) + 1
            if not moving_stack and self.parent.get(moving) == fixed_parent \
                    and container.members.index(moving) < index:
                index -= 1
        else:
            map_id, x, y = self.position_of(fixed)
            self._synthetic += 1
            container = _Container(f"{fixed}#stack{self._synthetic}", map_id, x, y, None)
            self.containers[container.id] = container
            container.members = [fixed]
            self.parent[fixed] = container.id
            self.raised[container.id] = self.raised.pop(fixed, 0)
            if self.spots is not None:
                self._spot(container.id)
            index = 1
        if not moving_stack:
            if self.parent.get(moving) == container.id:
                container.members.remove(moving)
            else:
                self._detach(moving)
        container.members[index:index] = incoming
        for member in incoming:
            self.parent[member] = container.id
            self.raised.pop(member, None)
        self._touch(container.members)


@dataclass
class WalkedStep:
    """One position of `Game.walk`: `placed` is every piece by id in position order; `before` holds,
    for each piece the step may have changed, how it was placed before the step (None: it was not);
    `reordered`: the step added pieces (or put one back), so pieces kept their places in `placed`
    but not always their order."""

    step: int
    placed: dict[str, PlacedPiece]
    before: dict[str, PlacedPiece | None]
    reordered: bool = False

    def pieces(self) -> list[PlacedPiece]:
        """The position as `Game.position_at(step)` gives it."""
        return list(self.placed.values())


@dataclass
class Game:
    """A loaded save or log; positions are computed on demand from the replayed commands."""

    path: str
    kind: str
    module: Module | None
    module_name: str
    module_version: str
    vassal_version: str
    extensions: list[tuple[str, str]]
    steps: list[list[Command]]
    _start: _Board = field(repr=False)
    _layouts: dict[tuple[str, tuple | None], MapLayout | None] = field(default_factory=dict, repr=False)
    _replayed: tuple[int, _Board] | None = field(default=None, repr=False)
    _memo: PositionMemo | None = field(default=None, repr=False)
    _missing_maps: list[str] = field(default_factory=list, repr=False)

    @property
    def board_selections(self) -> dict[str, BoardSelection]:
        return dict(self._start.selections)

    @property
    def global_properties(self) -> dict[tuple[str, str], str]:
        return dict(self._start.global_properties)

    def layout(
        self, map_id: str | None, selections: dict[str, BoardSelection] | None = None
    ) -> MapLayout | None:
        """The map's layout with the boards this game chose (its BoardPicker command, else the default)."""
        if self.module is None or map_id is None:
            return None
        map_def = self.module.map_by_id(map_id)
        if map_def is None:
            return None
        chosen = (selections if selections is not None else self._start.selections).get(map_def.identifier)
        key = (map_def.identifier, tuple(chosen) if chosen is not None else None)
        if key not in self._layouts:
            shared = self._memo.layouts if self._memo is not None else {}
            if key not in shared:
                shared[key] = MapLayout(map_def, chosen, self.module.module_property)
            self._layouts[key] = shared[key]
        return self._layouts[key]

    def problems(self) -> list[str]:
        """What could not be computed in the layouts used so far (unplaceable boards, non-core numberings)."""
        found: list[str] = [
            f"map {map_id!r} is named by the file but the module has no such map: VASSAL leaves its "
            "pieces on no map (no map, empty location), and so do we"
            for map_id in self._missing_maps
        ]
        for layout in self._layouts.values():
            for problem in layout.problems if layout is not None else []:
                if problem not in found:
                    found.append(problem)
        return found

    @collector_paused()
    def position(self) -> list[PlacedPiece]:
        """The position VASSAL shows on opening the file (for a log: before any step)."""
        with about(self.path):
            return self._placed(self._start)

    @collector_paused()
    def position_at(self, step: int) -> list[PlacedPiece]:
        """The position after `step` replay steps (0 = on opening; -1 = after the last step)."""
        count = len(self.steps)
        index = step + count + 1 if step < 0 else step
        if not 0 <= index <= count:
            raise InputError(self.path, f"step {step} is out of range: this file has {count} replay steps")
        # Stepping forward (a viewer's "next step") continues from the last replayed step.
        done, board = (0, self._start) if self._replayed is None else self._replayed
        if done > index:
            done, board = 0, self._start
        board = board.copy()
        with about(self.path):
            for commands in self.steps[done:index]:
                for command in commands:
                    board.apply(command)
            self._replayed = (index, board)
            return self._placed(board)

    def walk(self) -> Iterator[WalkedStep]:
        """Every position of a log in order, from the log as opened (step 0) to the last step, each
        one what `position_at(step)` gives (tests/grids/test_game_walk.py compares them).

        Why not `position_at` for each step: that places every piece of the game again at every
        step, and a long log's step mostly moves a few pieces of thousands. Here the board is
        replayed once, step after step, and after each step only the pieces its commands may have
        changed (`_Board.touched`: the pieces moved, changed, added or removed, the members of a
        stack or deck they joined or left, every piece after a BoardPicker) are placed again.
        The `WalkedStep` handed out is the walk's own and changes with the next step."""
        board = self._start.copy()
        with about(self.path), collector_paused():
            placed = {piece.id: piece for piece in self._placed(board)}
        walked = WalkedStep(0, placed, {}, False)
        yield walked
        board.touched = set()
        # pieces placed alone without a kind: their names may read Global Properties or deck sizes
        # (`PropertyScopes`), so a step changing those places them again too
        readers = {piece_id for piece_id, piece in placed.items() if piece.kind is None}
        decks = _deck_sizes(board)
        for number, commands in enumerate(self.steps, 1):
            with about(self.path), collector_paused():
                for command in commands:
                    board.apply(command)
                touched, board.touched = board.touched, set()
                if readers:
                    now_decks = _deck_sizes(board)
                    if (now_decks != decks or any(command.kind == "global_property" for command in commands)
                            or any(_in_deck(board, piece_id) for piece_id in touched)):
                        touched |= readers  # (a deck's count expressions read its pieces)
                    decks = now_decks
                before = {piece_id: placed.get(piece_id) for piece_id in touched}
                present = [piece_id for piece_id in touched if piece_id in board.pieces]
                for piece_id in touched:
                    if piece_id not in board.pieces:
                        placed.pop(piece_id, None)
                pieces = board.pieces
                now = self._placed(board, [(piece_id, pieces[piece_id]) for piece_id in present])
                added = False
                for piece in now:
                    added = added or piece.id not in placed
                    placed[piece.id] = piece
                    if piece.kind is None:
                        readers.add(piece.id)
                    else:
                        readers.discard(piece.id)
                if added:  # the board's order: new pieces in the order they came
                    reordered = {piece_id: placed[piece_id] for piece_id in pieces}
                    placed.clear()
                    placed.update(reordered)
            walked.step, walked.before, walked.reordered = number, before, added
            yield walked

    def _placed(self, board: _Board, only: list[tuple[str, Piece]] | None = None) -> list[PlacedPiece]:
        """Every piece located. Per-map work (layout, map name) is done once per position; with a
        memo, a piece whose text and container are unchanged since an earlier position is reused.

        Why the loop is written out: it runs once for each of a big save's thousands of pieces, and
        on a first read each of them is a miss (issue 15): a point is named by the layout's
        `names_at` straight away, the map facts of the piece before are reused (~3.6 M
        instructions of a 5,000-piece first read), the memo's puts are done together at the end
        (`put_many`) and its hit and miss counts once."""
        memo = self._memo
        if memo is not None:
            if only is None:
                memo.fit(len(board.pieces))
            placed_get, token = memo.placed.get, memo.token
            unplaced_facts = memo.unplaced_facts
        else:  # pieces of one kind share their facts within this position all the same
            unplaced_facts = PositionMemo(self.module, minimum=max(1000, len(board.pieces))).unplaced_facts
        maps: dict[str | None, tuple[Callable[[int, int], _Names], int | None, str, str | None]] = {}
        indexes: dict[str, dict[str, int]] = {}
        kinds_here: dict[tuple | None, PieceKind | None] = {}
        result: list[PlacedPiece] = []
        append = result.append
        made: list[tuple[tuple, PlacedPiece]] = []  # (memo key, piece) of the misses, put at the end
        keep = made.append
        hits = 0
        last_map: object = _MISSING  # the map id of the piece before (none yet)
        parent_of, containers = board.parent.get, board.containers
        scopes = self._scopes(board)
        # memo keys of pieces whose names read the position's properties -> the position they read
        worldly = memo.worldly if memo is not None else None
        for piece_id, piece in board.pieces.items() if only is None else only:
            # A piece no read has placed yet has no `where`: no entry holds it (but one made for
            # an equal Piece the `pieces` table has since dropped, and a miss is right all the same).
            fresh = piece._where is None
            # BasicPiece.getPosition/getMap: a contained piece is where its container is.
            container_id = parent_of(piece_id)
            container = containers.get(container_id) if container_id is not None else None
            if container is None:
                map_id, x, y = piece.where
                stack_id = stack_index = deck = None
            else:
                map_id, x, y = container.map, container.x, container.y
                stack_id = deck = None
                if container.deck_name is not None:
                    deck = container.deck_name
                else:
                    stack_id = container.id
                order = indexes.get(container.id)
                if order is None:
                    order = indexes[container.id] = {}
                    for index, member in enumerate(container.members):
                        order.setdefault(member, index)
                stack_index = order[piece_id]
            if map_id != last_map:  # consecutive pieces mostly stand on one map
                last_map = map_id
                on_map = maps.get(map_id)
                if on_map is None:
                    on_map = maps[map_id] = self._map_facts(map_id, board)
                names_at, layout_serial, map_name, placed_map = on_map
            key = None
            if memo is not None:
                key = (token, piece.strings(), placed_map, x, y, stack_id, stack_index, deck, layout_serial)
                if not fresh:
                    cached = placed_get(key)
                    # a piece placed alone without a kind may read the position's properties:
                    # reused only from a position where they were the same
                    if cached is not _MISSING and (cached.kind is not None  # type: ignore[union-attr]
                                                   or worldly.get(key) == scopes.token()):  # type: ignore[union-attr]
                        hits += 1
                        append(cached)  # type: ignore[arg-type]
                        continue
            board_name, zone, location = names_at(x, y)
            kind_key = piece.unplaced_key()  # the memo's kinds, looked up once per kind here
            shared = kinds_here.get(kind_key, _MISSING)
            if shared is _MISSING:
                shared = kinds_here[kind_key] = unplaced_facts(piece)
            if shared is not None and shared.without_ids and piece_id is not None:
                # the usual piece of a kind: its properties and traits wait until read
                placed: PlacedPiece = _PlacedOfKind(piece_id, placed_map, x, y, board_name, zone, location,
                                                    stack_id, stack_index, deck, shared, piece, key, map_name)
            else:
                placed = self._placed_alone(piece, shared, placed_map, x, y, board_name, zone, location,
                                            stack_id, stack_index, deck, map_name, key, scopes)
                if shared is None and worldly is not None and key is not None:
                    worldly[key] = scopes.token()
            if key is not None:
                keep((key, placed))
            append(placed)
        if memo is not None:
            memo.placed.put_many(made)
            memo.hits += hits
            memo.misses += len(made)
        return result

    def _placed_alone(
        self, piece: Piece, shared: PieceKind | None, map_id: str | None, x: int, y: int,
        board_name: str | None, zone: str | None, location: str | None, stack_id: str | None,
        stack_index: int | None, deck: str | None, map_name: str, key: tuple | None,
        scopes: PropertyScopes | None = None,
    ) -> PlacedPiece:
        """A PlacedPiece built whole: a piece whose names read where it stands (`shared` None), a
        kind with a trait answering PieceUID or UniqueID, or a piece without an id."""
        piece_id = piece.id
        on_board = {  # PER_PIECE_PROPERTIES but the ids
            "CurrentMap": map_name,
            "CurrentBoard": board_name or "",
            "CurrentZone": zone or "",
            "CurrentX": str(x),
            "CurrentY": str(y),
            "DeckName": deck or "",
        }
        if location is not None:
            on_board["LocationName"] = location
        if shared is None:
            properties = piece.properties(self._context(on_board, scopes))
            hidden_by, masked_by = piece.hidden_by, piece.masked_by
            properties.update(on_board)
        else:
            hidden_by, masked_by = shared.hidden_by, shared.masked_by
            properties = dict(shared.properties)
            if piece_id is not None:  # Piece.properties() adds them last, unless a trait has them
                properties.setdefault("PieceUID", piece_id)
                properties.setdefault("UniqueID", piece_id)
            properties.update(on_board)
        # Positional, in field order (_PLACED_FIELDS): 18 keywords cost a 5,000-piece first read
        # ~7 ms of argument matching.
        return PlacedPiece(
            piece_id,
            properties["BasicName"],  # Piece.properties() sets both, unshadowed
            properties["PieceName"],
            map_id, x, y, board_name, zone, location, stack_id, stack_index, deck,
            properties, hidden_by, masked_by, piece.traits, key, shared,
        )

    def _context(self, on_board: dict[str, str],
                 scopes: PropertyScopes | None) -> Callable[[str], str | None]:
        """What a piece's name and label formats see beyond its traits: its map-derived properties,
        then its zone's, map's and the module's (`scopes`: BasicPiece.getProperty falls back to
        the zone, the map and the module)."""
        map_name = on_board.get("CurrentMap", "")
        zone = on_board.get("CurrentZone", "")
        module_property = self.module.module_property if self.module is not None else None

        def lookup(key: str) -> str | None:
            value = on_board.get(key)
            if value is None:
                if scopes is not None:
                    value = scopes.lookup(map_name, zone, key)
                elif module_property is not None:
                    value = module_property(key)
            return value

        return lookup

    def _scopes(self, board: _Board) -> PropertyScopes:
        """The zone, map and module properties of the position `board` holds."""
        containers, pieces = board.containers, board.pieces

        def decks() -> list[DeckProperty]:
            found: list[DeckProperty] = []
            for container in containers.values():
                if container.deck_name is not None:
                    members = [pieces[member] for member in container.members if member in pieces]
                    found.extend(deck_properties(container.map, container.deck_type, members))
            return found

        return PropertyScopes(self.module, board.global_properties, decks)

    def _map_facts(
        self, map_id: str | None, board: _Board
    ) -> tuple[Callable[[int, int], _Names], int | None, str, str | None]:
        """(names of a point, layout serial, CurrentMap value, map id) for one map of a position;
        the names of a point are (board, zone, LocationName): the layout's `names_at`; the serial
        (`MapLayout.serial`, None without a layout) stands in a memo key for the map's chosen boards.

        A map the module lacks: `Map.getMapById` gives null, so VASSAL's piece is on no map —
        map id None, CurrentMap and LocationName empty — and a problem names the map. On no map
        LocationName is "" (BasicPiece.getProperty: `getMap() == null ? ""`) when a module is known,
        unknown (None) without one."""
        map_def = self.module.map_by_id(map_id) if self.module is not None else None
        if self.module is not None and map_id is not None and map_def is None:
            if map_id not in self._missing_maps:
                self._missing_maps.append(map_id)
            map_id = None
        layout = self.layout(map_id, board.selections)
        if layout is None:
            nowhere = (None, None, "" if self.module is not None else None)
            map_name = map_def.name if map_def is not None else (map_id or "")
            return (lambda _x, _y: nowhere), None, map_name, map_id
        return layout.names_at, layout.serial, map_def.name, map_id  # type: ignore[union-attr]


def load_game(
    path: str | os.PathLike[str], module: Module | None = None, memo: PositionMemo | None = None
) -> Game:
    """Read a `.vsav`/`.vlog` (or old `.sav`/`.log`, or a bare command stream) and replay its restore.

    `memo` (kept by a caller that reads many saves of one game, e.g. the watch daemon) reuses
    per-piece work from earlier reads; the result is the same with or without it."""
    path = Path(path)
    with about(path):
        container = open_container(path, hold=True)
        with container.kept_open():
            return game_from_container(path, container, module, memo)


@collector_paused()
def game_from_container(
    path: Path, container: Container, module: Module | None = None, memo: PositionMemo | None = None
) -> Game:
    """`load_game` for a container already opened (and de-obfuscated): the decode and replay alone,
    which is what `benchmarks/parse.py` times against the open."""
    if memo is not None:
        memo.use_module(module)
    if container.kind not in ("save", "log", "command-stream"):
        raise InputError(path, f"is a {container.kind}, not a VASSAL saved game or log")
    tree = decode_stream(container.command_text())
    restore, steps = split_log(tree)
    if not restore or restore[0].text != "begin_save":
        raise InputError(path, "saved game does not start with begin_save: not a VASSAL game stream")
    metadata = container.metadata
    board = _Board(_stacking_of(module), legacy=_is_legacy(metadata.get("VassalVersion", "")), memo=memo)
    added = countOf(map(_KIND, restore), "add_piece")
    if added > MAX_PIECES:
        raise InputError(path, f"saved game adds {added} pieces (at most {MAX_PIECES} are read)")
    if len(steps) > MAX_STEPS:
        raise InputError(path, f"log has {len(steps)} replay steps (at most {MAX_STEPS} are read)")
    if memo is not None:  # room for this file's pieces before they are read, not after
        memo.fit(added)
    extensions = board.restore(restore)
    return Game(
        path=str(path),
        kind="log" if steps else ("log" if container.kind == "log" else "save"),
        module=module,
        module_name=metadata.get("name", ""),
        module_version=metadata.get("version") or metadata.get("moduleVersion", ""),
        vassal_version=metadata.get("VassalVersion", ""),
        extensions=extensions,
        steps=steps,
        _start=board,
        _memo=memo,
    )


def _deck_sizes(board: _Board) -> list[tuple[str, int]]:
    """Every deck's id and size (what a `<deck>_numPieces` property reads)."""
    return [(key, len(container.members)) for key, container in board.containers.items()
            if container.deck_name is not None]


def _in_deck(board: _Board, piece_id: str) -> bool:
    container = board.containers.get(board.parent.get(piece_id, ""))
    return container is not None and container.deck_name is not None


def _is_legacy(vassal_version: str) -> bool:
    """Written by VASSAL 2.x: its version says so, or (2.x files have no metadata) none is recorded."""
    major = vassal_version.split(".", 1)[0]
    if major.isascii() and major.isdigit():
        return int(major) < 3
    return True


def _stacking_of(module: Module | None) -> Callable[[str], bool]:
    """Whether a map stacks pieces (its StackMetrics is not disabled); unknown maps stack (the default)."""

    def stacking(map_id: str) -> bool:
        map_def = module.map_by_id(map_id) if module is not None else None
        return map_def.stacking_enabled if map_def is not None else True

    return stacking


def check_same_module(game: Game, module: Module) -> None:
    """Refuse a save written by a different module: its map ids and boards would not match ours.

    Old saves without metadata (VASSAL 2.x) record no module name; they are accepted as is.
    """
    if game.module_name and module.name and game.module_name != module.name:
        raise InputError(
            game.path, f"was saved by module {game.module_name!r}, but the module given is {module.name!r}"
        )
