"""16.2.1, 16.2.2, 16.2.4 (Axis Option Cards), 16.3.9/16.3.10/16.5.6 (aid and Lend-Lease), 16.4.4,
16.4.5, and the shared reactivation/liberation events (16.3.1, 16.3.2, 16.5.1, 16.5.2) on the DS pack."""

from __future__ import annotations

import pytest

from tests.ds.helpers import ceded, entry, extended_pack, marker, position, run, unit, where

QUIET = {"16.1.5:dissolve": "no"}


def _axis_card(card, *counters, countries=None):
    return run(position("Axis", countries or {}, list(counters), cards={"Axis": card}), QUIET)


def test_16_2_1_army_program_air_force_to_the_delay_box_once():
    """16.2.1 Army Program: once per game, Air Force unit from the Axis Conditional Events Box."""
    af = unit("jp_af", "Japan", "conditional_events:Axis", kind="air", tags=["army_program"])
    result = _axis_card("army_program", af)
    assert entry(result, "16.2.1").status == "fired" and where(result, "jp_af") == "delay"
    again = run(position("Axis", {}, [af], cards={"Axis": "army_program"}, fired=["16.2.1"]), QUIET)
    assert entry(again, "16.2.1").status == "not_due"


def test_16_2_2_economic_program_logistics_marker():
    lm = marker("jp_log", "conditional_events:Axis", ["economic_program"], kind="logistics")
    assert where(_axis_card("economic_program", lm), "jp_log") == "delay"


def _political(*extra):
    counters = [unit("jp_col", "Japan", "conditional_events:Axis", tags=["political_program"]),
                marker("quit_india", "conditional_events:Axis", ["political_program", "quit_india"]), *extra]
    return _axis_card("political_program", *counters,
                      countries={"India": {"faction": "Western", "status": "active"}})


def test_16_2_4_political_program_units_and_quit_india_to_the_delay_box():
    result = _political()
    assert where(result, "jp_col") == "delay" and where(result, "quit_india") == "delay"


def test_16_2_4_quit_india_exception_japanese_unit_in_india(tmp_path):
    """16.2.4 Exception: a Japanese ground unit in a hex of Ceylon or India -> Quit India removed from the
    game. Rule 16 names no Indian hex, so the test adds one (test only)."""
    pack = extended_pack(tmp_path, '[hexes.w9941]\ncountry = "India"\ncity = true\n')
    counters = [unit("jp_col", "Japan", "conditional_events:Axis", tags=["political_program"]),
                marker("quit_india", "conditional_events:Axis", ["political_program", "quit_india"]),
                unit("jp_india", "Japan", "w9941")]
    state = position("Axis", {"India": {"faction": "Western", "status": "active"}}, counters,
                     cards={"Axis": "political_program"})
    result = run(state, QUIET, pack=pack)
    assert where(result, "quit_india") == "removed"
    assert where(result, "jp_col") == "delay"


def test_16_2_4_quit_india_marker_read_by_its_documented_tag_alone(tmp_path):
    """16.2.4 "Take the Political Program colonial infantry units and the Quit India marker from the Axis
    Conditional Events Box and place them in the Delay Box. Exception: If a Japanese ground unit occupies a
    hex in Ceylon or India ... remove the Quit India marker from the game." The marker carries only the
    `quit_india` tag docs/position-format.md lists (issue 22: it used to stay put without
    `political_program`)."""
    colonial = unit("jp_col", "Japan", "conditional_events:Axis", tags=["political_program"])
    only_tag = marker("quit_india", "conditional_events:Axis", ["quit_india"])
    result = _axis_card("political_program", colonial, only_tag,
                        countries={"India": {"faction": "Western", "status": "active"}})
    assert where(result, "quit_india") == "delay" and where(result, "jp_col") == "delay"
    pack = extended_pack(tmp_path, '[hexes.w9941]\ncountry = "India"\ncity = true\n')
    state = position("Axis", {"India": {"faction": "Western", "status": "active"}},
                     [colonial, only_tag, unit("jp_india", "Japan", "w9941")],
                     cards={"Axis": "political_program"})
    result = run(state, QUIET, pack=pack)
    assert where(result, "quit_india") == "removed"  # the Exception
    assert where(result, "jp_col") == "delay"


def test_16_3_9_aid_to_nationalist_china_rolls_once_per_marker():
    """16.3.9 Step 2: once for each Aid to China marker in the Western Conditional Events Box."""
    countries = {"Nationalist China": {"faction": "Western", "status": "active", "posture": "War"},
                 "France": {"faction": "Western", "status": "active"}}
    markers = [marker("aid1", "conditional_events:Western", ["aid_to_china"]),
               marker("aid2", "conditional_events:Western", ["aid_to_china"])]
    result = run(position("Western", countries, markers), {"16.3.9:roll": "yes"})
    rolls = [s for s in entry(result, "16.3.9").steps if s.action == "roll"]
    assert len(rolls) == 2


