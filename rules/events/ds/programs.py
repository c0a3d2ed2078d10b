"""DS events that release named counters from a Conditional Events Box, and the optional political
moves: 16.1.4, 16.1.5, 16.2.1, 16.2.2, 16.2.4, 16.3.3, 16.3.4, 16.3.5, 16.3.6 and 16.5.4 (European
Reserves), 16.5.3.

Why one parametrised implementation: these rules differ only in which counters move, from which box,
and on which Posture; the pack says which (rules/packs/ds/events.toml), each with its rule number.
"""

from __future__ import annotations

from typing import Any

from rules.engine import EventContext, event_impl
from rules.events.common import located_cities, place_name
from rules.state import DELAY, conditional_events, force_pool
from rules.tri import Located


def _posture_holds(ctx: EventContext, condition: dict[str, Any]) -> tuple[bool, str]:
    """The Posture condition some DS 16 release events name (e.g. 16.5.4 'If Russia's Posture is War'),
    given as pack data."""
    country = condition["country"]
    posture = ctx.state.country(country).posture or "not set"
    if "is" in condition:
        return posture == condition["is"], f"{country}'s Posture is {posture}"
    return posture != condition["not"], f"{country}'s Posture is {posture}"


def european_war(ctx: EventContext) -> str:
    """'European Limited War' / 'European Total War' for the `*` events.

    Standalone DS: the position's war_state stands for the European war state. Combined game:
    rules/combined.py hands the TK map's war state over as the `european_war` parameter."""
    return str(ctx.param("european_war") or ctx.state.turn.war_state)


@event_impl("ds_release")
def release_counters(ctx: EventContext) -> None:
    """DS 16.1.4, 16.2.1, 16.2.2, 16.2.4, 16.3.3, 16.3.4, 16.5.3 (the pack says which): move the tagged
    counters from a Conditional Events Box to the Delay Box when the Posture says so."""
    tag = ctx.require_param("tag")
    box = conditional_events(ctx.param("box_faction", ctx.phasing))
    condition = ctx.param("posture")
    exception = ctx.param("exception")
    # 16.2.4 Exception "a Japanese ground unit": whose units is the pack param `major`.
    japan = ctx.require_param("major") if exception else None
    if condition is not None:
        holds, why = _posture_holds(ctx, condition)
        if not holds:
            if condition.get("ignore"):
                ctx.ignore(f"{why}: ignore this event")
            else:
                ctx.not_due(f"{why}: the event does not occur")
            return
        ctx.why(why)
    counters = ctx.state.tagged(tag, location=box)
    if exception:
        # 16.2.4 "Take the Political Program colonial infantry units and the Quit India marker": the marker
        # is read by its own documented tag (docs/position-format.md `quit_india`), not only by `tag`.
        counters += [c for c in ctx.state.tagged(exception["tag"], location=box) if c not in counters]
    if not counters:
        ctx.not_due(f"no {tag} counter in {box}")
        return
    ctx.fire(f"{len(counters)} {tag} counter(s) in {box} go to the Delay Box")
    for counter in sorted(counters, key=lambda c: c.id):
        if exception and exception["tag"] in counter.tags and \
                _ground_unit_of_in(ctx, str(japan), exception["countries"]):
            ctx.remove_from_game(counter, "Exception")
            where = " or ".join(exception["countries"])
            ctx.why(f"Exception: a Japanese ground unit occupies a hex in {where}")
            continue
        ctx.move(counter, DELAY, ctx.param("step"))


def _ground_unit_of_in(ctx: EventContext, nationality: str, countries: list[str]) -> bool:
    """16.2.4 Exception: 'If a Japanese ground unit occupies a hex in Ceylon or India'."""
    board = ctx.board
    return any(c.nationality == nationality and c.is_ground and c.location in ctx.pack.hexes
               and any(board.in_country(c.location, country) for country in countries)
               for c in ctx.state.counters.values())


