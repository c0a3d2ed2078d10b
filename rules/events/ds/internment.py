"""16.7 in Dai Senso!: the Pacific conditions added to the shared internment check.

Why composition: the shared `internment` implementation (rules/events/internment.py) already covers Neutral
Countries, Policy Affected Countries, Minor/multi-national units in the major power or its Dependents
(pack param `major = "Japan"`) and Partisan Bases. DS adds two conditions whose facts are dynamic:
Kwantung units outside a Japanese Dependent, and Allied counters in a Japanese Dependent created by
Forced Settlement (16.2.5) or a Surrender (16.4.1-16.4.3, 16.6.1, 16.6.2) -- a marker the DS events tag
when they place it. These are interned first, then the shared check runs unchanged.
"""

from __future__ import annotations

from rules.engine import EventContext, event_impl
from rules.events.ds.common import is_japanese_dependent
from rules.events.internment import InternmentCase, intern, internment_check, internment_due
from rules.packs import areas_covering
from rules.state import CEDED_LANDS


def policy_affected(ctx: EventContext, country: str) -> bool:
    return bool(ctx.board.posture_markers(country))  # its own or its shared Posture Box (pack)


def kwantung_cases(ctx: EventContext, japan: str, kwantung_tag: str,
                   watched: list[str]) -> list[InternmentCase]:
    """Axis Kwantung units outside a Japanese Dependent (16.7, fifth Axis condition); `watched` is
    "Russia, Communist China, or Nationalist China" (pack param `kwantung_countries`)."""
    not_pac = [c for c in watched if not policy_affected(ctx, c)]
    board = ctx.board
    outside = [c for c in ctx.state.tagged(kwantung_tag)
               if c.location in ctx.pack.hexes and not is_japanese_dependent(board, c.location, japan)]
    if not outside:
        return []
    if ctx.erratum("kwantung_trigger") == "all_not_pac":
        triggered = len(not_pac) == len(watched)
    else:
        triggered = bool(not_pac)
    if not triggered:
        return []
    verb = "is" if len(not_pac) == 1 else "are"
    return [InternmentCase(counter, f"Kwantung unit outside a Japanese Dependent while "
                           f"{', '.join(not_pac)} {verb} not Policy Affected")
            for counter in sorted(outside, key=lambda c: c.id)]


def settlement_dependent_cases(ctx: EventContext, settlement_tag: str) -> list[InternmentCase]:
    """Allied counters in a Japanese Dependent created by 16.2.5 or a Surrender (16.7, Allied 3rd case):
    the settlement events tag its marker with `settlement_tag` (pack param `settlement_dependent_tag`)."""
    created = {m.area for m in ctx.state.tagged(settlement_tag, location=CEDED_LANDS) if m.area}
    if not created:
        return []
    board = ctx.board
    cases = []
    for counter in sorted(ctx.state.counters.values(), key=lambda c: c.id):
        hex_id = counter.location
        if hex_id not in ctx.pack.hexes or counter.kind == "ceded_land":
            continue
        if board.faction_of(counter) not in ("Western", "Soviet"):
            continue
        area = next((a for a in areas_covering(ctx.pack, ctx.pack.hex(hex_id).area) if a.id in created), None)
        if area is not None:
            cases.append(InternmentCase(counter, f"{ctx.place(hex_id)} is in {area.name}, a Japanese "
                                        "Dependent created by Forced Settlement or a Surrender"))
    return cases


def pacific_cases(ctx: EventContext) -> list[InternmentCase]:
    """The two DS conditions of 16.7; the Countries and tags they name are pack params."""
    japan, kwantung_tag = ctx.require_param("major"), ctx.require_param("kwantung_tag")
    watched = list(ctx.require_param("kwantung_countries"))
    settlement_tag = ctx.require_param("settlement_dependent_tag")
    return kwantung_cases(ctx, japan, kwantung_tag, watched) + settlement_dependent_cases(ctx, settlement_tag)


@event_impl("ds_internment")
def ds_internment(ctx: EventContext) -> None:
    """16.1.6 / 16.3.11 / 16.5.8: the DS conditions of 16.7, then the shared ones."""
    cases = pacific_cases(ctx)
    if cases:
        ctx.fire(f"{len(cases)} counter(s) must be interned (16.7, Pacific conditions): "
                 + "; ".join(f"{ctx.name(c.counter.id)} — {c.reason}" for c in cases))
        for case in cases:
            intern(ctx, [case.counter], None, case.reason)
        if not internment_due(ctx):
            # Due for the Pacific cases: the why-line must not say nothing interns (issue 12 item 18).
            ctx.why("no other counter is in territory that forces its internment (the other 16.7 conditions)")
            return
    internment_check(ctx)
