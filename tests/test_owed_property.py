"""Property (issue 37 item 4): partial and wrong executions of the engine's own plans are named exactly.

For every event family whose steps are placements — TK 16.2.2 Ostland, 16.3.5 Reduced US Impact, the
demo's 16.1.1 conquest, 16.2.1 Case Yellow and 16.3.3 Finest Hour, DS 16.1.3 garrison redeployment,
AWAW 60.2 surrender effects (60.32, 60.33, 60.43, 60.44) — the plan of a real position is made, a
random subset of its counters is moved where the plan puts them, one other required counter to
another place the plan uses (a legal-looking place), and rules/owed.py must name exactly the
unmade steps as remaining and the misplaced one as the deviation. Nothing here reads a chat line.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.engine import plan
from rules.owed import DONE, REMAINING, judge_event, mark_owed
from rules.packs import load_pack
from rules.state import GameState
from tests.awaw.helpers import ACCEPT, example

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def _example_case(edition: str, name: str, answers: str | None, pack: str) -> tuple[dict, Any, dict]:
    position = json.loads((EXAMPLES / edition / name).read_text(encoding="utf-8"))
    given_answers = json.loads((EXAMPLES / edition / answers).read_text(encoding="utf-8")) if answers else {}
    return position, load_pack(pack), given_answers


@cache
def _demo_positions() -> dict[str, tuple[dict, Any, dict]]:
    from bridge.pipeline import CheckPipeline
    from module_patches.demo_world import DEMO_DIR

    pipeline = CheckPipeline(DEMO_DIR / "adjutant-demo.vmod", DEMO_DIR / "pack")
    cases = {"02-poland-falls.vsav": {},
             "05-case-yellow.vsav": {"16.2.1:country": "France", "16.2.1:influence": "none"},
             "06-finest-hour.vsav": {}}
    out = {}
    for name, answers in cases.items():
        result = pipeline.plan_file(DEMO_DIR / "saves" / name, answers=answers or None)
        out[name] = (copy.deepcopy(result.mapping.position), pipeline.pack, answers)
    return out


def cases() -> list[tuple[str, str]]:
    return [("tk", "ostland"), ("tk", "reduced-us"), ("ds", "garrison"), ("awaw", "60.2"),
            ("demo", "02-poland-falls.vsav"), ("demo", "05-case-yellow.vsav"),
            ("demo", "06-finest-hour.vsav")]


def load_case(edition: str, name: str) -> tuple[dict, Any, dict]:
    if edition == "tk" and name == "ostland":
        return _example_case("tk", "ostland-accord.position.json", "ostland-accord.answers.json", "tk")
    if edition == "tk":
        return _example_case("tk", "reduced-us-impact.position.json", "reduced-us-impact.answers.json", "tk")
    if edition == "ds":
        return _example_case("ds", "garrison_e5201.json", "garrison_e5201.answers.json", "ds")
    if edition == "awaw":
        return example(), load_pack("awaw"), dict(ACCEPT)
    return _demo_positions()[name]


def fired_placements(position: dict, pack: Any, answers: dict) -> list[dict]:
    """The plan's fired events (JSON) that move at least one counter."""
    result = plan(GameState.from_json(copy.deepcopy(position), "case.json"), pack, answers).to_json()
    events = [e for e in result["events"] if e["status"] == "fired"
              and any(s.get("counter") and s.get("to") for s in e["steps"])]
    assert events, "the case must fire an event that moves counters"
    return events


def _final_places(event: dict) -> dict[str, tuple[Any, Any]]:
    """counter -> (its first origin, its last destination) over the event's placement steps."""
    out: dict[str, tuple[Any, Any]] = {}
    for step in event["steps"]:
        if step.get("counter") and step.get("to"):
            first = out.get(step["counter"], (step.get("from"), None))[0]
            out[step["counter"]] = (first, step["to"])
    return out


@pytest.mark.parametrize(("edition", "name"), cases())
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_random_partial_or_wrong_execution_is_named_exactly(edition: str, name: str, data: Any) -> None:
    position, pack, answers = load_case(edition, name)
    events = fired_placements(position, pack, answers)
    event = data.draw(st.sampled_from(events))
    places = _final_places(event)
    present = {c["id"] for c in position["counters"]}
    movable = sorted(cid for cid in places if cid in present)
    made = set(data.draw(st.lists(st.sampled_from(movable), unique=True, max_size=len(movable) - 1)))
    candidates = [cid for cid in movable if cid not in made]
    # Another place the plan itself uses (legal-looking), neither the counter's origin nor destination.
    used = {to for _f, to in places.values()}
    elsewhere_of = {cid: sorted(used - {places[cid][0], places[cid][1]} - {None}) for cid in candidates}
    wrongable = [cid for cid in candidates if elsewhere_of[cid]]
    wrong = data.draw(st.sampled_from(wrongable)) if wrongable and data.draw(st.booleans()) else None
    after = copy.deepcopy(position)
    for counter in after["counters"]:
        if counter["id"] in made:
            counter["location"] = places[counter["id"]][1]
        elif counter["id"] == wrong:
            counter["location"] = data.draw(st.sampled_from(elsewhere_of[wrong]))
    judged = judge_event(event, after)
    placement = [s for s in event["steps"] if s.get("counter") in present and s.get("to")]
    expected_remaining = [s for s in placement if s["counter"] not in made and s["counter"] != wrong]
    assert [s for s in judged[REMAINING] if s.get("counter")] == expected_remaining
    assert {d["step"]["counter"] for d in judged["deviations"]} == ({wrong} if wrong else set())
    assert all(s["counter"] in made for s in judged[DONE] if s.get("counter") and s.get("to"))
    assert all(s in judged[DONE] for s in placement if s["counter"] in made)
    if wrong:
        deviation = judged["deviations"][0]
        text, step = deviation["text"], deviation["step"]
        cited = f"{step['rule']} {step['step']}" if step.get("step") else step["rule"]
        assert wrong in text and f"; {cited} puts it " in text
    # The event's mark made too (its country change, where it has one): the event is owed.
    for step in event["steps"]:
        if step.get("action") == "set_country" and step.get("details"):
            after.setdefault("countries", {}).setdefault(step["subject"], {}).update(step["details"])
    marked = any(s.get("action") == "set_country" and s.get("details") for s in event["steps"])
    placed_later = [s for s in event["steps"]
                    if s.get("counter") and s.get("to") and s["counter"] not in present]
    current = {"rule": event["rule"], "status": "not_due", "why": []}
    owes = bool(expected_remaining or wrong or placed_later)
    assert mark_owed(current, event, after) == ((marked or bool(made)) and owes)
    assert current["status"] == ("owed" if (marked or made) and owes else "not_due")
