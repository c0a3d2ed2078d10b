"""Game facts: what no save carries (the Russian DP level, atomic attacks, whose player turn...), asked once.

Why questions and not defaults: a VASSAL game shows only its pieces; a fact the rules need that no piece
shows is the players' to give, and a default would be a guess the plan then reasons from. A pack declares
each fact (`[game_facts.NAME]`: its question, type, legal values, the rules that need it, where it goes in
the position, when it must be asked again); players answer on the command line (`--fact NAME=VALUE`), in an
answers file (`"facts": {...}` or `"fact:NAME"` keys) or in the control view (the daemon keeps those in its
state folder with the answers, daemon/answer_store.py). An unanswered fact is left out of the position, so
the events that read it record it missing (`EventContext.missing`) and are `undecided`, never not due.
Format: docs/pack-format.md, "Game facts".
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from vassal_parser.errors import InputError

TYPES = ("int", "choice", "list")
RENEWALS = ("game_turn", "never")
PREFIX = "fact:"
SPEC_KEYS = frozenset({"question", "type", "rules", "asked_again", "path", "sets", "values", "min", "max"})


@dataclass(frozen=True)
class FactSpec:
    """A game fact no save carries, as the pack declares it: what to ask, of which type, for which rules."""

    name: str
    question: str
    type: str
    rules: tuple[str, ...]
    asked_again: str  # "game_turn": asked again when the map's game turn changes; "never"
    path: str | None = None  # where the value goes in the position (dotted), or
    sets: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # value -> {path: value}
    values: tuple[str, ...] = ()  # legal values of a choice / list
    minimum: int | None = None
    maximum: int | None = None

    def parse(self, raw: Any, source: str) -> Any:
        """A given value in this fact's type, or one line naming the source, the fact and what is legal."""
        where = f"fact {self.name}"
        if self.type == "int":
            value = raw
            if isinstance(raw, str):
                try:
                    value = int(raw.strip())
                except ValueError:
                    raise InputError(source, f"{where}: {raw!r} is not a whole number") from None
            if isinstance(value, bool) or not isinstance(value, int):
                raise InputError(source, f"{where}: {raw!r} is not a whole number")
            if (self.minimum is not None and value < self.minimum) or (
                    self.maximum is not None and value > self.maximum):
                raise InputError(source, f"{where}: {value} is outside {self.range_text()}")
            return value
        if self.type == "choice":
            if raw not in self.values:
                raise InputError(source, f"{where}: {raw!r} is not one of {', '.join(self.values)}")
            return raw
        items = raw
        if isinstance(raw, str):
            items = [part.strip() for part in raw.split(",") if part.strip()]
            if raw.strip().lower() == "none":
                items = []
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            raise InputError(source, f"{where}: a list of {', '.join(self.values)} (or none)")
        bad = [i for i in items if i not in self.values]
        if bad:
            raise InputError(source, f"{where}: {', '.join(bad)} not among {', '.join(self.values)}")
        return sorted(set(items), key=self.values.index)

    def range_text(self) -> str:
        low = "" if self.minimum is None else str(self.minimum)
        high = "" if self.maximum is None else str(self.maximum)
        return f"{low}..{high}" if low or high else "any whole number"

    def writes(self, value: Any) -> list[tuple[str, Any]]:
        if self.sets:
            return [(p, copy.deepcopy(v)) for p, v in self.sets[value].items()]
        assert self.path is not None
        return [(self.path, copy.deepcopy(value))]

    def question_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "question": self.question, "type": self.type,
                                "rules": list(self.rules), "asked_again": self.asked_again}
        if self.values:
            data["values"] = list(self.values)
        if self.type == "int":
            data["min"], data["max"] = self.minimum, self.maximum
        return data


@dataclass(frozen=True)
class GivenFact:
    """A fact's answer with who gave it and when, so a fact asked per game turn is asked again on the next."""

    value: Any
    by: str  # "command line (--fact)", "answers file a.json", "control view"
    turn: str | None = None  # the map's game turn when it was given (None: given for this file only)


@dataclass
class FactTable:
    """A pack's game facts and what renews them (`[asked_again] game_turn = [paths]`)."""

    facts: dict[str, FactSpec]
    turn_paths: tuple[str, ...]
    source: str

    def __bool__(self) -> bool:
        return bool(self.facts)

    def turn_key(self, position: Mapping[str, Any]) -> str | None:
        """The map's game turn as the position read it (None where no path gives it)."""
        parts = [_get(position, p) for p in self.turn_paths]
        if not parts or all(p is None for p in parts):
            return None
        return " ".join("?" if p is None else str(p) for p in parts)


def fact_table(pack: Any) -> FactTable:
    raw = getattr(pack, "extra", {}).get("game_facts", {})
    where = str(getattr(pack, "path", "<pack>"))
    if not isinstance(raw, dict):
        raise InputError(where, "[game_facts] must be a table of [game_facts.NAME] tables")
    facts = {name: _spec(name, entry, where) for name, entry in raw.items()}
    again = getattr(pack, "extra", {}).get("asked_again", {})
    if not isinstance(again, dict) or set(again) - {"game_turn"}:
        raise InputError(where, "[asked_again] may only list game_turn = [position paths]")
    paths = again.get("game_turn", [])
    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        raise InputError(where, "[asked_again] game_turn must be a list of position paths")
    return FactTable(facts, tuple(paths), where)


