"""16.1.3 Manchukuo Garrison Check (Dai Senso! only).

Why the Soviet faction's choice is asked per hex and validated: the text lets the Soviet faction pick
the Japanese steps, but never more than necessary and never steps "necessary to fulfill a Garrison
Check elsewhere"; the legal options are enumerated so an answers file cannot break either limit.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.board import Board
from rules.engine import EventContext, event_impl
from rules.events.common import breakdown, place_name
from rules.events.ds.common import (
    borders_country,
    is_soviet_country,
    japanese_dependents,
)
from rules.facts import claims_complete
from rules.state import Counter
from rules.tri import Located, Verdict, all_of, any_of
from vassal_parser.errors import InputError

NON_FORTRESS = frozenset({"ground", "hq"})


def _japanese_steps(board: Board, hex_id: str, japan: str) -> int:
    return sum(c.steps for c in board.ground_units(hex_id) if c.nationality == japan)


@dataclass(frozen=True)
class Dependent:
    """One Japanese Dependent as 16.1.3 checks it, three-valued (rules.tri) where the pack lacks a fact."""

    name: str
    hexes: list[str]
    checked: Verdict  # "shares a border with a Soviet Country" (hexes' borders, or pack `neighbors`)
    required: Located  # its Road or Rail hexes sharing that border (fact ``border_road_rail_hexes``)
    allied: bool  # "Allied ground units anywhere in" it


def dependents(ctx: EventContext, japan: str, russia: str) -> list[Dependent]:
    """The Japanese Dependents and what 16.1.3 asks of each (Border Defense Requirements).

    Map facts (issue 9): each Japanese Dependent's neighbouring Countries (`neighbors`) and, where one is
    a Soviet Country, its border road/rail hexes (`border_road_rail_hexes`); a fact the pack lacks leaves
    only the conditions it could change open (issue 22), never read as sharing no border."""
    board = ctx.board

    def soviet(country: str) -> bool:
        return is_soviet_country(ctx.state, ctx.pack, country, russia)

    found = japanese_dependents(board, japan)
    located = {info.country for info in ctx.pack.hexes.values()}
    unlocated = [n for n, info in ctx.pack.countries.items()
                 if n != japan and n not in located and board.home_of(n) == japan]
    out: list[Dependent] = []
    for name in sorted({*found, *unlocated}):
        hexes = found.get(name, [])
        bordering = [h for h in hexes if borders_country(board, h, soviet)]
        checked = any_of([bool(bordering), ctx.located("neighbors", name).some(soviet)])
        road_rail = [h for h in bordering if ctx.pack.hex(h).road or ctx.pack.hex(h).rail]
        gaps = ctx.located("border_road_rail_hexes", name).gaps
        if gaps and _all_hexes_listed(ctx, name):  # a border road/rail hex the pack lacks is one of these
            required = Located(tuple(road_rail), gaps, tuple(h for h in hexes if h not in road_rail), True)
        else:
            required = Located(tuple(road_rail), gaps)
        allied = any(board.faction_of(c) in ("Western", "Soviet")
                     for h in hexes for c in board.ground_units(h))
        out.append(Dependent(name, hexes, checked, required, allied))
    return out


def _all_hexes_listed(ctx: EventContext, dependent: str) -> bool:
    """Does the pack list every hex of the Dependent (its country's, or its area's, `[complete]`)?"""
    area = next((a for a in ctx.pack.areas.values() if a.name == dependent), None)
    if area is None:
        return claims_complete(ctx.pack, "country_hexes", dependent)
    return claims_complete(ctx.pack, "area_hexes", area.id) or claims_complete(ctx.pack, "country_hexes",
                                                                              area.country)


def _donors(ctx: EventContext, required: list[str], need: int,
            japan: str) -> tuple[dict[str, int], dict[str, int]]:
    """Japanese non-fortress ground units that may be redeployed -> steps each may give, and each border
    hex holding donors -> the surplus its units may give TOGETHER.

    16.1.3: never steps necessary for a Garrison Check elsewhere, so the units in one border hex share
    that hex's surplus over the requirement (two units there may not each give the whole surplus)."""
    board = ctx.board
    donors: dict[str, int] = {}
    caps: dict[str, int] = {}
    for counter in ctx.state.counters.values():
        if counter.nationality != japan or counter.kind not in NON_FORTRESS:
            continue
        if counter.location not in ctx.pack.hexes:
            continue
        if counter.location in required:
            surplus = _japanese_steps(board, counter.location, japan) - need
            if surplus > 0:
                donors[counter.id] = min(counter.steps, surplus)
                caps[counter.location] = surplus
        else:
            donors[counter.id] = counter.steps
    return donors, caps


def _giveable(ctx: EventContext, units: list[str], donors: dict[str, int], caps: dict[str, int]) -> int:
    """Steps these units may give together: a border hex's units never more than its surplus (16.1.3)."""
    free = sum(donors[u] for u in units if ctx.state.counters[u].location not in caps)
    for hex_id, cap in caps.items():
        free += min(cap, sum(donors[u] for u in units if ctx.state.counters[u].location == hex_id))
    return free


