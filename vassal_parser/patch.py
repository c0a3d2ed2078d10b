"""Piece changes written the way VASSAL writes them: a patched save and appended log steps.

Why a module of its own: the reader (`game.py`) replays what VASSAL wrote; this is the other
direction, and it must produce exactly the commands VASSAL's own code would (spec
vassal-writeback.md §1.5, §2.1, §2.2):

* a move in a log is `M/id/newMap/x/y/newUnder/oldMap/oldX/oldY/oldUnder` (`MoveTracker.getMoveCommand`:
  `newUnder` = the piece now directly beneath, `oldUnder` = the one it left). The tenth field, the
  mover's id, is left out: VASSAL's decoder then takes the replaying player's own id
  (`BasicCommandEncoder.decode`, `nextToken(GameModule.getActiveUserId())`), and a player's id is
  his password, which Adjutant must never copy into a file;
* a trait change is `D/id/newState/oldState` of the whole piece (ChangeTracker), a removal `-/id`;
* each Adjutant step is one top-level `LOG` token (one Page Down, one Undo), its other commands
  nested `LOG` children, ending with the `CHAT*!` line that cites the rule (BasicLogger.LogCommand);
* in a save there is no move command: the piece's BasicPiece `map;x;y` changes, its id leaves its
  Stack and joins the target's (on top), emptied stacks are dropped, a piece that left a stack for
  an empty point stands alone (as VASSAL's replay of the `M/` leaves it), members come before their
  Stack, and `Old*` persistent properties say where it came from (`Decorator.putOldProperties`),
  in `java.util.HashMap` iteration order, because that is how `BasicPiece.getState` writes them.

Public API:
    Move(piece_id, map, x, y), Change(piece_id, layer, level), Remove(piece_id)   (operations)
    WriteStep(chat, ops)                      (one Adjutant step: its operations and its chat line)
    Table.from_placed(placed, module, locate) (where every piece stands, stacks bottom first)
    Table.apply(op) -> list[Command]          (the log commands of one operation; updates the table)
    log_step(commands, chat) -> CommandGroup  (one top-level LOG token)
    chat_command(text) -> Command
    patch_save(tree, table) -> CommandTree    (the save's piece tokens brought to the table's state)
    java_hashmap_order(keys) -> list[str]
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from vassal_parser import sequence
from vassal_parser.commands import (
    ESC,
    Command,
    CommandGroup,
    CommandTree,
    add_piece_command,
    change_piece_command,
    leaf_command,
    move_piece_command,
    remove_piece_command,
)
from vassal_parser.pieces import Deck, Piece, Stack, make_piece
from vassal_parser.traits import BasicPiece, Layer, encode_chain, never_stacks

# Decorator.putOldProperties, in the order it sets them (mat properties only with mat support).
OLD_PROPERTIES = ("OldX", "OldY", "OldMap", "OldBoard", "OldZone", "OldLocationName", "OldDeckName")
UNIQUE_ID = "UniqueID"

Point = tuple[str | None, int, int]
# (map id, x, y) -> (map configure name, board, zone, location name): what putOldProperties records.
Locate = Callable[[str | None, int, int], tuple[str, str, str, str]]


@dataclass(frozen=True)
class Move:
    piece_id: str
    map: str
    x: int
    y: int


@dataclass(frozen=True)
class Change:
    """Set the Layer (Embellishment) named `layer` to `level` (1-based, as its state stores it)."""

    piece_id: str
    layer: str
    level: int


@dataclass(frozen=True)
class Remove:
    piece_id: str


Op = Move | Change | Remove


@dataclass
class WriteStep:
    chat: str
    ops: list[Op] = field(default_factory=list)


# ---- java.util.HashMap iteration order ------------------------------------------------------------
def _java_string_hash(text: str) -> int:
    value = 0
    encoded = text.encode("utf-16-be")
    for index in range(0, len(encoded), 2):  # String.hashCode runs over UTF-16 code units
        value = (31 * value + int.from_bytes(encoded[index:index + 2], "big")) & 0xFFFFFFFF
    return value


def java_hashmap_order(keys: Iterable[str]) -> list[str]:
    """The order `HashMap<String, ?>.forEach` visits `keys` put in this order (none removed).

    Why: BasicPiece keeps persistent properties in a HashMap and `getState` writes them in its
    iteration order — bucket index `(h ^ h >>> 16) & (capacity - 1)`, insertion order within a
    bucket; capacity starts at 16 and doubles past 3/4 full (resizing keeps that relative order).
    Checked against a VASSAL 3.7.9 save (tests/parser/test_patch.py)."""
    ordered = list(dict.fromkeys(keys))
    capacity = 16
    while len(ordered) > capacity * 3 // 4:
        capacity *= 2

    def bucket(key: str) -> int:
        hashed = _java_string_hash(key)
        return (hashed ^ (hashed >> 16)) & (capacity - 1)

    return sorted(ordered, key=bucket)  # sorted() is stable: insertion order within a bucket


def basic_state_with(piece: Piece, point: Point, extra: dict[str, str]) -> str:
    """The BasicPiece state VASSAL writes after a move to `point` with `extra` persistent values.

    `UniqueID` is what VASSAL itself adds on load when a state lacks it (`BasicPiece.setId`), so
    a piece Adjutant rewrites carries it as VASSAL's own next save would."""
    basic = piece.traits[-1]
    if not isinstance(basic, BasicPiece):
        raise ValueError(f"piece {piece.id} has no BasicPiece")
    fields = basic.fields
    props: dict[str, str] = {}
    if piece.id is not None:
        props[UNIQUE_ID] = fields["persistent"].get(UNIQUE_ID, piece.id)
    props.update(fields["persistent"])
    props.update(extra)
    order = java_hashmap_order(props)
    ordered = {key: props[key] for key in order}
    return BasicPiece.encode_state(point[0], point[1], point[2], fields["gpid"], ordered, 5)


