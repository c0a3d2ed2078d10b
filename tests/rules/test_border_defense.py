"""16.5.4 Border Defense Check, including the rules text's Bessarabia example."""

from __future__ import annotations

import pytest

from rules.plan import FIRED, IGNORED, NOT_DUE, WAITING
from tests.rules.builder import Position, event, final_location
from vassal_parser.errors import InputError


def pact() -> Position:
    return (
        Position("Soviet")
        .country("Germany", "Axis")
        .country("Russia", "Soviet", posture="Pact")
        .ceded("m-bess", "bessarabia", "ceded_lands", "Russia", "Soviet")
        .ceded("m-ep", "eastern_poland", "ceded_lands", "Russia", "Soviet")
    )


def bessarabia_example() -> Position:
    """Example: only three steps in Bessarabia; a lone 3-step HQ on the Eastern Poland border (p5)."""
    return (
        pact()
        .unit("ru-a", "Russia", "r2", steps=2)
        .unit("ru-b", "Russia", "r3", steps=1)
        .unit("ru-hq", "Russia", "p5", steps=3, kind="hq", delay_stripe=True)
        .unit("ru-fort", "Russia", "ru1", kind="fortress", steps=2)
        .unit("one-1", "Russia", "force_pool:Soviet", steps=1)
        .unit("one-2", "Russia", "force_pool:Soviet", steps=1)
        .unit("one-3", "Russia", "force_pool:Soviet", steps=1)
    )


def test_16_5_4_ignored_unless_posture_is_entente_rapallo_or_pact():
    position = bessarabia_example()
    position.data["countries"]["Russia"]["posture"] = "War"
    assert event(position.plan(), "16.5.4").status == IGNORED


def test_16_5_4_bessarabia_example_only_the_hq_spare_step_may_be_redeployed():
    entry = event(bessarabia_example().plan(), "16.5.4")
    assert entry.status == WAITING
    assert any("Bessarabia short 1 step(s)" in w for w in entry.why)
    options = [o["value"] for o in entry.choices[0].options]
    # Two HQ steps must stay in p5 (needed there); the fortress may not be used; Bessarabia's own steps
    # are needed in Bessarabia. Only one HQ step, into either Bessarabia hex.
    assert options == ["ru-hq:1>r2", "ru-hq:1>r3"]


def test_16_5_4_bessarabia_example_hq_breaks_down_and_one_step_moves():
    plan = bessarabia_example().plan({"16.5.4:redeploy": ["ru-hq:1>r3"]})
    assert event(plan, "16.5.4").status == FIRED
    assert final_location(plan, "ru-hq") == "delay"  # broken down; Delay Stripe
    placed = sorted(final_location(plan, f"one-{i}") for i in (1, 2, 3))
    assert placed == ["p5", "p5", "r3"]


def test_16_5_4_never_more_steps_than_necessary():
    position = bessarabia_example().unit("ru-x", "Russia", "ru2", steps=2)
    options = [o["value"] for o in event(position.plan(), "16.5.4").choices[0].options]
    assert "ru-x:2>r2" not in options and "ru-x:1>r2" in options
    with pytest.raises(InputError, match="exactly 1 are necessary"):
        position.plan({"16.5.4:redeploy": ["ru-x:1>r2", "ru-hq:1>r3"]})


def test_16_5_4_sufficient_defense_not_due_and_axis_unit_lifts_requirement():
    position = pact().unit("a", "Russia", "r2", steps=4).unit("b", "Russia", "p5", steps=2)
    assert event(position.plan(), "16.5.4").status == NOT_DUE
    position = pact().unit("g", "Germany", "r2", steps=1).unit("b", "Russia", "p5", steps=2)
    entry = event(position.plan(), "16.5.4")
    assert entry.status == NOT_DUE and any("Bessarabia: Axis unit" in w for w in entry.why)


def test_16_5_4_marker_not_in_ceded_lands_box_needs_no_defense():
    position = pact()
    position.data["counters"] = [c for c in position.data["counters"] if c["id"] != "m-bess"]
    position.ceded("m-bess", "bessarabia", "force_pool:Soviet", "Russia", "Soviet").unit("b", "Russia", "p5")
    assert event(position.plan(), "16.5.4").status == NOT_DUE


def test_16_5_4_insufficient_russian_steps_no_additional_penalty():
    entry = event(pact().plan(), "16.5.4")
    assert entry.status == FIRED
    assert any("no additional penalty" in s.text for s in entry.steps)



def test_16_5_4_redeploy_choice_is_marked_as_a_list_answer():
    """16.5.4: the Axis redeploys several steps at once, so the choice says its answer is a list."""
    choice = event(bessarabia_example().plan(), "16.5.4").choices[0]
    assert choice.multiple is True and choice.to_json()["multiple"] is True
    assert event(bessarabia_example().plan(), "16.5.4").choices[0].decider == "Axis"


def test_16_5_4_an_axis_logistics_marker_does_not_lift_the_requirement():
    """16.5.4 "if there is an Axis unit in that Region": a Logistics marker is not a unit."""
    position = (
        pact()
        .unit("b", "Russia", "p5", steps=2)
        .counter("g-log", "r2", "logistics", nationality="Germany", faction="Axis")
    )
    entry = event(position.plan(), "16.5.4")
    assert any("Bessarabia short 4 step(s)" in w for w in entry.why)
