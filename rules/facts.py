"""Map facts an event needs, and whether a pack has them: the basis of `undecided` and of pack coverage.

Why a vocabulary of named facts: a pack made from the rules text alone does not locate most of the map
(every City, border hex, Strategic Hex is printed on the map, not in the text). An event that reads such a
fact must say so, so that a missing fact makes the event `undecided` (never `not due`) and so that
`adjutant pack check` can count, per event and per country or region, what a pack still lacks.

Each event declares in its pack table the facts it reads, as data the engine checks:

    [events."16.1.1"]
    needs = [{fact = "city_hexes", of = "minor_countries"}]

`ctx.need(fact, subject)` (rules.engine) then returns the fact or records it as missing; `ctx.located`
returns it three-valued (rules.tri), the gap recorded only where a condition over it stays open. Asking for
a fact the event did not declare is a programming error. See docs/pack-format.md ("needs").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol


class Pack(Protocol):
    """The tables of a pack (`rules.packs.Pack`) a fact is read from: a protocol, so this module needs
    nothing of rules.packs, which imports the fact vocabulary from here (issue 39: no import circle)."""

    countries: dict[str, Any]
    hexes: dict[str, Any]
    areas: dict[str, Any]
    border_defense: dict[str, dict[str, Any]]

    def hexes_where(self, **match: Any) -> list[Any]: ...


Lookup = Callable[[Pack, str], Any]


@dataclass(frozen=True)
class FactKind:
    """One kind of map fact: how to read it from a pack, what it is about, how players name it."""

    name: str
    per: str  # "country" | "area" — what a subject of this fact is
    label: str  # "City hexes": as the rules text names it
    lookup: Lookup  # the fact's value for one subject; empty / None when the pack lacks it
    default_scope: str  # the subjects `pack check` counts when a `needs` entry gives no `of`

    def missing_text(self, subject: str) -> str:
        return f"the pack locates no {self.label_singular} of {subject}"

    @property
    def label_singular(self) -> str:
        words = self.label.split(" ")
        last = words[-1]
        if last.endswith("ies"):
            last = last[:-3] + "y"  # "neighbouring countries" -> "neighbouring country"
        elif last.endswith("es") and last[:-2].endswith(("x", "s", "sh", "ch")):
            last = last[:-2]
        elif last.endswith("s"):
            last = last[:-1]
        return " ".join([*words[:-1], last])


FACT_KINDS: dict[str, FactKind] = {}


def fact_kind(name: str, per: str, label: str, default_scope: str) -> Callable[[Lookup], Lookup]:
    """Register a fact kind; edition modules may add their own (e.g. DS road/rail hexes)."""

    def decorate(fn: Lookup) -> Lookup:
        if name in FACT_KINDS and FACT_KINDS[name].lookup is not fn:
            raise ValueError(f"fact kind {name!r} registered twice")
        FACT_KINDS[name] = FactKind(name, per, label, fn, default_scope)
        return fn

    return decorate


def _hexes(pack: Pack, **match: Any) -> list[str]:
    return sorted(h.id for h in pack.hexes_where(**match))


@fact_kind("city_hexes", "country", "City hexes", "minor_countries")
def _city_hexes(pack: Pack, country: str) -> list[str]:
    return sorted({h.id for h in pack.hexes.values() if h.country == country and (h.city or h.capital)})


@fact_kind("capital", "country", "Capital", "countries")
def _capital(pack: Pack, country: str) -> str | None:
    info = pack.countries.get(country)
    if info is not None and info.capital:
        return info.capital
    capitals = _hexes(pack, country=country, capital=True)
    return capitals[0] if capitals else None


@fact_kind("port_hexes", "country", "Port hexes", "countries")
def _port_hexes(pack: Pack, country: str) -> list[str]:
    return _hexes(pack, country=country, port=True)


@fact_kind("strategic_hexes", "country", "Strategic Hexes", "countries")
def _strategic_hexes(pack: Pack, country: str) -> list[str]:
    return _hexes(pack, country=country, strategic=True)


@fact_kind("country_hexes", "country", "hexes", "countries")
def _country_hexes(pack: Pack, country: str) -> list[str]:
    return _hexes(pack, country=country)


@fact_kind("neighbors", "country", "neighbouring countries", "minor_countries")
def _neighbors(pack: Pack, country: str) -> list[str]:
    info = pack.countries.get(country)
    area = _area_by_key(pack, country)
    return list(info.neighbors if info else area.neighbors if area else ())


@fact_kind("area_hexes", "area", "hexes", "areas")
def _area_hexes(pack: Pack, area: str) -> list[str]:
    return _hexes(pack, area=area)


@fact_kind("border_hexes", "area", "border hexes", "border_defense")
def _border_hexes(pack: Pack, area: str) -> list[str]:
    spec = pack.border_defense.get(area) or {}
    if spec.get("requirement") == "region_steps":
        return ["(region)"]  # the whole region counts: no border hex list is needed
    return sorted(str(h) for h in spec.get("hexes", ()) or ())


@fact_kind("road_rail_hexes", "area", "road/rail hexes", "areas")
def _road_rail_hexes(pack: Pack, area: str) -> list[str]:
    return sorted(h.id for h in pack.hexes.values() if h.area == area and (h.road or h.rail))


@fact_kind("region_strategic_hex", "area", "Strategic Hex", "regions")
def _region_strategic_hex(pack: Pack, area: str) -> list[str]:
    """16.2.2 Step 3: the Soviet Strategic Hex listed for each Ostland Region (the text lists them)."""
    info = pack.areas.get(area)
    return [info.strategic_hex] if info is not None and info.strategic_hex else []


@fact_kind("area_neighbors", "area", "neighbouring countries", "regions")
def _area_neighbors(pack: Pack, area: str) -> list[str]:
    """16.2.2 Step 10: the countries sharing a border with a Region (pack `neighbors`, or hex `borders`)."""
    info = pack.areas.get(area)
    found = set(info.neighbors) if info is not None else set()
    for hex_info in pack.hexes.values():
        if hex_info.area == area:
            found.update(hex_info.borders)
            found.update(pack.hexes[o].country for o in hex_info.adjacent
                         if o in pack.hexes and pack.hexes[o].area != area)
    return sorted(found)
def _area_by_key(pack: Pack, key: str) -> Any:
    """An area by id, or by the name it takes as a Dependent (e.g. "Inner Mongolia")."""
    return pack.areas.get(key) or next((a for a in pack.areas.values() if a.name == key), None)


@fact_kind("area_city_hexes", "area", "City hexes", "areas")
def _area_city_hexes(pack: Pack, area: str) -> list[str]:
    """DS 16.3.8 / 16.5.5 "a City in a formerly British Mandate Dependent": the Cities of an area."""
    info = _area_by_key(pack, area)
    own = (info.hexes_of or info.id) if info is not None else area
    return sorted(h.id for h in pack.hexes.values() if h.area == own and (h.city or h.capital))


@fact_kind("border_road_rail_hexes", "country", "Road or Rail hexes on its border", "dependents")
def _border_road_rail_hexes(pack: Pack, subject: str) -> list[str]:
    """DS 16.1.3 "each Road or Rail hex that shares a border with a Soviet Country": a Country's (or a
    ceded area's) road/rail hexes the pack marks as border hexes (`borders`)."""
    info = _area_by_key(pack, subject)
    return sorted(h.id for h in pack.hexes.values() if (h.road or h.rail) and h.borders and (
        (info is not None and h.area == info.id) or (info is None and h.country == subject)))


