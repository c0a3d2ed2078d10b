"""60.2-60.5 and 60.7: the effects of an accepted surrender, on the worked example (examples/awaw)."""

from __future__ import annotations

from rules.plan import FIRED, NOT_DUE, UNDECIDED, WAITING
from tests.awaw.helpers import ACCEPT, entry, example, run, steps


def accepted(data: dict | None = None, **answers: str) -> tuple:
    result = run(data or example(), {**ACCEPT, **answers})
    return result, result.resulting_position


def control(position: dict, hex_id: str) -> str:
    return position["awaw"]["control"].get(hex_id, "(country)")


def where(position: dict, cid: str) -> str:
    return next(c["location"] for c in position["counters"] if c["id"] == cid)


def test_unsupplied_russian_hexes_pass_to_germany_no_exceptions_60_42_60_43() -> None:
    """O48 (IC and objective) is cut off by German N48, N49, O47, O49, P48: it passes to German control
    (60.43: no exception for ICs and objectives); Moscow K50 traces to the eastern edge and stays."""
    result, position = accepted()
    assert control(position, "O48") == "Germany"
    assert control(position, "K50") == "(country)"  # still Russia's own
    o48 = [s for s in steps(result, "60.2", "60.43") if s.details.get("hex") == "O48"]
    assert o48 and "no exception for an IC and objective" in o48[0].text


def test_russian_units_there_eliminated_as_allowable_builds_fortifications_eliminated_60_32_60_43() -> None:
    result, position = accepted()
    assert where(position, "ru-inf-o48") == "force_pool:Soviet"
    assert "allowable build" in steps(result, "60.2", "60.32")[0].text
    assert where(position, "ru-fort-o48") == "force_pool:Soviet"
    assert any(s.counter == "ru-fort-o48" for s in steps(result, "60.2", "60.43"))
    assert where(position, "ru-arm-k50") == "K50"  # 60.31: units remain in play


def test_isolated_axis_hex_reverts_and_its_unit_is_repatriated_60_44() -> None:
    """J52 (German) cannot trace to Berlin through Axis hexes: it reverts to Russia; the German unit goes to
    the nearest supplied Axis-controlled hex: N48 and N49 are both 4 hexes away, so Germany chooses."""
    result, position = accepted()
    assert control(position, "J52") == "Russia"
    choice = next(c for c in entry(result, "60.2").choices if c.id == "60.2:repatriate:axis:ge-para-j52")
    assert [o["value"] for o in choice.options] == ["N48", "N49"]
    assert where(position, "ge-para-j52") == "N48"
    _, other = accepted(**{"60.2:repatriate:axis:ge-para-j52": "N49"})
    assert where(other, "ge-para-j52") == "N49"
    assert control(position, "F29") == "Germany"  # Ulster is not Russian land: nothing reverts there


def test_russian_units_in_western_allied_hexes_repatriated_subject_to_stacking_60_33() -> None:
    """U51 (Persia, British): T51 and T52 are 1 hex away but T51 holds two Russian units (stacking limit 2),
    so only T52; U52 then chooses between T52 (one unit) and T53."""
    result, position = accepted()
    assert where(position, "ru-inf-u51") == "T52"
    choice = next(c for c in entry(result, "60.2").choices if c.id == "60.2:repatriate:russian:ru-inf-u52")
    assert [o["value"] for o in choice.options] == ["T52", "T53"]
    assert where(position, "ru-inf-u52") == "T53"


def test_unanswered_repatriation_waits_60_33() -> None:
    answers = {k: v for k, v in ACCEPT.items() if "u52" not in k}
    result = run(example(), answers)
    assert entry(result, "60.2").status == WAITING
    assert "60.2:repatriate:russian:ru-inf-u52" in entry(result, "60.2").waiting_for


def test_partisans_eliminated_except_communist_chinese_western_stay_60_34_60_35() -> None:
    result, position = accepted()
    assert where(position, "ru-partisan-m45") == "force_pool:Soviet"
    assert where(position, "cc-partisan-j80") == "J80"
    assert where(position, "uk-partisan-m30") == "M30"
    restriction = steps(result, "60.2", "60.35")
    assert restriction and restriction[0].action == "restriction"


