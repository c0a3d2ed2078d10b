"""Issue 12, Dai Senso! items: each test cites the clause that failed before the fix."""

from __future__ import annotations

import pytest

from rules.packs import load_pack
from rules.plan import Plan
from rules.state import GameState
from tests.ds.helpers import DS, ceded, entry, extended_pack, marker, position, run, unit, where
from vassal_parser.errors import InputError


def _russian(*counters, pack=DS) -> Plan:
    countries = {"Russia": {"faction": "Soviet", "status": "active", "posture": "War"}}
    markers = [ceded("siberia", "force_pool:Axis"), ceded("amur", "force_pool:Axis")]
    state = position("Soviet", countries, [*markers, *counters], cards={"Soviet": "25"})
    return run(state, {"16.6.2:influence": "none", "16.6.2:select_region": "none"}, pack=pack)


def _concessions(*extra, card="concessions_russia", countries=None, pack=DS, answers=None) -> Plan:
    countries = countries or {"Russia": {"faction": "Soviet", "status": "active", "posture": "War"}}
    counters = [ceded("kirin", "force_pool:Soviet"), ceded("heilungkiang", "force_pool:Soviet"),
                ceded("liaoning", "force_pool:Soviet"),
                marker("jgov", "holding:jgov", ["japanese_government"]), *extra]
    state = position("Axis", countries, counters, cards={"Axis": card})
    return run(state, {"16.1.5:dissolve": "no", **(answers or {})}, pack=pack)


# ---- item 7: errata are surfaced in text, JSON (and so the overlay) -----------------------------------
def test_item7_16_6_2_step_3_irkutsk_reading_is_shown_with_alternatives_and_option():
    """16.6.2 Step 3 prints "Irkutsk (w5821)", 16.2.5 Step 4 w5817: the Step that checks w5817 must say
    it applies erratum irkutsk, name the other readings and the option that switches it."""
    result = _russian(unit("jp_irk", "Japan", "w5821", supplied=True))
    event = entry(result, "16.6.2")
    notes = [n for n in event.errata if n.key == "irkutsk"]
    assert len(notes) == 1 and notes[0].step == "Step 3" and notes[0].reading == "w5817"
    assert {r for r, _ in notes[0].alternatives} == {"w5821", "as_printed"}
    data = event.to_json()["errata"][0]
    assert data["key"] == "irkutsk" and data["option"] == '[options] irkutsk = "<reading>"'
    assert [a["reading"] for a in data["alternatives"]] == ["w5821", "as_printed"]
    text = result.render_text()
    assert "erratum irkutsk (16.6.2 Step 3)" in text and "Used: w5817" in text
    assert '[options] irkutsk = "<reading>"' in text
    assert where(result, "cl_siberia") == "force_pool:Axis"  # the reading in force, now said aloud


def test_item7_16_2_6_tsitsihar_and_concessions_mandates_are_surfaced():
    """16.2.6 Step 4: Tsitsihar printed w5226 like Mukden (erratum mukden_tsitsihar); Eniwetok / Palau /
    Truk listed under Britain and the US (erratum concessions_mandates) -- both applied with a note."""
    russia = _concessions(unit("ru_w5226", "Russia", "w5226", supplied=True))
    keys = {(n.key, n.step) for n in entry(russia, "16.2.6").errata}
    assert ("mukden_tsitsihar", "Step 4") in keys
    britain = {"Britain": {"faction": "Western", "status": "active", "posture": "War"}}
    british = _concessions(unit("gb_eni", "Britain", "e3612", supplied=True),
                           ceded("marshall_islands_gb", "force_pool:Western"),
                           card="concessions_britain", countries=britain)
    assert ("concessions_mandates", "Step 4") in {(n.key, n.step) for n in entry(british, "16.2.6").errata}


