"""16.2.1 Case Yellow (Axis card 22a): once per game, conquest of one selected Allied Minor Country.

Every Country, area, tag and code it names is a TK pack param (`rules/packs/tk/events.toml`), read with
`ctx.require_param` before the position is looked at.

Reading (docs/rules-readings.md): the Axis selection is offered only among countries where the condition
holds — selecting one where it fails would leave the once-per-game event unused, which the engine does
not need to ask about.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.engine import EventContext, event_impl
from rules.events.common import (
    candidate_hexes,
    capital_of,
    describe_hexes,
    in_play,
    influence_choice,
    known,
    located_cities,
    neighbors_of_hexes,
    require_facts,
    territory_known,
)
from rules.events.conquest import VICHY, conquer_minor, conquest_candidates, is_vichy, place_area_marker
from rules.events.internment import intern
from rules.state import CEDED_LANDS, DELAY
from rules.tri import FALSE


def _german_supplied(ctx: EventContext, hex_id: str, major: str) -> bool:
    return any(c.nationality == major and c.supplied for c in ctx.board.ground_units(hex_id))


def _qualifies(ctx: EventContext, country: str, major: str) -> tuple[bool | None, str]:
    """16.2.1: "If supplied German ground units occupy the Capital or any three City hexes within the
    selected Country", three-valued (rules.tri): True/False, or None (its gaps recorded) when a completion
    of the missing facts could change it. A held Capital or three held located Cities decide it whatever
    the pack lacks; so does a country none of whose hexes (all listed) hold enough supplied German units."""
    capital = ctx.board.capital(country)
    adj = ctx.adjective(major)
    cities = located_cities(ctx, country)
    held = [h for h in cities if _german_supplied(ctx, h, major)]
    _, capital_gaps = capital_of(ctx, country)  # a Capital the pack does not confirm may lie elsewhere
    if capital is not None and not capital_gaps and _german_supplied(ctx, capital, major):
        return True, f"supplied {adj} ground units occupy its Capital {describe_hexes(ctx, [capital])}"
    if len(held) >= 3:
        return (
            True,
            f"supplied {adj} ground units occupy three or more Cities ({describe_hexes(ctx, held)})",
        )
    could_be = candidate_hexes(ctx, country)
    garrisoned = None if could_be is None else [h for h in could_be if _german_supplied(ctx, h, major)]
    capital_open = bool(capital_gaps) and (garrisoned is None or bool(garrisoned))
    three = cities.holds(lambda hexes: sum(_german_supplied(ctx, h, major) for h in hexes) >= 3)
    if three.unknown and garrisoned is not None and len(garrisoned) < 3:
        three = FALSE  # fewer than three hexes of it hold such a unit: no three Cities can be held
    if capital_open or three.unknown:
        ctx.undecided(*(capital_gaps if capital_open else ()), *three.gaps)
        return None, ""
    return False, f"supplied {adj} ground units hold {len(held)} City hex(es) and not the Capital"


@dataclass(frozen=True)
class FranceFacts:
    """What 16.2.1 Steps 1-7 name when France is selected."""

    vichy_code: str  # Step 1: French "V" counters are set aside, not removed
    zone_areas: tuple[str, ...]  # Step 3: Occupied France and Alsace-Lorraine Ceded Land markers
    syria: str  # Step 4: Syria is created as a Neutral Country
    syria_marker_tag: str  # Step 4: the Syria Dependent marker is removed
    france_defeated_tag: str  # Step 7 (combined game): the France Defeated marker


@event_impl("case_yellow")
def case_yellow(ctx: EventContext) -> None:
    """16.2.1 Case Yellow: the Axis selects a qualifying Allied Minor Country, which is Conquered
    (Steps 1-4 via `conquer_minor`, Step 5 Influence here); France follows its own Steps 1-7."""
    major = ctx.require_param("major")
    france = ctx.require_param("france")
    require_facts(ctx, "step1_remove", "colonial_step")  # Steps 1-4 (conquest), up front
    facts = FranceFacts(
        vichy_code=ctx.require_param("vichy_code"),
        zone_areas=tuple(ctx.require_param("france_zone_areas")),
        syria=ctx.require_param("syria"),
        syria_marker_tag=ctx.require_param("syria_marker_tag"),
        france_defeated_tag=ctx.require_param("france_defeated_tag"),
    )
    qualifying: dict[str, str] = {}
    # Reading 24: "selects one Allied Minor Country" -- Conquered ones too when the pack says so.
    conquered_too = bool(ctx.param("select_conquered", False))
    for country in conquest_candidates(ctx, "Axis", include_conquered=conquered_too):
        if country == france and (is_vichy(ctx, country) or "liberated" in ctx.state.country(country).flags):
            ctx.why(f"{france} has already been conquered or liberated: Case Yellow cannot apply to it",
                    detail=True)
            continue
        ok, why = _qualifies(ctx, country, major)
        if ok:
            qualifying[country] = why
        elif ok is False:
            ctx.why(f"{country}: {why}", detail=True)
    if not qualifying:
        among = " among those the pack locates" if ctx.entry.missing else ""
        ctx.not_due(f"no Allied Minor Country{among} the Axis could select meets the condition")
        return
    ctx.fire("Axis may select: " + "; ".join(f"{c} ({w})" for c, w in qualifying.items()))
    country = ctx.choose(
        "country", "Axis", "Select the Allied Minor Country for Case Yellow.", sorted(qualifying)
    )
    ctx.why(f"Axis selected {country}: {qualifying[country]}")
    if country == france:
        _case_yellow_france(ctx, france, major, facts)
        return
    conquer_minor(ctx, country, "Axis")
    capital = ctx.board.capital(country)
    if capital and any(c.nationality == major for c in ctx.board.ground_units(capital)):
        located = known(ctx, "neighbors", country)  # Step 5 offers every country sharing a border with it
        neighbors = set(ctx.pack.country(country).neighbors) | neighbors_of_hexes(
            ctx, ctx.board.country_hexes(country)
        )
        influence_choice(
            ctx, "influence", "Step 5", neighbors - {country}, f"sharing a border with {country}",
            located=located,
        )
    else:
        ctx.note(f"no {ctx.adjective(major)} ground unit in the Capital: no Influence", "Step 5")


def _case_yellow_france(ctx: EventContext, france: str, major: str, facts: FranceFacts) -> None:
    """16.2.1 France: Steps 1-7 in text order (Step 7 only in the combined game)."""
    for counter in in_play(ctx.board.nationals(france)):
        if counter.kind == "ceded_land":
            continue
        if facts.syria_marker_tag in counter.tags and counter.location == CEDED_LANDS:
            continue  # Step 4 names this marker "from the Ceded Lands Box": it leaves there (readings)
        if counter.reinforcement != facts.vichy_code:
            ctx.remove_from_game(counter, "Step 1", subject=france)
        else:
            ctx.set_aside(counter, "Step 1", subject=france)
    colonial = [c for c in in_play(ctx.state.counters.values()) if c.colonial_of == france]
    for counter in colonial:
        if counter.location != DELAY:
            ctx.move(counter, DELAY, "Step 2", subject=france, why="British 1-2-2 Fra colonial unit")
    if not colonial:
        ctx.note("place the British 1-2-2 Fra colonial unit in the Delay Box (the position has no such "
                 "counter)", "Step 2")
    zone_areas = facts.zone_areas
    for area_id in zone_areas:
        place_area_marker(ctx, area_id, "Step 3")
    for area_id in zone_areas:
        known(ctx, "area_hexes", area_id)  # Step 3 interns every Allied counter in these areas
    zone = [h for a in zone_areas for h in ctx.board.area_hexes(a)]
    allied = [
        c
        for h in zone
        for c in ctx.board.counters_in_hex(h)
        if ctx.board.faction_of(c) in ("Western", "Soviet")
    ]
    intern(ctx, allied, "Step 3", "Allied counter in Occupied France / Alsace-Lorraine", rule=ctx.rule)
    if not allied:
        ctx.note("no Allied counter in Occupied France or Alsace-Lorraine: nothing to intern", "Step 3")
    syria = facts.syria
    for marker in ctx.state.tagged(facts.syria_marker_tag, location=CEDED_LANDS):
        ctx.remove_from_game(marker, "Step 4", subject=syria)
    ctx.set_country(
        syria,
        "Step 4",
        "created as a Neutral Country",
        faction="Neutral",
        status="neutral",
        dependent_of=syria,
    )
    in_syria = list(ctx.board.counters_in_country(syria, dependents=True))
    intern(ctx, in_syria, "Step 4", "counter in newly Neutral Syria", rule=ctx.rule)
    if not in_syria:
        ctx.note(f"no counter in {syria}: nothing to intern", "Step 4")
    ctx.set_country(
        france,
        "Step 5",
        "Vichy is created as a Neutral Country (13.8.6)",
        faction="Neutral",
        status="neutral",
        flags=[*ctx.state.country(france).flags, VICHY],
    )
    territory_known(ctx, france)  # Step 5: "all counters in Vichy territory"
    vichy_hexes = ctx.board.country_hexes(france, dependents=True)
    in_vichy = [c for h in vichy_hexes for c in ctx.board.counters_in_hex(h) if c.kind != "ceded_land"]
    intern(ctx, in_vichy, "Step 5", "counter in Vichy territory", rule=ctx.rule)
    if not in_vichy:
        ctx.note("no counter in Vichy territory: nothing to intern", "Step 5")
    paris = ctx.board.capital(france)
    if paris and any(c.nationality == major for c in ctx.board.ground_units(paris)):
        located = known(ctx, "neighbors", france)  # Step 6: bordering Occupied France or Vichy
        for area_id in zone_areas:
            located = known(ctx, "area_neighbors", area_id) and located
        around = neighbors_of_hexes(ctx, zone + vichy_hexes) | set(ctx.pack.country(france).neighbors)
        options = around | {france}
        influence_choice(
            ctx,
            "influence",
            "Step 6",
            options,
            "sharing a border with Occupied France or Vichy (Vichy itself may be selected)",
            located=located,
        )
    else:
        ctx.note(f"no {ctx.adjective(major)} ground unit in Paris: no Influence", "Step 6")
    if ctx.state.turn.combined_game:
        markers = ctx.state.tagged(facts.france_defeated_tag)
        for marker in markers:
            ctx.move(marker, "ds_strategic_warfare", "Step 7")
        if not markers:
            ctx.note("place the France Defeated marker in the DS Strategic Warfare Box", "Step 7")
        ctx.note("remove all non-F French units in play in DS", "Step 7")
