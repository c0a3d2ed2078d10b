"""`[[vassal.counters]]` rules proposed from what a module's own pieces say (issue 38 item 1): which
property, prototype or name prefix gives the nationality (the base pack's countries, adjectives or
codes, any case) and the kind (the words of vocabulary.toml), which gives the steps, the counter id
and the other counter fields, and which Layer level shows the reduced side.

Why by evidence and counts: the module is the only place that says how its counters are marked,
and a person must be able to judge each proposal from its comment ("Nation: 11 values, 10 of them
countries of the pack; 40 of 42 pieces"). A value no country or word matches is listed, not guessed.
"""

from __future__ import annotations

import re
from collections import Counter as Tally
from dataclasses import dataclass, field
from typing import Any

from bridge.mapping.module_evidence import SlotEvidence, property_values, vocabulary, word_table, words
from bridge.mapping.proposal import Proposal
from bridge.mapping.propose_boxes import literal
from rules.packs import adjective

NON_COUNTER_KINDS = ("state", "card")


class Nations:
    """The base pack's countries by name, adjective and code (`[codes]` table, else an unambiguous
    abbreviation in capitals: "GE" is Germany when no other country of the pack abbreviates so)."""

    def __init__(self, pack: Any) -> None:
        self.names = list(pack.countries)
        self.by_word: dict[str, tuple[str, str]] = {}
        codes = pack.extra.get("codes", {}) if isinstance(pack.extra.get("codes"), dict) else {}
        for name in self.names:
            self.by_word.setdefault(words(name), (name, "name"))
        for name in self.names:
            found = adjective(pack, name)
            if found != name:
                self.by_word.setdefault(words(found), (name, "adjective"))
            if name in codes:
                self.by_word.setdefault(words(str(codes[name])), (name, "code"))

    def country(self, value: str) -> tuple[str, str] | None:
        """(country, "name" | "adjective" | "code") for a module's value, else None."""
        found = self.by_word.get(words(value))
        if found is not None:
            return found
        text = value.strip()
        if not re.fullmatch(r"[A-Z]{2,3}", text):  # "Rum", "De" are words, not codes: never guessed
            return None
        hits = [n for n in self.names if _abbreviates(text.upper(), n)]
        return (hits[0], "code") if len(hits) == 1 else None


def _abbreviates(code: str, name: str) -> bool:
    letters = re.sub(r"[^A-Za-z]", "", name).upper()
    initials = "".join(part[0] for part in re.split(r"[\s\-]+", name.upper()) if part)
    return letters.startswith(code) or (len(initials) > 1 and initials == code)


@dataclass
class Source:
    """Where a piece's value comes from: a property, its prototypes, or its name's first word."""

    key: str  # property name, "@prototype" or "@name"
    values: dict[str, str]  # piece gpid -> its value from this source ("" if none)

    @property
    def label(self) -> str:
        return {"@prototype": "prototype names", "@name": "piece name prefixes"}.get(self.key, self.key)


def sources(slots: list[SlotEvidence]) -> list[Source]:
    """Every property, the prototype names and the piece name prefixes, as value sources."""
    found = [Source(key, {s.gpid: s.properties.get(key, "") for s in slots})
             for key in property_values(slots)]
    return found


@dataclass
class Reading:
    """A source read through a table: value -> target (a country, a kind), with the counts."""

    source: Source
    targets: dict[str, str]  # value -> target
    how: dict[str, str] = field(default_factory=dict)  # value -> "name" | "adjective" | "code"
    unmatched: list[str] = field(default_factory=list)
    pieces: dict[str, str] = field(default_factory=dict)  # gpid -> target

    @property
    def count(self) -> int:
        return len(self.pieces)


def _read(source: Source, slots: list[SlotEvidence], lookup: Any, prototypes: bool = False) -> Reading:
    reading = Reading(source, {})
    seen: Tally[str] = Tally()
    for slot in slots:
        candidates = list(slot.prototypes) if prototypes else (
            [slot.name.split()[0]] if source.key == "@name" and slot.name.split() else
            [source.values.get(slot.gpid, "")])
        for value in candidates:
            if not value:
                continue
            seen[value] += 1
            hit = lookup(value)
            if hit is not None:
                target, how = hit
                reading.targets[value] = target
                reading.how[value] = how
                reading.pieces.setdefault(slot.gpid, target)
    reading.unmatched = sorted(v for v in seen if v not in reading.targets)
    return reading


def _best(readings: list[Reading], least_targets: int) -> Reading | None:
    useful = [r for r in readings if len(set(r.targets.values())) >= least_targets]
    return max(useful, key=lambda r: (r.count, len(set(r.targets.values()))), default=None)


def kind_of(value: str) -> tuple[str, str] | None:
    """A module's kind word -> (kind, "word"): whole value first, else the one kind its words name."""
    table = word_table("kinds")
    text = words(value)
    if text in table:
        return table[text], "word"
    kinds = {table[w] for w in text.split() if w in table}
    return (kinds.pop(), "word") if len(kinds) == 1 else None


