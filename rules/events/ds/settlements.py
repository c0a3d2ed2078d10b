"""The Pacific peace treaties: 16.4.1 British, 16.4.3 US and 16.6.2 Russian Surrender, 16.4.2 and
16.6.1 Chinese Surrenders (16.2.5 Forced Settlement and 16.2.6 Japanese Concessions: settlement.py).

Why one module of small Step helpers: every treaty is the same sentences in a different order --
Surrender Policy + Enforced Peace, Ceded Land markers returned, "supplied Japanese ground unit in the
hex listed below" Dependents, an optional pick, then internment inside/outside the SAC's lands -- with
the hex lists and Countries in the pack (rules/packs/ds/events.toml).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rules.board import PRESENCE_KINDS
from rules.engine import EventContext, event_impl
from rules.events.common import in_play, influence_choice, place_name
from rules.events.ds.common import country_chain, marker_for, pack_fact
from rules.events.internment import intern
from rules.state import CEDED_LANDS, REMOVED, Counter, conquered_minors, force_pool

ALLIED = ("Western", "Soviet")


def influence_candidates(ctx: EventContext) -> list[str]:
    """Countries Influence (15.19) may name: Dependents are not Countries of their own."""
    return [name for name, info in ctx.pack.countries.items() if not info.dependent_of]


def one_year_ahead(date: str) -> str:
    """'Jul-Aug 1940' -> 'Jul-Aug 1941' (16.2.5 Step 1 example)."""
    if re.search(r"\d{4}", date):
        return re.sub(r"\d{4}", lambda m: str(int(m.group()) + 1), date, count=1)
    return f"{date or 'this turn'} +1 year"


def resolve_hex(ctx: EventContext, token: str, step: str | None = None) -> str | None:
    """A hex id, or "@<errata key>" for a place the text prints two ways (errata.toml); None when the
    reading says the hex is unknown and the players must be asked. The reading applied is shown in the
    plan (`ctx.erratum`, issue 12 item 7: 16.2.5 / 16.6.2 Irkutsk, 16.2.6 Tsitsihar)."""
    if not token.startswith("@"):
        return token
    key = token[1:]
    chosen = ctx.erratum(key, step)
    printed = ctx.param("printed", {}).get(key)
    if chosen == "ask":
        return None
    if chosen in ("as_printed", "both") and printed:
        return str(printed)
    return chosen if chosen in ctx.pack.hexes else str(printed)


def add_posture_marker(ctx: EventContext, country: str, marker: str, step: str) -> str:
    """Place a Policy/Truce marker in `country`'s Posture Box -- a shared box (pack `[posture_boxes]`,
    e.g. "US and Western Minors") when the Country is in one; returns the box's name as players say it."""
    box = ctx.board.shared_posture_box(country)
    # A Policy marker stands instead of a Posture of War (docs/position-format.md; DS 16.5.x "remove the
    # Surrender marker ... and change <its> Posture to War"): placing one ends a War Posture.
    policy = marker in set(ctx.pack.meta.get("policy_markers", ()))
    ends_war = {"posture": None} if policy and ctx.state.country(country).posture == "War" else {}
    if box is None:
        markers = ctx.state.country(country).markers
        ctx.set_country(country, step, f"{marker} marker placed in its Posture Box"
                        + ("; its Posture is no longer War" if ends_war else ""),
                        markers=[*markers, marker] if marker not in markers else list(markers), **ends_war)
        return f"{country}'s Posture Box"
    if ends_war:
        ctx.set_country(country, step, f"{marker} marker in the {box} Posture Box: its Posture is no "
                        "longer War", **ends_war)
    held = ctx.state.posture_boxes.setdefault(box, [])
    ctx.record(step, "place_marker", f"place a {marker} marker in the {box} Posture Box", None, None,
               country, box=box, marker=marker)
    if marker not in held:
        held.append(marker)
    return f"the {box} Posture Box"


