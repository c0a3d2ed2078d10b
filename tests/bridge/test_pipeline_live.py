"""What CheckPipeline adds for the live overlay: map insets, concealed names, one-pass log replay.

All on the demo module, pack and saves (module_patches/demo/), read with the real parser.
"""

from __future__ import annotations

import json
import math
import re
import zipfile
from pathlib import Path

import pytest

import bridge.pipeline
from bridge.cli.commands.watch import pipeline_planner
from bridge.mapping.inset import event_focus, hex_places
from bridge.pipeline import CheckPipeline
from bridge.web import protocol
from module_patches.demo_story import load_story, save_path
from tests.bridge.savefiles import deobfuscate
from vassal_parser.game import load_game
from vassal_parser.layout import MapLayout
from vassal_parser.module import load_module

PROJECT = Path(__file__).resolve().parents[2]
DEMO = PROJECT / "module_patches" / "demo"
MODULE = DEMO / "adjutant-demo.vmod"
PACK = DEMO / "pack"
SAVES = DEMO / "saves"

pytestmark = pytest.mark.skipif(not MODULE.exists(),
                                reason=f"demo module not built at {MODULE} (scripts/make_demo.py builds it)")


@pytest.fixture(scope="module")
def pipeline() -> CheckPipeline:
    return CheckPipeline(MODULE, PACK)


def _scene(name: str):
    return next(scene for scene in load_story() if scene.file == name)


def _event(plan: dict, rule: str) -> dict:
    return next(event for event in plan["events"] if event["rule"] == rule)


def _independent_layout(save: Path) -> tuple[MapLayout, list]:
    """The Europe map laid out from the module and the save's own board choice, outside the pipeline."""
    module = load_module(MODULE, [])
    game = load_game(save, module)
    map_def = module.map_by_id("Europe")
    return MapLayout(map_def, game.board_selections.get(map_def.identifier)), game.position()


def test_16_1_1_poland_inset_hexes_come_from_the_module_grid(pipeline: CheckPipeline) -> None:
    """16.1.1 (Poland conquered): the inset holds Poland's hexes, centred where MapLayout.point_for
    puts them, outlined by the module's own hex polygons."""
    save = save_path(_scene("02-poland-falls"))
    plan = pipeline.plan_file(save).plan
    inset = _event(plan, "16.1.1")["map"]
    layout, pieces = _independent_layout(save)
    assert inset["map"] == "Europe"
    focus = {hex_["name"] for hex_ in inset["hexes"] if hex_["focus"]}
    assert {"e3804", "e3501", "e3706"} <= focus  # Warsaw, Krakow (Poland's Cities) and the step's e3706
    for hex_ in inset["hexes"]:
        center = layout.point_for(hex_["name"])
        assert center is not None and hex_["center"] == list(center)
        assert hex_["points"] == [list(p) for p in layout.cell_polygon(*center)]
        assert layout.location_name(*center) == hex_["name"]
    # neighbours only: every other hex is one hex (the grid's row height dy) from a focus hex
    focus_centres = [h["center"] for h in inset["hexes"] if h["focus"]]
    hex_height = layout.board_at(*focus_centres[0]).board.grid.dy
    for hex_ in inset["hexes"]:
        if not hex_["focus"]:
            assert min(math.dist(hex_["center"], c) for c in focus_centres) <= 1.05 * hex_height, hex_
    assert len(focus) < len(inset["hexes"]) <= 48
    # counters: every visible piece standing in those hexes, at its own map point
    names = {h["name"] for h in inset["hexes"]}
    expected = sorted((p.basic_name, p.x, p.y) for p in pieces
                      if p.map == "Europe" and p.location in names and not (p.hidden_by or p.masked_by))
    assert sorted((c["name"], c["x"], c["y"]) for c in inset["counters"]) == expected
    assert ("GE 1 Pz", *layout.point_for("e3804")) in expected


def test_16_2_1_case_yellow_inset_centres_on_paris(pipeline: CheckPipeline) -> None:
    """16.2.1 Case Yellow (France selected): Paris w3516 is in focus, drawn from the module grid."""
    scene = _scene("05-case-yellow")
    plan = pipeline.plan_file(save_path(scene), answers=scene.answers).plan
    inset = _event(plan, "16.2.1")["map"]
    layout, _pieces = _independent_layout(save_path(scene))
    paris = next(h for h in inset["hexes"] if h["name"] == "w3516")
    assert paris["focus"] and paris["label"] == "Paris"
    assert paris["center"] == list(layout.point_for("w3516"))
    assert any(c["counter"] == "GE-3" and c["hex"] == "w3516" for c in inset["counters"])


