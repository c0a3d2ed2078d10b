"""The rules of a pack's `[vassal]` table: what a rule matches on a piece, the values it writes, and
the checks its TOML passes at load (docs/vassal-mapping.md).

Why declarative: every module marks its counters differently (Marker properties, piece names,
prototypes, Layer levels), and a user completing a pack for a real module must be able to do it in
TOML, without Python.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol

from bridge.mapping.sums import term_parts
from vassal_parser.errors import InputError

# Counter fields a rule may set, and how their text is turned into the position's JSON types.
INT_FIELDS = frozenset({"steps"})
BOOL_FIELDS = frozenset({"delay_stripe", "exp", "partnership", "multinational", "flipped"})
LIST_FIELDS = frozenset({"tags"})
OPTIONAL_TEXT_FIELDS = frozenset({"reinforcement", "colonial_of", "area", "faction", "nationality"})
COUNTER_FIELDS = (frozenset({"id", "name", "kind"}) | INT_FIELDS | BOOL_FIELDS | LIST_FIELDS
                  | OPTIONAL_TEXT_FIELDS)
TRUE_WORDS = frozenset({"true", "yes", "1", "y"})
PLACE_KEYS = frozenset({"@location", "@map", "@zone", "@board", "@track"})
SPECIAL_KEYS = {"@name": "BasicName", "@location": "location", "@map": "map", "@zone": "zone",
                "@board": "board", "@track": "track"}
RULE_KEYS = frozenset({"match", "set", "steps_delta", "note", "types", "unlocated", "proposed", "sum"})
STATE_TYPES = frozenset({"int"})  # `[[vassal.state]] types`: how a filled text becomes the position's value
_TEMPLATE = re.compile(r"\{([^{}]+)\}")


class PieceLike(Protocol):
    """What the mapping reads from a `vassal_parser.game.PlacedPiece` (architecture.md contract)."""

    id: str
    basic_name: str
    piece_name: str
    map: str | None
    board: str | None
    zone: str | None
    location: str
    properties: dict[str, str]
    hidden_by: str | None
    masked_by: str | None


@dataclass(frozen=True)
class Rule:
    """`match` conditions -> `set` values; `kind` is which list it came from (counters / state / ignore)."""

    kind: str
    index: int
    match: dict[str, str]
    values: dict[str, Any]
    steps_delta: int = 0
    types: dict[str, str] = field(default_factory=dict)  # state path -> "int"
    unlocated: dict[str, Any] = field(default_factory=dict)  # state writes when `{hex}` names no pack hex
    # `proposed = true`: written by `pack scaffold` from the module's own evidence and not yet reviewed
    # by a person (issue 38); a plan read with it says so, and `pack edit` offers accept / change / drop.
    proposed: bool = False
    # `sum`: state path -> (the part template, the parts): each matching piece's write to that path is one
    # term of a sum written once every part has exactly one term (bridge/mapping/sums.py)
    sums: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Pre-split conditions once: `test` runs for every piece x rule (5,000-piece saves).
        conditions = []
        for key, expected in self.match.items():
            name = SPECIAL_KEYS.get(key, key)
            pattern = _compiled(expected[3:]) if expected.startswith("re:") else None
            conditions.append((key, name, pattern, expected))
        object.__setattr__(self, "_conditions", tuple(conditions))
        # The first plain property equality, checked inline before `test` (most rules fail there).
        gate = next(((n, e) for k, n, p, e in conditions if p is None and k not in PLACE_KEYS
                     and k != "@prototype"), (None, None))
        object.__setattr__(self, "gate", gate)
        # (field, template, its `_template_form`) of `set`: a counter rule fills them for every new piece
        object.__setattr__(self, "setters", tuple(
            (name, template, _template_form(template) if isinstance(template, str) else None)
            for name, template in self.values.items()))

    def refused_at_first(self, variables: Mapping[str, str | None]) -> bool:
        """Whether `test` (on a placed piece) fails at the first condition, given the value of that
        condition's variable (None: the piece has no such property)."""
        _key, name, pattern, expected = self._conditions[0]  # type: ignore[attr-defined]
        actual = variables.get(name)
        if actual is None:
            return True
        return actual != expected if pattern is None else not pattern.fullmatch(actual)

    def test(self, piece: PieceLike, variables: dict[str, str], placed: bool = True) -> dict[str, str] | None:
        """The variables (properties + regex groups) when every condition holds, else None.

        `placed=False` (a PieceSlot, on no map yet) skips the conditions on where the piece is."""
        found = variables  # copied only when a regex adds groups
        for key, name, pattern, expected in self._conditions:  # type: ignore[attr-defined]
            if not placed and key in PLACE_KEYS:
                continue
            if key == "@prototype":
                if not _matches_any(expected, found.get("prototypes", "").split("\n")):
                    return None
                continue
            actual = found.get(name)
            if actual is None:
                actual = _lookup(piece, key, found)
                if actual is None:
                    return None
            if pattern is None:
                if actual != expected:
                    return None
                continue
            hit = pattern.fullmatch(actual)
            if not hit:
                return None
            groups = {k: v for k, v in hit.groupdict().items() if v is not None}
            if groups:
                found = {**found, **groups}
        return found


