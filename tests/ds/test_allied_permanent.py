"""16.3.x (Western) and 16.5.x (Soviet) Permanent Conditional Events on the DS pack."""

from __future__ import annotations

from tests.ds.helpers import ceded, entry, extended_pack, marker, position, run, unit, where

WESTERN_AT_WAR = {"US": {"faction": "Western", "status": "active", "posture": "War"},
                  "Britain": {"faction": "Western", "status": "active", "posture": "War"},
                  "France": {"faction": "Western", "status": "active", "posture": "War"}}


def test_16_3_3_us_far_eastern_forces_arrive_when_the_us_is_at_war():
    """16.3.3: US Posture War -> the US Far Eastern Forces units go to the Delay Box (once per game)."""
    feaf = unit("us_fe", "US", "conditional_events:Western", tags=["us_far_eastern_forces"])
    result = run(position("Western", WESTERN_AT_WAR, [feaf]))
    assert entry(result, "16.3.3").status == "fired" and where(result, "us_fe") == "delay"
    assert "16.3.3" in result.resulting_position["turn"]["fired"]


def test_16_3_3_not_before_war_and_only_once():
    feaf = unit("us_fe", "US", "conditional_events:Western", tags=["us_far_eastern_forces"])
    neutral = {"US": {"faction": "Western", "status": "active", "posture": "Neutrality"}}
    assert entry(run(position("Western", neutral, [feaf])), "16.3.3").status == "not_due"
    again = run(position("Western", WESTERN_AT_WAR, [feaf], fired=["16.3.3"]))
    assert entry(again, "16.3.3").status == "not_due"
    assert where(again, "us_fe") == "conditional_events:Western"


def test_16_3_4_british_far_eastern_forces():
    """16.3.4: Britain's Posture War -> British Far Eastern Forces to the Delay Box."""
    bfe = unit("gb_fe", "Britain", "conditional_events:Western", tags=["british_far_eastern_forces"])
    assert where(run(position("Western", WESTERN_AT_WAR, [bfe])), "gb_fe") == "delay"


def test_16_3_5_french_response_activates_a_neutral_france():
    """16.3.5: US Posture War and France Neutral -> the Western faction may activate France."""
    countries = {**WESTERN_AT_WAR, "France": {"faction": "Neutral", "status": "neutral"}}
    state = position("Western", countries, [marker("m", "delay")])
    assert entry(run(state), "16.3.5").status == "waiting"
    result = run(state, {"16.3.5:activate": "yes"})
    assert result.resulting_position["countries"]["France"]["faction"] == "Western"


def test_16_3_5_not_when_france_is_already_active():
    countries = {**WESTERN_AT_WAR, "France": {"faction": "Western", "status": "active"}}
    assert entry(run(position("Western", countries, [])), "16.3.5").status == "not_due"


def _white_star_position(held: list[str], marker_at: str = "set_aside"):
    counters = [unit(f"jp_{h}", "Japan", h) for h in held]
    counters.append(marker("rusi", marker_at, ["reduced_us_impact"]))
    return position("Western", WESTERN_AT_WAR, counters)


def test_16_3_7_reduced_us_impact_three_of_six_hexes():
    """16.3.7: Axis ground units in at least three of Dutch Harbor, Honolulu, Port Moresby, Manila,
    Noumea, Tutuila -> the marker goes to the Strategic Warfare Box."""
    result = run(_white_star_position(["e5720", "w3824", "e1913"]))
    assert entry(result, "16.3.7").status == "fired"
    assert where(result, "rusi") == "strategic_warfare"


def test_16_3_7_two_of_six_is_not_enough():
    result = run(_white_star_position(["e5720", "w3824"]))
    assert entry(result, "16.3.7").status == "not_due" and where(result, "rusi") == "set_aside"


def test_16_3_7_four_of_six_with_the_marker_already_in_the_box_is_not_due():
    """16.3.7 on the shared `white_star_hexes` (pack `needed = 3`): more than three is still "at least
    three"; the marker already in the Strategic Warfare Box stays and nothing is due."""
    result = run(_white_star_position(["e5720", "e4226", "w3824", "e1913"], marker_at="strategic_warfare"))
    assert entry(result, "16.3.7").status == "not_due" and where(result, "rusi") == "strategic_warfare"
    assert any("4 of the 6 hexes" in why for why in entry(result, "16.3.7").why)


