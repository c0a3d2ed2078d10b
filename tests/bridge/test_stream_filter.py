"""The daemon's own time around a plan (issue 15), cut without weakening what it guarantees.

The stream view's privacy filter (docs/protocol.md, "Hidden pieces") is written out for speed and
kept per plan; here it is held to the rule stated plainly (a reference written in this file) on
generated plans, and a filter kept for one plan is shown never to judge another. The state keeps
one copy of what was published, so a caller changing its objects afterwards reaches neither the
state nor the resync history. Step keys are added without touching the planner's plan.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge.web import protocol

SECRET = "RU Secret Reserve"
OTHER = "GE Hidden Panzer"
NAMES = (SECRET, OTHER, "RU-RES")


# --- the rule, stated plainly (the reference the fast filter must equal) -------------------------


def flagged(item: Any) -> bool:
    return isinstance(item, Mapping) and (
        any(item.get(flag) is True for flag in ("hidden", "masked", "private"))
        or any(item.get(owner) for owner in ("hidden_by", "masked_by")))


def names_one(text: Any, names: set[str]) -> bool:
    return isinstance(text, str) and any(name in text for name in names)


def withheld(item: Any, names: set[str]) -> bool:
    mentions = isinstance(item, Mapping) and any(isinstance(item.get(f), str) and item.get(f) in names
                                                 for f in ("counter", "piece"))
    return flagged(item) or mentions or names_one(item, names)


def withheld_from_list(item: Any, names: set[str]) -> bool:
    fields = ("text", "prompt", "label", "name")
    line = isinstance(item, Mapping) and any(names_one(item.get(f), names) for f in fields)
    return withheld(item, names) or line


def reference_strip(value: Any, names: set[str]) -> Any:
    if isinstance(value, Mapping):
        return {key: (protocol.HIDDEN_TEXT if names_one(item, names) else None) if withheld(item, names)
                else reference_strip(item, names)
                for key, item in value.items() if key not in ("hidden_pieces", "private_pieces")}
    if isinstance(value, list):
        return [reference_strip(item, names) for item in value if not withheld_from_list(item, names)]
    return copy.deepcopy(value)


def reference_names(plan: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(plan, Mapping):
        for key in ("hidden_pieces", "private_pieces"):
            found.update(str(name) for name in plan.get(key) or [] if str(name))
        vassal = plan.get("vassal")
        if isinstance(vassal, Mapping):
            if isinstance(vassal.get("concealed"), Mapping):
                found.update(str(c) for c in vassal["concealed"] if str(c))
            if isinstance(vassal.get("concealed_names"), list):
                found.update(str(n) for n in vassal["concealed_names"] if str(n))

    def visit(value: Any) -> None:
        if isinstance(value, Mapping):
            if flagged(value):
                found.update(value[f] for f in ("counter", "name", "piece", "basic_name", "piece_name", "id")
                             if isinstance(value.get(f), str) and value[f])
            for item in value.values():
                visit(item)
        elif isinstance(value, list):
            for item in value:
                visit(item)

    visit(plan)
    return found


# --- generated plans ----------------------------------------------------------------------------

KEYS = st.sampled_from(["hidden", "masked", "private", "hidden_by", "masked_by", "counter", "piece", "name",
                        "text", "prompt", "label", "id", "steps", "events", "why", "map", "choices",
                        "hidden_pieces", "private_pieces", "x"])
TEXTS = st.one_of(st.sampled_from(NAMES), st.sampled_from(["", "move to e3806", "Aachen", "hidden"]),
                  st.builds(lambda a, b: f"move {a} to {b}", st.sampled_from((*NAMES, "GE-1")),
                            st.sampled_from(["e3806", "Paris"])))
LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False), TEXTS)
VALUES = st.recursive(LEAVES, lambda inner: st.one_of(st.lists(inner, max_size=5),
                                                       st.dictionaries(KEYS, inner, max_size=6)),
                      max_leaves=25)
PLANS = st.fixed_dictionaries(
    {"turn": TEXTS, "events": st.lists(st.dictionaries(KEYS, VALUES, max_size=6), max_size=4)},
    optional={"hidden_pieces": st.lists(st.sampled_from(NAMES), max_size=2), "map": VALUES,
              "resulting_position": VALUES,
              "vassal": st.fixed_dictionaries({}, optional={
                  "concealed": st.dictionaries(st.sampled_from(NAMES), st.just("hidden"), max_size=2),
                  "concealed_names": st.lists(st.sampled_from(NAMES), max_size=2)})})
NAME_SETS = st.sets(st.sampled_from((*NAMES, "Aachen")), max_size=3)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(VALUES, NAME_SETS)
def test_the_written_out_filter_is_the_rule_on_any_value(value: Any, names: set[str]) -> None:
    kept = copy.deepcopy(value)
    assert protocol.strip_private(value, names) == reference_strip(value, names)
    assert value == kept  # the filter copies; it never edits what it is given


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PLANS)
def test_private_names_and_the_public_plan_are_the_rule_on_any_plan(plan: dict) -> None:
    names = protocol.private_names(plan)
    assert names == reference_names(plan)
    whitelisted = {key: value for key, value in plan.items() if key in protocol.STREAM_PLAN_KEYS}
    assert protocol.public_plan(plan) == reference_strip(whitelisted, names)


def _plan(hidden: str, visible: str) -> dict:
    """One event whose steps move both pieces; `hidden` is flagged, and the choice names each."""
    return protocol.annotate_step_keys({
        "turn": f"turn with {visible}",
        "events": [{"id": "e1", "rule": "16.1.1", "title": "Poland", "status": "waiting",
                    "steps": [{"text": f"move {hidden} to e3806"}, {"text": f"move {visible} to e3807"}],
                    "choices": [{"id": f"pick-{hidden}", "prompt": f"where does {hidden} go",
                                 "options": [{"value": "a"}]},
                                {"id": f"pick-{visible}", "prompt": f"where does {visible} go",
                                 "options": [{"value": "a"}]}]}],
        "hidden_pieces": [hidden],
    })


def test_a_filter_kept_for_one_plan_never_judges_the_next() -> None:
    # A kept StreamFilter serves only the very plan object it was made for: after a save where
    # the other piece is hidden, an answer, a tick or a notice is judged against the new plan.
    history = protocol.StateHistory()
    first = history.update({"plan": _plan(SECRET, OTHER)})
    kept = protocol.stream_filter_for(history.state)
    assert protocol.project_delta(first, "stream", history.state, kept)["set"]["plan"] == \
        protocol.public_plan(history.state["plan"])
    second = history.update({"plan": _plan(OTHER, SECRET)})
    assert protocol.stream_filter_for(history.state, kept) is not kept
    steps = history.state["plan"]["events"][0]["steps"]
    later = history.update({"answers": {f"pick-{OTHER}": "a", f"pick-{SECRET}": "a"},
                            "ticks": {steps[0]["key"]: True, steps[1]["key"]: True},
                            "notice": f"{OTHER} moved"})
    for delta in (second, later):
        with_stale = protocol.project_delta(delta, "stream", history.state, kept)
        fresh = protocol.project_delta(delta, "stream", history.state)
        per_key = {key: protocol.project_value(key, value, "stream", history.state)
                   for key, value in delta["set"].items()}
        assert with_stale == fresh and with_stale["set"] == per_key
        assert OTHER not in json.dumps(with_stale)
    shown = protocol.project_delta(later, "stream", history.state, kept)["set"]
    assert shown["answers"] == {f"pick-{SECRET}": "a"}
    assert shown["ticks"] == {steps[1]["key"]: True}
    assert shown["notice"] == protocol.HIDDEN_TEXT


def test_an_older_delta_in_a_catch_up_is_filtered_by_its_own_plan() -> None:
    history = protocol.StateHistory()
    old = history.update({"plan": _plan(SECRET, OTHER)})
    history.update({"plan": _plan(OTHER, SECRET)})
    kept = protocol.stream_filter_for(history.state)
    replayed = protocol.project_delta(old, "stream", history.state, kept)["set"]["plan"]
    assert SECRET not in json.dumps(replayed) and OTHER in json.dumps(replayed)
    snapshot = protocol.snapshot_message(history.seq, history.state, "stream", history.run, kept)
    assert OTHER not in json.dumps(snapshot) and SECRET in json.dumps(snapshot)


def test_the_state_keeps_its_own_copy_of_what_was_published() -> None:
    history = protocol.StateHistory()
    plan = _plan(SECRET, OTHER)
    delta = history.update({"plan": plan, "answers": {"c": ["a"]}})
    plan["events"][0]["steps"].append({"text": "added later"})
    plan["hidden_pieces"].clear()
    assert history.state["plan"] == _plan(SECRET, OTHER) and history.state["plan"] is not plan
    assert delta["set"]["plan"] is history.state["plan"]  # one copy for the state and the history
    assert history.deltas_since(0)[0]["set"]["plan"]["hidden_pieces"] == [SECRET]


def test_step_keys_are_added_to_a_copy_the_planner_plan_is_left_alone() -> None:
    plan = {"turn": "1939", "map": {"hexes": [{"name": "e3806"}]},
            "events": [{"id": "e1", "steps": [{"step": "Step 1", "text": "a"}, "plain text"]},
                       "not an event", {"rule": "16.2", "steps": [{"text": "b"}]}]}
    before = copy.deepcopy(plan)
    annotated = protocol.annotate_step_keys(plan)
    assert plan == before
    assert [step.get("key") for step in annotated["events"][0]["steps"] if isinstance(step, dict)] == \
        ["e1/Step 1#0"]
    assert annotated["events"][2]["steps"][0]["key"] == "16.2/#0"  # event index counts events only
    assert annotated["events"][1] == "not an event" and annotated["events"][0]["steps"][1] == "plain text"


def test_a_json_copy_is_a_deep_copy() -> None:
    value = {"a": [1, 2.5, None, True, {"b": ["c", (1, [2])]}], "d": "e"}
    copied = protocol.json_copy(value)
    assert copied == copy.deepcopy(value)
    copied["a"][4]["b"].append("x")
    copied["a"][4]["b"][1][1].append(3)  # a tuple's list: deep-copied too
    assert value == {"a": [1, 2.5, None, True, {"b": ["c", (1, [2])]}], "d": "e"}
