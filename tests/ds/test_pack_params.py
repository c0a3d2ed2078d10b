"""The DS pack supplies every game fact the DS events read (countries, tags, markers, cards).

Why: rule 16's facts live in rules/packs/ds/*.toml, not in code; an event reads each one with
`ctx.require_param`, so a pack that leaves one out fails with one line naming the pack, the rule and
the parameter (never a silent default from another edition). Each event reads its facts before it looks
at the position, so running it on a bare position is enough to see every one.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from rules.engine import plan
from rules.packs import Pack
from rules.state import GameState
from tests.ds.helpers import DS, entry, marker, position, run, unit
from tests.rules.pack_probe import only_event, params_asked
from vassal_parser.errors import InputError

SETTLEMENT = {"major", "settlement_dependent_tag", "surrender_marker"}
SURRENDER = SETTLEMENT | {"country", "enforced_peace_tag", "returned_of", "listed", "home_on_map"}
CHINESE_SURRENDER = SETTLEMENT | {"country", "faction", "exempt_minor", "exempt_minor_area",
                                  "enforced_peace_tag", "returned_of", "dependents_placed"}
INTERNMENT = {"major", "kwantung_tag", "kwantung_countries", "settlement_dependent_tag"}
RESERVES = {"posture_country", "limited_tag", "total_tag"}

LIBERATION = {"faction", "from_factions", "step1_remove", "colonial_step", "ceded_step", "france"}
REACTIVATION = {"faction", "res_tag"}
LEND_LEASE = {"faction", "country", "tag"}

# rule -> the facts its implementation takes from the pack (the shared implementations too: DS switches the
# TK France/Vichy case off with `france = false`, docs/ds-notes.md).
REQUIRED: dict[str, set[str]] = {
    "16.1.1": {"conqueror", "step1_remove", "colonial_step", "france"},
    "16.1.2": {"showa_tag", "major", "no_occupation_tag"},
    "16.1.3": {"major", "russia", "steps"},
    "16.1.4": {"tag"},
    "16.1.5": {"tag"},
    "16.1.6": INTERNMENT,
    "16.2.1": {"tag"},
    "16.2.2": {"tag"},
    "16.2.4": {"tag", "major"},
    "16.2.5": SETTLEMENT | {"sac_by_card", "sac_expansion", "axis_control_tag", "government_tag",
                            "truce_markers", "step5", "enforced_peace_tags", "listed", "recreated"},
    "16.2.6": {"major", "surrender_marker", "sac_by_card", "sac_expansion", "government_tag",
               "enforced_peace_tags", "listed", "mandate_readings"},
    "16.3.1": REACTIVATION,
    "16.3.2": LIBERATION,
    "16.3.3": {"tag"},
    "16.3.4": {"tag"},
    "16.3.5": {"us", "france"},
    "16.3.6": RESERVES,
    "16.3.7": {"tag"},
    "16.3.8": {"major", "surrender_markers", "steps"},
    "16.3.9": {"country", "marker_tag", "table"},
    "16.3.10": LEND_LEASE,
    "16.3.11": INTERNMENT,
    "16.4.1": SURRENDER,
    "16.4.2": CHINESE_SURRENDER,
    "16.4.3": SURRENDER,
    "16.4.4": {"us", "countries"},
    "16.4.5": {"us", "step1_remove", "colonial_step", "no_occupation_tag"},
    "16.5.1": REACTIVATION,
    "16.5.2": LIBERATION,
    "16.5.3": {"tag"},
    "16.5.4": RESERVES,
    "16.5.5": {"major", "surrender_markers", "steps"},
    "16.5.6": {"country", "marker_tag", "table"},
    "16.5.7": LEND_LEASE,
    "16.5.8": INTERNMENT,
    "16.6.1": CHINESE_SURRENDER,
    "16.6.2": SURRENDER,
}
# A card that carries each option event (16.2.5/16.2.6 name Britain: its lists include the islands).
CARD_FOR = {"16.2.5": "37a", "16.2.6": "concessions_britain"}


def _bare_position(faction: str, card: str | None) -> GameState:
    return position(faction, cards={faction: card} if card else None)


def _only(rule: str, pack: Pack = DS, **changed: Any) -> tuple[Pack, GameState]:
    """A pack that checks just `rule` (its params changed: None removes one) and a bare position."""
    return only_event(pack, rule, _bare_position, CARD_FOR, **changed)


def _required_by(rule: str, monkeypatch: pytest.MonkeyPatch) -> set[str]:
    return params_asked(_only(rule), monkeypatch)


def test_every_ds_event_of_the_pack_is_listed_here():
    assert set(REQUIRED) == set(DS.events)


@pytest.mark.parametrize("rule", sorted(REQUIRED))
def test_rule_16_event_takes_its_game_facts_from_the_pack(rule, monkeypatch):
    """Rule 16 (each event): the facts the implementation asks for are exactly those listed, and the
    DS pack supplies every one (a missing one would raise)."""
    assert _required_by(rule, monkeypatch) == REQUIRED[rule]
    assert REQUIRED[rule] <= set(DS.event(rule).params)


@pytest.mark.parametrize(("rule", "name"), sorted((r, n) for r, names in REQUIRED.items() for n in names))
def test_rule_16_event_without_a_fact_is_a_one_line_input_error(rule, name):
    pack, state = _only(rule, **{name: None})
    with pytest.raises(InputError) as caught:
        plan(state, pack, {}, "test-answers")
    message = str(caught.value)
    assert "\n" not in message
    assert "pack ds" in message and f"event {rule}" in message and repr(name) in message
    assert caught.value.source == str(DS.path)


def test_16_1_2_showa_restoration_takes_the_major_from_the_pack():
    """16.1.2 Showa Restoration: 'one Japanese multi-step unit' — Japanese is the pack's `major`."""
    countries = {"Hopeh": {"faction": "Axis", "status": "active"}}
    state = position(countries=countries, counters=[
        marker("showa", "strategic_warfare", ["showa_restoration"]),
        unit("jp_hq", "Japan", "w5322", steps=3, kind="hq")])
    pack, _ = _only("16.1.2", major=None)
    with pytest.raises(InputError, match="'major'"):
        plan(state, pack, {}, "test-answers")


