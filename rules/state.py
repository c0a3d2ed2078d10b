"""The neutral game position the rules engine reasons about.

Why over 500 lines: the state is one JSON shape: the box-id helpers, the type checks and the record classes
are what `GameState.from_json`/`to_json` read and write, kept together so the wire form is read in one place.

Why a VASSAL-free model: the rules must be testable from a few lines of JSON, and the VASSAL side
(`bridge.mapping.mapper`) can change without touching a single rule. Static facts (hexes, countries'
capitals, regions) live in the pack; this file holds only what changes during a game: where counters
are, countries' faction/status/posture, the turn, and what once-per-game events remember.

Locations are strings: a hex id known to the pack (``w3516``) or a box id ``kind[:qualifier]``
(``force_pool:Axis``, ``delay``, ``posture:Russia``); see docs/position-format.md.
"""

from __future__ import annotations

import contextlib
import copy
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from rules.records import ATOMS, NotPlain, checked_copy, deep_copy, field_names, record_copy, record_json
from vassal_parser.errors import InputError

FACTIONS: tuple[str, ...] = ("Axis", "Western", "Soviet")
ALIGNMENTS: tuple[str, ...] = (*FACTIONS, "Neutral")
ALLIED_FACTIONS: tuple[str, ...] = ("Western", "Soviet")
STATUSES: tuple[str, ...] = ("active", "conquered", "neutral")
WAR_STATES: tuple[str, ...] = ("Pre-War", "Limited War", "Total War")
COUNTER_KINDS: tuple[str, ...] = (
    "ground",
    "hq",
    "fortress",
    "port_a_fort",
    "air",
    "naval",
    "support",
    "detachment",
    "logistics",
    "partisan_base",
    "war_economy",
    "convoy",
    "ceded_land",
    "marker",
)
# Kinds that are ground units for "ground units occupy" (16.1.1) and step counts (16.5.4).
GROUND_KINDS: frozenset[str] = frozenset({"ground", "hq", "fortress", "port_a_fort"})
# Kinds that are units (ground, air, naval, support); the rest are markers. Why it matters: the text says
# "unit" (16.3.3 "an Axis unit", 16.5.4, 16.7) apart from "Detachment, or Logistics marker" (16.3.1).
UNIT_KINDS: frozenset[str] = GROUND_KINDS | {"air", "naval", "support"}
# Box kinds, and what their qualifier must name ("faction", "country", "counter", "any" or None).
BOX_KINDS: dict[str, str | None] = {
    "force_pool": "faction",
    "conquered_minors": "faction",
    "conditional_events": "faction",
    "pending": "faction",
    "posture": "country",
    "holding": "counter",
    "turn_track": "any",
    "delay": None,
    "ceded_lands": None,
    "strategic_warfare": None,
    "ds_strategic_warfare": None,
    "removed": None,
    "set_aside": None,
}
# How the rules text names each box, for plan text players read (the ids stay in the JSON `from`/`to`).
# `{q}` is the qualifier (a faction, a country, a turn); the Holding Box names its unit separately.
BOX_LABELS: dict[str, str] = {
    "force_pool": "{q} Force Pool",
    "conquered_minors": "{q} Conquered Minor Countries Box",
    "conditional_events": "{q} Conditional Events Box",
    "pending": "{q} Pending Card",
    "posture": "{q}'s Posture Box",
    "holding": "Holding Box of {q}",
    "turn_track": "Turn Track ({q})",
    "delay": "Delay Box",
    "ceded_lands": "Ceded Lands Box",
    "strategic_warfare": "Strategic Warfare Box",
    "ds_strategic_warfare": "DS Strategic Warfare Box",
    "removed": "out of the game",
    "set_aside": "set aside",
}
REMOVED = "removed"
DELAY = "delay"
CEDED_LANDS = "ceded_lands"
SET_ASIDE = "set_aside"
STRATEGIC_WARFARE = "strategic_warfare"


def force_pool(faction: str) -> str:
    return f"force_pool:{faction}"


def conquered_minors(faction: str) -> str:
    return f"conquered_minors:{faction}"


def conditional_events(faction: str) -> str:
    return f"conditional_events:{faction}"


def pending_card(faction: str) -> str:
    return f"pending:{faction}"


def posture_box(country: str) -> str:
    return f"posture:{country}"