def remove_posture_markers(ctx: EventContext, country: str, names: list[str], step: str,
                           **fields: object) -> None:
    """Remove these markers from `country`'s Posture Box (its own or its shared one) and set `fields`."""
    box = ctx.board.shared_posture_box(country)
    if box is None:
        cstate = ctx.state.country(country)
        ctx.set_country(country, step, f"{' / '.join(names)} marker removed from its Posture Box",
                        markers=[m for m in cstate.markers if m not in names], **fields)
        return
    ctx.state.posture_boxes[box] = [m for m in ctx.state.posture_boxes.get(box, []) if m not in names]
    ctx.record(step, "remove_marker", f"remove the {' / '.join(names)} marker from the {box} Posture Box",
               None, None, country, box=box, markers=list(names))
    if fields:
        ctx.set_country(country, step, ", ".join(f"{k} {v}" for k, v in fields.items()), **fields)


def surrender_policy(ctx: EventContext, countries: list[str], peace_tag: str | None, marker: str,
                     step: str = "Step 1") -> None:
    """Step 1 of 16.4.1 / 16.4.3 / 16.6.2 (and the Chinese Surrenders 16.4.2 / 16.6.1, 16.2.5 / 16.2.6):
    place a Surrender Policy marker (its name: pack param `surrender_marker`) in each Country's Posture
    Box -- once per box, a shared one included (16.4.3 "the US and Western Minors Posture Box") -- and the
    Enforced Peace marker one year ahead."""
    boxes: set[str] = set()
    for country in countries:
        box = ctx.board.shared_posture_box(country) or country
        if box in boxes:
            continue
        boxes.add(box)
        add_posture_marker(ctx, country, marker, step)
    if peace_tag is None:
        return
    box = f"turn_track:{one_year_ahead(ctx.state.turn.date)}"
    found = [c for c in ctx.state.tagged(peace_tag) if c.location not in (REMOVED,)]
    for counter in found:
        ctx.move(counter, box, step, why="Enforced Peace marker one year ahead")
    if not found:
        ctx.note(f"place the {peace_tag} marker on the Turn Track one year ahead ({box})", step)


def return_ceded(ctx: EventContext, area_ids: list[str], step: str) -> list[str]:
    """Remove these Ceded Land markers from the Ceded Lands Box: the areas go back to their owners.
    Returns the areas whose marker left the box."""
    returned = []
    for counter in in_play(ctx.state.counters.values()):
        if counter.kind == "ceded_land" and counter.area in area_ids and counter.location == CEDED_LANDS:
            faction = ctx.pack.areas[counter.area].marker_faction or "Axis"
            ctx.move(counter, force_pool(faction), step, why=f"{ctx.pack.areas[counter.area].name} returned")
            returned.append(str(counter.area))
    return returned


def ceded_to_areas(ctx: EventContext, owners: list[str]) -> list[str]:
    """"All <owner> Ceded Land markers" (16.2.5 Step 3, 16.2.6 Step 3, surrenders Step 2): every pack area
    ceded to one of `owners` -- read from the pack, never a fixed list (issue 12 item 10)."""
    return sorted(a for a, info in ctx.pack.areas.items() if info.ceded_to in owners)


def recreate(ctx: EventContext, returned: list[str], countries: list[str], step: str) -> list[str]:
    """16.2.5 Step 3 / 16.6.2 Step 2: "If Mongolia [or Tannu Tuva] is re-created as a result of this, that
    country becomes an Axis Minor Country; place its units in the Axis Force Pool."

    Re-created: an area of the Country came back in this Step and none of its land is ceded any more."""
    board = ctx.board
    done = []
    for country in countries:
        mine = [a for a, info in ctx.pack.areas.items() if info.country == country and info.ceded_to]
        if not any(a in returned for a in mine):
            continue
        if any(board.ceded_area_active(ctx.pack.areas[a]) for a in mine):
            ctx.why(f"{step}: {country} is not re-created: part of it is still ceded")
            continue
        ctx.set_country(country, step, "re-created: it becomes an Axis Minor Country", faction="Axis",
                        status="active")
        for counter in sorted(board.nationals(country), key=lambda c: c.id):
            if counter.kind != "ceded_land" and counter.location != force_pool("Axis"):
                ctx.move(counter, force_pool("Axis"), step, subject=country,
                         why=f"{country} is re-created as an Axis Minor Country")
        done.append(country)
    if not done:
        ctx.note(f"no Country is re-created ({' or '.join(countries)}: none of its land came back)", step)
    return done


