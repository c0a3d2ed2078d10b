"""Who sees a hidden or masked piece: VASSAL's own access rules, per side, and a faction's sides.

Why here, from the traits and not from a flag: VASSAL keeps in the file who hid a piece (the trait's
state: `hiddenBy`, `obscuredBy`) and, in the trait's type, who may see it hidden (`PieceAccess`):

* `side:` (SideAccess): the owner is a side name; that side alone sees it;
* `sides:A:B` (SpecifiedSideAccess): the owner is the side that hid it; if that side is one of A, B,
  every listed side sees it, else no one does;
* `player:` or nothing (PlayerAccess): the owner is one player's password; no side can be named, so
  no player view shows it (only the control view, the players' own desk).

A faction (Axis, Western, Soviet) is one or more of the module's sides (`[vassal.sides]` in the pack,
by default the side of the faction's own name). Its player view shows a piece only when every one of
its sides would see it: whichever of those sides the player took in VASSAL, nothing is shown that
VASSAL would not show them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vassal_parser import sequence
from vassal_parser.traits import Invisible, Mask

PLAYER_ACCESS, SIDE_ACCESS, SIDES_ACCESS = "player", "side", "sides"


@dataclass(frozen=True)
class Concealment:
    """One trait concealing a piece: how ("hidden" or "masked"), by whom, and who may see through it."""

    how: str
    owner: str
    access: str  # PLAYER_ACCESS | SIDE_ACCESS | SIDES_ACCESS
    listed: tuple[str, ...] = ()  # the sides of `sides:A:B`

    def seen_by(self, side: str) -> bool:
        """`PieceAccess.currentPlayerHasAccess(owner)` for a player of `side`."""
        if self.access == SIDE_ACCESS:
            return self.owner == side
        if self.access == SIDES_ACCESS:
            return self.owner in self.listed and side in self.listed
        return False  # a player's password: no side is that player

    def sides_seeing(self) -> tuple[str, ...]:
        """The sides that see through it (none for a player's password)."""
        if self.access == SIDE_ACCESS:
            return (self.owner,)
        if self.access == SIDES_ACCESS and self.owner in self.listed:
            return self.listed
        return ()


def parse_access(text: str | None) -> tuple[str, tuple[str, ...]]:
    """`PieceAccessConfigurer.decode`: "side:" -> side; "sides:A:B" -> sides (A, B); else player."""
    if text == "side:":
        return SIDE_ACCESS, ()
    if text and text.startswith("sides:"):
        return SIDES_ACCESS, tuple(sequence.decode(text[len("sides:"):], ":") or ())
    return PLAYER_ACCESS, ()


def concealments(piece: Any) -> list[Concealment]:
    """Every trait of `piece` that conceals it now (an Invisible hidden, a Mask masked)."""
    if not getattr(piece, "hidden_by", None) and not getattr(piece, "masked_by", None):
        return []
    found = []
    for trait in getattr(piece, "traits", None) or []:
        if isinstance(trait, Invisible) and trait.hidden_by:
            access, listed = parse_access(trait.access)
            found.append(Concealment("hidden", trait.hidden_by, access, listed))
        elif isinstance(trait, Mask) and trait.obscured_by:
            access, listed = parse_access(str(trait.fields.get("access") or ""))
            found.append(Concealment("masked", trait.obscured_by, access, listed))
    if not found:  # a piece-like object without traits: its owners, with no side to see them
        if getattr(piece, "hidden_by", None):
            found.append(Concealment("hidden", str(piece.hidden_by), PLAYER_ACCESS))
        if getattr(piece, "masked_by", None):
            found.append(Concealment("masked", str(piece.masked_by), PLAYER_ACCESS))
    return found


def faction_sees(found: Iterable[Concealment], sides: Sequence[str]) -> bool:
    """Does a player of any one of `sides` see through every concealment in `found`?"""
    found = list(found)
    return bool(sides) and all(item.seen_by(side) for item in found for side in sides)


def hidden_by_text(found: Iterable[Concealment]) -> str:
    """Who keeps it hidden, as a player view may say it: "the Soviet side", or "another player"."""
    named = sorted({side for item in found for side in item.sides_seeing()})
    if len(named) == 1:
        return f"the {named[0]} side"
    return "other sides" if named else "another player"


def faction_sides(table: Mapping[str, Sequence[str]] | None, factions: Iterable[str]) -> dict[str, list[str]]:
    """Each faction's sides: the pack's `[vassal.sides]`, else the side named like the faction."""
    table = table or {}
    return {faction: list(table.get(faction, [faction])) for faction in factions}


def propose_sides(module_sides: Iterable[str],
                  factions: Iterable[str]) -> tuple[dict[str, list[str]], list[str]]:
    """`pack scaffold`'s proposal of `[vassal.sides]`: each PlayerRoster side to the faction its name
    names (a word of it, any case: "Soviet Union" -> Soviet, "Western Allies" -> Western), and the
    sides no faction's name matched. Inferred by name: the pack's author checks it."""
    factions = list(factions)
    proposed: dict[str, list[str]] = {faction: [] for faction in factions}
    unmatched = []
    for side in module_sides:
        words = {word.casefold() for word in re.findall(r"\w+", side)}
        found = [faction for faction in factions if faction.casefold() in words]
        if len(found) == 1:
            proposed[found[0]].append(side)
        else:
            unmatched.append(side)
    return proposed, unmatched


def side_warnings(table: Mapping[str, Sequence[str]], module_sides: Sequence[str],
                  factions: Iterable[str]) -> list[str]:
    """`pack check`: the factions whose sides (the pack's `[vassal.sides]`, else the faction's own name)
    the module's PlayerRoster does not have, which would be shown none of their own hidden pieces: one
    line, naming each with the sides it was given."""
    if not module_sides:
        return []
    known = set(module_sides)
    wrong = []
    for faction, sides in faction_sides(table, factions).items():
        missing = [side for side in sides if side not in known]
        if missing or not sides:
            given = ", ".join(repr(side) for side in missing) or "no side"
            wrong.append(f"{faction} ({given}{'' if faction in table else ', by default'})")
    if not wrong:
        return []
    return [f"[vassal.sides]: the module's PlayerRoster ({', '.join(module_sides)}) has no side "
            f"{'; '.join(wrong)}: their player views would show none of their own hidden pieces"]
