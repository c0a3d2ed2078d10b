"""Conquest and its France case: 16.1.1 Allied Minor Country Conquest (France: 16.1.1 France steps).

Edition differences are pack parameters: ``step1_remove`` (TK adds (P) units, War Economy and Convoy
markers; DS adds port-a-forts), ``colonial_step`` (TK Step 3 only), ``exempt`` (DS Kansu/Kiangsu),
``france`` (TK: the Country with the France/Vichy special case; ``false`` in DS, which has none).

The France case's own facts (its Vichy reinforcement code, the Syria Dependent and colonial infantry
tags, the Ceded Land markers of Step 5) are pack params too, read with ``ctx.require_param`` as soon as
the pack enables the case: no edition's counters are named in code.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.engine import EventContext, event_impl
from rules.events.common import (
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
    place_name,
    remaining_to_conquered_box,
    remove_step1,
    require_facts,
)
from rules.state import ALLIED_FACTIONS, CEDED_LANDS, DELAY, force_pool

VICHY = "vichy"  # position vocabulary (not a game fact): the country-state flag of a Vichy France


def is_vichy(ctx: EventContext, country: str) -> bool:
    return VICHY in ctx.state.country(country).flags


@dataclass(frozen=True)
class FranceCaseFacts:
    """The counters the 16.1.1 France case names, as the pack identifies them.

    Why one bundle: Steps 1-3 of the France case tell apart "V" counters (kept as Vichy), the Syria
    Dependent marker (kept for 16.2.1 Step 4) and the French 0-1-2 colonial infantry (placed in
    Step 2); all are read together, before the position, whenever the pack enables the case."""

    vichy_code: str  # reinforcement code of the French "V" counters (16.1.1 France Steps 1 and 3)
    syria_marker_tag: str  # tag of the Syria Dependent Ceded Land marker (16.1.1 France Step 1)
    colonial_infantry_tag: str  # tag of the French 0-1-2 colonial infantry units (16.1.1 France Step 2)
    area_markers: tuple[str, ...]  # areas whose Ceded Land marker 16.1.1 France Step 5 places


def france_case_facts(ctx: EventContext) -> FranceCaseFacts:
    """Read up front, before the position, so a pack missing one fails on every position alike."""
    return FranceCaseFacts(
        vichy_code=ctx.require_param("vichy_code"),
        syria_marker_tag=ctx.require_param("syria_marker_tag"),
        colonial_infantry_tag=ctx.require_param("colonial_infantry_tag"),
        area_markers=tuple(ctx.require_param("france_case_markers")),
    )


def conquer_minor(
    ctx: EventContext,
    country: str,
    conqueror: str = "Axis",
    steps: tuple[str, str, str, str] = ("Step 1", "Step 2", "Step 3", "Step 4"),
) -> None:
    """16.1.1 Steps 1-4 (also 16.2.1 Steps 1-4): the country becomes a Conquered Country of its faction."""
    owner = ctx.state.country(country).faction
    ctx.set_country(country, None, f"conquered; remains aligned with the {owner} faction", status="conquered")
    remove_step1(ctx, country, steps[0])
    remaining_to_conquered_box(ctx, country, owner, steps[1])
    if ctx.require_param("colonial_step"):
        colonial_to_delay(ctx, country, steps[2])
        ceded_markers_to_box(ctx, country, conqueror, steps[3])
    else:
        ceded_markers_to_box(ctx, country, conqueror, steps[2])


def conquest_candidates(ctx: EventContext, conqueror: str, include_conquered: bool = False) -> list[str]:
    """Allied Minor Countries that may be conquered: active ones (16.1.1 "an active Allied Minor Country");
    with `include_conquered`, Conquered ones too (16.2.1 reading 24: "selects one Allied Minor Country",
    and "a Country can be conquered any number of times"). An annexed country is part of another."""
    exempt = set(ctx.param("exempt", []))
    statuses = ("active", "conquered") if include_conquered else ("active",)
    out = []
    for name in sorted(ctx.pack.countries):
        cstate = ctx.state.country(name)
        if (
            ctx.board.is_minor_country(name)  # a listed Allied Dependent is never conquered (16.1.1)
            and not cstate.annexed_to
            and cstate.status in statuses
            and cstate.faction in ALLIED_FACTIONS
            and name not in exempt
        ):
            out.append(name)
    return out


@event_impl("minor_conquest")
def minor_conquest(ctx: EventContext) -> None:
    """16.1.1: Axis ground units occupy all City and Partisan Base hexes of an active Allied Minor Country."""
    conqueror = ctx.require_param("conqueror")
    require_facts(ctx, "step1_remove", "colonial_step")  # Steps 1 and 3, read up front
    france = ctx.require_param("france")  # false (DS): this edition has no France/Vichy case
    facts = france_case_facts(ctx) if france else None
    for country in conquest_candidates(ctx, conqueror):
        if facts is not None and country == france:
            if is_vichy(ctx, country):
                ctx.why(f"{country} (Vichy) can never be conquered (16.1.1 Vichy)")
                continue
            _france_case(ctx, country, conqueror, facts)
            continue
        bases = set(partisan_base_hexes(ctx, country))
        located = located_cities(ctx, country).union(bases)
        held = occupied_by(ctx, located, conqueror, country)
        if held.unknown:  # every located one is held; the pack may lack a City (rules.tri)
            ctx.undecided(held)
            continue
        targets = list(located)
        _, occupied, free = occupies_all(ctx, targets, conqueror)
        if not targets:
            ctx.not_due(no_city_text(ctx, country, targets=located, faction=conqueror))
            continue
        if held.false:  # one free City decides it, whatever else the pack lacks
            ctx.not_due(f"{country}: {conqueror} ground units do not occupy {_targets(ctx, free, bases)}")
            continue
        ctx.fire(
            f"{country}: {conqueror} ground units occupy every City and Partisan Base hex "
            f"({_targets(ctx, occupied, bases)}); it is conquered"
        )
        conquer_minor(ctx, country, conqueror)
    # Exemptions are named where they decide (issue 12 item 16): DS "Kansu and Kiangsu ... are exempt".
    for country in sorted(set(ctx.param("exempt", []))):
        cstate = ctx.state.country(country)
        if cstate.status == "active" and cstate.faction in ALLIED_FACTIONS:
            ctx.why(f"{country}: exempt from this event, it cannot be conquered (16.1.1 exception)")
    if not ctx.entry.why and not ctx.entry.missing:
        ctx.not_due("no active Allied Minor Country")


def _targets(ctx: EventContext, hexes: list[str], bases: set[str]) -> str:
    """The hexes 16.1.1 checks, a Partisan Base hex named as such ("w1234 (Partisan Base)")."""
    named = [f"{place_name(ctx.pack, h)}{' (Partisan Base hex)' if h in bases else ''}" for h in hexes]
    return ", ".join(named) or "none"


def _france_case(ctx: EventContext, france: str, conqueror: str, facts: FranceCaseFacts) -> None:
    """16.1.1 France: all Cities in France occupied -> France fights on as Vichy."""
    located = located_cities(ctx, france)
    verdict = occupied_by(ctx, located, conqueror, france)
    if verdict.unknown:
        ctx.undecided(verdict)  # "all Cities in France": every located one is held, the pack may lack one
        return
    cities = list(located)
    if not cities:
        ctx.not_due(no_city_text(ctx, france, "City", located, conqueror))
        return
    held, occupied, free = occupies_all(ctx, cities, conqueror)
    if not held:
        ctx.not_due(
            f"{france}: {conqueror} ground units do not occupy {describe_hexes(ctx, free)} "
            "(16.1.1 France needs all Cities)"
        )
        return
    owner = ctx.state.country(france).faction
    ctx.fire(
        f"{france}: {conqueror} ground units occupy all Cities in France ({describe_hexes(ctx, occupied)}): "
        "the France case applies, not conquest"
    )
    keep_tag, vichy_code = facts.syria_marker_tag, facts.vichy_code
    for counter in in_play(ctx.board.nationals(france)):
        kept = counter.reinforcement == vichy_code or keep_tag in counter.tags or counter.kind == "ceded_land"
        if not kept:
            ctx.remove_from_game(counter, "Step 1", subject=france)
    ctx.set_country(
        france,
        "Step 2",
        f"hereafter Vichy; remains aligned with the {owner} faction",
        flags=[*ctx.state.country(france).flags, VICHY],
    )
    colonial_tag = facts.colonial_infantry_tag
    colonials = [c for c in in_play(ctx.board.nationals(france)) if colonial_tag in c.tags]
    legal = _colonial_hexes(ctx, france, owner)
    placing = colonials[:3]
    if placing and legal:
        count = min(len(placing), len(legal))
        answer = ctx.choose(
            "colonial_hexes",
            owner,
            f"Place {count} French 0-1-2 colonial infantry unit(s), one per City/Port hex in a "
            "French Dependent with no enemy unit, Detachment or Logistics marker.",
            legal,
            labels={h: ctx.place(h) for h in legal},
            multiple=True,
        )
        if len(answer) != count:
            from vassal_parser.errors import InputError

            raise InputError(
                ctx.answers_source, f"answer to {ctx.rule}:colonial_hexes must name exactly {count} hexes"
            )
        for unit, hex_id in zip(placing, answer, strict=False):
            ctx.move(unit, hex_id, "Step 2", subject=france)
        placing = placing[count:]
    for unit in placing:
        ctx.move(unit, force_pool(owner), "Step 2", subject=france, why="no legal hex left for it")
    for counter in in_play(ctx.board.nationals(france)):
        if (
            counter.reinforcement == vichy_code
            and counter.location != DELAY
            and colonial_tag not in counter.tags
            and keep_tag not in counter.tags
        ):
            ctx.move(counter, DELAY, "Step 3", subject=france, why="French V counter")
    for counter in in_play(ctx.state.counters.values()):
        if counter.colonial_of == france and counter.location != DELAY:
            ctx.move(counter, DELAY, "Step 4", subject=france, why="British 1-2-2 Fra colonial unit")
    for area_id in facts.area_markers:
        place_area_marker(ctx, area_id, "Step 5")


def _colonial_hexes(ctx: EventContext, france: str, owner: str) -> list[str]:
    """16.1.1 France Step 2: City/Port hexes in a French Dependent with no enemy unit, Detachment or
    Logistics marker, where the three French 0-1-2 colonial infantry units may be placed."""
    out = []
    dependents = sorted(n for n in ctx.pack.countries if n != france and ctx.board.home_of(n) == france)
    for name in dependents:  # every City and Port of every French Dependent must be located
        known(ctx, "city_hexes", name)
        known(ctx, "port_hexes", name)
    for hex_id, info in sorted(ctx.pack.hexes.items()):
        here = ctx.board.political_country(hex_id)
        if here == france or ctx.board.home_of(here) != france:
            continue
        if (info.city or info.port) and not ctx.board.enemy_presence(hex_id, owner):
            out.append(hex_id)
    return out


def place_area_marker(ctx: EventContext, area_id: str, step: str) -> None:
    """Place a named Ceded Land marker in the Ceded Lands Box (16.1.1 France Step 5, 16.2.1 France
    Step 3); a marker missing from the position becomes a note for the players."""
    area = ctx.pack.areas[area_id]
    markers = [
        c for c in in_play(ctx.state.counters.values()) if c.kind == "ceded_land" and c.area == area_id
    ]
    if not markers:
        ctx.note(
            f"place the {area.name} Ceded Land marker in the Ceded Lands Box (the position has no such "
            "counter)",
            step,
        )
        return
    for marker in markers:
        if marker.location != CEDED_LANDS:
            ceded_to = area.ceded_to or area.country
            becomes = (f"a {ctx.adjective(ceded_to)} Dependent" if area.dependent else f"part of {ceded_to}")
            ctx.move(marker, CEDED_LANDS, step, why=f"{area.name} becomes {becomes}")


__all__ = ["FranceCaseFacts", "conquer_minor", "conquest_candidates", "france_case_facts", "is_vichy"]
