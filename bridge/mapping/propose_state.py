"""`[[vassal.state]]` and `[[vassal.ignore]]` rules proposed from a module's markers (issue 38 item 1):
the war state and phasing faction as Layer levels, the turn from the turn track box, Posture markers
in a country's Posture Box, status markers (Conquered, Neutral), the option cards on a Current Card
box, and the markers standing for a once-per-game event while they wait in a Conditional Events Box
(once one has left it, the event has fired: `turn.fired+`).

Why by the rules' own names: the war states, factions and event titles are the engine's and the base
pack's words, so a Layer whose levels are exactly "Pre-War, Limited War, Total War" is the war state
marker by evidence, not by a guess about the module author's intent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from bridge.mapping.module_evidence import SlotEvidence, vocabulary, words
from bridge.mapping.proposal import Proposal
from bridge.mapping.propose_boxes import BoxProposal, literal
from bridge.mapping.propose_counters import CounterProposals, _matching, listed
from rules.state import FACTIONS, WAR_STATES


@dataclass
class StateProposals:
    rules: list[Proposal] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def plain(pattern: str) -> str:
    """A location pattern without its named groups (inside a negative lookahead)."""
    return re.sub(r"\(\?P<\w+>", "(", pattern)


def _layers(slots: list[SlotEvidence]) -> dict[str, tuple[list[str], list[str]]]:
    """Layer name -> (its level names, the names of the pieces carrying it)."""
    found: dict[str, tuple[list[str], list[str]]] = {}
    for slot in slots:
        for layer in slot.layers:
            found.setdefault(layer.name, ([n.strip() for n in layer.level_names], []))[1].append(slot.name)
    return found


def _level_rules(layer: str, levels: list[str], targets: dict[str, str], path: str, evidence: list[str],
                 extra: dict[str, str] | None = None, more: dict[str, str] | None = None) -> list[Proposal]:
    """`path` = the level's rules name: one rule reading `{Layer_Name}` when the names are the rules'
    own, else one per level (by `Layer_Level`)."""
    extra = extra or {}
    more = more or {}
    if all(targets.get(n) == n for n in levels if n in targets):
        names = "|".join(literal(n) for n in levels if n in targets)
        return [Proposal("state", {f"{layer}_Name": "re:" + names, **extra},
                         {path: f"{{{layer}_Name}}", **more}, evidence)]
    rules = []
    for index, name in enumerate(levels):
        if name in targets:
            own = f"Layer {layer}, level {index + 1} {name!r} = {targets[name]}"
            rules.append(Proposal("state", {f"{layer}_Level": str(index + 1), **extra},
                                  {path: targets[name], **more}, [*(evidence if not rules else []), own]))
    return rules


def propose_state(slots: list[SlotEvidence], pack: Any, boxes: BoxProposal,
                  counters: CounterProposals) -> StateProposals:
    found = StateProposals()
    layers = _layers(slots)
    war_words = {words(w): w for w in WAR_STATES}
    faction_words = {words(f): f for f in FACTIONS}
    posture_words = {words(w) for w in vocabulary()["postures"]["words"]}
    for layer, (levels, names) in sorted(layers.items()):
        war = {n: war_words[words(n)] for n in levels if words(n) in war_words}
        factions = {n: faction_words[words(n)] for n in levels if words(n) in faction_words}
        postures = [n for n in levels if words(n) in posture_words]
        listed = ", ".join(sorted(set(names))[:3])
        pieces = f"{len(names)} piece{'s' if len(names) != 1 else ''} ({listed})"
        if len(war) == len(WAR_STATES):
            evidence = [f"Layer {layer}: its levels are the war states {', '.join(levels)}; {pieces}"]
            found.rules += _level_rules(layer, levels, war, "turn.war_state", evidence)
        elif len(factions) == len(FACTIONS):
            where = {"@location": "re:" + boxes.turn_location} if boxes.turn_location else {}
            date = {"turn.date": "{date}"} if boxes.turn_location else {}
            evidence = [f"Layer {layer}: its levels are the factions {', '.join(levels)}; {pieces}"
                        + ("; the turn track box it stands in gives the date" if where else
                           "; no turn track zone found, so no date")]
            found.rules += _level_rules(layer, levels, factions, "turn.phasing", evidence, where, date)
        elif len(postures) >= 3:
            if boxes.posture_location is None:
                found.notes.append(f"Layer {layer} looks like a Posture marker ({', '.join(levels)}), but no "
                                   "zone is a country's Posture Box")
                continue
            evidence = [f"Layer {layer}: its levels are Postures ({', '.join(levels)}); {pieces}; the "
                        "Posture Box it stands in names the country"]
            found.rules.append(Proposal("state", {f"{layer}_Name": "re:.+",
                                                  "@location": "re:" + boxes.posture_location},
                                        {"countries.{country}.posture": f"{{{layer}_Name}}"}, evidence))
    found.rules += _status_rules(slots, pack, boxes, counters, found.notes)
    found.rules += _card_rules(slots, pack, boxes, counters, found.notes)
    found.rules += _policy_rules(slots, pack, boxes, found.notes)
    found.rules += _event_rules(slots, pack, boxes, counters, found.notes)
    return found


def _status_rules(slots: list[SlotEvidence], pack: Any, boxes: BoxProposal, counters: CounterProposals,
                  notes: list[str]) -> list[Proposal]:
    """Conquered / Neutral markers: in a Posture Box they state the country's status (16.1.1, 16.2.1
    Steps 4-5); anywhere else they state nothing (kept aside)."""
    tag = counters.fields.get("tags")
    statuses = vocabulary()["status"]
    by_status: dict[str, list[str]] = {}
    key = tag or "@name"
    for slot in slots:
        if slot.gpid in counters.counter_pieces:
            continue
        text = slot.properties.get(tag, "") if tag else slot.name
        for status, status_words in statuses.items():
            if set(words(text).split()) & {words(w) for w in status_words}:
                by_status.setdefault(status, []).append(text if tag else slot.name)
                break
    if not by_status:
        return []
    if boxes.posture_location is None:
        notes.append("status markers found (" + ", ".join(sorted(by_status)) + "), but no zone is a "
                     "country's Posture Box")
        return []
    rules = []
    everything: list[str] = []
    for status, values in sorted(by_status.items()):
        values = sorted(set(values))
        everything += values
        writes = {"countries.{country}.status": status}
        if status == "neutral":
            writes["countries.{country}.faction"] = "Neutral"
        match = {**_taking(key, values, tag), "@location": "re:" + boxes.posture_location}
        verb = "names" if len(values) == 1 else "name"
        rules.append(Proposal("state", match, writes,
                              [f"{key}: {listed(values)} {verb} the {status} status; in a country's "
                               "Posture Box it states that country's status"],
                              note=f"a {status.capitalize()} marker in a country's Posture Box"))
    if "neutral" in by_status:
        rules += _made_neutral_rules(pack, _taking(key, sorted(set(by_status["neutral"])), tag), boxes)
    match = {**_taking(key, everything, tag), "@location": f"re:(?!{plain(boxes.posture_location)}$).*"}
    rules.append(Proposal("ignore", match, {}, ["status markers outside a Posture Box state nothing"]))
    return rules


def _made_neutral_rules(pack: Any, neutral: dict[str, str], boxes: BoxProposal) -> list[Proposal]:
    """What a Neutral marker means for the two countries Case Yellow makes Neutral, as the base pack's
    event names them (its `france` and `syria` parameters): France made Neutral is Vichy France (16.2.1
    Step 5, 13.8.6), and Syria created as a Neutral Country is its own country, no longer a French
    Dependent (16.2.1 Step 4)."""
    posture = boxes.posture_location or ""
    for event in getattr(pack, "events", {}).values():
        params = getattr(event, "params", {}) or {}
        france, syria = params.get("france"), params.get("syria")
        if isinstance(france, str) and isinstance(syria, str) and france in pack.countries:
            break
    else:
        return []
    rule, title = event.rule, event.title
    rules = [Proposal("state", {**neutral, "@location": _posture_of(posture, france)},
                      {f"countries.{france}.flags+": "vichy"},
                      [f"{rule} {title} names {france} (its `france`): a Neutral marker in {france}'s "
                       "Posture Box is Vichy France"],
                      note=f"{france} made Neutral is Vichy France ({rule} Step 5, 13.8.6)")]
    if syria in pack.countries:
        rules.append(Proposal("state", {**neutral, "@location": _posture_of(posture, syria)},
                              {f"countries.{syria}.dependent_of": syria},
                              [f"{rule} {title} names {syria} (its `syria`): created as a Neutral Country, "
                               "it is its own country"],
                              note=f"{syria} created as a Neutral Country is its own country, no longer a "
                                   f"Dependent ({rule} Step 4)"))
    return rules


def _posture_of(posture: str, country: str) -> str:
    """The one country's Posture Box, from the pattern of them all."""
    return "re:" + posture.replace("(?P<country>.+)", literal(country))


