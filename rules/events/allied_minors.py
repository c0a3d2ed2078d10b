"""The Allied factions' Minor Country events, written once for both factions (and both editions):

16.3.1 / 16.5.1 Reactivation, 16.3.2 / 16.5.2 Liberation (with Vichy / France-Vichy), 16.4.1 French
Liberation, 16.4.2 Operation Avalanche. The faction and the edition differences are pack parameters.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.engine import EventContext, event_impl
from rules.events.common import (
    capital_of,
    ceded_markers_to_box,
    colonial_to_delay,
    describe_hexes,
    in_play,
    known,
    located_cities,
    no_city_text,
    occupied_by,
    occupies_all,
    partisan_base_hexes,
    remaining_to_pools,
    remove_step1,
    require_facts,
)
from rules.events.conquest import is_vichy
from rules.state import (
    ALLIED_FACTIONS,
    CEDED_LANDS,
    DELAY,
    conquered_minors,
    force_pool,
    posture_box,
)

# ---------------------------------------------------------------------------------------------------
# Reactivation (16.3.1 / 16.5.1)


def _policy_markers(ctx: EventContext, country: str, faction: str) -> list[str]:
    # "cannot be reactivated as a Western [Soviet] Minor if there is a Policy marker in its corresponding
    # Posture Box": the box it would be in as that faction's Minor -- a shared one too (DS "US and Western
    # Minors", "Soviet Minors"), else its own.
    markers = ctx.board.posture_markers(country, as_faction=faction)
    markers += [c.name for c in ctx.state.counters_at(posture_box(country))]
    return markers


@event_impl("reactivation")
def reactivation(ctx: EventContext) -> None:
    """16.3.1 / 16.5.1 Conquered Minor Country Reactivation: a Conquered Allied Country with the
    faction's Partisan Base and no enemy in that hex is reactivated (Steps 1-2 in `_reactivate`)."""
    faction = ctx.require_param("faction")
    res_tag = ctx.require_param("res_tag")  # Step 1: the Country's 0-1-2 Res infantry unit
    found = False
    for country in sorted(ctx.pack.countries):
        cstate = ctx.state.country(country)
        if (
            not ctx.board.is_minor_country(country)
            or cstate.status != "conquered"
            or cstate.faction not in ALLIED_FACTIONS
        ):
            continue
        places: list[str] = []
        capital = ctx.board.capital(country)
        if cstate.faction == faction:
            capital, gaps = capital_of(ctx, country)
            ctx.undecided(*gaps)  # the Capital is open (named in `missing`); a Partisan Base may still do
        if cstate.faction == faction and capital:
            enemy = ctx.board.enemy_presence(capital, faction)
            if enemy:
                enemies = ", ".join(ctx.name(c.id) for c in enemy)
                ctx.why(f"{country}: its Capital {ctx.place(capital)} holds {enemies}")
            else:
                places.append(capital)
        for base in partisan_base_hexes(ctx, country):
            ours = [
                c
                for c in ctx.board.counters_in_hex(base)
                if c.kind == "partisan_base" and ctx.board.faction_of(c) == faction
            ]
            if ours and not ctx.board.enemy_presence(base, faction):
                places.append(base)
        if not places:
            continue
        policy = _policy_markers(ctx, country, faction)
        if policy:
            ctx.why(
                f"{country}: cannot be reactivated as a {faction} Minor — Policy marker "
                f"{', '.join(policy)} in its Posture Box (Reactivation Restriction)"
            )
            continue
        found = True
        ctx.fire(
            f"{country} may be reactivated: " + describe_hexes(ctx, places) + " free of enemy units, "
            "Detachments and Logistics markers"
        )
        answer = ctx.choose(
            f"reactivate:{country}",
            faction,
            f"Reactivate {country}? Choose where its 0-1-2 Res infantry unit goes, or decline.",
            ["decline", *places],
            labels={"decline": "do not reactivate it",
                    **{p: f"its 0-1-2 Res infantry unit to {ctx.place(p)}" for p in places}},
            defer=True,
        )
        if answer is None:
            continue
        if answer == "decline":
            ctx.why(f"{country}: {faction} declined to reactivate it")
            continue
        _reactivate(ctx, country, faction, str(answer), res_tag)
    if not found and not ctx.fired and not ctx.entry.missing:
        ctx.not_due(f"no Conquered Country the {faction} faction can reactivate")
    elif not found and not ctx.fired:
        ctx.not_due(f"no Conquered Country the {faction} faction can reactivate among those the pack "
                    "locates")
    ctx.settle()


