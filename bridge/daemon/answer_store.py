"""Where the daemon keeps the players' answers across a restart: its own state folder.

Why not the watched folder: that folder is VASSAL's (and often a shared cloud folder); Adjutant never
writes there. The state folder is `$ADJUTANT_STATE_DIR` if set (tests), else `$XDG_STATE_HOME/adjutant`,
else `~/.local/state/adjutant` (on Windows `%LOCALAPPDATA%\\adjutant`). One file per watched folder,
named from a hash of its full path, so two games watched side by side keep their own answers.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from bridge.common.jsonout import header

MAX_ANSWERS_BYTES = 1024 * 1024


def state_dir() -> Path:
    """The daemon's own folder for what it must remember (answers), created on first write."""
    if os.environ.get("ADJUTANT_STATE_DIR"):
        return Path(os.environ["ADJUTANT_STATE_DIR"])
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "adjutant"
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "adjutant"


class AnswerStore:
    """The answers of one watched folder: read once at start, rewritten (atomically) on every change."""

    def __init__(self, watched: Path, folder: Path | None = None) -> None:
        self.watched = Path(watched).resolve()
        digest = hashlib.sha256(str(self.watched).encode("utf-8")).hexdigest()[:16]
        self.path = (folder or state_dir()) / f"answers-{digest}.json"

    def load(self) -> dict[str, Any]:
        """The saved answers; a missing, unreadable or foreign file gives none (never a crash)."""
        try:
            if self.path.stat().st_size > MAX_ANSWERS_BYTES:
                return {}
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("format") != "adjutant-answers":
            return {}
        answers = data.get("answers")
        return dict(answers) if isinstance(answers, dict) else {}

    def save(self, answers: dict[str, Any]) -> None:
        from vassal_parser.writer import write_atomically

        self.path.parent.mkdir(parents=True, exist_ok=True)
        document = {**header("answers"), "folder": str(self.watched), "answers": answers}
        write_atomically(self.path, json.dumps(document, indent=2, ensure_ascii=False).encode("utf-8"))
