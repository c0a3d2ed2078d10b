"""A plan's exit status: the one rule `adjutant check` of one file and of many (batch_check.py) share.

Why its own module: both the check command and the batch checker read it, and the batch checker is
itself called by the check command; kept beside neither, it lets both import it without a circle
(issue 39).
"""

from __future__ import annotations

from typing import Any

EXIT_NOTHING_DUE, EXIT_DUE, EXIT_UNDECIDED = 0, 1, 3


def exit_status(plan: dict[str, Any]) -> int:
    """0 nothing due, 1 due, owed or violated, 3 nothing due but something undecided (never "not due")."""
    statuses = {event.get("status") for event in plan.get("events", [])}
    if plan.get("violations") or statuses & {"fired", "waiting", "owed"}:
        return EXIT_DUE
    undecided = plan.get("undecided") or "undecided" in statuses or any(
        e.get("missing") for e in plan.get("events", []))
    return EXIT_UNDECIDED if undecided else EXIT_NOTHING_DUE
