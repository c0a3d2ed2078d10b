"""16.7 Internment & Repatriation (checked by 16.1.3 / 16.3.8 / 16.5.7) and its restrictions."""

from __future__ import annotations

from rules.plan import FIRED, NOT_DUE, WAITING
from tests.rules.builder import Position, event, final_location


def axis_turn() -> Position:
    return (
        Position("Axis")
        .country("Germany", "Axis")
        .country("Hungary", "Axis")
        .country("Poland", "Western")
        .country("Switzerland", "Neutral", "neutral")
    )


def test_16_7_reich_annex_example_hungarian_unit_in_krakow_is_interned():
    """Example: Reich Annex in Warsaw; an Axis Hungarian unit left in Krakow (e3501) is interned."""
    position = axis_turn().country("Poland", "Western", "conquered", annexed_to="Germany")
    plan = position.unit("hun-inf", "Hungary", "e3501", steps=1).plan()
    entry = event(plan, "16.1.3")
    assert entry.status == FIRED
    assert "Hungarian unit in Krakow (e3501)" in entry.why[0]  # 16.7; adjectives, place names (issue 12.17)
    assert final_location(plan, "hun-inf") == "pending:Axis"


def test_16_7_hungarian_unit_in_krakow_not_interned_without_annex():
    position = axis_turn().country("Poland", "Western", "conquered")
    assert event(position.unit("hun-inf", "Hungary", "e3501", steps=1).plan(), "16.1.3").status == NOT_DUE


def test_16_7_exception_one_step_exp_unit_in_germany_is_not_interned():
    plan = axis_turn().unit("hun-exp", "Hungary", "g1", steps=1, exp=True).plan()
    assert event(plan, "16.1.3").status == NOT_DUE


def test_16_7_unit_in_neutral_country_any_faction():
    plan = axis_turn().unit("pol-inf", "Poland", "ch1", steps=1).plan()
    assert event(plan, "16.1.3").status == FIRED
    assert final_location(plan, "pol-inf") == "pending:Western"


def test_16_7_restriction_multi_step_breaks_down_and_unavailable_steps_are_lost():
    """Example: a 3-step unit with only one one-step unit left in the Force Pool: two steps are lost."""
    position = (
        axis_turn()
        .unit("ger-3", "Germany", "ch1", steps=3, delay_stripe=True)
        .unit("ger-1", "Germany", "force_pool:Axis", steps=1)
    )
    plan = position.plan()
    entry = event(plan, "16.1.3")
    assert final_location(plan, "ger-3") == "delay"
    assert final_location(plan, "ger-1") == "pending:Axis"
    lost = [s for s in entry.steps if s.action == "lose_steps"]
    assert lost and lost[0].details["steps"] == 2


def test_16_7_restriction_fortress_eliminated_port_a_fort_flipped():
    position = (
        axis_turn()
        .unit("ger-fort", "Germany", "ch1", kind="fortress", steps=1)
        .unit("ger-paf", "Germany", "ch1", kind="port_a_fort", steps=1)
    )
    plan = position.plan()
    assert final_location(plan, "ger-fort") == "force_pool:Axis"  # eliminated, no Delay Stripe
    assert final_location(plan, "ger-paf") == "pending:Axis"
    flips = [s for s in event(plan, "16.1.3").steps if s.action == "flip"]
    assert flips and flips[0].counter == "ger-paf"


def test_16_7_support_units_and_markers_go_to_the_delay_box():
    plan = axis_turn().unit("ger-air", "Germany", "ch1", kind="air", steps=1).plan()
    assert final_location(plan, "ger-air") == "delay"


def test_16_7_policy_affected_country_axis_may_end_the_policy_instead():
    position = axis_turn().country("Russia", "Soviet", "active", markers=["Ostland Accord"])
    position.unit("ger-inf", "Germany", "ru1", steps=1)
    plan = position.plan()
    assert event(plan, "16.1.3").status == WAITING
    plan = position.plan({"16.1.3:policy:Russia": "end_policy"})
    assert final_location(plan, "ger-inf") == "ru1"
    assert plan.resulting_position["countries"]["Russia"]["markers"] == []
    plan = position.plan({"16.1.3:policy:Russia": "intern"})
    assert final_location(plan, "ger-inf") == "pending:Axis"


def test_16_7_allied_partisan_base_in_enemy_country():
    plan = axis_turn().counter("pb", "h1", "partisan_base", faction="Western").plan()
    assert event(plan, "16.1.3").status == FIRED
    assert final_location(plan, "pb") == "delay"


def test_star_counters_are_not_used_in_the_combined_game():
    """16.1.3 Internment: `*` on a counter means not used in the combined game, so a starred unit in a
    Neutral country is ignored there."""
    position = axis_turn().unit("ger-res", "Germany", "ch1", steps=1, star=True)
    assert event(position.plan(), "16.1.3").status == FIRED
    position.data["turn"]["combined_game"] = True
    plan = position.plan()
    assert event(plan, "16.1.3").status == NOT_DUE
    assert plan.notes and "ger-res" in plan.notes[0]


def test_16_7_a_minor_country_air_unit_in_germany_is_interned_too():
    """16.7 Axis counters: "a Minor Country unit or multi-national unit ... in Germany" -- any unit, not only
    ground units (16.1.2 says "ground unit" where it means it); markers are not units."""
    position = (
        axis_turn()
        .unit("hun-air", "Hungary", "g1", kind="air", steps=1)
        .counter("hun-wem", "g1", "war_economy", nationality="Hungary", faction="Axis")
    )
    plan = position.plan()
    assert event(plan, "16.1.3").status == FIRED
    assert final_location(plan, "hun-air") == "delay"  # interned support unit: Delay Box
    assert final_location(plan, "hun-wem") == "g1"


def test_16_7_ending_a_policy_instead_of_internment_during_pre_war_starts_limited_war():
    """16.7: "A Policy ending this way during Pre-War immediately starts Limited War (12.2)"."""
    position = axis_turn().country("Russia", "Soviet", "active", markers=["Ostland Accord"])
    position.data["turn"]["war_state"] = "Pre-War"
    position.unit("ger-inf", "Germany", "ru1", steps=1)
    plan = position.plan({"16.1.3:policy:Russia": "end_policy"})
    assert plan.resulting_position["turn"]["war_state"] == "Limited War"
    assert any("12.2" in s.text for s in event(plan, "16.1.3").steps)
    position.data["turn"]["war_state"] = "Total War"
    plan = position.plan({"16.1.3:policy:Russia": "end_policy"})
    assert plan.resulting_position["turn"]["war_state"] == "Total War"
