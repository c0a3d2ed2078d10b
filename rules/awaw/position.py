"""The A World at War part of a position: the `"awaw"` object of the neutral state (docs/position-format.md).

Why its own object: AWAW's turn (player turns of a side, unit construction phases), its per-hex control
and Russia's surrender state have no Axis Empires counterpart; keeping them in one validated object
leaves the TK/DS position untouched. Every count the Russian Resistance Table (60.11) sums is optional:
one the position leaves out is a missing fact (the plan says `undecided`, naming it), never zero.
"""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass, field
from typing import Any

from vassal_parser.errors import InputError

PHASES = ("end_of_player_turn", "unit_construction")
# How the rules text names each point of a player turn (60.11 "at the end of any Allied player turn",
# 60.61 "Russian unit construction phase"): the plan's header says these, never the engine's ids.
PHASE_WORDS = {"end_of_player_turn": "end of the player turn", "unit_construction": "unit construction phase"}
SIDES = ("Allied", "Axis")
SCENARIOS = ("European", "Pacific", "Global")
# "unknown": a VASSAL game shows no surrender state (asked as the game fact `russian_surrender`)
SURRENDER_STATES = ("none", "offered", "rejected", "surrendered", "unknown")
MINOR_RELATIONS = ("ally", "associated", "diplomatic", "conquest")
# A game turn is a season (the turn record track); `date` counts game turns from the 1939 campaign's
# first, Fall 1939 = turn 1, so that turns read from a VASSAL game's track compare as numbers.
SEASONS = ("Winter", "Spring", "Summer", "Fall")
FIRST_TURN = (1939, "Fall")
# What a VASSAL game leaves unknown until a player answers (mapping/game_facts.py): the fact that names it.
TURN_FACTS = {"side": "player_turn", "powers": "player_turn", "phase": "phase", "game_turn": "game_year"}
RUSSIA_COUNTS = (
    "dp_level",
    "atomic_attacks",
    "cities_firestormed",
    "oil_effects",
    "unbuilt_factors",
    "brps",
    "brp_base",
    "ics",  # ICs controlled by Russia as the players count them (the game fact russian_ics, 60.11)
)
# How the rules text names each count (plan text, missing facts).
RUSSIA_COUNT_LABELS = {
    "dp_level": "Russian DP level",
    "atomic_attacks": "atomic attacks against Russia",
    "cities_firestormed": "Russian cities firestormed",
    "oil_effects": "oil effects applicable to Russia",
    "unbuilt_factors": "unbuilt Russian ground/army air factors",
    "brps": "Russia's BRPs available",
    "brp_base": "Russia's BRP base",
    "ics": "ICs controlled by Russia",
}


@dataclass
class SecondWar:
    declared_by: str
    turn: int


@dataclass
class Surrender:
    state: str = "none"
    turn: int | None = None  # game turn of the offer / rejection / surrender
    procedure_done: bool = False  # the 60.2-60.5 procedure has been carried out
    japan: str | None = None  # 60.71: "peace" | "war" once Japan decided
    second_war: SecondWar | None = None


def turn_of(year: int, season: str) -> int:
    """Fall 1939 -> 1, Winter 1940 -> 2 ... (SEASONS, FIRST_TURN)."""
    first_year, first_season = FIRST_TURN
    return (year - first_year) * len(SEASONS) + SEASONS.index(season) - SEASONS.index(first_season) + 1