def test_events_not_due_get_no_inset(pipeline: CheckPipeline) -> None:
    plan = pipeline.plan_file(save_path(_scene("01-opening"))).plan
    assert all("map" not in event for event in plan["events"])


def test_hex_places_inverts_the_pack_templates() -> None:
    hex_maps = [("Main", re.compile("[0-9]{4}"), "tk-{location}"), ("East", re.compile("e.+"), "{location}")]
    places = hex_places(["tk-1203", "e1", "tk-x", "zz"], hex_maps)
    assert {k: (v.map_id, v.location) for k, v in places.items()} == {
        "tk-1203": ("Main", "1203"), "e1": ("East", "e1")}


def test_event_focus_prefers_steps_over_why_lines() -> None:
    known = {"a1": None, "b2": None, "c3": None}
    step = {"from": "a1", "to": "box", "text": "move X from a1 to b2"}
    event = {"why": ["France: c3 not held"], "steps": [step]}
    assert event_focus(event, known) == ["a1", "b2"]
    assert event_focus({"why": ["c3 is held"], "steps": []}, known) == ["c3"]


# --- concealed pieces by name ---------------------------------------------------------------------


def test_concealed_names_cover_the_hidden_unit_and_masked_cards(pipeline: CheckPipeline) -> None:
    plan = pipeline.plan_file(save_path(_scene("04-hungary-occupied"))).plan
    names = set(plan["vassal"]["concealed_names"])
    assert {"RU Secret Reserve", "RU-RES", "Card 22a Case Yellow", "Card W1 Rearmament"} <= names
    assert "Face-down card" not in names  # the mask's face is what everyone sees


def test_stream_drops_every_line_naming_a_concealed_piece_by_name(pipeline: CheckPipeline) -> None:
    """Lines that name the hidden Soviet unit or a masked card by NAME (not by counter id) never reach
    the stream; the same plan keeps them for the players' own views."""
    plan = pipeline.plan_file(save_path(_scene("04-hungary-occupied"))).plan
    event = _event(plan, "16.1.2")
    event["why"].append("RU Secret Reserve waits in the Soviet Force Pool")
    event["steps"].append({"rule": "16.1.2", "step": None, "action": "note", "counter": None,
                           "text": "the Axis holds Card 22a Case Yellow face down"})
    event["choices"][0]["options"].append({"value": "x", "label": "reveal RU Secret Reserve"})
    public = protocol.project_value("plan", protocol.annotate_step_keys(plan), "stream")
    text = json.dumps(public)
    for name in plan["vassal"]["concealed_names"]:
        assert name not in text
    kept = _event(public, "16.1.2")
    assert kept["why"] and kept["title"] == "Axis Minor Country Occupation"
    assert len(kept["steps"]) == len(event["steps"]) - 1
    assert "RU Secret Reserve" in json.dumps(protocol.project_value("plan", plan, "player"))


# --- one-pass replay -------------------------------------------------------------------------------


def test_log_replay_reads_the_file_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The daemon's replay of a .vlog plans every step (0 .. N) from ONE read of the file."""
    from vassal_parser.writer import write_game_file

    with zipfile.ZipFile(SAVES / "02-poland-falls.vsav") as archive:
        stream = deobfuscate(archive.read("savedGame"))
        moduledata = archive.read("moduledata")
    chat = "".join(f"\x1bLOG\tCHAT<Alice> - step {n}" for n in range(5))
    log = write_game_file(tmp_path / "session.vlog", stream + chat, module_metadata=moduledata)
    loads: list[str] = []
    real_load = bridge.pipeline.load_game

    def counting_load(path, module=None, memo=None):
        loads.append(str(path))
        return real_load(path, module, memo=memo)

    monkeypatch.setattr(bridge.pipeline, "load_game", counting_load)
    _plan_file, replay_file = pipeline_planner(MODULE, str(PACK))
    plans = list(replay_file(log, {}))
    assert [step for step, _plan in plans] == list(range(6))
    assert plans[-1][1]["vassal"]["step"] == 5  # the last step's plan is the full one
    assert all(set(plan) == {"events"} for _step, plan in plans[:-1])  # the others: their events
    assert [path for path in loads if path == str(log)] == [str(log)]  # (the start-up warm-up reads its own)
