"""16.2.5 Forced Settlement and 16.2.6 Japanese Concessions (Axis Settlement cards)."""

from __future__ import annotations

import pytest

from tests.ds.helpers import DS, ceded, entry, extended_pack, marker, position, run, unit, where

# Rule 16 names no Allied Strategic Hex; these tests add three in Russia, marked test-only.
STRATEGIC = "".join(f'\n[hexes.w99{n}]\ncountry = "Russia"\nstrategic = true\ncity = true\n'
                    f'name = "Russian Strategic Hex {n} (test only)"\n' for n in (11, 12, 13))
RUSSIA = {"Russia": {"faction": "Soviet", "status": "active", "posture": "War"},
          "US": {"faction": "Western", "status": "active", "posture": "War"}}


@pytest.fixture(scope="module")
def ds_strategic(tmp_path_factory):
    return extended_pack(tmp_path_factory.mktemp("ds_strategic"), STRATEGIC)


def _settlement(pack, held: int, *extra, answers=None):
    counters = [unit(f"jp_s{n}", "Japan", f"w99{n}") for n in (11, 12, 13)[:held]]
    counters += [ceded("primorye", "force_pool:Axis"), ceded("siberia", "force_pool:Axis"),
                 ceded("kirin", "ceded_lands"),
                 marker("jgov", "holding:jgov", ["japanese_government"]),
                 marker("ru_peace", "set_aside", ["enforced_peace_russia"]), *extra]
    state = position("Axis", RUSSIA, counters, cards={"Axis": "37d"})
    given = answers if answers is not None else {"16.2.5:influence": "none"}
    return run(state, {"16.1.5:dissolve": "no", **given}, pack=pack)


def test_16_2_5_three_strategic_hexes_impose_a_surrender(ds_strategic):
    """16.2.5, three or more Allied Strategic Hexes under Axis Control: Step 1 Surrender Policy and
    Enforced Peace one year ahead, Step 2 Government to the Delay Box, Step 3 SAC Ceded Land (Kirin)
    returned, Step 4 Vladivostok (e5301) -> Primorye."""
    result = _settlement(ds_strategic, 3, unit("jp_vlad", "Japan", "e5301", supplied=True))
    assert entry(result, "16.2.5").status == "fired"
    assert "Surrender" in result.resulting_position["countries"]["Russia"]["markers"]
    assert where(result, "ru_peace") == "turn_track:1942-07"
    assert where(result, "jgov") == "delay"
    assert where(result, "cl_kirin") == "force_pool:Soviet"
    assert where(result, "cl_primorye") == "ceded_lands"
    assert where(result, "jp_vlad") == "e5301"


def test_16_2_5_steps_6_to_8_internment(ds_strategic):
    """Step 6 Axis units in the SAC interned; Step 7 SAC units outside it; Step 8 non-SAC Allied inside."""
    result = _settlement(ds_strategic, 3, unit("jp_chita", "Japan", "w5824"),
                         unit("ru_manila", "Russia", "w3824"), unit("us_chita", "US", "w5824"))
    assert where(result, "jp_chita") == "pending:Axis"
    assert where(result, "jp_s11") == "pending:Axis"
    assert where(result, "ru_manila") == "pending:Soviet"
    assert where(result, "us_chita") == "pending:Western"


def test_16_2_5_irkutsk_uses_w5817(ds_strategic):
    """Errata irkutsk: 16.2.5 prints w5817, which is also the pack's default reading."""
    result = _settlement(ds_strategic, 3, unit("jp_irk", "Japan", "w5817", supplied=True))
    assert where(result, "cl_siberia") == "ceded_lands"


def test_16_2_5_one_or_two_hexes_only_a_truce(ds_strategic):
    """16.2.5, one or two hexes: Step 1 a Truce marker of the Axis faction's choice; Step 2 Government."""
    waiting = _settlement(ds_strategic, 2, answers={})
    assert entry(waiting, "16.2.5").choices[0].id == "16.2.5:truce"
    result = _settlement(ds_strategic, 2, unit("jp_vlad", "Japan", "e5301", supplied=True),
                         answers={"16.2.5:truce": "Armistice"})
    russia = result.resulting_position["countries"]["Russia"]
    assert russia["markers"] == ["Armistice"]
    assert where(result, "jgov") == "delay"
    assert where(result, "cl_primorye") == "force_pool:Axis", "no Step 4 with fewer than three hexes"


def test_16_2_5_no_strategic_hex_held_is_not_due(ds_strategic):
    assert entry(_settlement(ds_strategic, 0), "16.2.5").status == "not_due"


