"""16.2.5 Forced Settlement and 16.2.6 Japanese Concessions (Axis Settlement cards).

Why separate from settlements.py: these two decide WHICH Countries are affected (the Settlement
Affected Countries, SACs: the one named on the card plus its faction's Minor Countries) and, for
16.2.5, how hard the settlement is (one or two, or three or more, Allied Strategic Hexes under Axis
Control). The Step helpers are shared with the Surrenders. Every Country, marker and tag they name is
a pack param (rules/packs/ds/events.toml): `major`, `sac_by_card`, `sac_expansion`, `truce_markers`,
`government_tag`, `axis_control_tag`, `settlement_dependent_tag`, `surrender_marker`, `step5`.
"""

from __future__ import annotations

from rules.engine import EventContext, event_impl
from rules.events.common import candidate_hexes, influence_choice, place_name
from rules.events.ds.common import country_chain
from rules.events.ds.settlements import (
    add_posture_marker,
    cede_listed,
    ceded_to_areas,
    influence_candidates,
    intern_matching,
    one_year_ahead,
    pick_one,
    place_dependent_marker,
    recreate,
    return_ceded,
    surrender_policy,
    western_minors,
)
from rules.state import DELAY

ALLIED = ("Western", "Soviet")


def is_chinese_sac(ctx: EventContext, named: str) -> bool:
    """16.2.5: is the named SAC one of the Chinese Countries (pack param `sac_expansion`,
    `chinese = true`)?"""
    return bool(ctx.require_param("sac_expansion").get(named, {}).get("chinese", False))


def settlement_affected(ctx: EventContext, named: str, with_conquered: bool,
                        non_chinese_only: bool) -> list[str]:
    """The SACs: the named Country and the Countries its SAC expansion sentence adds (16.2.5/16.2.6;
    pack param `sac_expansion`: named SAC -> faction of the added Minor Countries, Chinese or not)."""
    sacs = [named]
    expansion = ctx.require_param("sac_expansion").get(named)
    if expansion is not None:
        faction, chinese = expansion["faction"], bool(expansion["chinese"])
        statuses = ("active", "conquered") if with_conquered else ("active",)
        wanted: bool | None = True if chinese else (False if non_chinese_only else None)
        sacs += [c for c in western_minors(ctx, statuses, chinese=wanted, faction=faction) if c != named]
    return sacs


def axis_controls(ctx: EventContext, hex_id: str, control_tag: str) -> bool:
    """16.2.5 Axis Control: an Axis ground unit in the hex, or a marker tagged `control_tag` (pack param
    `axis_control_tag`; docs/ds-notes.md)."""
    board = ctx.board
    return bool(board.faction_ground_units(hex_id, "Axis")) or \
        any(control_tag in c.tags for c in board.counters_in_hex(hex_id))


def _in_sacs(ctx: EventContext, sacs: list[str]):
    """16.2.5: 'in a SAC or its Dependents' as a hex test."""
    board = ctx.board

    def inside(hex_id: str) -> str | None:
        """The SAC the hex belongs to (the Country itself first, then the one it is a Dependent of)."""
        return next((c for c in country_chain(board, hex_id) if c in sacs), None)

    return inside


def _government_to_delay(ctx: EventContext, step: str, government_tag: str) -> None:
    """16.2.5 Step 2: the Japanese Government marker (tag: pack param `government_tag`) to the Delay Box."""
    for marker in ctx.state.tagged(government_tag):
        if marker.location == f"holding:{marker.id}":
            ctx.move(marker, DELAY, step, why="the Japanese Government marker was in its Holding Box")
            return
    ctx.note("the Japanese Government marker is not in its Holding Box: it stays", step)


def _listed_for(ctx: EventContext, sacs: list[str], named: str, japan: str) -> list[list[str]]:
    """Step 4: only the hexes listed under the SAC; Chinese entries only if their Country is an SAC."""
    lists = ctx.require_param("listed")
    pairs = list(lists.get(named, []))
    chinese_named = is_chinese_sac(ctx, named)
    for token, area_id in lists.get("Chinese", []):
        area = ctx.pack.areas[area_id]
        owner = area.country if area.ceded_to == japan else area.ceded_to
        if chinese_named and owner in sacs:
            pairs.append([token, area_id])
        elif chinese_named:
            ctx.why(f"Step 4: {area.name} not checked: {owner} is not an SAC")
    islands = set(ctx.param("mandate_islands", []))
    if not islands:
        return pairs
    # errata concessions_mandates: a reading other than "both" names the one SAC whose list keeps
    # the doubly listed islands (pack param `mandate_readings`: reading -> that SAC).
    owners = ctx.require_param("mandate_readings")
    if named not in owners.values():
        return pairs
    keeper = owners.get(ctx.erratum("concessions_mandates", "Step 4"))
    if keeper is not None and named != keeper:
        pairs = [p for p in pairs if p[0] not in islands]
    return pairs


