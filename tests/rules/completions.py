"""Packs with facts removed, and their completions: the harness of the three-valued property tests.

A pack's map facts are treated as atoms -- a hex's City flag, its Road/Rail flags, one `borders` entry, its
area membership, one `[complete]` claim (fact, subject) -- so that a pack with some atoms removed has as its
completions exactly the packs that add back any subset of them (every combination the pack format allows
between the reduced pack and the full one). The engine's answer on the reduced pack is then checked against
the answers on all completions (tests/rules/test_three_valued.py): a decided answer must be theirs, an
undecided one must be changed by some completion.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
import re
from collections.abc import Iterable, Iterator
from typing import Any

from rules.engine import plan
from rules.facts import FACT_KINDS, SCOPES, is_complete
from rules.packs import HexInfo, Pack
from rules.plan import FIRED, UNDECIDED, WAITING, EventEntry
from rules.state import GameState

Atom = tuple[str, ...]  # ("city", hex) | ("road", hex) | ("rail", hex) | ("border", hex, country)
#                         | ("area", hex, area) | ("claim", fact, subject); added: see `extras`


def full_claims(pack: Pack, facts: Iterable[str]) -> dict[str, frozenset[str] | str]:
    """A [complete] table that claims every subject of each fact (the full world the tests start from)."""
    table: dict[str, frozenset[str] | str] = {}
    for fact in facts:
        per = FACT_KINDS[fact].per
        names = [*SCOPES["all_countries"](pack), *(a.name for a in pack.areas.values())]
        table[fact] = frozenset(names if per == "country" else SCOPES["areas"](pack))
    return table


def atoms_of(pack: Pack, kinds: Iterable[str]) -> list[Atom]:
    """Every removable atom of the given kinds the pack holds."""
    wanted = set(kinds)
    out: list[Atom] = []
    for hex_id, info in sorted(pack.hexes.items()):
        if "city" in wanted and info.city:
            out.append(("city", hex_id))
        if "strategic" in wanted and info.strategic:
            out.append(("strategic", hex_id))
        if "road" in wanted and info.road:
            out.append(("road", hex_id))
        if "rail" in wanted and info.rail:
            out.append(("rail", hex_id))
        if "border" in wanted:
            out.extend(("border", hex_id, c) for c in info.borders)
        if "area" in wanted and info.area is not None:
            out.append(("area", hex_id, info.area))
    if "bdhex" in wanted:
        for area, spec in sorted(pack.border_defense.items()):
            out.extend(("bdhex", area, str(h)) for h in spec.get("hexes", ()) or ())
    if "claim" in wanted and pack.complete is not None:
        for fact, listed in sorted(pack.complete.items()):
            if isinstance(listed, frozenset):
                out.extend(("claim", fact, s) for s in sorted(listed))
    return out


def without(pack: Pack, removed: Iterable[Atom]) -> Pack:
    """The pack with the atoms removed (a new Pack; the original is untouched)."""
    gone = set(removed)
    hexes = {}
    for hex_id, info in pack.hexes.items():
        changes: dict[str, Any] = {}
        if ("city", hex_id) in gone:
            changes.update(city=False, capital=False)
        if ("strategic", hex_id) in gone:
            changes["strategic"] = False
        if ("road", hex_id) in gone:
            changes["road"] = False
        if ("rail", hex_id) in gone:
            changes["rail"] = False
        if info.area is not None and ("area", hex_id, info.area) in gone:
            changes["area"] = None
        kept = tuple(c for c in info.borders if ("border", hex_id, c) not in gone)
        if kept != info.borders:
            changes["borders"] = kept
        hexes[hex_id] = dataclasses.replace(info, **changes) if changes else info
    border = {area: {**spec, "hexes": [h for h in spec.get("hexes", ()) or ()
                                       if ("bdhex", area, str(h)) not in gone]}
              if "hexes" in spec else spec for area, spec in pack.border_defense.items()}
    complete = None
    if pack.complete is not None:
        complete = {}
        for fact, listed in pack.complete.items():
            if isinstance(listed, frozenset):
                complete[fact] = frozenset(s for s in listed if ("claim", fact, s) not in gone)
            else:
                complete[fact] = listed
    return dataclasses.replace(pack, hexes=hexes, complete=complete, border_defense=border)


def extras(full: Pack, removed: Iterable[Atom]) -> list[Atom]:
    """What else a completion may add where the reduced pack makes no claim: for a removed claim on a
    country's City hexes, a new free City of it ("xcity") or its other hexes as Cities ("xmark"); on a
    Dependent's border road/rail hexes or neighbours, a new (rail) hex of it on the border of Russia or
    Mongolia ("xrail", "xborder"); on an area's hexes, each hex of its country that no area holds, put
    in it ("xarea")."""
    out: list[Atom] = []
    for atom in removed:
        if atom[0] != "claim":
            continue
        _, fact, subject = atom
        if fact == "city_hexes" and subject in full.countries:
            out += [("xcity", subject), ("xmark", subject)]
        elif fact in ("border_road_rail_hexes", "neighbors"):
            kind = "xrail" if fact == "border_road_rail_hexes" else "xborder"
            out += [(kind, subject, "Russia"), (kind, subject, "Mongolia")]
            # ... or one of its listed hexes turns out to be such a hex
            own = [h for h, info in sorted(full.hexes.items()) if subject in (info.country, info.area) or (
                info.area in full.areas and full.areas[info.area].name == subject)]
            out += [(f"{kind}-at", h, c) for h in own[:4] for c in ("Russia", "Mongolia")]
        elif fact == "area_hexes" and subject in full.areas:
            country = full.areas[subject].country
            out += [("xarea", h, subject) for h, info in sorted(full.hexes.items())
                    if info.country == country and info.area is None]
        elif fact == "capital" and subject in full.countries:
            out += [("xcapital", subject, h) for h, info in sorted(full.hexes.items())
                    if info.country == subject and h != full.countries[subject].capital]
        elif fact == "neighbors" and subject in full.countries:
            out += [("xneighbor", subject, other) for other, info in sorted(full.countries.items())
                    if other != subject and info.kind == "minor"]
        elif fact == "border_hexes" and subject in full.border_defense:
            out.append(("xbdhex", subject))
        elif fact == "country_hexes" and subject in full.countries:
            out.append(("xhex", subject))
        elif fact == "strategic_hexes" and subject in full.countries:
            out += [("xstrat-at", h) for h, info in sorted(full.hexes.items())
                    if info.country == subject and not info.strategic][:3]
    return out


def affects(pack: Pack, atom: Atom) -> list[tuple[str, str]]:
    """The (fact, subject) pairs an atom is part of: where the reduced pack claims them all complete, the
    atom is settled there and no completion may add it back."""
    if atom[0] == "claim" or atom[0].startswith("x"):
        return []
    if atom[0] == "bdhex":
        return [("border_hexes", atom[1])]
    info = pack.hexes[atom[1]]
    area = pack.areas.get(info.area) if info.area else None
    holder = [info.country, *([area.name] if area else [])]  # a ceded area's hex is a fact of both
    if atom[0] == "city":
        return [("city_hexes", info.country), *([("area_city_hexes", area.id)] if area else [])]
    if atom[0] == "strategic":
        return [("strategic_hexes", info.country)]
    if atom[0] == "area":
        return [("area_hexes", atom[2])]
    if atom[0] == "bdhex":
        return [("border_hexes", atom[1])]
    if atom[0] in ("road", "rail"):
        return [("border_road_rail_hexes", h) for h in holder]
    road_rail = [("border_road_rail_hexes", h) for h in holder] if info.road or info.rail else []
    return [("neighbors", h) for h in holder] + road_rail


def settled(pack: Pack, atom: Atom) -> bool:
    """Does the pack claim a fact the atom is part of complete (so that adding it back contradicts it)?"""
    if atom[0] in ("xrail", "xborder"):  # a new hex on the Russian border: a new neighbour too
        area = next((a for a in pack.areas.values() if a.name == atom[1]), None)
        if is_complete(pack, "country_hexes", area.country if area else atom[1]) or (
                area is not None and is_complete(pack, "area_hexes", area.id)):
            return True
        shares = atom[2] in FACT_KINDS["neighbors"].lookup(pack, atom[1]) or any(
            atom[2] in h.borders for h in pack.hexes.values() if atom[1] in (h.country, h.area)
            or (h.area in pack.areas and pack.areas[h.area].name == atom[1]))
        fact = "border_road_rail_hexes" if atom[0] == "xrail" else "neighbors"
        return is_complete(pack, fact, atom[1]) or (not shares and is_complete(pack, "neighbors", atom[1]))
    claimed = {"xcapital": "capital", "xneighbor": "neighbors", "xbdhex": "border_hexes",
               "xhex": "country_hexes"}
    if atom[0] == "xstrat-at":
        return is_complete(pack, "strategic_hexes", pack.hexes[atom[1]].country)
    if atom[0] in ("xrail-at", "xborder-at"):
        info = pack.hexes[atom[1]]
        area = pack.areas.get(info.area) if info.area else None
        holders = [info.country, *([area.name] if area else [])]
        shares = any(atom[2] in FACT_KINDS["neighbors"].lookup(pack, h) for h in holders) or any(
            atom[2] in h.borders for h in pack.hexes.values() if h.country == info.country)
        road_rail = atom[0] == "xrail-at" or info.road or info.rail
        return (road_rail and any(is_complete(pack, "border_road_rail_hexes", h) for h in holders)) or (
            not shares and any(is_complete(pack, "neighbors", h) for h in holders))
    if atom[0] == "xcity":  # a new hex of the country: its hexes too
        return is_complete(pack, "city_hexes", atom[1]) or is_complete(pack, "country_hexes", atom[1])
    if atom[0] == "xbdhex":  # a new hex of the Region's country, in the Region
        area = pack.areas[atom[1]]
        return any(is_complete(pack, f, s) for f, s in (("border_hexes", area.id), ("area_hexes", area.id),
                                                        ("country_hexes", area.country)))
    if atom[0] in claimed:
        return is_complete(pack, claimed[atom[0]], atom[1])
    return any(is_complete(pack, fact, subject) for fact, subject in affects(pack, atom))


def with_extras(pack: Pack, added: Iterable[Atom]) -> Pack:
    """The pack with `extras` atoms added (a new Pack)."""
    hexes = dict(pack.hexes)
    countries = dict(pack.countries)
    border = {a: dict(spec) for a, spec in pack.border_defense.items()}
    for atom in added:
        if atom[0] == "xcapital":
            countries[atom[1]] = dataclasses.replace(countries[atom[1]], capital=atom[2])
        elif atom[0] == "xneighbor":
            info = countries[atom[1]]
            countries[atom[1]] = dataclasses.replace(info, neighbors=(*info.neighbors, atom[2]))
        elif atom[0] == "xbdhex":  # a new border hex of the Region, no unit in it
            area = pack.areas[atom[1]]
            fresh = f"zz-bd-{atom[1]}"
            hexes[fresh] = HexInfo(fresh, area.country, area=area.id)
            border[atom[1]]["hexes"] = [*border[atom[1]].get("hexes", []), fresh]
        if atom[0] == "xcity":
            fresh = f"zz-{atom[1]}"
            hexes[fresh] = HexInfo(fresh, atom[1], city=True, name=f"New City of {atom[1]}")
        elif atom[0] == "xmark":
            for hex_id, info in pack.hexes.items():
                if info.country == atom[1] and not info.city:
                    hexes[hex_id] = dataclasses.replace(info, city=True)
        elif atom[0] in ("xrail", "xborder"):  # a new hex of it on the border of a Soviet Country
            area = next((a for a in pack.areas.values() if a.name == atom[1]), None)
            fresh = f"zz-{atom[0]}-{atom[1]}-{atom[2]}"
            hexes[fresh] = HexInfo(fresh, area.country if area else atom[1], area=area.id if area else None,
                                   rail=atom[0] == "xrail", borders=(atom[2],))
        elif atom[0] == "xstrat-at":  # a listed hex is a Strategic Hex after all
            hexes[atom[1]] = dataclasses.replace(hexes[atom[1]], strategic=True)
        elif atom[0] == "xhex":  # a hex of it the pack did not list (no unit can be in it)
            fresh = f"zz-hex-{atom[1]}"
            hexes[fresh] = HexInfo(fresh, atom[1], name=f"New hex of {atom[1]}")
        elif atom[0] in ("xrail-at", "xborder-at"):  # a listed hex, a (rail) hex on that border after all
            info = hexes[atom[1]]
            hexes[atom[1]] = dataclasses.replace(info, rail=info.rail or atom[0] == "xrail-at",
                                                 borders=(*info.borders, atom[2]))
        elif atom[0] == "xarea":
            hexes[atom[1]] = dataclasses.replace(hexes[atom[1]], area=atom[2])
    return dataclasses.replace(pack, hexes=hexes, countries=countries, border_defense=border)


def completions(removed: list[Atom], limit: int, rng: random.Random) -> Iterator[tuple[Atom, ...]]:
    """Every subset of the removed atoms (all when there are at most `limit`), else a random sample that
    always includes none and all."""
    if len(removed) <= limit:
        for size in range(len(removed) + 1):
            yield from itertools.combinations(removed, size)
        return
    yield ()
    yield tuple(removed)
    for _ in range(2 ** limit):
        yield tuple(a for a in removed if rng.random() < 0.5)


def single_event(pack: Pack, faction: str, rule: str) -> Pack:
    """The pack checking only `rule` for `faction`: each event is judged on the position itself, not on
    what an earlier (perhaps undecided) event did to it. A card's event runs from the Current Card."""
    on_card = any(rule in card.events for card in pack.cards.values())
    return dataclasses.replace(pack, order={faction: () if on_card else (rule,)})