def _spec(name: str, entry: Any, where: str) -> FactSpec:
    what = f"[game_facts.{name}]"
    if not isinstance(entry, dict):
        raise InputError(where, f"{what} must be a table")
    unknown = set(entry) - SPEC_KEYS
    if unknown:
        raise InputError(where, f"{what}: unknown key(s) {', '.join(sorted(unknown))}")
    kind = entry.get("type")
    if kind not in TYPES:
        raise InputError(where, f"{what}: type must be one of {', '.join(TYPES)}")
    rules = entry.get("rules")
    if not isinstance(rules, list) or not rules or not all(isinstance(r, str) for r in rules):
        raise InputError(where, f"{what}: rules must list the rules that need the fact")
    again = entry.get("asked_again", "never")
    if again not in RENEWALS:
        raise InputError(where, f"{what}: asked_again must be one of {', '.join(RENEWALS)}")
    values = entry.get("values", [])
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise InputError(where, f"{what}: values must be a list of text")
    if kind in ("choice", "list") and not values:
        raise InputError(where, f"{what}: a {kind} fact lists its legal values")
    sets = entry.get("sets", {})
    path = entry.get("path")
    if bool(sets) == bool(path):
        raise InputError(where, f"{what}: give either path (where the value goes) or sets (per value)")
    if sets and (kind != "choice" or set(sets) != set(values)
                 or not all(isinstance(v, dict) for v in sets.values())):
        raise InputError(where, f"{what}: sets is for a choice fact, one table of writes per legal value")
    bounds = [entry.get("min"), entry.get("max")]
    if any(b is not None and (isinstance(b, bool) or not isinstance(b, int)) for b in bounds):
        raise InputError(where, f"{what}: min and max are whole numbers")
    question = entry.get("question")
    if not isinstance(question, str) or not question:
        raise InputError(where, f"{what}: question is the text players are asked")
    return FactSpec(name, question, kind, tuple(rules), again, path, sets, tuple(values),
                    bounds[0], bounds[1])


def split_answers(answers: Mapping[str, Any], source: str) -> tuple[dict[str, Any], dict[str, GivenFact]]:
    """(the choices' answers, the game facts given) of one answers mapping.

    Facts are `"facts": {NAME: VALUE}` (an answers file), `"fact:NAME": VALUE`, or either with a value
    `{"value": ..., "by": ..., "turn": ...}` (what the daemon keeps for the control view)."""
    choices: dict[str, Any] = {}
    given: dict[str, GivenFact] = {}
    for key, value in answers.items():
        if key == "facts":
            if not isinstance(value, dict):
                raise InputError(source, '"facts" must be an object of fact name -> value')
            for name, item in value.items():
                given[str(name)] = _given(item, f"answers file {source}")
        elif str(key).startswith(PREFIX):
            if value is None:
                continue
            given[str(key)[len(PREFIX):]] = _given(value, f"answers file {source}" if source != "--fact"
                                                   else "command line (--fact)")
        else:
            choices[key] = value
    return choices, given


def _given(item: Any, by: str) -> GivenFact:
    if isinstance(item, dict) and "value" in item:
        return GivenFact(item["value"], str(item.get("by") or by), item.get("turn"))
    return GivenFact(item, by)


def apply_facts(table: FactTable, given: Mapping[str, GivenFact], position: dict[str, Any],
                source: str, from_map: frozenset[str] | set[str] = frozenset()) -> dict[str, Any]:
    """Write each valid given fact into the position; the plan's `game_facts` section.

    A fact given at an earlier game turn (`turn` differs from the map's now) is asked again when its
    `asked_again` is game_turn: it is left out, and its question says when it was given.

    `from_map`: the position paths the save's pieces gave (`MappingResult.state_paths`). A fact whose path
    is one of them is read from the map: not asked, and an answer given for it is not used (the pieces are
    the game; the section's `from_map` says what the map shows and which answer it set aside)."""
    unknown = sorted(set(given) - set(table.facts))
    if unknown:
        names = ", ".join(sorted(table.facts)) or "none"
        raise InputError(source, f"no game fact {', '.join(unknown)} in this pack (its facts: {names})")
    turn = table.turn_key(position)
    used: list[dict[str, Any]] = []
    questions: list[dict[str, Any]] = []
    mapped: list[dict[str, Any]] = []
    for name, spec in table.facts.items():
        fact = given.get(name)
        if spec.path is not None and spec.path in from_map and _get(position, spec.path) is not None:
            shown = {**spec.question_json(), "value": _get(position, spec.path)}
            if fact is not None:
                shown["set_aside"] = {"value": spec.parse(fact.value, source), "by": fact.by}
            mapped.append(shown)
            continue
        stale = (fact is not None and spec.asked_again == "game_turn" and fact.turn is not None
                 and fact.turn != turn)
        if fact is None or stale:
            question = spec.question_json()
            if stale:
                assert fact is not None
                question["again"] = (f"given for {fact.turn} ({fact.by}); the game turn is now "
                                     f"{turn or '?'}, so it is asked again")
            questions.append(question)
            continue
        value = spec.parse(fact.value, source)
        for path, item in spec.writes(value):
            _put(position, path, item)
        used.append({**spec.question_json(), "value": value, "by": fact.by,
                     **({"turn": fact.turn} if fact.turn else {})})
    return {"turn": turn, "given": used, "questions": questions, "from_map": mapped}


