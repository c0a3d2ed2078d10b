"""16.7 Internment in Dai Senso!: the Pacific conditions (16.1.6 / 16.3.11 / 16.5.8 checks)."""

from __future__ import annotations

from rules.engine import plan
from tests.ds.helpers import DS, ceded, entry, position, run, unit, where

AT_WAR = {"Russia": {"faction": "Soviet", "status": "active", "posture": "War"},
          "Communist China": {"faction": "Soviet", "status": "active", "posture": "War"},
          "Nationalist China": {"faction": "Western", "status": "active", "posture": "War"},
          "Britain": {"faction": "Western", "status": "active", "posture": "War"}}
# A Surrender Policy marker stands instead of a Posture of War (docs/position-format.md), so these
# countries hold the marker and no War posture.
ALL_UNDER_POLICY = {name: {**{k: v for k, v in fields.items() if k != "posture"}, "markers": ["Surrender"]}
                    for name, fields in AT_WAR.items() if name != "Britain"}


def test_16_7_kwantung_unit_outside_a_japanese_dependent_is_interned():
    """16.7 (Axis, fifth condition): a Kwantung unit in Japan proper (Okinawa w4427) while Russia and
    the Chinas are not Policy Affected."""
    state = position(countries=AT_WAR, counters=[unit("kw", "Japan", "w4427", tags=["kwantung"])])
    result = run(state)
    assert entry(result, "16.1.6").status == "fired"
    assert where(result, "kw") == "pending:Axis"


def test_16_7_kwantung_unit_inside_a_japanese_dependent_stays():
    state = position(countries=AT_WAR, counters=[unit("kw", "Japan", "w5427", tags=["kwantung"])])  # Harbin
    assert where(run(state), "kw") == "w5427"


def test_16_7_kwantung_unit_free_when_all_three_are_policy_affected():
    countries = {**AT_WAR, **ALL_UNDER_POLICY}
    state = position(countries=countries, counters=[unit("kw", "Japan", "w4427", tags=["kwantung"])])
    assert where(run(state), "kw") == "w4427"


def test_16_7_kwantung_literal_reading_one_unaffected_country_is_enough(tmp_path):
    """Reading kwantung_trigger = any_not_pac: Russia alone not Policy Affected interns the unit;
    the other reading (all_not_pac) does not."""
    countries = {**AT_WAR, **ALL_UNDER_POLICY, "Russia": AT_WAR["Russia"]}
    state = position(countries=countries, counters=[unit("kw", "Japan", "w4427", tags=["kwantung"])])
    assert where(run(state), "kw") == "pending:Axis"
    for source in DS.path.glob("*.toml"):
        text = source.read_text(encoding="utf-8")
        if source.name == "errata.toml":
            text = text.replace("[options]\n", '[options]\nkwantung_trigger = "all_not_pac"\n')
        (tmp_path / source.name).write_text(text, encoding="utf-8")
    from rules.packs import load_pack

    other = plan(state, load_pack(tmp_path), answers={})
    location = next(c["location"] for c in other.resulting_position["counters"] if c["id"] == "kw")
    assert location == "w4427"


def test_16_7_minor_country_unit_in_a_japanese_dependent_is_interned_but_exp_is_not():
    """16.7 (Axis, third condition): a Minor Country unit in Japan or a Japanese Dependent; exception:
    one-step Exp units."""
    countries = {**AT_WAR, "Hopeh": {"faction": "Axis", "status": "active"}}
    state = position(countries=countries, counters=[
        unit("hopeh_inf", "Hopeh", "w5027"), unit("hopeh_exp", "Hopeh", "w5027", exp=True)])
    result = run(state)
    assert where(result, "hopeh_inf") == "pending:Axis"
    assert where(result, "hopeh_exp") == "w5027"


def test_16_7_allied_unit_in_a_settlement_created_japanese_dependent_is_interned():
    """16.7 (Allied, third condition): Burma became a Japanese Dependent by a Surrender/Settlement."""
    state = position(countries=AT_WAR, counters=[
        ceded("burma_jd", "ceded_lands", tags=["settlement_dependent"]), unit("gb_inf", "Britain", "w4015")])
    result = run(state)
    assert where(result, "gb_inf") == "pending:Western"


def test_16_7_allied_unit_in_a_japanese_dependent_not_created_by_settlement_is_not_interned():
    state = position(countries=AT_WAR, counters=[
        ceded("burma_jd", "ceded_lands"), unit("gb_inf", "Britain", "w4015")])
    assert where(run(state), "gb_inf") == "w4015"


def test_16_7_japanese_unit_in_an_unlisted_japanese_dependent_is_not_in_a_neutral_country():
    """16.7 (first condition, "a hex in a Neutral Country"): Korea, a Japanese Dependent the position does
    not list, shares Japan's alignment (pack `dependent_of`) -- a Japanese unit in Keijo stays."""
    state = position(countries=AT_WAR, counters=[unit("jp_inf", "Japan", "w5027", steps=2)])
    assert "Korea" not in state.countries
    result = run(state)
    assert where(result, "jp_inf") == "w5027"
    assert "Korea" not in result.resulting_position["countries"]


def test_16_7_unit_in_a_neutral_country_is_still_interned():
    """16.7 first condition, the other side: a Japanese unit in Neutral Hopeh (listed) is interned."""
    countries = {**AT_WAR, "Hopeh": {"faction": "Neutral", "status": "neutral"}}
    state = position(countries=countries, counters=[unit("jp_inf", "Japan", "w5322")])
    assert where(run(state), "jp_inf") == "pending:Axis"


def test_16_7_unit_of_an_unlisted_dependent_fights_for_its_home_countrys_faction():
    """16.7 first condition: a Manchukuo unit (Manchukuo is unlisted; pack: a Japanese Dependent) is an
    Axis counter, so in Neutral Hopeh it is interned to the Axis Pending card."""
    countries = {**AT_WAR, "Hopeh": {"faction": "Neutral", "status": "neutral"}}
    state = position(countries=countries, counters=[unit("mk_inf", "Manchukuo", "w5322")])
    assert where(run(state), "mk_inf") == "pending:Axis"
