"""Owed steps for the daemon (issue 37 item 3): a save's plan judged against the events fired earlier.

Why here, not in `referee`: `adjutant check` has one file, and a log's step 0 is the position the
events fired in. The daemon sees a game as it goes, save after save: the save where 16.1.1 fired
(Poland's conquest, six moves) comes first, the one where only the Poland Conquered marker was
placed comes next. So the daemon keeps, for each event (rule and source), its steps from the last
plan where it was fired (`FiredMemory`); a later save's plan is judged against them
(`rules.owed.mark_owed`: 6.2 Important, a fired event is carried out in full), by pieces and places.
A log dropped into the folder is judged against its own earlier steps too (the last step where the
event was fired), and those win over what earlier files said.

Why the latest plan where it fired, not the first: the steps of the latest one start from where the
pieces stood last (a unit moved to the wrong box before the mark was placed is still owed from there),
and a re-answered choice (16.1.2's remedy) owes the steps of the answer given, not of an older one.

The daemon process holds the memory (`bridge.daemon.planner_process.ProcessPlanner`) and imports only
it; the judging runs in the planner's worker, where the pack and the position are (so the engine is
imported there, lazily).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

# What an event's memory keeps: enough for `mark_owed` (status, steps) and to find it again.
_KEPT = ("id", "rule", "title", "source")
# Steps' keys the daemon adds for its views (bridge/web/protocol.py): never part of what is owed.
_VIEW_KEYS = ("key", "made", "deviation")
MAX_REMEMBERED = 2000  # events (a plan has a few dozen; more means many games in one session)


def event_identity(event: Mapping[str, Any]) -> tuple[Any, Any]:
    """The same event in another position's plan (as `referee.owed_against` finds it)."""
    return event.get("rule"), event.get("source")


def fired_entry(event: Mapping[str, Any]) -> dict[str, Any] | None:
    """What an event owes, as an earlier position's fired plan entry: of a fired event, or of an owed
    one (its steps are what it still owes in full); None for any other."""
    if event.get("status") not in ("fired", "owed") or not event.get("steps"):
        return None
    entry = {key: event[key] for key in _KEPT if key in event}
    entry["status"] = "fired"
    entry["steps"] = [{k: v for k, v in step.items() if k not in _VIEW_KEYS}
                      for step in event["steps"] if isinstance(step, Mapping)]
    return entry


class FiredMemory:
    """The steps of every event seen fired this session and not settled since: its entry of the last
    plan where it fired (or was owed)."""

    def __init__(self, earlier: Iterable[Mapping[str, Any]] = ()) -> None:
        self._events: dict[tuple[Any, Any], dict[str, Any]] = {}
        for event in earlier:
            self.remember_event(event)

    def remember_event(self, event: Mapping[str, Any]) -> None:
        entry = fired_entry(event)
        if entry is None:
            return
        identity = event_identity(entry)
        self._events.pop(identity, None)  # the newest last: the oldest goes first when full
        self._events[identity] = entry
        while len(self._events) > MAX_REMEMBERED:
            del self._events[next(iter(self._events))]

    def remember(self, plan: Mapping[str, Any] | None, judged: bool = True) -> None:
        """Learn what `plan` fired. `judged`: its owed steps were judged (the daemon's plans; a log's
        inner steps are not): then an event it shows `not_due` is forgotten -- carried out, or lapsed
        before anything was made -- so the pieces moving on by later rules (a unit leaving the Delay
        Box turns later) are never read as a deviation of an event settled long ago."""
        for event in (plan or {}).get("events") or []:
            if not isinstance(event, Mapping):
                continue
            if judged and event.get("status") == "not_due":
                self._events.pop(event_identity(event), None)
            else:
                self.remember_event(event)

    def basis(self) -> list[dict[str, Any]]:
        """The remembered entries (JSON; what the planner's worker process is sent)."""
        return list(self._events.values())


