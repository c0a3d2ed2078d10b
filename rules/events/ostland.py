"""16.2.2 Ostland Accord (Axis card 27b): Russia's hypothetical conditional surrender, once per game.

Every Country, marker and tag it names is a TK pack param, read with `ctx.require_param` up front.
"""

from __future__ import annotations

import re

from rules.engine import EventContext, event_impl
from rules.events.common import breakdown, in_play, influence_choice, neighbors_of_hexes
from rules.events.internment import intern
from rules.state import CEDED_LANDS, force_pool, posture_box


def one_year_ahead(date: str) -> str | None:
    """'1940-07' -> '1941-07' (turn-track box id); None when the date is not YYYY-MM."""
    match = re.fullmatch(r"(\d{4})-(\d{2})", date)
    return f"{int(match.group(1)) + 1}-{match.group(2)}" if match else None


@event_impl("ostland_accord")
def ostland_accord(ctx: EventContext) -> None:
    """16.2.2 Ostland Accord: Steps in text order, each cited where it acts."""
    russia = ctx.require_param("russia")
    major = ctx.require_param("major")
    marker_name = ctx.require_param("policy_marker")  # Step 1: the Ostland Accord Policy marker
    ostland_tag = ctx.require_param("ostland_tag")  # Step 1: that marker's counter
    enforced_peace_tag = ctx.require_param("enforced_peace_tag")  # Step 9: Enforced Peace marker (14.11)
    recreatable = set(ctx.require_param("recreated_become_axis"))  # Step 2
    ctx.fire("the Ostland Accord card is the Axis Current Card (once per game)")
    board = ctx.board
    # Step 1
    tagged = [c for c in ctx.state.tagged(ostland_tag)]
    for counter in tagged:
        ctx.move(counter, posture_box(russia), "Step 1")
    ctx.set_country(
        russia,
        "Step 1",
        f"{marker_name} Policy marker in its Posture Box",
        markers=[*ctx.state.country(russia).markers, marker_name],
    )
    # Step 2
    gone_before = {a.country: not board.country_hexes(a.country) for a in ctx.pack.areas.values()}
    for counter in in_play(ctx.state.counters.values()):
        if counter.kind == "ceded_land" and counter.location == CEDED_LANDS and counter.area:
            area = ctx.pack.areas[counter.area]
            if area.ceded_to == russia:
                ctx.move(
                    counter,
                    force_pool(board.faction_of(counter) or "Soviet"),
                    "Step 2",
                    why=f"{area.name} returns to {area.country}",
                )
    for country in sorted(recreatable):
        if gone_before.get(country) and ctx.board.country_hexes(country):
            ctx.set_country(
                country,
                "Step 2",
                "re-created: becomes an Axis Minor Country",
                faction="Axis",
                status="active",
            )
            for unit in in_play(ctx.board.nationals(country)):
                if unit.kind != "ceded_land":
                    ctx.move(unit, force_pool("Axis"), "Step 2", subject=country)
    # Step 3
    created: list[str] = []
    for area in sorted(ctx.pack.areas.values(), key=lambda a: a.id):
        if area.kind != "ostland_region" or area.strategic_hex is None:
            continue
        units = [u for u in board.ground_units(area.strategic_hex) if u.nationality == major and u.supplied]
        if not units:
            ctx.why(f"{area.name}: no supplied {major} ground unit in {area.strategic_hex}")
            continue
        ctx.why(f"{area.name}: supplied {ctx.name(units[0].id)} in {area.strategic_hex}")
        markers = [
            c for c in in_play(ctx.state.counters.values()) if c.kind == "ceded_land" and c.area == area.id
        ]
        if markers:
            for marker in markers:
                ctx.move(marker, CEDED_LANDS, "Step 3", why=f"{area.name} becomes a Dependent of {major}")
        else:
            ctx.note(f"place the {major} {area.name} Region marker in the Ceded Lands Box", "Step 3")
        created.append(area.id)
    created_hexes = {h for a in created for h in ctx.board.area_hexes(a)}
    # Step 4 (text says "created in Step 2": errata, the Dependents are created in Step 3)
    axis_in_russia = [
        c
        for c in ctx.state.counters.values()
        if c.location in ctx.pack.hexes
        and c.location not in created_hexes
        and board.faction_of(c) == "Axis"
        and board.in_country(c.location, russia)
    ]
    intern(ctx, axis_in_russia, "Step 4", f"Axis counter in {russia}", rule=ctx.rule)
    if not axis_in_russia:
        ctx.note(
            f"no Axis unit or marker in {russia} outside the new Dependents: nothing to intern", "Step 4"
        )
    # Step 5
    for unit in sorted(ctx.state.counters.values(), key=lambda c: c.id):
        if unit.multinational and board.faction_of(unit) == "Soviet" and unit.location in ctx.pack.hexes:
            breakdown(ctx, unit, [(unit.location, unit.steps)], "Step 5")
    # Step 6
    for unit in sorted(ctx.state.counters.values(), key=lambda c: c.id):
        if unit.nationality == russia and unit.location in ctx.pack.hexes and unit.kind != "ceded_land":
            ctx.return_to_pool(unit, "Soviet", "Step 6")
    # Step 7
    ctx.note(
        f"the Soviet faction may select 10 {russia} one-step infantry units from the Soviet Force Pool and "
        f"place them anywhere in {russia}",
        "Step 7",
    )
    # Step 8 (same errata as Step 4)
    allied = [
        c
        for c in ctx.state.counters.values()
        if c.location in created_hexes and board.faction_of(c) in ("Western", "Soviet")
    ]
    intern(ctx, allied, "Step 8", f"Allied counter in a new Dependent of {major}", rule=ctx.rule)
    if not allied:
        ctx.note(f"no Allied unit or marker in a new Dependent of {major}: nothing to intern", "Step 8")
    # Step 9
    target = one_year_ahead(ctx.state.turn.date)
    peace = [
        c
        for c in ctx.state.tagged(enforced_peace_tag)
        if c.nationality in (russia, None)
    ]
    if target and peace:
        ctx.move(peace[0], f"turn_track:{target}", "Step 9", why="Enforced Peace (14.11), one year ahead")
    else:
        ctx.note(
            "place the Enforced Peace marker (14.11) one year ahead on the Turn Track"
            + (f" ({target})" if target else ""),
            "Step 9",
        )
    # Step 10
    if created:
        around = neighbors_of_hexes(ctx, created_hexes)
        for area_id in created:
            around |= set(ctx.pack.areas[area_id].neighbors)
        influence_choice(
            ctx,
            "influence",
            "Step 10",
            around - {russia},
            f"sharing a border with a new Dependent of {major}",
        )
    else:
        ctx.note(f"no Dependent of {major} was created in Step 3: no Influence", "Step 10")
    # Step 11 ©
    if ctx.state.turn.combined_game:
        ctx.note("place the Russia Defeated marker in the DS Strategic Warfare Box", "Step 11")