def test_16_2_5_example_inner_mongolia_not_ceded_when_hopeh_is_not_an_sac(tmp_path):
    """16.2.5 Step 4 example: Nationalist China is the SAC and Hopeh is an active Communist Chinese
    Minor: Inner Mongolia does not become a Japanese Dependent."""
    extra = "".join(f'\n[hexes.w992{n}]\ncountry = "Nationalist China"\nstrategic = true\n'
                    for n in (1, 2, 3))
    extra += '\n[hexes.w9931]\ncountry = "Hopeh"\ncity = true\n'  # so Hopeh is not conquered by 16.1.1
    pack = extended_pack(tmp_path, extra)
    countries = {"Nationalist China": {"faction": "Western", "status": "active", "posture": "War"},
                 "Hopeh": {"faction": "Soviet", "status": "active"}}
    counters = [unit(f"jp_{h}", "Japan", h) for h in ("w9921", "w9922", "w9923")]
    counters += [ceded("inner_mongolia", "force_pool:Axis"), unit("hopeh_inf", "Hopeh", "w9931"),
                 unit("jp_kalgan", "Japan", "w5322", supplied=True)]
    state = position("Axis", countries, counters, cards={"Axis": "37c"})
    result = run(state, {"16.2.5:influence": "none", "16.1.5:dissolve": "no"}, pack=pack)
    assert where(result, "cl_inner_mongolia") == "force_pool:Axis"
    assert any("Inner Mongolia not checked" in why for why in entry(result, "16.2.5").why)


def _concessions(*extra, answers=None, card="concessions_russia", countries=RUSSIA, pack=None):
    counters = [ceded("sakhalin", "ceded_lands"), ceded("kirin", "force_pool:Soviet"),
                ceded("heilungkiang", "force_pool:Soviet"),
                marker("jgov", "holding:jgov", ["japanese_government"]), *extra]
    state = position("Axis", countries, counters, cards={"Axis": card})
    kwargs = {"pack": pack} if pack is not None else {}
    return run(state, {"16.1.5:dissolve": "no", **(answers or {})}, **kwargs)


def test_16_2_6_japanese_concessions_to_russia():
    """16.2.6: Step 2 Government one year ahead even outside its Holding Box; Step 3 Japanese Ceded Land
    (Sakhalin) returned; Step 4 a supplied Russian unit in Harbin (w5427) -> Kirin ceded."""
    result = _concessions(unit("ru_harbin", "Russia", "w5427", supplied=True))
    assert entry(result, "16.2.6").status == "fired"
    assert where(result, "jgov") == "turn_track:1942-07"
    assert where(result, "cl_sakhalin") == "force_pool:Axis"
    assert where(result, "cl_kirin") == "ceded_lands"


def test_16_2_6_mukden_tsitsihar_erratum_as_printed_one_unit_decides_both():
    """Errata mukden_tsitsihar (as printed): a Russian unit in w5226 cedes Liaoning AND Heilungkiang."""
    result = _concessions(unit("ru_w5226", "Russia", "w5226", supplied=True),
                          ceded("liaoning", "force_pool:Soviet"))
    assert where(result, "cl_liaoning") == "ceded_lands"
    assert where(result, "cl_heilungkiang") == "ceded_lands"


def test_16_2_6_step_5_axis_must_cede_one_when_none_placed():
    """Step 5: no marker placed in Step 4 -> the Axis faction MUST select one (no 'none' option)."""
    event = entry(_concessions(), "16.2.6")
    assert event.status == "waiting"
    options = [o["value"] for o in event.choices[-1].options]
    assert "none" not in options and "kirin" in options


def test_16_2_6_eniwetok_listed_for_britain_unless_us_only(tmp_path):
    """Errata concessions_mandates: Eniwetok (e3612) is under Britain too (default both); reading
    us_only removes it from Britain's list."""
    countries = {"Britain": {"faction": "Western", "status": "active", "posture": "War"}}
    gb = unit("gb_eni", "Britain", "e3612", supplied=True)
    both = _concessions(gb, ceded("marshall_islands_gb", "force_pool:Western"), card="concessions_britain",
                        countries=countries)
    assert where(both, "cl_marshall_islands_gb") == "ceded_lands"
    us_only = extended_pack(tmp_path, "", options='concessions_mandates = "us_only"')
    narrowed = _concessions(gb, ceded("marshall_islands_gb", "force_pool:Western"),
                            card="concessions_britain", countries=countries, pack=us_only)
    assert entry(narrowed, "16.2.6").status == "waiting"  # nothing placed: Step 5 must choose