def recreated_countries(ctx: EventContext) -> list[str]:
    """16.2.5 Step 3: which re-created Countries become Axis Minors (pack param `recreated`, plus the
    Countries an erratum reading adds: `recreated_by_reading = [[key, reading, [countries]]]`, shown)."""
    named = list(ctx.require_param("recreated"))
    for key, value, extra in ctx.param("recreated_by_reading", []):
        if ctx.erratum(key, "Step 3") == value:
            named.extend(extra)
    return named


def named_sac(ctx: EventContext) -> str | None:
    """16.2.5 'the Country or Countries named on the Axis Settlement card played' (pack ``sac_by_card``),
    else not due and None."""
    card = ctx.state.turn.current_cards.get("Axis")
    named = ctx.require_param("sac_by_card").get(card)
    if named is None:
        ctx.not_due(f"the Axis Current Card ({card}) names no Settlement Affected Country")
    return named


@event_impl("ds_forced_settlement")
def forced_settlement(ctx: EventContext) -> None:
    """16.2.5 Forced Settlement, Steps by the number of Allied Strategic Hexes under Axis Control."""
    japan, control_tag = ctx.require_param("major"), ctx.require_param("axis_control_tag")
    government_tag, truce_markers = ctx.require_param("government_tag"), ctx.require_param("truce_markers")
    settlement_tag = ctx.require_param("settlement_dependent_tag")
    surrender_marker = ctx.require_param("surrender_marker")
    step5, peace_tags = ctx.require_param("step5"), ctx.require_param("enforced_peace_tags")
    ctx.require_param("listed")  # Step 4's hex lists, read per SAC in _listed_for
    ctx.require_param("recreated")
    named = named_sac(ctx)
    if named is None:
        return
    sacs = settlement_affected(ctx, named, with_conquered=True, non_chinese_only=True)
    inside = _in_sacs(ctx, sacs)
    # "Allied Strategic Hexes in a SAC or its Dependents" (issue 9): each SAC's and each Dependent's
    # Strategic Hexes must be known (`strategic_hexes`; an empty list only where [complete] says so).
    lands = sorted({*sacs, *(n for n in ctx.pack.countries if ctx.board.home_of(n) in sacs)})
    strategic = sorted(h for h, info in ctx.pack.hexes.items() if info.strategic and inside(h))
    held = [h for h in strategic if axis_controls(ctx, h, control_tag)]
    listing = ", ".join(place_name(ctx.pack, h) for h in held) or "none"
    # Three-valued (rules.tri): a Strategic Hex the pack lacks counts only if the Axis controls it; where the
    # pack lists every hex of a land, such a hex is one of its Axis-controlled hexes, so the count of held
    # ones lies between the known count and that bound -- and which Settlement applies (none, one or two,
    # three or more) is decided when both ends agree.
    unknown: list[str] = []
    open_gaps: list = []
    more = 0
    for land in lands:
        gaps = ctx.located("strategic_hexes", land).gaps
        if not gaps:
            continue
        candidates = candidate_hexes(ctx, land)
        extra = None if candidates is None else sum(
            1 for h in candidates if not ctx.pack.hex(h).strategic and axis_controls(ctx, h, control_tag))
        if extra is None or extra:
            unknown.append(land)
            open_gaps.extend(gaps)
            more = 3 if extra is None else more + extra

    def settlement(count: int) -> int:  # none / "one or two" / "three or more"
        return 0 if count == 0 else 1 if count <= 2 else 2

    if unknown and settlement(len(held)) == settlement(len(held) + more):
        unknown = []  # whatever the pack lacks, the same Settlement applies
    ctx.undecided(*(open_gaps if unknown else ()))
    if unknown and len(held) < 3:
        # Fewer than three known: the unknown Strategic Hexes may change which Settlement applies.
        ctx.why(f"SACs {', '.join(sacs)}: Allied Strategic Hexes under Axis Control known: {listing} "
                f"({len(held)}); the pack does not locate those of {', '.join(unknown)}")
        return
    if not held:
        ctx.not_due(f"SACs {', '.join(sacs)}: no Allied Strategic Hex under Axis Control "
                    f"(Strategic Hexes in them: {len(strategic)})")
        return
    ctx.fire(f"SACs {', '.join(sacs)}; Allied Strategic Hexes under Axis Control: {listing} ({len(held)})")
    # Step 1 "the SAC's Posture Box(es)": every SAC's box, a shared one once ("US and Western Minors",
    # "Soviet Minors"; pack [posture_boxes]) -- issue 12 item 9.
    boxes = sorted({ctx.board.shared_posture_box(c) or f"{c}'s" for c in sacs})
    if len(held) <= 2:
        truce = ctx.choose("truce", "Axis", f"Step 1: which Truce marker goes in the SACs' Posture Box(es) "
                           f"({', '.join(boxes)})?", list(truce_markers))
        seen: set[str] = set()
        for country in sacs:
            box = ctx.board.shared_posture_box(country) or country
            if box not in seen:
                seen.add(box)
                add_posture_marker(ctx, country, str(truce), "Step 1")
        _government_to_delay(ctx, "Step 2", government_tag)
        return
    surrender_policy(ctx, sacs, peace_tags.get(named), surrender_marker)
    _government_to_delay(ctx, "Step 2", government_tag)
    returned = return_ceded(ctx, ceded_to_areas(ctx, sacs), "Step 3")
    recreate(ctx, returned, recreated_countries(ctx), "Step 3")
    created = cede_listed(ctx, _listed_for(ctx, sacs, named, japan), {japan}, "Step 4", settlement_tag)
    # Step 5: pack param `step5` = Country -> {area: its Dependent marker, sac: the SAC it goes with}.
    for country, entry in step5.items():
        if named != entry["sac"]:
            continue
        area_id = entry["area"]
        if ctx.need("city_hexes", country) is None:
            ctx.why(f"Step 5: undecided: the pack does not locate all Cities in {country}")
            continue
        cities = ctx.board.cities(country)
        if cities and all(axis_controls(ctx, h, control_tag) for h in cities):
            place_dependent_marker(ctx, area_id, "Step 5", settlement_tag)
            created.append(area_id)
        else:
            ctx.why(f"Step 5: the Axis does not control all Cities in {country} "
                    f"({len(cities)} known to the pack)")
    board = ctx.board

    def active_sac(hex_id: str) -> bool:
        # Step 6: "Do not intern ... units inside a conquered Allied Minor Country" (e.g. the Philippines,
        # also a US Dependent, when conquered).
        return inside(hex_id) is not None and not any(
            board.country_state(c).status == "conquered" for c in country_chain(board, hex_id))

    if created:
        # "created in Step 2 above": Step 2 creates none (erratum forced_settlement_step_ref, shown).
        ctx.erratum("forced_settlement_step_ref", "Step 6")
    intern_matching(ctx, "Step 6", "Axis counter in an active SAC or its Dependents",
                    lambda c, h: board.faction_of(c) == "Axis" and active_sac(h))
    intern_matching(ctx, "Step 7", "SAC counter outside its Home Country or Dependents",
                    lambda c, h: c.nationality in sacs and c.nationality not in country_chain(board, h))
    intern_matching(ctx, "Step 8", "non-SAC Allied counter inside an SAC or its Dependents",
                    lambda c, h: board.faction_of(c) in ALLIED and c.nationality not in sacs and
                    inside(h) is not None)
    influence_choice(ctx, "influence", "Step 9", influence_candidates(ctx), "(15.19)")


