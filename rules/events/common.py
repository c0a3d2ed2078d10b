"""Steps shared by several events, written once (conquest, liberation, reactivation, Avalanche, DS).

Why over 500 lines: it is the one library of steps and fact questions the event modules share (a
helper lands here only once two events use it); splitting it by topic would make each event import
several helper files that all read the same `EventContext` and the same territory/City facts.

Why shared: 16.1.1, 16.2.1, 16.3.2, 16.4.2 and 16.5.2 all open with the same "remove support units,
fortress units, ..." Step 1 and "remove all remaining counters" Step 2; the editions differ only in
the kinds listed, which the pack gives as the event parameter ``step1_remove``. Like every game fact,
the kinds and the ``colonial_step`` switch are read with ``ctx.require_param`` (no edition's list in code).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import TypeVar

from rules.board import PRESENCE_KINDS
from rules.engine import EventContext
from rules.facts import FACT_KINDS, claims_complete
from rules.packs import hex_label
from rules.plan import MissingFact
from rules.state import (
    CEDED_LANDS,
    DELAY,
    REMOVED,
    SET_ASIDE,
    Counter,
    conquered_minors,
    force_pool,
)
from rules.tri import FALSE, Gaps, Located, Verdict, merge_gaps

T = TypeVar("T")
OFF_GAME = frozenset({REMOVED, SET_ASIDE})
SUPPORT_KINDS = frozenset({"support", "air", "naval"})  # support units (air and naval units are support)


def require_facts(ctx: EventContext, *names: str) -> None:
    """Read, at the top of an event, the facts a shared Step helper takes later (``step1_remove``,
    ``colonial_step``): a pack missing one then fails on every position, not only when a Step runs."""
    for name in names:
        ctx.require_param(name)


def matches_kind(counter: Counter, kinds: Iterable[str]) -> bool:
    """Step-1 kinds: "support" covers air/naval units, "partnership" is the (P) flag, else counter.kind."""
    wanted = set(kinds)
    if "support" in wanted and counter.kind in SUPPORT_KINDS:
        return True
    if "partnership" in wanted and counter.partnership:
        return True
    return counter.kind in wanted


def in_play(counters: Iterable[Counter]) -> list[Counter]:
    return sorted((c for c in counters if c.location not in OFF_GAME), key=lambda c: c.id)


def remove_step1(ctx: EventContext, country: str, step: str = "Step 1") -> None:
    """Step 1 of conquest/liberation/Avalanche: the kinds come from the pack (edition difference)."""
    kinds = ctx.require_param("step1_remove")
    for counter in in_play(ctx.board.nationals(country)):
        if counter.kind != "ceded_land" and matches_kind(counter, kinds):
            ctx.remove_from_game(counter, step, subject=country)


def remaining_to_conquered_box(ctx: EventContext, country: str, faction: str, step: str = "Step 2") -> None:
    """16.1.1 / 16.2.1 Step 2: the conquered Country's remaining counters go to the Conquered Minor
    Countries Box of `faction`'s Force Pool."""
    box = conquered_minors(faction)
    for counter in in_play(ctx.board.nationals(country)):
        if counter.kind != "ceded_land" and counter.location != box:
            ctx.move(counter, box, step, subject=country)


def remaining_to_pools(
    ctx: EventContext, country: str, faction: str, step: str = "Step 2", on_map_only: bool = False
) -> None:
    """Returning a Country's counters (e.g. 16.3.1 / 16.5.1 Reactivation Step 2, 16.3.2 Liberation):
    Delay Stripe -> Delay Box; others -> `faction`'s Force Pool."""
    for counter in in_play(ctx.board.nationals(country)):
        if counter.kind == "ceded_land" or counter.location in (DELAY, force_pool(faction)):
            continue
        if on_map_only and counter.location not in ctx.pack.hexes:
            continue
        ctx.return_to_pool(counter, faction, step, subject=country)