def with_basic_state(piece: Piece, state: str) -> Piece:
    traits = list(piece.traits)
    traits[-1] = traits[-1].with_state(state)
    return Piece.from_traits(piece.id, traits)


def with_layer(piece: Piece, layer: str, level: int) -> Piece | None:
    """The piece with Layer `layer` at `level`; None when it has no such Layer."""
    traits = list(piece.traits)
    for index, trait in enumerate(traits):
        if isinstance(trait, Layer) and trait.layer_name == layer:
            traits[index] = trait.with_level(level)
            return Piece.from_traits(piece.id, traits)
    return None


# ---- the table ---------------------------------------------------------------------------------------
@dataclass
class _Stack:
    id: str
    map: str | None
    x: int
    y: int
    members: list[str]
    layer: int | None = None
    is_new: bool = False
    deck: bool = False


class Table:
    """Where each piece stands while Adjutant's steps are applied one after another.

    Why its own model and not the reader's replay: writing needs what reading does not — the
    piece directly beneath (`newUnder`/`oldUnder`), stacks to create with fresh ids, and the exact
    Piece text to rewrite — and must never change the reader's shared objects."""

    def __init__(self, stacking: Callable[[str | None], bool], locate: Locate) -> None:
        self.pieces: dict[str, Piece] = {}
        self.parent: dict[str, str] = {}
        self.stacks: dict[str, _Stack] = {}
        self.removed: set[str] = set()
        self.moved: set[str] = set()
        self.changed: set[str] = set()
        self.old_places: dict[str, dict[str, str]] = {}
        self.touched: set[str] = set()  # stacks whose members changed (only these are rewritten)
        self.stacking = stacking
        self.locate = locate
        self._next_id = int(time.time() * 1000)

    @classmethod
    def from_placed(cls, placed: Iterable, stacking: Callable[[str | None], bool], locate: Locate) -> Table:
        """From `Game.position()`/`position_at()` pieces (their stacks, bottom first)."""
        table = cls(stacking, locate)
        members: dict[str, list[tuple[int, str]]] = {}
        where: dict[str, tuple[str | None, int, int, bool]] = {}
        for piece in placed:
            type_string, state_string = encode_chain(piece.traits)
            table.pieces[piece.id] = Piece(piece.id, type_string, state_string)
            container = piece.stack_id or (f"deck:{piece.deck}" if piece.deck else None)
            if container is not None:
                members.setdefault(container, []).append((piece.stack_index or 0, piece.id))
                where[container] = (piece.map, piece.x, piece.y, piece.deck is not None)
        for container, entries in members.items():
            map_id, x, y, deck = where[container]
            ids = [piece_id for _index, piece_id in sorted(entries)]
            table.stacks[container] = _Stack(container, map_id, x, y, ids, deck=deck)
            for piece_id in ids:
                table.parent[piece_id] = container
        return table

    def learn_layers(self, commands: Iterable[Command]) -> None:
        """Each stack's `@@layer` from its AddPiece, so a stack created for a piece that left one keeps
        that layer (Stack.add binds a new stack to its first piece's layer)."""
        for command in commands:
            if command.kind == "add_piece" and command.fields.get("type") == "stack":
                stack = self.stacks.get(command.fields.get("id") or "")
                if stack is not None:
                    stack.layer = Stack(stack.id, command.fields.get("state", "")).layer

    def reserve_ids(self, used: Iterable[str]) -> None:
        """New stack ids are "millis" like `GameState.getNewPieceId`, unique in the file."""
        numbers = [int(i) for i in used if i.isdigit()]
        self._next_id = max([self._next_id, *(n + 1 for n in numbers)])

    def _new_id(self) -> str:
        while str(self._next_id) in self.pieces or str(self._next_id) in self.stacks:
            self._next_id += 1
        value = str(self._next_id)
        self._next_id += 1
        return value

    def position_of(self, piece_id: str) -> Point:
        container = self.parent.get(piece_id)
        if container is not None:
            stack = self.stacks[container]
            return stack.map, stack.x, stack.y
        return self.pieces[piece_id].where

    def under(self, piece_id: str) -> str | None:
        container = self.parent.get(piece_id)
        if container is None:
            return None
        members = self.stacks[container].members
        index = members.index(piece_id)
        return members[index - 1] if index > 0 else None

    def _stacks(self, piece_id: str, map_id: str | None) -> bool:
        piece = self.pieces[piece_id]
        return self.stacking(map_id) and not any(never_stacks(trait) for trait in piece.traits)

    def _detach(self, piece_id: str) -> _Stack | None:
        container = self.parent.pop(piece_id, None)
        if container is None:
            return None
        self.touched.add(container)
        stack = self.stacks[container]
        stack.members.remove(piece_id)
        if not stack.members and not stack.deck:
            del self.stacks[container]
        return stack

    def _target(self, piece_id: str, point: Point) -> tuple[str | None, str | None]:
        """(stack id, piece beneath) at exactly `point`, as MovePiece's merge finder would merge."""
        for stack in self.stacks.values():  # MovePiece's merge finder: a Deck there always takes it
            if stack.deck and (stack.map, stack.x, stack.y) == point:
                return stack.id, stack.members[-1] if stack.members else None
        if not self._stacks(piece_id, point[0]):
            return None, None
        for stack in self.stacks.values():
            if not stack.deck and stack.members and (stack.map, stack.x, stack.y) == point:
                return stack.id, stack.members[-1]
        for other_id, other in self.pieces.items():
            if (other_id != piece_id and other_id not in self.parent and other_id not in self.removed
                    and other.where == point and self._stacks(other_id, point[0])):
                return None, other_id
        return None, None

    def apply(self, op: Op) -> list[Command]:
        """Carry out one operation; the log commands VASSAL would have sent for it."""
        if isinstance(op, Move):
            return [self._move(op)]
        if isinstance(op, Change):
            return [self._change(op)]
        return [self._remove(op)]

    def _move(self, op: Move) -> Command:
        piece_id = op.piece_id
        piece = self.pieces[piece_id]
        old = self.position_of(piece_id)
        old_under = self.under(piece_id)
        old_deck = self.stacks[self.parent[piece_id]] if piece_id in self.parent else None
        map_name, board, zone, location = self.locate(*old) if old[0] is not None else ("", "", "", "")
        self.old_places[piece_id] = dict(zip(OLD_PROPERTIES, (
            str(old[1]), str(old[2]), map_name, board, zone, location,
            "" if old_deck is None or not old_deck.deck else old_deck.id.removeprefix("deck:")), strict=True))
        point: Point = (op.map, op.x, op.y)
        container = self.parent.get(piece_id)
        if point == old and (
                (container is not None and self.stacks[container].members == [piece_id])
                or (container is None and self._target(piece_id, point) == (None, None))):
            # Onto its own point, alone in its stack or alone: MovePiece's finder finds that stack, whose
            # top piece is the piece, or the piece itself (`merge` changes nothing): as it was (issue 40).
            self.pieces[piece_id] = piece.moved_to(*point)
            self.moved.add(piece_id)
            return move_piece_command(piece_id, op.map, op.x, op.y, old[0], old[1], old[2],
                                      new_under=None, old_under=old_under)
        left = self._detach(piece_id)
        stack_id, beneath = self._target(piece_id, point)
        if stack_id is not None:
            self.stacks[stack_id].members.append(piece_id)
            self.parent[piece_id] = stack_id
            self.touched.add(stack_id)
        elif self._stacks(piece_id, op.map) and (beneath is not None or left is None):
            # A lone piece there: StackMetrics.merge makes a stack of the two. An empty point: VASSAL's
            # MovePiece.stackOrPlacePiece makes a one-piece Stack only for a piece that had no parent;
            # one that leaves a stack (or a deck) is placed alone, so the save says what the log replays.
            layer = left.layer if left is not None else None
            new = _Stack(self._new_id(), op.map, op.x, op.y, [], layer, is_new=True)
            if beneath is not None:
                new.members.append(beneath)
                self.parent[beneath] = new.id
            new.members.append(piece_id)
            self.parent[piece_id] = new.id
            self.stacks[new.id] = new
            self.touched.add(new.id)
        self.pieces[piece_id] = piece.moved_to(*point)
        self.moved.add(piece_id)
        return move_piece_command(piece_id, op.map, op.x, op.y, old[0], old[1], old[2],
                                  new_under=beneath, old_under=old_under)

    def _change(self, op: Change) -> Command:
        piece = self.pieces[op.piece_id]
        changed = with_layer(piece, op.layer, op.level)
        if changed is None:
            raise ValueError(f"piece {piece.basic_name!r} has no Layer {op.layer!r}")
        self.pieces[op.piece_id] = changed
        self.changed.add(op.piece_id)
        return change_piece_command(op.piece_id, changed.state_string(), piece.state_string())

    def _remove(self, op: Remove) -> Command:
        self._detach(op.piece_id)
        self.removed.add(op.piece_id)
        del self.pieces[op.piece_id]
        return remove_piece_command(op.piece_id)

    # -- the save's tokens ---------------------------------------------------------------------------
    def saved_piece(self, piece_id: str) -> Piece:
        """The piece as a save holds it: stacked pieces carry their stack's point, Old* where it came from."""
        piece = self.pieces[piece_id]
        if piece_id not in self.moved:
            return piece
        state = basic_state_with(piece, self.position_of(piece_id), self.old_places.get(piece_id, {}))
        return with_basic_state(piece, state)


