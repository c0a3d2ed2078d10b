"""Rule 6.1 War & Peace Segment: validate the actions the phasing faction took.

Why validation rather than simulation: the position handed to the engine is the board at the start of
the Conditional Events Segment, i.e. after the War & Peace Segment; the actions list records what was
done so each can be checked against 6.1.1 (declarations of war) and 6.1.2 (Truce marker reductions).
Action shapes are documented in docs/position-format.md.
"""

from __future__ import annotations

from typing import Any

from rules.packs import Pack
from rules.plan import Violation
from rules.state import ALLIED_FACTIONS, GameState

TRUCE_ORDER: tuple[str, ...] = ("Reassess Policy", "Armistice", "Negotiation")
# 6.1.2: what a reduction turns each Truce marker into (None: removed).
REDUCED_TO: dict[str, str | None] = {
    "Reassess Policy": "Armistice",
    "Armistice": "Negotiation",
    "Negotiation": None,
}
SEASONAL_ONLY = frozenset({"Reassess Policy", "Armistice"})  # red-bordered markers (6.1.2 Clarification)


def _declare_war(state: GameState, pack: Pack, index: int, action: dict[str, Any]) -> list[Violation]:
    out: list[Violation] = []
    faction = action.get("faction")
    target = action.get("target")
    war = state.turn.war_state
    if war == "Pre-War":
        out.append(
            Violation(
                "6.1.1",
                index,
                f"{faction} declared war on {target} while Pre-War is in effect (Declare War Restrictions)",
            )
        )
    elif war == "Limited War" and faction in ALLIED_FACTIONS:
        out.append(
            Violation(
                "6.1.1",
                index,
                f"the {faction} faction declared war on {target} during "
                "Limited War; Allied factions cannot (Declare War Restrictions)",
            )
        )
    info = pack.countries.get(str(target))
    if info is None:
        out.append(
            Violation("6.1.1", index, f"declared war on {target!r}, which is not a country in the pack")
        )
        return out
    if info.kind != "minor":
        what = f"a Dependent of {info.dependent_of}" if info.kind == "dependent" else "a Major Country"
        out.append(
            Violation(
                "6.1.1",
                index,
                f"{target} is {what}; war is declared only on Neutral "
                "Minor Countries (6.1.1 Clarification)",
            )
        )
    activated_as = action.get("activated_as")
    if faction in ALLIED_FACTIONS and activated_as != "Axis":
        out.append(
            Violation(
                "6.1.1",
                index,
                f"a Minor Country selected by the {faction} faction is "
                f"activated as an Axis Country, not {activated_as}",
            )
        )
    if faction == "Axis" and activated_as not in ALLIED_FACTIONS:
        out.append(
            Violation(
                "6.1.1",
                index,
                "a Minor Country selected by the Axis faction is activated as "
                f"an Allied Country (13.5), not {activated_as}",
            )
        )
    was = action.get("was", "neutral")
    if was != "neutral":
        out.append(
            Violation(
                "6.1.1",
                index,
                f"{target} was {was}; only Neutral Minor Countries can be selected (6.1.1 Clarification)",
            )
        )
    if action.get("no_occupation_marker"):
        if activated_as != "Axis":
            out.append(
                Violation(
                    "6.1.1",
                    index,
                    f"No Occupation marker placed in {target}, which was not "
                    "activated as an Axis Country (14.24)",
                )
            )
        hex_id = action.get("no_occupation_hex", info.capital)
        if hex_id != info.capital:
            out.append(
                Violation(
                    "6.1.1",
                    index,
                    f"the No Occupation marker goes in {target}'s capital {info.capital}, not {hex_id}",
                )
            )
    return out


