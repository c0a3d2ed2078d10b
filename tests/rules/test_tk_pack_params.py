"""The TK pack supplies every game fact the TK events read (countries, areas, tags, markers, codes, cards).

Why: rule 16's facts live in rules/packs/tk/*.toml, not in code; an event reads each one with
`ctx.require_param`, so a pack that leaves one out fails with one line naming the pack, the rule and
the parameter (never a silent default from code). Each event reads its facts before it looks at the
position, so running it on a bare position is enough to see every one.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from rules.engine import plan
from rules.packs import Pack, load_pack
from rules.state import GameState
from tests.rules.builder import event, final_location, mini_pack
from tests.rules.pack_probe import only_event, params_asked
from tests.rules.test_conquest import france_position
from vassal_parser.errors import InputError

TK = load_pack("tk")

CRISIS = {"faction", "tag", "countries", "dependents_of"}
VICHY_LIBERATION = {"french_fleet_tag", "colonial_infantry_tag", "vichy_code"}
INTERNMENT = {"major"}  # 16.7: "in Germany or a German Dependent"
LIBERATION = {"faction", "from_factions", "step1_remove", "colonial_step", "ceded_step", "france"}
REACTIVATION = {"faction", "res_tag"}
LEND_LEASE = {"faction", "country", "tag"}

# rule -> the facts its implementation takes from the pack with `ctx.require_param`.
REQUIRED: dict[str, set[str]] = {
    "16.1.1": {"conqueror", "step1_remove", "colonial_step", "france", "vichy_code", "syria_marker_tag",
               "colonial_infantry_tag", "france_case_markers"},
    "16.1.2": {"major", "no_occupation_tag"},
    "16.1.3": INTERNMENT,
    "16.2.1": {"major", "france", "step1_remove", "colonial_step", "vichy_code", "france_zone_areas",
               "syria", "syria_marker_tag", "france_defeated_tag"},
    "16.2.2": {"russia", "major", "policy_marker", "ostland_tag", "enforced_peace_tag", "infantry_tag",
               "recreated_become_axis"},
    "16.3.1": REACTIVATION,
    "16.3.2": LIBERATION | VICHY_LIBERATION,
    "16.3.3": CRISIS,
    "16.3.4": CRISIS,
    "16.3.5": {"tag"},
    "16.3.6": {"ignore_if_axis_card", "france", "major", "area"},
    "16.3.7": LEND_LEASE,
    "16.3.8": INTERNMENT,
    "16.4.1": {"france"} | VICHY_LIBERATION,
    "16.4.2": {"us", "step1_remove", "colonial_step", "no_occupation_tag"},
    "16.5.1": REACTIVATION,
    "16.5.2": LIBERATION | VICHY_LIBERATION,
    "16.5.3": CRISIS,
    "16.5.4": {"russia", "postures", "enemy"},
    "16.5.5": {"ignore_if_axis_card", "russia", "major", "policy_marker", "ostland_tag"},
    "16.5.6": LEND_LEASE,
    "16.5.7": INTERNMENT,
}


def _bare_position(faction: str, card: str | None) -> GameState:
    turn = {"phasing": faction, "war_state": "Limited War", "date": "1940-05"}
    if card:
        turn["current_cards"] = {faction: card}
    return GameState.from_json({"pack": "tk", "turn": turn, "countries": {}, "counters": []}, "test-position")


def _only(rule: str, pack: Pack = TK, **changed: Any) -> tuple[Pack, GameState]:
    """A pack that checks just `rule` (its params changed: None removes one) and a bare position."""
    return only_event(pack, rule, _bare_position, **changed)


def _required_by(rule: str, monkeypatch: pytest.MonkeyPatch) -> set[str]:
    return params_asked(_only(rule), monkeypatch)


def test_every_tk_event_of_the_pack_is_listed_here():
    assert set(REQUIRED) == set(TK.events)


@pytest.mark.parametrize("rule", sorted(REQUIRED))
def test_rule_16_tk_event_takes_its_game_facts_from_the_pack(rule, monkeypatch):
    """Rule 16 (each TK event): the facts the implementation asks for are exactly those listed, and the
    TK pack supplies every one (a missing one would raise)."""
    assert _required_by(rule, monkeypatch) == REQUIRED[rule]
    assert REQUIRED[rule] <= set(TK.event(rule).params)


@pytest.mark.parametrize(("rule", "name"), sorted((r, n) for r, names in REQUIRED.items() for n in names))
def test_rule_16_tk_event_without_a_fact_is_a_one_line_input_error(rule, name):
    pack, state = _only(rule, **{name: None})
    with pytest.raises(InputError) as caught:
        plan(state, pack, {}, "test-answers")
    message = str(caught.value)
    assert "\n" not in message
    assert "pack tk" in message and f"event {rule}" in message and repr(name) in message
    assert caught.value.source == str(TK.path)


@pytest.mark.parametrize(
    "key", ["major", "france", "russia", "vichy_code", "colonial_infantry_tag", "french_fleet_tag",
            "syria_marker_tag", "policy_marker", "ostland_tag", "no_occupation_tag", "res_tag",
            "step1_remove"]
)
def test_tk_events_that_name_the_same_fact_name_the_same_value(key):
    """16.1.1 France, 16.2.1, 16.3.2 Vichy, 16.4.1, 16.5.2 France-Vichy (and 16.2.2 / 16.5.5): a code or
    tag one event writes or keeps is the one the others read, so each is one value across the pack."""
    values = {str(TK.event(r).params[key]) for r, names in REQUIRED.items() if key in names}
    assert len(values) == 1, f"{key}: {values}"


def _with_param(pack: Pack, rule: str, **changed: Any) -> Pack:
    spec = pack.event(rule)
    return replace(pack, events={**pack.events, rule: replace(spec, params={**spec.params, **changed})})


def test_16_1_1_france_step_1_keeps_the_counters_carrying_the_packs_vichy_code():
    """16.1.1 France Step 1 'remove all French units without a V': which code marks V counters is the
    pack's `vichy_code`, not a letter in code. Naming another code changes which French units survive."""
    answers = {"16.1.1:colonial_hexes": ["n2", "n3", "s1"]}
    state = france_position().state()
    as_printed = plan(state, mini_pack(), answers, "test-answers")
    assert final_location(as_printed, "fr-v") == "delay"  # Step 3: a V counter goes to the Delay Box
    other = _with_param(mini_pack(), "16.1.1", vichy_code="W")
    relabelled = plan(state, other, answers, "test-answers")
    assert event(relabelled, "16.1.1").status == "fired"
    assert final_location(relabelled, "fr-v") == "removed"  # Step 1: no longer a V counter


@pytest.mark.parametrize("key", ["requirement", "steps"])
def test_16_5_4_border_defense_area_without_its_requirement_is_a_one_line_input_error(key):
    """16.5.4 'two steps in each hex' / 'four steps in the Region': the kind and the number of steps of each
    `[border_defense.<area>]` are pack data with no default in code; one missing fails before the position
    is read (a bare position, Russia with no Posture, would otherwise be ignored)."""
    pack, state = _only("16.5.4")
    assert event(plan(state, pack, {}, "test-answers"), "16.5.4").status == "ignored"
    area = "bessarabia"
    broken = {k: v for k, v in pack.border_defense[area].items() if k != key}
    pack = replace(pack, border_defense={**pack.border_defense, area: broken})
    with pytest.raises(InputError) as caught:
        plan(state, pack, {}, "test-answers")
    message = str(caught.value)
    assert "\n" not in message
    assert f"[border_defense.{area}]" in message and key in message and "pack tk" in message