def _reactivate(ctx: EventContext, country: str, faction: str, place: str, res_tag: str) -> None:
    """16.3.1 / 16.5.1 Reactivation: the Country becomes an active Minor of the reactivating faction;
    Step 1 places its 0-1-2 Res infantry unit, Step 2 returns its conquered counters to the Force Pool."""
    owner = ctx.state.country(country).faction
    if owner != faction:
        ctx.set_country(country, None, f"the {faction} faction takes control of it", faction=faction)
        for unit in in_play(ctx.board.nationals(country)):
            if unit.location == conquered_minors(owner):
                ctx.move(unit, conquered_minors(faction), None, subject=country, why="temporarily")
    ctx.set_country(
        country, None, f"reactivated as a {faction} Minor Country", status="active", faction=faction
    )
    res = [c for c in in_play(ctx.board.nationals(country)) if res_tag in c.tags]
    if res:
        ctx.move(res[0], place, "Step 1", subject=country, why="its 0-1-2 Res infantry unit")
    else:
        ctx.note(
            f"place {country}'s 0-1-2 Res infantry unit in {place} (not listed in the position)", "Step 1"
        )
    for unit in in_play(ctx.board.nationals(country)):
        if unit.location in (conquered_minors(faction), conquered_minors(owner)):
            ctx.return_to_pool(unit, faction, "Step 2", subject=country)


# ---------------------------------------------------------------------------------------------------
# Liberation (16.3.2 / 16.5.2)


@dataclass(frozen=True)
class VichyFacts:
    """The French counters 16.3.2 Vichy / 16.4.1 / 16.5.2 France-Vichy Steps 1-3 name, as pack params."""

    fleet_tag: str  # Step 1: the French surface fleet units removed from the game
    colonial_infantry_tag: str  # Step 2: the French 0-1-2 V infantry go to the liberator's Force Pool
    vichy_code: str  # Steps 2-3: reinforcement code of the French "V" counters


def vichy_facts(ctx: EventContext) -> VichyFacts:
    """Read up front (before the position) whenever the pack enables the France/Vichy case."""
    return VichyFacts(
        fleet_tag=ctx.require_param("french_fleet_tag"),
        colonial_infantry_tag=ctx.require_param("colonial_infantry_tag"),
        vichy_code=ctx.require_param("vichy_code"),
    )


def vichy_steps(
    ctx: EventContext, france: str, faction: str, facts: VichyFacts, fleet_step: str = "Step 1"
) -> None:
    """16.3.2 Vichy / 16.4.1 / 16.5.2 France-Vichy Steps 1-3 (Step 4 in 16.5.2 via colonial_to_delay)."""
    for counter in in_play(ctx.board.nationals(france)):
        if facts.fleet_tag in counter.tags or counter.kind == "convoy":
            ctx.remove_from_game(counter, fleet_step, subject=france)
    for counter in in_play(ctx.board.nationals(france)):
        if facts.colonial_infantry_tag in counter.tags and counter.reinforcement == facts.vichy_code:
            ctx.move(counter, force_pool(faction), "Step 2", subject=france, why="French 0-1-2 V infantry")
    ctx.set_country(  # "liberated": 16.2.1 France can no longer apply to it
        france,
        "Step 2",
        f"Vichy is now a {faction} Minor Country",
        faction=faction,
        status="active",
        flags=sorted({*ctx.state.country(france).flags, "liberated"}),
    )
    for counter in in_play(ctx.board.nationals(france)):
        if counter.reinforcement == facts.vichy_code and counter.location not in (DELAY, force_pool(faction)):
            ctx.move(counter, DELAY, "Step 3", subject=france, why="remaining French V counter")


