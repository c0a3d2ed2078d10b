"""Parts of the save-to-overlay path cut for issue 15, each still doing its job: the answers file is
written when the answers change and only then (it was rewritten with every plan), and the stream
view's privacy filter gives the same projection when one walk of the plan serves every key of a
delta (docs/protocol.md, "Hidden pieces")."""

from __future__ import annotations

from bridge import protocol
from bridge.watch import _persisting


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