def test_16_3_9_step_1_western_aid_marker_in_an_allied_box_may_be_removed():
    countries = {"Nationalist China": {"faction": "Western", "status": "active", "posture": "War"},
                 "France": {"faction": "Western", "status": "active"}}
    own = marker("w_aid", "conditional_events:Soviet", ["western_aid_to_china", "aid_to_china"])
    result = run(position("Western", countries, [own]), {"16.3.9:step1": "remove"})
    assert where(result, "w_aid") == "removed"


def test_16_3_10_lend_lease_to_britain_uses_the_shared_event():
    countries = {"Britain": {"faction": "Western", "status": "active", "posture": "War"},
                 "France": {"faction": "Western", "status": "active"}}
    ll = marker("ll", "conditional_events:Western", ["lend_lease"])
    result = run(position("Western", countries, [ll]), {"16.3.10:marker": "leave"})
    assert entry(result, "16.3.10").status == "fired"
    assert any(s.action == "roll" for s in entry(result, "16.3.10").steps)


def test_16_4_4_colonial_liberation_philippines():
    """16.4.4: the Philippines an Axis Country, a supplied US ground unit in Manila (w3824)."""
    countries = {"Philippines": {"faction": "Axis", "status": "active"},
                 "France": {"faction": "Western", "status": "active"}}
    counters = [unit("us_inf", "US", "w3824", supplied=True), unit("ph_inf", "Philippines", "w3824"),
                unit("ph_ds", "Philippines", "force_pool:Axis", delay_stripe=True)]
    state = position("Western", countries, counters, cards={"Western": "colonial_liberation"})
    result = run(state, {"16.4.4:country": "Philippines"})
    assert result.resulting_position["countries"]["Philippines"]["faction"] == "Western"
    assert where(result, "ph_inf") == "force_pool:Western" and where(result, "ph_ds") == "delay"


def test_16_4_4_not_due_without_a_supplied_us_unit():
    countries = {"Philippines": {"faction": "Axis", "status": "active"},
                 "France": {"faction": "Western", "status": "active"}}
    state = position("Western", countries, [unit("us_inf", "US", "w3824", supplied=False)],
                     cards={"Western": "colonial_liberation"})
    assert entry(run(state), "16.4.4").status == "not_due"


@pytest.fixture(scope="module")
def ph_pack(tmp_path_factory):
    return extended_pack(tmp_path_factory.mktemp("ds_ph"), '[hexes.w9950]\ncountry = "Philippines"\n'
                         'city = true\nname = "a second Philippine City (test only)"\n')


def test_16_4_5_operation_avalanche_removes_port_a_fort_and_places_no_occupation(ph_pack):
    """16.4.5 Step 1 removes port-a-forts (DS), Step 3 places a No Occupation marker in the Capital."""
    # The US is a Western Major Power (pack faction): with Manila its only City, 16.3.2 would liberate
    # the Philippines first, so a second, Axis-held City (test only) keeps it an Axis Minor for 16.4.5.
    countries = {"Philippines": {"faction": "Axis", "status": "active"},
                 "France": {"faction": "Western", "status": "active"}}
    counters = [unit("us_inf", "US", "w3824", supplied=True),
                unit("ph_paf", "Philippines", "w3824", kind="port_a_fort"),
                unit("jp_other", "Japan", "w9950"),
                marker("no_occ", "set_aside", ["no_occupation"])]
    state = position("Western", countries, counters, cards={"Western": "operation_avalanche"})
    result = run(state, {"16.4.5:country": "Philippines"}, pack=ph_pack)
    assert where(result, "ph_paf") == "removed"
    assert where(result, "no_occ") == "w3824"


def test_16_5_2_soviet_liberation_of_an_axis_minor_places_soviet_ceded_marker():
    """16.5.2: Soviet ground units in all Cities of an Axis Minor -> liberated, Step 3 ceded marker."""
    countries = {"Hopeh": {"faction": "Axis", "status": "active"},
                 "Russia": {"faction": "Soviet", "status": "active", "posture": "War"}}
    state = position("Soviet", countries, [
        {"id": "cl_im", "kind": "ceded_land", "area": "inner_mongolia", "location": "force_pool:Axis"},
        unit("ru_inf", "Russia", "w5322"), unit("hopeh_inf", "Hopeh", "force_pool:Axis")])
    result = run(state)
    assert entry(result, "16.5.2").status == "fired"
    assert result.resulting_position["countries"]["Hopeh"]["faction"] == "Soviet"
    assert where(result, "hopeh_inf") == "force_pool:Soviet"


def test_16_2_2_not_due_when_the_marker_has_already_left_the_box():
    lm = marker("jp_log", "delay", ["economic_program"], kind="logistics")
    assert entry(_axis_card("economic_program", lm), "16.2.2").status == "not_due"


