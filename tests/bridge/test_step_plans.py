"""`bridge.reports.step_plans` (issue 27): a log's events step by step, the engine run only where a step
changed the mapped position, equal at every step to the full plan of `position_at(step)`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bridge.pipeline import CheckPipeline
from bridge.reports.step_plans import step_plans
from bridge.reports.timeline import build_timeline, describe_step

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "module_patches" / "demo"
sys.path.insert(0, str(ROOT / "benchmarks"))

from long_log import write_long_log  # noqa: E402


def _engine_events(events: list[dict]) -> list[dict]:
    return [{k: v for k, v in event.items() if k != "map"} for event in events]  # insets: last step only


def _reference(path: Path) -> list[list[dict]]:
    """Every step planned whole, as `check --timeline` did before issue 27."""
    pipeline = CheckPipeline(DEMO / "adjutant-demo.vmod", DEMO / "pack")
    game, info = pipeline.load(path)
    return [_engine_events(pipeline.plan_pieces(game.position_at(step), {**info, "step": step},
                                                layout_for=game.layout).plan["events"])
            for step in range(len(game.steps) + 1)]


def _walked(path: Path) -> tuple[list, list[list[dict]]]:
    pipeline = CheckPipeline(DEMO / "adjutant-demo.vmod", DEMO / "pack")
    game, info = pipeline.load(path)
    plans = list(step_plans(pipeline, game, info))
    return plans, [_engine_events(p.events) for p in plans]


def test_story_log_events_equal_full_plans_at_every_step() -> None:
    path = DEMO / "saves" / "story.vlog"
    plans, events = _walked(path)
    assert events == _reference(path)
    assert [p.step for p in plans] == list(range(9))
    assert plans[-1].result is not None and plans[-1].result.plan["events"] == plans[-1].events
    assert all(p.result is None for p in plans[:-1])


@pytest.mark.parametrize("marker_steps", [0, 3])
def test_long_log_events_equal_full_plans_and_plan_only_new_positions(
    tmp_path: Path, marker_steps: int
) -> None:
    """The story repeated (each cycle ends back at the first scene) with markers the pack does not map
    moving between its steps: the engine runs once per position never met before."""
    path = write_long_log(tmp_path / "long.vlog", steps=40, pieces=250, marker_steps=marker_steps)
    plans, events = _walked(path)
    assert events == _reference(path)
    last = len(plans) - 1
    ran = [p.step for p in plans if p.planned and p.step != last]
    # the cycle's positions (the story's nine, and a few more while stacks settle) planned once each
    assert 9 <= len(ran) <= 14
    if marker_steps:  # a step that moves only a marker never runs the engine
        assert all(step % (marker_steps + 1) == 1 for step in ran if step)
    else:  # nothing new after the second cycle
        assert max(ran) < 18


def test_steps_describe_the_pieces_before_and_after(tmp_path: Path) -> None:
    """The timeline's "what happened" reads each step's pieces before and after it."""
    path = DEMO / "saves" / "story.vlog"
    pipeline = CheckPipeline(DEMO / "adjutant-demo.vmod", DEMO / "pack")
    game, info = pipeline.load(path)
    reference = CheckPipeline(DEMO / "adjutant-demo.vmod", DEMO / "pack").load(path)[0]
    for planned in step_plans(pipeline, game, info):
        if not planned.step:
            continue
        before = {p.id: p for p in reference.position_at(planned.step - 1)}
        after = {p.id: p for p in reference.position_at(planned.step)}
        commands = game.steps[planned.step - 1]
        expected = describe_step(commands, before, after)
        assert describe_step(commands, planned.before, planned.after) == expected


def test_timeline_is_the_timeline_of_every_step_planned_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`check --timeline`'s document, through step_plans, equals the one made by planning every
    step's `position_at` whole (the code before issue 27), rows, descriptions and final plan."""
    import bridge.reports.step_plans as module
    from bridge.reports.step_plans import StepPlan

    path = write_long_log(tmp_path / "long.vlog", steps=24, pieces=120, marker_steps=1)
    new = build_timeline(CheckPipeline(DEMO / "adjutant-demo.vmod", DEMO / "pack"), path)

    def whole(pipeline, game, info, answers=None, answers_source="<answers>"):
        before: dict = {}
        for step in range(len(game.steps) + 1):
            pieces = game.position_at(step)
            result = pipeline.plan_pieces(pieces, {**info, "step": step}, answers, answers_source,
                                          layout_for=game.layout)
            after = {piece.id: piece for piece in pieces}
            # issue 37: the timeline judges owed steps against each step's mapped position
            yield StepPlan(step, result.plan["events"], before, after, result,
                           position=result.mapping.position)
            before = after

    monkeypatch.setattr(module, "step_plans", whole)
    old = build_timeline(CheckPipeline(DEMO / "adjutant-demo.vmod", DEMO / "pack"), path)
    assert new == old
    assert len(new["rows"]) > 5


def test_the_daemons_replay_gives_the_timeline_of_every_step_planned_whole(tmp_path: Path) -> None:
    """Issue 27: the overlay's "became due" (`protocol.replay_timeline`) from `replay_plans` equals
    the one from `CheckPipeline.plan_steps` (every position planned whole, the daemon's replay
    before), and the last step's plan is the full plan."""
    from bridge.reports.step_plans import replay_plans
    from bridge.web import protocol

    path = write_long_log(tmp_path / "long.vlog", steps=30, pieces=150, marker_steps=2)
    pipeline = CheckPipeline(DEMO / "adjutant-demo.vmod", DEMO / "pack")
    old = [(step, result.plan) for step, result in pipeline.plan_steps(path)]
    new = list(replay_plans(CheckPipeline(DEMO / "adjutant-demo.vmod", DEMO / "pack"), path))
    assert [step for step, _plan in new] == [step for step, _plan in old] == list(range(31))
    assert protocol.replay_timeline(new) == protocol.replay_timeline(old)
    assert protocol.replay_timeline(new)  # something became due along the way
    assert new[-1][1] == old[-1][1]
    for (_step, fresh), (_same, whole) in zip(new[:-1], old[:-1], strict=True):
        assert fresh["events"] == _engine_events(whole["events"])


def test_the_daemons_replay_refuses_a_log_longer_than_it_follows(tmp_path: Path) -> None:
    """One line naming the file, before any step is planned; a save is not replayed."""
    from bridge.reports.step_plans import replay_plans
    from vassal_parser.errors import InputError

    path = write_long_log(tmp_path / "long.vlog", steps=12, pieces=60)
    pipeline = CheckPipeline(DEMO / "adjutant-demo.vmod", DEMO / "pack")
    with pytest.raises(InputError) as refused:
        next(replay_plans(pipeline, path, max_steps=10))
    assert refused.value.source == str(path)
    assert "12 steps, more than the 10" in refused.value.message
    assert len(list(replay_plans(pipeline, path, max_steps=12))) == 13
    with pytest.raises(InputError, match="is a save"):
        next(replay_plans(pipeline, DEMO / "saves" / "01-opening.vsav"))