def chat_command(text: str) -> Command:
    """`CHAT` + the message (Chatter.DisplayText). ESC would split the command and a trailing
    backslash would eat the delimiter after it (SequenceEncoder, spec §4.2): both are removed."""
    clean = text.replace(ESC, " ").replace("\r", " ").replace("\n", " ").rstrip("\\")
    return leaf_command("CHAT" + clean)


def log_step(commands: list[Command], chat: str) -> CommandGroup:
    """One replay step: `LOG<TAB>first` with the others (and the chat line) as nested LOG children."""
    entries = [*commands, chat_command(chat)]
    return CommandGroup([leaf_command("LOG\t" + command.text) for command in entries])


# ---- a save brought to the table's state --------------------------------------------------------
def _add_piece_nodes(tree: CommandGroup) -> list[tuple[CommandGroup, int]]:
    found = []
    work: list[CommandGroup] = [tree]
    while work:
        group = work.pop()
        for index, child in enumerate(group.children):
            if isinstance(child, CommandGroup):
                work.append(child)
            elif child.kind == "add_piece":
                found.append((group, index))
    return found


def _stack_state(stack: _Stack, layer: int | None) -> str:
    tokens = [stack.map or "null", str(stack.x), str(stack.y), *stack.members]
    tokens.append(f"@@{layer if layer is not None else -1}")
    return sequence.encode(tokens, ";") or ""