def holding_box(counter_id: str) -> str:
    return f"holding:{counter_id}"


def box_label(location: str) -> str | None:
    """'Western Force Pool' for `force_pool:Western`; None when `location` is not a box id."""
    kind, _, qualifier = location.partition(":")
    label = BOX_LABELS.get(kind)
    return label.format(q=qualifier) if label is not None else None


def is_box(location: str) -> bool:
    return location.split(":", 1)[0] in BOX_KINDS


_STR, _OPT_STR, _BOOL, _INT, _LIST = (str,), (str, type(None)), (bool,), (int,), (list,)
FIELD_TYPES: dict[str, dict[str, tuple[type, ...]]] = {
    "counter": {
        "id": _STR,
        "name": _STR,
        "nationality": _OPT_STR,
        "faction": _OPT_STR,
        "kind": _STR,
        "location": _STR,
        "steps": _INT,
        "exp": _BOOL,
        "delay_stripe": _BOOL,
        "reinforcement": _OPT_STR,
        "partnership": _BOOL,
        "multinational": _BOOL,
        "colonial_of": _OPT_STR,
        "area": _OPT_STR,
        "tags": _LIST,
        "flipped": _BOOL,
        "supplied": _BOOL,
        "overland_supply": _BOOL,
        "star": _BOOL,
    },
    "country": {
        "faction": _STR,
        "status": _STR,
        "posture": _OPT_STR,
        "markers": _LIST,
        "annexed_to": _OPT_STR,
        "dependent_of": _OPT_STR,
        "flags": _LIST,
    },
    "turn": {
        "date": _STR,
        "seasonal": _BOOL,
        "phasing": _STR,
        "segment": _STR,
        "war_state": _STR,
        "current_cards": (dict,),
        "cards_played": _LIST,
        "fired": _LIST,
        "combined_game": _BOOL,
    },
}
_TYPE_NAMES = {str: "text", bool: "true/false", int: "a whole number", list: "a list", dict: "an object"}


# The same, as sets of exact classes: a value of one of them passes `_check_types` at once.
_EXACT_FIELD_TYPES: dict[str, dict[str, frozenset[type]]] = {
    what: {key: frozenset(allowed) for key, allowed in table.items()} for what, table in FIELD_TYPES.items()
}


def _check_types(src: str, what: str, label: str, fields: dict[str, Any]) -> None:
    """Wrong JSON types would surface later as tracebacks deep in a rule; refuse them here, in one line.

    Why the exact-class test first: it decides almost every value (JSON gives exact classes; a
    `bool` passes only where `bool` is listed), and every counter of a save comes through here;
    anything else (a subclass, a wrong type, an unknown key) takes the general test below."""
    exact = _EXACT_FIELD_TYPES[what]
    for key, value in fields.items():
        kind = value.__class__
        if kind in exact.get(key, ()) and (kind is not list or all(isinstance(v, str) for v in value)):
            continue
        _check_types_general(src, what, label, {key: value})


def _check_types_general(src: str, what: str, label: str, fields: dict[str, Any]) -> None:
    """`_check_types` without its exact-class test: isinstance, with bools apart from numbers."""
    for key, value in fields.items():
        allowed = FIELD_TYPES[what].get(key)
        if allowed is None:
            continue
        ok = isinstance(value, allowed) and not (bool not in allowed and isinstance(value, bool))
        if not ok:
            expected = " or ".join(_TYPE_NAMES.get(t, "null") for t in allowed)
            raise InputError(src, f"{label}: {key!r} must be {expected}, not {json_type(value)}")
        if isinstance(value, list) and not all(isinstance(v, str) for v in value):
            raise InputError(src, f"{label}: {key!r} must be a list of text")


def json_type(value: Any) -> str:
    return {
        bool: "true/false",
        int: "a number",
        float: "a number",
        str: "text",
        list: "a list",
        dict: "an object",
        type(None): "null",
    }.get(type(value), type(value).__name__)


