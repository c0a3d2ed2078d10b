"""A small position builder so each rules test states only what matters to it."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from rules.engine import plan
from rules.packs import Pack, load_pack
from rules.plan import EventEntry, Plan
from rules.state import GameState

MINI_PACK_DIR = Path(__file__).resolve().parent / "packs" / "mini"


@cache
def mini_pack() -> Pack:
    return load_pack(MINI_PACK_DIR)


class Position:
    """Chainable: ``Position("Axis").country("Poland", "Western").unit("ger1", "Germany", "p1")``."""

    def __init__(
        self, phasing: str = "Axis", war_state: str = "Limited War", date: str = "1940-05", **turn: Any
    ) -> None:
        self.data: dict[str, Any] = {
            "pack": "mini",
            "turn": {"phasing": phasing, "war_state": war_state, "date": date, **turn},
            "countries": {},
            "counters": [],
            "actions": [],
        }

    def country(self, name: str, faction: str, status: str = "active", **fields: Any) -> Position:
        self.data["countries"][name] = {"faction": faction, "status": status, **fields}
        return self

    def counter(self, cid: str, location: str, kind: str = "ground", **fields: Any) -> Position:
        self.data["counters"].append({"id": cid, "kind": kind, "location": location, **fields})
        return self

    def unit(
        self, cid: str, nationality: str, location: str, steps: int = 2, kind: str = "ground", **fields: Any
    ) -> Position:
        return self.counter(cid, location, kind, nationality=nationality, steps=steps, **fields)

    def marker(self, cid: str, location: str, *tags: str, **fields: Any) -> Position:
        return self.counter(cid, location, fields.pop("kind", "marker"), tags=list(tags), **fields)

    def ceded(
        self, cid: str, area: str, location: str, nationality: str = "Germany", faction: str = "Axis"
    ) -> Position:
        return self.counter(cid, location, "ceded_land", area=area, nationality=nationality, faction=faction)

    def card(self, faction: str, card: str) -> Position:
        self.data["turn"].setdefault("current_cards", {})[faction] = card
        return self

    def action(self, **fields: Any) -> Position:
        self.data["actions"].append(fields)
        return self

    def state(self) -> GameState:
        return GameState.from_json(self.data, source="test-position.json")

    def plan(self, answers: dict[str, Any] | None = None) -> Plan:
        return plan(self.state(), mini_pack(), answers=answers, answers_source="test-answers.json")


def event(result: Plan, rule: str) -> EventEntry:
    matches = [e for e in result.events if e.rule == rule]
    assert matches, f"{rule} not checked; checked: {[e.rule for e in result.events]}"
    return matches[0]


def final_location(result: Plan, counter_id: str) -> str:
    assert result.resulting_position is not None, "plan is waiting for an answer"
    for counter in result.resulting_position["counters"]:
        if counter["id"] == counter_id:
            return counter["location"]
    raise AssertionError(f"no counter {counter_id}")


def final_country(result: Plan, name: str) -> dict[str, Any]:
    assert result.resulting_position is not None, "plan is waiting for an answer"
    return result.resulting_position["countries"][name]


def steps_of(entry: EventEntry, step: str | None = None) -> list[str]:
    return [s.text for s in entry.steps if step is None or s.step == step]
