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

from vassal_parser import expressions, sequence
from vassal_parser.module import MapDef, Module
from vassal_parser.pieces import Piece

# a deck's property: (its map id, the property's name, its value; None: not known)
DeckProperty = tuple[str | None, str, "str | None"]
_FILTER_CONDITIONS = ("!=", "<=", ">=", ">", "<", "=~", "=", "!~")  # PropertiesPieceFilter's order


class PropertyScopes:
    """One position's zone, map and module properties (built once per position, read per piece)."""

    __slots__ = ("_deck_found", "_deck_source", "_decks", "_maps", "_token", "module", "values")

    def __init__(self, module: Module | None, values: Mapping[tuple[str, str], str],
                 decks: Callable[[], Iterable[DeckProperty]]) -> None:
        """`values`: (container id, name) -> value, the Global Property values the position holds;
        `decks`: the properties of every deck (`deck_properties`), asked when a format first needs
        one (a value None is not known: the lookup answers None)."""
        self.module = module
        self.values = values
        self._deck_source = decks
        self._decks: dict[str, dict[str, str | None]] | None = None
        self._deck_found: list[DeckProperty] | None = None
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

    def _deck_list(self) -> list[DeckProperty]:
        if self._deck_found is None:
            self._deck_found = list(self._deck_source())
        return self._deck_found

    def _deck_counts(self, map_name: str) -> dict[str, str | None]:
        decks = self._decks
        if decks is None:
            decks = self._decks = {}
            for map_id, key, value in self._deck_list():
                map_def = self.module.map_by_id(map_id) if self.module is not None and map_id else None
                name = map_def.name if map_def is not None else (map_id or "")
                decks.setdefault(name, {}).setdefault(key, value)
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
            counts = self._deck_counts(map_name)
            if key in counts:
                return counts[key]  # None: a count not known
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
            decks = tuple(sorted((map_id or "", name, value or "")
                                 for map_id, name, value in self._deck_list()))
            self._token = hash((frozenset(self.values.items()), decks))
        return self._token


def deck_properties(map_id: str | None, deck_type: str, members: list[Piece]) -> list[DeckProperty]:
    """A deck's map-level properties: `<deck>_numPieces` (its size) and, when it counts
    expressions (type fields 22-23: `name: expression` pairs, `expressionCounting`), `<deck>_<name>`,
    the number of its pieces the expression accepts (`Deck.updateCounts`). An expression is
    evaluated against each piece's own properties: a BeanShell one must give `true`; an old-style
    one is a PropertiesPieceFilter (`name = value`, `!=`, `&&`, `||`). A piece lacking a property
    named, or a comparison other than `=`/`!=`, or a `$…$` in it, makes the count not known."""
    tokens = sequence.decode(deck_type, ";")
    name = tokens[13] if len(tokens) > 13 else "Deck"
    result: list[DeckProperty] = [(map_id, name + "_numPieces", str(len(members)))]
    if len(tokens) < 24 or tokens[23] != "true" or not tokens[22]:
        return result
    for entry in sequence.decode(tokens[22], ","):
        parts = [part.strip() for part in entry.split(":", 1)]
        if len(parts) != 2:
            continue  # CountExpression without a name: dropped
        label, expression = parts[0], entry.split(":", 1)[1].strip()
        try:
            count = sum(_counted(expression, member.properties()) for member in members)
        except expressions.Unsupported:
            result.append((map_id, f"{name}_{label}", None))
            continue
        result.append((map_id, f"{name}_{label}", str(count)))
    return result


def _counted(expression: str, properties: Mapping[str, str]) -> bool:
    def lookup(key: str) -> str:
        value = properties.get(key)
        if value is None:
            raise expressions.Unsupported(f"{key}: not a property of the piece itself")
        return value

    if "$" in expression:
        raise expressions.Unsupported("a count expression with $...$ is not read")
    if expressions.strip_braces(expression) != expression:
        return expressions.evaluate(expression, lookup) == "true"
    if expression in ("true", "false"):
        return expression == "true"
    return _filter(expression, lookup)


def _filter(expression: str, lookup: Callable[[str], str]) -> bool:
    """PropertiesPieceFilter.parse(expression).accept(piece), for `=` and `!=` comparisons."""
    if not expression:
        return True
    alternatives = expression.split("||")
    if len(alternatives) > 1:
        return any([_filter(part, lookup) for part in alternatives])  # every part read (all-or-unknown)
    conjuncts = expression.split("&&")
    if len(conjuncts) > 1:
        return all([_filter(part, lookup) for part in conjuncts])
    for condition in _FILTER_CONDITIONS:
        if condition in expression:
            if condition not in ("=", "!="):
                raise expressions.Unsupported(f"a {condition} filter is not read")
            parts = expression.split(condition)
            equal = lookup(parts[0].strip()) == (parts[1].strip() if len(parts) > 1 else "")
            return equal if condition == "=" else not equal
    return True
