"""16.2.1 Case Yellow (card 22a) and 16.2.2 Ostland Accord (card 27b): Axis Option Card events."""

from __future__ import annotations

from rules.plan import FIRED, NOT_DUE, WAITING
from tests.rules.builder import Position, event, final_country, final_location


def axis(card: str) -> Position:
    return (
        Position("Axis", date="1940-07")
        .card("Axis", card)
        .country("Germany", "Axis")
        .country("Russia", "Soviet", posture="War")
        .country("Britain", "Western")
    )


def belgium() -> Position:
    return (
        axis("22a")
        .country("Belgium-Holland", "Western")
        .country("France", "Western")
        .unit("g-bru", "Germany", "b1")
        .unit("bh-inf", "Belgium-Holland", "b2")
        .unit("bh-air", "Belgium-Holland", "force_pool:Western", kind="air", steps=1)
    )


def test_16_2_1_case_yellow_waits_for_the_axis_selection_among_qualifying_countries():
    plan = belgium().plan()
    entry = event(plan, "16.2.1")
    assert entry.source == "card:22a"
    assert entry.status == WAITING
    assert [o["value"] for o in entry.choices[0].options] == ["Belgium-Holland"]  # France: Paris not held


def test_16_2_1_capital_held_conquers_and_offers_influence_step_5():
    plan = belgium().plan({"16.2.1:country": "Belgium-Holland", "16.2.1:influence": "none"})
    entry = event(plan, "16.2.1")
    assert entry.status == FIRED
    assert final_country(plan, "Belgium-Holland")["status"] == "conquered"
    assert final_location(plan, "bh-air") == "removed"  # Step 1
    assert final_location(plan, "bh-inf") == "conquered_minors:Western"  # Step 2
    # Step 5: its neighbours France (Western) and Germany (a Major Country) cannot be Influenced.
    assert any("Influence (15.19) not possible" in s.text for s in entry.steps if s.step == "Step 5")
    assert "16.2.1" in plan.resulting_position["turn"]["fired"]


def test_16_2_1_step_5_influence_offers_neutral_neighbours_only():
    position = belgium()
    position.data["countries"]["France"] = {"faction": "Neutral", "status": "neutral"}
    plan = position.plan({"16.2.1:country": "Belgium-Holland"})
    influence = next(c for c in event(plan, "16.2.1").choices if c.id == "16.2.1:influence")
    assert [o["value"] for o in influence.options] == ["none", "France"]
    assert not influence.affects_position and plan.resulting_position is not None


def test_16_2_1_three_cities_without_capital_is_enough_but_two_is_not():
    position = (
        axis("22a")
        .country("Belgium-Holland", "Western")
        .country("France", "Western")
        .unit("g1", "Germany", "f2")
        .unit("g2", "Germany", "f4")
    )
    assert event(position.plan(), "16.2.1").status == NOT_DUE
    position.unit("g3", "Germany", "f6")
    assert [o["value"] for o in event(position.plan(), "16.2.1").choices[0].options] == ["France"]


def test_16_2_1_unsupplied_german_units_do_not_count():
    position = (
        axis("22a").country("Belgium-Holland", "Western").unit("g-bru", "Germany", "b1", supplied=False)
    )
    assert event(position.plan(), "16.2.1").status == NOT_DUE


def test_16_2_1_once_per_game():
    position = belgium()
    position.data["turn"]["fired"] = ["16.2.1"]
    entry = event(position.plan(), "16.2.1")
    assert entry.status == NOT_DUE and "already occurred" in entry.why[0]


def test_16_2_1_france_steps_1_to_6():
    position = (
        axis("22a")
        .country("France", "Western")
        .country("Syria", "Western")
        .unit("g-paris", "Germany", "w3516")
        .unit("fr-inf", "France", "f2")
        .unit("fr-v", "France", "force_pool:Western", reinforcement="V")
        .unit("br-fra", "Britain", "conquered_minors:Western", colonial_of="France", faction="Western")
        .ceded("alsace", "alsace_lorraine", "force_pool:Axis")
        .ceded("occfr", "occupied_france", "force_pool:Axis")
        .marker("syria-dep", "ceded_lands", "syria_dependent", nationality="France")
        .unit("br-lille", "Britain", "f4", steps=1, faction="Western")
        .unit("br-syria", "Britain", "s1", steps=1, faction="Western")
        .unit("br-lyon", "Britain", "f2", steps=1, faction="Western")
    )
    plan = position.plan({"16.2.1:country": "France", "16.2.1:influence": "France"})
    entry = event(plan, "16.2.1")
    assert entry.status == FIRED
    assert final_location(plan, "fr-inf") == "removed"  # Step 1
    assert final_location(plan, "fr-v") == "set_aside"  # Step 1
    assert final_location(plan, "br-fra") == "delay"  # Step 2
    assert final_location(plan, "alsace") == "ceded_lands" and final_location(plan, "occfr") == "ceded_lands"
    assert final_location(plan, "br-lille") == "pending:Western"  # Step 3: interned in Occupied France
    assert final_location(plan, "syria-dep") == "removed"  # Step 4
    assert final_location(plan, "br-syria") == "pending:Western"
    assert final_country(plan, "Syria")["faction"] == "Neutral"
    assert final_country(plan, "France")["status"] == "neutral"  # Step 5: Vichy created Neutral
    assert final_location(plan, "br-lyon") == "pending:Western"
    rolls = [s for s in entry.steps if s.action == "roll"]
    assert rolls and rolls[0].step == "Step 6" and rolls[0].subject == "France"  # may select Vichy


