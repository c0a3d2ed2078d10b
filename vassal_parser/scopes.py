"""What a piece's name and label formats see beyond the piece: its zone's, map's and the module's
properties (VASSAL's `BasicPiece.getPublicProperty` falls back to `Zone.getProperty`, which asks the
map, which asks the `GameModule`).

Why a module of its own: the sources are the game's (Global Property values a save or log holds,
deck sizes) and the module's (initial values), one table per position, shared by every piece on it;
the game layer only asks `lookup(map name, zone, key)`.

Sources, in VASSAL's order (docs/labels.md):
  * the zone's Global Properties: the value the position holds for container `<map>:<zone>`;
  * the map's: the position's value for container `<map>`, else the map's initial value; the
    `<deck>_numPieces` of each deck on the map (`Deck.countProperty`: its size);
  * the module's: the position's value for `Module`, else the initial value; a Global Translatable
    Message's text (`GameModule.getProperty` -> `transContainer`).
A value saved with an empty container id (old VASSAL) is read for the first level defining the
name, else as the module's. What VASSAL answers from the viewer (PlayerSide...) or from the running
program (the module file name, a window's `_isVisible`) is not answered: a format then shows the
name, as VASSAL shows a property no one answers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from vassal_parser.module import MapDef, Module


class PropertyScopes:
    """One position's zone, map and module properties (built once per position, read per piece)."""

    __slots__ = ("_deck_source", "_decks", "_maps", "_token", "module", "values")

    def __init__(self, module: Module | None, values: Mapping[tuple[str, str], str],
                 decks: Callable[[], Iterable[tuple[str | None, str, int]]]) -> None:
        """`values`: (container id, name) -> value, the Global Property values the position holds;
        `decks`: (map id, deck name, size) of every deck, asked when a format first needs one."""
        self.module = module
        self.values = values
        self._deck_source = decks
        self._decks: dict[str, dict[str, str]] | None = None
        self._maps: dict[str, MapDef | None] = {}
        self._token: int | None = None

    def _map(self, map_name: str) -> MapDef | None:
        found = self._maps.get(map_name, ...)
        if found is ...:
            found = None
            if self.module is not None:
                found = next((m for m in self.module.maps if m.name == map_name), None)
            self._maps[map_name] = found
        return found  # type: ignore[return-value]

    def _deck_counts(self, map_name: str) -> dict[str, str]:
        decks = self._decks
        if decks is None:
            decks = self._decks = {}
            for map_id, deck_name, size in self._deck_source():
                map_def = self.module.map_by_id(map_id) if self.module is not None and map_id else None
                name = map_def.name if map_def is not None else (map_id or "")
                decks.setdefault(name, {}).setdefault(deck_name + "_numPieces", str(size))
        return decks.get(map_name, {})

    def lookup(self, map_name: str, zone: str, key: str) -> str | None:
        """`Zone.getProperty` (when the piece is in a zone), else `Map.getProperty` (on a map), then
        `GameModule.getProperty`; None when none answers."""
        values = self.values
        if zone and map_name:
            value = values.get((f"{map_name}:{zone}", key))
            if value is not None:
                return value
        if map_name:
            value = values.get((map_name, key))
            if value is not None:
                return value
            map_def = self._map(map_name)
            if map_def is not None:
                initial = next((p.initial_value for p in map_def.global_properties if p.name == key), None)
                if initial is not None:
                    value = values.get(("", key))
                    return initial if value is None else value
            count = self._deck_counts(map_name).get(key)
            if count is not None:
                return count
        value = values.get(("Module", key))
        if value is None:
            value = values.get(("", key))
        if value is None and self.module is not None:
            value = self.module.module_property(key)
            if value is None:
                value = self.module.translatable_messages.get(key)
        return value

    def token(self) -> int:
        """A fingerprint of everything `lookup` reads from the position (values, deck sizes): a memo
        may reuse a piece whose names read these only where it is the same."""
        if self._token is None:
            decks = tuple(sorted((map_id or "", name, size) for map_id, name, size in self._deck_source()))
            self._token = hash((frozenset(self.values.items()), decks))
        return self._token