def test_16_1_3_reads_the_posture_of_the_country_the_pack_names():
    """16.1.3 'If Russia's Posture is not Neutrality, ignore this event': Russia is the pack's `russia`.
    Naming another Country in the pack changes whose Posture is read."""
    state = position(countries={"Russia": {"faction": "Soviet", "status": "active", "posture": "War"},
                                "Britain": {"faction": "Western", "status": "active",
                                            "posture": "Neutrality"}})
    assert entry(run(state), "16.1.3").status == "ignored"
    pack, _ = _only("16.1.3", russia="Britain")
    event = entry(plan(state, pack, {}, "test-answers"), "16.1.3")
    assert event.status != "ignored"


def test_16_7_settlement_dependent_tag_written_by_the_treaties_is_the_one_internment_reads():
    """16.7 (Allied, third case) reads the tag 16.2.5 and the Surrenders put on the Dependent markers:
    every DS event that names it must name the same one, and every DS event names the same Japan."""
    for key in ("settlement_dependent_tag", "major", "surrender_marker"):
        values = {DS.event(r).params[key] for r, names in REQUIRED.items() if key in names}
        assert len(values) == 1, f"{key}: {values}"


def test_chinese_countries_missing_from_the_pack_is_a_one_line_input_error():
    """16.2.5 / 16.4.3 'non-Chinese Western Minor Countries': which are Chinese is `[ds]` data."""
    pack, state = _only("16.4.3")
    answers = {"16.4.3:select_region": "none"}  # Step 4 answered: Steps 5-7 ask which Minors are Chinese
    assert entry(plan(state, pack, answers, "test-answers"), "16.4.3").status == "fired"
    pack = replace(pack, extra={**pack.extra, "ds": {}})
    with pytest.raises(InputError, match="chinese_countries"):
        plan(state, pack, answers, "test-answers")


def test_combined_cross_map_link_without_its_nationality_is_a_one_line_input_error():
    """AE 6.2 © / TK 16.2.1 Step 7 'Remove all non-F French units in play in DS': France is data."""
    from rules.combined import carry_over
    from rules.plan import FIRED, EventEntry, Plan, Step

    link = next(lk for lk in DS.extra["combined"]["cross_map"] if "remove_without_code" in lk)
    broken = {k: v for k, v in link.items() if k != "remove_nationality"}
    pack = replace(DS, extra={**DS.extra, "combined": {"cross_map": [broken]}})
    performed = Step(link["tk_rule"], link["tk_step"], "note", "France Defeated")
    tk_plan = Plan(pack="tk", phasing="Axis", turn="1940")
    tk_plan.events.append(EventEntry(link["tk_rule"], "Case Yellow", "card:22a", FIRED, steps=[performed]))
    ds = position("Axis", counters=[unit("fr_inf", "France", "w5322"),
                                    unit("fr_f_inf", "France", "w5322", reinforcement="F")])
    removed = [s.counter for s in carry_over(tk_plan, ds.clone(), DS) if s.action == "remove_from_game"]
    assert removed == ["fr_inf"], "the pack's nationality and code pick the units"
    with pytest.raises(InputError, match="remove_nationality"):
        carry_over(tk_plan, ds.clone(), pack)
