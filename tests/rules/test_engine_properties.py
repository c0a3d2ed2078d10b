"""Engine-wide properties (6.2): on any well-formed position the plan either completes or raises the
one-line InputError — never another exception — it is deterministic, and it never edits its input."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.engine import plan
from rules.plan import WAITING
from rules.state import GameState
from tests.rules.builder import mini_pack
from vassal_parser.errors import InputError

PACK = mini_pack()
HEXES = sorted(PACK.hexes)
BOXES = [
    "force_pool:Axis",
    "force_pool:Western",
    "force_pool:Soviet",
    "conquered_minors:Western",
    "delay",
    "ceded_lands",
    "conditional_events:Western",
    "conditional_events:Soviet",
    "set_aside",
]
NATIONS = ["Germany", "Poland", "France", "Italy", "Hungary", "Russia", "Britain", "USA", "Rumania"]
KINDS = ["ground", "hq", "fortress", "port_a_fort", "air", "support", "detachment", "partisan_base"]
TAGS = ["their_finest_hour", "paris_threatened", "emergency_mobilization", "lend_lease", "reduced_us_impact"]

counters = st.lists(
    st.fixed_dictionaries(
        {
            "kind": st.sampled_from(KINDS),
            "location": st.sampled_from(HEXES + BOXES),
            "nationality": st.sampled_from(NATIONS),
            "steps": st.integers(1, 4),
            "exp": st.booleans(),
            "delay_stripe": st.booleans(),
            "supplied": st.booleans(),
            "tags": st.lists(st.sampled_from(TAGS), max_size=1),
        }
    ),
    max_size=25,
)
countries = st.dictionaries(
    st.sampled_from(["Poland", "France", "Italy", "Hungary", "Rumania", "Belgium-Holland", "Norway"]),
    st.fixed_dictionaries(
        {
            "faction": st.sampled_from(["Axis", "Western", "Soviet", "Neutral"]),
            "status": st.sampled_from(["active", "conquered", "neutral"]),
        }
    ),
)
areas = st.lists(st.sampled_from(sorted(PACK.areas)), unique=True, max_size=6)


def build(phasing, war, cs, cts, ceded, posture):
    data = {
        "pack": "mini",
        "turn": {"phasing": phasing, "war_state": war, "date": "1941-03"},
        "countries": {
            "Germany": {"faction": "Axis", "status": "active"},
            "Russia": {"faction": "Soviet", "status": "active", "posture": posture},
            "Britain": {"faction": "Western", "status": "active", "posture": "War"},
            **cs,
        },
        "counters": [{"id": f"c{i}", **c} for i, c in enumerate(cts)]
        + [{"id": f"m-{a}", "kind": "ceded_land", "area": a, "location": "ceded_lands"} for a in ceded],
    }
    return data


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["Axis", "Western", "Soviet"]),
    st.sampled_from(["Pre-War", "Limited War", "Total War"]),
    countries,
    counters,
    areas,
    st.sampled_from(["War", "Pact", "Neutrality"]),
)
def test_plan_completes_or_says_what_it_waits_for(phasing, war, cs, cts, ceded, posture):
    data = build(phasing, war, cs, cts, ceded, posture)
    before = json.dumps(data, sort_keys=True)
    state = GameState.from_json(data, source="random.json")
    try:
        first = plan(state, PACK)
    except InputError as exc:  # e.g. a holding box of an unknown counter; must still be one line
        assert "\n" not in str(exc)
        return
    assert json.dumps(state.to_json()["counters"], sort_keys=True) == json.dumps(
        GameState.from_json(json.loads(before), "r").to_json()["counters"], sort_keys=True
    )
    assert first.to_json() == plan(GameState.from_json(json.loads(before), "random.json"), PACK).to_json()
    # A waiting event always names what it waits for, and the plan lists those choices or blocking ones.
    for entry in first.events:
        if entry.status == WAITING:
            assert entry.waiting_for
    json.dumps(first.to_json())  # the wire form is JSON-serialisable
    assert first.render_text()


MULTI_CHOICES = ("16.5.4:redeploy", "16.1.1:colonial_hexes")


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["Axis", "Western", "Soviet"]),
    st.sampled_from(["Limited War", "Total War"]),
    countries,
    counters,
    areas,
    st.sampled_from(["War", "Pact"]),
)
def test_answering_every_choice_with_a_legal_option_settles_the_plan(phasing, war, cs, cts, ceded, posture):
    data = build(phasing, war, cs, cts, ceded, posture)
    answers: dict = {}
    for _ in range(30):
        try:
            result = plan(GameState.from_json(data, source="random.json"), PACK, answers)
        except InputError as exc:
            # Only a multi-option answer of the wrong size may be refused.
            assert any(key in str(exc) for key in MULTI_CHOICES) or "holding box" in str(exc), str(exc)
            return
        pending = result.pending_choices
        if not pending:
            assert result.resulting_position is not None
            assert all(e.status != WAITING for e in result.events)
            return
        for choice in pending:
            value = choice.options[0]["value"]
            answers[choice.id] = [value] if choice.id in MULTI_CHOICES else value
    raise AssertionError("the plan kept asking new questions")


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 5)
    | st.sampled_from(["", "x", "g1", "Axis", "delay", "16.2.1"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["id", "a", "from"]), inner, max_size=2)
    ),
    max_leaves=6,
)
BASE = {
    "pack": "mini",
    "turn": {
        "phasing": "Axis",
        "war_state": "Total War",
        "date": "1941-03",
        "current_cards": {"Axis": "22a"},
    },
    "countries": {"Poland": {"faction": "Western", "status": "active"}},
    "counters": [{"id": "u", "kind": "ground", "nationality": "Germany", "steps": 2, "location": "p1"}],
    "actions": [{"type": "declare_war", "faction": "Axis", "target": "Norway", "activated_as": "Western"}],
}
PATHS = [
    ("pack",),
    ("turn", "phasing"),
    ("turn", "seasonal"),
    ("turn", "fired"),
    ("turn", "current_cards"),
    ("turn", "date"),
    ("countries", "Poland"),
    ("countries",),
    ("counters",),
    ("actions",),
    ("counters", 0, "steps"),
    ("counters", 0, "location"),
    ("counters", 0, "tags"),
    ("counters", 0, "id"),
    ("actions", 0, "target"),
    ("countries", "Poland", "markers"),
    ("countries", "Poland", "flags"),
    ("counters", 0, "supplied"),
]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(PATHS), json_values)
def test_any_malformed_field_is_a_one_line_input_error(path, value):
    data = json.loads(json.dumps(BASE))
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    try:
        plan(GameState.from_json(data, source="bad.json"), PACK)
    except InputError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("bad.json: ")