def patch_save(tree: CommandTree, table: Table) -> CommandTree:
    """A copy of `tree` whose piece tokens say what `table` says; every other token untouched.

    Members stay before their Stack (`Stack.setState` skips ids not yet added): a Stack whose new
    member comes later is moved to just after it, and a new Stack follows its last member."""
    result = copy.deepcopy(tree)
    nodes = _add_piece_nodes(result)
    order: list[tuple[CommandGroup, Command]] = []
    for group, index in nodes:
        order.append((group, group.children[index]))  # type: ignore[arg-type]
    stack_layers: dict[str, int | None] = {}
    drop: set[int] = set()
    for group, command in order:
        piece_id = command.fields.get("id")
        if piece_id is None:
            continue
        thing = make_piece(piece_id, command.fields.get("type", ""), command.fields.get("state", ""))
        if isinstance(thing, Deck):
            known = table.stacks.get(f"deck:{thing.name}")
            kept = known.members if known is not None else [
                m for m in thing.member_ids if m not in table.moved and m not in table.removed]
            if kept != thing.member_ids:  # Deck.setState would otherwise take a drawn piece back
                tokens = sequence.decode(command.fields.get("state", ""), ";")
                if len(tokens) > 4:
                    tokens[4] = sequence.encode(kept, ",") or ""
                    new = add_piece_command(piece_id, thing.type_string(), sequence.encode(tokens, ";") or "")
                    _replace(group, command, new.text)
            continue
        if isinstance(thing, Stack):
            stack_layers[piece_id] = thing.layer
            stack = table.stacks.get(piece_id)
            if stack is None:
                drop.add(id(command))
                continue
            text = add_piece_command(piece_id, "stack", _stack_state(stack, thing.layer)).text
            if text != command.text and thing.member_ids != stack.members:
                _replace(group, command, text)
            continue
        if piece_id in table.removed:
            drop.add(id(command))
        elif piece_id in table.moved or piece_id in table.changed:
            piece = table.saved_piece(piece_id)
            new = add_piece_command(piece_id, piece.type_string(), piece.state_string())
            _replace(group, command, new.text)
    for group in {id(g): g for g, _i in nodes}.values():
        group.children = [c for c in group.children if not (isinstance(c, Command) and id(c) in drop)]
    _place_stacks(result, table, stack_layers)
    return result


