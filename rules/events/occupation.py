"""16.1.2 Axis Minor Country Occupation: which units cause it and which remedies are allowed.

Edition differences: ``major`` (TK Germany, DS Japan) and ``exceptions``, the names of edition-only
exceptions registered with `@occupation_exception` (DS: ``showa_restoration``). Why a registry and not a
DS copy of the event: the loop, the No Occupation marker and the remedies are the same rule in both
editions; only "who causes Occupation" gains a clause.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rules.engine import EventContext, event_impl
from rules.events.common import breakdown, doubtful_hexes, in_play, territory_gaps
from rules.events.internment import intern
from rules.state import Counter
from vassal_parser.errors import InputError


@dataclass(frozen=True)
class OccupationException:
    """An edition's extra 16.1.2 exception: while `in_effect`, `remaining` filters a country's causers."""

    name: str
    in_effect: Callable[[EventContext], bool]
    remaining: Callable[[EventContext, str, list[Counter]], list[Counter]]
    why: str  # the reason line the plan shows while it is in effect


OCCUPATION_EXCEPTIONS: dict[str, OccupationException] = {}


def register_occupation_exception(exception: OccupationException) -> OccupationException:
    """Make an exception available to packs by name (16.1.2 param ``exceptions``)."""
    OCCUPATION_EXCEPTIONS[exception.name] = exception
    return exception


REMEDIES = {
    "breakdown": "Emergency Breakdown (2.3.4) of all units causing Occupation",
    "intern": "Intern all units causing Occupation (16.7)",
    "remove": "Remove all of the Minor Country's units (Delay Stripe: Delay Box, others: Axis Force Pool)",
}


def _holding_nationalities(ctx: EventContext, counter: Counter) -> set[str | None]:
    """16.1.2: an Axis multi-national unit is judged by the Minor Country unit in its Holding Box."""
    box = f"holding:{counter.id}"
    return {c.nationality for c in ctx.state.counters.values() if c.location == box}


def occupation_causers(ctx: EventContext, country: str, major: str,
                       spared: list[str] | None = None) -> list[Counter]:
    """Ground units in the country or its Dependents that cause Occupation (16.1.2 and its exceptions).

    `spared`, when given, receives one line per unit an exception spares, naming the exception, so the
    plan says why it does not count (issue 12 item 16)."""
    causers: list[Counter] = []
    for hex_id in ctx.board.country_hexes(country, dependents=True):
        for unit in ctx.board.ground_units(hex_id):
            if ctx.board.faction_of(unit) != "Axis" or unit.nationality == country:
                continue
            if unit.exp and unit.steps == 1:
                if spared is not None:
                    spared.append(f"{ctx.name(unit.id)} in {ctx.place(hex_id)}: one-step Exp units do not "
                                  "cause Occupation (16.1.2 exception)")
                continue  # Exception: one-step Exp units
            if unit.multinational:
                if country in _holding_nationalities(ctx, unit):
                    if spared is not None:
                        spared.append(f"{ctx.name(unit.id)} in {ctx.place(hex_id)}: a multi-national unit "
                                      f"whose Holding Box holds a {country} unit does not cause Occupation "
                                      "(16.1.2 exception)")
                    continue  # Exception: its Holding Box holds a unit of this very country (Med HQ example)
                causers.append(unit)
            elif unit.nationality == major:
                if unit.steps > 1:
                    causers.append(unit)
            else:
                causers.append(unit)
    return sorted(causers, key=lambda c: c.id)


def _no_occupation_marker(ctx: EventContext, country: str) -> list[str]:
    """16.1.2: a Country that contains a No Occupation marker is not subject to Occupation."""
    tag = ctx.require_param("no_occupation_tag")
    return [
        c.location
        for c in ctx.state.tagged(tag)
        if c.location in ctx.pack.hexes and ctx.board.in_country(c.location, country, dependents=True)
    ]


@event_impl("minor_occupation")
def minor_occupation(ctx: EventContext) -> None:
    """16.1.2: an Axis Minor Country (with its Dependents) holding a multi-step unit of the major or any
    other Axis Country's ground unit is under Occupation; a Dependent is checked with its Country."""
    major = ctx.require_param("major")
    ctx.require_param("no_occupation_tag")
    adj = ctx.adjective(major)  # the No Occupation marker (14.24), read up front
    exceptions = _exceptions_in_effect(ctx)
    checked = False
    for country in sorted(ctx.pack.countries):
        cstate = ctx.state.country(country)
        if not ctx.board.is_minor_country(country) or cstate.faction != "Axis" or cstate.status != "active":
            continue
        home = cstate.dependent_of or ctx.pack.country(country).dependent_of
        if home and home != country:
            continue  # "an Axis Minor Country or any of its Dependents": checked with its home Country
        checked = True
        marker = _no_occupation_marker(ctx, country)
        if marker:
            ctx.not_due(
                f"{country}: a No Occupation marker is in {', '.join(map(ctx.place, marker))}; "
                "not subject to Occupation (16.1.2 exception)"
            )
            continue
        spared: list[str] = []
        causers = occupation_causers(ctx, country, major, spared)
        territory = territory_gaps(ctx, country)
        doubtful = doubtful_hexes(ctx, country, True, territory) if territory else set()
        in_doubt = [c for h in sorted(doubtful) for c in ctx.board.ground_units(h)
                    if ctx.board.faction_of(c) == "Axis"]
        if any(c in causers or not ctx.board.in_country(h, country, True)
               for c in in_doubt for h in [ctx.board.hex_of(c) or ""]):
            # Which hexes are this country's now is not located, and an Axis unit that would cause
            # Occupation stands where it matters: undecided (named in `missing`); an open territory with
            # no such unit decides nothing (issue 22).
            ctx.undecided(*territory)
            continue
        for line in spared:
            ctx.why(f"{country}: {line}")
        for exception in exceptions:
            causers = exception.remaining(ctx, country, causers)
        if not causers:
            ctx.not_due(
                f"{country}: no {adj} multi-step ground unit and no other Axis Country's ground unit "
                "in it or its Dependents cause Occupation"
            )
            continue
        names = ", ".join(f"{ctx.name(c.id)} in {ctx.place(c.location)}" for c in causers)
        ctx.fire(f"{country} is under Occupation: {names}")
        _apply_remedy(ctx, country, causers, major)
    if not checked:
        ctx.not_due("no active Axis Minor Country")
    ctx.settle()