@event_impl("liberation")
def liberation(ctx: EventContext) -> None:
    """16.3.2 / 16.5.2: the faction's ground units occupy every City and Partisan Base hex of an enemy Minor
    Country. Edition params: ``step1_remove``, ``ceded_step`` (false: DS 16.3.2 has no ceded-marker Step 3),
    ``ceded_dependents``, ``colonial_step``, ``france`` and the Vichy/Baltic special cases."""
    faction = ctx.require_param("faction")
    victims = set(ctx.require_param("from_factions"))
    require_facts(ctx, "step1_remove", "colonial_step")  # Steps 1 and 4, read up front
    ceded_step = ctx.require_param("ceded_step")  # false: DS 16.3.2 has no ceded-marker Step 3
    france = ctx.require_param("france")  # false (DS): this edition has no France/Vichy case
    facts = vichy_facts(ctx) if france else None
    checked = False
    for country in sorted(ctx.pack.countries):
        cstate = ctx.state.country(country)
        if (
            not ctx.board.is_minor_country(country)  # an Allied Dependent is never liberated
            or cstate.status != "active"
            or cstate.faction not in victims
        ):
            continue
        checked = True
        special = (
            facts is not None
            and country == france
            and (is_vichy(ctx, country) or ctx.param("france_always_special", False))
        )
        # "all City and Partisan Base hexes", three-valued (rules.tri): one located City the faction does
        # not hold decides it (16.3.2 India with a free City); an unlocated one never reads as "none".
        located = located_cities(ctx, country)
        if not special:
            located = located.union(partisan_base_hexes(ctx, country))
        verdict = occupied_by(ctx, located, faction, country)
        if verdict.unknown:
            ctx.undecided(verdict)
            continue
        targets = list(located)
        held, occupied, free = occupies_all(ctx, targets, faction)
        label = f"{country} (Vichy)" if special and is_vichy(ctx, country) else country
        if not targets:
            ctx.not_due(no_city_text(ctx, country, "City hex" if special else "City or Partisan Base hex",
                                     located, faction))
            continue
        if not held:
            ctx.not_due(f"{label}: {faction} ground units do not occupy {describe_hexes(ctx, free)}")
            continue
        ctx.fire(
            f"{label}: {faction} ground units occupy every {'City' if special else 'City and Partisan Base'}"
            f" hex ({describe_hexes(ctx, occupied)}); it is liberated"
        )
        if special and facts is not None:
            vichy_steps(ctx, country, faction, facts)
            if ctx.param("vichy_colonial_step"):
                colonial_to_delay(ctx, country, "Step 4")
            continue
        remove_step1(ctx, country, "Step 1")
        remaining_to_pools(ctx, country, faction, "Step 2")
        ctx.set_country(
            country,
            "Step 2",
            f"becomes a {faction} Minor Country",
            faction=faction,
            status="active",
            flags=sorted({*ctx.state.country(country).flags, "liberated"}),
        )
        if ceded_step:  # TK 16.3.2/16.5.2 and DS 16.5.2 Step 3; DS 16.3.2 has none
            placed = ceded_markers_to_box(
                ctx, country, faction, "Step 3", dependents=bool(ctx.param("ceded_dependents", False))
            )
            _baltic_special(ctx, placed)
        colonial_to_delay(ctx, country, ctx.param("colonial_step_label", "Step 4"))
    if not checked:
        ctx.not_due("no active " + " or ".join(sorted(victims)) + " Minor Country")


def _baltic_special(ctx: EventContext, placed: list) -> None:
    """16.5.2 Step 3: the Baltic States Ceded Region marker removes Baltic units, may bring Memelland."""
    special = ctx.param("baltic")
    if not special:
        return
    if not any(m.area == special["area"] for m in placed):
        return
    for unit in in_play(ctx.board.nationals(special["country"])):
        if unit.kind != "ceded_land":
            ctx.remove_from_game(unit, "Step 3", subject=special["country"])
    eastern_poland = ctx.pack.areas[special["eastern_poland_area"]]
    if ctx.board.ceded_area_active(eastern_poland):
        ctx.note("Eastern Poland is part of Russia: the Memelland marker is not placed", "Step 3")
        return
    memel = [
        c
        for c in in_play(ctx.state.counters.values())
        if c.kind == "ceded_land" and c.area == special["memelland_area"] and c.location != CEDED_LANDS
    ]
    for marker in memel:
        ctx.move(marker, CEDED_LANDS, "Step 3", why="Eastern Poland is not part of Russia")


# ---------------------------------------------------------------------------------------------------
# 16.4.1 French Liberation and 16.4.2 Operation Avalanche