@dataclass
class Counter:
    """One counter. `steps` is the unit's current step count (markers: 0)."""

    id: str
    name: str
    nationality: str | None
    faction: str | None
    kind: str
    location: str
    steps: int = 0
    exp: bool = False  # one-step Exp unit (16.1.2 exception, 16.7 exception)
    delay_stripe: bool = False
    reinforcement: str | None = None  # reinforcement code; "V" marks French V counters (16.1.1 France)
    partnership: bool = False  # (P) unit (16.1.1 Step 1)
    multinational: bool = False  # has a Holding Box (13.8.3, 16.1.2)
    colonial_of: str | None = None  # British 1-2-2 colonial unit associated with this country (16.1.1 Step 3)
    area: str | None = None  # ceded_land markers: the pack area this marker stands for
    tags: list[str] = field(default_factory=list)  # named groups: their_finest_hour, lend_lease, ...
    flipped: bool = False
    supplied: bool = True  # "supplied German ground units" (16.2.1, 16.2.2 Step 3, 16.4.2)
    overland_supply: bool = True  # can trace an overland supply line (10.2) — 16.1.2 intern remedy
    star: bool = False  # `*` on the counter: not used in the combined game (European Reserves)

    @property
    def is_ground(self) -> bool:
        return self.kind in GROUND_KINDS

    @property
    def is_unit(self) -> bool:
        return self.kind in UNIT_KINDS


@dataclass
class CountryState:
    """What changes about a country during a game. Static facts (capital, dependents) are in the pack."""

    name: str
    faction: str = "Neutral"
    status: str = "neutral"
    posture: str | None = None
    markers: list[str] = field(default_factory=list)  # Policy/Truce markers in its Posture Box
    annexed_to: str | None = None  # e.g. Reich Annex: Poland counts as part of Germany (16.7 example)
    dependent_of: str | None = None  # overrides the pack's home country when set
    flags: list[str] = field(default_factory=list)  # e.g. "vichy" (France after 16.1.1/16.2.1), "liberated"


@dataclass
class Turn:
    """Whose turn and which segment it is, and what the rules remember across turns (fired events, cards)."""

    date: str = ""
    seasonal: bool = False
    phasing: str = "Axis"
    segment: str = "conditional_events"
    war_state: str = "Pre-War"
    current_cards: dict[str, str] = field(default_factory=dict)  # faction -> card id
    cards_played: list[str] = field(default_factory=list)  # e.g. "4d" for 16.5.3
    fired: list[str] = field(default_factory=list)  # once-per-game events already fired (rule numbers)
    combined_game: bool = False  # the combined Axis Empires game (© steps)


def _unshared(fields: dict[str, Any]) -> dict[str, Any]:
    """`fields` with each list or object value copied (one level: `_check_types` allows only lists of
    text and the text-to-text `current_cards` there)."""
    unshared = dict(fields)
    for key, value in fields.items():
        kind = value.__class__
        if kind not in ATOMS:  # most values
            unshared[key] = (list(value) if kind is list else dict(value) if kind is dict
                             else copy.deepcopy(value))
    return unshared


@cache
def _country_json_fields() -> tuple[str, ...]:
    return tuple(name for name in field_names(CountryState) if name != "name")


