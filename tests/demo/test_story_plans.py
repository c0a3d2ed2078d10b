"""End to end: demo save -> reader -> pack mapping -> rules engine -> plan, for every event of the story.

Each test names the rule it checks; expectations are the rules text's steps (tk-16-conditional-events).
"""

from __future__ import annotations

import pytest

from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK
from bridge.pipeline import CheckPipeline
from module_patches.demo_story import load_story, save_path

STORY = {scene.file: scene for scene in load_story()}


@pytest.fixture(scope="module")
def pipeline() -> CheckPipeline:
    return CheckPipeline(DEMO_MODULE, DEMO_PACK)


def plan_of(pipeline: CheckPipeline, name: str, answers: dict | None = None) -> dict:
    scene = STORY[name]
    result = pipeline.plan_file(save_path(scene), answers=scene.answers if answers is None else answers)
    assert result.exit_status == (1 if result.plan["due"] else 0)
    return result.plan


def event(plan: dict, rule: str) -> dict:
    return next(e for e in plan["events"] if e["rule"] == rule)


def moves(entry: dict) -> dict[str, str]:
    return {s["counter"]: s["to"] for s in entry["steps"] if s["action"] == "move"}


@pytest.mark.parametrize("name", list(STORY))
def test_each_scene_makes_exactly_the_story_events_due(pipeline, name) -> None:
    plan = plan_of(pipeline, name)
    due = [e["rule"] for e in plan["events"]
           if e["status"] == "fired" or (e["status"] == "waiting" and e["choices"])]
    assert due == STORY[name].expect
    assert plan["vassal"]["unmapped_pieces"] == {} and plan["vassal"]["unmapped_places"] == {}
    assert plan["vassal"]["warnings"] == []


def test_opening_position_is_read_right(pipeline) -> None:
    plan = plan_of(pipeline, "01-opening")
    assert (plan["phasing"], plan["turn"], plan["due"]) == ("Axis", "Sep-Oct 1939", False)
    assert plan["vassal"]["module"] == {"name": "Adjutant Demo", "version": "1.0", "vassal_version": "3.7.12"}
    assert plan["vassal"]["extensions"] == []


def test_16_1_1_poland_conquered_and_polish_corridor_ceded(pipeline) -> None:
    entry = event(plan_of(pipeline, "02-poland-falls"), "16.1.1")
    assert entry["status"] == "fired"
    moved = moves(entry)
    assert {moved[c] for c in ("PO-1", "PO-2", "PO-RES")} == {"conquered_minors:Western"}  # Step 2
    assert moved["BR-POL"] == "delay"  # Step 3: British 1-2-2 Pol colonial unit
    assert moved["GE-CORRIDOR"] == "ceded_lands"  # Step 4: Polish Corridor Ceded Land marker
    steps = {s["counter"]: s["step"] for s in entry["steps"] if s["counter"]}
    assert (steps["BR-POL"], steps["GE-CORRIDOR"]) == ("Step 3", "Step 4")


def test_16_1_1_not_due_again_once_poland_is_conquered(pipeline) -> None:
    """The Conquered marker in Poland's Posture Box is read as status 'conquered'."""
    entry = event(plan_of(pipeline, "04-hungary-occupied"), "16.1.1")
    assert entry["status"] == "not_due"
    assert not any("Poland" in why for why in entry["why"])


def test_16_1_2_hungary_under_occupation_by_an_italian_unit(pipeline) -> None:
    entry = event(plan_of(pipeline, "04-hungary-occupied"), "16.1.2")
    assert entry["status"] == "waiting"
    assert any("Hungary" in why and "IT-1" in why for why in entry["why"])
    assert [c["id"] for c in entry["choices"]] == ["16.1.2:remedy:Hungary"]


def test_16_2_1_case_yellow_on_france_with_the_story_answers(pipeline) -> None:
    plan = plan_of(pipeline, "05-case-yellow")
    entry = event(plan, "16.2.1")
    assert entry["source"] == "card:22a"  # the Axis Current Card read from the Boxes window
    assert entry["status"] == "fired"
    moved = moves(entry)
    assert moved["BR-FRA"] == "delay"  # France Step 2
    assert moved["GE-ALSACE"] == moved["GE-OCCFRANCE"] == "ceded_lands"  # France Step 3
    removed = {s["counter"] for s in entry["steps"] if s["action"] == "remove_from_game"}
    assert {"FR-1", "FR-2"} <= removed and "FR-V" not in removed  # Step 1 keeps V counters


def test_16_2_1_waits_for_the_axis_choice_without_answers(pipeline) -> None:
    entry = event(plan_of(pipeline, "05-case-yellow", answers={}), "16.2.1")
    assert entry["status"] == "waiting"
    choice = entry["choices"][0]
    assert choice["id"] == "16.2.1:country"
    # Poland, conquered in scene 1 and still an Allied Minor Country with German units in Warsaw, is
    # offered too: 16.2.1 "selects one Allied Minor Country"; 16.1.1 "can be conquered any number of
    # times" (docs/rules-readings.md 24, pack option `select_conquered`).
    assert {o["value"] for o in choice["options"]} == {"France", "Belgium-Holland", "Poland"}


