"""16.2.2 Ostland Accord (Axis card 27b): Russia's hypothetical conditional surrender, once per game.

Every Country, marker and tag it names is a TK pack param, read with `ctx.require_param` up front.
"""

from __future__ import annotations

import re

from rules.engine import EventContext, event_impl
from rules.events.common import (
    breakdown,
    doubtful_hexes,
    hex_territory_known,
    in_play,
    influence_choice,
    known,
    neighbors_of_hexes,
    territory_known,
)
from rules.events.internment import intern
from rules.state import CEDED_LANDS, REMOVED, force_pool, posture_box
from vassal_parser.errors import InputError

STEP7_UNITS = 10  # 16.2.2 Step 7: "select 10 Russian one-step infantry units"


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
    ctx.set_country(  # position model: a Policy marker stands instead of a Posture of War (16.5.5)
        russia,
        "Step 1",
        f"{marker_name} Policy marker in its Posture Box; {russia}'s Posture is no longer War "
        "(16.5.5 changes it back to War when the marker is removed)",
        markers=[*ctx.state.country(russia).markers, marker_name],
        posture=None,
    )
    # Step 2: only a country whose Ceded Land area returns can be re-created; telling whether it is needs
    # that country's hexes and the returning area's hexes located in full
    returning = [
        c for c in in_play(ctx.state.counters.values())
        if c.kind == "ceded_land" and c.location == CEDED_LANDS and c.area
        and ctx.pack.areas[c.area].ceded_to == russia
    ]
    for counter in returning:
        area = ctx.pack.areas[counter.area or ""]
        # Re-created only if it was gone: a located hex of it now decides "not gone", whatever the pack
        # lacks; a gone country's own hexes, and those of a returning area none of which is located, are
        # what could change it (issue 22).
        certain = set(board.country_hexes(area.country)) - doubtful_hexes(ctx, area.country)
        if area.country in recreatable and not certain:
            known(ctx, "country_hexes", area.country)
            territory_known(ctx, area.country)  # a hex of it may lie in a partly located ceded area
            if not board.area_hexes(area.id):
                known(ctx, "area_hexes", area.id)
    gone_before = {a.country: not board.country_hexes(a.country) for a in ctx.pack.areas.values()}
    if not returning:
        ctx.note(f"no {ctx.adjective(russia)} Ceded Land marker is in the Ceded Lands Box: nothing returns",
                 "Step 2")
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
            # "place its units in the Axis Force Pool": all of them, those set aside too (DS 16.2.5 Step 3
            # reads it so); a unit removed from the game stays out of it.
            for unit in sorted(ctx.board.nationals(country), key=lambda c: c.id):
                if unit.kind != "ceded_land" and unit.location not in (REMOVED, force_pool("Axis")):
                    ctx.move(unit, force_pool("Axis"), "Step 2", subject=country,
                             why=f"{country} is re-created as an Axis Minor Country")
    # Step 3
    created: list[str] = []
    for area in sorted(ctx.pack.areas.values(), key=lambda a: a.id):
        if area.kind != "ostland_region":
            continue
        if ctx.need("region_strategic_hex", area.id) is None or area.strategic_hex is None:
            continue  # the Region's Strategic Hex is not located: named in `missing`
        where = ctx.place(area.strategic_hex)
        units = [u for u in board.ground_units(area.strategic_hex) if u.nationality == major and u.supplied]
        if not units:
            ctx.why(f"{area.name}: no supplied {ctx.adjective(major)} ground unit in {where}", detail=True)
            continue
        ctx.why(f"{area.name}: supplied {ctx.name(units[0].id)} in {where}")
        markers = [
            c for c in in_play(ctx.state.counters.values()) if c.kind == "ceded_land" and c.area == area.id
        ]
        if markers:
            for marker in markers:
                ctx.move(marker, CEDED_LANDS, "Step 3",
                         why=f"{area.name} becomes a {ctx.adjective(major)} Dependent")
        else:
            ctx.note(f"place the {ctx.adjective(major)} {area.name} Region marker in the Ceded Lands Box",
                     "Step 3")
        created.append(area.id)
    if not created:
        ctx.note(f"no supplied {ctx.adjective(major)} ground unit in a Soviet Strategic Hex listed: no "
                 "Region becomes a Dependent", "Step 3")
    created_hexes = {h for a in created for h in ctx.board.area_hexes(a)}
    # Step 4 (text says "created in Step 2": errata, the Dependents are created in Step 3)
    axis_in_russia = [
        c
        for c in ctx.state.counters.values()
        if c.location in ctx.pack.hexes
        and c.location not in created_hexes
        and board.faction_of(c) == "Axis"
        and hex_territory_known(ctx, c.location, lambda name: name == russia)
        and board.in_country(c.location, russia)
    ]
    intern(ctx, axis_in_russia, "Step 4", f"Axis counter in {russia}", rule=ctx.rule)
    if not axis_in_russia:
        ctx.note(
            f"no Axis unit or marker in {russia} outside the new Dependents: nothing to intern", "Step 4"
        )
    # Step 5
    multinational = [
        u for u in sorted(ctx.state.counters.values(), key=lambda c: c.id)
        if u.multinational and board.faction_of(u) == "Soviet" and u.location in ctx.pack.hexes
    ]
    for unit in multinational:
        breakdown(ctx, unit, [(unit.location, unit.steps)], "Step 5")
    if not multinational:
        ctx.note("no Soviet multi-national unit on the map: nothing to break down", "Step 5")
    # Step 6
    for unit in sorted(ctx.state.counters.values(), key=lambda c: c.id):
        if unit.nationality == russia and unit.location in ctx.pack.hexes and unit.kind != "ceded_land":
            ctx.return_to_pool(unit, "Soviet", "Step 6")
    # Step 7
    _step7_placement(ctx, russia)
    # Step 8 (same errata as Step 4)
    created_names = {ctx.pack.areas[a].name for a in created}
    allied = [
        c
        for c in ctx.state.counters.values()
        if c.location in ctx.pack.hexes and board.faction_of(c) in ("Western", "Soviet")
        and (c.location in created_hexes
             or not hex_territory_known(ctx, c.location, lambda name: name in created_names))
    ]
    allied = [c for c in allied if c.location in created_hexes]
    intern(ctx, allied, "Step 8", f"Allied counter in a new {ctx.adjective(major)} Dependent", rule=ctx.rule)
    if not allied:
        ctx.note(f"no Allied unit or marker in a new {ctx.adjective(major)} Dependent: nothing to intern",
                 "Step 8")
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
        located = True
        for area_id in created:
            located = known(ctx, "area_neighbors", area_id) and located
            around |= set(ctx.pack.areas[area_id].neighbors)
        influence_choice(
            ctx,
            "influence",
            "Step 10",
            around - {russia},
            f"sharing a border with a new {ctx.adjective(major)} Dependent",
            located=located,
        )
    else:
        ctx.note(f"no {ctx.adjective(major)} Dependent was created in Step 3: no Influence", "Step 10")
    # Step 11 ©
    if ctx.state.turn.combined_game:
        ctx.note("place the Russia Defeated marker in the DS Strategic Warfare Box", "Step 11")