def colonial_to_delay(ctx: EventContext, country: str, step: str) -> None:
    """16.1.1 / 16.2.1 Step 3: its British 1-2-2 colonial unit in the Western Conquered Minors Box goes
    to the Delay Box (TK only:
    pack param ``colonial_step``)."""
    if not ctx.require_param("colonial_step"):
        return
    box = conquered_minors("Western")
    found = [c for c in ctx.state.counters.values() if c.colonial_of == country]
    for counter in sorted(found, key=lambda c: c.id):
        if counter.location == box:
            ctx.move(
                counter, DELAY, step, subject=country, why=f"British colonial unit associated with {country}"
            )
        else:
            ctx.note(
                f"{ctx.name(counter.id)} is in {ctx.place(counter.location)}, "
                "not the Western Conquered Minor Countries Box: it stays",
                step,
                subject=country,
            )


def ceded_markers_to_box(
    ctx: EventContext, country: str, pool_faction: str, step: str, dependents: bool = False
) -> list[Counter]:
    """16.1.1 / 16.2.1 Step 4: Ceded Land markers in `pool_faction`'s Force Pool for areas in the
    country -> Ceded Lands Box."""
    moved: list[Counter] = []
    for counter in in_play(ctx.state.counters.values()):
        if (
            counter.kind != "ceded_land"
            or counter.area is None
            or counter.location != force_pool(pool_faction)
        ):
            continue
        area = ctx.pack.areas[counter.area]
        within = area.country == country or (dependents and ctx.board.home_of(area.country) == country)
        if within:
            receiver = area.ceded_to or pool_faction
            becomes = (f"a {ctx.adjective(receiver)} Dependent" if area.dependent else f"part of {receiver}")
            ctx.move(counter, CEDED_LANDS, step, subject=country,
                     why=f"{area.name} lies in {area.country}; it becomes {becomes}")
            moved.append(counter)
    return moved


def occupies_all(ctx: EventContext, hexes: list[str], faction: str) -> tuple[bool, list[str], list[str]]:
    """16.1.1 / 16.3.2 'ground units occupy all City (and Partisan Base) hexes': (all occupied, occupied
    hexes, unoccupied hexes) by `faction` ground units."""
    held = [h for h in hexes if ctx.board.faction_ground_units(h, faction)]
    free = [h for h in hexes if h not in held]
    return (bool(hexes) and not free, held, free)


def partisan_base_hexes(ctx: EventContext, country: str) -> list[str]:
    """16.1.1 conquest needs its Partisan Base hexes occupied too; 16.3.1 Reactivation places on one."""
    return sorted(
        {
            c.location
            for c in ctx.state.counters.values()
            if c.kind == "partisan_base"
            and c.location in ctx.pack.hexes
            and ctx.board.in_country(c.location, country)
        }
    )


def gaps_of(ctx: EventContext, fact: str, subject: str) -> Gaps:
    """The gap a fact a SHARED helper reads leaves, recording nothing: empty when the pack has it -- or
    when the event does not declare it.

    Why "declared only" (unlike `ctx.fact`, which also records an empty undeclared fact): these checks --
    territory moved by a Ceded Land area (`area_hexes`), a located Capital -- are new to the shared helpers;
    an edition whose events table does not declare them keeps trusting what it locates. The TK pack
    declares every fact its events read (rules/packs/tk/events.toml)."""
    if not ctx.declares(fact):
        return ()
    return ctx.located(fact, subject).gaps


def known(ctx: EventContext, fact: str, subject: str) -> bool:
    """`gaps_of`, recorded: True when the pack has the fact, False after naming it as missing."""
    gaps = gaps_of(ctx, fact, subject)
    ctx.undecided(*gaps)
    return not gaps


def active_areas(ctx: EventContext) -> list:
    """Areas whose Ceded Land / Region marker is in the Ceded Lands Box: they belong to another country.

    Why cached: 16.7 asks it for every counter on the map. Markers move only through recorded steps, so the
    answer holds while the event's step count is unchanged (one counter scan per step, not per ask)."""
    key = len(ctx.entry.steps)
    cached = getattr(ctx, "_active_areas", None)
    if cached is not None and cached[0] == key:
        return cached[1]
    ids = {c.area for c in ctx.state.counters.values()
           if c.kind == "ceded_land" and c.area and c.location == CEDED_LANDS}
    areas = [ctx.pack.areas[a] for a in sorted(ids) if a in ctx.pack.areas]
    ctx._active_areas = (key, areas)  # type: ignore[attr-defined]
    return areas


