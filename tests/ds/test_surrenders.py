"""16.4.1 British, 16.4.2 Nationalist Chinese, 16.4.3 US, 16.6.1 Communist Chinese, 16.6.2 Russian
Surrender (Option Card events; the card is the condition)."""

from __future__ import annotations

import pytest

from rules.events.ds.settlements import one_year_ahead
from rules.packs import load_pack
from tests.ds.helpers import DS, ceded, entry, extended_pack, marker, position, run, unit, where

WEST = {"Britain": {"faction": "Western", "status": "active", "posture": "War"},
        "US": {"faction": "Western", "status": "active", "posture": "War"},
        "Nationalist China": {"faction": "Western", "status": "active", "posture": "War"},
        "France": {"faction": "Western", "status": "active", "posture": "War"}}


def _british(*counters, answers=None):
    state = position("Western", WEST, [
        ceded("malaya_jd", "force_pool:Axis"), ceded("burma_jd", "force_pool:Axis"),
        ceded("okinawa_gb", "ceded_lands"),
        marker("gb_peace", "set_aside", ["enforced_peace_britain"]), *counters], cards={"Western": "29W"})
    return run(state, answers or {"16.4.1:influence": "none"})


def test_one_year_ahead_follows_the_16_2_5_example():
    """16.2.5 Step 1 example: July-Aug 1940 -> July-Aug 1941."""
    assert one_year_ahead("Jul-Aug 1940") == "Jul-Aug 1941"
    assert one_year_ahead("1940-07") == "1941-07"  # the position format's YYYY-MM


def test_16_4_1_british_surrender_steps_1_to_3():
    """Step 1 Surrender Policy + Enforced Peace one year ahead; Step 2 British Ceded Land (Okinawa)
    returned; Step 3 a supplied Japanese unit in Singapore (w3218) makes Malaya a Japanese Dependent."""
    result = _british(unit("jp_sing", "Japan", "w3218", supplied=True))
    assert entry(result, "16.4.1").status == "fired"
    assert "Surrender" in result.resulting_position["countries"]["Britain"]["markers"]
    assert where(result, "gb_peace") == "turn_track:1942-07"
    assert where(result, "cl_okinawa_gb") == "force_pool:Western"
    assert where(result, "cl_malaya_jd") == "ceded_lands"
    assert where(result, "cl_burma_jd") == "force_pool:Axis"
    malaya = next(c for c in result.resulting_position["counters"] if c["id"] == "cl_malaya_jd")
    assert "settlement_dependent" in malaya["tags"], "16.7 needs to know the Dependent came by Surrender"


def test_16_4_1_step_1_surrender_policy_marker_ends_britains_war_posture():
    """16.4.1 Step 1 places a Surrender Policy marker; 16.3.8 "remove the Surrender marker ... and change
    Britain's Posture to War" says the marker stands instead of War: the resulting position has no War
    posture for Britain, and it is a valid position for the next turn (no contradiction refused)."""
    from rules.state import GameState

    result = _british(unit("jp_sing", "Japan", "w3218", supplied=True))
    britain = result.resulting_position["countries"]["Britain"]
    assert "Surrender" in britain["markers"] and britain.get("posture") != "War"
    GameState.from_json(result.resulting_position)  # parses
    run(GameState.from_json(result.resulting_position), {})  # and the engine accepts it


def test_16_4_1_unsupplied_japanese_unit_cedes_nothing_and_is_interned_step_5():
    """Step 3 needs a SUPPLIED unit; Step 5 interns Axis units left in British Dependents (Rangoon)."""
    result = _british(unit("jp_sing", "Japan", "w3218", supplied=True),
                      unit("jp_rangoon", "Japan", "w4015", supplied=False))
    assert where(result, "cl_burma_jd") == "force_pool:Axis"
    assert where(result, "jp_rangoon") == "pending:Axis"
    assert where(result, "jp_sing") == "w3218", "units in the new Japanese Dependent stay"


def test_16_4_1_steps_6_and_7_intern_british_outside_and_other_allies_inside():
    result = _british(unit("jp_sing", "Japan", "w3218", supplied=True),
                      unit("gb_manila", "Britain", "w3824"), unit("us_rangoon", "US", "w4015"))
    assert where(result, "gb_manila") == "pending:Western"
    assert where(result, "us_rangoon") == "pending:Western"


def test_16_4_1_step_4_no_marker_placed_axis_may_select_one():
    result = _british(answers={})
    event = entry(result, "16.4.1")
    assert event.status == "waiting" and event.choices[-1].id == "16.4.1:select_region"
    chosen = _british(answers={"16.4.1:select_region": "burma_jd", "16.4.1:influence": "none"})
    assert where(chosen, "cl_burma_jd") == "ceded_lands"