def place_dependent_marker(ctx: EventContext, area_id: str, step: str, settlement_tag: str | None) -> bool:
    """Put the area's marker in the Ceded Lands Box; a Japanese Dependent a settlement creates gets
    `settlement_tag` (pack param `settlement_dependent_tag`), which 16.7 reads; None: no tag."""
    marker = marker_for(ctx.state, area_id)
    area = ctx.pack.areas[area_id]
    if marker is None:
        ctx.note(f"place the {area.name} marker in the Ceded Lands Box (the position has no such "
                 "counter)", step)
        return True
    if marker.location != CEDED_LANDS:
        ctx.move(marker, CEDED_LANDS, step, why=f"{area.name} becomes a {area.ceded_to} Dependent")
    if settlement_tag and settlement_tag not in marker.tags:
        marker.tags.append(settlement_tag)
    return True


def supplied_unit_of(ctx: EventContext, hex_id: str, nationalities: set[str]) -> Counter | None:
    return next((u for u in ctx.board.ground_units(hex_id) if u.nationality in nationalities and u.supplied),
                None)


def cede_listed(ctx: EventContext, pairs: list[list[str]], nationalities: set[str], step: str,
                settlement_tag: str | None) -> list[str]:
    """The treaties' (16.4.1 / 16.4.3 / 16.6.2, and 16.2.5) 'If there is a supplied <nationality> ground unit
    in the hex listed below, the associated Region or Dependent becomes ...': returns the areas placed."""
    placed = []
    for pair in pairs:
        token, area_id = pair[0], pair[1]
        hex_id = resolve_hex(ctx, token, step)
        if hex_id is None:
            name = ctx.pack.areas[area_id].name
            answer = ctx.choose(f"unit_in:{area_id}", "Axis", f"{step}: is there a supplied "
                                f"{'/'.join(sorted(nationalities))} ground unit in the town deciding {name}? "
                                f"(its hex id is doubtful: errata {token[1:]})", ["yes", "no"])
            if answer == "yes":
                place_dependent_marker(ctx, area_id, step, settlement_tag)
                placed.append(area_id)
            continue
        unit = supplied_unit_of(ctx, hex_id, nationalities)
        # The town as the list prints it (a third entry), so "Tsitsihar (w5226)" is not shown as the
        # Mukden the pack names that hex after (errata mukden_tsitsihar; issue 12 item 18).
        where = f"{pair[2]} ({hex_id})" if len(pair) > 2 else place_name(ctx.pack, hex_id)
        if unit is None:
            ctx.why(f"{step}: no supplied {'/'.join(sorted(nationalities))} ground unit in {where}")
            continue
        ctx.why(f"{step}: supplied {ctx.name(unit.id)} in {where}")
        place_dependent_marker(ctx, area_id, step, settlement_tag)
        placed.append(area_id)
    return placed


def pick_one(ctx: EventContext, pairs: list[list[str]], step: str, decider: str, must: bool,
             settlement_tag: str | None) -> list[str]:
    """Step 4/5: no marker placed -> the Axis faction may (or must) select one Region from the list."""
    options = [pair[1] for pair in pairs if pair[1] in ctx.pack.areas]
    labels = {a: ctx.pack.areas[a].name for a in options}
    if not must:
        options, labels = ["none", *options], {"none": "select none", **labels}
    answer = ctx.choose("select_region", decider, f"{step}: no marker was placed; select one Region or "
                        "Dependent from the list" + ("" if must else " (optional)"), options, labels)
    if answer != "none":
        place_dependent_marker(ctx, str(answer), step, settlement_tag)
        return [str(answer)]
    return []


def intern_matching(ctx: EventContext, step: str, reason: str, test: Callable[[Counter, str], bool]) -> None:
    """Intern every map counter whose (counter, hex) passes `test`."""
    chosen = [c for c in in_play(ctx.state.counters.values())
              if c.location in ctx.pack.hexes and c.kind != "ceded_land" and test(c, c.location)]
    if chosen:
        intern(ctx, chosen, step, reason, rule=ctx.rule)
    else:
        ctx.note(f"nothing to intern ({reason})", step)


def lands_of(ctx: EventContext, country: str, home: bool) -> Callable[[str], bool]:
    """Hex test: in `country`'s Dependents (and, with `home`, the Country itself) right now."""
    board = ctx.board

    def inside(hex_id: str) -> bool:
        here = board.political_country(hex_id)
        return board.home_of(here) == country and (home or here != country)

    return inside


