"""A log's plans step by step, each step's worked out only where it changed what the pack maps.

Why (issue 27): `check --timeline` needs every step's event statuses, and a campaign log holds
thousands of steps over thousands of pieces. Placing every piece, mapping every piece and running
the engine at every step made a 1,600-step log over 2,000 pieces take 20-45 s. Here:
  * the log is replayed once (`Game.walk`), and after each step only the pieces it touched are
    placed again;
  * only those pieces are mapped again (`VassalMapping.outcome_of`); the position is mapped from
    the pieces that give it anything (`VassalMapping.shapes_position`: a counter or a state write),
    so the thousands of markers no rule takes are not visited at every step;
  * the engine runs only where that position differs from the previous step's — most steps of a
    real log move a piece the rules do not read, or only chat — and the previous events stand;
    and a position met at an earlier step (a move taken back, a turn's routine repeated) takes
    that step's events: a position is known by the outcomes it was mapped from, each written
    once as text (`repr`: equal texts in the same order map to the same position), the last
    PLANS_KEPT positions kept;
  * the full plan (`CheckPipeline.plan_pieces`: unmapped counts, warnings, insets, text) is made
    once, for the last step.
Each step's events are what `plan_pieces` gives for `position_at(step)`: the engine's plan depends
only on the mapped position, the pack and the answers, and that position is the same whether the
pieces that add nothing to it are mapped or not (tests/bridge/test_step_plans.py compares both on
the demo story, a long synthetic log and logs with markers moving).
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from rules.engine import check_answer_ids
from rules.engine import plan as run_plan
from rules.state import GameState
from vassal_parser.errors import InputError

PLANS_KEPT = 256  # positions whose events are kept for a later step of the same log (a few KB each)
OUTCOME_TEXTS_KEPT = 100_000  # outcomes written as text (emptied when full; a few hundred bytes each)


@dataclass
class StepPlan:
    """One step of a log: its number, its plan's events (the engine's JSON form, without insets),
    the pieces before and after it (by id; `after` is the walk's own table, changed by the next
    step), and for the last step the full `PlanResult`."""

    step: int
    events: list[dict[str, Any]]
    before: Mapping[str, Any]
    after: Mapping[str, Any]
    result: Any = None
    planned: bool = True  # the engine ran for this step (False: an earlier step's events stand)
    # The mapped position (JSON) where it differs from the previous step's; None where it stands as it
    # was. The log audit (bridge/reports/audit.py) judges each owed step against it.
    position: Mapping[str, Any] | None = None


def step_plans(pipeline: Any, game: Any, info: Mapping[str, Any], answers: Mapping[str, Any] | None = None,
               answers_source: str = "<answers>") -> Iterator[StepPlan]:
    """(step, events, ...) for every position of a loaded log, 0 .. the last step, in order.

    `answers` is read again at every step: the log audit (bridge/reports/audit.py) takes an answer
    back once the position it was given for has passed (an answer belongs to the position that
    asked it; the options of 16.5.4 change as the Russian units move)."""
    check_answer_ids(answers or {}, pipeline.pack, answers_source)
    mapping, pack, prototypes = pipeline.mapping, pipeline.pack, pipeline.prototypes
    memo = pipeline.mapping_memo
    outcome_of, shapes = mapping.outcome_of, mapping.shapes_position
    source = f"{info['file']} (as mapped by {mapping.source})"
    last = len(game.steps)
    # The pieces that give the position something, in position order, with their outcomes.
    significant: dict[str, tuple[Any, Any]] = {}
    previous_key: tuple[Any, ...] | None = None
    events: list[dict[str, Any]] = []
    # The texts of the outcomes a position was mapped from, in order -> its events.
    kept: dict[tuple[Any, ...], tuple[list[dict[str, Any]], Mapping[str, Any]]] = {}
    texts: dict[int, tuple[Any, str]] = {}  # id(outcome) -> (the outcome, kept alive; its text)

    def text_of(outcome: Any) -> str:
        found = texts.get(id(outcome))
        if found is None:
            if len(texts) >= OUTCOME_TEXTS_KEPT:
                texts.clear()
            found = texts[id(outcome)] = (outcome, repr((outcome.counter, outcome.writes)))
        return found[1]

    for walked in game.walk():
        placed = walked.placed
        if walked.step == 0:
            for piece_id, piece in placed.items():
                outcome = outcome_of(piece, pack, prototypes, memo)
                if shapes(outcome):
                    significant[piece_id] = (piece, outcome)
        else:
            joined = False
            for piece_id in walked.before:
                piece = placed.get(piece_id)
                outcome = outcome_of(piece, pack, prototypes, memo) if piece is not None else None
                if outcome is not None and shapes(outcome):
                    joined = joined or piece_id not in significant
                    significant[piece_id] = (piece, outcome)
                else:
                    significant.pop(piece_id, None)
            if joined or walked.reordered:  # keep the position's order
                significant = {pid: significant[pid] for pid in placed if pid in significant}
        before: Mapping[str, Any] = ChainMap(walked.before, placed) if walked.step else {}
        if walked.step == last:
            result = pipeline.plan_pieces(walked.pieces(), {**info, "step": last}, answers, answers_source,
                                          layout_for=game.layout)
            yield StepPlan(last, result.plan["events"], before, placed, result,
                           position=result.mapping.position if result.mapping is not None else None)
            return
        planned = False
        changed: Mapping[str, Any] | None = None
        key = (tuple(sorted(map(str, answers or {}))),
               *(text_of(outcome) for _piece, outcome in significant.values()))
        if key != previous_key:
            previous_key = key
            found = kept.get(key)
            if found is None:
                pieces = [piece for piece, _outcome in significant.values()]
                position = mapping.map_pieces(pieces, pack, prototypes, memo=memo).position
                found = (events_of(pack, position, answers, answers_source, source), position)
                planned = True
                if len(kept) >= PLANS_KEPT:
                    del kept[next(iter(kept))]  # the oldest
                kept[key] = found
            events, changed = found
        yield StepPlan(walked.step, events, before, placed, None, planned, position=changed)


def events_of(pack: Any, position: Mapping[str, Any], answers: Mapping[str, Any] | None,
              answers_source: str, source: str) -> list[dict[str, Any]]:
    """The engine's events (JSON) for one mapped position: what a step of `step_plans` gives, and what
    the log audit asks again of the position a choice was asked at, once per legal answer."""
    state = GameState.from_json(position, source=source)
    plan = run_plan(state, pack, answers=dict(answers or {}), answers_source=answers_source, in_place=True)
    return plan.to_json()["events"]


def replay_plans(pipeline: Any, path: Any, answers: Mapping[str, Any] | None = None,
                 answers_source: str = "<answers>", max_steps: int | None = None
                 ) -> Iterator[tuple[int, dict[str, Any]]]:
    """(step, plan) for every position of a log: the daemon's replay (the overlay's "became due"
    timeline). Each step's plan is `{"events": ...}`, the engine's events as `step_plans` gives
    them; the last step's is the full plan (`CheckPipeline.plan_pieces`).

    Why not `CheckPipeline.plan_steps` (every position placed, mapped and planned whole): the same
    long logs `check --timeline` meets (issue 27) reach the daemon, and the replay the overlay
    waits for took as long as the timeline once did. A log of more than `max_steps` steps is
    refused before any step is planned, in one line."""
    for planned in replay_results(pipeline, path, answers, answers_source, max_steps):
        result = planned.result
        yield planned.step, (result.plan if result is not None else {"events": planned.events})


def replay_results(pipeline: Any, path: Any, answers: Mapping[str, Any] | None = None,
                   answers_source: str = "<answers>", max_steps: int | None = None) -> Iterator[StepPlan]:
    """`replay_plans`' steps as `StepPlan`s: the last one carries its `PlanResult` (its position too,
    which the daemon judges owed steps against: bridge/reports/session_owed.py)."""
    game, info = pipeline.load(path)
    if game.kind != "log":
        raise InputError(path, "is a save, not a log: it has no replay steps")
    if max_steps is not None and info["steps"] > max_steps:
        raise InputError(path, f"log has {info['steps']} steps, more than the {max_steps} a replay "
                               "follows; replay stopped")
    yield from step_plans(pipeline, game, info, answers, answers_source)