def _russian(*counters, pack=DS):
    countries = {"Russia": {"faction": "Soviet", "status": "active", "posture": "War"}}
    markers = [ceded("siberia", "force_pool:Axis"), ceded("amur", "force_pool:Axis")]
    state = position("Soviet", countries, [*markers, *counters], cards={"Soviet": "25"})
    return run(state, {"16.6.2:influence": "none", "16.6.2:select_region": "none"}, pack=pack)


def test_16_6_2_russian_surrender_blagoveshchensk_cedes_amur_and_interns_russians_inside():
    """Step 3: supplied Japanese unit in Blagoveshchensk (w5727) -> Amur; Step 5 interns Axis units
    elsewhere in Russia; Step 6 interns Russian units outside Russia."""
    result = _russian(unit("jp_blag", "Japan", "w5727", supplied=True), unit("jp_chita", "Japan", "w5824"),
                      unit("ru_korea", "Russia", "w5027"))
    assert where(result, "cl_amur") == "ceded_lands"
    assert where(result, "jp_chita") == "pending:Axis"
    assert where(result, "jp_blag") == "w5727"
    assert where(result, "ru_korea") == "pending:Soviet"


def test_16_6_2_irkutsk_erratum_default_w5817_and_option_w5821(tmp_path):
    """Errata irkutsk: 16.6.2 prints w5821, 16.2.5 w5817; the pack uses w5817 unless told otherwise."""
    at_5821 = unit("jp_irk", "Japan", "w5821", supplied=True)
    assert where(_russian(at_5821), "cl_siberia") == "force_pool:Axis"
    assert where(_russian(unit("jp_irk", "Japan", "w5817", supplied=True)), "cl_siberia") == "ceded_lands"
    for source in DS.path.glob("*.toml"):
        text = source.read_text(encoding="utf-8")
        if source.name == "errata.toml":
            text = text.replace("[options]\n", '[options]\nirkutsk = "as_printed"\n')
        (tmp_path / source.name).write_text(text, encoding="utf-8")
    assert where(_russian(at_5821, pack=load_pack(tmp_path)), "cl_siberia") == "ceded_lands"


# Hopeh's and Kiangsu's own Cities are not named by rule 16 (Kalgan and Haikou lie in the areas that
# Step 3 cedes), so these tests add one City each, marked test-only.
CHINESE_CITIES = """
[hexes.w9901]
country = "Hopeh"
city = true
name = "a Hopeh City (test only)"

[hexes.w9902]
country = "Kiangsu"
city = true
name = "a Kiangsu City (test only)"
"""


@pytest.fixture(scope="module")
def ds_plus(tmp_path_factory):
    return extended_pack(tmp_path_factory.mktemp("ds_plus"), CHINESE_CITIES)


def _nationalist(*counters, pack=DS):
    countries = {**WEST, "Hopeh": {"faction": "Western", "status": "active"},
                 "Kiangsu": {"faction": "Western", "status": "active"}}
    state = position("Western", countries, [
        ceded("inner_mongolia", "force_pool:Axis"), ceded("hainan", "force_pool:Axis"),
        ceded("kiangsu_jd", "force_pool:Axis"), ceded("shanghai", "ceded_lands"), *counters],
        cards={"Western": "22"})
    return run(state, {"16.4.2:influence": "none"}, pack=pack)


def test_16_4_2_nationalist_surrender_steps_2_and_3():
    """Step 2: Chinese Ceded Land (Shanghai) returned; Step 3: Inner Mongolia and Hainan markers placed."""
    result = _nationalist()
    assert where(result, "cl_shanghai") == "force_pool:Western"
    assert where(result, "cl_inner_mongolia") == "ceded_lands" and where(result, "cl_hainan") == "ceded_lands"


def test_16_4_2_step_4_hopeh_with_a_japanese_unit_collapses(ds_plus):
    """Step 4: an active Western Chinese Minor (not Kiangsu) with a Japanese unit is Conquered; its
    Delay-Stripe units leave the game, the rest go to the Western Conquered Minor Country Box."""
    result = _nationalist(unit("jp_hopeh", "Japan", "w9901"),
                          unit("hopeh_a", "Hopeh", "force_pool:Western", delay_stripe=True),
                          unit("hopeh_b", "Hopeh", "force_pool:Western"), pack=ds_plus)
    assert result.resulting_position["countries"]["Hopeh"]["status"] == "conquered"
    assert where(result, "hopeh_a") == "removed"
    assert where(result, "hopeh_b") == "conquered_minors:Western"


def test_16_4_2_step_5_kiangsu_with_a_japanese_unit_becomes_a_japanese_dependent(ds_plus):
    """Step 5 (Kiangsu exception): Kiangsu becomes a Japanese Dependent instead of collapsing."""
    result = _nationalist(unit("jp_kiangsu", "Japan", "w9902"),
                          unit("kiangsu_a", "Kiangsu", "force_pool:Western"), pack=ds_plus)
    assert where(result, "cl_kiangsu_jd") == "ceded_lands"
    assert result.resulting_position["countries"]["Kiangsu"]["status"] == "active"