def listed(values: list[str], limit: int = 12) -> str:
    """Values for an evidence comment: the first `limit`, then how many more (a real module has hundreds)."""
    shown = ", ".join(values[:limit])
    return shown + (f" and {len(values) - limit} more" if len(values) > limit else "")


def _alternation(values: list[str]) -> str:
    ordered = sorted(set(values), key=lambda v: (-len(v), v))
    return "|".join(literal(v) for v in ordered)


def _matching(key: str, values: list[str]) -> dict[str, str]:
    """A match condition taking exactly these values of `key` (a prototype rule matches one name)."""
    if len(set(values)) == 1:
        value = values[0]
        if key == "@name":
            return {"@name": f"re:{literal(value)} .*"}
        return {key: value}
    if key == "@name":
        return {"@name": f"re:({_alternation(values)}) .*"}
    return {key: "re:" + _alternation(values)}


@dataclass
class CounterProposals:
    rules: list[Proposal]
    kind: Reading | None
    nation: Reading | None
    counter_pieces: set[str]
    fields: dict[str, str]  # counter field -> property
    notes: list[str]  # what was looked for and not found


def propose_counters(slots: list[SlotEvidence], pack: Any) -> CounterProposals:
    nations = Nations(pack)
    all_sources = sources(slots)
    total = len(slots)
    notes: list[str] = []
    kind_readings = [_read(s, slots, kind_of) for s in all_sources]
    kind_readings.append(_read(Source("@prototype", {}), slots, kind_of, prototypes=True))
    kind = _best(kind_readings, 1)
    nation_readings = [_read(s, slots, nations.country) for s in all_sources]
    nation_readings.append(_read(Source("@prototype", {}), slots, nations.country, prototypes=True))
    nation_readings.append(_read(Source("@name", {}), slots, nations.country))
    nation = _best(nation_readings, 2)
    rules: list[Proposal] = []
    if kind is None:
        notes.append("no property, prototype or name gives a counter kind (ground, air, naval ...): "
                     "no counter rule is proposed")
        return CounterProposals(rules, None, nation, set(), {}, notes)
    counter_values = sorted(v for v, k in kind.targets.items() if k not in NON_COUNTER_KINDS)
    counter_pieces = {g for g, k in kind.pieces.items() if k not in NON_COUNTER_KINDS}
    counter_slots = [s for s in slots if s.gpid in counter_pieces]
    fields = _fields(counter_slots, [s for s in all_sources if s.key != kind.source.key], pack, nation)
    main_values: dict[str, Any] = {}
    id_property = fields.get("id")
    main_values["id"] = f"{{{id_property}}}" if id_property else "{piece_id}"
    exact = all(v == kind.targets[v] for v in counter_values) and kind.source.key != "@prototype"
    if exact:
        main_values["kind"] = f"{{{kind.source.key}}}"
    for name in ("steps", "delay_stripe", "reinforcement", "tags", "area", "colonial_of"):
        if name in fields:
            main_values[name] = f"{{{fields[name]}}}"
    kinds_found = Tally(kind.targets[v] for v in counter_values)
    evidence = [f"{kind.source.label}: {len(kind.targets)} values read as kinds "
                f"({listed([f'{v} = {kind.targets[v]}' for v in sorted(kind.targets)])}); "
                f"{len(counter_pieces)} of {total} pieces are counters "
                f"({', '.join(sorted(kinds_found))})"]
    if kind.unmatched:
        evidence.append(f"{kind.source.label}: no kind for {listed(kind.unmatched)}")
    evidence.append("id: " + (f"{id_property} is unique on each of the {len(counter_pieces)} counters"
                              if id_property else "no property is unique per counter: VASSAL's piece id"))
    evidence += [f"{name}: {fields[name]} ({why})" for name, why in _FIELD_WHY.items() if name in fields]
    if counter_values:
        rules.append(Proposal("counters", _matching(kind.source.key, counter_values), main_values, evidence))
    if not exact:
        by_kind: dict[str, list[str]] = {}
        for value in counter_values:
            by_kind.setdefault(kind.targets[value], []).append(value)
        for target, values in sorted(by_kind.items()):
            count = sum(1 for k in kind.pieces.values() if k == target)
            rules.append(Proposal("counters", _matching(kind.source.key, values), {"kind": target},
                                  [f"{kind.source.label}: {listed(values)} read as {target}; "
                                   f"{count} pieces"]))
    rules += _nation_rules(nation, total, counter_pieces, notes)
    rules += _flip_rules(counter_slots, "steps" in fields)
    return CounterProposals(rules, kind, nation, counter_pieces, fields, notes)


_FIELD_WHY = {
    "steps": "whole numbers, named like steps",
    "delay_stripe": "yes/no, named like a Delay Stripe",
    "reinforcement": "short codes, named like a reinforcement code",
    "tags": "its values are tags the rules look for",
    "area": "its values are the pack's Ceded Land areas",
    "colonial_of": "countries of the pack, named like colonial",
}