def _taking(key: str, values: list[str], tag: str | None) -> dict[str, str]:
    """The condition taking these tag values, or (no tag property) these whole piece names."""
    if tag:
        return _matching(key, values)
    return {"@name": "re:" + "|".join(literal(v) for v in values)}


def _card_rules(slots: list[SlotEvidence], pack: Any, boxes: BoxProposal, counters: CounterProposals,
                notes: list[str]) -> list[Proposal]:
    """An option card on a faction's Current Card box is that faction's current card (6.2 Step 2)."""
    kind = counters.kind
    if kind is None:
        return []
    card_values = sorted(v for v, k in kind.targets.items() if k == "card")
    card_slots = [s for s in slots if kind.pieces.get(s.gpid) == "card"]
    if not card_slots:
        return []
    known = {str(c).lower() for c in getattr(pack, "cards", {})}
    number = None
    for prop in sorted({k for s in card_slots for k in s.properties}):
        values = {s.properties.get(prop, "") for s in card_slots}
        if "" not in values and values & {v for v in values if v.lower() in known}:
            number = prop
            break
    if number is None or boxes.card_location is None:
        notes.append(f"{len(card_slots)} cards found, but " + ("no property gives a card number of the pack"
                     if number is None else "no zone is a faction's Current Card"))
        return []
    match_key = _matching(kind.source.key, card_values)
    values = sorted({s.properties[number] for s in card_slots})
    evidence = [f"{number}: the card numbers {listed(values)} ({len(card_slots)} cards); a card on a "
                "faction's Current Card box is its current card"]
    return [
        Proposal("state", {**match_key, "@location": "re:" + boxes.card_location},
                 {"turn.current_cards.{faction}": f"{{{number}}}"}, evidence),
        Proposal("ignore", {**match_key, "@location": f"re:(?!{plain(boxes.card_location)}$).*"}, {},
                 ["a card on no Current Card box says nothing"]),
    ]