def test_item7_card_29_reading_is_shown_where_the_rises_card_test_decides():
    """16.3.8 Step 2 "Ignore this step if the Western Current Card is card 29 Commonwealth Surrender":
    which deck's 29 is an erratum (card_29), shown when the test ignores the Step or the Step acts."""
    britain = {"Britain": {"faction": "Western", "status": "active", "posture": "War"}}
    acting = run(position("Western", britain, [ceded("burma_jd", "ceded_lands")]))
    assert ("card_29", "Step 2") in {(n.key, n.step) for n in entry(acting, "16.3.8").errata}
    ignored = run(position("Western", britain, [ceded("burma_jd", "ceded_lands")], cards={"Western": "29"}),
                  {"16.4.1:influence": "none", "16.4.1:select_region": "none"})
    assert ("card_29", "Step 2") in {(n.key, n.step) for n in entry(ignored, "16.3.8").errata}
    quiet = run(position("Western", britain))
    assert "card_29" not in {n.key for n in entry(quiet, "16.3.8").errata}


def test_item7_no_erratum_note_where_no_reading_is_applied():
    """A Russian Surrender with no doubled place: 16.2.6 is not checked, no erratum shown on 16.6.2 but
    irkutsk (its Step 3 list holds Irkutsk)."""
    event = entry(_russian(), "16.6.2")
    assert [n.key for n in event.errata] == ["irkutsk"]


# ---- item 8: a British Ceded Land marker moves the Marshall Islands -----------------------------------
def test_item8_16_2_6_step_7_does_not_intern_the_british_unit_at_eniwetok():
    """16.2.6 Step 7 Clarification: "Do not intern those units inside a SAC Dependent or Ceded Land
    created" -- Step 4 has just made the Marshall Islands (Eniwetok e3612) a British Dependent."""
    britain = {"Britain": {"faction": "Western", "status": "active", "posture": "War"}}
    result = _concessions(unit("gb_eni", "Britain", "e3612", supplied=True),
                          ceded("marshall_islands_gb", "force_pool:Western"),
                          card="concessions_britain", countries=britain)
    assert where(result, "cl_marshall_islands_gb") == "ceded_lands"
    assert where(result, "gb_eni") == "e3612"


# ---- item 18 (DS part): Tsitsihar is not printed as Mukden --------------------------------------------
def test_item18_16_2_6_step_4_names_tsitsihar_not_mukden_twice():
    """16.2.6 Step 4 Russia list: "Mukden (w5226) - Liaoning", "Tsitsihar (w5226) - Heilungkiang"."""
    event = entry(_concessions(unit("ru_w5226", "Russia", "w5226", supplied=True)), "16.2.6")
    lines = [w for w in event.why if "w5226" in w]
    assert any("Mukden (w5226)" in w for w in lines) and any("Tsitsihar (w5226)" in w for w in lines)


# ---- item 12: "card 29" as the text writes it -----------------------------------------------------------
def test_item12_bare_card_number_accepted_where_one_card_of_the_faction_has_it():
    """16.5.5 Step 1 "card 29 Communist Chinese Surrender": Soviet card "29" is the Soviet deck's 29S."""
    state = position("Soviet", {"Communist China": {"faction": "Soviet", "status": "active",
                                                    "posture": "War"}}, cards={"Soviet": "29"})
    result = run(state, {"16.6.1:influence": "none"})
    assert [e.rule for e in result.events if e.source == "card:29S"] == ["16.6.1"]


def test_item12_ambiguous_card_number_names_the_ids():
    """Axis "37" is none of the Axis Settlement cards 37a-37e alone, and 37 is the Western US Surrender:
    the message names the ids that exist."""
    state = position("Axis", cards={"Axis": "37"})
    with pytest.raises(InputError) as err:
        run(state)
    message = str(err.value)
    assert "37a (Axis: British Settlement)" in message and "37 (Western: US Surrender)" in message
    unknown = position("Western", cards={"Western": "card 99"})
    with pytest.raises(InputError, match="is not in pack ds"):
        run(unknown)


# ---- item 13: the Major Powers' factions come from the pack -------------------------------------------
def test_item13_japan_left_out_is_axis_from_the_pack():
    """16.1.1 "If Axis ground units occupy all City ... hexes": a Japanese unit is an Axis ground unit
    although the position leaves Japan out (pack faction, as in TK)."""
    data = {"pack": "ds", "turn": {"date": "1941-07", "phasing": "Axis"},
            "countries": {"Hopeh": {"faction": "Western", "status": "active"}},
            "counters": [unit("jp_1", "Japan", "w5322")]}
    result = run(GameState.from_json(data, source="test-position"), {"16.1.5:dissolve": "no"})
    assert entry(result, "16.1.1").status == "fired"
    assert result.resulting_position["countries"]["Japan"]["faction"] == "Axis"


