"""Rule 6.2 ordering, and the Soviet liberation special cases (16.5.2)."""

from __future__ import annotations

from dataclasses import replace

from rules.engine import plan as engine_plan
from rules.plan import FIRED, NOT_DUE, WAITING
from tests.rules.builder import Position, event, final_country, final_location, mini_pack


def test_6_2_permanent_events_in_order_then_the_current_card():
    plan = Position("Axis").card("Axis", "22a").plan()
    assert [(e.rule, e.source) for e in plan.events] == [
        ("16.1.1", "permanent"),
        ("16.1.2", "permanent"),
        ("16.1.3", "permanent"),
        ("16.2.1", "card:22a"),
    ]
    assert [e.rule for e in Position("Soviet").plan().events] == [f"16.5.{i}" for i in range(1, 8)]


def test_6_2_only_the_phasing_factions_events_are_checked():
    plan = Position("Western").card("Axis", "22a").plan()
    assert all(e.rule.startswith(("16.3", "16.4")) for e in plan.events)


def test_6_2_results_of_one_event_apply_before_the_next_is_checked():
    """16.1.1 conquers Belgium-Holland first, so Case Yellow (16.2.1) can no longer select it."""
    position = (
        Position("Axis")
        .card("Axis", "22a")
        .country("Germany", "Axis")
        .country("Belgium-Holland", "Western")
        .unit("g1", "Germany", "b1")
        .unit("g2", "Germany", "b2")
        .unit("g3", "Germany", "b3")
    )
    plan = position.plan()
    assert event(plan, "16.1.1").status == FIRED
    # Reading 24 (pack `select_conquered = true`): the just-Conquered Belgium-Holland is offered as a
    # Conquered Country -- the selection sees 16.1.1's result, not the position before it.
    entry = event(plan, "16.2.1")
    assert entry.status == WAITING
    assert entry.choices[0].options == [{"value": "Belgium-Holland", "label": "Belgium-Holland"}]
    assert plan.events.index(entry) > plan.events.index(event(plan, "16.1.1"))
    spec = mini_pack().events["16.2.1"]
    active_only = replace(mini_pack(), events={**mini_pack().events, "16.2.1": replace(
        spec, params={**spec.params, "select_conquered": False})})
    plan = engine_plan(position.state(), active_only)
    entry = event(plan, "16.2.1")
    assert entry.status == NOT_DUE  # only active Allied Minors: the Conquered one is no longer selectable
    assert "16.2.1" not in plan.resulting_position["turn"]["fired"]  # it did not occur: still available


def test_16_3_8_and_16_5_7_internment_in_the_allied_turns():
    for faction, rule in (("Western", "16.3.8"), ("Soviet", "16.5.7")):
        position = (
            Position(faction)
            .country("Russia", "Soviet")
            .country("Switzerland", "Neutral", "neutral")
            .unit("ru", "Russia", "ch1", steps=1)
        )
        plan = position.plan()
        assert event(plan, rule).status == FIRED
        assert final_location(plan, "ru") == "pending:Soviet"


def baltic(eastern_poland_russian: bool) -> Position:
    position = (
        Position("Soviet")
        .country("Germany", "Axis")
        .country("Russia", "Soviet", posture="War")
        .country("Baltic States", "Axis")
        .unit("ru1", "Russia", "bs1")
        .unit("ru2", "Russia", "bs2")
        .unit("ru3", "Russia", "bs3")
        .unit("balt", "Baltic States", "force_pool:Axis")
        .ceded("m-balt", "baltic_states", "force_pool:Soviet", "Russia", "Soviet")
        .ceded("m-memel", "memelland", "force_pool:Axis")
    )
    if eastern_poland_russian:
        position.ceded("m-ep", "eastern_poland", "ceded_lands", "Russia", "Soviet")
    return position


def test_16_5_2_step_3_baltic_states_marker_removes_baltic_units_and_places_memelland():
    plan = baltic(False).plan()
    entry = event(plan, "16.5.2")
    assert entry.status == FIRED
    assert final_country(plan, "Baltic States")["faction"] == "Soviet"
    assert final_location(plan, "m-balt") == "ceded_lands"
    assert final_location(plan, "balt") == "removed"
    assert final_location(plan, "m-memel") == "ceded_lands"  # Eastern Poland is not part of Russia


def test_16_5_2_step_3_no_memelland_when_eastern_poland_is_russian():
    plan = baltic(True).plan()
    assert final_location(plan, "m-memel") == "force_pool:Axis"


def test_16_5_2_france_vichy_case_includes_step_4_colonial_unit():
    position = (
        Position("Soviet")
        .country("Russia", "Soviet", posture="War")
        .country("France", "Axis", flags=["vichy"])
        .ceded("occfr", "occupied_france", "ceded_lands")
        .ceded("alsace", "alsace_lorraine", "ceded_lands")
        .unit("r1", "Russia", "f2")
        .unit("r2", "Russia", "f6")
        .unit("col", "France", "force_pool:Axis", steps=1, reinforcement="V", tags=["french_colonial_012"])
        .unit("br-fra", "Britain", "conquered_minors:Western", colonial_of="France", faction="Western")
    )
    plan = position.plan()
    assert event(plan, "16.5.2").status == FIRED
    assert final_location(plan, "col") == "force_pool:Soviet"
    assert final_location(plan, "br-fra") == "delay"
    assert final_country(plan, "France")["faction"] == "Soviet"


def test_16_1_1_france_step_2_no_legal_hex_goes_to_the_allied_force_pool():
    position = (
        Position("Axis")
        .country("Germany", "Axis")
        .country("France", "Western")
        .unit("col", "France", "delay", steps=1, reinforcement="V", tags=["french_colonial_012"])
    )
    for i, hex_id in enumerate(["w3516", "f2", "f3", "f4", "f5", "f6", "n1", "n2", "n3", "s1"]):
        position.unit(f"g{i}", "Germany", hex_id)
    plan = position.plan()
    assert final_location(plan, "col") == "force_pool:Western"


def test_16_5_2_france_liberated_by_the_soviets_is_liberated_so_case_yellow_16_2_1_cannot_apply():
    """16.5.2 France/Vichy liberates "Axis or Western France"; 16.2.1 France: "This event cannot be applied
    to France if it has already been conquered or liberated"."""
    position = (
        Position("Soviet")
        .country("Russia", "Soviet", posture="War")
        .country("France", "Western")
        .unit("r1", "Russia", "f2")
        .unit("r2", "Russia", "f6")
        .unit("r3", "Russia", "f3")
        .unit("r4", "Russia", "f4")
        .unit("r5", "Russia", "f5")
        .unit("r6", "Russia", "w3516")
    )
    plan = position.plan()
    assert event(plan, "16.5.2").status == FIRED
    assert "liberated" in final_country(plan, "France")["flags"]
