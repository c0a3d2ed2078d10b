"""16.1.1, 16.1.2, 16.1.4, 16.1.5 (Axis Permanent Conditional Events) on the DS pack."""

from __future__ import annotations

from tests.ds.helpers import ceded, entry, marker, position, run, unit, where

HOPEH_WESTERN = {"Hopeh": {"faction": "Western", "status": "active"},
                 "Russia": {"faction": "Soviet", "status": "active", "posture": "War"}}


def test_16_1_1_example_japan_conquers_hopeh_and_inner_mongolia_is_ceded():
    """16.1.1 example: port-a-fort removed from the game (Step 1), other Hopeh units to the Western
    Conquered Minors Box (Step 2), Inner Mongolia marker from the Axis Force Pool to the Ceded Lands
    Box (Step 3): Inner Mongolia is now a Japanese Dependent."""
    state = position(countries=HOPEH_WESTERN, counters=[
        ceded("inner_mongolia", "force_pool:Axis"),
        unit("jp_inf", "Japan", "w5322", steps=2),
        unit("hopeh_paf", "Hopeh", "force_pool:Western", kind="port_a_fort"),
        unit("hopeh_inf", "Hopeh", "force_pool:Western")])
    result = run(state)
    assert entry(result, "16.1.1").status == "fired"
    assert where(result, "hopeh_paf") == "removed"
    assert where(result, "hopeh_inf") == "conquered_minors:Western"
    assert where(result, "cl_inner_mongolia") == "ceded_lands"
    countries = result.resulting_position["countries"]
    assert countries["Hopeh"]["status"] == "conquered"


def test_16_1_1_not_conquered_while_a_city_is_unoccupied():
    state = position(countries=HOPEH_WESTERN, counters=[
        ceded("inner_mongolia", "force_pool:Axis"), unit("hopeh_inf", "Hopeh", "w5322")])
    assert entry(run(state), "16.1.1").status == "not_due"


def test_16_1_1_kiangsu_is_exempt_even_with_every_city_occupied():
    """16.1.1 Kansu and Kiangsu: "they cannot be conquered"."""
    countries = {"Kiangsu": {"faction": "Western", "status": "active"}}
    state = position(countries=countries, counters=[
        ceded("hainan", "force_pool:Axis"), unit("jp_inf", "Japan", "w4120")])
    result = run(state)
    assert result.resulting_position["countries"]["Kiangsu"]["status"] == "active"
    assert where(result, "cl_hainan") == "force_pool:Axis"


def _axis_hopeh(*counters):
    countries = {"Hopeh": {"faction": "Axis", "status": "active"},
                 "Russia": {"faction": "Soviet", "status": "active", "posture": "War"}}
    return position(countries=countries, counters=[ceded("inner_mongolia", "force_pool:Axis"), *counters])


def test_16_1_2_example_aex_hq_holding_a_hopeh_unit_does_not_occupy_hopeh():
    """16.1.2 example: the AEx HQ's Holding Box contains a Hopeh infantry unit."""
    state = _axis_hopeh(unit("aex", "Japan", "w5322", steps=3, kind="hq", multinational=True),
                        unit("hopeh_inf", "Hopeh", "holding:aex"))
    assert entry(run(state), "16.1.2").status == "not_due"


def test_16_1_2_aex_hq_without_a_hopeh_unit_occupies_hopeh():
    state = _axis_hopeh(unit("aex", "Japan", "w5322", steps=3, kind="hq", multinational=True))
    event = entry(run(state), "16.1.2")
    assert event.status == "waiting" and event.choices[0].id == "16.1.2:remedy:Hopeh"


def test_16_1_2_one_step_japanese_unit_does_not_occupy_but_multi_step_does():
    """16.1.2: 'a Japanese multi-step ground unit' causes Occupation; a one-step one does not."""
    assert entry(run(_axis_hopeh(unit("jp1", "Japan", "w5322"))), "16.1.2").status == "not_due"
    assert entry(run(_axis_hopeh(unit("jp2", "Japan", "w5322", steps=2))), "16.1.2").status == "waiting"


def test_16_1_2_showa_restoration_allows_one_japanese_multi_step_unit():
    """16.1.2 Showa Restoration exception: one Japanese multi-step unit does not cause Occupation..."""
    showa = marker("showa", "strategic_warfare", ["showa_restoration"])
    state = _axis_hopeh(showa, unit("jp_hq", "Japan", "w5322", steps=3, kind="hq"))
    event = entry(run(state), "16.1.2")
    assert event.status == "not_due"
    assert any("Showa Restoration" in why for why in event.why)