def test_16_3_9_no_roll_while_nationalist_china_is_not_at_war():
    countries = {"Nationalist China": {"faction": "Western", "status": "active", "posture": "Neutrality"},
                 "France": {"faction": "Western", "status": "active"}}
    aid = marker("aid1", "conditional_events:Western", ["aid_to_china"])
    assert entry(run(position("Western", countries, [aid])), "16.3.9").status == "not_due"


def test_16_3_6_western_european_reserves_when_britain_at_war():
    """16.3.6 (*): Britain's Posture War -> Western Limited War Reserves to the Delay Box (standalone DS)."""
    countries = {"Britain": {"faction": "Western", "status": "active", "posture": "War"},
                 "France": {"faction": "Western", "status": "active"}}
    lwr = marker("w_lwr", "conditional_events:Western", ["western_limited_war_reserves"])
    twr = marker("w_twr", "conditional_events:Western", ["western_total_war_reserves"])
    result = run(position("Western", countries, [lwr, twr], war_state="Pre-War"))
    assert where(result, "w_lwr") == "delay" and where(result, "w_twr") == "conditional_events:Western"


def test_16_4_5_not_due_without_a_supplied_us_unit_in_a_city():
    countries = {"Philippines": {"faction": "Axis", "status": "active"},
                 "France": {"faction": "Western", "status": "active"}}
    state = position("Western", countries, [unit("us_inf", "US", "w3824", supplied=False)],
                     cards={"Western": "operation_avalanche"})
    assert entry(run(state), "16.4.5").status == "not_due"


def test_16_3_1_reactivation_of_a_conquered_western_minor():
    """16.3.1: the Capital (Manila w3824) holds no enemy unit -> the Western faction may reactivate;
    Step 1 its Res infantry on the Capital, Step 2 the rest to the Western Force Pool."""
    countries = {"Philippines": {"faction": "Western", "status": "conquered"},
                 "France": {"faction": "Western", "status": "active"}}
    state = position("Western", countries, [
        unit("ph_res", "Philippines", "conquered_minors:Western", tags=["res_infantry"]),
        unit("ph_inf", "Philippines", "conquered_minors:Western")])
    result = run(state, {"16.3.1:reactivate:Philippines": "w3824"})
    assert where(result, "ph_res") == "w3824" and where(result, "ph_inf") == "force_pool:Western"
    blocked = position("Western", countries, [unit("jp", "Japan", "w3824"),
                                              unit("ph_res", "Philippines", "conquered_minors:Western")])
    assert entry(run(blocked), "16.3.1").status == "not_due"


# Test-only Ceded Land areas inside Hopeh whose markers start in each Allied Force Pool: the DS pack
# has none (rule 16 names none), but the Step 3 difference between 16.3.2 and 16.5.2 needs one.
_HOPEH_CEDED = """
[areas.test_hopeh_w]
name = "Test Hopeh (Western)"
country = "Hopeh"
ceded_to = "Britain"
marker_faction = "Western"
[areas.test_hopeh_s]
name = "Test Hopeh (Soviet)"
country = "Hopeh"
ceded_to = "Russia"
marker_faction = "Soviet"
"""


def _liberated_hopeh(tmp_path, phasing: str, liberator: str):
    pack = extended_pack(tmp_path, _HOPEH_CEDED)
    countries = {"Hopeh": {"faction": "Axis", "status": "active"},
                 "Russia": {"faction": "Soviet", "status": "active", "posture": "War"},
                 "Britain": {"faction": "Western", "status": "active", "posture": "War"}}
    state = position(phasing, countries, [
        ceded("test_hopeh_w", "force_pool:Western"), ceded("test_hopeh_s", "force_pool:Soviet"),
        unit("lib_inf", liberator, "w5322"), unit("hopeh_inf", "Hopeh", "force_pool:Axis")])
    return run(state, pack=pack)


def test_16_3_2_ds_liberation_has_no_ceded_marker_step(tmp_path):
    """DS 16.3.2 ends at Step 2 (pack `ceded_step = false`): a Western-pool Ceded Land marker for an area
    in the liberated Country stays in the Western Force Pool (TK 16.3.2 Step 3 would place it)."""
    result = _liberated_hopeh(tmp_path, "Western", "Britain")
    assert entry(result, "16.3.2").status == "fired"
    assert result.resulting_position["countries"]["Hopeh"]["faction"] == "Western"
    assert where(result, "cl_test_hopeh_w") == "force_pool:Western"
    assert not [s for s in entry(result, "16.3.2").steps if s.step == "Step 3"]


def test_16_5_2_ds_liberation_step_3_places_the_soviet_ceded_marker(tmp_path):
    """DS 16.5.2 Step 3: a Ceded Land marker in the Soviet Force Pool for an area within the Country goes
    to the Ceded Lands Box."""
    result = _liberated_hopeh(tmp_path, "Soviet", "Russia")
    assert entry(result, "16.5.2").status == "fired"
    assert where(result, "cl_test_hopeh_s") == "ceded_lands"
