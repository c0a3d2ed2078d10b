"""The daemon's start-up warm-up (issue 15) changes no plan: every demo save is planned by a warmed
pipeline exactly as by a fresh one without memos, and the warm-up leaves the layouts it built in the
position memo under the keys a save choosing the default boards looks up."""

from __future__ import annotations

from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK
from bridge.pipeline import CheckPipeline
from module_patches.demo_story import load_story, save_path
from vassal_parser.game import load_game


def test_warm_up_changes_no_plan_of_the_demo_story() -> None:
    """The demo story's events cite 16.1.1, 16.2.x (tests/demo): each save's plan is the same."""
    fresh = CheckPipeline(DEMO_MODULE, DEMO_PACK, remember=False)
    warmed = CheckPipeline(DEMO_MODULE, DEMO_PACK)
    seconds = warmed.warm_up()
    assert seconds >= 0
    for scene in load_story():
        path = save_path(scene)
        assert warmed.plan_file(path).plan == fresh.plan_file(path).plan, scene.file


def test_warm_up_builds_the_layouts_a_save_uses() -> None:
    warmed = CheckPipeline(DEMO_MODULE, DEMO_PACK)
    warmed.warm_up()
    built = dict(warmed.position_memo.layouts)
    assert built
    scene = load_story()[0]
    game = load_game(save_path(scene), warmed.module, memo=warmed.position_memo)
    game.position()
    used = [layout for layout in game._layouts.values() if layout is not None]
    assert used and all(any(layout is other for other in built.values()) for layout in used)
