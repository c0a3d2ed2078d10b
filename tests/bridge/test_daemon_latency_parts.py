"""Parts of the save-to-overlay path cut for issue 15, each still doing its job: the answers file is
written when the answers change and only then (it was rewritten with every plan), and the stream
view's privacy filter gives the same projection when one walk of the plan serves every key of a
delta (docs/protocol.md, "Hidden pieces"); the "planning" status goes out once the job is sent."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from bridge.daemon.watch import _persisting
from bridge.web import protocol
from vassal_parser.errors import InputError


class CountingStore:
    path = "answers.json"

    def __init__(self, fail: bool = False) -> None:
        self.saved: list[dict] = []
        self.fail = fail

    def save(self, answers: dict) -> None:
        if self.fail:
            self.fail = False
            raise OSError(28, "No space left on device")
        self.saved.append(answers)


def test_answers_are_written_only_when_they_change() -> None:
    published, lines, store = [], [], CountingStore()
    publish = _persisting(published.append, store, lines.append, kept={"16.1.2:a": "x"})
    publish({"plan": {}, "answers": {"16.1.2:a": "x"}})  # what the store holds already
    publish({"status": "planning"})
    assert store.saved == [] and len(published) == 2
    publish({"answers": {"16.1.2:a": "y"}})
    publish({"plan": {}, "answers": {"16.1.2:a": "y"}})
    publish({"answers": {}})
    assert store.saved == [{"16.1.2:a": "y"}, {}]


def test_a_failed_write_is_tried_again_with_the_next_change() -> None:
    lines, store = [], CountingStore(fail=True)
    publish = _persisting(lambda changes: None, store, lines.append, kept={})
    publish({"answers": {"c": "1"}})
    assert store.saved == [] and "cannot keep the answers" in lines[0]
    publish({"answers": {"c": "1"}})
    assert store.saved == [{"c": "1"}]


PLAN = {
    "turn": "1939",
    "events": [{"id": "e1", "rule": "16.1.1", "title": "Poland", "steps": [{"text": "move RU Reserve"}]},
               {"id": "e2", "rule": "16.2.1", "title": "x", "steps": [{"text": "move GE-1"}]}],
    "hidden_pieces": ["RU Reserve"],
}


def test_stream_delta_projection_is_the_per_key_projection() -> None:
    history = protocol.StateHistory()
    changes = {"plan": PLAN, "notice": "RU Reserve moved", "file": "game.vsav", "answers": {},
               "ticks": {}, "status": "ok"}
    delta = history.update(changes)
    projected = protocol.project_delta(delta, "stream", history.state)["set"]
    one_by_one = {key: protocol.project_value(key, value, "stream", history.state)
                  for key, value in delta["set"].items()}
    assert projected == one_by_one
    assert "RU Reserve" not in str(projected)


def test_an_older_delta_is_filtered_by_its_own_plan() -> None:
    """A catch-up delta carrying an earlier plan: its privacy comes from that plan, not the current."""
    history = protocol.StateHistory()
    old = history.update({"plan": PLAN})
    history.update({"plan": {**PLAN, "hidden_pieces": []}})
    projected = protocol.project_delta(old, "stream", history.state)["set"]["plan"]
    assert "RU Reserve" not in str(projected)
    assert projected == protocol.public_plan(PLAN)


def _coordinator(plan_async, published: list) -> Any:
    from bridge.daemon.watch import PlanCoordinator

    return PlanCoordinator(lambda path, answers: {}, published.append, log_line=lambda line: None,
                           plan_async=plan_async)


def test_planning_is_published_after_the_job_is_sent_and_before_its_plan() -> None:
    """Issue 15: the "planning" status no longer stands between a save and its job reaching the
    worker; it still reaches the pages before the plan does."""
    published: list[dict] = []
    seen_at_send: list[list[str]] = []

    async def plan_async(path: Path, answers: dict) -> dict:
        seen_at_send.append([change.get("status") for change in published])  # the job is sent now
        await asyncio.sleep(0.01)  # the worker plans
        return {"turn": "1939", "events": []}

    async def run() -> bool:
        return await _coordinator(plan_async, published)._run(Path("game.vsav"), reason="file")

    assert asyncio.run(run()) is True
    assert seen_at_send == [[]]
    assert [change.get("status") for change in published] == ["planning", "ok"]


def test_a_round_refused_at_once_never_says_planning_after_its_error() -> None:
    published: list[dict] = []

    async def plan_async(path: Path, answers: dict) -> dict:
        raise InputError(path, "the planner went away; the next save will be planned afresh")

    async def run() -> bool:
        ok = await _coordinator(plan_async, published)._run(Path("game.vsav"), reason="file")
        await asyncio.sleep(0.01)  # anything still scheduled runs now
        return ok

    assert asyncio.run(run()) is False
    assert [change.get("status") for change in published] == ["error"]
