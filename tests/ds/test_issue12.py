"""Issue 12, Dai Senso! items: each test cites the clause that failed before the fix."""

from __future__ import annotations

from rules.plan import Plan
from tests.ds.helpers import DS, ceded, entry, extended_pack, marker, position, run, unit, where


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


def test_item7_card_29_reading_is_shown_in_the_rises_steps():
    """16.3.8 Step 2 and 16.5.5 Step 1 read "card 29": which deck's 29 is an erratum (card_29)."""
    state = position("Western", {"Britain": {"faction": "Western", "status": "active", "posture": "War"}})
    west = entry(run(state), "16.3.8")
    assert ("card_29", "Step 2") in {(n.key, n.step) for n in west.errata}
    soviet = entry(run(position("Soviet", {"Russia": {"faction": "Soviet", "status": "active",
                                                      "posture": "War"}})), "16.5.5")
    assert ("card_29", "Step 1") in {(n.key, n.step) for n in soviet.errata}


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