def test_partisan_held_hex_is_not_russian_60_45() -> None:
    result, position = accepted()
    assert control(position, "L46") == "Germany"
    assert steps(result, "60.2", "60.45")[0].details["hex"] == "L46"


def test_minor_countries_by_their_capitals_supply_60_51_60_52() -> None:
    """Baltic States (Russian conquest): Riga F45 is cut off -> German conquest, its units permanently
    eliminated. Finland (diplomatic): Helsinki E48 traces via Karelia -> kept; the British unit in Finland is
    repatriated to the nearest Western Allied-controlled hex (Persia U50, 17 hexes)."""
    result, position = accepted()
    assert position["countries"]["Baltic States"]["status"] == "conquered"
    assert position["awaw"]["minors"]["Baltic States"] == {"relation": "conquest", "controller": "Germany"}
    assert where(position, "baltic-inf-f45") == "removed"
    assert position["awaw"]["minors"]["Finland"]["controller"] == "Russia"
    assert where(position, "uk-inf-e49") == "U50"
    assert steps(result, "60.2", "60.52")


def test_supply_override_from_the_position_is_used_and_named_60_41() -> None:
    data = example()
    data["awaw"]["supply"] = {"O48": {"russian": "full", "why": "sea supply line (rules outside 60)"}}
    result, position = accepted(data)
    assert control(position, "O48") == "(country)"
    assert any("O48 full" in w for w in entry(result, "60.2").why)


def test_us_election_only_if_the_us_is_at_war_with_germany_60_22() -> None:
    result, _ = accepted()
    assert "Europe only" in steps(result, "60.2", "60.22")[0].text
    data = example()
    data["awaw"]["western_at_war_with_germany"] = ["Britain"]
    data["awaw"]["russia"]["dp_level"] = -2  # keep the level at -3 without the USA
    result, _ = accepted(data)
    assert not steps(result, "60.2", "60.22")
    assert any("60.22" in w for w in entry(result, "60.2").why)


def test_grants_announced_as_a_recurring_obligation_60_61() -> None:
    result, _ = accepted()
    assert "turn 21" in steps(result, "60.2", "60.61")[0].text
    grants = entry(result, "60.6")
    assert grants.status == NOT_DUE and "standing obligation" in grants.why[-1]
    assert grants.tables[0]["total"] == 8  # Moscow's 8 (O48's IC is German now)


def test_unknown_hex_control_leaves_60_4_undecided_naming_it() -> None:
    data = example()
    data["awaw"]["russia"]["dp_level"] = -1
    result = run(data, ACCEPT)
    assert entry(result, "60.2").status == FIRED and not entry(result, "60.2").missing
    del data["awaw"]["control_default"]
    for hex_id in (
        "E30",
        "F30",
        "G30",
        "H47",
        "K50",
        "N49",
        "O48",
        "M46",
        "J53",
        "Q50",
        "S52",
        "H55",
        "K40",
        "M41",
        "N30",
        "O30",
    ):
        data["awaw"]["control"].setdefault(hex_id, "Russia" if hex_id[0] not in "EFGN" else "Britain")
    result = run(data, {"60.1:germany": "accept", "60.7:japan": "war"})
    effects = entry(result, "60.2")
    assert effects.status == FIRED and {m.fact for m in effects.missing} == {"hex_control"}
    assert result.undecided


def test_japan_peace_applies_60_3_60_4_to_the_pacific_60_72() -> None:
    """K80 touches only Manchukuo (Japanese) hexes and no Russian Pacific supply source: under peace it
    comes under Japanese control and its Russian unit is eliminated; the Communist Chinese partisan stays."""
    result, position = accepted()
    assert control(position, "K80") == "Japan"
    assert where(position, "ru-inf-k80") == "force_pool:Soviet"
    assert where(position, "cc-partisan-j80") == "J80"
    assert position["awaw"]["japan_at_war_with_russia"] is False
    assert steps(result, "60.7", "60.72")


