"""Issue 12 (Totaler Krieg! items 1-6, and how plans read: 15, 17, 19): each test cites the clause that the
plan did not follow before the fix, on positions written from the rules text."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bridge.cli.main import main
from rules.engine import plan
from rules.packs import PACKS_DIR, load_pack
from rules.plan import FIRED, IGNORED, NOT_DUE, WAITING
from rules.state import GameState
from tests.rules.builder import Position, event, final_country, final_location, mini_pack
from vassal_parser.errors import InputError


def ostland(**fields) -> Position:
    """16.2.2 on the mini map: German units in Minsk, Kiev and Rostov (the rules text's example)."""
    return (
        Position("Axis", date="1940-07", **fields)
        .card("Axis", "27b")
        .country("Russia", "Soviet", posture="War")
        .unit("ge-minsk", "Germany", "e3906")
        .unit("ge-kiev", "Germany", "e3609")
        .unit("ge-rostov", "Germany", "e3315")
        .ceded("mk-byelorussia", "byelorussia", "force_pool:Axis")
        .ceded("mk-ukraine", "ukraine", "force_pool:Axis")
        .ceded("mk-donbass", "donbass", "force_pool:Axis")
        .marker("accord", "conditional_events:Axis", "ostland_accord", name="Ostland Accord")
    )


# ---- item 1: 16.2.2 Step 7 is a Soviet choice ----------------------------------------------------------

def test_16_2_2_step_7_is_a_soviet_choice_of_russian_one_step_infantry_placed_in_russia():
    """16.2.2 Step 7: "The Soviet faction may select 10 Russian one-step infantry units from the Soviet Force
    Pool and place them anywhere in Russia" -- before, only a note: no choice, nothing pending."""
    position = (
        ostland()
        .unit("ru-inf1", "Russia", "force_pool:Soviet", steps=1, tags=["infantry"])
        .unit("ru-inf2", "Russia", "force_pool:Soviet", steps=1, tags=["infantry"])
        .unit("ru-tank", "Russia", "force_pool:Soviet", steps=1, tags=["armor"])
    )
    result = position.plan({"16.2.2:influence": "none"})
    entry = event(result, "16.2.2")
    assert entry.status == WAITING and result.resulting_position is None
    choice = next(c for c in entry.choices if c.id == "16.2.2:place")
    assert choice.decider == "Soviet" and choice.multiple
    values = {o["value"] for o in choice.options}
    assert "ru-inf1>ru1" in values and "ru-inf2>ru2" in values
    assert not any(v.startswith("ru-tank") for v in values)  # not infantry
    # Minsk became a German Dependent in Step 3: no longer "in Russia"
    assert not any(v.endswith(">e3906") for v in values)
    labels = {o["value"]: o["label"] for o in choice.options}
    assert labels["ru-inf1>ru1"] == "ru-inf1 to Moscow (ru1)"
    answered = position.plan({"16.2.2:influence": "none", "16.2.2:place": ["ru-inf1>ru1", "ru-inf2>ru1"]})
    assert event(answered, "16.2.2").status == FIRED
    assert final_location(answered, "ru-inf1") == final_location(answered, "ru-inf2") == "ru1"
    with pytest.raises(InputError, match="each unit once"):
        position.plan({"16.2.2:influence": "none", "16.2.2:place": ["ru-inf1>ru1", "ru-inf1>ru2"]})


def test_16_2_2_step_7_without_russian_hexes_located_names_the_missing_fact():
    """Undecided where the pack does not locate Russia's hexes: the shipped tk pack locates five."""
    data = ostland().unit("ru-inf1", "Russia", "force_pool:Soviet", steps=1, tags=["infantry"]).data
    result = plan(GameState.from_json(data), load_pack("tk"), {"16.2.2:influence": "none"})
    entry = event(result, "16.2.2")
    assert ("country_hexes", "Russia") in {(m.fact, m.subject) for m in entry.missing}
    assert any("does not locate every hex of Russia" in c.prompt for c in entry.choices)


# ---- item 2: posture and Policy markers ----------------------------------------------------------------

def test_16_2_2_step_1_leaves_russia_without_a_war_posture_so_the_next_soviet_turn_reads_it_right():
    """16.5.5: "remove the Ostland Accord marker from Russia's Posture Box and change Russia's Posture to
    War" -- the posture is not War while the Accord stands. Before, the resulting position kept "War", and
    the next Soviet turn stripped the Ostland regions (16.5.5) and interned the Germans in Minsk (16.5.7)."""
    after = ostland().plan({"16.2.2:influence": "none"}).resulting_position
    russia = after["countries"]["Russia"]
    assert russia["posture"] is None and "Ostland Accord" in russia["markers"]
    after["turn"] = {**after["turn"], "phasing": "Soviet", "current_cards": {}}
    soviet = plan(GameState.from_json(after), mini_pack())
    rises = event(soviet, "16.5.5")
    assert rises.status == NOT_DUE and not rises.steps
    assert any("Posture is not War" in why for why in rises.why)
    assert event(soviet, "16.5.7").status == NOT_DUE  # German units in Minsk, Kiev, Rostov stay


def test_position_with_war_posture_beside_a_policy_marker_is_refused():
    position = Position("Soviet").country("Russia", "Soviet", posture="War", markers=["Ostland Accord"])
    with pytest.raises(InputError, match="posture War contradicts the Ostland Accord Policy marker"):
        position.plan()


def test_16_5_5_removing_the_accord_changes_the_posture_to_war_and_the_position_stays_valid():
    position = (
        Position("Soviet")
        .country("Russia", "Soviet", posture=None, markers=["Ostland Accord"])
        .ceded("mk-byelorussia", "byelorussia", "ceded_lands")
        .marker("accord", "posture:Russia", "ostland_accord", name="Ostland Accord")
    )
    result = position.plan({"16.5.5:end_accord": "yes"})
    assert final_country(result, "Russia")["posture"] == "War"
    assert final_country(result, "Russia")["markers"] == []
    GameState.from_json(result.resulting_position)  # the model holds: no contradiction after the event


# ---- item 3: annexed countries ------------------------------------------------------------------------

def test_annexed_country_counts_as_part_of_its_annexer_not_as_an_axis_minor_under_occupation():
    """16.7 example: "Since Poland has been incorporated into Germany" -- German units in Warsaw stand in
    Germany; before, an annexed Poland listed as Axis was put under Occupation (16.1.2) by them."""
    position = (
        Position("Axis")
        .country("Poland", "Axis", "conquered", annexed_to="Germany")
        .unit("ge-pz", "Germany", "p1", steps=3)
    )
    result = position.plan()
    occupation = event(result, "16.1.2")
    assert occupation.status == NOT_DUE and not any("Poland" in w for w in occupation.why)
    assert event(result, "16.1.3").status == NOT_DUE  # a German unit in Germany


def test_annexed_country_listed_active_or_annexed_to_nothing_is_refused():
    with pytest.raises(InputError, match="counts as part of Germany"):
        Position("Axis").country("Poland", "Axis", "active", annexed_to="Germany").plan()
    with pytest.raises(InputError, match="must name another country"):
        Position("Axis").country("Poland", "Western", "conquered", annexed_to="Atlantis").plan()
    with pytest.raises(InputError, match="loops back"):
        (Position("Axis").country("Poland", "Western", "conquered", annexed_to="Hungary")
         .country("Hungary", "Axis", "conquered", annexed_to="Poland").plan())


# ---- item 4: Case Yellow may select a Conquered Allied Minor Country ---------------------------------------

def test_16_2_1_offers_a_conquered_allied_minor_country():
    """16.2.1 "The Axis faction selects one Allied Minor Country"; 16.1.1 "A Country can be conquered any
    number of times" (reading 24, pack `select_conquered`). Before, only active ones were offered."""
    position = (
        Position("Axis")
        .card("Axis", "22a")
        .country("Poland", "Western", "conquered")
        .unit("ge-warsaw", "Germany", "p1")
    )
    entry = event(position.plan(), "16.2.1")
    assert entry.status == WAITING
    assert [o["value"] for o in entry.choices[0].options] == ["Poland"]


# ---- item 5: step texts that said the wrong thing -------------------------------------------------------

def test_16_2_1_france_step_3_says_occupied_france_becomes_a_german_dependent():
    position = (
        Position("Axis")
        .card("Axis", "22a")
        .country("France", "Western", posture="War")
        .unit("ge-paris", "Germany", "w3516")
        .ceded("mk-occfr", "occupied_france", "force_pool:Axis")
    )
    entry = event(position.plan({"16.2.1:country": "France", "16.2.1:influence": "none"}), "16.2.1")
    step3 = [s.text for s in entry.steps if s.step == "Step 3" and s.counter == "mk-occfr"]
    assert step3 and "Occupied France becomes a German Dependent" in step3[0]
    assert not any("becomes part of Germany" in s.text for s in entry.steps)


def test_16_7_internment_of_a_multi_step_unit_does_not_claim_it_goes_to_the_pending_card():
    """16.7 Internment Restrictions: the broken-down unit itself is eliminated (Delay Box with a Delay
    Stripe); only its one-step units go to the Pending Card. Before, the intern step said
    `to: pending:Axis`."""
    position = (
        Position("Axis")
        .country("Switzerland", "Neutral", "neutral")
        .unit("ge-3", "Germany", "ch1", steps=3, delay_stripe=True)
        .unit("ge-1a", "Germany", "force_pool:Axis", steps=1)
    )
    entry = event(position.plan(), "16.1.3")
    intern = next(s for s in entry.steps if s.action == "intern")
    assert intern.to is None
    moved = {s.counter: s.to for s in entry.steps if s.action in ("move", "eliminate")}
    assert moved["ge-3"] == "delay" and moved["ge-1a"] == "pending:Axis"


def test_16_2_2_steps_2_and_5_say_when_they_have_nothing_to_do():
    entry = event(ostland().plan({"16.2.2:influence": "none"}), "16.2.2")
    notes = {s.step: s.text for s in entry.steps if s.action == "note"}
    assert "nothing returns" in notes["Step 2"]
    assert "nothing to break down" in notes["Step 5"]


# ---- item 6: which pack, and from where ----------------------------------------------------------------

def test_a_folder_named_tk_in_the_current_directory_does_not_replace_the_built_in_pack(tmp_path, capsys):
    (tmp_path / "tk").mkdir()  # an unrelated folder that happens to be called tk
    position = tmp_path / "games" / "p.json"
    position.parent.mkdir()
    position.write_text(json.dumps({"pack": "tk", "turn": {"phasing": "Western"}}), encoding="utf-8")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        status = main(["plan", str(position), "--pack", "tk"])
    finally:
        os.chdir(cwd)
    out, err = capsys.readouterr()
    assert err == "" and status in (0, 3)
    assert "[pack tk: built-in]" in out.splitlines()[0]


def test_a_pack_folder_beside_the_position_wins_and_the_header_says_so(tmp_path, capsys):
    beside = tmp_path / "tk"
    beside.mkdir()
    for source in (PACKS_DIR / "tk").glob("*.toml"):
        (beside / source.name).write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    position = tmp_path / "p.json"
    position.write_text(json.dumps({"pack": "tk", "turn": {"phasing": "Western"}}), encoding="utf-8")
    main(["plan", str(position)])
    out = capsys.readouterr().out
    assert f"[pack tk: {beside}]" in out.splitlines()[0]


# ---- item 15: why lines show what decides ---------------------------------------------------------------

def _poland_conquest() -> Position:
    return (
        Position("Axis")
        .country("Poland", "Western")
        .country("Belgium-Holland", "Western")
        .unit("ge-1", "Germany", "p1").unit("ge-2", "Germany", "e3501").unit("ge-3", "Germany", "p3")
        .unit("ge-4", "Germany", "p4").unit("ge-5", "Germany", "p6")
    )


def test_why_lines_of_a_fired_event_leave_the_countries_that_did_not_trigger_it_to_detail(tmp_path, capsys):
    """Issue 12.15: under a Poland conquest (16.1.1), "Belgium-Holland: Axis ground units do not occupy ..."
    does not decide; it is kept in JSON `why_detail` and shown with --verbose."""
    result = _poland_conquest().plan()
    entry = event(result, "16.1.1")
    assert entry.status == FIRED
    data = next(e for e in result.to_json()["events"] if e["rule"] == "16.1.1")
    assert any(w.startswith("Poland:") for w in data["why"])
    assert not any(w.startswith("Belgium-Holland") for w in data["why"])
    assert any(w.startswith("Belgium-Holland") for w in data["why_detail"])
    assert "why: Belgium-Holland" not in result.render_text()
    assert "why: Belgium-Holland" in result.render_text(verbose=True)
    path = tmp_path / "p.json"
    path.write_text(json.dumps(_poland_conquest().data), encoding="utf-8")
    main(["plan", str(path), "--pack", str(mini_pack().path), "--verbose"])
    assert "why: Belgium-Holland" in capsys.readouterr().out


def test_why_lines_of_an_event_not_due_all_decide():
    result = Position("Axis").country("Belgium-Holland", "Western").plan()
    data = next(e for e in result.to_json()["events"] if e["rule"] == "16.1.1")
    assert data["why_detail"] == [] and data["why"][0].startswith("Belgium-Holland")


# ---- item 17: no internal ids in player-facing text -----------------------------------------------------

def test_plan_text_uses_adjectives_and_option_labels_not_ids():
    """Issue 12.17: "Germany ground units", "Russia one-step infantry", "Answered: remove"."""
    entry = event(ostland().plan({"16.2.2:influence": "none"}), "16.2.2")
    texts = " ".join([*entry.why, *(s.text for s in entry.steps)])
    assert "German" in texts and "Germany ground unit" not in texts
    occupied = (
        Position("Axis").country("Hungary", "Axis").country("Italy", "Axis").unit("it-1", "Italy", "h1")
    ).plan({"16.1.2:remedy:Hungary": "remove"})
    text = occupied.render_text()
    assert "answered: Remove all of the Minor Country's units" in text and "answered: 'remove'" not in text
    choice = event(occupied, "16.1.2").choices[0].to_json()
    assert choice["answer"] == "remove" and choice["answer_label"].startswith("Remove all")


# ---- item 19: a player view shows every step that moves that faction's counters -------------------------

def test_event_names_the_factions_whose_counters_it_moves():
    """Issue 12.19: 16.1.1 moves the Western faction's Polish units in the Axis turn, so the Western player
    view must show it (plan JSON `factions`, per step `faction`)."""
    result = _poland_conquest().unit("pl-1", "Poland", "force_pool:Western").plan()
    data = next(e for e in result.to_json()["events"] if e["rule"] == "16.1.1")
    assert "Western" in data["factions"]
    moved = next(s for s in data["steps"] if s["counter"] == "pl-1")
    assert moved["faction"] == "Western"


def test_overlay_player_view_reads_the_factions_list():
    overlay = Path(__file__).resolve().parents[2] / "bridge" / "web" / "overlay"
    script = (overlay / "overlay.js").read_text("utf-8")
    assert "event.factions.some((f) => sameFaction(f, faction))" in script


def test_ignored_status_still_possible():
    # 16.5.4 with Russia at War: "Ignore this event" stays ignored (no fact is read).
    result = Position("Soviet").country("Russia", "Soviet", posture="War").plan()
    assert event(result, "16.5.4").status == IGNORED


def test_no_empty_hex_list_reads_as_a_condition():
    """Issue 9 ("do not occupy none"): 16.3.5 with no Axis unit in any white-star hex says so in words, and
    says what happens (issue 12.18: the marker is removed, not merely "due")."""
    position = Position("Western").marker("rusi", "strategic_warfare", "reduced_us_impact")
    entry = event(position.plan(), "16.3.5")
    assert entry.status == FIRED
    assert "occupy none of the 3 hexes" in entry.why[0] and "(none)" not in entry.why[0]
    removal = "remove the Reduced US Impact marker from the Strategic Warfare Box and set it aside"
    assert removal in entry.why[0]


def test_16_1_1_step_4_says_what_the_ceded_land_becomes():
    """16.1.1 example: "The Polish Corridor is now part of Germany"."""
    position = _poland_conquest().ceded("mk-corridor", "polish_corridor", "force_pool:Axis")
    entry = event(position.plan(), "16.1.1")
    step4 = next(s.text for s in entry.steps if s.step == "Step 4")
    assert "Polish Corridor lies in Poland; it becomes part of Germany" in step4