def _policy_markers(pack: Any) -> list[str]:
    listed = getattr(pack, "meta", {}).get("policy_markers", [])
    return [str(p) for p in listed] if isinstance(listed, list) else []


def _policy_rules(slots: list[SlotEvidence], pack: Any, boxes: BoxProposal,
                  notes: list[str]) -> list[Proposal]:
    """A Policy marker (the pack's `[pack] policy_markers`, TK: Ostland Accord) in a country's Posture Box
    stands there instead of a Posture of War (16.2.2 Step 1, 16.5.5): `countries.<country>.markers`."""
    rules = []
    for policy in _policy_markers(pack):
        marked = [(key, value, slot) for slot in slots
                  for key, value in [*slot.properties.items(), ("@name", slot.name)]
                  if value and words(value) == words(policy)]
        if not marked:
            continue
        if boxes.posture_location is None:
            notes.append(f"a {policy} Policy marker found, but no zone is a country's Posture Box")
            continue
        key, value, _slot = min(marked, key=lambda m: m[0] == "@name")  # a property before the name
        names = listed(sorted({m[2].name for m in marked if m[:2] == (key, value)}))
        rules.append(Proposal("state", {key: value, "@location": "re:" + boxes.posture_location},
                              {"countries.{country}.markers+": policy},
                              [f"{key} = {value!r} is the pack's Policy marker {policy} ({names}); in a "
                               "country's Posture Box it stands instead of a Posture of War"],
                              note=f"the {policy} Policy marker in a country's Posture Box (16.5.5)"))
    return rules


def _event_rules(slots: list[SlotEvidence], pack: Any, boxes: BoxProposal, counters: CounterProposals,
                 notes: list[str]) -> list[Proposal]:
    """A marker named like a once-per-game event: once it has left the Conditional Events Box, the event
    has fired (6.2: a once-per-game event is carried out once)."""
    kind = counters.kind
    cards = {g for g, k in (kind.pieces.items() if kind else ()) if k == "card"}
    titles = {words(e.title): e for e in getattr(pack, "events", {}).values() if getattr(e, "once", False)}
    found: dict[str, tuple[str, str, list[SlotEvidence]]] = {}  # rule -> (key, value, slots)
    policies = {words(p) for p in _policy_markers(pack)}
    for slot in slots:
        if slot.gpid in cards or any(words(v) in policies for v in [*slot.properties.values(), slot.name]):
            continue  # a Policy marker says where it stands (below), not that its event has fired
        for key, value in [*slot.properties.items(), ("@name", slot.name)]:
            event = titles.get(words(value)) if value else None
            if event is None:
                continue
            current = found.get(event.rule)
            if current is None or (current[0] == "@name" and key != "@name"):
                found[event.rule] = (key, value, [slot])
            elif current[:2] == (key, value):
                current[2].append(slot)
    if found and boxes.events_location is None:
        notes.append("markers named like once-per-game events found (" + ", ".join(sorted(found)) + "), but "
                     "no zone is a Conditional Events Box")
        return []
    rules = []
    for rule, (key, value, marked) in sorted(found.items()):
        title = pack.events[rule].title
        match = {key: value}
        names = listed(sorted({s.name for s in marked}))
        waiting = boxes.events_location or ""
        rules.append(Proposal("state", {**match, "@location": f"re:(?!{plain(waiting)}$).*"},
                              {"turn.fired+": rule},
                              [f"{key} = {value!r} names the once-per-game event {rule} {title} "
                               f"({len(marked)} piece{'' if len(marked) == 1 else 's'}: {names})"],
                              note=f"{rule} {title} once per game: its marker has left the Conditional "
                                   "Events Box"))
        if not any(s.gpid in counters.counter_pieces for s in marked):
            rules.append(Proposal("ignore", {**match, "@location": "re:" + waiting}, {},
                                  [f"the {title} marker waiting in a Conditional Events Box states nothing"]))
    return rules
