"""The demo story as one VASSAL log (story.vlog): what scripts/make_demo.py writes, and a faithful replay.

Step N of the log must be the position of save N+1: the timeline and the daemon's log replay then tell
the same story as the nine saves.
"""

from __future__ import annotations

import pytest

from bridge.pipeline import CheckPipeline
from module_patches.demo_story import FIXED_KEY, LOG_FILE, SAVES_DIR, load_story, log_stream, save_path
from module_patches.demo_world import DEMO_DIR
from vassal_parser.container import open_container

LOG = SAVES_DIR / LOG_FILE


def test_checked_in_log_is_what_the_script_makes() -> None:
    container = open_container(LOG)
    assert container.command_text() == log_stream(), "story.vlog is stale: run scripts/make_demo.py"
    assert container.read_entry("savedGame")[:7] == b"!VCSK" + f"{FIXED_KEY:02x}".encode()


@pytest.fixture(scope="module")
def pipeline() -> CheckPipeline:
    return CheckPipeline(DEMO_DIR / "adjutant-demo.vmod", "demo")


def test_every_log_step_is_the_next_scene_and_names_it_in_chat(pipeline: CheckPipeline) -> None:
    """§3.5: one replay step per scene after the first; each step's chat line is the scene's title."""
    story = load_story()
    game, info = pipeline.load(LOG)
    assert game.kind == "log" and info["steps"] == len(story) - 1
    for step, scene in enumerate(story):
        from_log = pipeline.plan_file(LOG, step=step).mapping.position
        from_save = pipeline.plan_file(save_path(scene)).mapping.position
        assert from_log == from_save, f"step {step} differs from {scene.file}.vsav"
        if step:
            chats = [c.fields["message"] for c in game.steps[step - 1] if c.kind == "chat"]
            assert chats and chats[0].endswith(scene.title)


def test_the_daemon_replays_the_story_log_step_by_step() -> None:
    """What `adjutant watch` does with story.vlog: every step planned; 16.1.1 became due at step 1
    (Poland conquered), 16.2.1 at step 4 (Case Yellow), 16.5.4 at the last step."""
    from bridge.cli.commands.watch import pipeline_planner
    from bridge.web import protocol

    _plan, replay = pipeline_planner(DEMO_DIR / "adjutant-demo.vmod", "demo")
    plans = list(replay(LOG, {}))
    assert [step for step, _plan in plans] == list(range(len(load_story())))
    became = {row["rule"]: row["steps"] for row in protocol.replay_timeline(plans)}
    assert became["16.1.1"][0] == 1 and became["16.2.1"][0] == 4 and became["16.5.4"][0] == 8
