"""One piece's mapping outcome, and the memo that keeps outcomes across a daemon's saves.

Why a memo: a save differs from the one before in a few pieces; each piece's outcome is decided
once per `memo_key` (and once per kind of piece every rule refuses), so a warm save maps only what
changed (docs/architecture.md, "After the position").
"""

from __future__ import annotations

from typing import Any


def counted_whole(outcome: Any) -> bool:
    """Whether an outcome only counts its piece as unmapped (no writes, no warnings, not ignored):
    then `map_pieces` may count every piece of its kind without visiting each."""
    return (isinstance(outcome, Outcome) and outcome.unmapped_piece is not None and not outcome.ignored
            and not outcome.writes and not outcome.warnings)


def concealment(piece: Any) -> str | None:
    """"hidden" (Invisible) or "masked" (Mask) when VASSAL conceals the piece from some players."""
    if getattr(piece, "hidden_by", None):
        return "hidden"
    return "masked" if getattr(piece, "masked_by", None) else None


class Outcome:
    """One piece's mapping on its own: ignored, state writes, a counter, or why it has none.

    A plain slotted class, not a frozen dataclass: one is made per piece of a 5,000-piece save.
    Never modified once made (the memo shares it between saves)."""

    __slots__ = ("concealed", "counter", "ignored", "unmapped_piece", "unmapped_place", "warnings", "writes")

    def __init__(self, ignored: bool = False, concealed: str | None = None,
                 writes: tuple[tuple[str, Any], ...] = (), warnings: tuple[str, ...] = (),
                 counter: dict[str, Any] | None = None, unmapped_piece: str | None = None,
                 unmapped_place: str | None = None) -> None:
        self.ignored = ignored
        self.concealed = concealed  # "hidden" | "masked" when VASSAL conceals the piece
        self.writes = writes
        self.warnings = warnings
        self.counter = counter  # copied before use: the memo keeps this one
        self.unmapped_piece = unmapped_piece
        self.unmapped_place = unmapped_place


PER_PIECE = object()  # MappingMemo.kinds: some rule may take pieces of this kind, map each one


class MappingMemo:
    """Each piece's mapping outcome kept across saves, keyed by the piece's `memo_key`
    (vassal_parser.game.PositionMemo: every input the placed piece was computed from).

    Why: a daemon maps a 5,000-piece save on every write, and between two saves almost every piece
    is unchanged. Bounded, sized like the position memo; emptied when the mapping, the pack or
    the prototype table it was filled for is not the one in use.
    """

    def __init__(self, factor: int = 2, minimum: int = 1000) -> None:
        from vassal_parser.game import BoundedCache

        self.factor = factor
        self.minimum = minimum
        self.outcomes = BoundedCache(minimum)
        # (BasicName, PieceName, first-condition values) -> the outcome of a piece no rule takes, or
        # None when some rule may take it (VassalMapping._unmatched)
        self.unmatched = BoundedCache(minimum)
        # vassal_parser.game.PieceKind -> the unmatched outcome of its pieces, or PER_PIECE where
        # some rule may take them (VassalMapping._first_reads_kind); the kinds are the position
        # memo's, so this holds no more of them than `fit` allows
        self.kinds: dict[Any, Any] = {}
        self._for: tuple[Any, Any, Any] | None = None
        self._origins: Any = None

    def use(self, mapping: object, pack: Any, prototypes: Any, origins: Any = None) -> None:
        """`origins`: the board origins a pack with tracks read this save's points against.

        `mapping` (the `VassalMapping` filling the memo) is only compared by identity, so the memo
        names no type of the mapper, which imports this module (issue 39: no import circle)."""
        current = self._for
        if current is None or not (current[0] is mapping and current[1] is pack and current[2] is prototypes
                                   and self._origins == origins):
            self.outcomes.clear()
            self.unmatched.clear()
            self.kinds.clear()
            self._for = (mapping, pack, prototypes)
            self._origins = origins

    def fit(self, piece_count: int) -> None:
        capacity = max(self.minimum, self.factor * piece_count)
        if len(self.kinds) > capacity:  # kinds of long-gone saves: start again
            self.kinds.clear()
        if capacity > self.outcomes.capacity:
            self.outcomes.resize(capacity)
            self.unmatched.resize(capacity)