def test_16_3_7_below_three_removes_the_marker_and_sets_it_aside():
    result = run(_white_star_position(["e5720", "w3824"], marker_at="strategic_warfare"))
    assert entry(result, "16.3.7").status == "fired" and where(result, "rusi") == "set_aside"


def _british_settled(*extra, cards=None):
    countries = {"Britain": {"faction": "Western", "status": "active", "posture": "Neutrality",
                             "markers": ["Surrender"]}}
    return position("Western", countries, [ceded("burma_jd", "ceded_lands", tags=["settlement_dependent"]),
                                           *extra], cards=cards)


def test_16_3_8_step_2_ungarrisoned_burma_lets_britain_return_to_war():
    """16.3.8 Step 2: a City of a formerly British Mandate Dependent (Rangoon w4015) holds no Japanese
    unit: Britain may go back to War; then the Burma Japanese Dependent marker is removed."""
    state = _british_settled()
    waiting = entry(run(state), "16.3.8")
    assert waiting.status == "waiting" and waiting.choices[0].id == "16.3.8:step2:war"
    result = run(state, {"16.3.8:step2:war": "yes"})
    britain = result.resulting_position["countries"]["Britain"]
    assert britain["posture"] == "War" and "Surrender" not in britain["markers"]
    assert where(result, "cl_burma_jd") == "force_pool:Axis"


def test_16_3_8_step_2_garrisoned_rangoon_keeps_britain_out():
    result = run(_british_settled(unit("jp", "Japan", "w4015")))
    assert entry(result, "16.3.8").status == "not_due"


def test_16_3_8_step_2_ignored_on_card_29_commonwealth_surrender():
    """16.3.8 Step 2: ignored if the Western Current Card is card 29 Commonwealth Surrender."""
    event = entry(run(_british_settled(cards={"Western": "29W"})), "16.3.8")
    assert event.status == "not_due" and any("29W" in why for why in event.why)


def test_16_3_8_step_2_ignored_on_axis_card_37a_british_settlement():
    event = entry(run(_british_settled(cards={"Axis": "37a"})), "16.3.8")
    assert event.status == "not_due" and any("37a" in why for why in event.why)


def test_16_5_3_russian_far_eastern_forces():
    """16.5.3: Russia's Posture War -> Far Eastern Forces to the Delay Box."""
    countries = {"Russia": {"faction": "Soviet", "status": "active", "posture": "War"}}
    fef = unit("ru_fe", "Russia", "conditional_events:Soviet", tags=["russian_far_eastern_forces"])
    assert where(run(position("Soviet", countries, [fef])), "ru_fe") == "delay"


def test_16_5_5_step_2_ungarrisoned_far_east_region_russia_rises():
    """16.5.5 The East Rises Step 2: Blagoveshchensk (w5727) in Amur holds no Japanese unit."""
    countries = {"Russia": {"faction": "Soviet", "status": "active", "posture": "Neutrality",
                            "markers": ["Surrender"]}}
    state = position("Soviet", countries, [ceded("amur", "ceded_lands")])
    result = run(state, {"16.5.5:step2:war": "yes"})
    assert result.resulting_position["countries"]["Russia"]["posture"] == "War"
    assert where(result, "cl_amur") == "force_pool:Axis"


def test_16_5_5_step_2_ignored_on_soviet_card_25_russian_surrender():
    countries = {"Russia": {"faction": "Soviet", "status": "active", "posture": "Neutrality",
                            "markers": ["Surrender"]}}
    state = position("Soviet", countries, [ceded("amur", "ceded_lands")], cards={"Soviet": "25"})
    assert entry(run(state), "16.5.5").status == "not_due"


def test_16_5_5_step_1_kansu_marker_removed_when_communist_china_at_war():
    """16.5.5 Step 1 second bullet: Communist China at War -> Kansu Japanese Dependent marker removed."""
    countries = {"Communist China": {"faction": "Soviet", "status": "active", "posture": "War"}}
    state = position("Soviet", countries, [ceded("kansu_jd", "ceded_lands")])
    result = run(state)
    assert entry(result, "16.5.5").status == "fired" and where(result, "cl_kansu_jd") == "force_pool:Axis"


