"""Small builders for DS positions, so each test states only what its rule looks at."""

from __future__ import annotations

from typing import Any

from rules.engine import plan
from rules.packs import load_pack
from rules.plan import Plan
from rules.state import GameState

DS = load_pack("ds")


def unit(cid: str, nationality: str, location: str, steps: int = 1, kind: str = "ground",
         **extra: Any) -> dict[str, Any]:
    return {"id": cid, "name": cid, "nationality": nationality, "kind": kind, "location": location,
            "steps": steps, **extra}


def marker(cid: str, location: str, tags: list[str] | None = None, kind: str = "marker",
           **extra: Any) -> dict[str, Any]:
    return {"id": cid, "name": cid, "kind": kind, "location": location, "tags": tags or [], **extra}


def ceded(area: str, location: str, **extra: Any) -> dict[str, Any]:
    return {"id": f"cl_{area}", "name": f"{area} marker", "kind": "ceded_land", "area": area,
            "location": location, **extra}


def position(phasing: str = "Axis", countries: dict[str, dict[str, Any]] | None = None,
             counters: list[dict[str, Any]] | None = None, cards: dict[str, str] | None = None,
             war_state: str = "Limited War", fired: list[str] | None = None) -> GameState:
    # Japanese Dependents are left out on purpose: an unlisted Dependent shares its home country's
    # alignment (Board.country_state), and pack kind "dependent" keeps a listed one from being a Minor.
    countries = {"Japan": {"faction": "Axis", "status": "active"}, **(countries or {})}
    data = {
        "pack": "ds",
        "turn": {"date": "1941-07", "phasing": phasing, "war_state": war_state,
                 "current_cards": cards or {}, "fired": fired or []},
        "countries": countries,
        "counters": counters or [],
    }
    return GameState.from_json(data, source="test-position")


def run(state: GameState, answers: dict[str, Any] | None = None, pack=DS) -> Plan:
    return plan(state, pack, answers=answers or {}, answers_source="test-answers")


def entry(result: Plan, rule: str):
    return next(e for e in result.events if e.rule == rule)


def where(result: Plan, counter_id: str) -> str:
    assert result.resulting_position is not None, "plan is waiting for an answer"
    return next(c["location"] for c in result.resulting_position["counters"] if c["id"] == counter_id)


def counters_at(result: Plan, location: str) -> list[dict[str, Any]]:
    assert result.resulting_position is not None
    return [c for c in result.resulting_position["counters"] if c["location"] == location]


def extended_pack(folder, extra_toml: str, options: str = ""):
    """The DS pack plus test-only data (hexes the incomplete pack lacks) and/or `[options]` readings."""
    for source in DS.path.glob("*.toml"):
        text = source.read_text(encoding="utf-8")
        if source.name == "errata.toml" and options:
            text = text.replace("[options]\n", f"[options]\n{options}\n")
        (folder / source.name).write_text(text, encoding="utf-8")
    if extra_toml:
        (folder / "zz_test_only.toml").write_text(extra_toml, encoding="utf-8")
    return load_pack(folder)