def _exceptions_in_effect(ctx: EventContext) -> list[OccupationException]:
    """The pack's ``exceptions`` (16.1.2 edition clauses) that apply to this position."""
    found: list[OccupationException] = []
    for name in ctx.param("exceptions", []):
        exception = OCCUPATION_EXCEPTIONS.get(name)
        if exception is None:
            known = ", ".join(sorted(OCCUPATION_EXCEPTIONS)) or "none"
            raise InputError(
                ctx.pack.path, f"event {ctx.rule}: unknown occupation exception {name!r} (known: {known})"
            )
        if exception.in_effect(ctx):
            ctx.why(exception.why)
            found.append(exception)
    return found


def legal_remedies(causers: list[Counter], major: str) -> dict[str, str]:
    """Each remedy's precondition (16.1.2 Effects)."""
    legal: dict[str, str] = {}
    # Breakdown ends Occupation only if every causer is a multi-step unit of the major (its one-step
    # pieces no longer cause it); a unit of another Axis Country still would.
    if all(c.nationality == major and c.steps > 1 and not c.multinational for c in causers):
        legal["breakdown"] = REMEDIES["breakdown"]
    if all(c.overland_supply for c in causers):
        legal["intern"] = REMEDIES["intern"] + " — the units trace an overland supply line (10.2)"
    legal["remove"] = REMEDIES["remove"]
    return legal


def _apply_remedy(ctx: EventContext, country: str, causers: list[Counter], major: str) -> None:
    """16.1.2: the Axis chooses a remedy among those `legal_remedies` allows (Emergency Breakdown only
    if it ends the Occupation; internment only with an overland supply line, 10.2)."""
    legal = legal_remedies(causers, major)
    if "breakdown" not in legal:
        ctx.why(f"{country}: Emergency Breakdown not allowed — {country} would still be under Occupation")
    if "intern" not in legal:
        blocked = [ctx.name(c.id) for c in causers if not c.overland_supply]
        ctx.why(
            f"{country}: internment not allowed — no overland supply line (10.2) for {', '.join(blocked)}"
        )
    remedy = ctx.choose(
        f"remedy:{country}",
        "Axis",
        f"{country} is under Occupation: choose the remedy.",
        list(legal),
        labels=legal,
        defer=True,
    )
    if remedy is None:
        return
    if remedy == "breakdown":
        for unit in causers:
            breakdown(ctx, unit, [(unit.location, unit.steps)], None, subject=country)
    elif remedy == "intern":
        intern(ctx, causers, None, f"causing the Occupation of {country}")
    else:
        for unit in in_play(ctx.board.nationals(country)):
            if unit.location in ctx.pack.hexes and unit.is_unit:  # "all units", not its markers
                ctx.return_to_pool(unit, "Axis", None, subject=country)
