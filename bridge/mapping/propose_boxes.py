"""Zone and window names matched to the rules' box ids, as `pack scaffold --base` proposes them
(issue 38 item 2): "Axis Force Pool" -> force_pool:Axis, "(.+) Posture Box" -> posture:{0}, and the
zones whose markers only give state (war state, turn track, Current Card) as `not_boxes`.

Why only by the words of `vocabulary.toml` and the base pack's names: a box id that names no faction
or country of the rules would put counters where the engine refuses them, so a zone whose faction or
country is not recognised is listed as unmatched, never guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from bridge.mapping.module_evidence import vocabulary
from rules.state import FACTIONS

_REGEX_SPECIAL = re.compile(r"([.^$*+?{}\[\]\\|()])")


def literal(text: str) -> str:
    """A zone's text inside a pattern: regex characters escaped, spaces kept (readable TOML)."""
    return _REGEX_SPECIAL.sub(r"\\\1", text)


@dataclass
class BoxProposal:
    boxes: dict[str, str] = field(default_factory=dict)  # zone (or "WINDOW: offboard") -> box id
    patterns: dict[str, str] = field(default_factory=dict)  # pattern -> box template
    not_boxes: list[str] = field(default_factory=list)
    evidence: dict[str, str] = field(default_factory=dict)  # box / pattern / not_box -> its comment
    unmatched: list[str] = field(default_factory=list)
    # What the state rules read where: location patterns (with named groups) in the module's own words.
    posture_location: str | None = None  # "(?P<country>.+) Posture Box"
    events_location: str | None = None  # ".* Conditional Events Box"
    card_location: str | None = None  # "(?P<faction>Axis|Western|Soviet) Current Card"
    turn_location: str | None = None  # "Turn [0-9]+ (?P<date>.+)"
    war_state_zones: list[str] = field(default_factory=list)

    @property
    def proposed_names(self) -> list[str]:
        return [*self.boxes, *self.patterns]


def _faction(text: str) -> str | None:
    return next((f for f in FACTIONS if f.lower() == text.strip().lower()), None)


def _country(text: str, countries: dict[str, Any]) -> str | None:
    return next((c for c in countries if c.lower() == text.strip().lower()), None)


def propose_boxes(zones: list[str], windows: list[str], countries: dict[str, Any]) -> BoxProposal:
    """`zones`: every zone name of the module; `windows`: gridless map windows (pieces `offboard`)."""
    words = vocabulary()
    proposal = BoxProposal()
    named = [(zone, zone) for zone in dict.fromkeys(zones)]
    named += [(window, f"{window}: offboard") for window in dict.fromkeys(windows)]
    posture: dict[str, tuple[str, str]] = {}  # zone -> (country, the text after the country)
    ce_suffixes: set[str] = set()
    cards: dict[str, tuple[str, str]] = {}
    for name, key in named:
        if _state_zone(name, key, proposal, cards, words["state_zones"]):
            continue
        hit = _box(name, words["boxes"])
        if hit is not None:
            box, groups = hit
            faction = groups.get("faction")
            if faction is not None and _faction(faction) is None:
                proposal.unmatched.append(key)
                proposal.evidence[key] = f"looks like {box.split(':')[0]}, but {faction!r} is no faction"
                continue
            box_id = box.format(faction=_faction(faction) if faction else "")
            proposal.boxes[key] = box_id
            proposal.evidence[key] = f"zone name reads as {box.split(':')[0].replace('_', ' ')}"
            if box.startswith("conditional_events") and faction is not None:
                ce_suffixes.add(name[len(faction):])
            continue
        found = _country_box(name, countries, words["box_patterns"])
        if found is not None:
            posture[key] = found
            continue
        proposal.unmatched.append(key)
    _posture_boxes(posture, zones, countries, words["box_patterns"], proposal)
    if len(ce_suffixes) == 1:
        proposal.events_location = ".*" + literal(next(iter(ce_suffixes)))
    if cards:
        suffixes = {suffix for _faction_name, suffix in cards.values()}
        if len(suffixes) == 1:
            factions = "|".join(literal(f) for f, _s in cards.values())
            proposal.card_location = f"(?P<faction>{factions}){literal(next(iter(suffixes)))}"
    return proposal


def _box(name: str, table: dict[str, str]) -> tuple[str, dict[str, str]] | None:
    for pattern, box in table.items():
        hit = re.fullmatch(pattern, name.strip(), re.IGNORECASE)
        if hit:
            return box, {k: v for k, v in hit.groupdict().items() if v is not None}
    return None


def _country_box(name: str, countries: dict[str, Any], table: dict[str, str]) -> tuple[str, str] | None:
    for pattern in table:
        hit = re.fullmatch(pattern, name.strip(), re.IGNORECASE)
        if hit and _country(hit.group("country"), countries):
            return _country(hit.group("country"), countries) or "", name[hit.end("country"):]
    return None


def _posture_boxes(found: dict[str, tuple[str, str]], zones: list[str], countries: dict[str, Any],
                   table: dict[str, str], proposal: BoxProposal) -> None:
    """One pattern when every zone it would take names a country of the pack, else one box each."""
    if not found:
        return
    suffixes = {suffix for _country_name, suffix in found.values()}
    template = next(iter(table.values()))
    if len(suffixes) == 1:
        suffix = next(iter(suffixes))
        pattern = "(.+)" + literal(suffix)
        taken = [hit.group(1) for hit in (re.fullmatch(pattern, z) for z in zones) if hit]
        if all(_country(name, countries) == name for name in taken):
            proposal.patterns[pattern] = template.replace("{country}", "{0}")
            listed = ", ".join(sorted(c for c, _s in found.values()))
            proposal.evidence[pattern] = (f"{len(taken)} zones, each a country of the pack and a "
                                          f"{template.split(':')[0]} box: {listed}")
            proposal.posture_location = "(?P<country>.+)" + literal(suffix)
            return
    for key, (country, _suffix) in found.items():
        proposal.boxes[key] = template.replace("{country}", country)
        proposal.evidence[key] = f"zone name reads as the {template.split(':')[0]} box of {country}"


def _state_zone(name: str, key: str, proposal: BoxProposal, cards: dict[str, tuple[str, str]],
                table: dict[str, str]) -> bool:
    """War state, turn track and Current Card zones: markers there give state, not a counter's place."""
    text = name.strip()
    hit = re.fullmatch(table["war_state"], text, re.IGNORECASE)
    if hit:
        proposal.not_boxes.append(key)
        proposal.war_state_zones.append(name)
        proposal.evidence[key] = "the war state marker's box (read by a state rule)"
        return True
    hit = re.fullmatch(table["turn"], text, re.IGNORECASE)
    if hit:
        pattern = (f"{literal(hit.group('prefix'))}{literal(hit.group('sep'))}[0-9]+"
                   f"{literal(hit.group('gap'))}(?P<date>.+)")
        if proposal.turn_location in (None, pattern):
            proposal.turn_location = pattern
            if "re:" + pattern not in proposal.not_boxes:
                proposal.not_boxes.append("re:" + pattern)
                proposal.evidence["re:" + pattern] = "the turn track (the turn marker's box gives the date)"
            return True
        return False
    hit = re.fullmatch(table["current_card"], text, re.IGNORECASE)
    if hit and _faction(hit.group("faction")):
        cards[key] = (hit.group("faction"), text[hit.end("faction"):])
        proposal.not_boxes.append(key)
        proposal.evidence[key] = "a faction's Current Card (the card there gives the current card)"
        return True
    return False