def western_minors(ctx: EventContext, statuses: tuple[str, ...], chinese: bool | None = False,
                   faction: str = "Western") -> list[str]:
    """Minor Countries of the faction with these statuses; `chinese` False: non-Chinese only (which are
    Chinese: pack `[ds] chinese_countries`). A Minor Country that is also a Dependent (the Philippines,
    Indochina: pack `kind = "minor"` with `dependent_of`) is a Minor Country too (16.2.5 SAC expansion)."""
    chinese_set = set(pack_fact(ctx.pack, "chinese_countries"))
    out = []
    for name, info in ctx.pack.countries.items():
        cstate = ctx.state.country(name)
        if info.kind != "minor" or cstate.faction != faction or \
                cstate.status not in statuses:
            continue
        if chinese is False and name in chinese_set:
            continue
        if chinese is True and name not in chinese_set:
            continue
        out.append(name)
    return sorted(out)


@event_impl("ds_surrender")
def surrender(ctx: EventContext) -> None:
    """16.4.1 British, 16.4.3 US and 16.6.2 Russian Surrender: Steps 1-8 (the card is the condition).

    The SAC, "Japanese" (`major`) and the marker names are pack params."""
    sac, japan = ctx.require_param("country"), ctx.require_param("major")
    settlement_tag = ctx.require_param("settlement_dependent_tag")
    surrender_marker = ctx.require_param("surrender_marker")
    peace_tag = ctx.require_param("enforced_peace_tag")
    owners, pairs = ctx.require_param("returned_of"), ctx.require_param("listed")
    home = bool(ctx.require_param("home_on_map"))
    ctx.fire(f"{sac} surrenders (once per game)")
    surrender_policy(ctx, ctx.param("posture_boxes", [sac]), peace_tag, surrender_marker)
    # Step 2 "Remove all <SAC> Ceded Land markers from the Ceded Lands Box".
    returned = return_ceded(ctx, ceded_to_areas(ctx, list(owners)), "Step 2")
    if ctx.param("recreated"):
        recreate(ctx, returned, list(ctx.param("recreated")), "Step 2")
    placed = cede_listed(ctx, pairs, {japan}, "Step 3", settlement_tag)
    if not placed:
        placed = pick_one(ctx, pairs, "Step 4", "Axis", must=False, settlement_tag=settlement_tag)
    step_ref = ctx.param("step_ref_erratum")
    if step_ref and placed:
        # Step 5 "created in Step 2 above" (errata surrender_step_ref / russian_surrender_step_ref, shown).
        ctx.erratum(str(step_ref), "Step 5")
    in_sac = lands_of(ctx, sac, home)
    minors = western_minors(ctx, ("active",)) if ctx.param("with_western_minors") else []
    board = ctx.board

    def in_minor(hex_id: str) -> str | None:
        return next((c for c in country_chain(board, hex_id) if c in minors), None)

    # 16.4.3 Step 5 "Do not intern ... units inside a conquered Allied country" (pack `spare_conquered`;
    # the Philippines is a US Dependent AND a Minor Country that can be conquered).
    spare_conquered = bool(ctx.param("spare_conquered", False))

    def in_conquered(hex_id: str) -> bool:
        return any(board.country_state(c).status == "conquered" for c in country_chain(board, hex_id))

    def axis_inside(c: Counter, h: str) -> bool:
        return board.faction_of(c) == "Axis" and (in_sac(h) or in_minor(h) is not None) and \
            not (spare_conquered and in_conquered(h))

    def sac_outside(c: Counter, h: str) -> bool:
        if c.nationality == sac:
            return not in_sac(h)
        if c.nationality in minors:  # Step 6: outside "their Home Countries"
            return c.nationality not in country_chain(board, h)
        return False

    def others_inside(c: Counter, h: str) -> bool:
        return board.faction_of(c) in ALLIED and c.nationality != sac and c.nationality not in minors and \
            (in_sac(h) or in_minor(h) is not None)

    lands = f"{sac}{' or ' + sac + ' Dependents' if home else ' Dependents'}"
    intern_matching(ctx, "Step 5", f"Axis counter in {lands}", axis_inside)
    intern_matching(ctx, "Step 6", f"{sac} counter outside {lands}", sac_outside)
    intern_matching(ctx, "Step 7", f"other Allied counter inside {lands}", others_inside)
    influence_choice(ctx, "influence", "Step 8", influence_candidates(ctx), "(15.19)")