def test_16_4_2_step_5_kiangsu_without_a_japanese_unit_stays():
    """Haikou (w4120) is in Hainan, ceded in Step 3: a Japanese unit there is not 'in Kiangsu'."""
    assert where(_nationalist(unit("jp_haikou", "Japan", "w4120")), "cl_kiangsu_jd") == "force_pool:Axis"


def test_16_4_3_us_surrender_manila_makes_the_philippines_a_japanese_dependent():
    """16.4.3 Step 3: supplied Japanese unit in Manila (w3824) -> The Philippines."""
    state = position("Western", WEST, [ceded("philippines_jd", "force_pool:Axis"),
                                       unit("jp_manila", "Japan", "w3824", supplied=True)],
                     cards={"Western": "37"})
    result = run(state, {"16.4.3:influence": "none"})
    assert where(result, "cl_philippines_jd") == "ceded_lands"
    # Step 1 "Place a Surrender Policy marker in the US and Western Minors Posture Box" (shared box).
    assert result.resulting_position["posture_boxes"]["US and Western Minors"]["markers"] == ["Surrender"]


def test_16_6_1_communist_surrender_kansu_becomes_a_japanese_dependent():
    """16.6.1 Step 5 (Kansu): a Japanese marker in Kansu makes it a Japanese Dependent. The pack has no
    Kansu hex, so the test shows the not-placed branch: no Japanese unit -> no marker."""
    countries = {"Communist China": {"faction": "Soviet", "status": "active", "posture": "War"},
                 "Kansu": {"faction": "Soviet", "status": "active"}}
    markers = [ceded("kansu_jd", "force_pool:Axis"), ceded("inner_mongolia", "force_pool:Axis")]
    state = position("Soviet", countries, markers, cards={"Soviet": "29S"})
    result = run(state, {"16.6.1:influence": "none"})
    assert entry(result, "16.6.1").status == "fired"
    assert where(result, "cl_kansu_jd") == "force_pool:Axis"
    assert where(result, "cl_inner_mongolia") == "ceded_lands"


def test_16_4_3_step_6_philippine_units_at_home_are_not_interned():
    """16.4.3 Step 6 interns active non-Chinese Western Minor units "outside ... their Home Countries":
    a Philippine unit in Manila (w3824) is at home (the Philippines is also a US Dependent), so it stays;
    one in Guam (e3806) is outside its Home Country and is interned."""
    countries = {**WEST, "Philippines": {"faction": "Western", "status": "active"}}
    state = position("Western", countries, [
        ceded("philippines_jd", "force_pool:Axis"),
        unit("ph_manila", "Philippines", "w3824"), unit("ph_guam", "Philippines", "e3806")],
        cards={"Western": "37"})
    result = run(state, {"16.4.3:influence": "none", "16.4.3:select_region": "none"})
    assert where(result, "ph_manila") == "w3824"
    assert where(result, "ph_guam") == "pending:Western"


def test_16_4_2_steps_6_and_7_chinese_minor_units_at_home_are_nationalist_chinese(ds_plus):
    """16.4.2 Step 7 interns "all OTHER Allied units inside active Nationalist Chinese Countries": the
    units of an active Western Chinese Minor (Hopeh, no Japanese unit in it, so it did not collapse in
    Step 4) are Nationalist Chinese units in their Home Countries (Step 6), not "other Allied" ones, and
    stay; a US unit there is interned (Step 7), and a Hopeh unit in Guam (e3806) is outside (Step 6)."""
    result = _nationalist(unit("hopeh_home", "Hopeh", "w9901"), unit("us_hopeh", "US", "w9901"),
                          unit("hopeh_guam", "Hopeh", "e3806"), pack=ds_plus)
    assert result.resulting_position["countries"]["Hopeh"]["status"] == "active"
    assert where(result, "hopeh_home") == "w9901"
    assert where(result, "us_hopeh") == "pending:Western"
    assert where(result, "hopeh_guam") == "pending:Western"


def test_16_4_3_step_5_axis_units_in_a_conquered_philippines_are_not_interned():
    """16.4.3 Step 5: "Do not intern ... units inside a conquered Allied country": a Japanese unit in
    Manila (w3824, unsupplied, so Step 3 cedes nothing) of a conquered Philippines -- also a US
    Dependent -- stays; one in Guam (e3806), a US Dependent, is interned."""
    countries = {**WEST, "Philippines": {"faction": "Western", "status": "conquered"}}
    state = position("Western", countries, [
        ceded("philippines_jd", "force_pool:Axis"),
        unit("jp_manila", "Japan", "w3824", supplied=False),
        unit("jp_guam", "Japan", "e3806", supplied=False)],
        cards={"Western": "37"})
    result = run(state, {"16.4.3:influence": "none", "16.4.3:select_region": "none"})
    assert where(result, "jp_manila") == "w3824"
    assert where(result, "jp_guam") == "pending:Axis"