def outcome(entry: EventEntry) -> tuple[Any, ...]:
    """What a player acts on: the status, the moves, the choices with their options."""
    status = FIRED if entry.status == WAITING else entry.status
    steps = frozenset((s.action, s.counter, s.to, s.subject, s.step) for s in entry.steps)
    choices = frozenset((c.id, tuple(map(str, c.options))) for c in entry.choices)
    # A due event that waits on its first choice shows no later Step: its deciding lines say what it
    # found ("border road/rail hex(es) e5201, ... hold fewer than 2 Japanese steps").
    # Which Dependents 16.1.3 looked at ("(checked: Korea, ...)") is no outcome: what must move is.
    found = frozenset(re.sub(r" \(checked: [^)]*\)", "", w) for w in entry.why
                      if w not in entry.detail and not w.startswith("waiting for")) \
        if status == FIRED else frozenset()
    return status, steps, choices, found


def decided(entry: EventEntry) -> bool:
    return entry.status != UNDECIDED and not entry.missing


def judge(state: GameState, full: Pack, removed: list[Atom], rules: Iterable[str], faction: str,
          rng: random.Random, limit: int = 5) -> list[str]:
    """The property for one position: problems found (empty: the engine is honest on it)."""
    reduced = without(full, removed)
    pool = [a for a in [*removed, *extras(full, removed)] if not settled(reduced, a)]
    subsets = list(completions(pool, limit, rng))
    problems: list[str] = []
    for rule in rules:
        answer = _entry(state, single_event(reduced, faction, rule), rule)
        if answer is None:
            continue
        seen: set[tuple[Any, ...]] = set()
        statuses: set[str] = set()
        for subset in subsets:
            still_gone = [a for a in removed if a not in subset]
            completed = with_extras(without(full, still_gone), [a for a in subset if a[0].startswith("x")])
            other = _entry(state, single_event(completed, faction, rule), rule)
            if other is None:
                continue
            statuses.add(outcome(other)[0] if decided(other) else UNDECIDED)
            if decided(other):
                seen.add(outcome(other))
            if decided(answer) and decided(other) and outcome(other) != outcome(answer):
                problems.append(f"{rule}: decided {outcome(answer)[0]} on the reduced pack, but adding back "
                                f"{list(subset)} gives {outcome(other)[0]} / {sorted(other.why)}")
                break
            if answer.status in (FIRED, WAITING) and other.status not in (FIRED, WAITING):
                problems.append(f"{rule}: due on the reduced pack, {other.status} after adding back "
                                f"{list(subset)}")
                break
        if not decided(answer) and len(seen) < 2:
            problems.append(f"{rule}: {answer.status} naming {[(m.fact, m.subject) for m in answer.missing]},"
                            f" yet every decided completion answers the same ({statuses})")
    return problems


def _entry(state: GameState, pack: Pack, rule: str) -> EventEntry | None:
    result = plan(state, pack)
    return next((e for e in result.events if e.rule == rule), None)