def judge_owed(pipeline: Any, result: Any, earlier: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """`result.plan` (a `PlanResult`) with the events that fired in `earlier` and are only partly
    made in its position marked `owed` (`remaining`, `deviations`); the plan itself is changed."""
    from bridge.reports.referee import owed_against
    from rules.packs import hex_label

    plan = result.plan
    basis = list(earlier)
    if result.mapping is None or not basis:
        return plan
    position = result.mapping.position
    owed = owed_against(plan, {"events": basis}, position, lambda h: hex_label(pipeline.pack, h))
    for event in plan.get("events", []):
        if str(event.get("rule")) in owed and event.get("status") == "owed" and not event.get("factions"):
            # Who still has to move: the factions of the steps not made (the player view shows it them).
            wrong = (d.get("step", {}) for d in event.get("deviation_details", []))
            owing = [*event.get("remaining", []), *wrong]
            event["factions"] = sorted({str(s["faction"]) for s in owing if s.get("faction")})
    return plan


def plan_with_owed(pipeline: Any, path: str | Path, answers: Mapping[str, Any] | None,
                   earlier: Iterable[Mapping[str, Any]] = (),
                   answers_source: str = "<answers>") -> dict[str, Any]:
    """The daemon's plan of a save: `CheckPipeline.plan_file`, owed steps judged against `earlier`."""
    result = pipeline.plan_file(path, answers=dict(answers or {}) or None, answers_source=answers_source)
    return judge_owed(pipeline, result, earlier)


def replay_with_owed(pipeline: Any, path: str | Path, answers: Mapping[str, Any] | None,
                     earlier: Iterable[Mapping[str, Any]] = (), max_steps: int | None = None
                     ) -> list[tuple[int, dict[str, Any]]]:
    """The daemon's replay of a log (`step_plans.replay_plans`' (step, plan) list), its last step's
    plan judged against the events fired at its earlier steps (over `earlier`, what files before it
    showed): a log that made only some of a fired event's moves ends with the event owed."""
    from bridge.reports.step_plans import replay_results

    memory = FiredMemory(earlier)
    plans: list[tuple[int, dict[str, Any]]] = []
    last_events: Any = None
    for planned in replay_results(pipeline, path, answers=dict(answers or {}) or None, max_steps=max_steps):
        if planned.result is None:
            plan = {"events": planned.events}
            if planned.events is not last_events:  # (a step that changed nothing the rules read: as before)
                memory.remember(plan, judged=False)
                last_events = planned.events
        else:
            plan = judge_owed(pipeline, planned.result, memory.basis())
        plans.append((planned.step, plan))
    return plans


class SessionPlanner:
    """The daemon's `plan(path, answers)` and `replay(path, answers)` in this process, with owed steps
    judged as `ProcessPlanner` judges them in its worker (for `adjutant demo`'s planner and tests).

    `answers_for(path)`: answers the file comes with (the demo's story), under the ones given."""

    def __init__(self, pipeline: Any, answers_for: Any = None, answers_source: str = "<answers>",
                 max_steps: int | None = None) -> None:
        self.pipeline = pipeline
        self.fired = FiredMemory()
        self._answers_for = answers_for
        self._source = answers_source
        self._max_steps = max_steps

    def _answers(self, path: Path, answers: Mapping[str, Any]) -> dict[str, Any]:
        given = dict(self._answers_for(path) or {}) if self._answers_for is not None else {}
        return {**given, **answers}

    def plan(self, path: Path, answers: Mapping[str, Any]) -> dict[str, Any]:
        answers = self._answers(path, answers)
        plan = plan_with_owed(self.pipeline, path, answers, self.fired.basis(), self._source)
        self.fired.remember(plan)
        return plan

    def replay(self, path: Path, answers: Mapping[str, Any]) -> Iterator[tuple[int, dict[str, Any]]]:
        plans = replay_with_owed(self.pipeline, path, answers, self.fired.basis(), self._max_steps)
        if plans:
            self.fired.remember(plans[-1][1])
        yield from plans
