"""16.3.8 The West Rises and 16.5.5 The East Rises: a surrendered Allied Country goes back to war
when Japan leaves a City of a Dependent it gained ungarrisoned.

Why data-driven steps: the two events are the same two bullets applied to different Dependent
markers, Posture boxes and Current Cards; the pack lists them per Step (rules/packs/ds/events.toml).
"""

from __future__ import annotations

from typing import Any

from rules.engine import EventContext, event_impl
from rules.errata import reading_of
from rules.events.common import place_name, unguarded_cities
from rules.events.ds.settlements import remove_posture_markers
from rules.state import CEDED_LANDS, force_pool


def _ignored_by_card(ctx: EventContext, step: dict[str, Any]) -> str | None:
    """16.3.8 / 16.5.5 Steps 1-2: 'Ignore this step if the ... Current Card is card ...'."""
    for faction, card in step.get("ignore_if_cards", {}).items():
        if ctx.state.turn.current_cards.get(faction) == card:
            title = ctx.pack.cards[card].title if card in ctx.pack.cards else card
            return f"the {faction} Current Card is card {card} {title}"
    return None


def _card_errata(ctx: EventContext, step: dict[str, Any], label: str) -> None:
    """The errata behind this Step's card test (pack `errata`, e.g. card_29: which deck's card 29), shown
    where the test decides something: the Step is ignored, or it acts."""
    for key in step.get("errata", []):
        ctx.erratum(str(key), label)


def _areas(ctx: EventContext, step: dict[str, Any], label: str) -> list[str]:
    """The Step's Dependent areas; an erratum reading may add some (`reading_areas`), shown in the plan
    whenever one of those markers is in the Ceded Lands Box (where the reading changes the Step)."""
    areas = list(step["areas"])
    for key, value, extra in step.get("reading_areas", []):
        in_box = any(c.kind == "ceded_land" and c.area in extra and c.location == CEDED_LANDS
                     for c in ctx.state.counters.values())
        chosen = ctx.erratum(key, label) if in_box else reading_of(ctx.pack, key)
        if chosen == value:
            areas.extend(extra)
    return [a for a in areas if a in ctx.pack.areas]


def _rises_step(ctx: EventContext, label: str, step: dict[str, Any], japan: str,
                surrender_markers: list[str]) -> None:
    """DS 16.3.8 The West Rises / 16.5.5 The East Rises, one Step (`label`): ignored on the named
    Current Cards, else the first bullet (the Country may go back to War) then the second (at War,
    its Japanese Dependent markers leave the Ceded Lands Box)."""
    ignored = _ignored_by_card(ctx, step)
    if ignored:
        _card_errata(ctx, step, label)
        ctx.why(f"{label} ignored: {ignored}")
        return
    country = step["country"]
    areas = _areas(ctx, step, label)
    # First bullet: the surrendered Country may go back to War. Already at War, there is no Surrender
    # to end and nothing to choose: go straight to the second bullet (docs/ds-notes.md).
    already_at_war = ctx.state.country(country).posture == "War"
    for area_id in [] if already_at_war else areas:
        # "has become a Japanese Dependent and a City in it does not contain a Japanese unit, ..."
        free = unguarded_cities(ctx, [area_id], japan)
        if not free:
            if ctx.board.ceded_area_active(ctx.pack.areas[area_id]):
                ctx.need("area_city_hexes", area_id)  # unknown Cities might be unguarded (issue 9)
            continue
        city = free[0]
        # Its Posture Box: its own, or the shared "US and Western Minors" box (16.3.8 Step 3).
        surrender = [m for m in ctx.board.posture_markers(country) if m in surrender_markers]
        box = ctx.board.shared_posture_box(country)
        box_name = f"the {box}" if box else f"{country}'s"
        _card_errata(ctx, step, label)
        ctx.fire(f"{label}: {ctx.pack.areas[area_id].name} is a Japanese Dependent and its City "
                 f"{place_name(ctx.pack, city)} holds no Japanese unit, Detachment or Logistics marker")
        answer = ctx.choose(f"{label.lower().replace(' ', '')}:war", step["decider"],
                            f"Remove the Surrender marker from {box_name} Posture Box and change "
                            "its Posture to War?", ["yes", "no"])
        if answer == "yes":
            remove_posture_markers(ctx, country, surrender, label, posture="War")
        break
    # Second bullet: at War, the Japanese Dependent markers go.
    posture = ctx.state.country(country).posture
    if posture != "War":
        ctx.why(f"{label}: {country}'s Posture is {posture or 'not set'}, not War")
        return
    present = [c for c in ctx.state.counters.values()
               if c.kind == "ceded_land" and c.area in areas and c.location == CEDED_LANDS]
    if not present:
        ctx.why(f"{label}: {country} is at War; no Japanese Dependent marker of its to remove")
        return
    _card_errata(ctx, step, label)
    ctx.fire(f"{label}: {country}'s Posture is War")
    for marker in sorted(present, key=lambda c: c.id):
        faction = ctx.pack.areas[marker.area].marker_faction or "Axis"
        ctx.move(marker, force_pool(faction), label, subject=country,
                 why="removed from the Ceded Lands Box; the area returns to its original Country")


@event_impl("ds_rises")
def rises(ctx: EventContext) -> None:
    """Perform the pack's Steps in order; each Step's bullets are checked separately (16.3.8/16.5.5).

    "Japanese" is the pack param `major`; which Posture Box markers are "the Surrender marker" is
    `surrender_markers` (docs/ds-notes.md: "Surrender" or "Surrender Policy")."""
    japan, surrender_markers = ctx.require_param("major"), list(ctx.require_param("surrender_markers"))
    for index, step in enumerate(ctx.require_param("steps"), start=1):
        _rises_step(ctx, f"Step {index}", step, japan, surrender_markers)
    if not ctx.fired:
        ctx.not_due("no Step's conditions hold")
