"""An unanswered choice read from the moves: which legal option do a log's moves amount to?

Why: a player's own PBEM log carries no answer file and no line Adjutant wrote; the decision shows
only in where the pieces went (16.5.4: which Russian steps the Axis redeployed to which hexes; 16.1.2:
whether the Hungarian units were interned or removed). The log audit (issue 37) tries every legal
option at the position that asked the choice, judges each option's steps against the positions that
follow (bridge/reports/obligation.py), and takes the one option the moves amount to: the one with
most steps made by the moves (a step the asking position already showed is no evidence: 16.2.1's
"Poland: conquered" when Poland already was), a whole one before a part; or, where a move
contradicts every option, the one they come closest to, whose contradicted steps are then the
deviations. Where the moves fit several options equally, it names none (the
position does not tell); where the counters the choice governs moved and no option has a step made,
the moves are wrong.

Cap: a list answer (16.5.4) is one option per group with amounts summing to the choice's total;
at most CANDIDATES_MAX such answers are tried, beyond that the choice is left waiting, said so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bridge.reports.obligation import Obligation
from rules.owed import DEVIATION, REMAINING, counter_label, counter_names, locations_of, place_name
from vassal_parser.errors import InputError

CANDIDATES_MAX = 64  # legal answers tried for one choice (each is one plan of the asking position)


@dataclass
class Recognition:
    """What the moves say of one choice: the option they amount to (`value`), or why none."""

    choice_id: str
    value: Any = None
    labels: list[str] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)  # moves that fit no legal option
    exact: bool = True  # False: the closest legal answer, which some move contradicts (a deviation)
    trial: Obligation | None = None  # the event with that answer, judged against the positions
    note: str = ""


def candidate_answers(choice: Mapping[str, Any]) -> list[Any] | None:
    """Every legal answer of `choice`; None when a list answer has more than CANDIDATES_MAX."""
    options = list(choice.get("options") or [])
    if not choice.get("multiple"):
        return [o["value"] for o in options]
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for option in options:
        groups.setdefault(str(option.get("group", option["value"])), []).append(option)
    found: list[list[Any]] = []
    total = choice.get("total")

    def walk(index: int, chosen: list[Mapping[str, Any]], amount: int) -> bool:
        if total is not None and amount > total:
            return True
        if index == len(groups):
            if chosen and (total is None or amount == total):
                found.append([o["value"] for o in chosen])
            return len(found) <= CANDIDATES_MAX
        members = list(groups.values())[index]
        if not walk(index + 1, chosen, amount):
            return False
        return all(walk(index + 1, [*chosen, m], amount + int(m.get("amount", 1) or 1)) for m in members)

    return found if walk(0, [], 0) else None


def _labels(choice: Mapping[str, Any], value: Any) -> list[str]:
    by_value = {str(o["value"]): str(o.get("label", o["value"])) for o in choice.get("options") or []}
    values = value if isinstance(value, list) else [value]
    return [by_value.get(str(v), str(v)) for v in values]


EventsAt = Callable[[Mapping[str, Any]], list[dict[str, Any]]]  # answers -> the asking position's events


def _trials(events_at: EventsAt, owed: Obligation, choice: Mapping[str, Any], candidates: Sequence[Any],
            positions: Sequence[tuple[int, Mapping[str, Any]]],
            answers: Mapping[str, Any]) -> Iterator[tuple[Any, Obligation]]:
    for value in candidates:
        try:
            events = events_at({**answers, choice["id"]: value})
        except InputError:
            continue  # not legal in that position after all (the engine has the last word)
        event = next((e for e in events if (e.get("rule"), e.get("source", "")) == owed.key), None)
        if event is None or event.get("status") != "fired":
            continue
        trial = Obligation(event, owed.due_at_step, owed.faction)
        trial.judge_all(positions)
        yield value, trial


def recognise(events_at: EventsAt, owed: Obligation, positions: Sequence[tuple[int, Mapping[str, Any]]],
              answers: Mapping[str, Any], hex_name: Callable[[str], str]) -> Recognition | None:
    """The option of `owed`'s first open choice that the positions after it was asked show made.
    `events_at(answers)`: the events of the position the choice was asked at, with those answers.
    A recognised answer's judged steps are `Recognition.trial`."""
    open_choices = owed.own_open_choices()
    if not open_choices or not positions:
        return None
    choice = open_choices[0]
    found = Recognition(str(choice["id"]))
    candidates = candidate_answers(choice)
    if candidates is None:
        found.note = (f"more than {CANDIDATES_MAX} legal answers to {_decision(choice)}: the moves are not "
                      "matched to one")
        return found
    scored = []
    governed: set[str] = set()  # the counters some legal answer moves
    for value, trial in _trials(events_at, owed, choice, candidates, positions, answers):
        governed |= {str(i["required"]["counter"]) for i in trial.steps if i["required"].get("counter")}
        tally = trial.tally()
        made = trial.made_by_moves()
        if made:
            rank = (tally[DEVIATION] == 0, made, tally[REMAINING] == 0, -tally[DEVIATION])
            scored.append((rank, value, trial))
    if scored:
        best = max(score[0] for score in scored)
        top = [s for s in scored if s[0] == best]
        if len(top) == 1:
            found.value = top[0][1]
            found.labels = _labels(choice, found.value)
            found.exact = best[0]
            found.trial = top[0][2]
            return found
        found.note = (f"the moves fit several answers to {_decision(choice)}: "
                      + "; ".join(", ".join(_labels(choice, s[1])) for s in top))
        return found
    found.unmatched = _moves_of(choice, governed, positions, owed.due_at_step, hex_name)
    return found if found.unmatched else None


def _moves_of(choice: Mapping[str, Any], counters: set[str],
              positions: Sequence[tuple[int, Mapping[str, Any]]], due: int,
              hex_name: Callable[[str], str]) -> list[str]:
    """The counters the choice governs that stand elsewhere at the end than where it was asked:
    moves that fit none of its legal options."""
    at_due = next((p for s, p in reversed(positions) if s <= due), positions[0][1])
    start, end = locations_of(at_due), locations_of(positions[-1][1])
    names = counter_names(positions[-1][1])
    lines = []
    for counter in sorted(counters & set(start)):
        if end.get(counter) != start[counter]:
            moved = f"{place_name(start[counter], hex_name)} to {place_name(end.get(counter), hex_name)}"
            lines.append(f"{counter_label(names, counter)} moved from {moved}: no legal answer to "
                         f"{_decision(choice)} amounts to that")
    return lines



def _decision(choice: Mapping[str, Any]) -> str:
    """'the Axis decision of 16.1.2': a choice as players name it (never its id)."""
    decider = f"the {choice['decider']} decision" if choice.get("decider") else "the decision"
    return f"{decider} of {choice.get('rule') or str(choice.get('id', '')).partition(':')[0]}"
