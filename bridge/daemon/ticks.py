"""The step ticks the daemon's views show: by hand, or as the position judges an owed step (issue 37).

Why apart from the coordinator: two kinds of tick meet here. A due event's step no position judges is
ticked by a person and kept while the step exists; an owed event's step is ticked by itself once the
save shows it made, and a person's tick or untick of it is kept for that file only (a new save is
judged afresh), for at most MAX_FILES_WITH_TICKS files.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bridge.web import protocol

MAX_FILES_WITH_TICKS = 64  # files whose owed steps a person ticked or unticked, kept (oldest dropped)


class TickBook:
    def __init__(self) -> None:
        self._by_hand: set[str] = set()  # step keys of steps no position judges
        self._overrides: dict[str, dict[str, bool]] = {}  # file -> judged step key -> ticked

    def set(self, plan: Mapping[str, Any] | None, file: str, step: str, done: bool) -> None:
        """A person ticked or unticked `step` of `plan` (the current file's)."""
        if step in protocol.judged_step_keys(plan):
            overrides = self._overrides.setdefault(file, {})
            overrides.pop(step, None)
            if done != (step in protocol.made_step_keys(plan)):
                overrides[step] = done
            while len(self._overrides) > MAX_FILES_WITH_TICKS:
                del self._overrides[next(iter(self._overrides))]
        elif done:
            self._by_hand.add(step)
        else:
            self._by_hand.discard(step)

    def keep_only(self, live_keys: set[str]) -> None:
        """A new plan: a hand tick of a step it no longer has goes."""
        self._by_hand &= live_keys

    def ticks(self, plan: Mapping[str, Any] | None, file: str) -> dict[str, bool]:
        """What the views show for `plan`: by hand where no position judges the step, else as the
        position judges it unless a person ticked or unticked it for this file."""
        judged = protocol.judged_step_keys(plan)
        made = protocol.made_step_keys(plan)
        overrides = self._overrides.get(file, {})
        ticked = {key for key in self._by_hand if key not in judged}
        ticked |= {key for key in judged if overrides.get(key, key in made)}
        return {key: True for key in sorted(ticked)}
