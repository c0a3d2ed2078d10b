"""16.1.1 Allied Minor Country Conquest, with its France and Vichy cases."""

from __future__ import annotations

from rules.plan import FIRED, NOT_DUE
from tests.rules.builder import Position, event, final_country, final_location, steps_of


def poland_position() -> Position:
    """The rules text's example: Germany conquers Poland (Eastern Poland already Russian)."""
    return (
        Position("Axis")
        .country("Germany", "Axis")
        .country("Russia", "Soviet")
        .country("Poland", "Western")
        .unit("ger1", "Germany", "p1")
        .unit("ger2", "Germany", "e3501")
        .unit("ger3", "Germany", "p3")
        .unit("ger4", "Germany", "p4")
        .unit("pol-inf", "Poland", "p6", steps=2)
        .unit("pol-air", "Poland", "force_pool:Western", kind="air", steps=1)
        .unit("pol-fort", "Poland", "p1", kind="fortress", steps=1)
        .unit("pol-p", "Poland", "force_pool:Western", steps=1, partnership=True)
        .counter("pol-we", "force_pool:Western", "war_economy", nationality="Poland")
        .unit("br-pol", "Britain", "conquered_minors:Western", colonial_of="Poland", faction="Western")
        .ceded("corridor", "polish_corridor", "force_pool:Axis")
        .ceded("eastpol", "eastern_poland", "ceded_lands", "Russia", "Soviet")
    )


def test_16_1_1_poland_example_steps_1_to_4():
    result = poland_position().plan()
    entry = event(result, "16.1.1")
    assert entry.status == FIRED
    assert "Warsaw (p1)" in entry.why[0] and "Krakow (e3501)" in entry.why[0]
    assert final_country(result, "Poland")["status"] == "conquered"
    assert final_country(result, "Poland")["faction"] == "Western"
    for removed in ("pol-air", "pol-fort", "pol-p", "pol-we"):  # Step 1
        assert final_location(result, removed) == "removed"
    assert final_location(result, "pol-inf") == "conquered_minors:Western"  # Step 2
    assert final_location(result, "br-pol") == "delay"  # Step 3: British 1-2-2 Pol colonial unit
    assert final_location(result, "corridor") == "ceded_lands"  # Step 4: Polish Corridor
    assert [s.step for s in entry.steps if s.step] == sorted(s.step for s in entry.steps if s.step)


def test_16_1_1_step_4_corridor_becomes_german_and_step_order_is_cited():
    result = poland_position().plan()
    entry = event(result, "16.1.1")
    assert any("Polish Corridor" in t for t in steps_of(entry, "Step 4"))
    assert any("British colonial unit" in t for t in steps_of(entry, "Step 3"))


def test_16_1_1_not_due_when_one_city_is_free():
    result = poland_position().data
    result["counters"] = [c for c in result["counters"] if c["id"] != "ger3"]
    position = Position()
    position.data = result
    plan = position.plan()
    entry = event(plan, "16.1.1")
    assert entry.status == NOT_DUE
    assert "Lodz (p3)" in " ".join(entry.why)
    assert not plan.due


def test_16_1_1_partisan_base_hex_must_also_be_occupied():
    position = poland_position().counter("pb", "p5", "partisan_base", faction="Western")
    plan = position.plan()
    # p5 is in Eastern Poland (Russian now) so it does not count; move the base into Poland proper.
    assert event(plan, "16.1.1").status == FIRED
    position = poland_position().counter("pb", "e3501", "partisan_base", faction="Western")
    position.data["counters"] = [c for c in position.data["counters"] if c["id"] != "ger2"]
    position.unit("ger2", "Germany", "p5")
    assert event(position.plan(), "16.1.1").status == NOT_DUE


def test_16_1_1_non_ground_axis_units_do_not_conquer():
    position = poland_position()
    for c in position.data["counters"]:
        if c["id"] == "ger3":
            c["kind"] = "air"
    assert event(position.plan(), "16.1.1").status == NOT_DUE


def france_position() -> Position:
    return (
        Position("Axis")
        .country("Germany", "Axis")
        .country("France", "Western")
        .country("Britain", "Western")
        .unit("g1", "Germany", "w3516")
        .unit("g2", "Germany", "f2")
        .unit("g3", "Germany", "f3")
        .unit("g4", "Germany", "f4")
        .unit("g5", "Germany", "f5")
        .unit("g6", "Germany", "f6")
        .unit("fr-inf", "France", "force_pool:Western")
        .unit("fr-v", "France", "force_pool:Western", reinforcement="V")
        .unit(
            "fr-col1",
            "France",
            "force_pool:Western",
            steps=1,
            reinforcement="V",
            tags=["french_colonial_012"],
        )
        .unit(
            "fr-col2",
            "France",
            "force_pool:Western",
            steps=1,
            reinforcement="V",
            tags=["french_colonial_012"],
        )
        .unit(
            "fr-col3",
            "France",
            "force_pool:Western",
            steps=1,
            reinforcement="V",
            tags=["french_colonial_012"],
        )
        .marker("syria-dep", "ceded_lands", "syria_dependent", nationality="France")
        .unit("br-fra", "Britain", "force_pool:Western", colonial_of="France", faction="Western")
        .ceded("alsace", "alsace_lorraine", "force_pool:Axis")
        .unit("ger-in-algiers", "Germany", "n1", steps=1)
    )