def territory_gaps(ctx: EventContext, country: str) -> Gaps:
    """What the pack lacks to know which hexes are `country`'s now (reading 2: its current territory).

    Why a fact: a Ceded Land marker in the Ceded Lands Box moves its area to another country, so a
    country's Cities are known only when every such area moved into or out of it is located in full
    (fact ``area_hexes``); otherwise a condition over them may be open (rules.tri)."""
    found: list[Gaps] = []
    for area in active_areas(ctx):
        touches = {area.country, area.ceded_to, area.name}
        if country in touches or ctx.board.home_of(area.country) == country:
            found.append(gaps_of(ctx, "area_hexes", area.id))
    return merge_gaps(*found)


def territory_known(ctx: EventContext, country: str) -> bool:
    """`territory_gaps`, recorded: the event must not decide that country (undecided, never not due)."""
    gaps = territory_gaps(ctx, country)
    ctx.undecided(*gaps)
    return not gaps


def territory_alternatives(ctx: EventContext, hex_id: str) -> tuple[list[str], Gaps]:
    """The ceded areas a hex may lie in for lack of their hexes (besides none, as the pack locates it):
    each active area of its country whose `area_hexes` the pack lacks, and those gaps."""
    info = ctx.pack.hex(hex_id)
    if info.area is not None:
        return [], ()
    areas, gaps = [], []
    for area in active_areas(ctx):
        if area.country == info.country:
            found = gaps_of(ctx, "area_hexes", area.id)
            if found:
                areas.append(area.id)
                gaps.append(found)
    return areas, merge_gaps(*gaps)


def same_over_territory(ctx: EventContext, hex_id: str, decide: Callable[[], T],
                        key: Callable[[T], object] = lambda value: value) -> tuple[T, Gaps]:
    """`decide()` as the pack locates the hex, and the gaps that leave it open: none when the hex decides
    alike (`key` of the answer) in every area it may lie in (rules.tri -- an Allied unit in a Polish hex
    that is neither in a Neutral country nor in a Dependent created by an event however the Polish
    Corridor is drawn is not interned, whatever the pack lacks of the Corridor's hexes).

    Why swap `ctx.pack`: the events read territory through the pack (Board); each alternative is the
    pack with only this hex's area changed, and the working pack is always restored."""
    found = decide()
    areas, gaps = territory_alternatives(ctx, hex_id)
    if not areas:
        return found, ()
    wanted = key(found)
    original = ctx.pack
    info = original.hex(hex_id)
    try:
        for area in areas:
            ctx.pack = dataclasses.replace(original, hexes={**original.hexes,
                                                            hex_id: dataclasses.replace(info, area=area)})
            if key(decide()) != wanted:
                return found, gaps
    finally:
        ctx.pack = original
    return found, ()


def hex_territory_known(
    ctx: EventContext, hex_id: str, matters: Callable[[str], bool] | None = None
) -> bool:
    """Is the country this hex counts as part of known (16.7, 16.3.3)? A hex the pack puts in an area is;
    a hex of a country with a ceded area whose hexes the pack locates only in part is not -- unless neither
    country it could be part of `matters` to the event (16.3.3 asks only about Britain, France, ...)."""
    info = ctx.pack.hex(hex_id)
    if info.area is not None:
        return True
    found = True
    for area in active_areas(ctx):
        if area.country != info.country:
            continue
        receiver = area.name if area.dependent else (area.ceded_to or area.country)
        could_be = {ctx.board.annexer(info.country), ctx.board.annexer(receiver)}
        if matters is None or any(matters(c) or matters(ctx.board.home_of(c)) for c in could_be):
            found = known(ctx, "area_hexes", area.id) and found
    return found


