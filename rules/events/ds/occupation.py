"""16.1.2 Axis Minor Country Occupation in Dai Senso!: the shared event plus the Showa Restoration
exception.

Why a wrapper: C's `occupation_causers` (rules/events/occupation.py) applies the rule common to both
editions with `major = "Japan"`; DS adds only "If the Showa Restoration marker is in the Strategic
Warfare Box, ... not under Occupation unless there are two or more Japanese multi-step units or any
ground unit belonging to a different Axis Country".
"""

from __future__ import annotations

from rules.engine import EventContext, event_impl
from rules.events.occupation import _apply_remedy, _no_occupation_marker, occupation_causers
from rules.state import STRATEGIC_WARFARE, Counter

SHOWA_TAG = "showa_restoration"


def showa_in_effect(ctx: EventContext) -> bool:
    return bool(ctx.state.tagged(ctx.param("showa_tag", SHOWA_TAG), location=STRATEGIC_WARFARE))


def ds_causers(ctx: EventContext, country: str, major: str) -> list[Counter]:
    """16.1.2 causers; under Showa Restoration one Japanese multi-step unit alone causes nothing."""
    causers = occupation_causers(ctx, country, major)
    if not showa_in_effect(ctx):
        return causers
    japanese_multi = [c for c in causers if c.nationality == major and not c.multinational]
    if len(japanese_multi) == 1 and len(causers) == 1:
        return []
    return causers


@event_impl("ds_minor_occupation")
def ds_minor_occupation(ctx: EventContext) -> None:
    major = ctx.param("major", "Japan")
    showa = showa_in_effect(ctx)
    if showa:
        ctx.why("the Showa Restoration marker is in the Strategic Warfare Box: one Japanese multi-step unit "
                "alone does not cause Occupation")
    checked = False
    for country, info in sorted(ctx.pack.countries.items()):
        cstate = ctx.state.country(country)
        if info.kind != "minor" or cstate.faction != "Axis" or cstate.status != "active":
            continue
        if info.dependent_of or cstate.dependent_of:
            continue  # checked with its Country: "an Axis Minor Country or any of its Dependents"
        checked = True
        marker = _no_occupation_marker(ctx, country)
        if marker:
            ctx.not_due(f"{country}: a No Occupation marker is in {', '.join(marker)}; "
                        "not subject to Occupation")
            continue
        causers = ds_causers(ctx, country, major)
        if not causers:
            ctx.not_due(f"{country}: nothing in it or its Dependents causes Occupation")
            continue
        names = ", ".join(f"{ctx.name(c.id)} in {c.location}" for c in causers)
        ctx.fire(f"{country} is under Occupation: {names}")
        _apply_remedy(ctx, country, causers, major)
    if not checked:
        ctx.not_due("no active Axis Minor Country")
