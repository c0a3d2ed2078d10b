"""Where a genuine bug's traceback goes, so the user sees one line and a pointer, never a traceback.

Why a file: bad input already gets one line (`InputError`); anything else is our bug, and its
traceback is what a bug report needs — but dumped on a player's screen (or the daemon's console)
it hides the one thing they must know: which file, and that it is not their fault.

The log is `$ADJUTANT_ERROR_LOG` when set, else `$XDG_STATE_HOME/adjutant/errors.log` (default
`~/.local/state/adjutant/errors.log`), else the temp folder when that cannot be written. It is
kept under ~1 MB: a longer one is moved to `errors.log.1` first.
"""

from __future__ import annotations

import os
import tempfile
import time
import traceback
from pathlib import Path

MAX_LOG_BYTES = 1024 * 1024


def error_log_path() -> Path:
    """The error log's path (see the module docstring); its folder is not created here."""
    explicit = os.environ.get("ADJUTANT_ERROR_LOG")
    if explicit:
        return Path(explicit)
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "adjutant" / "errors.log"


def _append(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        if path.stat().st_size > MAX_LOG_BYTES:
            os.replace(path, path.with_name(path.name + ".1"))
    except FileNotFoundError:
        pass
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)


def log_bug(context: str, details: BaseException | str) -> Path | None:
    """Append a traceback (or a worker's traceback text) to the error log; its path, or None."""
    if isinstance(details, BaseException):
        details = "".join(traceback.format_exception(details))
    text = f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} {context}\n{details.rstrip()}\n"
    for path in (error_log_path(), Path(tempfile.gettempdir()) / "adjutant-errors.log"):
        try:
            _append(path, text)
            return path
        except OSError:
            continue
    return None


def bug_line(context: str, exc: BaseException | str, summary: str | None = None) -> str:
    """Log the bug and return the one line a user sees: what failed and where the details are."""
    if summary is None:
        summary = f"{type(exc).__name__}: {exc}" if isinstance(exc, BaseException) else "see the log"
    summary = " ".join(summary.split())
    if len(summary) > 160:
        summary = summary[:157] + "..."
    where = log_bug(context, exc)
    pointer = f"traceback in {where}" if where is not None else "no error log could be written"
    return f"{context}: internal error ({summary}); a bug in Adjutant, please report it; {pointer}"