def test_item13_major_without_faction_in_pack_or_position_is_refused(tmp_path):
    for source in DS.path.glob("*.toml"):
        text = source.read_text(encoding="utf-8")
        text = text.replace('"Japan" = { kind = "major", region = "Pacific", faction = "Axis" }',
                            '"Japan" = { kind = "major", region = "Pacific" }')
        (tmp_path / source.name).write_text(text, encoding="utf-8")
    pack = load_pack(tmp_path)
    state = GameState.from_json({"pack": "ds", "turn": {"phasing": "Axis"}, "countries": {},
                                 "counters": []}, source="pos.json")
    with pytest.raises(InputError, match="Major Power Japan"):
        run(state, pack=pack)


# ---- item 11: DS port-a-forts flip to their infantry sides ----------------------------------------------
def test_item11_16_7_port_a_fort_flipped_to_its_infantry_side():
    """DS 16.7 "Port-a-Fort units are flipped to their infantry sides" (TK: "infantry or mech")."""
    state = position("Axis", {"Hopeh": {"faction": "Neutral", "status": "neutral"}},
                     [unit("jp_paf", "Japan", "w5322", kind="port_a_fort")])
    result = run(state, {"16.1.5:dissolve": "no"})
    flips = [s.text for s in entry(result, "16.1.6").steps if s.action == "flip"]
    assert flips and flips[0].endswith("Port-a-Fort flipped to its infantry side")
    assert where(result, "jp_paf") == "pending:Axis"


# ---- item 10: re-created countries ----------------------------------------------------------------------
def test_item10_16_6_2_step_2_recreates_mongolia_as_an_axis_minor():
    """16.6.2 Step 2 "Remove all Russian Ceded Land markers ... If Mongolia or Tannu Tuva is re-created as a
    result of this, that country becomes an Axis Minor Country; place its units in the Axis Force Pool"."""
    result = _russian(ceded("mongolia_ru", "ceded_lands"), ceded("korea_ru", "ceded_lands"),
                      unit("mon_cav", "Mongolia", "set_aside"))
    assert where(result, "cl_mongolia_ru") == "force_pool:Soviet"
    assert where(result, "cl_korea_ru") == "force_pool:Soviet"  # "all", not a fixed list
    assert result.resulting_position["countries"]["Mongolia"]["faction"] == "Axis"
    assert result.resulting_position["countries"]["Mongolia"]["status"] == "active"
    assert where(result, "mon_cav") == "force_pool:Axis"
    assert "Tannu Tuva" not in result.resulting_position["countries"]  # its land never left


def test_item10_16_2_5_step_3_recreates_tannu_tuva_under_erratum_both(tmp_path):
    """16.2.5 Step 3 names Mongolia only; erratum mongolia_tannu_tuva (used: both) adds Tannu Tuva, and
    the Step says it applies that reading."""
    strategic = "".join(f'\n[hexes.w99{n}]\ncountry = "Russia"\nstrategic = true\ncity = true\n'
                        f'name = "Russian Strategic Hex {n} (test only)"\n' for n in (11, 12, 13))
    pack = extended_pack(tmp_path, strategic)
    counters = [unit(f"jp_s{n}", "Japan", f"w99{n}") for n in (11, 12, 13)]
    counters += [ceded("tannu_tuva_ru", "ceded_lands"), unit("tt_inf", "Tannu Tuva", "set_aside")]
    countries = {"Russia": {"faction": "Soviet", "status": "active", "posture": "War"}}
    state = position("Axis", countries, counters, cards={"Axis": "37d"})
    result = run(state, {"16.1.5:dissolve": "no", "16.2.5:influence": "none"}, pack=pack)
    assert result.resulting_position["countries"]["Tannu Tuva"]["faction"] == "Axis"
    assert where(result, "tt_inf") == "force_pool:Axis"
    assert ("mongolia_tannu_tuva", "Step 3") in {(n.key, n.step) for n in entry(result, "16.2.5").errata}


