"""Issue 9 section 1 on the shipped DS pack: every DS event that reads a map fact the pack does not locate in
full is `undecided`, naming the fact -- never `not due` (rules/facts.py, the pack's `needs` and empty
`[complete]` table). Each test cites the clause whose map fact is missing."""

from __future__ import annotations

from rules.plan import UNDECIDED, Plan
from tests.ds.helpers import SHIPPED, ceded, entry, position, run, unit


def _missing(result: Plan, rule: str) -> set[tuple[str, str | None]]:
    return {(m.fact, m.subject) for m in entry(result, rule).missing}


def _plan(phasing, countries=None, counters=None, cards=None, answers=None):
    return run(position(phasing, countries or {}, counters or [], cards=cards),
               {"16.1.5:dissolve": "no", **(answers or {})}, pack=SHIPPED)


def test_shipped_ds_pack_declares_no_fact_complete():
    """The shipped pack's [complete] table is there and empty: rule 16 names only some hexes."""
    assert SHIPPED.complete == {}


def test_16_1_1_city_hexes_of_an_active_allied_minor_are_missing():
    """16.1.1 "occupy all City and Partisan Base hexes": Hopeh's only located City is Kalgan."""
    hopeh = {"Hopeh": {"faction": "Western", "status": "active"}}
    result = _plan("Axis", hopeh, [unit("jp", "Japan", "w5322")])
    assert entry(result, "16.1.1").status == UNDECIDED
    assert ("city_hexes", "Hopeh") in _missing(result, "16.1.1")
    assert result.exit_status == 3


def test_16_1_3_borders_of_japanese_dependents_are_missing():
    """16.1.3 "each Japanese Dependent that shares a border with a Soviet Country": Korea's e5201 holds its
    two steps, but Manchukuo's borders (and Korea's other border hexes) are unknown."""
    countries = {"Russia": {"faction": "Soviet", "status": "active", "posture": "Neutrality"}}
    result = _plan("Axis", countries, [unit("jp2", "Japan", "e5201", steps=2)])
    event = entry(result, "16.1.3")
    assert event.status == UNDECIDED
    assert {("neighbors", "Manchukuo"), ("border_road_rail_hexes", "Korea")} <= _missing(result, "16.1.3")


def test_16_2_5_strategic_hexes_of_each_sac_are_missing():
    """16.2.5 "how many Allied Strategic Hexes in a SAC or its Dependents are under Axis Control"."""
    countries = {"Britain": {"faction": "Western", "status": "active", "posture": "War"}}
    result = _plan("Axis", countries, cards={"Axis": "37a"})
    assert entry(result, "16.2.5").status == UNDECIDED
    assert {("strategic_hexes", "Britain"), ("strategic_hexes", "Burma")} <= _missing(result, "16.2.5")


def test_16_3_1_capital_of_a_conquered_western_minor_is_missing():
    """16.3.1 "if that Country's Capital hex does not contain an enemy unit": Hopeh's Capital unknown."""
    result = _plan("Western", {"Hopeh": {"faction": "Western", "status": "conquered"}})
    assert entry(result, "16.3.1").status == UNDECIDED
    assert ("capital", "Hopeh") in _missing(result, "16.3.1")


def test_16_3_2_india_is_undecided_not_do_not_occupy_none():
    """16.3.2 "occupy all City and Partisan Base hexes of an Axis or Soviet Minor Country": India has no
    located City -- never "Western ground units do not occupy none"."""
    result = _plan("Western", {"India": {"faction": "Axis", "status": "active"}})
    event = entry(result, "16.3.2")
    assert event.status == UNDECIDED and ("city_hexes", "India") in _missing(result, "16.3.2")
    assert not any("do not occupy none" in w for w in event.why)


def test_16_5_1_and_16_5_2_facts_are_missing():
    """16.5.1 Capital hex; 16.5.2 "all City and Partisan Base hexes in an Axis or Western Minor"."""
    countries = {"Mongolia": {"faction": "Soviet", "status": "conquered"},
                 "Kansu": {"faction": "Axis", "status": "active"}}
    result = _plan("Soviet", countries)
    assert ("capital", "Mongolia") in _missing(result, "16.5.1")
    assert ("city_hexes", "Kansu") in _missing(result, "16.5.2")
    assert entry(result, "16.5.2").status == UNDECIDED


def test_16_3_8_cities_of_a_ceded_dependent_are_missing():
    """16.3.8 Step 2 "If any City in a formerly British Mandate Dependent does not contain a Japanese
    unit": Burma's Cities are not all located, so a guarded Rangoon decides nothing."""
    countries = {"Britain": {"faction": "Western", "status": "active", "posture": "Neutrality",
                             "markers": ["Surrender"]}}
    result = _plan("Western", countries, [ceded("burma_jd", "ceded_lands"), unit("jp", "Japan", "w4015")])
    assert entry(result, "16.3.8").status == UNDECIDED
    assert ("area_city_hexes", "burma_jd") in _missing(result, "16.3.8")


def test_16_5_5_cities_of_a_far_east_region_are_missing():
    """16.5.5 Step 2 "If any City in a formerly Russian Far East Region does not contain a Japanese unit"."""
    countries = {"Russia": {"faction": "Soviet", "status": "active", "posture": "Neutrality",
                            "markers": ["Surrender"]}}
    result = _plan("Soviet", countries, [ceded("amur", "ceded_lands"), unit("jp", "Japan", "w5727")])
    assert entry(result, "16.5.5").status == UNDECIDED
    assert ("area_city_hexes", "amur") in _missing(result, "16.5.5")


def test_16_4_4_and_16_4_5_cities_are_missing():
    """16.4.4 "a supplied US ground unit occupies a City within the selected Country or one of its
    Dependents"; 16.4.5 "a City within the selected Country"."""
    countries = {"India": {"faction": "Axis", "status": "active"}}
    colonial = _plan("Western", countries, cards={"Western": "colonial_liberation"})
    assert entry(colonial, "16.4.4").status == UNDECIDED
    assert {("city_hexes", "India"), ("city_hexes", "Ceylon")} <= _missing(colonial, "16.4.4")
    avalanche = _plan("Western", countries, cards={"Western": "operation_avalanche"})
    assert entry(avalanche, "16.4.5").status == UNDECIDED
    assert ("city_hexes", "India") in _missing(avalanche, "16.4.5")


def test_16_2_5_step_5_kansu_cities_missing_on_a_fired_settlement(tmp_path):
    """16.2.5 Step 5 "If the Axis faction controls all Cities in Kansu": the settlement is decided (three
    Strategic Hexes held) but Step 5 is not; the fired event lists the missing fact."""
    from tests.ds.helpers import extended_pack
    strategic = "".join(f'\n[hexes.w99{n}]\ncountry = "Communist China"\nstrategic = true\n'
                        f'name = "Strategic Hex {n} (test only)"\n' for n in (11, 12, 13))
    complete = ('\n[complete]\nstrategic_hexes = "all"\n')
    pack = extended_pack(tmp_path, strategic + complete, complete=False)
    countries = {"Communist China": {"faction": "Soviet", "status": "active", "posture": "War"}}
    counters = [unit(f"jp{n}", "Japan", f"w99{n}") for n in (11, 12, 13)]
    result = run(position("Axis", countries, counters, cards={"Axis": "37b"}),
                 {"16.1.5:dissolve": "no", "16.2.5:influence": "none"}, pack=pack)
    event = entry(result, "16.2.5")
    assert event.status == "fired" and ("city_hexes", "Kansu") in _missing(result, "16.2.5")
    assert any(w.startswith("Step 5: undecided") for w in event.why)
