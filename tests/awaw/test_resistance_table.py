"""60.11 Russian Resistance Table: each line's figure and citation, the rules' own IC examples, the offer."""

from __future__ import annotations

import pytest

from rules.awaw.resistance import atomic_figure, ic_figures
from rules.plan import FIRED, NOT_DUE, UNDECIDED, WAITING
from tests.awaw.helpers import entry, example, figures, run, table

# Row order of the table (60.11): DP, atomic, firestorm, oil, Britain, unbuilt, IC below, IC above,
# Western Allied powers at war, European France.
DP, ATOMIC, FIRESTORM, OIL, BRITAIN, UNBUILT, IC_LOW, IC_HIGH, WESTERN, FRANCE = range(10)


@pytest.mark.parametrize(
    ("ics", "low", "high"),
    [
        (6, -1, 0),
        (5, -2, 0),
        (4, -3, 0),  # 60.11: "6 ICs: -1; 5 ICs: -2; 4 ICs: -3; and so on"
        (8, 0, 1),
        (9, 0, 2),
        (10, 0, 3),  # 60.11: "8 ICs: +1; 9 ICs: +2; 10 ICs: +3; and so on"
        (7, 0, 0),
        (0, -7, 0),
    ],
)
def test_ic_examples_of_the_rules_60_11(ics: int, low: int, high: int) -> None:
    assert ic_figures(ics) == (low, high)


@pytest.mark.parametrize("ics", [4, 6, 8, 10])
def test_ic_lines_count_the_ics_russia_controls_on_the_board_60_11(ics: int) -> None:
    """The pack's sample has 9 Russian ICs and 2 German ones; give Russia exactly `ics` of the 11."""
    data = example()
    all_ics = ["H47", "K50", "N49", "O48", "M46", "J53", "Q50", "S52", "H55", "K40", "M41"]
    for index, hex_id in enumerate(all_ics):
        data["awaw"]["control"][hex_id] = "Russia" if index < ics else "Germany"
    got = figures(run(data))
    assert (got[IC_LOW], got[IC_HIGH]) == ic_figures(ics)
    assert table(run(data))["rows"][IC_LOW]["detail"].startswith(f"{ics} IC(s) controlled by Russia")


@pytest.mark.parametrize(("attacks", "figure"), [(0, 0), (1, -3), (2, -5), (3, -6), (5, -8)])
def test_atomic_attacks_minus_3_then_2_then_1_each_60_11(attacks: int, figure: int) -> None:
    assert atomic_figure(attacks) == figure
    data = example()
    data["awaw"]["russia"]["atomic_attacks"] = attacks
    assert figures(run(data))[ATOMIC] == figure


def test_the_worked_example_sums_to_minus_3_line_by_line_60_11() -> None:
    """DP -1, no atomic attack, 1 firestorm -1, 1 oil effect -1, no Axis hex in Britain (Ulster does not
    count), 25 unbuilt factors -2, 6 ICs -1, Britain and the USA at war +2, two French hexes +1: -3."""
    result = run(example())
    assert figures(result) == [-1, 0, -1, -1, 0, -2, -1, 0, 2, 1]
    shown = table(result)
    assert shown["total"] == -3 and shown["threshold"] == 0 and shown["rule"] == "60.11"
    assert all(row["rule"] == "60.11" for row in shown["rows"])
    assert "Ulster (F29)" in shown["rows"][BRITAIN]["detail"]
    assert entry(result, "60.1").status == WAITING  # Germany's choice


def test_negative_dp_level_and_unbuilt_factors_per_ten_60_11() -> None:
    data = example()
    data["awaw"]["russia"].update(dp_level=-4, unbuilt_factors=9)
    got = figures(run(data))
    assert got[DP] == -4 and got[UNBUILT] == 0
    data["awaw"]["russia"]["unbuilt_factors"] = 10
    assert figures(run(data))[UNBUILT] == -1