def test_japan_war_continues_60_73_and_no_choice_without_war_60_71() -> None:
    result, position = accepted(**{"60.7:japan": "war"})
    assert control(position, "K80") == "(country)"
    assert steps(result, "60.7", "60.73")
    data = example()
    data["awaw"]["japan_at_war_with_russia"] = False
    result = run(data, ACCEPT)
    assert entry(result, "60.7").status == NOT_DUE
    del data["awaw"]["japan_at_war_with_russia"]
    assert entry(run(data, ACCEPT), "60.7").status == UNDECIDED


def test_60_71_japan_at_war_decides_when_russia_surrenders() -> None:
    """60.71 "If Japan is at war with Russia when Russia surrenders to Germany, Japan may either end
    hostilities with Russia or continue fighting. The Japanese player makes this decision when Russia
    surrenders": the plan asks Japan (peace or war) in the turn of the surrender, and waits for it."""
    answers = {k: v for k, v in ACCEPT.items() if k != "60.7:japan"}
    result = run(example(), answers)
    japan = entry(result, "60.7")
    assert japan.status == WAITING and "(60.71)" in japan.why[0]
    choice = next(c for c in japan.choices if c.id == "60.7:japan")
    assert choice.decider == "Japan" and [o["value"] for o in choice.options] == ["peace", "war"]
    # "when Russia surrenders": a surrender of an earlier turn, or a decision already made, asks nothing.
    later = example("after")
    later["awaw"]["game_turn"] = later["awaw"]["surrender"]["turn"] + 1
    later["awaw"]["surrender"]["japan"] = None
    assert "has not surrendered this game turn (60.71)" in entry(run(later), "60.7").why[0]
    decided = example("after")
    decided["awaw"]["game_turn"] = decided["awaw"]["surrender"]["turn"]
    assert entry(run(decided), "60.7").status == NOT_DUE
    assert entry(run(decided), "60.7").why == ["Japan has decided: peace (60.71)"]


def test_procedure_runs_once_60_21() -> None:
    _, position = accepted()
    assert position["awaw"]["surrender"]["procedure_done"] is True
    again = run(position)
    assert entry(again, "60.2").status == NOT_DUE


def test_russian_units_in_a_lost_minor_are_eliminated_60_51_60_32() -> None:
    """F47 (Baltic States) is Russian-controlled and traces supply through Karelia, but the Baltic capital
    Riga does not: the whole minor comes under German control (60.51), and the Russian unit in F47 is
    eliminated to the force pool as an allowable build (60.32)."""
    data = example()
    data["awaw"]["control"]["F47"] = "Russia"
    data["counters"].append({"id": "ru-inf-f47", "nationality": "Russia", "kind": "ground",
                             "location": "F47"})
    result, position = accepted(data)
    assert control(position, "F47") == "Germany"
    assert where(position, "ru-inf-f47") == "force_pool:Soviet"
    assert any(s.counter == "ru-inf-f47" for s in steps(result, "60.2", "60.32"))


def test_hexes_a_russian_minor_controls_carry_russian_supply_60_41_60_51() -> None:
    """Finland's hexes given as Finnish-controlled (Finland a Russian diplomatic minor) still carry the
    Russian supply line to Helsinki, so Russia keeps Finland."""
    data = example()
    for hex_id in [h for h, p in data["awaw"]["control"].items() if p == "Russia" and h[0] in "DE"]:
        data["awaw"]["control"][hex_id] = "Finland"
    result, position = accepted(data)
    assert position["awaw"]["minors"]["Finland"]["controller"] == "Russia"
    assert any("Helsinki (E48)" in w and "retains" in w for w in entry(result, "60.2").why)


def test_minor_without_a_located_capital_is_undecided_60_51() -> None:
    """Sweden has no capital in the pack: whether Russia keeps it cannot be decided, and the plan says so."""
    data = example()
    data["awaw"]["minors"]["Sweden"] = {"relation": "ally", "controller": "Russia"}
    result, position = accepted(data)
    effects = entry(result, "60.2")
    assert effects.status == FIRED
    assert [(m.fact, m.subject) for m in effects.missing] == [("capital", "Sweden")]
    assert position["awaw"]["minors"]["Sweden"]["controller"] == "Russia"  # not decided, not changed
