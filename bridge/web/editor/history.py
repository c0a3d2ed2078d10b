"""The editor's undo history and its count of unsaved changes, kept on the server with the working copy.

Why on the server: the working copy lives there (bridge/web/editor/model.py), so a page that is reloaded,
or opened in a second tab, meets edits it did not make. Were the history kept in the page, a reload
would show those edits as "ready" with nothing to undo, and the toggling keys (C, K, P) would then flip
state the user cannot see. Kept here, every page sees the same history and the same unsaved count.

A step is what the user did once (one key, one choice), even when the page had to send it in several
messages (a whole-map selection is split under the message limit): messages that carry the same `step`
token are one step. Each step keeps, per touched entry ("hex" e3804, "border" area, "box" zone, the
"complete" table), the value before its first message and the value after its last; undo puts the
before values back, redo the after values.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

Key = tuple[str, str]  # ("hex", "e3804") | ("border", area) | ("box", zone) | ("complete", "")
MAX_STEPS = 500  # older steps are forgotten: a session of a whole map is a few hundred steps


@dataclass
class Step:
    token: str
    before: dict[Key, Any] = field(default_factory=dict)
    after: dict[Key, Any] = field(default_factory=dict)


class EditHistory:
    """Undo/redo stacks of steps, over entries read and written through two callbacks."""

    def __init__(self, read: Callable[[Key], Any], write: Callable[[Key, Any], None]) -> None:
        self._read = read
        self._write = write
        self.undo_steps: list[Step] = []
        self.redo_steps: list[Step] = []

    def record(self, token: str | None, keys: Iterable[Key], change: Callable[[], None]) -> None:
        """Run `change` (an edit touching `keys`) as part of step `token`; nothing is kept if it raises."""
        keys = list(dict.fromkeys(keys))
        before = {k: copy.deepcopy(self._read(k)) for k in keys}
        change()
        last = self.undo_steps[-1] if self.undo_steps else None
        step = last if last is not None and token and last.token == token and not self.redo_steps else None
        if step is None:
            step = Step(token or "")
            self.undo_steps.append(step)
            del self.undo_steps[:-MAX_STEPS]
        self.redo_steps.clear()
        for key in keys:
            step.before.setdefault(key, before[key])
            step.after[key] = copy.deepcopy(self._read(key))

    def forget(self, keys: set[Key]) -> None:
        """Drop the steps that touched entries no longer in the files (a rule dropped and saved: the
        pack no longer has it, so its undo has nothing to put back into)."""
        if keys:
            self.undo_steps = [s for s in self.undo_steps if not keys & s.before.keys()]
            self.redo_steps = [s for s in self.redo_steps if not keys & s.before.keys()]

    def undo(self) -> bool:
        if not self.undo_steps:
            return False
        step = self.undo_steps.pop()
        for key, value in step.before.items():
            self._write(key, copy.deepcopy(value))
        self.redo_steps.append(step)
        return True

    def redo(self) -> bool:
        if not self.redo_steps:
            return False
        step = self.redo_steps.pop()
        for key, value in step.after.items():
            self._write(key, copy.deepcopy(value))
        self.undo_steps.append(step)
        return True