def _replace(group: CommandGroup, command: Command, text: str) -> None:
    index = next(i for i, child in enumerate(group.children) if child is command)
    group.children[index] = Command(text)


def _place_stacks(tree: CommandTree, table: Table, layers: dict[str, int | None]) -> None:
    """Insert new stacks after their last member; move an old stack after a member that follows it."""
    def positions() -> dict[str, tuple[CommandGroup, int]]:
        found: dict[str, tuple[CommandGroup, int]] = {}
        for group, index in _add_piece_nodes(tree):
            piece_id = group.children[index].fields.get("id")  # type: ignore[union-attr]
            if piece_id is not None:
                found[piece_id] = (group, index)
        return found

    def preorder() -> dict[int, int]:
        ranks: dict[int, int] = {}
        work: list[CommandGroup | Command] = [tree]
        count = 0
        while work:
            node = work.pop()
            if isinstance(node, CommandGroup):
                ranks[id(node)] = count
                work.extend(reversed(node.children))
            else:
                ranks[id(node)] = count
            count += 1
        return ranks

    for stack_id in sorted(table.touched):  # only stacks Adjutant changed: the rest stay where they are
        stack = table.stacks.get(stack_id)
        if stack is None or stack.deck:
            continue
        where = positions()
        ranks = preorder()
        members = [m for m in stack.members if m in where]
        if not members:
            continue
        last = max(members, key=lambda m: ranks[id(where[m][0].children[where[m][1]])])
        last_group, last_index = where[last]
        last_rank = ranks[id(last_group.children[last_index])]
        if stack.is_new:
            text = add_piece_command(stack.id, "stack", _stack_state(stack, stack.layer)).text
            last_group.children.insert(last_index + 1, Command(text))
            continue
        if stack.id not in where:
            continue
        group, index = where[stack.id]
        node = group.children[index]
        if ranks[id(node)] > last_rank:
            continue
        del group.children[index]
        where = positions()
        last_group, last_index = where[last]
        last_group.children.insert(last_index + 1, node)
