"""16.7 Internment & Repatriation, and the permanent Internment checks (16.1.3, 16.3.8, 16.5.7).

Why one module: many events end with "intern all counters in X" (16.2.1 Steps 3-5, 16.2.2 Steps 4/8,
16.1.2's intern remedy) and every one of them must obey the same Internment Restrictions.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rules.engine import EventContext, event_impl
from rules.events.common import SUPPORT_KINDS, breakdown, one_step_pool, same_over_territory
from rules.state import ALLIED_FACTIONS, DELAY, Counter, CountryState, pending_card

TO_DELAY_KINDS = SUPPORT_KINDS | {
    "detachment",
    "logistics",
    "partisan_base",
    "war_economy",
    "convoy",
    "marker",
}


@dataclass
class InternmentCase:
    """A unit to intern and why, with the Policy that lets the Axis end it instead (16.7)."""

    counter: Counter
    reason: str
    policy_country: str | None = None  # Axis may end this Policy instead of interning (16.7)


def intern(
    ctx: EventContext,
    counters: Iterable[Counter],
    step: str | None,
    reason: str = "",
    rule: str | None = "16.7",
) -> None:
    """Intern counters under the 16.7 Internment Restrictions."""
    for counter in sorted(counters, key=lambda c: c.id):
        faction = ctx.board.faction_of(counter) or "Axis"
        where = ctx.place(counter.location)
        why = f" ({reason})" if reason else ""
        if counter.kind in TO_DELAY_KINDS:
            ctx.move(
                counter,
                DELAY,
                step,
                why=f"interned in {where}{why}; support units and markers go to the Delay Box",
                rule=rule,
            )
        elif counter.kind == "fortress":
            ctx.note(
                f"{ctx.name(counter.id)} in {where}: fortress units cannot be interned; eliminated{why}",
                step,
                rule=rule,
            )
            ctx.eliminate(counter, step, rule=rule)
        elif counter.kind == "port_a_fort":
            # The side as the edition's 16.7 words it (pack `[internment] port_a_fort_side`): TK "infantry
            # or mech", DS "infantry" (issue 12 item 11).
            side = ctx.pack.extra.get("internment", {}).get("port_a_fort_side", "other")
            ctx.flip(counter, step, f"Port-a-Fort flipped to its {side} side", rule=rule)
            ctx.move(counter, pending_card(faction), step, why=f"interned in {where}{why}", rule=rule)
        elif counter.steps <= 1:
            ctx.move(counter, pending_card(faction), step, why=f"interned in {where}{why}", rule=rule)
        else:
            ctx.record(  # no `to`: the breakdown steps below say where each part goes (issue 12.5)
                step,
                "intern",
                f"intern {ctx.name(counter.id)} in {where}{why}: a multi-step unit first "
                "breaks down into one-step units, which go on the back of the "
                f"{faction} Pending Card; the broken-down unit is eliminated",
                counter,
                None,
                None,
                rule,
            )
            breakdown(ctx, counter, [(pending_card(faction), counter.steps)], step, rule)


def _territory_state(ctx: EventContext, hex_id: str) -> tuple[str, CountryState]:
    """The country whose state decides 16.7 for a hex: the hex's country if the position lists it (or it is
    no Dependent), else its home country -- an unlisted Dependent (Korea) is Japan's, never Neutral."""
    board = ctx.board
    here = board.political_country(hex_id)
    if here in ctx.state.countries or board.home_of(here) == here:
        return here, board.country_state(here)
    home = board.home_of(here)
    return home, board.country_state(home)


def internment_due(ctx: EventContext) -> list[InternmentCase]:
    """Every counter on the map that 16.7 says must be interned now (the permanent check)."""
    board = ctx.board
    major = ctx.require_param("major")  # "in Germany or a German Dependent" (DS: Japan)
    cases: list[InternmentCase] = []
    for counter in sorted(ctx.state.counters.values(), key=lambda c: c.id):
        hex_id = counter.location
        if hex_id not in ctx.pack.hexes or counter.kind == "ceded_land":
            continue
        faction = board.faction_of(counter)
        if faction is None:
            continue

        def decide(counter: Counter = counter, hex_id: str = hex_id, faction: str = faction
                   ) -> InternmentCase | None:
            return _case(ctx, counter, hex_id, faction, major)

        found, gaps = same_over_territory(ctx, hex_id, decide, _verdict)
        if gaps:
            ctx.undecided(*gaps)  # the country its hex counts as part of is open, and it matters here
            continue
        if found is not None:
            cases.append(found)
    return cases


