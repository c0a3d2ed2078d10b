"""16.1.2 Axis Minor Country Occupation: causes, exceptions, and each remedy's precondition."""

from __future__ import annotations

import pytest

from rules.engine import plan
from rules.plan import FIRED, NOT_DUE, WAITING
from tests.rules.builder import Position, event, final_location
from vassal_parser.errors import InputError


def italy() -> Position:
    return Position("Axis").country("Germany", "Axis").country("Italy", "Axis").country("Hungary", "Axis")


def test_16_1_2_german_multi_step_unit_causes_occupation_and_remedy_is_asked():
    plan = italy().unit("ger-pz", "Germany", "i2", steps=3).plan()
    entry = event(plan, "16.1.2")
    assert entry.status == WAITING
    assert any("Italy is under Occupation" in w and "ger-pz" in w for w in entry.why)
    choice = entry.choices[0]
    assert choice.id == "16.1.2:remedy:Italy"
    assert [o["value"] for o in choice.options] == ["breakdown", "intern", "remove"]
    assert event(plan, "16.1.3").status == WAITING


def test_16_1_2_german_one_step_unit_does_not_cause_occupation():
    entry = event(italy().unit("ger-1", "Germany", "i2", steps=1).plan(), "16.1.2")
    assert entry.status == NOT_DUE


def test_16_1_2_exception_one_step_exp_unit_of_any_nationality():
    entry = event(italy().unit("hun-exp", "Hungary", "i2", steps=1, exp=True).plan(), "16.1.2")
    assert entry.status == NOT_DUE


def test_16_1_2_other_axis_country_unit_causes_occupation_and_breakdown_is_not_allowed():
    plan = italy().unit("hun-inf", "Hungary", "i1", steps=2).plan()
    entry = event(plan, "16.1.2")
    assert entry.status == WAITING
    assert [o["value"] for o in entry.choices[0].options] == ["intern", "remove"]
    assert any("Emergency Breakdown not allowed" in w for w in entry.why)


def test_16_1_2_med_hq_example_holding_an_italian_unit_does_not_occupy_italy():
    position = (
        italy()
        .unit("med-hq", "Germany", "i1", steps=3, kind="hq", multinational=True)
        .unit("ita-inf", "Italy", "holding:med-hq", steps=1)
    )
    assert event(position.plan(), "16.1.2").status == NOT_DUE
    # ...but it would occupy Hungary (example: "It would do so for other Axis Minor Countries").
    position = (
        italy()
        .unit("med-hq", "Germany", "h1", steps=3, kind="hq", multinational=True)
        .unit("ita-inf", "Italy", "holding:med-hq", steps=1)
    )
    entry = event(position.plan(), "16.1.2")
    assert entry.status == WAITING and "Hungary is under Occupation" in entry.why[0]


def test_16_1_2_no_occupation_marker_exempts_the_country():
    position = italy().unit("hun-inf", "Hungary", "i1").marker("noocc", "i1", "no_occupation")
    entry = event(position.plan(), "16.1.2")
    assert entry.status == NOT_DUE
    assert any("Italy: a No Occupation marker is in Rome (i1)" in w for w in entry.why)


def test_16_1_2_intern_remedy_needs_an_overland_supply_line():
    entry = event(italy().unit("hun-inf", "Hungary", "i1", overland_supply=False).plan(), "16.1.2")
    assert [o["value"] for o in entry.choices[0].options] == ["remove"]
    with pytest.raises(InputError, match="not a legal option"):
        italy().unit("hun-inf", "Hungary", "i1", overland_supply=False).plan(
            {"16.1.2:remedy:Italy": "intern"}
        )


def test_16_1_2_breakdown_remedy_replaces_the_unit_with_one_step_units():
    position = (
        italy()
        .unit("ger-pz", "Germany", "i2", steps=2, delay_stripe=True)
        .unit("ger-s1", "Germany", "force_pool:Axis", steps=1)
        .unit("ger-s2", "Germany", "force_pool:Axis", steps=1)
    )
    plan = position.plan({"16.1.2:remedy:Italy": "breakdown"})
    assert event(plan, "16.1.2").status == FIRED
    assert final_location(plan, "ger-pz") == "delay"
    assert final_location(plan, "ger-s1") == "i2" and final_location(plan, "ger-s2") == "i2"


def test_16_1_2_remove_remedy_sends_minor_units_to_delay_box_or_axis_force_pool():
    position = (
        italy()
        .unit("hun-inf", "Hungary", "i1")
        .unit("ita-1", "Italy", "i1", delay_stripe=True)
        .unit("ita-2", "Italy", "i2")
    )
    plan = position.plan({"16.1.2:remedy:Italy": "remove"})
    assert final_location(plan, "ita-1") == "delay"
    assert final_location(plan, "ita-2") == "force_pool:Axis"
    assert final_location(plan, "hun-inf") == "i1"


def test_16_1_2_intern_remedy_puts_units_on_the_axis_pending_card():
    plan = italy().unit("hun-inf", "Hungary", "i1", steps=1).plan({"16.1.2:remedy:Italy": "intern"})
    assert final_location(plan, "hun-inf") == "pending:Axis"


def test_16_1_2_every_occupied_country_is_asked_at_once():
    position = italy().unit("hun-inf", "Hungary", "i1").unit("ita-inf", "Italy", "h1")
    entry = event(position.plan(), "16.1.2")
    assert entry.status == WAITING
    assert entry.waiting_for == ["16.1.2:remedy:Hungary", "16.1.2:remedy:Italy"]
    plan = position.plan({"16.1.2:remedy:Hungary": "intern"})
    assert event(plan, "16.1.2").waiting_for == ["16.1.2:remedy:Italy"]
    # Removing Hungary's units also takes the Hungarian unit out of Italy: Italy is then no longer occupied.
    plan = position.plan({"16.1.2:remedy:Hungary": "remove"})
    assert event(plan, "16.1.2").status == FIRED
    assert final_location(plan, "hun-inf") == "force_pool:Axis"
    assert final_location(plan, "ita-inf") == "h1"


def test_16_1_2_a_pack_naming_an_unknown_edition_exception_is_refused():
    """16.1.2 `exceptions` names registered edition clauses (DS: showa_restoration); a typo is one line."""
    from dataclasses import replace

    from tests.rules.builder import mini_pack

    pack = mini_pack()
    spec = pack.events["16.1.2"]
    typo = replace(spec, params={**spec.params, "exceptions": ["shova"]})
    broken = replace(pack, events={**pack.events, "16.1.2": typo})
    with pytest.raises(InputError, match="unknown occupation exception 'shova'"):
        plan(italy().state(), broken)


def test_16_1_2_remove_remedy_removes_units_not_markers():
    """16.1.2 Effects: "Remove all units belonging to the Minor Country" -- its markers stay."""
    position = (
        italy()
        .unit("hun-inf", "Hungary", "i1")
        .unit("ita-2", "Italy", "i2")
        .counter("ita-pb", "i2", "partisan_base", nationality="Italy", faction="Axis")
    )
    plan = position.plan({"16.1.2:remedy:Italy": "remove"})
    assert final_location(plan, "ita-2") == "force_pool:Axis"
    assert final_location(plan, "ita-pb") == "i2"
