"""16.1.2 Axis Minor Country Occupation in Dai Senso!: the Showa Restoration exception.

Why only an exception here: the event itself is the shared `minor_occupation` (rules/events/occupation.py)
with ``major = "Japan"``; DS adds one clause, "If the Showa Restoration marker is in the Strategic Warfare
Box, an Axis Minor Country is not under Occupation unless there are two or more Japanese multi-step units
or any ground unit belonging to a different Axis Country", which the pack switches on with
``exceptions = ["showa_restoration"]``.
"""

from __future__ import annotations

from rules.engine import EventContext
from rules.events.occupation import OccupationException, register_occupation_exception
from rules.state import STRATEGIC_WARFARE, Counter


def showa_in_effect(ctx: EventContext) -> bool:
    """16.1.2: the Showa Restoration marker (tag: pack param `showa_tag`) is in the Strategic Warfare Box."""
    return bool(ctx.state.tagged(ctx.require_param("showa_tag"), location=STRATEGIC_WARFARE))


def without_lone_japanese_unit(ctx: EventContext, country: str, causers: list[Counter]) -> list[Counter]:
    """16.1.2 Showa Restoration: one Japanese multi-step unit alone (and nothing else) causes nothing."""
    major = ctx.require_param("major")
    if len(causers) == 1 and causers[0].nationality == major and not causers[0].multinational:
        return []
    return causers


SHOWA_RESTORATION = register_occupation_exception(
    OccupationException(
        name="showa_restoration",
        in_effect=showa_in_effect,
        remaining=without_lone_japanese_unit,
        why="the Showa Restoration marker is in the Strategic Warfare Box: one Japanese multi-step unit "
        "alone does not cause Occupation (16.1.2)",
    )
)