# ---- item 9: shared Posture Boxes ------------------------------------------------------------------------
def _strategic_pack(tmp_path):
    strategic = "".join(f'\n[hexes.w99{n}]\ncountry = "Russia"\nstrategic = true\ncity = true\n'
                        f'name = "Russian Strategic Hex {n} (test only)"\n' for n in (11, 12))
    return extended_pack(tmp_path, strategic)


def test_item9_16_2_5_step_1_truce_goes_in_every_sac_posture_box(tmp_path):
    """16.2.5 Step 1 (one or two hexes) "Place a Truce marker ... in the SAC's Posture Box(es)": Russia is
    the SAC with an active Soviet Minor (Mongolia), so Russia's box AND the Soviet Minors box."""
    counters = [unit("jp_s11", "Japan", "w9911"), marker("jgov", "set_aside", ["japanese_government"])]
    countries = {"Russia": {"faction": "Soviet", "status": "active", "posture": "War"},
                 "Mongolia": {"faction": "Soviet", "status": "active", "posture": "War"}}
    state = position("Axis", countries, counters, cards={"Axis": "37d"})
    answers = {"16.1.5:dissolve": "no", "16.2.5:truce": "Armistice"}
    result = run(state, answers, pack=_strategic_pack(tmp_path))
    after = result.resulting_position
    assert after["countries"]["Russia"]["markers"] == ["Armistice"]
    assert after["posture_boxes"]["Soviet Minors"]["markers"] == ["Armistice"]
    assert after["countries"]["Mongolia"]["markers"] == []


def test_item9_16_6_2_step_1_no_marker_in_the_soviet_minors_box():
    """16.6.2 Step 1 "Do not place any Policy marker in the Soviet Minors Posture Box"."""
    result = _russian()
    assert result.resulting_position["countries"]["Russia"]["markers"] == ["Surrender"]
    assert "posture_boxes" not in result.resulting_position


def test_item9_shared_box_markers_make_its_minors_policy_affected_for_16_7():
    """16.7 "a hex belonging to a Policy Affected Country": a Surrender marker in the US and Western
    Minors Posture Box affects the US: a Japanese unit in Guam (e3806, a US Dependent) is interned."""
    data = {"pack": "ds", "turn": {"date": "1943-01", "phasing": "Axis"},
            "countries": {"Philippines": {"faction": "Western", "status": "active"}},
            "posture_boxes": {"US and Western Minors": {"markers": ["Surrender"]}},
            "counters": [unit("jp_guam", "Japan", "e3806")]}
    state = GameState.from_json(data, source="pos.json")
    result = run(state, {"16.1.5:dissolve": "no", "16.1.6:policy:US": "intern"})
    assert where(result, "jp_guam") == "pending:Axis"
    ended = run(state, {"16.1.5:dissolve": "no", "16.1.6:policy:US": "end_policy"})
    assert ended.resulting_position["posture_boxes"]["US and Western Minors"]["markers"] == []


def test_item9_positions_contradicting_the_shared_boxes_are_refused():
    bad = {"pack": "ds", "turn": {"phasing": "Axis"}, "counters": [],
           "countries": {"US": {"faction": "Western", "status": "active", "markers": ["Surrender"]}}}
    with pytest.raises(InputError, match="US and Western Minors Posture Box"):
        run(GameState.from_json(bad, source="pos.json"))
    unknown = {"pack": "ds", "turn": {"phasing": "Axis"}, "counters": [],
               "posture_boxes": {"Western Minors": {"markers": []}}}
    with pytest.raises(InputError, match="no shared Posture Box"):
        run(GameState.from_json(unknown, source="pos.json"))