def test_axis_hex_in_britain_scapa_flow_counts_ulster_does_not_60_11() -> None:
    data = example()
    assert figures(run(data))[BRITAIN] == 0  # only Ulster (F29) is German
    data["awaw"]["control"]["E30"] = "Germany"  # Scapa Flow
    result = run(data)
    assert figures(result)[BRITAIN] == -1
    assert "Scapa Flow (E30)" in table(result)["rows"][BRITAIN]["detail"]


def test_european_france_needs_two_western_allied_hexes_60_11() -> None:
    data = example()
    data["awaw"]["control"]["N31"] = "Germany"  # only M30 is Western Allied now; Algiers is not European
    assert data["awaw"]["control"]["Y30"] == "Britain"
    assert figures(run(data))[FRANCE] == 0
    data["awaw"]["control"]["O30"] = "USA"
    assert figures(run(data))[FRANCE] == 1


def test_each_western_allied_major_at_war_with_germany_60_11() -> None:
    data = example()
    data["awaw"]["western_at_war_with_germany"] = ["Britain", "France", "USA"]
    assert figures(run(data))[WESTERN] == 3


def test_level_above_zero_no_offer_exactly_zero_offers_60_11() -> None:
    data = example()
    data["awaw"]["russia"]["dp_level"] = 3  # total -3 + 4 = 1
    result = run(data)
    assert table(result)["total"] == 1 and entry(result, "60.1").status == NOT_DUE
    data["awaw"]["russia"]["dp_level"] = 2  # total 0: "zero or less"
    result = run(data)
    assert table(result)["total"] == 0 and entry(result, "60.1").status == WAITING
    assert result.pending_choices[0].id == "60.1:germany"
    assert [o["value"] for o in result.pending_choices[0].options] == ["accept", "reject"]


def test_missing_counts_are_undecided_never_zero_60_11() -> None:
    data = example()
    del data["awaw"]["russia"]["dp_level"]
    del data["awaw"]["russia"]["oil_effects"]
    result = run(data)
    first = entry(result, "60.1")
    assert first.status == UNDECIDED and result.exit_status == 3
    assert {m.fact for m in first.missing} == {"dp_level", "oil_effects"}
    assert table(result)["total"] is None
    assert figures(result)[DP] is None and figures(result)[OIL] is None


def test_unknown_hex_control_names_the_hexes_60_11() -> None:
    data = example()
    del data["awaw"]["control_default"]
    first = entry(run(data), "60.1")
    assert first.status == UNDECIDED
    texts = " ".join(m.text for m in first.missing)
    assert "E30" in texts and "K50" in texts  # Britain's hexes, the IC hexes


def test_plan_json_carries_the_table_60_11() -> None:
    shown = run(example()).to_json()["tables"][0]
    assert shown["title"] == "Russian Resistance Table"
    assert set(shown) == {"title", "rule", "rows", "total", "threshold", "note"}
    assert all(set(row) >= {"label", "figure", "rule"} for row in shown["rows"])
    assert len(shown["rows"]) == 10


def test_offer_accept_and_reject_are_recorded_60_21_60_12() -> None:
    accepted = run(
        example(),
        {
            "60.1:germany": "accept",
            "60.2:repatriate:axis:ge-para-j52": "N48",
            "60.2:repatriate:russian:ru-inf-u52": "T53",
            "60.7:japan": "war",
        },
    )
    assert entry(accepted, "60.1").status == FIRED
    assert accepted.resulting_position["awaw"]["surrender"]["state"] == "surrendered"
    assert accepted.resulting_position["awaw"]["surrender"]["turn"] == 20
    rejected = run(example(), {"60.1:germany": "reject"})
    surrender = rejected.resulting_position["awaw"]["surrender"]
    assert (surrender["state"], surrender["turn"]) == ("rejected", 20)
    assert [s.rule for s in entry(rejected, "60.1").steps] == ["60.12"]
    assert entry(rejected, "60.2").status == NOT_DUE


def test_pacific_scenario_russia_never_surrenders_60_91() -> None:
    data = example()
    data["awaw"]["scenario"] = "Pacific"
    first = entry(run(data), "60.1")
    assert first.status == "ignored" and "60.91" in first.why[-1]
