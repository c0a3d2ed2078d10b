"""Positions for the rule 60 tests: the worked examples in `examples/awaw/`, changed per test."""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

from rules.engine import plan
from rules.packs import Pack, load_pack
from rules.plan import EventEntry, Plan
from rules.state import GameState

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "awaw"


@cache
def awaw_pack() -> Pack:
    return load_pack("awaw")


@cache
def _example(name: str) -> dict[str, Any]:
    return json.loads((EXAMPLES / f"{name}.position.json").read_text(encoding="utf-8"))


def example(name: str = "offer") -> dict[str, Any]:
    """A fresh copy of an example position (tests change it freely)."""
    return copy.deepcopy(_example(name))


def run(data: dict[str, Any], answers: dict[str, Any] | None = None, pack: Pack | None = None) -> Plan:
    return plan(GameState.from_json(data, "test.json"), pack or awaw_pack(), answers or {})


def entry(result: Plan, rule: str) -> EventEntry:
    return next(e for e in result.events if e.rule == rule)


def table(result: Plan, rule: str = "60.1") -> dict[str, Any]:
    return entry(result, rule).tables[0]


def figures(result: Plan) -> list[int | None]:
    return [row["figure"] for row in table(result)["rows"]]


def steps(result: Plan, rule: str, cited: str | None = None) -> list[Any]:
    return [s for s in entry(result, rule).steps if cited is None or s.rule == cited]


ACCEPT = {
    "60.1:germany": "accept",
    "60.2:repatriate:axis:ge-para-j52": "N48",
    "60.2:repatriate:russian:ru-inf-u52": "T53",
    "60.7:japan": "peace",
}
