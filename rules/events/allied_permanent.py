"""Western and Soviet permanent events that move named counters: 16.3.3 Their Finest Hour,
16.3.4 Paris Threatened, 16.5.3 Russian Emergency Mobilization (one impl, `crisis_reinforcements`),
16.3.5 Reduced US Impact, 16.3.6 France Rises, 16.5.5 Russia Rises, 16.3.7 / 16.5.6 Lend-Lease.
"""

from __future__ import annotations

from rules.engine import EventContext, event_impl
from rules.events.common import (
    describe_hexes,
    hex_territory_known,
    influence_choice,
    known,
    unguarded_cities,
)
from rules.events.conquest import VICHY
from rules.state import (
    CEDED_LANDS,
    DELAY,
    REMOVED,
    SET_ASIDE,
    STRATEGIC_WARFARE,
    conditional_events,
    force_pool,
    posture_box,
)


def _axis_unit_in(ctx: EventContext, countries: list[str], dependents_of: list[str]) -> list[str]:
    """16.3.3 / 16.3.4 / 16.5.3 'an Axis unit' in the listed Countries or their Dependents."""
    found = []
    for counter in sorted(ctx.state.counters.values(), key=lambda c: c.id):
        hex_id = counter.location
        if (
            hex_id not in ctx.pack.hexes
            or ctx.board.faction_of(counter) != "Axis"
            or not counter.is_unit  # "an Axis unit": Detachment/Logistics markers are not units
        ):
            continue
        if not hex_territory_known(ctx, hex_id, lambda c: c in countries or c in dependents_of):
            continue  # undecided for this unit: which country its hex is part of is not located
        here = ctx.board.political_country(hex_id)
        home = ctx.board.home_of(here)
        if here in countries or (home in dependents_of and here != home):
            found.append(f"{ctx.name(counter.id)} in {ctx.place(hex_id)} ({here})")
    return found


@event_impl("crisis_reinforcements")
def crisis_reinforcements(ctx: EventContext) -> None:
    """16.3.3 Their Finest Hour, 16.3.4 Paris Threatened, 16.5.3 Russian Emergency Mobilization: once per
    game, Total War, an Axis unit in the listed lands, or a card -> named units to Delay Box."""
    faction = ctx.require_param("faction")
    tag = ctx.require_param("tag")  # the counters the event releases to the Delay Box
    countries = list(ctx.require_param("countries"))
    dependents_of = list(ctx.require_param("dependents_of"))
    card = ctx.param("card")  # optional: only 16.5.3 also fires on a played card (4d)
    reasons = []
    if ctx.state.turn.war_state == "Total War":
        reasons.append("Total War is in effect")
    axis = _axis_unit_in(ctx, countries, dependents_of)
    if axis:
        reasons.append("Axis unit " + "; ".join(axis))
    if card and card in ctx.state.turn.cards_played:
        reasons.append(f"card {card} has been played")
    if not reasons:
        lands = ", ".join(countries + [f"a {c} Dependent" for c in dependents_of])
        ctx.not_due(
            f"not Total War ({ctx.state.turn.war_state}) and no Axis unit in {lands}"
            + (f", card {card} not played" if card else "")
        )
        return
    ctx.fire("; ".join(reasons))
    units = ctx.state.tagged(tag, location=conditional_events(faction))
    for unit in sorted(units, key=lambda c: c.id):
        ctx.move(unit, DELAY, "Step 1", why=f"{ctx.spec.title} units")
    if not units:
        ctx.note(f"no {ctx.spec.title} counter is in the {faction} Conditional Events Box", "Step 1")
    country = ctx.param("influence_if_war")  # optional: 16.3.4 / 16.5.3 Step 2 only
    if country:
        posture = ctx.state.country(country).posture
        if posture == "War":
            influence_choice(ctx, "influence", "Step 2", ctx.pack.countries, "")
        else:
            ctx.note(f"{country}'s Posture is {posture or 'not War'}: no Influence", "Step 2")