def _verdict(case: InternmentCase | None) -> tuple[bool, str | None]:
    """What a territory completion must not change: interned or not, and whose Policy (16.7)."""
    return (case is not None, case.policy_country if case is not None else None)


def _case(ctx: EventContext, counter: Counter, hex_id: str, faction: str, major: str
          ) -> InternmentCase | None:
    """16.7 for one counter in one hex: why it is interned, or None."""
    board = ctx.board
    country, cstate = _territory_state(ctx, hex_id)
    if cstate.status == "neutral" or cstate.faction == "Neutral":
        return InternmentCase(counter, f"{ctx.place(hex_id)} is in Neutral {country}")
    if faction == "Axis":
        # Policy markers in its Posture Box: its own, or a shared box's (DS "US and Western Minors").
        policy = board.posture_markers(country)
        if policy and cstate.status != "conquered":
            return InternmentCase(counter, f"{ctx.place(hex_id)} is in {country}, affected by "
                                           f"{', '.join(policy)}", policy_country=country)
        minor_unit = counter.nationality is not None and board.is_minor_country(counter.nationality)
        adjective = ctx.adjective(major)
        if (
            (minor_unit or counter.multinational)
            and counter.is_unit  # "a Minor Country unit": any unit, not only ground units
            and not (counter.exp and counter.steps == 1)
            and board.in_country(hex_id, major, dependents=True)
        ):
            what = (
                "multi-national unit" if counter.multinational
                else f"{ctx.adjective(counter.nationality or '')} unit"
            )
            return InternmentCase(counter, f"{what} in {ctx.place(hex_id)}, in {major} or a {adjective} "
                                           "Dependent")
    elif faction in ALLIED_FACTIONS:
        area_id = ctx.pack.hex(hex_id).area
        area = ctx.pack.areas.get(area_id) if area_id else None
        if area is not None and area.interns_allied and board.ceded_area_active(area):
            return InternmentCase(
                counter,
                f"{ctx.place(hex_id)} is in {area.name}, a {ctx.adjective(area.ceded_to or '')} "
                "Dependent created by a Conditional Event",
            )
        if counter.kind == "partisan_base" and cstate.faction == "Axis":
            return InternmentCase(counter, f"Partisan Base in enemy {country} ({ctx.place(hex_id)})")
    return None


@event_impl("internment")
def internment_check(ctx: EventContext) -> None:
    """16.1.3 / 16.3.8 / 16.5.7: check every faction's units against 16.7."""
    cases = internment_due(ctx)
    if not cases:
        among = " among those whose territory the pack locates" if ctx.entry.missing else ""
        ctx.not_due(f"no counter{among} is in territory that forces its internment (16.7)")
        return
    ctx.fire(
        f"{len(cases)} counter(s) must be interned (16.7): "
        + "; ".join(f"{ctx.name(c.counter.id)} — {c.reason}" for c in cases)
    )
    ended: set[str] = set()
    for case in cases:
        country = case.policy_country
        if country is not None and country not in ended:
            units = [ctx.name(c.counter.id) for c in cases if c.policy_country == country]
            answer = ctx.choose(
                f"policy:{country}",
                "Axis",
                f"Axis counters in Policy Affected {country} ({', '.join(units)}): intern them, "
                "or end the Policy instead? (ending it in Pre-War starts Limited War, 12.2)",
                ["intern", "end_policy"],
                labels={"intern": "intern them (16.7)", "end_policy": f"end the Policy affecting {country}"},
            )
            if answer == "end_policy":
                ended.add(country)
                shared = ctx.board.shared_posture_box(country)
                if shared is not None:
                    # The Policy marker is in a shared Posture Box (DS "US and Western Minors").
                    ctx.state.posture_boxes[shared] = []
                    ctx.record(None, "remove_marker", f"remove the Policy marker from the {shared} Posture "
                               "Box: Policy ended instead of internment (16.7); this is not ending a "
                               "Policy voluntarily (13.6.1.2)", None, None, country, rule="16.7",
                               box=shared)
                else:
                    ctx.set_country(
                        country,
                        None,
                        "Policy ended instead of internment (16.7); this is not "
                        "ending a Policy voluntarily (13.6.1.2)",
                        rule="16.7",
                        markers=[],
                    )
                if ctx.state.turn.war_state == "Pre-War":
                    ctx.state.turn.war_state = "Limited War"
                    ctx.note(
                        f"the {country} Policy ended during Pre-War: Limited War starts immediately (12.2)",
                        rule="16.7",
                    )
        if country in ended:
            continue
        intern(ctx, [case.counter], None, case.reason)


__all__ = ["InternmentCase", "intern", "internment_due", "one_step_pool"]