def _nation_rules(nation: Reading | None, total: int, counter_pieces: set[str],
                  notes: list[str]) -> list[Proposal]:
    if nation is None:
        notes.append("no property, prototype or name prefix names the base pack's countries: "
                     "no nationality is proposed")
        return []
    hows = sorted(set(nation.how.values()))
    countries = sorted(set(nation.targets.values()))
    distinct = len(nation.targets) + len(nation.unmatched)
    evidence = [f"{nation.source.label}: {distinct} values, {len(nation.targets)} of them countries of the "
                f"pack (as {' and '.join(s + 's' for s in hows)}: {len(countries)} countries); "
                f"{nation.count} of {total} pieces"
                + (f"; no country for {listed(nation.unmatched)}" if nation.unmatched else "")]
    key = nation.source.key
    values = sorted(nation.targets)
    if key not in ("@prototype", "@name") and all(v == nation.targets[v] for v in values):
        return [Proposal("counters", _matching(key, values), {"nationality": f"{{{key}}}"}, evidence)]
    rules = []
    for index, country in enumerate(countries):
        taken = [v for v in values if nation.targets[v] == country]
        pieces = sum(1 for c in nation.pieces.values() if c == country)
        own = (f"{nation.source.label}: {listed(taken)} = {country} (its "
               f"{' / '.join(sorted({nation.how[v] for v in taken}))}); {pieces} pieces")
        rules.append(Proposal("counters", _matching(key, taken), {"nationality": country},
                              [*(evidence if index == 0 else []), own]))
    return rules


def _fields(counter_slots: list[SlotEvidence], all_sources: list[Source], pack: Any,
            nation: Reading | None) -> dict[str, str]:
    """Counter field -> the property that gives it (among the counters' properties)."""
    names = word_table("fields")
    booleans = {words(w) for listed in vocabulary()["booleans"].values() for w in listed}
    countries = set(pack.countries)
    areas = set(pack.areas)
    known_tags = _known_tags(pack)
    fields: dict[str, str] = {}
    count = len(counter_slots)
    if not count:
        return fields
    for source in all_sources:
        values = [source.values.get(s.gpid, "") for s in counter_slots]
        present = [v for v in values if v]
        if not present or (nation is not None and source.key == nation.source.key):
            continue
        named = names.get(words(source.key))
        distinct = set(present)
        if "id" not in fields and len(present) == count and len(distinct) == count and named in ("id", None):
            fields["id"] = source.key
            continue
        if named == "steps" and all(re.fullmatch(r"[0-9]{1,2}", v) for v in present):
            fields.setdefault("steps", source.key)
        elif named == "delay_stripe" and all(words(v) in booleans for v in values):
            fields.setdefault("delay_stripe", source.key)
        elif named == "reinforcement" and all(len(v) <= 3 for v in present) and len(present) < count:
            fields.setdefault("reinforcement", source.key)
        elif named == "colonial_of" and distinct <= countries:
            fields.setdefault("colonial_of", source.key)
        elif distinct <= areas:
            fields.setdefault("area", source.key)
        elif (named == "tags" and distinct & known_tags) or len(distinct & known_tags) >= 2:
            fields.setdefault("tags", source.key)
    return fields


def _known_tags(pack: Any) -> set[str]:
    """Tags the pack's events look for: `*_tag` / `*_tags` parameters and once-per-game events' titles."""
    tags: set[str] = set()
    for event in getattr(pack, "events", {}).values():
        params = getattr(event, "params", None) or (event if isinstance(event, dict) else {})
        for key, value in dict(params).items():
            if str(key).endswith("_tag") and isinstance(value, str):
                tags.add(value)
            elif str(key).endswith("_tags") and isinstance(value, list):
                tags.update(str(v) for v in value)
        title = getattr(event, "title", None) or (params.get("title") if isinstance(params, dict) else None)
        if title:
            tags.add(words(str(title)).replace(" ", "_"))
    for listed in vocabulary()["status"].values():
        tags.update(words(w).replace(" ", "_") for w in listed)
    return tags


def _flip_rules(counter_slots: list[SlotEvidence], has_steps: bool) -> list[Proposal]:
    """A Layer level whose name or image says "reduced": flipped, and one step fewer (TK units)."""
    flip_words = {words(w) for w in vocabulary()["flipped"]["words"]}
    found: dict[tuple[str, int], list[str]] = {}
    for slot in counter_slots:
        for layer in slot.layers:
            levels = max(len(layer.level_names), len(layer.images))
            for index in range(1, levels):
                texts = [layer.level_names[index] if index < len(layer.level_names) else "",
                         layer.images[index] if index < len(layer.images) else ""]
                if any(set(words(re.sub(r"\.\w+$", "", t)).split()) & flip_words for t in texts):
                    found.setdefault((layer.name, index + 1), []).append(slot.name)
                    break
    rules = []
    for (layer, level), names in sorted(found.items()):
        evidence = [f"Layer {layer}: level {level} is named or drawn as the reduced side on "
                    f"{len(names)} of {len(counter_slots)} counters"]
        rules.append(Proposal("counters", {f"{layer}_Level": str(level)}, {"flipped": "true"}, evidence,
                              note=f"the reduced side of a unit (Layer {layer}, level {level})"
                                   + (" has one step fewer" if has_steps else ""),
                              steps_delta=-1 if has_steps else 0))
    return rules