def _step7_placement(ctx: EventContext, russia: str) -> None:
    """16.2.2 Step 7: "The Soviet faction may select 10 Russian one-step infantry units from the Soviet
    Force Pool and place them anywhere in Russia" -- a Soviet choice: a list of `unit>hex` (at most 10,
    each unit once; an empty list places none). Which units are infantry: the pack's `infantry_tag`; a
    position that tags none is offered every one-step Russian ground unit there, and the plan says so."""
    infantry_tag = ctx.require_param("infantry_tag")
    pool = [
        c for c in sorted(ctx.state.counters.values(), key=lambda c: c.id)
        if c.nationality == russia and c.kind == "ground" and c.steps == 1
        and c.location == force_pool("Soviet")
    ]
    tagged = [c for c in pool if infantry_tag in c.tags]
    adjective = ctx.adjective(russia)
    if tagged or any(infantry_tag in c.tags for c in ctx.state.counters.values()):
        units = tagged
    else:
        units = pool
        if pool:
            ctx.note(f"the position marks no counter as infantry (tag {infantry_tag!r}): every one-step "
                     f"{adjective} ground unit in the Soviet Force Pool is offered", "Step 7")
    if not units:
        ctx.note(f"no {adjective} one-step infantry unit is in the Soviet Force Pool: nothing to place",
                 "Step 7")
        return
    located = ctx.need("country_hexes", russia) is not None
    hexes = [h for h in ctx.board.country_hexes(russia) if ctx.board.political_country(h) == russia]
    if not hexes:
        ctx.note(f"the pack locates no hex of {russia}: place the units by hand", "Step 7")
        return
    options = [f"{u.id}>{h}" for u in units for h in hexes]
    labels = {f"{u.id}>{h}": f"{ctx.name(u.id)} to {ctx.place(h)}" for u in units for h in hexes}
    answer = ctx.choose(
        "place",
        "Soviet",
        f"Select up to {STEP7_UNITS} {adjective} one-step infantry units from the Soviet Force Pool and "
        f"place them anywhere in {russia} (a list of 'unit>hex'; an empty list places none)."
        + ("" if located else f" The pack does not locate every hex of {russia}: only those it does are "
           "offered."),
        options,
        labels=labels,
        multiple=True,
    )
    chosen = [str(item).split(">", 1) for item in answer]
    if len(chosen) > STEP7_UNITS or len({u for u, _ in chosen}) != len(chosen):
        raise InputError(ctx.answers_source, f"answer to {ctx.rule}:place must place at most "
                                             f"{STEP7_UNITS} units, each unit once")
    for unit_id, hex_id in chosen:
        ctx.move(ctx.state.counters[unit_id], hex_id, "Step 7", why=f"placed anywhere in {russia}")
    if not chosen:
        ctx.note(f"the Soviet faction places no {adjective} infantry unit", "Step 7")
