"""16.3.9 Aid to Nationalist China, 16.5.6 Aid to Communist China.

Why here and not the shared `lend_lease` (which DS uses for 16.3.10 and 16.5.7): Aid to China counts
EVERY Aid marker in the box ("once for each Aid to China marker") and has a per-faction own marker for
Step 1. (16.3.7 Reduced US Impact is the shared `white_star_hexes` with pack param `needed = 3`.)
"""

from __future__ import annotations

from rules.engine import EventContext, event_impl
from rules.state import DELAY, conditional_events


@event_impl("ds_aid")
def aid(ctx: EventContext) -> None:
    """DS 16.3.9 Aid to Nationalist China / 16.5.6 Aid to Communist China."""
    # The Country aided, its Aid markers and the table are pack params (16.3.9 / 16.5.6).
    country, marker_tag, table = (ctx.require_param("country"), ctx.require_param("marker_tag"),
                                  ctx.require_param("table"))
    faction = ctx.phasing
    own_box = conditional_events(faction)
    allied_boxes = (conditional_events("Western"), conditional_events("Soviet"))
    own_tag = ctx.param("own_marker_tag")
    if own_tag and not ctx.param("no_step1", False):
        for marker in ctx.state.tagged(own_tag):
            if marker.location not in allied_boxes:
                continue
            ctx.fire(f"Step 1: {ctx.name(marker.id)} is in {ctx.place(marker.location)}")
            answer = ctx.choose("step1", faction, f"{ctx.name(marker.id)}: leave it, place it in the "
                                "Delay Box, or remove it from the game?", ["leave", "delay", "remove"])
            if answer == "delay":
                ctx.move(marker, DELAY, "Step 1")
            elif answer == "remove":
                ctx.remove_from_game(marker, "Step 1")
    posture = ctx.state.country(country).posture
    markers = ctx.state.tagged(marker_tag, location=own_box)
    if not markers:
        ctx.not_due(f"Step 2: no {marker_tag} marker in {own_box}")
        return
    if posture != "War":
        ctx.not_due(f"Step 2: {country}'s Posture is {posture or 'not set'}, not War")
        return
    rolls = len(markers)
    ctx.fire(f"Step 2: {len(markers)} marker(s) in {own_box} and {country} is at War: up to {rolls} roll(s) "
             f"on the {table} Table")
    answer = ctx.choose("roll", faction, f"Roll on the {table} Table ({rolls} roll(s))?",
                        ["yes", "no"], affects_position=False)
    if answer == "yes":
        for index in range(rolls):
            ctx.roll(table, "Step 2", f"roll {index + 1} of {rolls} on the {table} "
                     f"Table; steps received are {country} steps placed per Placing Replacements (1.3.4)",
                     subject=country)