@dataclass
class GameState:
    """The whole position. Mutable: the engine works on a deep copy (`clone`)."""

    pack: str | None
    turn: Turn
    countries: dict[str, CountryState]
    counters: dict[str, Counter]
    actions: list[dict[str, Any]] = field(default_factory=list)  # War & Peace Segment actions (6.1)
    source: str = "<position>"
    # Shared Posture Boxes (DS "US and Western Minors", "Soviet Minors"; pack [posture_boxes]): box name ->
    # the Policy/Truce markers in it. A member country's own `markers` stay empty (docs/position-format.md).
    posture_boxes: dict[str, list[str]] = field(default_factory=dict)
    awaw: Any = None  # A World at War part (rules.awaw.position.AwawPosition), or None

    # ---- construction -------------------------------------------------------------------------
    @classmethod
    def from_json(cls, data: Any, source: str | Path = "<position>") -> GameState:
        """The position a JSON object describes (docs/position-format.md); one-line InputError else.

        The state shares no list or object with `data` (each is copied as it is taken), so a caller
        may give it to the engine to work on in place (`rules.engine.plan(in_place=True)`) without
        the engine's changes reaching `data` (tests/rules/test_state_copy.py)."""
        src = str(source)
        if not isinstance(data, dict):
            raise InputError(src, "a position must be a JSON object")
        turn_data = data.get("turn", {})
        if not isinstance(turn_data, dict):
            raise InputError(src, "'turn' must be an object")
        unknown = set(turn_data) - set(Turn.__dataclass_fields__)
        if unknown:
            raise InputError(src, f"unknown turn field(s): {', '.join(sorted(unknown))}")
        _check_types(src, "turn", "turn", turn_data)
        turn = Turn(**_unshared(turn_data))
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in turn.current_cards.items()):
            raise InputError(src, "turn.current_cards must map faction names to card ids (text)")
        if turn.phasing not in FACTIONS:
            raise InputError(src, f"turn.phasing must be one of {', '.join(FACTIONS)}, not {turn.phasing!r}")
        if turn.war_state not in WAR_STATES:
            raise InputError(src, f"turn.war_state must be one of {', '.join(WAR_STATES)}")
        countries: dict[str, CountryState] = {}
        raw_countries = data.get("countries", {})
        if not isinstance(raw_countries, dict):
            raise InputError(src, "'countries' must be an object keyed by country name")
        for name, fields in raw_countries.items():
            if not isinstance(fields, dict):
                raise InputError(src, f"country {name!r} must be an object")
            bad = set(fields) - set(CountryState.__dataclass_fields__) - {"name"}
            if bad:
                raise InputError(src, f"country {name!r}: unknown field(s) {', '.join(sorted(bad))}")
            _check_types(src, "country", f"country {name!r}", fields)
            country = CountryState(name=name, **{k: v for k, v in _unshared(fields).items() if k != "name"})
            if country.faction not in ALIGNMENTS:
                raise InputError(
                    src,
                    f"country {name!r}: faction {country.faction!r} is not one of {', '.join(ALIGNMENTS)}",
                )
            if country.status not in STATUSES:
                raise InputError(
                    src, f"country {name!r}: status {country.status!r} is not one of {', '.join(STATUSES)}"
                )
            countries[name] = country
        counters: dict[str, Counter] = {}
        raw_counters = data.get("counters", [])
        if not isinstance(raw_counters, list):
            raise InputError(src, "'counters' must be a list")
        for index, entry in enumerate(raw_counters):
            if not isinstance(entry, dict) or not isinstance(entry.get("id"), str) or not entry["id"]:
                raise InputError(src, f"counter #{index + 1} must be an object with a text 'id'")
            cid = entry["id"]
            if cid in counters:
                raise InputError(src, f"counter {cid!r} is listed twice (a counter can be in one place only)")
            bad = entry.keys() - Counter.__dataclass_fields__.keys()
            if bad:
                raise InputError(src, f"counter {cid!r}: unknown field(s) {', '.join(sorted(bad))}")
            for required in ("kind", "location"):
                if required not in entry:
                    raise InputError(src, f"counter {cid!r} has no {required!r}")
            _check_types(src, "counter", f"counter {cid!r}", entry)
            fields = {"name": cid, "nationality": None, "faction": None, **_unshared(entry)}
            counter = Counter(**fields)
            if counter.kind not in COUNTER_KINDS:
                raise InputError(src, f"counter {cid!r}: unknown kind {counter.kind!r}")
            if counter.faction is not None and counter.faction not in FACTIONS:
                raise InputError(
                    src, f"counter {cid!r}: faction {counter.faction!r} is not one of {', '.join(FACTIONS)}"
                )
            counters[cid] = counter
        actions = data.get("actions", [])
        if not isinstance(actions, list):
            raise InputError(src, "'actions' must be a list")
        for index, action in enumerate(actions):
            if not isinstance(action, dict):
                raise InputError(src, f"action #{index + 1} must be an object")
            for key, value in action.items():
                if key == "markers":
                    items = value if isinstance(value, list) else [None]
                    if not all(
                        isinstance(m, dict) and all(isinstance(v, str) for v in m.values()) for m in items
                    ):
                        raise InputError(
                            src,
                            f"action #{index + 1}: 'markers' must be a list of "
                            '{"country": ..., "from": ...} objects',
                        )
                elif not isinstance(value, str | bool | None):
                    raise InputError(src, f"action #{index + 1}: {key!r} must be text or true/false")
        if not isinstance(data.get("pack"), str | None):
            raise InputError(src, "'pack' must be a pack name (text)")
        boxes: dict[str, list[str]] = {}
        raw_boxes = data.get("posture_boxes", {})
        if not isinstance(raw_boxes, dict):
            raise InputError(src, "'posture_boxes' must be an object keyed by Posture Box name")
        for name, box in raw_boxes.items():
            markers = box.get("markers", []) if isinstance(box, dict) else None
            if not isinstance(box, dict) or set(box) - {"markers"} or not isinstance(markers, list) \
                    or not all(isinstance(m, str) for m in markers):
                raise InputError(src, f"posture box {name!r} must be {{\"markers\": [<marker names>]}}")
            boxes[name] = list(markers)
        awaw = None
        if data.get("awaw") is not None:
            from rules.awaw.position import parse_awaw  # A World at War positions only

            awaw = parse_awaw(deep_copy(data["awaw"]), src)
            if awaw.phasing_faction is not None:  # None: whose player turn is a game fact not yet given
                if "phasing" in turn_data and turn.phasing != awaw.phasing_faction:
                    raise InputError(src, f"turn.phasing {turn.phasing!r} contradicts awaw side/powers "
                                          f"({awaw.phasing_faction})")
                turn.phasing = awaw.phasing_faction
        return cls(
            pack=data.get("pack"),
            turn=turn,
            countries=countries,
            counters=counters,
            actions=deep_copy(actions),
            source=src,
            posture_boxes=boxes,
            awaw=awaw,
        )

    def to_json(self) -> dict[str, Any]:
        """The position as JSON data, equal to `dataclasses.asdict` of each part (tests/rules/
        test_state_copy.py), by `rules.records` (each plan writes its resulting position)."""
        country_fields = _country_json_fields()
        return {
            "pack": self.pack,
            "turn": record_json(self.turn),
            "countries": {n: record_json(c, country_fields) for n, c in self.countries.items()},
            "counters": [record_json(c) for c in self.counters.values()],
            "actions": copy.deepcopy(self.actions),
            **({"posture_boxes": {n: {"markers": list(m)} for n, m in self.posture_boxes.items()}}
               if self.posture_boxes else {}),
            **({"awaw": self.awaw.to_json()} if self.awaw is not None else {}),
        }

    def clone(self) -> GameState:
        """A copy sharing nothing mutable with this state (the engine works on one), equal to
        `copy.deepcopy(self)`, by `rules.records` (every plan clones the whole position). A position
        holding anything but plain data, or values shared between its parts, or an AWAW part, is
        deep-copied. Every field must be copied here: tests/rules/test_state_copy.py fails for a
        field it does not find copied."""
        if self.awaw is None:
            seen: set[int] = set()
            with contextlib.suppress(NotPlain):
                return GameState(
                    pack=self.pack,
                    turn=record_copy(self.turn, seen),
                    countries={name: record_copy(country, seen) for name, country in self.countries.items()},
                    counters={cid: record_copy(counter, seen) for cid, counter in self.counters.items()},
                    actions=checked_copy(self.actions, seen),
                    source=self.source,
                    posture_boxes={name: checked_copy(markers, seen)
                                   for name, markers in self.posture_boxes.items()},
                    awaw=None,
                )
        return copy.deepcopy(self)

    # ---- accessors ----------------------------------------------------------------------------
    def country(self, name: str) -> CountryState:
        """The country's dynamic state; a country the position does not mention is Neutral.

        Read-only for unlisted countries (a fresh default is returned, not stored), so asking never
        changes what the position says; `ensure_country` stores one.
        """
        found = self.countries.get(name)
        return found if found is not None else CountryState(name=name)

    def ensure_country(self, name: str) -> CountryState:
        if name not in self.countries:
            self.countries[name] = CountryState(name=name)
        return self.countries[name]

    def counters_at(self, location: str) -> list[Counter]:
        return [c for c in self.counters.values() if c.location == location]

    def counters_where(self, **match: Any) -> list[Counter]:
        """Counters whose attributes equal every given value, e.g. ``counters_where(kind="hq")``."""
        return [
            c for c in self.counters.values() if all(getattr(c, key) == value for key, value in match.items())
        ]

    def tagged(self, tag: str, location: str | None = None) -> list[Counter]:
        return [
            c
            for c in self.counters.values()
            if tag in c.tags and (location is None or c.location == location)
        ]

    def fired(self, rule: str) -> bool:
        return rule in self.turn.fired

    def on_map(self, counter: Counter) -> bool:
        return not is_box(counter.location)

    def move(self, counter_id: str, location: str) -> None:
        self.counters[counter_id].location = location