@dataclass(frozen=True)
class Need:
    """One `needs` entry of an event: a fact kind and the subjects coverage counts it for."""

    fact: str
    of: str | tuple[str, ...] | None = None

    @property
    def kind(self) -> FactKind:
        return FACT_KINDS[self.fact]


def parse_needs(raw: Any, where: Any, rule: str) -> tuple[Need, ...]:
    """`needs = ["city_hexes", {fact = "border_hexes", of = "border_defense"}]` from a pack's events table."""
    from vassal_parser.errors import InputError

    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise InputError(where, f"event {rule}: needs must be a list")
    needs: list[Need] = []
    for item in raw:
        if isinstance(item, str):
            item = {"fact": item}
        if not isinstance(item, dict) or not isinstance(item.get("fact"), str):
            raise InputError(
                where, f"event {rule}: each needs entry is a fact name or {{fact = ..., of = ...}}"
            )
        fact = item["fact"]
        if fact not in FACT_KINDS:
            raise InputError(
                where, f"event {rule}: unknown fact {fact!r} (known: {', '.join(sorted(FACT_KINDS))})"
            )
        extra = set(item) - {"fact", "of"}
        if extra:
            raise InputError(
                where, f"event {rule}: needs entry has unknown key(s) {', '.join(sorted(extra))}"
            )
        of = item.get("of")
        if isinstance(of, list):
            of = tuple(str(x) for x in of)
        elif of is not None and not isinstance(of, str):
            raise InputError(where, f"event {rule}: needs 'of' must be a set name or a list of names")
        needs.append(Need(fact, of))
    return tuple(needs)


