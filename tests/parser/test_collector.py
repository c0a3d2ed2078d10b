"""The cyclic collector paused while a file is decoded (vassal_parser/collector.py): off inside the
block, back on after it, what the block allocated moved to the oldest generation without a young
collection, and a deliberate freeze by someone else left alone."""

from __future__ import annotations

import gc

from vassal_parser.collector import collector_paused, freeze_start_up_state, unfreeze_start_up_state


def _collections_in(block) -> list[int]:
    """The generations collected while `block` runs (gc.callbacks)."""
    seen: list[int] = []

    def note(phase: str, info: dict) -> None:
        if phase == "start":
            seen.append(info["generation"])

    gc.callbacks.append(note)
    try:
        block()
    finally:
        gc.callbacks.remove(note)
    return seen


def test_no_collection_inside_and_the_collector_back_on_after() -> None:
    assert gc.isenabled()

    def decode() -> None:
        with collector_paused():
            assert not gc.isenabled()
            kept.extend([[n] for n in range(20_000)])  # tracked objects, many times the threshold
        assert gc.isenabled()
        kept.append([0])  # an allocation right after the block: no collection of all the above

    kept: list[list[int]] = []
    assert _collections_in(decode) == []
    assert gc.get_freeze_count() == 0


def test_what_the_block_allocated_joins_the_oldest_generation() -> None:
    with collector_paused():
        kept = [[n] for n in range(5_000)]
    oldest = gc.get_objects(generation=2)
    assert any(thing is kept[-1] for thing in oldest)  # not walked as young on the way there
    del oldest
    # a cycle made inside is still garbage a full collection finds
    with collector_paused():
        cycle: list = []
        cycle.append(cycle)
        del cycle
    assert gc.collect() >= 1


def test_nested_and_disabled_collectors_are_left_as_they_are() -> None:
    with collector_paused():
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner block does not switch it back on
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_freeze_made_elsewhere_is_not_undone() -> None:
    gc.collect()
    gc.freeze()  # what the planner worker does with its start-up state
    try:
        frozen = gc.get_freeze_count()
        with collector_paused():
            _ = [[n] for n in range(1_000)]
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


def test_a_start_up_freeze_is_known_without_walking_the_permanent_generation(monkeypatch) -> None:
    """gc.get_freeze_count() walks every frozen object (2 ms for 26,000 of them, issue 27's batch):
    after freeze_start_up_state a decode must not ask it, and must leave that freeze in force."""
    gc.collect()
    freeze_start_up_state()
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0

        def walked() -> int:
            raise AssertionError("the permanent generation walked at a decode")

        monkeypatch.setattr(gc, "get_freeze_count", walked)
        for _decode in range(3):
            with collector_paused():
                _ = [[n] for n in range(1_000)]
            assert gc.isenabled()
        monkeypatch.undo()
        assert gc.get_freeze_count() == frozen
    finally:
        unfreeze_start_up_state()
    assert gc.get_freeze_count() == 0
    with collector_paused():  # unfrozen again: the decode's objects go to the oldest generation
        kept = [[n] for n in range(1_000)]
    assert any(thing is kept[-1] for thing in gc.get_objects(generation=2))