@event_impl("ds_japanese_concessions")
def japanese_concessions(ctx: EventContext) -> None:
    """16.2.6 Japanese Concessions: Japan cedes Regions or Dependents to the SAC."""
    japan, government_tag = ctx.require_param("major"), ctx.require_param("government_tag")
    surrender_marker = ctx.require_param("surrender_marker")
    peace_tags = ctx.require_param("enforced_peace_tags")
    ctx.require_param("listed")  # Step 4's hex lists, read per SAC in _listed_for
    named = named_sac(ctx)
    if named is None:
        return
    wording = ctx.erratum("sac_expansion")
    sacs = settlement_affected(ctx, named, with_conquered=wording == "same_as_16_2_5",
                               non_chinese_only=wording == "same_as_16_2_5")
    ctx.fire(f"Japanese Concessions to {', '.join(sacs)} (once per game)")
    # Step 1 "the SAC's Posture Box": each SAC's box (a shared one once), as 16.2.5 (issue 12 item 9).
    surrender_policy(ctx, sacs, peace_tags.get(named), surrender_marker)
    government = ctx.state.tagged(government_tag)
    box = f"turn_track:{one_year_ahead(ctx.state.turn.date)}"
    for marker in government:
        ctx.move(marker, box, "Step 2", why="one year ahead, even if not in its Holding Box")
    if not government:
        ctx.note(f"place the Japanese Government marker on the Turn Track ({box})", "Step 2")
    japanese = [a for a, info in ctx.pack.areas.items() if info.ceded_to == japan]
    return_ceded(ctx, japanese, "Step 3")
    pairs = _listed_for(ctx, sacs, named, japan)
    # Allied gains are no Japanese Dependents: their markers are not tagged for 16.7.
    placed = cede_listed(ctx, pairs, set(sacs), "Step 4", settlement_tag=None)
    if not placed and pairs:
        placed = pick_one(ctx, pairs, "Step 5", "Axis", must=True, settlement_tag=None)
    inside = _in_sacs(ctx, sacs)
    board = ctx.board
    intern_matching(ctx, "Step 6", "Axis counter in the SAC",
                    lambda c, h: board.faction_of(c) == "Axis" and inside(h) is not None)
    if placed:
        # "created in Step 2": Step 2 creates none (erratum concessions_step_ref, shown).
        ctx.erratum("concessions_step_ref", "Step 7")
    intern_matching(ctx, "Step 7", "SAC counter outside its Home Country or Dependents",
                    lambda c, h: c.nationality in sacs and c.nationality not in country_chain(board, h))
    intern_matching(ctx, "Step 8", "non-SAC Allied counter inside the SAC or its Dependents",
                    lambda c, h: board.faction_of(c) in ALLIED and c.nationality not in sacs and
                    inside(h) is not None)