def test_16_1_2_showa_restoration_two_japanese_multi_step_units_still_occupy():
    """...but two or more Japanese multi-step units do."""
    showa = marker("showa", "strategic_warfare", ["showa_restoration"])
    state = _axis_hopeh(showa, unit("jp_a", "Japan", "w5322", steps=2),
                        unit("jp_b", "Japan", "w5322", steps=2))
    assert entry(run(state), "16.1.2").status == "waiting"


def test_16_1_2_showa_restoration_marker_elsewhere_has_no_effect():
    showa = marker("showa", "delay", ["showa_restoration"])
    state = _axis_hopeh(showa, unit("jp_hq", "Japan", "w5322", steps=3, kind="hq"))
    assert entry(run(state), "16.1.2").status == "waiting"


def _pact_with_britain(posture: str):
    pact = unit("bnp", "Japan", "conditional_events:Axis", kind="support", tags=["british_neutrality_pact"])
    return run(position(countries={"Britain": {"faction": "Western", "status": "active",
                                               "posture": posture}}, counters=[pact]))


def test_16_1_4_british_neutrality_pact_released_when_britain_not_neutral():
    """16.1.4: Britain's Posture is not Neutrality -> the support unit goes to the Delay Box."""
    result = _pact_with_britain("War")
    assert entry(result, "16.1.4").status == "fired"
    assert where(result, "bnp") == "delay"


def test_16_1_4_ignored_while_britain_is_neutral():
    result = _pact_with_britain("Neutrality")
    assert entry(result, "16.1.4").status == "ignored"
    assert where(result, "bnp") == "conditional_events:Axis"


def _government(location: str) -> dict:
    return marker("jgov", location, ["japanese_government"])


def test_16_1_5_cabinet_dissolution_is_the_axis_factions_choice():
    """16.1.5: the marker in its Holding Box MAY go to the Delay Box."""
    state = position(counters=[_government("holding:jgov")])
    assert entry(run(state), "16.1.5").status == "waiting"
    assert where(run(state, {"16.1.5:dissolve": "yes"}), "jgov") == "delay"
    assert where(run(state, {"16.1.5:dissolve": "no"}), "jgov") == "holding:jgov"


def test_16_1_5_not_due_when_the_government_marker_is_elsewhere():
    state = position(counters=[_government("turn_track:1942-1")])
    assert entry(run(state), "16.1.5").status == "not_due"


def test_16_1_1_a_listed_allied_dependent_is_never_conquered():
    """16.1.1 names Allied Minor Countries only: New Caledonia, a French Dependent (pack kind
    "dependent"), listed as an active Western country with Japan holding Noumea, is not conquered."""
    countries = {"New Caledonia": {"faction": "Western", "status": "active"}}
    state = position(countries=countries, counters=[unit("jp_inf", "Japan", "e1913", steps=2)])
    result = run(state)
    assert result.resulting_position["countries"]["New Caledonia"]["status"] == "active"
    assert all("New Caledonia" not in why for why in entry(result, "16.1.1").why)


def test_16_3_2_a_listed_axis_dependent_is_never_liberated():
    """16.3.2 liberates Axis or Soviet Minor Countries only: Korea (a Japanese Dependent) listed as an
    active Axis country with a Western unit in its only City stays Japanese."""
    countries = {"Korea": {"faction": "Axis", "status": "active"}}
    state = position("Western", countries=countries, counters=[unit("us_inf", "US", "w5027", steps=2)])
    result = run(state)
    assert result.resulting_position["countries"]["Korea"]["faction"] == "Axis"
    assert all("Korea" not in why for why in entry(result, "16.3.2").why)


def test_16_1_2_a_minor_country_that_is_a_dependent_is_checked_with_its_home_country():
    """16.1.2 "an Axis Minor Country or any of its Dependents": Indochina (a Minor Country and a French
    Dependent) is checked with Axis France, so a Japanese multi-step unit in Saigon occupies France --
    one remedy, asked once, for France."""
    countries = {"France": {"faction": "Axis", "status": "active"},
                 "Indochina": {"faction": "Axis", "status": "active"}}
    state = position(countries=countries, counters=[unit("jp_inf", "Japan", "w3619", steps=2)])
    event = entry(run(state), "16.1.2")
    assert event.status == "waiting"
    assert [c.id for c in event.choices] == ["16.1.2:remedy:France"]
