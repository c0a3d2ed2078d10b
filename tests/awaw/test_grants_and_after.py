"""60.6 BRP grants (a recurring obligation) and 60.8 afterwards (validated actions, a second war)."""

from __future__ import annotations

from rules.plan import FIRED, NOT_DUE, UNDECIDED, WAITING
from tests.awaw.helpers import entry, example, run, steps


def test_grant_in_the_next_russian_construction_phase_with_deficit_60_61_60_62() -> None:
    """Moscow (8) is Russia's most valuable IC: grant 8; Russia has 5 BRPs, so a deficit of 3, of which the
    Western Allies' 2 BRPs granted in this phase cover 2: the BRP base falls by 1 (40 -> 39)."""
    result = run(example("grant"))
    grants = entry(result, "60.6")
    assert grants.status == FIRED
    grant = steps(result, "60.6", "60.61")[0]
    assert grant.action == "grant" and grant.details["amount"] == 8
    deficit = steps(result, "60.6", "60.62")[0]
    assert deficit.details["deficit"] == 1
    russia = result.resulting_position["awaw"]["russia"]
    assert russia["brp_base"] == 39 and russia["brps"] == 0
    assert steps(result, "60.6", "60.63")
    assert grants.tables[0]["rule"] == "60.61" and grants.tables[0]["total"] == 8


def test_covered_deficit_leaves_the_base_60_62() -> None:
    data = example("grant")
    data["awaw"]["western_grants_to_russia"] = 3
    result = run(data)
    assert result.resulting_position["awaw"]["russia"]["brp_base"] == 40
    assert "covered by Western Allied grants" in steps(result, "60.6", "60.62")[0].text


def test_no_ic_grants_10_compulsory_60_61_60_62() -> None:
    data = example("grant")
    for hex_id in ("K50", "J53", "H55", "Q50", "S52", "H47", "N49", "M46"):
        data["awaw"]["control"][hex_id] = "Germany"
    result = run(data)
    assert steps(result, "60.6", "60.61")[0].details["amount"] == 10
    assert result.resulting_position["awaw"]["russia"]["brp_base"] == 40 - (10 - 5 - 2)


def test_grant_not_before_the_next_russian_turn_nor_outside_construction_60_61() -> None:
    data = example("grant")
    data["awaw"]["game_turn"] = 20  # the surrender turn itself
    grants = entry(run(data), "60.6")
    assert grants.status == NOT_DUE and "turn 21" in grants.why[-1]
    data = example("grant")
    data["awaw"]["phase"] = "end_of_player_turn"
    grants = entry(run(data), "60.6")
    assert grants.status == NOT_DUE and "standing obligation" in grants.why[-1] and grants.tables


def test_missing_ic_value_is_undecided_60_61() -> None:
    data = example("grant")
    del data["awaw"]["ic_values"]["K50"]
    grants = entry(run(data), "60.6")
    assert grants.status == UNDECIDED and grants.missing[0].subject == "K50"


def test_second_war_ends_the_grants_60_83() -> None:
    data = example("grant")
    data["awaw"]["surrender"]["second_war"] = {"declared_by": "Russia", "turn": 21}
    grants = entry(run(data), "60.6")
    assert grants.status == NOT_DUE and "60.83" in grants.why[-1]


def test_actions_after_a_surrender_are_validated_60_81_60_35_60_82() -> None:
    result = run(example("after"))
    assert [(v.rule, v.action_index) for v in result.violations] == [("60.81", 0), ("60.35", 1), ("60.82", 2)]
    assert result.exit_status == 1
    assert "Rules broken by recorded actions" in result.render_text()


def test_russia_may_declare_war_if_the_level_was_above_zero_60_82_60_83() -> None:
    data = example("after")
    data["awaw"].update(
        last_russian_turn_level=2, actions=[{"type": "declare_war", "by": "Russia", "on": "Germany"}]
    )
    result = run(data)
    assert not result.violations
    after = entry(result, "60.8")
    assert after.status == FIRED
    # 60.83: the table is consulted again (level -4 here): Russia offers to surrender a second time
    assert entry(result, "60.1").status == WAITING
    result = run(data, {"60.1:germany": "reject"})
    surrender = result.resulting_position["awaw"]["surrender"]
    assert surrender["second_war"] == {"declared_by": "Russia", "turn": 22}
    assert surrender["state"] == "rejected"
    assert entry(result, "60.6").status == NOT_DUE  # 60.83: no more grants
    assert "second Russian surrender is possible" in steps(result, "60.8", "60.83")[0].text


def test_second_surrender_possible_only_if_russia_declared_60_83() -> None:
    data = example("offer")
    data["awaw"]["surrender"] = {
        "state": "surrendered",
        "turn": 15,
        "procedure_done": True,
        "second_war": {"declared_by": "Russia", "turn": 18},
    }
    assert entry(run(data), "60.1").status == WAITING  # a second offer
    data["awaw"]["surrender"]["second_war"] = {"declared_by": "Germany", "turn": 18}
    first = entry(run(data), "60.1")
    assert first.status == NOT_DUE and "60.83" in first.why[-1] and not first.tables


def test_germany_may_declare_war_any_time_60_82() -> None:
    data = example("after")
    data["awaw"].update(
        side="Axis", powers=["Germany"], actions=[{"type": "declare_war", "by": "Germany", "on": "Russia"}]
    )
    result = run(data)
    assert not result.violations and entry(result, "60.8").status == FIRED
    assert result.resulting_position["awaw"]["surrender"]["second_war"]["declared_by"] == "Germany"


def test_missing_preceding_level_is_undecided_60_82() -> None:
    data = example("after")
    data["awaw"].update(
        last_russian_turn_level=None, actions=[{"type": "declare_war", "by": "Russia", "on": "Germany"}]
    )
    after = entry(run(data), "60.8")
    assert after.status == UNDECIDED and after.missing[0].fact == "last_russian_turn_level"


def test_partisan_builds_allowed_again_after_russia_reenters_60_35() -> None:
    data = example("after")
    data["awaw"]["surrender"]["second_war"] = {"declared_by": "Russia", "turn": 21}
    data["awaw"]["actions"] = [
        {"type": "build_partisan", "by": "Britain", "theater": "Europe", "hex": "M30"},
        {"type": "diplomatic_target", "power": "Russia", "target": "Turkey"},
    ]
    assert not run(data).violations


def test_russia_declares_war_on_japan_only_60_82() -> None:
    data = example("after")
    data["awaw"].update(last_russian_turn_level=1,
                        actions=[{"type": "declare_war", "by": "Russia", "on": "Japan"}])
    result = run(data)
    assert not result.violations
    position = result.resulting_position["awaw"]
    assert position["japan_at_war_with_russia"] is True
    assert position["surrender"]["second_war"] is None  # not a German-Russian war: grants go on (60.83)
