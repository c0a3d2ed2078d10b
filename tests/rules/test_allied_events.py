"""Western (16.3, 16.4) and Soviet (16.5) events other than Border Defense."""

from __future__ import annotations

from rules.plan import FIRED, IGNORED, NOT_DUE, WAITING
from tests.rules.builder import Position, event, final_country, final_location


def western(war_state: str = "Limited War") -> Position:
    return (
        Position("Western", war_state=war_state)
        .country("Germany", "Axis")
        .country("Britain", "Western")
        .country("USA", "Western")
        .country("Russia", "Soviet")
    )


def soviet(posture: str = "War") -> Position:
    return (
        Position("Soviet")
        .country("Germany", "Axis")
        .country("Britain", "Western")
        .country("Russia", "Soviet", posture=posture)
    )


# ---- 16.3.1 / 16.5.1 Reactivation -------------------------------------------------------------
def conquered_poland(pos: Position) -> Position:
    return (
        pos.country("Poland", "Western", "conquered")
        .unit("pol-res", "Poland", "conquered_minors:Western", steps=1, tags=["res_infantry"])
        .unit("pol-inf", "Poland", "conquered_minors:Western")
        .unit("pol-cav", "Poland", "conquered_minors:Western", delay_stripe=True)
    )


def test_16_3_1_reactivation_offered_when_capital_is_free_and_applied_steps_1_2():
    plan = conquered_poland(western()).plan()
    entry = event(plan, "16.3.1")
    assert entry.status == WAITING
    assert [o["value"] for o in entry.choices[0].options] == ["decline", "p1"]
    plan = conquered_poland(western()).plan({"16.3.1:reactivate:Poland": "p1"})
    assert final_location(plan, "pol-res") == "p1"  # Step 1
    assert final_location(plan, "pol-inf") == "force_pool:Western"  # Step 2
    assert final_location(plan, "pol-cav") == "delay"
    assert final_country(plan, "Poland")["status"] == "active"


def test_16_3_1_not_offered_when_enemy_unit_in_capital():
    plan = conquered_poland(western()).unit("g", "Germany", "p1").plan()
    entry = event(plan, "16.3.1")
    # one place-name form (issue 12.18): "Warsaw (p1)"
    assert entry.status == NOT_DUE and any("Capital Warsaw (p1) holds" in w for w in entry.why)


def test_16_3_1_reactivation_restriction_policy_marker():
    position = conquered_poland(western())
    position.data["countries"]["Poland"]["markers"] = ["Surrender"]
    entry = event(position.plan(), "16.3.1")
    assert entry.status == NOT_DUE and any("Reactivation Restriction" in w for w in entry.why)


def test_16_5_1_soviet_partisan_base_takes_control_of_a_western_conquered_country():
    position = (
        conquered_poland(soviet())
        .unit("g", "Germany", "p1")
        .counter("pb", "p3", "partisan_base", faction="Soviet")
    )
    plan = position.plan({"16.5.1:reactivate:Poland": "p3"})
    assert final_country(plan, "Poland")["faction"] == "Soviet"
    assert final_location(plan, "pol-res") == "p3"
    assert final_location(plan, "pol-inf") == "force_pool:Soviet"


# ---- 16.3.2 / 16.5.2 Liberation ---------------------------------------------------------------
def test_16_3_2_liberation_of_an_axis_minor_steps_1_to_4():
    position = (
        western()
        .country("Hungary", "Axis")
        .unit("us", "USA", "h1", faction="Western")
        .unit("hun-inf", "Hungary", "force_pool:Axis", delay_stripe=True)
        .unit("hun-air", "Hungary", "force_pool:Axis", kind="air", steps=1)
    )
    plan = position.plan()
    entry = event(plan, "16.3.2")
    assert entry.status == FIRED
    assert final_location(plan, "hun-air") == "removed"
    assert final_location(plan, "hun-inf") == "delay"
    assert final_country(plan, "Hungary")["faction"] == "Western"


def test_16_3_2_not_liberated_with_a_city_unoccupied():
    position = western().country("Italy", "Axis").unit("us", "USA", "i1", faction="Western")
    entry = event(position.plan(), "16.3.2")
    assert entry.status == NOT_DUE and "Milan (i2)" in entry.why[-1]


def vichy(faction: str) -> Position:
    return (
        western()
        .country("France", faction, "active", flags=["vichy"])
        .ceded("occfr", "occupied_france", "ceded_lands")
        .ceded("alsace", "alsace_lorraine", "ceded_lands")
        .unit("fleet", "France", "f6", kind="naval", steps=1, tags=["french_surface_fleet"])
        .unit("col", "France", "f6", steps=1, reinforcement="V", tags=["french_colonial_012"])
        .unit("fr-v", "France", "f2", reinforcement="V")
    )


