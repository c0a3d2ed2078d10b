"""16.1.3 Manchukuo Garrison Check."""

from __future__ import annotations

import pytest

from tests.ds.helpers import ceded, entry, marker, position, run, unit, where
from vassal_parser.errors import InputError

NEUTRAL_RUSSIA = {"Russia": {"faction": "Soviet", "status": "active", "posture": "Neutrality"},
                  "Mongolia": {"faction": "Soviet", "status": "active"},
                  "Hopeh": {"faction": "Western", "status": "active"}}


def _inner_mongolia_is_japanese() -> dict:
    return ceded("inner_mongolia", "ceded_lands")


def test_16_1_3_kalgan_example_two_steps_meet_the_requirement():
    """16.1.3 example: Inner Mongolia borders Soviet Mongolia; two steps in Kalgan (w5322) suffice."""
    state = position(countries=NEUTRAL_RUSSIA, counters=[
        _inner_mongolia_is_japanese(),
        unit("jp_inf1", "Japan", "w5322"), unit("jp_inf2", "Japan", "w5322"),
        unit("jp_inf3", "Japan", "e5201", steps=2)])
    result = run(state)
    assert entry(result, "16.1.3").status == "not_due"


def test_16_1_3_kalgan_one_step_short_is_due_and_asks_the_soviet_faction():
    """16.1.3: one step in Kalgan (w5322) is one short: the Soviet faction picks the Japanese steps."""
    state = position(countries=NEUTRAL_RUSSIA, counters=[
        _inner_mongolia_is_japanese(),
        unit("jp_inf1", "Japan", "w5322"),
        unit("jp_inf3", "Japan", "e5201", steps=2),
        unit("jp_inf9", "Japan", "w4427")])
    result = run(state)
    event = entry(result, "16.1.3")
    assert event.status == "waiting"
    choice = event.choices[0]
    assert choice.id == "16.1.3:fill:w5322" and choice.decider == "Soviet"
    values = [o["value"] for o in choice.options]
    assert "jp_inf9" in values
    assert "jp_inf3" not in values, "steps needed in e5201 must never be offered (16.1.3)"
    assert "jp_inf1" not in values
    answered = run(state, {"16.1.3:fill:w5322": ["jp_inf9"]})
    assert entry(answered, "16.1.3").status == "fired"
    assert where(answered, "jp_inf9") == "w5322"


def test_16_1_3_ignored_unless_russia_is_neutral():
    """16.1.3: "If Russia's Posture is not Neutrality: Ignore this event"."""
    countries = {**NEUTRAL_RUSSIA, "Russia": {"faction": "Soviet", "status": "active", "posture": "War"}}
    state = position(countries=countries, counters=[_inner_mongolia_is_japanese()])
    event = entry(run(state), "16.1.3")
    assert event.status == "ignored" and "not Neutrality" in event.why[0]


def test_16_1_3_allied_ground_unit_in_a_checked_dependent_lifts_every_requirement():
    """16.1.3 Exception: an Allied ground unit in Inner Mongolia, Manchukuo or Korea lifts it for all."""
    state = position(countries=NEUTRAL_RUSSIA, counters=[
        _inner_mongolia_is_japanese(),
        unit("ru_inf", "Russia", "w5027")])  # in Korea (Keijo), not a border hex
    event = entry(run(state), "16.1.3")
    assert event.status == "not_due" and "Exception" in event.why[0]


def test_16_1_3_not_checked_when_inner_mongolia_is_not_a_japanese_dependent():
    """16.1.3 checks Japanese Dependents only: with its marker in the Axis Force Pool Kalgan is Hopeh's."""
    state = position(countries=NEUTRAL_RUSSIA, counters=[
        {"id": "cl_im", "kind": "ceded_land", "area": "inner_mongolia", "location": "force_pool:Axis"},
        unit("jp_inf3", "Japan", "e5201", steps=2)])
    event = entry(run(state), "16.1.3")
    assert event.status == "not_due"
    assert "Inner Mongolia" not in " ".join(event.why)