@event_impl("white_star_hexes")
def white_star_hexes(ctx: EventContext) -> None:
    """TK 16.3.5 / DS 16.3.7 Reduced US Impact: Axis ground units in enough white-star hexes, or not.

    Edition difference is the pack param ``needed``: TK "all three" (default: every listed hex), DS "at
    least three of" six. Below ``needed`` with the marker in the Strategic Warfare Box: set it aside.
    """
    hexes = ctx.param("hexes") or sorted(h.id for h in ctx.pack.hexes_where(white_star=True))
    needed = int(ctx.param("needed", len(hexes)))
    tag = ctx.require_param("tag")  # the Reduced US Impact marker
    held = [h for h in hexes if ctx.board.faction_ground_units(h, "Axis")]
    markers = ctx.state.tagged(tag)
    in_box = [m for m in markers if m.location == STRATEGIC_WARFARE]
    count = (f"{len(held)} of the {len(hexes)} hexes ({describe_hexes(ctx, held)})" if held
             else f"none of the {len(hexes)} hexes")
    if hexes and len(held) >= needed:
        if in_box:
            ctx.not_due(
                f"Axis ground units occupy {count}, and the marker is already in the Strategic Warfare Box"
            )
            return
        ctx.fire(f"Axis ground units occupy {count}: at least {needed}")
        usable = [m for m in markers if m.location != REMOVED]
        if usable:
            ctx.move(usable[0], STRATEGIC_WARFARE, None)
        else:
            ctx.note("place the Reduced US Impact marker in the Strategic Warfare Box")
        return
    if in_box:
        free = [h for h in hexes if h not in held]
        # What is due here is the removal: say so (issue 12 item 18), as the text words it.
        ctx.fire(
            f"Axis ground units occupy {'only ' if held else ''}{count}, fewer than {needed} "
            f"(not {describe_hexes(ctx, free)}): remove the Reduced US Impact marker from the Strategic "
            "Warfare Box and set it aside for possible future use"
        )
        for marker in in_box:
            ctx.set_aside(marker, None)
        return
    ctx.not_due(
        f"Axis ground units occupy {count}, fewer than {needed}; the marker is not in the Strategic "
        "Warfare Box"
    )


def ignored_on_axis_card(ctx: EventContext, card: str) -> bool:
    """16.3.6 / 16.5.5 "Ignore this event if the Axis Current Card is card ...": the card is the pack param
    ``ignore_if_axis_card`` (TK 22a Case Yellow, 27b Ostland Accord), read by the caller up front."""
    if ctx.state.turn.current_cards.get("Axis") != card:
        return False
    ctx.ignore(f"the Axis Current Card is card {card}")
    return True


@event_impl("france_rises")
def france_rises(ctx: EventContext) -> None:
    """16.3.6: two conditions, each checked separately, in order."""
    card = ctx.require_param("ignore_if_axis_card")
    france, major = ctx.require_param("france"), ctx.require_param("major")
    adj = ctx.adjective(major)
    area = ctx.require_param("area")  # the Occupied France Ceded Land area
    if ignored_on_axis_card(ctx, card):
        return
    area_name = ctx.pack.areas[area].name
    free = unguarded_cities(ctx, [area], major)
    vichy = ctx.state.country(france)
    if free and VICHY in vichy.flags and vichy.status == "neutral":
        ctx.fire(
            f"{area_name} is a {adj} Dependent; {describe_hexes(ctx, free)} holds no {adj} unit, "
            "Detachment or Logistics marker"
        )
        answer = ctx.choose(
            "activate_vichy", "Western", "Activate Neutral Vichy as a Western Minor Country?", ["yes", "no"],
            labels={"yes": "activate Vichy as a Western Minor Country", "no": "leave Vichy Neutral"}
        )
        if answer == "yes":
            ctx.set_country(
                france, None, "Vichy activated as a Western Minor Country", faction="Western", status="active"
            )
    elif free:
        ctx.not_due(f"a City of {area_name} is free of {adj} units, but Vichy is not a Neutral Vichy")
    elif not ctx.board.ceded_area_active(ctx.pack.areas[area]):
        ctx.not_due(f"{area_name} is not a {adj} Dependent")
    elif known(ctx, "area_hexes", area):  # "every City holds a unit" needs all of its Cities located
        ctx.not_due(f"every City in {area_name} holds a {adj} unit, Detachment or Logistics marker")
    vichy = ctx.state.country(france)
    if VICHY in vichy.flags and vichy.status == "active":
        markers = [
            c
            for c in ctx.state.counters.values()
            if c.kind == "ceded_land" and c.area == area and c.location == CEDED_LANDS
        ]
        if markers:
            ctx.fire(
                f"Vichy is an Active Minor Country: the Axis {area_name} marker leaves the Ceded Lands Box"
            )
            for marker in markers:
                ctx.move(marker, force_pool("Axis"), None)
    else:
        ctx.why("Vichy is not an Active Minor Country")