def _validate(ctx: EventContext, chosen: list[str], donors: dict[str, int], caps: dict[str, int],
              deficit: int, key: str) -> None:
    for hex_id, cap in caps.items():
        taken = sum(donors[u] for u in chosen if ctx.state.counters[u].location == hex_id)
        if taken > cap:
            raise InputError(ctx.answers_source, f"answer to {ctx.rule}:{key} takes {taken} step(s) from "
                             f"border hex {hex_id}, which may give only {cap}: the rest are needed for its "
                             "own Border Defense (16.1.3)")
    total = _giveable(ctx, chosen, donors, caps)
    available = _giveable(ctx, list(donors), donors, caps)
    if total < min(deficit, available):
        raise InputError(ctx.answers_source, f"answer to {ctx.rule}:{key} gives {total} step(s); "
                         f"{min(deficit, available)} are needed (16.1.3)")
    for unit in chosen:
        if total - donors[unit] >= deficit:
            raise InputError(ctx.answers_source, f"answer to {ctx.rule}:{key} redeploys more steps than "
                             f"necessary: {unit} is not needed (16.1.3)")


@event_impl("ds_garrison_check")
def manchukuo_garrison_check(ctx: EventContext) -> None:
    """DS 16.1.3 Manchukuo Garrison Check."""
    # 16.1.3: the facts (Japan, Russia, two steps per border hex) are pack params.
    japan, russia = ctx.require_param("major"), ctx.require_param("russia")
    need = int(ctx.require_param("steps"))
    posture = ctx.state.country(russia).posture
    if posture != "Neutrality":
        ctx.ignore(f"{russia}'s Posture is {posture or 'not set'}, not Neutrality: ignore this event")
        return
    board = ctx.board

    def japanese_steps(hex_id: str) -> int:
        return _japanese_steps(board, hex_id, japan)

    # Which Countries are "Soviet Countries" is a reading of the text (pack [readings.soviet_country]).
    ctx.erratum("soviet_country")
    found = dependents(ctx, japan, russia)

    def short_of(hex_id: str) -> bool:
        return japanese_steps(hex_id) < need

    # "Exception: If there are Allied ground units anywhere in a Japanese Dependent being checked,
    # Manchukuo Garrison requirements are lifted for all Japanese Dependents" -- one known such Dependent
    # decides the event, whatever the pack lacks about the others (issue 22).
    lifted = any_of(all_of([d.checked, d.allied]) for d in found)
    unmet = {d.name: all_of([d.checked, d.required.some_exactly(short_of)]) for d in found}
    due = all_of([~lifted, any_of(unmet.values())])
    if lifted.true:
        ally = next(d for d in found if d.checked.true and d.allied)
        unit = next(c for h in ally.hexes for c in board.ground_units(h)
                    if board.faction_of(c) in ("Western", "Soviet"))
        ctx.not_due(f"Exception: Allied ground unit {unit.id} is in {ally.name} "
                    f"({ctx.place(unit.location)}): requirements lifted for all Japanese Dependents")
        return
    checked = [d.name for d in found if d.checked.true]
    required = sorted(h for d in found if d.checked.true for h in d.required)
    if due.unknown:
        ctx.undecided(due)
        return
    listing = ", ".join(f"{place_name(ctx.pack, h)} {japanese_steps(h)}" for h in required)
    if due.false and not checked:
        ctx.not_due("no Japanese Dependent shares a border with a Soviet Country")
        return
    if due.false:
        ctx.not_due(f"Border Defense met in {', '.join(checked)}: Japanese steps per border road/rail hex: "
                    f"{listing or 'none listed'}")
        return
    for dep in found:
        if dep.checked.false or dep.required.complete or (dep.required.closed and not dep.required.possible):
            continue
        # Due; a border road/rail hex the pack lacks would be short too, or keep its steps from the Soviet
        # choice ("never ... units that are necessary to fulfill a Garrison Check elsewhere"): it matters.
        ctx.undecided(dep.checked, dep.required)
    short = {h: need - japanese_steps(h) for h in required if short_of(h)}
    ctx.fire(f"{russia} is Neutral and border road/rail hex(es) "
             f"{', '.join(place_name(ctx.pack, h) for h in short)} hold fewer than {need} Japanese steps "
             f"(checked: {', '.join(checked)})")
    for hex_id, _ in sorted(short.items()):
        deficit = need - japanese_steps(hex_id)
        donors, caps = _donors(ctx, required, need, japan)
        donors = {u: s for u, s in donors.items() if ctx.state.counters[u].location != hex_id}
        caps.pop(hex_id, None)
        key = f"fill:{hex_id}"
        if not donors:
            ctx.note(f"no Japanese non-fortress step can be redeployed to {place_name(ctx.pack, hex_id)}",
                     "Unmet Border Defense Requirements", subject=hex_id)
            continue
        labels = {u: f"{ctx.name(u)} in {ctx.place(ctx.state.counters[u].location)}, may give {s} step(s)"
                  for u, s in donors.items()}
        chosen = ctx.choose(key, "Soviet", f"Choose the Japanese non-fortress unit(s) to redeploy to "
                            f"{place_name(ctx.pack, hex_id)} ({deficit} step(s) short); a unit giving only "
                            f"part of its steps breaks down.", sorted(donors), labels, multiple=True)
        _validate(ctx, chosen, donors, caps, deficit, key)
        remaining = deficit
        for unit_id in chosen:
            unit: Counter = ctx.state.counters[unit_id]
            take = min(donors[unit_id], remaining)
            if take == unit.steps:
                ctx.move(unit, hex_id, "Unmet Border Defense Requirements", hex_id,
                         why="redeployed by the Soviet faction")
                remaining -= take
            else:
                # 16.1.3: "may force the Axis faction to break down any units it wishes" (2.3.4).
                lost = breakdown(ctx, unit, [(hex_id, take), (unit.location, unit.steps - take)],
                                 "Unmet Border Defense Requirements", subject=hex_id)
                # the border hex is filled first, so lost steps come off those left behind first
                remaining -= take - max(0, lost - (unit.steps - take))