def test_16_3_2_vichy_liberated_when_all_vichy_cities_held():
    position = (
        vichy("Axis").unit("us1", "USA", "f2", faction="Western").unit("us2", "USA", "f6", faction="Western")
    )
    plan = position.plan()
    entry = event(plan, "16.3.2")
    assert entry.status == FIRED and "(Vichy)" in entry.why[0]
    assert final_location(plan, "fleet") == "removed"
    assert final_location(plan, "col") == "force_pool:Western"
    assert final_location(plan, "fr-v") == "delay"
    assert final_country(plan, "France")["faction"] == "Western"


def test_16_4_1_french_liberation_card_with_axis_vichy():
    position = vichy("Axis").card("Western", "french-liberation")
    plan = position.plan()
    entry = event(plan, "16.4.1")
    assert entry.status == FIRED and entry.source == "card:french-liberation"
    assert final_country(plan, "France")["faction"] == "Western"
    position = vichy("Axis").card("Western", "french-liberation")
    position.data["turn"]["fired"] = ["16.4.1"]
    assert event(position.plan(), "16.4.1").status == NOT_DUE


def test_16_4_1_french_liberation_not_due_when_vichy_is_neutral():
    position = vichy("Neutral").card("Western", "french-liberation")
    position.data["countries"]["France"]["status"] = "neutral"
    assert event(position.plan({"16.3.6:activate_vichy": "no"}), "16.4.1").status == NOT_DUE


# ---- 16.3.3 / 16.3.4 / 16.5.3 -----------------------------------------------------------------
def test_16_3_3_their_finest_hour_on_total_war():
    position = western("Total War").marker("tfh", "conditional_events:Western", "their_finest_hour")
    plan = position.plan()
    assert event(plan, "16.3.3").status == FIRED
    assert final_location(plan, "tfh") == "delay"
    position.data["turn"]["fired"] = ["16.3.3"]
    assert event(position.plan(), "16.3.3").status == NOT_DUE


def test_16_3_3_not_due_in_limited_war_without_axis_unit():
    position = western().marker("tfh", "conditional_events:Western", "their_finest_hour")
    assert event(position.plan(), "16.3.3").status == NOT_DUE


def test_16_3_4_paris_threatened_axis_unit_in_spain_and_influence_if_france_at_war():
    position = (
        western()
        .country("France", "Western", posture="War")
        .country("Spain", "Neutral", "neutral")
        .unit("g", "Germany", "sp1")
        .marker("pt", "conditional_events:Western", "paris_threatened")
    )
    plan = position.plan()
    entry = event(plan, "16.3.4")
    # Step 2's Influence choice does not change the position: the event fires, the choice is pending.
    assert entry.status == FIRED and entry.waiting_for == ["16.3.4:influence"]
    assert plan.pending_choices[0].id == "16.3.4:influence"
    assert final_location(plan, "pt") == "delay"
    assert event(plan, "16.3.5").status != WAITING


def test_16_5_3_emergency_mobilization_on_card_4d():
    position = soviet("Pact").marker("em", "conditional_events:Soviet", "emergency_mobilization")
    assert event(position.plan(), "16.5.3").status == NOT_DUE
    position.data["turn"]["cards_played"] = ["4d"]
    plan = position.plan()
    assert event(plan, "16.5.3").status == FIRED
    assert final_location(plan, "em") == "delay"


# ---- 16.3.5 Reduced US Impact -----------------------------------------------------------------
def star_position(*held: str) -> Position:
    position = western().marker("rusi", "set_aside", "reduced_us_impact")
    for i, hex_id in enumerate(held):
        position.unit(f"g{i}", "Germany", hex_id)
    return position


def test_16_3_5_all_three_white_star_hexes_held():
    plan = star_position("w3916", "w4624", "w3516").plan()
    assert event(plan, "16.3.5").status == FIRED
    assert final_location(plan, "rusi") == "strategic_warfare"


def test_16_3_5_two_of_three_is_not_enough_and_marker_removed_when_lost():
    assert event(star_position("w3916", "w4624").plan(), "16.3.5").status == NOT_DUE
    position = star_position("w3916", "w4624")
    position.data["counters"][0]["location"] = "strategic_warfare"
    plan = position.plan()
    assert event(plan, "16.3.5").status == FIRED
    assert final_location(plan, "rusi") == "set_aside"


# ---- 16.3.6 France Rises / 16.5.5 Russia Rises ------------------------------------------------
def test_16_3_6_france_rises_ignored_under_case_yellow_card():
    position = vichy("Neutral").card("Axis", "22a")
    assert event(position.plan(), "16.3.6").status == IGNORED


def test_16_3_6_unguarded_occupied_france_city_lets_west_activate_neutral_vichy():
    position = vichy("Neutral")
    position.data["countries"]["France"]["status"] = "neutral"
    position.unit("g-paris", "Germany", "w3516").unit("g-lille", "Germany", "f4")  # Bordeaux f5 is free
    plan = position.plan({"16.3.6:activate_vichy": "yes"})
    entry = event(plan, "16.3.6")
    assert entry.status == FIRED and "Bordeaux (f5)" in entry.why[0]
    assert final_country(plan, "France")["faction"] == "Western"
    assert final_location(plan, "occfr") == "force_pool:Axis"  # second condition: Vichy now active