def ostland() -> Position:
    """Example: German ground units in Minsk, Kiev and Rostov (Ostland Accord, 16.2.2 Step 3)."""
    return (
        axis("27b")
        .unit("g-minsk", "Germany", "e3906")
        .unit("g-kiev", "Germany", "e3609")
        .unit("g-rostov", "Germany", "e3315")
        .unit("g-moscow", "Germany", "ru1", steps=1)
        .unit("ru-inf", "Russia", "ru2", delay_stripe=True)
        .unit("ru-hq", "Russia", "e2825", kind="hq")
        .unit("br-kiev", "Britain", "e3609", steps=1, faction="Western")
        .ceded("m-byel", "byelorussia", "force_pool:Axis")
        .ceded("m-ukr", "ukraine", "force_pool:Axis")
        .ceded("m-don", "donbass", "force_pool:Axis")
        .ceded("m-cri", "crimea", "force_pool:Axis")
        .ceded("m-bess", "bessarabia", "ceded_lands", "Russia", "Soviet")
        .marker("peace", "force_pool:Soviet", "enforced_peace", nationality="Russia")
    )


def test_16_2_2_ostland_example_minsk_kiev_rostov_become_german_dependents():
    plan = ostland().plan({"16.2.2:influence": "none"})
    entry = event(plan, "16.2.2")
    assert entry.status == FIRED
    assert "Ostland Accord" in final_country(plan, "Russia")["markers"]  # Step 1
    assert final_location(plan, "m-bess") == "force_pool:Soviet"  # Step 2
    for marker in ("m-byel", "m-ukr", "m-don"):  # Step 3
        assert final_location(plan, marker) == "ceded_lands"
    assert final_location(plan, "m-cri") == "force_pool:Axis"  # Sevastopol not held
    assert final_location(plan, "g-moscow") == "pending:Axis"  # Step 4: Axis in Russia interned
    assert final_location(plan, "g-kiev") == "e3609"  # ...but not inside a new German Dependent
    assert final_location(plan, "ru-inf") == "delay"  # Step 6
    assert final_location(plan, "ru-hq") == "force_pool:Soviet"
    assert final_location(plan, "br-kiev") == "pending:Western"  # Step 8
    assert final_location(plan, "peace") == "turn_track:1941-07"  # Step 9
    assert "16.2.2" in plan.resulting_position["turn"]["fired"]


def test_16_2_2_unsupplied_unit_in_strategic_hex_creates_no_dependent():
    position = ostland()
    for c in position.data["counters"]:
        if c["id"] == "g-kiev":
            c["supplied"] = False
    position.unit("g-one", "Germany", "force_pool:Axis", steps=1)
    plan = position.plan({"16.2.2:influence": "none"})
    assert final_location(plan, "m-ukr") == "force_pool:Axis"
    # Step 4: Kiev stays Russian, so the 2-step unit is interned: it breaks down, one step is lost.
    assert final_location(plan, "g-kiev") == "force_pool:Axis"
    assert final_location(plan, "g-one") == "pending:Axis"


def test_16_2_1_france_step_4_not_step_1_removes_the_syria_dependent_marker():
    """16.2.1 France: Step 1 removes French counters without V, but Step 4 is the Step that names the Syria
    French Dependent marker in the Ceded Lands Box; the plan cites Step 4 (docs/rules-readings.md)."""
    position = (
        axis("22a")
        .country("France", "Western")
        .country("Syria", "Western")
        .unit("g-paris", "Germany", "w3516")
        .marker("syria-dep", "ceded_lands", "syria_dependent", nationality="France")
    )
    plan = position.plan({"16.2.1:country": "France", "16.2.1:influence": "none"})
    removals = [s for s in event(plan, "16.2.1").steps if s.counter == "syria-dep"]
    assert [(s.step, s.action) for s in removals] == [("Step 4", "remove_from_game")]
    assert final_location(plan, "syria-dep") == "removed"


def test_16_2_2_step_2_recreated_baltic_states_units_set_aside_stay_set_aside():
    """16.2.2 Step 2: "If the Baltic States ... is re-created as a result of this, that Country becomes an
    Axis Minor Country; place its units in the Axis Force Pool." Its units, wherever they are -- set aside
    too, as DS 16.2.5 Step 3 re-creates Mongolia (issue 22: they used to stay set aside); a unit removed
    from the game stays out of it."""
    position = (
        ostland()
        .country("Baltic States", "Soviet", status="conquered")
        .ceded("m-baltic", "baltic_states", "ceded_lands", "Russia", "Soviet")
        .ceded("m-nbaltic", "northern_baltic_states", "ceded_lands", "Russia", "Soviet")
        .ceded("m-memel", "memelland", "ceded_lands")
        .unit("bs-aside", "Baltic States", "set_aside", steps=1)
        .unit("bs-gone", "Baltic States", "removed", steps=1)
        .unit("bs-pool", "Baltic States", "force_pool:Soviet", steps=1)
        .unit("bs-box", "Baltic States", "conquered_minors:Soviet", steps=1)
    )
    plan = position.plan({"16.2.2:influence": "none"})
    assert final_country(plan, "Baltic States")["faction"] == "Axis"  # re-created as an Axis Minor
    assert final_location(plan, "bs-pool") == "force_pool:Axis"
    assert final_location(plan, "bs-box") == "force_pool:Axis"
    assert final_location(plan, "bs-aside") == "force_pool:Axis"
    assert final_location(plan, "bs-gone") == "removed"