@dataclass
class AwawPosition:
    # None: the VASSAL game does not show it and no player has said (a game fact, mapping/game_facts.py)
    game_turn: int | None
    phase: str | None
    side: str | None
    powers: list[str] | None
    scenario: str
    russia: dict[str, int | None] = field(default_factory=dict)
    western_at_war_with_germany: list[str] | None = None
    japan_at_war_with_russia: bool | None = None
    control: dict[str, str] = field(default_factory=dict)
    control_default: str | None = None  # "country": an unlisted hex is controlled by its own country
    ic_values: dict[str, int] = field(default_factory=dict)
    supply: dict[str, dict[str, str]] = field(default_factory=dict)
    partisan_held: dict[str, str] = field(default_factory=dict)
    surrender: Surrender = field(default_factory=Surrender)
    last_russian_turn_level: int | None = None
    minors: dict[str, dict[str, str]] = field(default_factory=dict)
    western_grants_to_russia: int = 0
    actions: list[dict[str, Any]] = field(default_factory=list)
    date: dict[str, Any] = field(default_factory=dict)  # {"year": 1939, "season": "Fall"}
    ic_hexes: list[str] | None = None  # where the game's IC markers stand (replaces the pack's list)
    unlocated_ics: list[str] = field(default_factory=list)  # IC markers where the pack has no hex

    # ---- the turn -------------------------------------------------------------------------------
    @property
    def russian_player_turn(self) -> bool | None:
        """None when whose player turn it is is not known (a missing game fact)."""
        if self.side is None or self.powers is None:
            return None
        return self.side == "Allied" and "Russia" in self.powers

    @property
    def turn_known(self) -> bool:
        return None not in (self.side, self.powers, self.phase, self.game_turn)

    def unknown_turn_facts(self) -> list[str]:
        """The game facts (bridge/mapping/game_facts.py names) whose absence leaves the turn unknown."""
        missing = [fact for name, fact in TURN_FACTS.items() if getattr(self, name) is None]
        return list(dict.fromkeys(missing))

    @property
    def phasing_faction(self) -> str | None:
        """The engine's faction for this player turn: Axis; Soviet when Russia moves; else Western."""
        if self.side is None:
            return None
        if self.side == "Axis":
            return "Axis"
        return "Soviet" if "Russia" in (self.powers or []) else "Western"

    def player_turn_words(self) -> str:
        """Whose player turn and which point of it, as rule 60 says it ("Russian player turn", "Allied
        player turn"; 60.11, 60.12, 60.61). Why not the engine's faction: AWAW has sides and major
        powers, no "Soviet faction" (issue 41); the engine's faction stays an internal key."""
        phase = PHASE_WORDS.get(self.phase or "")
        if self.side is None or self.powers is None:
            who = "player turn not given"
        elif self.side == "Axis":
            who = "Axis player turn"
        elif list(self.powers) == ["Russia"]:
            who = "Russian player turn"
        elif set(self.powers) == {"Britain", "France", "USA", "Russia"}:
            who = "Allied player turn"
        elif set(self.powers) == {"Britain", "France", "USA"}:
            who = "Western Allied player turn"
        else:
            who = f"Allied player turn ({', '.join(self.powers)})"
        return f"{who}, {phase or 'phase not given'}"

    def date_words(self, written: str | None) -> str | None:
        """The whole date, season and year: the position's own `turn.date` where it names a year, else
        the season the turn track shows with the year given (`awaw.date`, the game fact game_year), else
        the season alone with "year not given" — never a season that reads as a whole date."""
        if written and any(ch.isdigit() for ch in written):
            return written
        season, year = self.date.get("season"), self.date.get("year")
        if season and year:
            return f"{season} {year}"
        if season or written:
            return f"{season or written} (year not given)"
        return written

    def count(self, name: str) -> int | None:
        return self.russia.get(name)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        return copy.deepcopy(data)