SCOPES: dict[str, Callable[[Pack], list[str]]] = {
    "countries": lambda p: sorted(n for n, c in p.countries.items() if c.kind != "dependent"),
    "all_countries": lambda p: sorted(p.countries),
    "minor_countries": lambda p: sorted(n for n, c in p.countries.items() if c.kind == "minor"),
    "major_powers": lambda p: sorted(n for n, c in p.countries.items() if c.kind == "major"),
    "dependents": lambda p: sorted(n for n, c in p.countries.items() if c.kind == "dependent"),
    "areas": lambda p: sorted(p.areas),
    "ceded_lands": lambda p: sorted(a for a, info in p.areas.items() if info.kind == "ceded_land"),
    "regions": lambda p: sorted(a for a, info in p.areas.items() if info.kind != "ceded_land"),
    "border_defense": lambda p: sorted(p.border_defense),
}


def subjects(pack: Pack, need: Need, params: dict[str, Any]) -> list[str]:
    """The subjects a need is counted for: a named set, `param:<name>` of the event, or a list."""
    of = need.of or need.kind.default_scope
    if isinstance(of, tuple):
        return list(of)
    if of.endswith("+dependents"):  # "a City within the selected Country or one of its Dependents" (16.4.4)
        base = subjects(pack, Need(need.fact, of.removesuffix("+dependents")), params)
        return [*base, *(n for n, c in sorted(pack.countries.items())
                         if c.dependent_of in base and n not in base)]
    if of.startswith("dependents_of:"):
        # Every Dependent `home` may have: its listed Dependents, and the areas that become its Dependents
        # when their marker is placed (DS 16.1.3 checks "each Japanese Dependent", Inner Mongolia too).
        home = of.partition(":")[2]
        return [*(n for n, c in sorted(pack.countries.items()) if c.dependent_of == home),
                *(a.name for _, a in sorted(pack.areas.items()) if a.dependent and a.ceded_to == home)]
    if of.startswith("param:"):
        value = params.get(of.partition(":")[2])
        if value is None:
            return []
        if isinstance(value, dict):
            return [str(k) for k in value]
        return [str(v) for v in value] if isinstance(value, list) else [str(value)]
    scope = SCOPES.get(of)
    if scope is None:
        raise ValueError(f"unknown needs scope {of!r}")
    return scope(pack)


def is_complete(pack: Pack, fact: str, subject: str) -> bool:
    """Does the pack say it locates this fact of `subject` in full (`[complete]`; no table: trusted)?"""
    if pack.complete is None:
        return True
    listed = pack.complete.get(fact)
    if listed is None:  # a fact kind the table does not name: `others = "trusted"` keeps the no-table rule
        return pack.complete.get("others") == "trusted"
    return listed == "all" or subject in listed


def trusted_fact(pack: Pack, fact: str) -> bool:
    """Is a located value of this fact taken as the whole fact without the pack naming a subject for it
    -- the no-table rule, or `[complete] others = "trusted"` for a fact the table does not name?"""
    if pack.complete is None:
        return True
    return fact not in pack.complete and pack.complete.get("others") == "trusted"


def trusted_facts(pack: Pack) -> list[str]:
    """The fact kinds the pack's events read that it trusts rather than locates (issue 22: every plan
    header, `pack check` and the editor name them, so a lost fact never reads as a located one)."""
    needed = {n.fact for spec in pack.events.values() for n in spec.needs}
    return sorted(f for f in needed if trusted_fact(pack, f))


def trusted_labels(pack: Pack) -> list[str]:
    """`trusted_facts` as players read them: "City hexes (city_hexes)"."""
    return [f"{FACT_KINDS[f].label} ({f})" for f in trusted_facts(pack)]


def claims_complete(pack: Pack, fact: str, subject: str) -> bool:
    """Does the [complete] table NAME this fact for `subject` (so that nothing located means none)?"""
    listed = pack.complete.get(fact) if pack.complete is not None else None
    return listed is not None and listed != "trusted" and (listed == "all" or subject in listed)


def check(pack: Pack, fact: str, subject: str) -> tuple[Any, str | None]:
    """The fact's value and, when the pack lacks it (or has only part of it), the player-facing reason.

    An empty value is missing -- unless the pack lists the subject under `[complete]` for that fact: then
    it is known to be empty (an island Dependent has no neighbouring Country; most Countries have no
    Strategic Hex)."""
    kind = FACT_KINDS[fact]
    value = kind.lookup(pack, subject)
    shown = subject_name(pack, kind, subject)
    if not value:
        if claims_complete(pack, fact, subject):
            return value, None  # listed under [complete]: the pack says there is none (a landlocked country)
        return value, kind.missing_text(shown)
    if not is_complete(pack, fact, subject):
        if isinstance(value, str):  # one hex (a Capital): located, but the pack does not vouch for it
            return value, (f"the pack does not confirm the {kind.label} of {shown} "
                           f"(it does not list {subject!r} under [complete] {fact})")
        return value, (f"the pack locates only some {kind.label} of {shown} "
                       f"(it does not list {subject!r} under [complete] {fact})")
    return value, None