def test_16_1_3_korea_e5201_example_hq_in_indochina_breaks_down():
    """16.1.3 example: e5201 in Korea overlooked; the 3-step HQ in Indochina breaks down (Delay Box) and
    two of its steps go to e5201."""
    state = position(countries=NEUTRAL_RUSSIA, counters=[
        ceded("indochina_jd", "ceded_lands"),
        unit("jp_hq", "Japan", "w3619", steps=3, kind="hq", delay_stripe=True),
        unit("jp_one_a", "Japan", "force_pool:Axis"), unit("jp_one_b", "Japan", "force_pool:Axis"),
        unit("jp_one_c", "Japan", "force_pool:Axis")])
    waiting = run(state)
    assert [c.id for c in entry(waiting, "16.1.3").choices] == ["16.1.3:fill:e5201"]
    result = run(state, {"16.1.3:fill:e5201": ["jp_hq"]})
    assert where(result, "jp_hq") == "delay"
    moves = {s.counter: s.to for s in entry(result, "16.1.3").steps if s.action == "move"}
    assert sorted(moves.values()) == ["e5201", "e5201", "w3619"]
    actions = [s.action for s in entry(result, "16.1.3").steps]
    assert "breakdown" in actions


def test_16_1_3_cannot_redeploy_more_steps_than_necessary():
    """16.1.3: "cannot use this event to redeploy more steps than are necessary"."""
    state = position(countries=NEUTRAL_RUSSIA, counters=[
        unit("jp_a", "Japan", "w3619", steps=2), unit("jp_b", "Japan", "w4427", steps=2)])
    with pytest.raises(InputError, match="more steps than necessary"):
        run(state, {"16.1.3:fill:e5201": ["jp_a", "jp_b"]})


def test_16_1_3_fortress_units_are_not_redeployed():
    """16.1.3 Unmet requirements: only NON-fortress Japanese steps may be redeployed."""
    state = position(countries=NEUTRAL_RUSSIA, counters=[
        unit("jp_fort", "Japan", "w4427", steps=2, kind="fortress"),
        unit("jp_inf", "Japan", "w4324", steps=2)])
    values = [o["value"] for o in entry(run(state), "16.1.3").choices[0].options]
    assert values == ["jp_inf"]


def test_16_1_3_korea_not_checked_when_no_soviet_neighbour():
    """16.1.3 checks Dependents bordering a Soviet Country: Russia Axis-aligned -> nothing to check."""
    countries = {"Russia": {"faction": "Neutral", "status": "neutral", "posture": "Neutrality"}}
    state = position(countries=countries, counters=[marker("m", "delay")])
    assert entry(run(state), "16.1.3").status == "not_due"


def test_16_1_3_units_sharing_a_border_hex_give_only_that_hexs_surplus_together():
    """16.1.3 Unmet requirements: the Soviet faction "cannot ... redeploy Japanese ground units that are
    necessary to fulfill a Garrison Check elsewhere". Kalgan (w5322) holds 3 steps (need 2): its two
    units may give ONE step between them, never one each, so Korea's e5201 gets one step and Kalgan keeps
    its two."""
    state = position(countries=NEUTRAL_RUSSIA, counters=[
        _inner_mongolia_is_japanese(),
        unit("jp_a", "Japan", "w5322"), unit("jp_b", "Japan", "w5322", steps=2),
        unit("jp_one", "Japan", "force_pool:Axis")])
    with pytest.raises(InputError, match="w5322"):
        run(state, {"16.1.3:fill:e5201": ["jp_a", "jp_b"]})
    result = run(state, {"16.1.3:fill:e5201": ["jp_a"]})
    assert where(result, "jp_a") == "e5201"
    assert where(result, "jp_b") == "w5322"