def located_cities(ctx: EventContext, country: str, dependents: bool = False) -> Located:
    """The country's City hexes now, three-valued (rules.tri): the Cities certainly its own, and the gaps
    -- its own Cities (fact ``city_hexes``; with `dependents`, its Dependents' too) or its territory
    (``area_hexes`` of the areas ceded into or out of it) -- that could add or take away one.

    A City the pack puts in no area, of a country with a ceded area the pack locates only in part, might
    lie in that area (and belong to another country): it is no certain member, so it decides nothing."""
    territory = territory_gaps(ctx, country)
    names = [country]
    if dependents:
        names += sorted(n for n in ctx.pack.countries if n != country and ctx.board.home_of(n) == country)
    own = merge_gaps(*(gaps_of(ctx, "city_hexes", name) for name in names),
                     *(_undeclared_none(ctx, name) for name in names))
    doubtful = doubtful_hexes(ctx, country, dependents, territory)
    cities = ctx.board.cities(country, dependents)
    certain = [h for h in cities if h not in doubtful]
    # Only the territory open, the Cities are these (some perhaps in the ceded area): a closed set.
    possible = {h for h in doubtful if ctx.pack.hex(h).city}
    closed = not own
    if own and not dependents:
        # Its own Cities open, but every hex of it listed: a City the pack lacks is one of those hexes.
        everywhere = candidate_hexes(ctx, country)
        if everywhere is not None:
            possible |= everywhere - set(certain)
            closed = True
    return Located(tuple(certain), merge_gaps(territory, own), tuple(sorted(possible)), closed)


def doubtful_hexes(ctx: EventContext, country: str, dependents: bool = False,
                   territory: Gaps | None = None) -> set[str]:
    """The hexes that may or may not be `country`'s now, for lack of the `territory` gaps: a hex the pack
    puts in no area, of a country with an active ceded area the pack locates only in part, lies in that
    area or not -- so it is the country's, or the area's receiver's."""
    gaps = territory_gaps(ctx, country) if territory is None else territory
    out: set[str] = set()
    for area_id in {gap.subject for gap in gaps if gap.subject in ctx.pack.areas}:
        area = ctx.pack.areas[area_id]
        members = ctx.board.area_hexes(area_id)
        receiver = ctx.board.political_country(members[0]) if members else (
            area.name if area.dependent else area.ceded_to or area.country)
        for hex_id, info in ctx.pack.hexes.items():
            if info.country != area.country or info.area is not None:
                continue
            now = ctx.board.in_country(hex_id, country, dependents)
            if now or ctx.board._counts_as(receiver, country, dependents):
                out.add(hex_id)
    return out


def _undeclared_none(ctx: EventContext, country: str) -> Gaps:
    """An edition that does not declare ``city_hexes`` still never reads "the pack lists none" as "it
    has none" (issue 9, as `EventContext.fact`)."""
    if ctx.declares("city_hexes") or any(ctx.pack.hexes_where(country=country, city=True)):
        return ()
    kind = FACT_KINDS["city_hexes"]
    return (MissingFact("city_hexes", country, kind.missing_text(country)),)


def cities_known(ctx: EventContext, country: str, dependents: bool = False) -> list[str] | None:
    """The country's City hexes now, or None (recorded as missing) when the pack does not locate them all
    (`located_cities`, for a caller that needs the whole list)."""
    cities = located_cities(ctx, country, dependents)
    if cities.gaps:
        ctx.undecided(cities)
        return None
    return list(cities.items)