def _reduce_truce(state: GameState, pack: Pack, index: int, action: dict[str, Any]) -> list[Violation]:
    out: list[Violation] = []
    faction = action.get("faction")
    affecting = action.get("affecting")
    reduced = action.get("markers", [])
    if affecting not in ALLIED_FACTIONS:
        return [Violation("6.1.2", index, f"Truce markers affect an Allied faction, not {affecting!r}")]
    if faction in ALLIED_FACTIONS and faction != affecting:
        out.append(
            Violation(
                "6.1.2",
                index,
                f"the {faction} faction may reduce Truce markers affecting its "
                f"own faction only, not the {affecting} faction",
            )
        )
    seasonal = state.turn.seasonal
    results: dict[str, list[str]] = {}
    listed: set[str] = set()
    for item in reduced:
        country, marker = item.get("country"), item.get("from")
        if country in listed:
            out.append(_one_level_only(index, f"{country}'s Truce marker is reduced more than once"))
        listed.add(str(country))
        if marker not in REDUCED_TO:
            out.append(
                Violation("6.1.2", index, f"{marker!r} in {country}'s Posture Box is not a Truce marker")
            )
            continue
        if not seasonal and marker in SEASONAL_ONLY:
            out.append(
                Violation(
                    "6.1.2",
                    index,
                    f"{marker} in {country}'s Posture Box reduced on a "
                    "Non-seasonal Turn; only Negotiation markers may be",
                )
            )
        if state.country(country).faction != affecting:
            out.append(Violation("6.1.2", index, f"{country} is not a {affecting} country"))
        if REDUCED_TO[marker] is not None:
            results.setdefault(country, []).append(str(REDUCED_TO[marker]))
    # Markers still on the board that were eligible but left alone (6.1.2: "all Truce markers").
    for name, country in state.countries.items():
        if country.faction != affecting:
            continue
        left = list(country.markers)
        for produced in results.get(name, []):
            if produced in left:
                left.remove(produced)
        for marker in left:
            eligible = marker in TRUCE_ORDER and (seasonal or marker not in SEASONAL_ONLY)
            if eligible:
                out.append(
                    Violation(
                        "6.1.2",
                        index,
                        f"{marker} in {name}'s Posture Box was not reduced; "
                        f"all Truce markers affecting the {affecting} faction "
                        "are reduced together",
                    )
                )
    return out


def _one_level_only(index: int, what: str) -> Violation:
    return Violation(
        "6.1.2", index, f"{what}; Truce markers are reduced by one level per War & Peace Segment"
    )


def validate_actions(state: GameState, pack: Pack) -> list[Violation]:
    """Each violation cites its rule; an action by a faction other than the phasing one breaks 6.1."""
    violations: list[Violation] = []
    reduced_for: set[Any] = set()  # 6.1.2: "by one level" -- once per faction per segment
    for index, action in enumerate(state.actions):
        kind = action.get("type") if isinstance(action, dict) else None
        faction = action.get("faction") if isinstance(action, dict) else None
        if faction != state.turn.phasing:
            violations.append(
                Violation(
                    "6.1",
                    index,
                    f"action by {faction}, but only the phasing faction "
                    f"({state.turn.phasing}) acts in its War & Peace Segment",
                )
            )
        if kind == "declare_war":
            violations.extend(_declare_war(state, pack, index, action))
        elif kind == "reduce_truce":
            violations.extend(_reduce_truce(state, pack, index, action))
            affecting = action.get("affecting")
            if affecting in reduced_for:
                violations.append(
                    _one_level_only(index, f"Truce markers affecting the {affecting} faction reduced again")
                )
            reduced_for.add(affecting)
        else:
            violations.append(
                Violation("6.1", index, f"unknown War & Peace action {kind!r} (declare_war or reduce_truce)")
            )
    # 6.1 order: Step 1 declarations, then Step 2 Truce reductions.
    seen_reduction = False
    for index, action in enumerate(state.actions):
        if not isinstance(action, dict):
            continue
        if action.get("type") == "reduce_truce":
            seen_reduction = True
        elif action.get("type") == "declare_war" and seen_reduction:
            violations.append(
                Violation(
                    "6.1",
                    index,
                    "war declared after Truce markers were reduced; Step 1 (declare war) comes before Step 2",
                )
            )
    return violations