@event_impl("russia_rises")
def russia_rises(ctx: EventContext) -> None:
    """16.5.5: two conditions, each checked separately, in order."""
    card = ctx.require_param("ignore_if_axis_card")
    russia, major = ctx.require_param("russia"), ctx.require_param("major")
    adj = ctx.adjective(major)
    marker_name = ctx.require_param("policy_marker")  # the Ostland Accord Policy marker (16.2.2 Step 1)
    ostland_tag = ctx.require_param("ostland_tag")  # that marker's counter
    if ignored_on_axis_card(ctx, card):
        return
    regions = [a.id for a in ctx.pack.areas.values() if a.kind == "ostland_region"]
    free = unguarded_cities(ctx, regions, major)
    rstate = ctx.state.country(russia)
    if free and marker_name in rstate.markers:
        ctx.fire(
            f"{describe_hexes(ctx, free)}, a City in an Ostland Region (a {adj} Dependent), has no "
            f"{adj} unit, Detachment or Logistics marker"
        )
        answer = ctx.choose(
            "end_accord",
            "Soviet",
            f"Remove the {marker_name} marker from {russia}'s Posture Box and change its Posture to War?",
            ["yes", "no"],
            labels={"yes": f"remove the {marker_name} marker; {russia}'s Posture becomes War",
                    "no": f"keep the {marker_name}"},
        )
        if answer == "yes":
            for counter in ctx.state.tagged(ostland_tag, posture_box(russia)):
                ctx.move(counter, SET_ASIDE, None)
            ctx.set_country(
                russia,
                None,
                "Posture changed to War",
                posture="War",
                markers=[m for m in rstate.markers if m != marker_name],
            )
    elif free:
        ctx.not_due(f"no {marker_name} marker in {russia}'s Posture Box")
    else:
        active = [a for a in regions if ctx.board.ceded_area_active(ctx.pack.areas[a])]
        located = all([known(ctx, "area_hexes", a) for a in active])  # every City of each must be located
        if not active:
            ctx.not_due(f"no Ostland Region is a {adj} Dependent")
        elif located:
            ctx.not_due(f"every City in the Ostland Regions that are {adj} Dependents holds a {major} "
                        "unit, Detachment or Logistics marker")
    if ctx.state.country(russia).posture == "War":
        markers = [
            c
            for c in ctx.state.counters.values()
            if c.kind == "ceded_land" and c.area in regions and c.location == CEDED_LANDS
        ]
        if markers:
            ctx.fire(f"{russia}'s Posture is War: all Axis Ostland Region markers leave the Ceded Lands Box")
            for marker in sorted(markers, key=lambda c: c.id):
                ctx.move(marker, force_pool("Axis"), None)
        else:
            ctx.why(f"{russia}'s Posture is War but no Ostland Region marker is in the Ceded Lands Box")
    else:
        ctx.why(f"{russia}'s Posture is not War")


@event_impl("lend_lease")
def lend_lease(ctx: EventContext) -> None:
    """16.3.7 (Steps 1-2) and 16.5.6 (Step 2 only): the Western Lend-Lease marker."""
    faction = ctx.require_param("faction")
    country = ctx.require_param("country")
    marker = next(iter(ctx.state.tagged(ctx.require_param("tag"))), None)  # the Lend-Lease marker
    if marker is None:
        ctx.not_due("the position has no Lend-Lease marker")
        return
    if ctx.param("step1", False):
        if marker.location in (conditional_events("Western"), conditional_events("Soviet")):
            ctx.fire(f"the Lend-Lease marker is in {ctx.place(marker.location)}")
            answer = ctx.choose(
                "marker",
                "Western",
                "Leave the Lend-Lease marker, place it in the Delay Box, or remove it from the game?",
                ["leave", "delay", "remove"],
                labels={"leave": "leave it where it is", "delay": "place it in the Delay Box",
                        "remove": "remove it from the game"},
            )
            if answer == "delay":
                ctx.move(marker, DELAY, "Step 1")
            elif answer == "remove":
                ctx.remove_from_game(marker, "Step 1")
        else:
            ctx.why(
                f"Step 1: the Lend-Lease marker is in {ctx.place(marker.location)}, "
                "not an Allied Conditional Events Box"
            )
    cstate = ctx.state.country(country)
    step = "Step 2" if ctx.param("step1", False) else None
    problems = []
    if marker.location != conditional_events(faction):
        where = ctx.place(marker.location)
        problems.append(f"the marker is in {where}, not the {faction} Conditional Events Box")
    if ctx.param("not_vichy") and VICHY in cstate.flags:
        problems.append(f"{country} is Vichy")
    if cstate.status != "active" or cstate.faction != faction:
        problems.append(f"{country} is not an active {faction} country")
    if cstate.posture != "War":
        problems.append(f"{country}'s Posture is {cstate.posture or 'not War'}")
    if problems:
        ctx.not_due("no Lend-Lease roll: " + "; ".join(problems))
        return
    ctx.fire(f"the Lend-Lease marker is in the {faction} Conditional Events Box and {country} is at War")
    ctx.roll(
        "Lend-Lease",
        step,
        f"{faction} may roll on the Lend-Lease Table; steps received are {country} "
        "steps placed per Placing Replacements (1.3.4)",
    )