def test_16_2_5_step_5_kiangsu_when_nationalist_china_is_the_sac(tmp_path):
    """16.2.5 Step 5: the Axis controls all Cities in Kiangsu and Nationalist China is the SAC ->
    Kiangsu becomes a Japanese Dependent. Rule 16 names no Kiangsu City: the test adds one."""
    extra = "".join(f'\n[hexes.w992{n}]\ncountry = "Nationalist China"\nstrategic = true\n'
                    for n in (1, 2, 3))
    extra += '\n[hexes.w9961]\ncountry = "Kiangsu"\narea = "kiangsu_jd"\ncity = true\n'
    pack = extended_pack(tmp_path, extra)
    countries = {"Nationalist China": {"faction": "Western", "status": "active", "posture": "War"},
                 "Kiangsu": {"faction": "Western", "status": "active"}}
    counters = [unit(f"jp_{h}", "Japan", h) for h in ("w9921", "w9922", "w9923")]
    counters += [ceded("kiangsu_jd", "force_pool:Axis"), ceded("hainan", "force_pool:Axis"),
                 unit("jp_haikou", "Japan", "w4120", supplied=True), unit("jp_kiangsu", "Japan", "w9961")]
    state = position("Axis", countries, counters, cards={"Axis": "37c"})
    result = run(state, {"16.2.5:influence": "none", "16.1.5:dissolve": "no"}, pack=pack)
    event = entry(result, "16.2.5")
    assert "Kiangsu" in event.why[0], "Kiangsu is an SAC: an active Western Chinese Country"
    assert where(result, "cl_hainan") == "ceded_lands", "Step 4 Haikou: Kiangsu is an SAC"
    assert where(result, "cl_kiangsu_jd") == "ceded_lands"
    assert where(result, "jp_kiangsu") == "w9961", "Step 6 spares units in the new Japanese Dependent"


def test_16_2_5_sac_expansion_us_adds_non_chinese_western_minors():
    """16.2.5: the US as SAC adds all active and conquered non-Chinese Western Minor Countries."""
    from rules.engine import EventContext
    from rules.events.ds.settlement import settlement_affected
    from rules.plan import EventEntry

    countries = {"Australia": {"faction": "Western", "status": "active"},
                 "NEI": {"faction": "Western", "status": "conquered"},
                 "Hopeh": {"faction": "Western", "status": "active"},
                 "India": {"faction": "Soviet", "status": "active"}}
    state = position("Axis", countries, [])
    spec = DS.event("16.2.5")
    ctx = EventContext(state, DS, spec, EventEntry("16.2.5", spec.title, "card:37e", "not_due"), {}, "-")
    assert settlement_affected(ctx, "US", with_conquered=True, non_chinese_only=True) == \
        ["US", "Australia", "NEI"]
    assert settlement_affected(ctx, "US", with_conquered=False, non_chinese_only=False) == \
        ["US", "Australia", "Hopeh"]


def _us_settlement(tmp_path, philippines_status: str, *extra):
    """16.2.5 with card 37e (US): three test-only US Strategic Hexes (in Hawaii) under Axis Control; the
    Philippines is an active or conquered non-Chinese Western Minor, so it is an SAC too."""
    pack = extended_pack(tmp_path, "".join(
        f'\n[hexes.e99{n}]\ncountry = "Hawaii"\nstrategic = true\n' for n in (11, 12, 13)))
    countries = {"US": {"faction": "Western", "status": "active", "posture": "War"},
                 "Philippines": {"faction": "Western", "status": philippines_status}}
    counters = [unit(f"jp_s{n}", "Japan", f"e99{n}") for n in (11, 12, 13)]
    counters += [ceded("philippines_jd", "force_pool:Axis"), *extra]
    state = position("Axis", countries, counters, cards={"Axis": "37e"})
    return run(state, {"16.2.5:influence": "none", "16.1.5:dissolve": "no"}, pack=pack)


def test_16_2_5_step_7_sac_minor_units_at_home_are_not_interned(tmp_path):
    """16.2.5 Step 7 interns SAC units "outside its Home Country or Dependents": a Philippine unit in
    Manila (w3824) is in its own Home Country (which is also a US Dependent) and stays; one in Guam
    (e3806, a US Dependent, not the Philippines') is interned."""
    result = _us_settlement(tmp_path, "active", unit("ph_manila", "Philippines", "w3824"),
                            unit("ph_guam", "Philippines", "e3806"))
    assert entry(result, "16.2.5").status == "fired"
    assert where(result, "ph_manila") == "w3824"
    assert where(result, "ph_guam") == "pending:Western"


def test_16_2_5_step_6_axis_units_in_a_conquered_sac_minor_are_not_interned(tmp_path):
    """16.2.5 Step 6: "Do not intern ... units inside a conquered Allied Minor Country": a Japanese unit
    in Manila (w3824, unsupplied so Step 4 cedes nothing) of a conquered Philippines stays, while the
    Japanese units in active US Dependents (Hawaii) are interned."""
    result = _us_settlement(tmp_path, "conquered", unit("jp_manila", "Japan", "w3824", supplied=False))
    assert where(result, "jp_manila") == "w3824"
    assert where(result, "jp_s11") == "pending:Axis"
