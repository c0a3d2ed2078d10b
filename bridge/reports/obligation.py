"""One event a PBEM log owed: the steps it required, and the log step at which each was seen made.

Why a module of its own: the log audit (bridge/reports/audit.py) keeps one per event due in the log,
and the recognition of an unanswered choice from the moves (bridge/reports/recognise.py) judges one
per legal option the same way -- by pieces and places (rules/owed.py), never by a chat line.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rules.owed import (
    DEVIATION,
    DONE,
    REMAINING,
    UNSEEN,
    chain_of,
    judge_step,
    locations_of,
    placement_chains,
)


class Obligation:
    """An event due at `due_at_step`, owed by `faction`; `steps` once it fired (answers applied)."""

    def __init__(self, event: Mapping[str, Any], step: int, faction: str | None) -> None:
        self.rule, self.title, self.source = event["rule"], event.get("title", ""), event.get("source", "")
        self.due_at_step = step
        self.faction = faction
        self.status = event["status"]
        self.closed_lapsed = False
        self.steps: list[dict[str, Any]] = []
        self.choices = list(event.get("choices", []))
        self.waiting_for: list[str] = list(event.get("waiting_for") or ())  # choice ids it waits on
        own = {str(c.get("id")) for c in self.choices}
        self.asked_own = event["status"] == "waiting" and bool(own & set(self.waiting_for))
        self.reading: Any = None  # its choice as read from the moves (recognise.Recognition), if tried
        self.take_steps(event)

    @property
    def key(self) -> tuple[str, str]:
        return self.rule, self.source

    def take_steps(self, event: Mapping[str, Any]) -> None:
        """The required steps: those of the first plan in which the event fired (answered choices
        applied: an answered choice is audited against its answer)."""
        if self.steps or event.get("status") != "fired":
            return
        self.steps = [{"required": dict(s), "done_at_step": None, "verdict": None} for s in event["steps"]]
        self.choices = list(event.get("choices", []))
        chains = placement_chains(item["required"] for item in self.steps)
        for item in self.steps:
            item["chain"] = chain_of(item["required"], chains)

    def judge(self, step: int, position: Mapping[str, Any]) -> None:
        where = locations_of(position)
        countries = position.get("countries") or {}
        for item in self.steps:
            verdict = judge_step(item["required"], where, countries, item["chain"])
            item["verdict"], item["at"] = verdict, where.get(str(item["required"].get("counter")))
            if verdict == DONE:
                if item["done_at_step"] is None:
                    item["done_at_step"] = step
            else:
                item["done_at_step"] = None  # taken back: made only if it stands at the end

    def judge_all(self, positions: Iterable[tuple[int, Mapping[str, Any]]]) -> None:
        """Judge against every position from the step it became due on, in log order, until every
        step it requires stands made (later moves are play, not a taking back)."""
        for step, position in positions:
            if step >= self.due_at_step:
                self.judge(step, position)
                if self.complete():
                    return

    def complete(self) -> bool:
        """Every step a position can show stands made (at least one such step)."""
        tally = self.tally()
        return bool(tally[DONE]) and not tally[REMAINING] and not tally[DEVIATION]

    def adopt(self, trial: Obligation) -> None:
        """Take the steps and choices of the same event planned with an answer read from the moves."""
        self.steps, self.choices, self.status = trial.steps, trial.choices, trial.status
        self.waiting_for = trial.waiting_for
        self.closed_lapsed = False

    def any_done(self) -> bool:
        return any(item["verdict"] == DONE for item in self.steps)

    def tally(self) -> dict[str, int]:
        """How many of its steps stand done, remaining, elsewhere or unseen at the last judgement."""
        counts = {DONE: 0, REMAINING: 0, DEVIATION: 0, UNSEEN: 0}
        for item in self.steps:
            if item["verdict"] in counts:
                counts[item["verdict"]] += 1
        return counts

    def made_by_moves(self) -> int:
        """Its steps made after the step it became due on: what the moves did, not what stood already."""
        return sum(1 for item in self.steps
                   if item["verdict"] == DONE and (item["done_at_step"] or 0) > self.due_at_step)

    def own_open_choices(self) -> list[dict[str, Any]]:
        return [c for c in self.choices if not c.get("answered")]