@event_impl("french_liberation")
def french_liberation(ctx: EventContext) -> None:
    """16.4.1 French Liberation: only when Vichy is an Axis or Soviet Country; Steps 1-3 are the Vichy
    steps shared with 16.3.2 Liberation (`vichy_steps`), performed for the Western faction."""
    france = ctx.require_param("france")
    facts = vichy_facts(ctx)
    cstate = ctx.state.country(france)
    if not is_vichy(ctx, france):
        ctx.not_due(f"{france} has not become Vichy")
        return
    if cstate.faction not in ("Axis", "Soviet") or cstate.status == "neutral":
        ctx.not_due(f"Vichy is {cstate.faction}, not an Axis or Soviet Country")
        return
    ctx.fire(f"Vichy is an {cstate.faction} Country")
    vichy_steps(ctx, france, "Western", facts)


@event_impl("operation_avalanche")
def operation_avalanche(ctx: EventContext) -> None:
    """16.4.2 Operation Avalanche: once per game, a selected Axis or Soviet Minor Country with a supplied
    US ground unit in a City; its Steps are cited where each acts."""
    us = ctx.require_param("us")
    us_adj = ctx.adjective(us)
    require_facts(ctx, "step1_remove", "colonial_step")  # Steps 1 and 3, read up front
    no_occupation_tag = ctx.require_param("no_occupation_tag")  # the No Occupation marker (14.24)
    eligible: dict[str, str] = {}
    for country in sorted(ctx.pack.countries):
        cstate = ctx.state.country(country)
        if (
            not ctx.board.is_minor_country(country)
            or cstate.status != "active"
            or cstate.faction not in ("Axis", "Soviet")
        ):
            continue
        def us_held(hex_id: str) -> bool:
            return any(u.nationality == us and u.supplied for u in ctx.board.ground_units(hex_id))

        # "a City within the selected Country", three-valued (rules.tri): one located City held decides
        # it, whatever else the pack lacks; "none is held" needs every City it may have.
        cities = located_cities(ctx, country)
        verdict = cities.some(us_held)
        if verdict.unknown:
            verdict = cities.holds(lambda hexes: any(us_held(h) for h in hexes))
        if verdict.true:
            held = [h for h in cities if us_held(h)]
            eligible[country] = f"supplied {us_adj} ground unit in {describe_hexes(ctx, held)}"
        elif verdict.unknown:
            ctx.undecided(verdict)
        else:
            ctx.why(f"{country}: no supplied {us_adj} ground unit in any of its Cities", detail=True)
    if not eligible:
        among = " among those the pack locates" if ctx.entry.missing else ""
        ctx.not_due(f"no Axis or Soviet Minor Country{among} has a City occupied by a supplied {us} "
                    "ground unit")
        return
    ctx.fire("Western may select: " + "; ".join(f"{c} ({w})" for c, w in eligible.items()))
    country = ctx.choose(
        "country",
        "Western",
        "Select the Axis or Soviet Minor Country for Operation Avalanche.",
        sorted(eligible),
    )
    owner = ctx.state.country(country).faction
    remove_step1(ctx, country, "Step 1")
    remaining_to_pools(ctx, country, owner, "Step 2", on_map_only=True)
    ctx.note(f"{country} remains aligned to the {owner} faction", "Step 2", subject=country)
    colonial_to_delay(ctx, country, "Step 3")
    if owner == "Axis":
        capital = ctx.board.capital(country) if known(ctx, "capital", country) else None
        if capital is None:
            ctx.fact("capital", country)  # "place a No Occupation marker in its capital": unknown (issue 9)
        spare = [
            c
            for c in ctx.state.tagged(no_occupation_tag)
            if c.location not in ctx.pack.hexes and c.location != "removed"
        ]
        if spare and capital:
            ctx.move(
                spare[0],
                capital,
                ctx.param("no_occupation_step", "Step 4"),
                subject=country,
                why="No Occupation marker (14.24)",
            )
        else:
            ctx.note(
                f"place a No Occupation marker in {country}'s Capital "
                f"{ctx.place(capital) if capital else '(not located by the pack)'} (14.24)",
                ctx.param("no_occupation_step", "Step 4"),
                subject=country,
            )