@event_impl("ds_european_reserves")
def european_reserves(ctx: EventContext) -> None:
    """16.3.6 / 16.5.4 (*): each of the two markers once per game, on the European war state."""
    country = ctx.require_param("posture_country")
    limited_tag, total_tag = ctx.require_param("limited_tag"), ctx.require_param("total_tag")
    if ctx.state.turn.combined_game and ctx.erratum("european_reserves_in_combined") == "skip":
        ctx.not_due("`*` rule: not used in the combined game (pack reading european_reserves_in_combined)")
        return
    box = conditional_events(ctx.phasing)
    war = european_war(ctx)
    posture = ctx.state.country(country).posture
    parts = [("limited", limited_tag, posture == "War" or war == "Limited War",
              f"{country}'s Posture is {posture or 'not set'}, European war state {war}"),
             ("total", total_tag, war == "Total War", f"European war state {war}")]
    for part, tag, holds, why in parts:
        key = f"{ctx.rule}:{part}"
        if key in ctx.state.turn.fired:
            ctx.not_due(f"{tag}: once per game, already occurred")
            continue
        if not holds:
            ctx.not_due(f"{tag}: {why}")
            continue
        markers = ctx.state.tagged(tag)
        markers = [m for m in markers if m.location == box] or [m for m in markers if m.location != DELAY]
        if not markers:
            ctx.not_due(f"{tag}: no marker to place")
            continue
        ctx.fire(f"{tag}: {why}")
        for marker in markers:
            ctx.move(marker, DELAY, None)
        ctx.state.turn.fired.append(key)


@event_impl("ds_cabinet_dissolution")
def cabinet_dissolution(ctx: EventContext) -> None:
    """16.1.5: the Axis faction MAY move the Japanese Government marker from its Holding Box."""
    government = ctx.state.tagged(ctx.require_param("tag"))
    in_box = [g for g in government if g.location == f"holding:{g.id}"]
    if not in_box:
        ctx.not_due("the Japanese Government marker is not in its Holding Box")
        return
    marker = in_box[0]
    ctx.fire("the Japanese Government marker is in its Holding Box: the Axis faction may dissolve "
             "the Cabinet")
    if ctx.choose("dissolve", "Axis", "Place the Japanese Government marker in the Delay Box?",
                  ["yes", "no"]) == "yes":
        ctx.move(marker, DELAY, None)


@event_impl("ds_french_response")
def french_response(ctx: EventContext) -> None:
    """16.3.5: with the US at War and France Neutral, the Western faction may activate France (both
    Countries are pack params `us`, `france`)."""
    us_name, france_name = ctx.require_param("us"), ctx.require_param("france")
    us = ctx.state.country(us_name).posture
    france = ctx.state.country(france_name)
    if us != "War":
        ctx.not_due(f"the {us_name} Posture is {us or 'not set'}, not War")
        return
    if france.faction != "Neutral":
        ctx.not_due(f"{france_name} is not Neutral (it is {france.faction})")
        return
    ctx.fire(f"the {us_name} Posture is War and {france_name} is Neutral")
    answer = ctx.choose("activate", "Western", f"Activate {france_name} as a Western Minor Country?",
                        ["yes", "no"])
    if answer == "yes":
        ctx.set_country(france_name, None, "activated as a Western Minor Country", faction="Western",
                        status="active")


@event_impl("ds_colonial_liberation")
def colonial_liberation(ctx: EventContext) -> None:
    """16.4.4: an Axis or Soviet colonial Country with a City held by a supplied US unit turns Western."""
    us, countries = ctx.require_param("us"), ctx.require_param("countries")
    board = ctx.board
    eligible: dict[str, str] = {}
    for country in countries:
        cstate = ctx.state.country(country)
        if cstate.faction not in ("Axis", "Soviet"):
            continue
        def us_held(hex_id: str) -> bool:
            return any(u.nationality == us and u.supplied for u in board.ground_units(hex_id))

        # "a City within the selected Country or one of its Dependents", three-valued (rules.tri): one
        # located City held decides it; unknown Cities leave "none is held" open.
        lands = [country, *sorted(n for n, info in ctx.pack.countries.items()
                                  if info.dependent_of == country)]
        cities = Located(())
        for land in lands:
            cities = cities.union(located_cities(ctx, land))
        verdict = cities.some_exactly(us_held)
        if verdict.unknown:
            ctx.undecided(verdict)
        elif verdict.true:
            eligible[country] = ", ".join(place_name(ctx.pack, h) for h in cities if us_held(h))
    if not eligible:
        listed = ", ".join(countries)
        ctx.not_due(f"no Axis or Soviet {listed} City (or Dependent City) holds a supplied {us} ground unit")
        return
    ctx.fire("; ".join(f"{c}: supplied {us} ground unit in {h}" for c, h in eligible.items()))
    country = ctx.choose("country", "Western", "Select the Country to liberate (16.4.4).", sorted(eligible))
    for counter in sorted(ctx.board.nationals(country), key=lambda c: c.id):
        if counter.kind != "ceded_land" and \
                counter.location not in ("removed", "set_aside", DELAY, force_pool("Western")):
            ctx.return_to_pool(counter, "Western", None, subject=country)
    ctx.set_country(country, None, "is now a Western Minor Country", faction="Western", status="active")