def occupied_by(ctx: EventContext, targets: Located, faction: str, country: str | None = None) -> Verdict:
    """16.1.1 / 16.3.2 "ground units occupy all City (and Partisan Base) hexes", three-valued: false when
    a known target holds no `faction` ground unit; open when every known one does but the pack may lack
    some; true when the pack has them all (and there is one).

    With no known target, in a pack that lists every hex of `country` (`[complete] country_hexes`), a
    City the pack lacks is one of those hexes: when none of them holds a `faction` ground unit, no
    completion has all its Cities occupied -- false, whatever else the pack lacks. (Without that claim a
    unit may stand in a hex the pack does not list, which the position then cannot show.)"""
    def occupied(hex_id: str) -> bool:
        return bool(ctx.board.faction_ground_units(hex_id, faction))

    held = targets.every(occupied)
    if held.unknown:  # only the territory open: try each way the doubtful Cities may lie
        held = targets.holds(lambda hexes: bool(hexes) and all(occupied(h) for h in hexes))
    could_be = candidate_hexes(ctx, country) if held.unknown and not targets.items and country else None
    if could_be is not None and not any(occupied(h) for h in {*targets.possible, *could_be}):
        return FALSE
    if held.true and not targets.items:
        return FALSE  # nothing to occupy: the caller says why (`no_city_text`)
    return held


def candidate_hexes(ctx: EventContext, country: str) -> set[str] | None:
    """Every hex that may be `country`'s now -- where any City, Capital or unit of it the pack lacks must
    lie -- or None when the pack does not claim to list all its hexes (`[complete] country_hexes`): then a
    unit may stand in a hex the pack does not list, which the position cannot show."""
    if not claims_complete(ctx.pack, "country_hexes", country):
        return None
    return {*ctx.board.country_hexes(country), *doubtful_hexes(ctx, country)}


def capital_of(ctx: EventContext, country: str) -> tuple[str | None, Gaps]:
    """The country's Capital hex and, when the pack does not establish it, the gaps: a Capital the pack
    does not confirm may be another hex of the country -- unless the pack lists every hex of it and the
    located one is the only one it has."""
    capital = ctx.board.capital(country)
    if ctx.declares("capital"):
        gaps = gaps_of(ctx, "capital", country)
    else:  # an edition that does not declare it: a Capital the pack names is taken, none is missing
        lacking = MissingFact("capital", country, FACT_KINDS["capital"].missing_text(country))
        gaps = () if capital else (lacking,)
    if gaps and capital is not None and candidate_hexes(ctx, country) == {capital}:
        gaps = ()
    return (capital if not gaps else None), gaps


def no_city_text(ctx: EventContext, country: str, what: str = "City or Partisan Base hex",
                 targets: Located | None = None, faction: str = "") -> str:
    """Why a country has nothing to occupy: "all ceded away" only where Ceded Land areas now elsewhere
    hold its Cities; otherwise the pack lists none (issue 22: never blame a cession that did not happen)
    -- or, where the pack may lack some (`targets` open), no `faction` ground unit stands in it."""
    if targets is not None and not targets.complete:
        return (f"{country}: no {faction} ground unit stands in it, so the Cities the pack does not list "
                "cannot all be occupied")
    ceded = sorted({ctx.pack.areas[info.area].name for info in ctx.pack.hexes.values()
                    if info.country == country and info.city and info.area in ctx.pack.areas
                    and ctx.board.ceded_area_active(ctx.pack.areas[info.area])})
    if ceded:
        return f"{country}: it holds no {what} now (its Cities are ceded away: {', '.join(ceded)})"
    return f"{country}: the pack lists no City of {country}, and it holds no {what}"


place_name = hex_label  # the shared events' name for it


def describe_hexes(ctx: EventContext, hexes: Iterable[str]) -> str:
    return ", ".join(place_name(ctx.pack, h) for h in hexes) or "none"


def unguarded_cities(ctx: EventContext, area_ids: Iterable[str], major: str) -> list[str]:
    """Cities of the areas now ceded (marker in the Ceded Lands Box) holding no `major` unit, Detachment or
    Logistics marker -- TK 16.3.6 France Rises / 16.5.5 Russia Rises, DS 16.3.8 / 16.5.5 Rises."""
    out = []
    for area_id in area_ids:
        if not ctx.board.ceded_area_active(ctx.pack.areas[area_id]):
            continue
        for hex_id in ctx.board.area_hexes(area_id):
            if not ctx.pack.hex(hex_id).city:
                continue
            guards = [
                c
                for c in ctx.board.counters_in_hex(hex_id)
                if c.nationality == major and c.kind in PRESENCE_KINDS
            ]
            if not guards:
                out.append(hex_id)
    return out


