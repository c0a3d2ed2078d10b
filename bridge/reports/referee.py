"""The referee's pass over a plan: owed steps of events that already fired (rules/owed.py).

Why in the reports wing: the engine plans one position; saying what a position already shows of an
earlier position's plan needs that earlier position (a log's step 0, the log as opened) and, for a
waiting choice, the plans of its options -- both read through the pipeline, the hall below this wing.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rules.owed import carried_out, mark_owed
from rules.packs import hex_label


def referee(pipeline: Any, path: str | Path, step: int | None, answers: Mapping[str, Any] | None,
            source: str, result: Any) -> dict[str, Any]:
    """`result.plan` with the owed events marked (6.2 Important: a fired event is carried out in full)
    and a waiting choice the position already shows carried out taken as answered. Returns the plan
    (the same dict, or the plan with the recognised answer)."""
    plan = result.plan
    if result.mapping is None:
        return plan
    position = result.mapping.position
    plan = _recognise_answers(pipeline, path, step, dict(answers or {}), source, plan, position)
    vassal = plan.get("vassal") or {}
    if vassal.get("kind") == "log" and (vassal.get("step") or 0) > 0:
        # The log as opened is the position the events fired in; its plan's steps are what is owed.
        base = pipeline.plan_file(path, step=0, answers=answers or None, answers_source=source).plan
        owed_against(plan, base, position, lambda h: hex_label(pipeline.pack, h))
    return plan


def owed_against(plan: dict[str, Any], base: Mapping[str, Any], position: Mapping[str, Any],
                 hex_name: Any = str) -> list[str]:
    """Mark `plan`'s events owed that fired in `base` and are applied in part in `position`."""
    before = {(e.get("rule"), e.get("source")): e for e in base.get("events", [])}
    owed = []
    for event in plan.get("events", []):
        earlier = before.get((event.get("rule"), event.get("source")))
        if earlier is not None and mark_owed(event, earlier, position, hex_name):
            owed.append(str(event.get("rule")))
    if owed:
        plan["due"] = True
    return owed


def _recognise_answers(pipeline: Any, path: str | Path, step: int | None, answers: dict[str, Any],
                       source: str, plan: dict[str, Any], position: Mapping[str, Any]) -> dict[str, Any]:
    """A waiting event's own choice whose one option the position already shows made (16.1.2's remedy
    "remove" once no unit of the country is left to remove): take that option as the answer.

    Why only one: where two options both need no move, the position does not tell which was chosen."""
    for _ in range(8):  # each recognised answer may unblock a later event's choice
        found = None
        for event in plan.get("events", []):
            own = [c for c in event.get("choices", []) if not c.get("answered")]
            if event.get("status") != "waiting" or not own:
                continue
            choice = own[0]
            if choice.get("multiple"):
                continue  # a list answer: the audit judges which option the moves amount to
            made = []
            for option in choice.get("options", []):
                given = {**answers, choice["id"]: option["value"]}
                trial = pipeline.plan_file(path, step=step, answers=given, answers_source=source).plan
                again = next((e for e in trial.get("events", []) if e.get("rule") == event.get("rule")
                              and e.get("source") == event.get("source")), None)
                if again is not None and again.get("status") == "fired" \
                        and carried_out(again, position):
                    made.append((option, trial))
            if len(made) == 1:
                found = (choice, *made[0])
                break
        if found is None:
            return plan
        choice, option, trial = found
        answers[choice["id"]] = option["value"]
        label = option.get("label", option["value"])
        for event in trial.get("events", []):
            if any(c.get("id") == choice["id"] for c in event.get("choices", [])):
                event["status"] = "not_due"
                event["why"] = [*event.get("why", []),
                                f"carried out: the position already shows the answer "
                                f"\"{label}\" made (no piece it moves is left to move)"]
                event["recognised_answer"] = {"choice": choice["id"], "value": option["value"]}
        trial["vassal"] = plan.get("vassal", trial.get("vassal"))
        plan = trial
    return plan