def _units_leave(ctx: EventContext, country: str, box: str, step: str) -> None:
    """16.4.2 / 16.6.1 Steps 4-5: the Country's counters with a Delay Stripe leave the game, the rest go
    to `box` (its faction's Conquered Minors Box in Step 4, Force Pool in Step 5)."""
    for counter in in_play(ctx.board.nationals(country)):
        if counter.kind == "ceded_land":
            continue
        if counter.delay_stripe:
            ctx.remove_from_game(counter, step, subject=country)
        elif counter.location != box:
            ctx.move(counter, box, step, subject=country)


@event_impl("ds_chinese_surrender")
def chinese_surrender(ctx: EventContext) -> None:
    """16.4.2 Nationalist / 16.6.1 Communist Chinese Surrender: Steps 1-8 (Countries, "Japanese" and the
    marker names are pack params)."""
    china, faction = ctx.require_param("country"), ctx.require_param("faction")
    special, japan = ctx.require_param("exempt_minor"), ctx.require_param("major")
    settlement_tag = ctx.require_param("settlement_dependent_tag")
    surrender_marker = ctx.require_param("surrender_marker")
    peace_tag = ctx.require_param("enforced_peace_tag")
    owners, placed = ctx.require_param("returned_of"), ctx.require_param("dependents_placed")
    returned = ceded_to_areas(ctx, list(owners))  # Step 2 "Remove all Chinese Ceded Land markers"
    special_area = ctx.require_param("exempt_minor_area")
    board = ctx.board
    ctx.fire(f"{china} surrenders (once per game)")
    surrender_policy(ctx, [china], peace_tag, surrender_marker)
    return_ceded(ctx, returned, "Step 2")
    for area_id in placed:
        place_dependent_marker(ctx, area_id, "Step 3", settlement_tag)

    def japanese_in(country: str) -> list[Counter]:
        return [c for c in in_play(ctx.state.counters.values())
                if c.nationality == japan and c.location in ctx.pack.hexes
                and (c.kind in PRESENCE_KINDS or c.kind == "marker")
                and board.in_country(c.location, country)]

    for minor in western_minors(ctx, ("active",), chinese=True, faction=faction):
        if minor == special:
            continue
        found = japanese_in(minor)
        if not found:
            continue
        ctx.set_country(minor, "Step 4", f"collapses: {ctx.name(found[0].id)} is in it; it is Conquered",
                        status="conquered")
        _units_leave(ctx, minor, conquered_minors(faction), "Step 4")
    if special and ctx.state.country(special).faction == faction and japanese_in(special):
        _units_leave(ctx, special, force_pool(faction), "Step 5")
        place_dependent_marker(ctx, special_area, "Step 5", settlement_tag)
    else:
        ctx.note(f"no Japanese unit or marker in {special}: it does not become a Japanese Dependent",
                 "Step 5")
    homes = set(western_minors(ctx, ("active",), chinese=True, faction=faction)) | {china}

    def home_hex(h: str) -> bool:
        return board.home_of(board.political_country(h)) in homes

    # Steps 6-7: "Nationalist (Communist) Chinese units" are those of the active Chinese Countries of the
    # faction -- the major and its Chinese Minors -- and "their Home Countries" are those Countries; the
    # "other Allied units" of Step 7 are everyone else's (docs/ds-notes.md).
    intern_matching(ctx, "Step 6", f"{china} counter outside its Home Countries",
                    lambda c, h: c.nationality in homes and not home_hex(h))
    intern_matching(ctx, "Step 7", f"other Allied counter inside active {china} Countries",
                    lambda c, h: board.faction_of(c) in ALLIED and c.nationality not in homes and home_hex(h))
    influence_choice(ctx, "influence", "Step 8", influence_candidates(ctx), "(15.19)")


__all__ = ["cede_listed", "one_year_ahead", "pick_one", "place_dependent_marker", "resolve_hex",
           "return_ceded", "surrender_policy", "western_minors"]