def influence_choice(
    ctx: EventContext, key: str, step: str, candidates: Iterable[str], why: str, located: bool = True
) -> None:
    """Axis may apply Influence (15.19) to a Neutral or Friendly Minor Country among `candidates`;
    `located` False: the pack does not locate every bordering country (the event names it as missing)."""
    options = sorted(
        {
            c
            for c in candidates
            if ctx.board.is_minor_country(c)
            and ctx.state.country(c).faction in ("Neutral", "Axis")
            and ctx.state.country(c).status != "conquered"
        }
    )
    if not options and not located:
        ctx.note(f"Influence (15.19): the pack does not locate the countries {why}; check the map".strip(),
                 step)
        return
    if not options:
        none_left = "Influence (15.19) not possible: no Neutral or Friendly Minor Country"
        ctx.note(f"{none_left} {why}".strip(), step)
        return
    if not located:
        why = f"{why} (the pack does not locate every such country)".strip()
    answer = ctx.choose(
        key,
        "Axis",
        f"Apply Influence (15.19) to one Neutral or Friendly Minor Country {why}".strip() + "?",
        ["none", *options],
        labels={"none": "no Influence"},
        affects_position=False,
    )
    if answer is None:
        ctx.note("Influence (15.19): waiting for the Axis faction's choice below", step)
    elif answer != "none":
        ctx.roll("Influence", step, f"apply Influence (15.19) to {answer}", subject=str(answer))


def neighbors_of_hexes(ctx: EventContext, hexes: Iterable[str]) -> set[str]:
    """Countries sharing a border with a set of hexes, from pack adjacency and `borders` lists."""
    inside = set(hexes)
    found: set[str] = set()
    for h in inside:
        info = ctx.pack.hex(h)
        found.update(info.borders)
        for other in info.adjacent:
            if other not in inside:
                found.add(ctx.board.political_country(other))
    return found


def one_step_pool(ctx: EventContext, nationality: str | None, faction: str) -> list[Counter]:
    """One-step ground units of the nationality available in the Force Pool for breakdowns (2.3.4)."""
    return sorted(
        (
            c
            for c in ctx.state.counters.values()
            if c.location == force_pool(faction)
            and c.nationality == nationality
            and c.kind == "ground"
            and c.steps == 1
        ),
        key=lambda c: c.id,
    )


def breakdown(
    ctx: EventContext,
    counter: Counter,
    placements: list[tuple[str, int]],
    step: str | None,
    rule: str | None = None,
    subject: str | None = None,
) -> int:
    """Break a multi-step unit into one-step units from its Force Pool (2.3.4); returns steps lost.

    `placements` says where the one-step units go ((location, steps) pairs). Steps for which no one-step
    unit is left in the Force Pool are lost (16.7 Internment Restrictions); the broken-down unit itself goes
    to the Delay Box if it has a Delay Stripe, else to the Force Pool.
    """
    faction = ctx.board.faction_of(counter) or "Axis"
    pool = one_step_pool(ctx, counter.nationality, faction)
    origin = counter.location
    ctx.record(
        step,
        "breakdown",
        f"break down {ctx.name(counter.id)} ({counter.steps} steps) in {origin} into one-step units (2.3.4)",
        counter,
        None,
        subject,
        rule,
        steps=counter.steps,
    )
    ctx.eliminate(counter, step, subject, rule)
    lost = 0
    for location, steps in placements:
        for _ in range(steps):
            if pool:
                unit = pool.pop(0)
                ctx.move(unit, location, step, subject, "one-step unit from the breakdown", rule)
            else:
                lost += 1
    if lost:
        ctx.record(
            step,
            "lose_steps",
            f"{lost} step(s) of {ctx.name(counter.id)} are lost: no one-step "
            f"{counter.nationality} unit left in the Force Pool",
            counter,
            None,
            subject,
            rule,
            steps=lost,
        )
    return lost