@lru_cache(maxsize=512)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _matches_any(expected: str, candidates: list[str]) -> bool:
    if expected.startswith("re:"):
        return any(re.fullmatch(expected[3:], c) for c in candidates if c)
    return expected in candidates


def _lookup(piece: PieceLike, key: str, variables: Mapping[str, str]) -> str | None:
    if key.startswith("@"):
        attribute = key[1:]
        if attribute == "name":
            return piece.basic_name
        if attribute in variables:
            return variables[attribute]
        value = getattr(piece, attribute, None)
        return None if value is None else str(value)
    return variables.get(key, piece.properties.get(key))


def fill(template: Any, variables: Mapping[str, str], where: str) -> Any:
    """`{Name}` -> the piece property / match group `Name`; a missing one makes the value unusable.

    Why two shortcuts (`_template_form`): a counter rule fills about ten templates for every new
    piece, nearly all of them plain text or one whole `{Name}`, and `re.sub` with a callback cost
    about a microsecond each (a quarter of a new piece's mapping); the rest take the general way."""
    if not isinstance(template, str):
        return template
    value = _quick_fill(template, _template_form(template), variables)
    return fill_general(template, variables, where) if value is _MISSING else value


def _quick_fill(template: Any, form: str | None, variables: Mapping[str, str]) -> Any:
    """`fill`'s answer by its shortcuts, given the template's `_template_form` (None also for a
    template that is no text), or _MISSING where the general way answers (or says what is missing)."""
    if form is None:
        return template  # no `{...}`: re.sub would return it as it is
    if form:
        value = variables.get(form, _MISSING)
        if value.__class__ is str:
            return value
    return _MISSING


def fill_general(template: Any, variables: Mapping[str, str], where: str) -> Any:
    """`fill` without its shortcuts: every `{Name}` substituted by `_TEMPLATE.sub`."""
    if not isinstance(template, str):
        return template

    def replace(hit: re.Match[str]) -> str:
        name = hit.group(1)
        if name not in variables:
            raise KeyError(name)
        return variables[name]

    try:
        return _TEMPLATE.sub(replace, template)
    except KeyError as missing:
        raise _MissingValue(f"{where}: no property {missing.args[0]!r}") from None


class _MissingValue(Exception):
    pass


_MISSING = object()


@lru_cache(maxsize=4096)
def _template_form(template: str) -> str | None:
    """None: no `{Name}` in the template; the name when the template is one `{Name}` and nothing
    else; "" otherwise (filled by `_TEMPLATE.sub`)."""
    if _TEMPLATE.search(template) is None:
        return None
    whole = _TEMPLATE.fullmatch(template)
    return whole.group(1) if whole is not None else ""


def _typed(field_name: str, text: Any) -> Any:
    if field_name in INT_FIELDS:
        try:
            return int(str(text).strip() or 0)
        except ValueError:
            raise _MissingValue(f"{field_name} must be a whole number, not {text!r}") from None
    if field_name in BOOL_FIELDS:
        return text if isinstance(text, bool) else str(text).strip().lower() in TRUE_WORDS
    if field_name in LIST_FIELDS:
        if isinstance(text, list):
            return [str(t) for t in text if str(t)]
        return [part.strip() for part in str(text).split(",") if part.strip()]
    if field_name in OPTIONAL_TEXT_FIELDS:
        return str(text) if str(text) else None
    return str(text)


def _assign(position: dict[str, Any], dotted: str, value: Any) -> None:
    """`turn.war_state` / `countries.Russia.posture` / `turn.fired+` (append) into the position."""
    append = dotted.endswith("+")
    keys = dotted.rstrip("+").split(".")
    node = position
    for key in keys[:-1]:
        node = node.setdefault(key, {})
        if not isinstance(node, dict):
            raise _MissingValue(f"state path {dotted!r}: {key!r} is not a table")
    if append:
        bucket = node.setdefault(keys[-1], [])
        if not isinstance(bucket, list):
            raise _MissingValue(f"state path {dotted!r}: {keys[-1]!r} is not a list")
        if value not in bucket:
            bucket.append(value)
    else:
        node[keys[-1]] = value


def _defaults(value: Any, source: str) -> dict[str, Any]:
    """`[vassal.defaults]`: parts of the position a module never shows on a piece (`awaw.scenario`);
    `turn` and `countries` have their own tables, counters come from pieces only."""
    table = _as_table(value, source, "[vassal.defaults]")
    clash = sorted(set(table) & {"turn", "countries", "counters", "pack"})
    if clash:
        raise InputError(source, f"[vassal.defaults] cannot set {', '.join(clash)} (use [vassal.turn] / "
                                 "[vassal.countries]; counters come from pieces)")
    return table