def test_item9_16_3_8_step_3_removes_surrender_from_the_shared_box():
    """16.3.8 Step 3 "remove the Surrender marker from the US/Western Minors Posture Box and change the
    US/Western Minor Posture to War"."""
    data = {"pack": "ds", "turn": {"date": "1943-01", "phasing": "Western"},
            "countries": {"US": {"faction": "Western", "status": "active", "posture": "Neutrality"}},
            "posture_boxes": {"US and Western Minors": {"markers": ["Surrender"]}},
            "counters": [ceded("guam_jd", "ceded_lands")]}
    result = run(GameState.from_json(data, source="pos.json"), {"16.3.8:step3:war": "yes"})
    after = result.resulting_position
    assert after["posture_boxes"]["US and Western Minors"]["markers"] == []
    assert after["countries"]["US"]["posture"] == "War"
    assert where(result, "cl_guam_jd") == "force_pool:Axis"


# ---- items 16 and 18 (DS parts): exemptions named, why-lines true, one place-name form -------------------
def test_item16_16_1_1_kansu_and_kiangsu_named_as_exempt():
    """DS 16.1.1 "Kansu and Kiangsu: These two Minor Countries are exempt from this event": with both
    active, the plan must not say "no active Allied Minor Country"."""
    countries = {"Kansu": {"faction": "Soviet", "status": "active"},
                 "Kiangsu": {"faction": "Western", "status": "active"}}
    event = entry(run(position("Axis", countries), {"16.1.5:dissolve": "no"}), "16.1.1")
    assert not any("no active Allied Minor Country" in w for w in event.why)
    assert any(w.startswith("Kansu: exempt") for w in event.why)
    assert any(w.startswith("Kiangsu: exempt") for w in event.why)


def test_item16_16_1_1_partisan_base_hex_named_as_such(tmp_path):
    """16.1.1 "all City and Partisan Base hexes": the Partisan Base hex is identified in the why-line."""
    pack = extended_pack(tmp_path, '[hexes.w9960]\ncountry = "Hopeh"\nname = "a Hopeh hex (test only)"\n')
    countries = {"Hopeh": {"faction": "Western", "status": "active"}}
    counters = [unit("jp_1", "Japan", "w5322"), unit("jp_2", "Japan", "w9960"),
                marker("pb", "w9960", kind="partisan_base", nationality="Hopeh")]
    event = entry(run(position("Axis", countries, counters), {"16.1.5:dissolve": "no"}, pack=pack), "16.1.1")
    assert event.status == "fired"
    assert any("Kalgan (w5322), a Hopeh hex (test only) (w9960) (Partisan Base hex)" in w for w in event.why)


def test_item16_16_1_2_multinational_exception_named():
    """16.1.2 "An Axis multi-national unit does not cause Occupation if the Minor Country unit in that
    multi-national unit's Holding Box would be considered to be in its own Country": named when it decides."""
    countries = {"Hopeh": {"faction": "Axis", "status": "active"}}
    counters = [unit("aex", "Japan", "w5322", steps=3, kind="hq", multinational=True),
                unit("hopeh_inf", "Hopeh", "holding:aex")]
    event = entry(run(position("Axis", countries, counters), {"16.1.5:dissolve": "no"}), "16.1.2")
    assert event.status == "not_due"
    assert any("multi-national unit whose Holding Box holds a Hopeh unit" in w for w in event.why)


def test_item18_16_1_6_due_why_line_does_not_say_nothing_interns():
    """DS 16.1.6: due for a Kwantung unit, its why-line must not also say no counter must be interned."""
    countries = {"Russia": {"faction": "Soviet", "status": "active", "posture": "War"}}
    state = position("Axis", countries, [unit("kw", "Japan", "w4427", tags=["kwantung"])])
    event = entry(run(state, {"16.1.5:dissolve": "no"}), "16.1.6")
    assert event.status == "fired"
    assert not any(w.startswith("no counter is in territory") for w in event.why)
    assert any("Okinawa (w4427)" in w for w in event.why) or any("kw" in w for w in event.why)


def test_item18_16_7_reasons_name_places_as_name_and_hex():
    """One place-name form, "Brussels (w3619)": 16.7 reasons say "Kalgan (w5322)", never a bare id."""
    state = position("Axis", {"Hopeh": {"faction": "Neutral", "status": "neutral"}},
                     [unit("jp_inf", "Japan", "w5322")])
    event = entry(run(state, {"16.1.5:dissolve": "no"}), "16.1.6")
    assert any("Kalgan (w5322) is in Neutral Hopeh" in w for w in event.why)
