"""The AWAW board as rule 60 reads it: hex graph, hex control, ICs, objectives, supply sources.

Why adjacency from the hex ids: the pack's hexes are named in the A3R/AWAW module's own numbering
(`ThirdReich.ObliqueHexGridNumbering`, vassal_parser/oblique_numbering.py), whose geometry makes the six
neighbours of every hex a fixed pattern of (letter row, number) — so the graph is the grid's, not a list
someone typed. Facts that are not hexes' countries live in the pack's `[awaw]` table (rules/packs/awaw/
awaw.toml); a pack that names an unknown hex there fails with one line naming the pack.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from rules.awaw.position import AwawPosition
from rules.packs import Pack
from rules.state import GameState
from vassal_parser.errors import InputError
from vassal_parser.oblique_numbering import oblique_neighbors

_ID = re.compile(r"([A-Z])(\1*)([0-9]+)")
HEX_LISTS = (
    "ic_hexes",
    "objectives",
    "east_edge",
    "pacific_hexes",
    "pacific_supply_sources",
    "axis_supply_sources",
)


def parse_hex_id(hex_id: str) -> tuple[int, int] | None:
    """'H55' -> (7, 55); 'BB35' -> (27, 35) (VASSAL's alphabetic part: AA is 26, BB 27)."""
    match = _ID.fullmatch(hex_id)
    if match is None:
        return None
    letter, repeats, number = match.groups()
    return 26 * len(repeats) + (ord(letter) - ord("A")), int(number)


def hex_distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Hexes counted on the grid (axial distance: the oblique numbering is axial)."""
    dq, dr = b[0] - a[0], b[1] - a[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


@dataclass(frozen=True)
class AwawFacts:
    """The pack's `[awaw]` table, checked against its hexes and countries."""

    western_allies: tuple[str, ...]
    ic_hexes: frozenset[str]
    objectives: frozenset[str]
    east_edge: frozenset[str]
    pacific_hexes: frozenset[str]
    pacific_supply_sources: frozenset[str]
    axis_supply_sources: frozenset[str]
    stacking_limit: int | None
    sample_map: bool


def awaw_facts(pack: Pack) -> AwawFacts:
    raw = pack.extra.get("awaw")
    where = pack.path
    if not isinstance(raw, dict):
        raise InputError(where, f"pack {pack.name}: no [awaw] table (rule 60 needs it; docs/awaw.md)")
    lists: dict[str, frozenset[str]] = {}
    for key in HEX_LISTS:
        value = raw.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise InputError(where, f"pack {pack.name}: [awaw] {key} must be a list of hex ids")
        unknown = sorted(set(value) - set(pack.hexes))
        if unknown:
            raise InputError(
                where, f"pack {pack.name}: [awaw] {key} names unknown hex(es) {', '.join(unknown)}"
            )
        lists[key] = frozenset(value)
    western = raw.get("western_allies", [])
    if not isinstance(western, list) or not all(w in pack.countries for w in western):
        raise InputError(where, f"pack {pack.name}: [awaw] western_allies must list pack countries")
    stacking = raw.get("stacking_limit")
    if stacking is not None and (not isinstance(stacking, int) or stacking < 1):
        raise InputError(where, f"pack {pack.name}: [awaw] stacking_limit must be a whole number >= 1")
    return AwawFacts(
        tuple(western),
        lists["ic_hexes"],
        lists["objectives"],
        lists["east_edge"],
        lists["pacific_hexes"],
        lists["pacific_supply_sources"],
        lists["axis_supply_sources"],
        stacking,
        bool(raw.get("sample_map", False)),
    )


class AwawBoard:
    """Queries rule 60 asks of the board; control changes go through `set_control` (events record them)."""

    def __init__(self, state: GameState, pack: Pack) -> None:
        if state.awaw is None:
            raise InputError(
                state.source, "an AWAW position needs its 'awaw' object (docs/position-format.md)"
            )
        self.state = state
        self.pack = pack
        self.pos: AwawPosition = state.awaw
        self.facts = awaw_facts(pack)
        self._ics: list[str] | None = None
        self._coords = {h: parse_hex_id(h) for h in pack.hexes}
        bad = sorted(h for h, c in self._coords.items() if c is None)
        if bad:
            raise InputError(
                pack.path, f"pack {pack.name}: hex ids not in the module's numbering: {', '.join(bad[:5])}"
            )
        self._by_coord = {c: h for h, c in self._coords.items() if c is not None}
        for where, hexes in (
            ("control", self.pos.control),
            ("ic_values", self.pos.ic_values),
            ("supply", self.pos.supply),
            ("partisan_held", self.pos.partisan_held),
            ("ic_hexes", self.pos.ic_hexes or []),
        ):
            unknown = sorted(set(hexes) - set(pack.hexes))
            if unknown:
                raise InputError(state.source, f"awaw.{where} names unknown hex(es) {', '.join(unknown)}")
        src = state.source
        for power in self.pos.powers or []:
            if power not in pack.countries or pack.countries[power].kind != "major":
                raise InputError(src, f"awaw.powers: {power!r} is not a major power of pack {pack.name}")
        wrong_side = [p for p in self.pos.powers or []
                      if self.pos.side is not None and (self.side(p) == "Axis") != (self.pos.side == "Axis")]
        if wrong_side:
            raise InputError(src, f"awaw.powers: {', '.join(wrong_side)} not on the {self.pos.side} side")
        for power in self.pos.western_at_war_with_germany or []:
            if power not in self.facts.western_allies:
                raise InputError(src, f"awaw.western_at_war_with_germany: {power!r} is not a Western Allied "
                                      "major power")
        for name in self.pos.minors:
            if name not in pack.countries:
                raise InputError(src, f"awaw.minors: unknown country {name!r}")
        for hex_id, power in [*self.pos.control.items(), *self.pos.partisan_held.items()]:
            if power not in pack.countries:
                raise InputError(state.source, f"awaw: hex {hex_id} controlled by unknown power {power!r}")

    # ---- graph ----------------------------------------------------------------------------------
    def neighbors(self, hex_id: str) -> list[str]:
        coord = self._coords[hex_id]
        assert coord is not None
        return [self._by_coord[c] for c in oblique_neighbors(*coord) if c in self._by_coord]

    def distance(self, a: str, b: str) -> int:
        ca, cb = self._coords[a], self._coords[b]
        assert ca is not None and cb is not None
        return hex_distance(ca, cb)

    def theater(self, hex_id: str) -> str:
        return "Pacific" if hex_id in self.facts.pacific_hexes else "Europe"

    def hexes(self, theater: str | None = None) -> list[str]:
        return sorted(h for h in self.pack.hexes if theater is None or self.theater(h) == theater)

    # ---- control --------------------------------------------------------------------------------
    def controller(self, hex_id: str) -> str | None:
        """Who controls the hex: the position's `control`, else (with control_default "country") the
        hex's own country; None when the position does not say (a missing fact, never a guess)."""
        found = self.pos.control.get(hex_id)
        if found is not None:
            return found
        if self.pos.control_default == "country":
            return self.pack.hexes[hex_id].country
        return None

    def side(self, power: str | None) -> str | None:
        """Axis | Western | Soviet for a controlling power (pack Major Power, or the position's country)."""
        if power is None:
            return None
        info = self.pack.countries.get(power)
        if info is not None and info.faction:
            return info.faction
        faction = self.state.country(power).faction
        return None if faction == "Neutral" else faction

    def side_of_hex(self, hex_id: str) -> str | None:
        return self.side(self.controller(hex_id))

    def russian_controlled(self, hex_id: str) -> bool:
        """Russia's, or a minor country's that Russia controls (`awaw.minors`, controller Russia)."""
        power = self.controller(hex_id)
        if power == "Russia":
            return True
        minor = self.pos.minors.get(power or "")
        return minor is not None and minor.get("controller", "Russia") == "Russia"

    def set_control(self, hex_id: str, power: str) -> None:
        self.pos.control[hex_id] = power

    def unknown_control(self, hexes: Iterable[str]) -> list[str]:
        return sorted(h for h in hexes if self.controller(h) is None)

    # ---- named facts ------------------------------------------------------------------------------
    def ic_hexes(self) -> list[str]:
        """Pack IC hexes and any IC the position gives a production value for (ICs are built and lost);
        where the position lists the game's own IC markers (`awaw.ic_hexes`, a VASSAL game), those."""
        if self._ics is None:  # events never add ICs: read once per board
            base = self.facts.ic_hexes if self.pos.ic_hexes is None else set(self.pos.ic_hexes)
            self._ics = sorted(base | set(self.pos.ic_values))
        return self._ics

    def in_britain(self, hex_id: str) -> bool:
        """60.11: a hex in Britain — Scapa Flow is included, Ulster is not."""
        info = self.pack.hexes[hex_id]
        return info.country == "Britain" and info.area != "ulster"

    def in_european_france(self, hex_id: str) -> bool:
        return self.pack.hexes[hex_id].area == "european_france"

    def label(self, hex_id: str) -> str:
        info = self.pack.hexes[hex_id]
        tags = [
            t
            for t, on in (("IC", hex_id in self.ic_hexes()), ("objective", hex_id in self.facts.objectives))
            if on
        ]
        base = f"{info.name} ({hex_id})" if info.name else hex_id
        return f"{base} [{', '.join(tags)}]" if tags else base