def test_16_3_3_their_finest_hour_and_16_3_4_paris_threatened(pipeline) -> None:
    plan = plan_of(pipeline, "06-finest-hour")
    finest, paris = event(plan, "16.3.3"), event(plan, "16.3.4")
    assert moves(finest) == {"BR-TFH-1": "delay", "BR-TFH-2": "delay"}
    assert moves(paris) == {"BR-PT": "delay"}


def test_16_3_3_and_16_3_4_once_per_game_after_their_counters_left_the_box(pipeline) -> None:
    plan = plan_of(pipeline, "07-reduced-us-impact")
    for rule in ("16.3.3", "16.3.4"):
        entry = event(plan, rule)
        assert entry["status"] == "not_due"
        assert any("once per game" in why for why in entry["why"])


def test_16_3_5_reduced_us_impact_placed(pipeline) -> None:
    entry = event(plan_of(pipeline, "07-reduced-us-impact"), "16.3.5")
    assert entry["status"] == "fired"
    assert moves(entry) == {"US-RUI": "strategic_warfare"}


def test_16_3_5_reduced_us_impact_removed_when_london_is_retaken(pipeline) -> None:
    entry = event(plan_of(pipeline, "08-london-liberated"), "16.3.5")
    assert entry["status"] == "fired"
    assert [(s["action"], s["counter"]) for s in entry["steps"]] == [("set_aside", "US-RUI")]


def test_16_5_4_border_defense_met_then_failed(pipeline) -> None:
    met = event(plan_of(pipeline, "03-poland-settled"), "16.5.4")
    assert met["status"] == "not_due"
    failed = event(plan_of(pipeline, "09-border-defense"), "16.5.4")
    assert failed["status"] == "fired"
    assert any("Brest-Litovsk (e3806): 0/2" in why for why in failed["why"])  # one place-name form (12.18)
    assert moves(failed) == {"RU-1": "e3806"}  # the story's Axis redeployment answer


def test_masked_and_hidden_pieces_are_marked_concealed(pipeline) -> None:
    """Face-down cards (VASSAL Mask) and the hidden Soviet reserve (Invisible) are flagged so a
    stream view never shows them; the hidden unit is still a counter of the position."""
    plan = plan_of(pipeline, "01-opening")
    concealed = plan["vassal"]["concealed"]
    assert concealed.pop("RU-RES") == "hidden"
    assert sorted(concealed.values()) == ["masked", "masked"]  # the two cards in hand (ignored pieces)
    assert all(key.startswith("piece:") for key in concealed)
    plan5 = plan_of(pipeline, "05-case-yellow")
    assert sorted(plan5["vassal"]["concealed"].values()) == ["hidden", "masked"]  # 22a is face up now


def test_demo_pack_runs_exactly_the_tk_events_and_cards() -> None:
    """The demo differs from TK only in geography: rule 16 order, events and cards are TK's."""
    from rules.packs import load_pack

    demo, tk = load_pack(DEMO_PACK), load_pack("tk")
    assert (demo.order, demo.events, demo.cards) == (tk.order, tk.events, tk.cards)


@pytest.mark.parametrize("level, steps, occupied", [(1, 2, True), (2, 1, False)])
def test_16_1_2_a_reduced_german_unit_no_longer_occupies_hungary(pipeline, tmp_path, level, steps,
                                                                 occupied) -> None:
    """16.1.2: only a Germany *multi-step* ground unit puts an Axis minor under Occupation. The demo
    reads a unit's reduced side from its Layer `Strength` level 2 (vassal.toml: steps_delta -1)."""
    from module_patches.demo_module import moduledata_xml
    from module_patches.demo_story import scene_streams
    from module_patches.demo_world import WORLD
    from vassal_parser.writer import write_save

    opening = load_story()[0]
    opening.place["GE-1"] = "e3403"  # GE 1 Pz into Budapest
    opening.level["GE-1"] = level
    stream = scene_streams(WORLD(), [opening])[0][1]
    path = write_save(tmp_path / "budapest.vsav", stream, module_metadata=moduledata_xml(WORLD()),
                      module_version="1.0", key=7)
    pieces, _info = pipeline.pieces_of(path)
    counter = next(c for c in pipeline.mapping.map_pieces(pieces, pipeline.pack).position["counters"]
                   if c["id"] == "GE-1")
    assert (counter["steps"], counter.get("flipped", False)) == (steps, level == 2)
    entry = event(pipeline.plan_file(path).plan, "16.1.2")
    assert (entry["status"] != "not_due") is occupied, entry["why"]