def _int_or_none(src: str, label: str, value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(src, f"awaw.{label} must be a whole number")
    return value


def _str_map(src: str, label: str, value: Any) -> dict[str, str]:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise InputError(src, f"awaw.{label} must be an object of text values keyed by hex")
    return dict(value)


def _choice(src: str, label: str, value: Any, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise InputError(src, f"awaw.{label} must be one of {', '.join(allowed)}, not {value!r}")
    return str(value)


def parse_awaw(data: Any, src: str) -> AwawPosition:
    """Validate the `"awaw"` object; anything wrong is one InputError line naming the file and field."""
    if not isinstance(data, dict):
        raise InputError(src, "'awaw' must be an object")
    known = set(AwawPosition.__dataclass_fields__)
    unknown = set(data) - known
    if unknown:
        raise InputError(src, f"awaw: unknown field(s) {', '.join(sorted(unknown))}")
    if "scenario" not in data:
        raise InputError(src, "awaw: 'scenario' is required")
    date = _date(src, data.get("date", {}))
    game_turn = _int_or_none(src, "game_turn", data.get("game_turn"))
    if game_turn is None and "year" in date and "season" in date:
        game_turn = turn_of(date["year"], date["season"])
    elif game_turn is not None and "year" in date and "season" in date \
            and game_turn != turn_of(date["year"], date["season"]):
        raise InputError(src, f"awaw.game_turn {game_turn} contradicts awaw.date "
                              f"{date['season']} {date['year']}")
    powers = data.get("powers")
    if powers is not None and (
        not isinstance(powers, list) or not powers or not all(isinstance(p, str) for p in powers)
    ):
        raise InputError(src, "awaw.powers must be a non-empty list of major powers (whose player turn)")
    russia_raw = data.get("russia", {})
    if not isinstance(russia_raw, dict):
        raise InputError(src, "awaw.russia must be an object")
    bad = set(russia_raw) - set(RUSSIA_COUNTS)
    if bad:
        raise InputError(src, f"awaw.russia: unknown field(s) {', '.join(sorted(bad))}")
    russia = {k: _int_or_none(src, f"russia.{k}", v) for k, v in russia_raw.items()}
    for name in ("atomic_attacks", "cities_firestormed", "oil_effects", "unbuilt_factors", "ics"):
        if (russia.get(name) or 0) < 0:
            raise InputError(src, f"awaw.russia.{name} cannot be negative")
    western = data.get("western_at_war_with_germany")
    if western is not None and (
        not isinstance(western, list) or not all(isinstance(w, str) for w in western)
    ):
        raise InputError(src, "awaw.western_at_war_with_germany must be a list of major powers")
    japan = data.get("japan_at_war_with_russia")
    if japan is not None and not isinstance(japan, bool):
        raise InputError(src, "awaw.japan_at_war_with_russia must be true/false")
    ic_values = data.get("ic_values", {})
    if not isinstance(ic_values, dict) or not all(
        isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in ic_values.values()
    ):
        raise InputError(src, "awaw.ic_values must map IC hexes to production values (whole numbers >= 0)")
    supply = data.get("supply", {})
    if not isinstance(supply, dict):
        raise InputError(src, "awaw.supply must be an object keyed by hex")
    for hex_id, entry in supply.items():
        if not isinstance(entry, dict) or set(entry) - {"russian", "axis", "why"}:
            raise InputError(src, f'awaw.supply.{hex_id} must be {{"russian": ..., "axis": ..., "why": ...}}')
        if entry.get("russian", "full") not in ("full", "none"):
            raise InputError(src, f"awaw.supply.{hex_id}.russian must be full or none")
        if entry.get("axis", "limited") not in ("limited", "none"):
            raise InputError(src, f"awaw.supply.{hex_id}.axis must be limited or none")
    control_default = data.get("control_default")
    if control_default not in (None, "country"):
        raise InputError(src, 'awaw.control_default must be "country" or absent')
    minors = data.get("minors", {})
    if not isinstance(minors, dict):
        raise InputError(src, "awaw.minors must be an object keyed by country")
    for name, entry in minors.items():
        if not isinstance(entry, dict) or set(entry) - {"relation", "controller"}:
            raise InputError(src, f'awaw.minors.{name} must be {{"relation": ..., "controller": ...}}')
        _choice(src, f"minors.{name}.relation", entry.get("relation"), MINOR_RELATIONS)
        if not isinstance(entry.get("controller", "Russia"), str):
            raise InputError(src, f"awaw.minors.{name}.controller must be a power")
    actions = data.get("actions", [])
    if not isinstance(actions, list) or not all(
        isinstance(a, dict) and isinstance(a.get("type"), str) for a in actions
    ):
        raise InputError(src, "awaw.actions must be a list of objects with a 'type'")
    grants = _int_or_none(src, "western_grants_to_russia", data.get("western_grants_to_russia", 0)) or 0
    ic_list = data.get("ic_hexes")
    if ic_list is not None and (
        not isinstance(ic_list, list) or not all(isinstance(h, str) for h in ic_list)
    ):
        raise InputError(src, "awaw.ic_hexes must be a list of hexes")
    unlocated = data.get("unlocated_ics", [])
    if not isinstance(unlocated, list) or not all(isinstance(h, str) for h in unlocated):
        raise InputError(src, "awaw.unlocated_ics must be a list of locations")
    return AwawPosition(
        game_turn=game_turn,
        phase=None if data.get("phase") is None else _choice(src, "phase", data["phase"], PHASES),
        side=None if data.get("side") is None else _choice(src, "side", data["side"], SIDES),
        powers=None if powers is None else list(powers),
        scenario=_choice(src, "scenario", data["scenario"], SCENARIOS),
        russia=russia,
        western_at_war_with_germany=list(western) if western is not None else None,
        japan_at_war_with_russia=japan,
        control=_str_map(src, "control", data.get("control", {})),
        control_default=control_default,
        ic_values=dict(ic_values),
        supply={k: dict(v) for k, v in supply.items()},
        partisan_held=_str_map(src, "partisan_held", data.get("partisan_held", {})),
        surrender=_surrender(src, data.get("surrender", {})),
        last_russian_turn_level=_int_or_none(
            src, "last_russian_turn_level", data.get("last_russian_turn_level")
        ),
        minors={k: dict(v) for k, v in minors.items()},
        western_grants_to_russia=grants,
        actions=copy.deepcopy(actions),
        date=date,
        ic_hexes=None if ic_list is None else sorted(set(ic_list)),
        unlocated_ics=sorted(set(unlocated)),
    )


def _date(src: str, raw: Any) -> dict[str, Any]:
    if not isinstance(raw, dict) or set(raw) - {"year", "season"}:
        raise InputError(src, 'awaw.date must be {"year": ..., "season": ...}')
    date: dict[str, Any] = {}
    if raw.get("year") is not None:
        date["year"] = _int_or_none(src, "date.year", raw["year"])
    if raw.get("season") is not None:
        date["season"] = _choice(src, "date.season", raw["season"], SEASONS)
    return date


def _surrender(src: str, raw: Any) -> Surrender:
    if not isinstance(raw, dict):
        raise InputError(src, "awaw.surrender must be an object")
    bad = set(raw) - set(Surrender.__dataclass_fields__)
    if bad:
        raise InputError(src, f"awaw.surrender: unknown field(s) {', '.join(sorted(bad))}")
    state = _choice(src, "surrender.state", raw.get("state", "none"), SURRENDER_STATES)
    turn = _int_or_none(src, "surrender.turn", raw.get("turn"))
    # A rejection or a surrender may come without its turn: a VASSAL game shows neither, and the players
    # give the state first (the game fact russian_surrender); the events that need the turn name the fact
    # russian_surrender_turn as missing (issue 41). An open offer is this plan's own and has its turn.
    if state == "offered" and turn is None:
        raise InputError(src, f"awaw.surrender: state {state!r} needs the game 'turn' it happened")
    japan = raw.get("japan")
    if japan is not None:
        _choice(src, "surrender.japan", japan, ("peace", "war"))
    second = raw.get("second_war")
    second_war = None
    if second is not None:
        if not isinstance(second, dict) or set(second) != {"declared_by", "turn"}:
            raise InputError(src, 'awaw.surrender.second_war must be {"declared_by": ..., "turn": ...}')
        second_war = SecondWar(
            str(second["declared_by"]), _int_or_none(src, "surrender.second_war.turn", second["turn"]) or 0
        )
    done = raw.get("procedure_done", False)
    if not isinstance(done, bool):
        raise InputError(src, "awaw.surrender.procedure_done must be true/false")
    return Surrender(state=state, turn=turn, procedure_done=done, japan=japan, second_war=second_war)