def test_16_3_6_all_cities_guarded_not_due():
    position = vichy("Neutral")
    position.data["countries"]["France"]["status"] = "neutral"
    position.unit("a", "Germany", "w3516").unit("b", "Germany", "f4").counter(
        "d", "f5", "detachment", nationality="Germany"
    )
    assert event(position.plan(), "16.3.6").status == NOT_DUE


def test_16_5_5_russia_rises_ends_accord_and_removes_ostland_markers():
    position = (
        soviet("Neutrality")
        .card("Axis", "22a")
        .ceded("m-ukr", "ukraine", "ceded_lands")
        .ceded("m-byel", "byelorussia", "ceded_lands")
        .unit("g-minsk", "Germany", "e3906")
    )
    position.data["countries"]["Russia"]["markers"] = ["Ostland Accord"]
    plan = position.plan({"16.5.5:end_accord": "yes"})
    entry = event(plan, "16.5.5")
    assert entry.status == FIRED and "Kiev (e3609)" in entry.why[0]
    assert final_country(plan, "Russia")["posture"] == "War"
    assert final_location(plan, "m-ukr") == "force_pool:Axis"


def test_16_5_5_ignored_under_ostland_card():
    assert event(soviet().card("Axis", "27b").plan(), "16.5.5").status == IGNORED


# ---- 16.3.7 / 16.5.6 Lend-Lease ---------------------------------------------------------------
def test_16_3_7_step_1_marker_in_soviet_box_may_be_delayed():
    position = (
        western()
        .country("France", "Western", posture="War")
        .marker("ll", "conditional_events:Soviet", "lend_lease")
    )
    plan = position.plan({"16.3.7:marker": "delay"})
    assert final_location(plan, "ll") == "delay"


def test_16_3_7_step_2_roll_needs_france_at_war_and_not_vichy():
    position = (
        western()
        .country("France", "Western", posture="War")
        .marker("ll", "conditional_events:Western", "lend_lease")
    )
    entry = event(position.plan({"16.3.7:marker": "leave"}), "16.3.7")
    assert entry.status == FIRED and any(s.action == "roll" and s.step == "Step 2" for s in entry.steps)
    position.data["countries"]["France"]["flags"] = ["vichy"]
    entry = event(position.plan({"16.3.7:marker": "leave"}), "16.3.7")
    assert not any(s.action == "roll" for s in entry.steps) and "France is Vichy" in entry.why[-1]


def test_16_5_6_lend_lease_to_russia_needs_posture_war():
    position = soviet("Pact").marker("ll", "conditional_events:Soviet", "lend_lease")
    assert event(position.plan(), "16.5.6").status == NOT_DUE
    position.data["countries"]["Russia"]["posture"] = "War"
    assert event(position.plan(), "16.5.6").status == FIRED


# ---- 16.4.2 Operation Avalanche ---------------------------------------------------------------
def test_16_4_2_avalanche_on_axis_minor_places_no_occupation_marker():
    position = (
        western()
        .card("Western", "operation-avalanche")
        .country("Italy", "Axis")
        .unit("us", "USA", "i2", faction="Western")
        .unit("ita", "Italy", "i1")
        .unit("ita-air", "Italy", "i1", kind="air", steps=1)
        .marker("noocc", "force_pool:Western", "no_occupation")
    )
    plan = position.plan({"16.4.2:country": "Italy"})
    assert event(plan, "16.4.2").status == FIRED
    assert final_location(plan, "ita-air") == "removed"
    assert final_location(plan, "ita") == "force_pool:Axis"
    assert final_location(plan, "noocc") == "i1"
    assert final_country(plan, "Italy")["faction"] == "Axis"


def test_16_4_2_needs_a_supplied_us_unit():
    position = (
        western()
        .card("Western", "operation-avalanche")
        .country("Italy", "Axis")
        .unit("us", "USA", "i2", faction="Western", supplied=False)
    )
    assert event(position.plan(), "16.4.2").status == NOT_DUE


def test_16_3_3_an_axis_detachment_marker_is_not_an_axis_unit():
    """16.3.3 "an Axis unit is in a hex in Britain ...": Detachment/Logistics markers are not units (the text
    names "unit, Detachment, or Logistics marker" apart elsewhere, e.g. 16.3.1)."""
    position = (
        western()
        .marker("tfh", "conditional_events:Western", "their_finest_hour")
        .counter("g-det", "w3916", "detachment", nationality="Germany", faction="Axis")
    )
    assert event(position.plan(), "16.3.3").status == NOT_DUE
    position.counter("g-air", "w3916", "air", nationality="Germany", faction="Axis", steps=1)
    assert event(position.plan(), "16.3.3").status == FIRED  # an air unit is an Axis unit