def subject_name(pack: Pack, kind: FactKind, subject: str) -> str:
    """A subject as players name it: an area by its name ("Eastern Poland"), never its pack id."""
    if kind.per == "area":
        area = pack.areas.get(subject)
        if area is not None:
            return area.name
    return subject


def present(pack: Pack, fact: str, subject: str) -> bool:
    return check(pack, fact, subject)[1] is None


@dataclass(frozen=True)
class CoverageLine:
    """One line of what a pack has and lacks of a map fact, for `pack check` and the editor's sidebar."""

    rule: str
    fact: str
    label: str
    per: str
    have: tuple[str, ...]
    lack: tuple[str, ...]
    trusted: tuple[str, ...] = ()  # of `have`: located, but taken as whole only because the pack trusts
    none: tuple[str, ...] = ()  # of `have`: the pack claims the fact complete and locates nothing

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "fact": self.fact, "label": self.label, "per": self.per,
                "have": list(self.have), "missing": list(self.lack), "trusted": list(self.trusted),
                "none": list(self.none)}


def coverage(pack: Pack, rules: Iterable[str] | None = None) -> list[CoverageLine]:
    """Per event and per declared need: which subjects the pack has the fact for, and which it lacks."""
    lines: list[CoverageLine] = []
    for rule in rules if rules is not None else pack.events:
        spec = pack.events[rule]
        for need in spec.needs:
            have, lack = [], []
            for subject in subjects(pack, need, spec.params):
                (have if present(pack, need.fact, subject) else lack).append(subject)
            trusted = tuple(s for s in have if trusted_fact(pack, need.fact))
            kind = need.kind
            none = tuple(s for s in have if not kind.lookup(pack, s))
            lines.append(CoverageLine(rule, need.fact, kind.label, kind.per, tuple(have), tuple(lack),
                                      trusted, none))
    return lines


@dataclass(frozen=True)
class FactCount:
    """How many map facts a pack has, each fact of each subject counted once (Poland's City hexes are
    one fact however many events read them): the one count `pack check` and the editor both show.

    Why one count (issue 38): `pack check` used to add up every event's missing subjects ("414 missing")
    while the editor counted each fact once ("8 of 100 facts"), so the two never agreed on one pack."""

    total: int
    complete: int  # located in full, or declared none, as the pack's [complete] table says
    none: int  # of `complete`: declared none (nothing located, and the pack says that is all)
    trusted: int  # located, but taken as whole only because the pack trusts the fact (issue 22)
    missing: int

    def text(self) -> str:
        """'8 of 100 map facts complete (1 declared none), 92 missing': the same words in both places."""
        out = f"{self.complete} of {self.total} map facts complete"
        if self.none:
            out += f" ({self.none} declared none)"
        if self.trusted:
            out += f", {self.trusted} trusted, not confirmed"
        return f"{out}, {self.missing} missing"

    def to_json(self) -> dict[str, int]:
        return {"total": self.total, "complete": self.complete, "none": self.none,
                "trusted": self.trusted, "missing": self.missing}


def count_facts(lines: Iterable[CoverageLine | dict[str, Any]]) -> FactCount:
    """Count coverage lines (`coverage`, or their JSON as the editor adjusts it) per fact and subject.

    A subject missing from any line is missing (the editor moves a Capital the module lacks to missing);
    a located subject is trusted where the pack trusts the fact, else complete, and declared none when
    the pack locates nothing of it."""
    state: dict[tuple[str, str], str] = {}
    rank = {"complete": 0, "none": 1, "trusted": 2, "missing": 3}
    for line in lines:
        data = line.to_json() if isinstance(line, CoverageLine) else line
        trusted, none = set(data.get("trusted", ())), set(data.get("none", ()))
        for subject in data["have"]:
            found = "trusted" if subject in trusted else "none" if subject in none else "complete"
            key = (data["fact"], subject)
            if key not in state or rank[found] > rank[state[key]]:
                state[key] = found
        for subject in data["missing"]:
            state[(data["fact"], subject)] = "missing"
    tally = {name: 0 for name in rank}
    for found in state.values():
        tally[found] += 1
    return FactCount(total=len(state), complete=tally["complete"] + tally["none"], none=tally["none"],
                     trusted=tally["trusted"], missing=tally["missing"])