def ask_what_matters(section: dict[str, Any], plan: Mapping[str, Any]) -> None:
    """Keep a question only where its answer can change a verdict: where an event of the plan (or the plan
    as a whole) names the fact missing. The events name a fact only where some answer to it changes the
    event (the three-valued rule the map facts follow), so a fact no answer can matter for is not asked —
    with `russian_surrender=none`, the turn of a surrender that never happened (issue 41). The facts left
    out are listed in `not_asked`; one given anyway stays in `given`."""
    needed = {item.get("fact") for event in plan.get("events") or [] for item in event.get("missing") or []
              if isinstance(item, Mapping)}
    needed |= {item.get("fact") for item in plan.get("missing") or [] if isinstance(item, Mapping)}
    questions = section.get("questions", [])
    section["questions"] = [q for q in questions if q["name"] in needed]
    section["not_asked"] = [q["name"] for q in questions if q["name"] not in needed]


def changed_by_plan(table: FactTable, section: Mapping[str, Any],
                    resulting: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The facts this plan changes (Germany accepts: Russia's surrender state), to give for the next save.

    Why a list and not an automatic answer: the facts describe the file just planned; applied to it, the
    plan would change (no offer once Russia has surrendered). Players give them for the next save."""
    if not resulting:
        return []
    given = {g["name"]: g["value"] for g in section.get("given", [])}
    from_map = {f["name"] for f in section.get("from_map", [])}  # the next save's pieces show them again
    out = []
    for name, spec in table.facts.items():
        if spec.path is None or name in from_map:
            continue
        after = _get(resulting, spec.path)
        if after is None or after == given.get(name):
            continue
        if spec.type == "choice" and after not in spec.values:
            continue
        out.append({"name": name, "value": after})
    return out


def render_lines(section: Mapping[str, Any]) -> list[str]:
    """The plan text's lines for the facts: given (and by whom), then the questions still open."""
    lines = []
    for fact in section.get("from_map", []):
        aside = fact.get("set_aside")
        unused = (f"; the answer {aside['value']} given by {aside['by']} is not used"
                  if aside is not None and aside["value"] != fact["value"] else "")
        lines.append(f"game fact {fact['name']} = {fact['value']} (read from the map; "
                     f"{', '.join(fact['rules'])}){unused}")
    for fact in section.get("given", []):
        shown = ", ".join(fact["value"]) if isinstance(fact["value"], list) else fact["value"]
        lines.append(f"game fact {fact['name']} = {shown or 'none'} (given by {fact['by']}; "
                     f"{', '.join(fact['rules'])})")
    for question in section.get("questions", []):
        legal = ("one of " + ", ".join(question["values"]) if question["type"] == "choice"
                 else "a comma list of " + ", ".join(question["values"]) + " (or none)"
                 if question["type"] == "list" else _range(question))
        again = f" [{question['again']}]" if question.get("again") else ""
        lines.append(f"question {question['name']} ({', '.join(question['rules'])}): {question['question']} "
                     f"— {legal}; answer with --fact {question['name']}=VALUE{again}")
    if section.get("not_asked"):
        lines.append("not asked (no answer would change a verdict of this plan): "
                     + ", ".join(section["not_asked"]))
    after = section.get("after_plan") or []
    if after:
        lines.append("this plan changes game facts; for the next save give: "
                     + " ".join(f"--fact {a['name']}={a['value']}" for a in after))
    return lines


def _range(question: Mapping[str, Any]) -> str:
    low, high = question.get("min"), question.get("max")
    if low is None and high is None:
        return "a whole number"
    return f"a whole number {'' if low is None else low}..{'' if high is None else high}"


def parse_fact_flags(values: list[str]) -> dict[str, Any]:
    """`--fact NAME=VALUE` pairs as answers keys (`fact:NAME`); VALUE stays text (the pack types it)."""
    facts: dict[str, Any] = {}
    for item in values:
        name, sep, raw = item.partition("=")
        if not sep or not name.strip():
            raise InputError(None, f"--fact {item!r}: write it as NAME=VALUE")
        facts[PREFIX + name.strip()] = {"value": raw.strip(), "by": "command line (--fact)"}
    return facts


def _get(data: Mapping[str, Any], dotted: str) -> Any:
    node: Any = data
    for key in dotted.split("."):
        if not isinstance(node, Mapping) or key not in node:
            return None
        node = node[key]
    return node


def _put(data: dict[str, Any], dotted: str, value: Any) -> None:
    keys = dotted.split(".")
    node = data
    for key in keys[:-1]:
        node = node.setdefault(key, {})
    node[keys[-1]] = value