def _version_key(version: str) -> tuple[int, ...]:
    """Dotted numbers compared numerically; trailing zeros dropped so that "1" == "1.0"."""
    parts = [int(part) for part in re.findall(r"\d+", str(version or ""))]
    while parts and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def _optional_text(value: Any) -> str | None:
    """A TOML version may be written as a number (`min_version = 1.0`): compare it as its text."""
    return None if value is None else str(value)


def _strings(value: Any, source: str, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(source, f"{what} must be an array of strings")
    return value


def _check_box_template(pattern: re.Pattern[str], template: str, source: str) -> None:
    """A box template may use the pattern's groups only ({0}, {1}... or {name}): refused at load,
    not met as a KeyError on the first piece standing in such a zone."""
    dummy_groups = ["x"] * pattern.groups
    try:
        template.format(*dummy_groups, **{name: "x" for name in pattern.groupindex})
    except (IndexError, KeyError, ValueError):
        raise InputError(source, f"box pattern {pattern.pattern!r}: {template!r} uses a group the pattern "
                                 "lacks") from None


def _regex(text: Any, source: str) -> re.Pattern[str]:
    try:
        return re.compile(str(text))
    except re.error as exc:
        raise InputError(source, f"bad pattern {text!r}: {exc}") from None


def _as_table(value: Any, source: str, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(source, f"{what} must be a table")
    return value


def _as_list(value: Any, source: str, what: str) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise InputError(source, f"{what} must be an array of tables")
    return value


def _rules(entries: Any, kind: str, source: str) -> list[Rule]:
    rules = []
    for index, entry in enumerate(_as_list(entries, source, f"[[vassal.{kind}]]")):
        where = f"[[vassal.{kind}]] #{index + 1}"
        unknown = set(entry) - RULE_KEYS
        if unknown:
            raise InputError(source, f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
        match = _as_table(entry.get("match", {}), source, f"{where} match")
        if not match:
            raise InputError(source, f"{where} has an empty 'match' (it would take every piece)")
        values = _as_table(entry.get("set", {}), source, f"{where} set")
        if kind == "counters":
            bad = set(values) - COUNTER_FIELDS
            if bad:
                raise InputError(source, f"{where}: unknown counter field(s) {', '.join(sorted(bad))}")
        for pattern in match.values():
            if str(pattern).startswith("re:"):
                _regex(str(pattern)[3:], source)
        delta = entry.get("steps_delta", 0)
        if not isinstance(delta, int) or isinstance(delta, bool):
            raise InputError(source, f"{where}: steps_delta must be a whole number, not {delta!r}")
        types = _as_table(entry.get("types", {}), source, f"{where} types")
        bad_types = {str(v) for v in types.values()} - STATE_TYPES
        if bad_types or (types and kind != "state"):
            raise InputError(source, f"{where}: types are for state rules and may only be "
                                     f"{', '.join(sorted(STATE_TYPES))}")
        unlocated = _as_table(entry.get("unlocated", {}), source, f"{where} unlocated")
        proposed = entry.get("proposed", False)
        if not isinstance(proposed, bool):
            raise InputError(source, f"{where}: proposed must be true or false, not {proposed!r}")
        sums = _sums(entry.get("sum", {}), kind, values, source, where)
        rules.append(Rule(kind=kind, index=index, match={str(k): str(v) for k, v in match.items()},
                          values=dict(values), steps_delta=delta,
                          types={str(k): str(v) for k, v in types.items()}, unlocated=dict(unlocated),
                          proposed=proposed, sums=sums))
    return rules


def _sums(raw: Any, kind: str, values: Mapping[str, Any], source: str,
          where: str) -> dict[str, tuple[str, tuple[str, ...]]]:
    """`sum = { PATH = { part = "{track_row}", parts = ["hundreds", "tens", "units"] } }` of a state rule."""
    table = _as_table(raw, source, f"{where} sum")
    if table and kind != "state":
        raise InputError(source, f"{where}: sum is for state rules")
    sums = {}
    for path, spec in table.items():
        if path not in values or str(path).endswith("+"):
            raise InputError(source, f"{where}: sum {path!r} names no path the rule's set writes "
                                     "(a sum's terms are the values set writes there)")
        if not isinstance(spec, dict) or set(spec) != {"part", "parts"} or not isinstance(spec["part"], str):
            raise InputError(source, f"{where}: sum {path!r} is {{ part = \"{{track_row}}\", "
                                     "parts = [\"hundreds\", ...] }")
        parts = term_parts(spec["parts"])
        if parts is None:
            raise InputError(source, f"{where}: sum {path!r}: parts is a list of distinct names")
        sums[str(path)] = (spec["part"], parts)
    return sums