def test_16_1_1_france_case_waits_for_colonial_placement():
    plan = france_position().plan()
    entry = event(plan, "16.1.1")
    assert entry.status == "waiting"
    choice = entry.choices[0]
    assert choice.id == "16.1.1:colonial_hexes"
    # Step 2: City/Port hexes in a French Dependent with no enemy unit (Algiers holds a German unit).
    assert [o["value"] for o in choice.options] == ["n2", "n3", "s1"]
    assert event(plan, "16.1.2").status == "waiting"  # later events are not guessed


def test_16_1_1_france_case_steps_1_to_5():
    plan = france_position().plan({"16.1.1:colonial_hexes": ["n2", "n3", "s1"]})
    entry = event(plan, "16.1.1")
    assert entry.status == FIRED
    assert final_location(plan, "fr-inf") == "removed"  # Step 1: no V
    assert final_location(plan, "syria-dep") == "ceded_lands"  # Step 1 exception
    assert [final_location(plan, f"fr-col{i}") for i in (1, 2, 3)] == ["n2", "n3", "s1"]  # Step 2
    assert final_location(plan, "fr-v") == "delay"  # Step 3
    assert final_location(plan, "br-fra") == "delay"  # Step 4
    assert final_location(plan, "alsace") == "ceded_lands"  # Step 5
    assert "vichy" in final_country(plan, "France")["flags"]
    assert final_country(plan, "France")["status"] == "active"


def test_16_1_1_france_case_rejects_wrong_number_of_hexes():
    import pytest

    from vassal_parser.errors import InputError

    with pytest.raises(InputError, match="exactly 3 hexes"):
        france_position().plan({"16.1.1:colonial_hexes": ["n2"]})


def test_16_1_1_vichy_can_never_be_conquered():
    position = france_position()
    position.data["countries"]["France"]["flags"] = ["vichy"]
    entry = event(position.plan(), "16.1.1")
    assert entry.status == NOT_DUE
    assert "never be conquered" in " ".join(entry.why)


def test_16_1_1_major_powers_keep_their_pack_alignment_when_the_position_omits_them():
    position = poland_position()
    del position.data["countries"]["Germany"]
    assert event(position.plan(), "16.1.1").status == FIRED


def test_16_1_1_a_french_dependent_is_no_minor_country_and_is_never_conquered():
    """16.1.1 conquers Allied Minor Countries only: Syria (pack kind "dependent") listed as an active
    Western country with a German unit in Damascus, its only City, stays as it is."""
    position = Position("Axis").country("Germany", "Axis").country("Syria", "Western")
    plan = position.unit("ger1", "Germany", "s1", steps=2).plan()
    assert final_country(plan, "Syria")["status"] == "active"
    assert all("Syria" not in why for why in event(plan, "16.1.1").why)


def test_16_2_1_step_4_syria_created_as_a_neutral_country_is_then_a_minor_country():
    """16.2.1 Step 4 creates Syria as a Neutral Country (`dependent_of` = itself): from then on it is a
    Minor Country (Influence 15.19, conquest 16.1.1), while French North Africa stays a Dependent."""
    from rules.board import Board
    from tests.rules.builder import mini_pack

    state = Position("Axis").country("Syria", "Neutral", "neutral", dependent_of="Syria").state()
    board = Board(state, mini_pack())
    assert board.is_minor_country("Syria")
    assert not board.is_minor_country("French North Africa")
    assert board.is_minor_country("Poland") and not board.is_minor_country("Germany")


def test_16_1_1_steps_name_boxes_and_hexes_as_the_rules_text_does():
    """Plan text is for players: 16.1.1 Step 2 reads 'Western Conquered Minor Countries Box', Step 3 'Delay
    Box', Step 4 'Axis Force Pool' -> 'Ceded Lands Box'; the JSON keeps the box ids."""
    entry = event(poland_position().plan(), "16.1.1")
    step2 = " ".join(steps_of(entry, "Step 2"))
    assert "to Western Conquered Minor Countries Box" in step2 and "conquered_minors:" not in step2
    assert any("to Delay Box" in t for t in steps_of(entry, "Step 3"))
    assert any("from Axis Force Pool to Ceded Lands Box" in t for t in steps_of(entry, "Step 4"))
    assert any("the game (was in Warsaw (p1))" in t for t in steps_of(entry, "Step 1"))
    moves = [s for s in entry.steps if s.action == "move"]
    assert moves and all(":" in s.to or s.to in ("delay", "ceded_lands") for s in moves)
