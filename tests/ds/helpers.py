"""Small builders for DS positions, so each test states only what its rule looks at."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path
from typing import Any

from rules.engine import plan
from rules.facts import FACT_KINDS
from rules.packs import load_pack
from rules.plan import Plan
from rules.state import GameState

SHIPPED = load_pack("ds")  # honest: its [complete] table is empty (rule 16 names only some hexes)

# Most DS tests plan on the hexes rule 16 names as if they were the whole map: a test copy of the pack that
# declares every map fact complete (like tests/rules/packs/mini for TK). Tests of `undecided` use SHIPPED.
COMPLETE_TABLE = "[complete]\n" + "".join(f'{fact} = "all"\n' for fact in sorted(FACT_KINDS))
_COMPLETE_DIR = Path(tempfile.mkdtemp(prefix="adjutant-ds-complete-"))
atexit.register(shutil.rmtree, _COMPLETE_DIR, True)


def _copy_pack(folder: Path, options: str = "", complete: bool = True) -> None:
    for source in SHIPPED.path.glob("*.toml"):
        text = source.read_text(encoding="utf-8")
        if source.name == "errata.toml" and options:
            text = text.replace("[options]\n", f"[options]\n{options}\n")
        if source.name == "pack.toml" and complete:
            head, sep, _ = text.partition("\n[complete]\n")
            assert sep, "the DS pack.toml must end with its [complete] table"
            text = head + "\n" + COMPLETE_TABLE
        (folder / source.name).write_text(text, encoding="utf-8")


_copy_pack(_COMPLETE_DIR)
DS = load_pack(_COMPLETE_DIR)


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


def extended_pack(folder, extra_toml: str, options: str = "", complete: bool = True):
    """The DS test pack (every fact declared complete; `complete=False`: the shipped, empty [complete])
    plus test-only data (hexes the incomplete pack lacks) and/or `[options]` readings."""
    _copy_pack(Path(folder), options, complete)
    if extra_toml:
        (folder / "zz_test_only.toml").write_text(extra_toml, encoding="utf-8")
    return load_pack(folder)