def _reserves(phasing_posture: str, war_state: str):
    countries = {"Russia": {"faction": "Soviet", "status": "active", "posture": phasing_posture}}
    counters = [marker("ru_lwr", "conditional_events:Soviet", ["russian_limited_war_reserves"]),
                marker("ru_twr", "conditional_events:Soviet", ["russian_total_war_reserves"])]
    return position("Soviet", countries, counters, war_state=war_state)


def test_16_5_4_european_reserves_limited_war():
    """16.5.4 (*): Russia at War or European Limited War -> Limited War Reserves to the Delay Box."""
    result = run(_reserves("Neutrality", "Limited War"))
    assert where(result, "ru_lwr") == "delay" and where(result, "ru_twr") == "conditional_events:Soviet"
    assert "16.5.4:limited" in result.resulting_position["turn"]["fired"]


def test_16_5_4_european_reserves_total_war_each_once():
    result = run(_reserves("War", "Total War"))
    assert where(result, "ru_lwr") == "delay" and where(result, "ru_twr") == "delay"


def test_16_5_4_european_reserves_pre_war_neutral_russia_not_due():
    result = run(_reserves("Neutrality", "Pre-War"))
    assert entry(result, "16.5.4").status == "not_due"


def test_16_5_5_step_1_ungarrisoned_kansu_city_communist_china_may_return_to_war(tmp_path):
    """16.5.5 Step 1 first bullet: Kansu a Japanese Dependent and a Kansu City without a Japanese unit,
    Detachment or Logistics marker. Rule 16 names no Kansu City: the test adds one (test only)."""
    pack = extended_pack(tmp_path, '[hexes.w9951]\ncountry = "Kansu"\narea = "kansu_jd"\ncity = true\n')
    countries = {"Communist China": {"faction": "Soviet", "status": "active", "posture": "Neutrality",
                                     "markers": ["Surrender"]}}
    state = position("Soviet", countries, [ceded("kansu_jd", "ceded_lands")])
    assert entry(run(state, pack=pack), "16.5.5").choices[0].id == "16.5.5:step1:war"
    result = run(state, {"16.5.5:step1:war": "yes"}, pack=pack)
    assert result.resulting_position["countries"]["Communist China"]["posture"] == "War"
    assert where(result, "cl_kansu_jd") == "force_pool:Axis"
    garrisoned = position("Soviet", countries,
                          [ceded("kansu_jd", "ceded_lands"), unit("jp", "Japan", "w9951")])
    assert entry(run(garrisoned, pack=pack), "16.5.5").status == "not_due"


def test_16_5_5_step_1_ignored_on_soviet_card_29_communist_chinese_surrender(tmp_path):
    """16.5.5 Step 1: ignored when the Soviet Current Card is card 29 (errata card_29: id 29S)."""
    pack = extended_pack(tmp_path, '[hexes.w9951]\ncountry = "Kansu"\narea = "kansu_jd"\ncity = true\n')
    countries = {"Communist China": {"faction": "Soviet", "status": "active", "posture": "Neutrality",
                                     "markers": ["Surrender"]}}
    state = position("Soviet", countries, [ceded("kansu_jd", "ceded_lands")], cards={"Soviet": "29S"})
    event = entry(run(state, {"16.6.1:influence": "none"}, pack=pack), "16.5.5")
    assert not any(c.id == "16.5.5:step1:war" for c in event.choices)
    assert any("29S" in why for why in event.why)


def test_16_5_5_step_2_country_already_at_war_is_not_asked_and_markers_go():
    """16.5.5 Step 2: the first bullet only lets the Soviet faction end a Surrender (remove the marker,
    Posture to War); with Russia already at War there is nothing to choose, so the plan does not wait:
    the second bullet removes the Amur Japanese Dependent marker at once, Blagoveshchensk (w5727)
    being unguarded or not."""
    countries = {"Russia": {"faction": "Soviet", "status": "active", "posture": "War"}}
    state = position("Soviet", countries, [ceded("amur", "ceded_lands")])
    event = entry(run(state), "16.5.5")
    assert event.status == "fired" and not event.choices
    assert where(run(state), "cl_amur") == "force_pool:Axis"
