"""Questions about the map that need both the pack (static) and the position (dynamic).

Why here and not in the pack: which country a hex belongs to changes during play — a Ceded Land
marker in the Ceded Lands Box moves its area to another country (16.1.1 Step 4), an Ostland region
becomes a German Dependent (16.2.2 Step 3), a Reich Annex makes Poland part of Germany (16.7 example).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from rules.packs import AreaInfo, Pack, areas_covering
from rules.state import CEDED_LANDS, Counter, CountryState, GameState, is_box

ENEMY_OF: dict[str, frozenset[str]] = {
    "Axis": frozenset({"Western", "Soviet"}),
    "Western": frozenset({"Axis"}),
    "Soviet": frozenset({"Axis"}),
}
PRESENCE_KINDS = frozenset(
    {"ground", "hq", "fortress", "port_a_fort", "air", "naval", "support", "detachment", "logistics"}
)


class Board:
    """A read-only view joining a position and its pack; rebuilt cheaply whenever the position changes."""

    def __init__(self, state: GameState, pack: Pack) -> None:
        self.state = state
        self.pack = pack

    # ---- territory ---------------------------------------------------------------------------
    def ceded_area_active(self, area: AreaInfo, ceded: frozenset[str] | None = None) -> bool:
        """An area is ceded while a marker for it sits in the Ceded Lands Box (TK 16.1.1 Step 4, DS Step 3).

        `ceded`: the areas `ceded_areas` gave for this position, when the caller asks for many hexes."""
        if ceded is not None:
            return area.id in ceded
        return any(
            c.kind == "ceded_land" and c.area == area.id and c.location == CEDED_LANDS
            for c in self.state.counters.values()
        )

    def ceded_areas(self) -> frozenset[str]:
        """The areas whose Ceded Land marker is in the Ceded Lands Box now (see `ceded_area_active`)."""
        return frozenset(c.area for c in self.state.counters.values()
                         if c.kind == "ceded_land" and c.location == CEDED_LANDS and c.area is not None)

    def political_country(self, hex_id: str, ceded: frozenset[str] | None = None) -> str:
        """The country (or Dependent) the hex counts as part of right now: a ceded area's receiver, and an
        annexed country's annexer (16.7 example: after a Reich Annex, Krakow is in Germany)."""
        info = self.pack.hex(hex_id)
        here = info.country
        # Every marker covering the hex's area (its own, and any `hexes_of` it: DS 16.2.6 Step 4).
        for area in areas_covering(self.pack, info.area):
            if area.ceded_to is not None and self.ceded_area_active(area, ceded):
                here = area.name if area.dependent else area.ceded_to
                break
        return self.annexer(here)

    def annexer(self, country: str) -> str:
        """The country an annexed country is part of (`annexed_to`, followed); itself when not annexed."""
        seen: set[str] = set()
        while country not in seen:
            seen.add(country)
            listed = self.state.countries.get(country)
            if listed is None or not listed.annexed_to:
                break
            country = listed.annexed_to
        return country

    def home_of(self, country: str) -> str:
        """The home country a Dependent or annexed country belongs to (itself for a home country)."""
        seen: set[str] = set()
        while country not in seen:
            seen.add(country)
            dynamic = self.state.countries.get(country)
            if dynamic is not None and dynamic.annexed_to:
                country = dynamic.annexed_to
                continue
            if dynamic is not None and dynamic.dependent_of:
                country = dynamic.dependent_of
                continue
            area = next((a for a in self.pack.areas.values() if a.dependent and a.name == country), None)
            if area is not None and area.ceded_to:
                country = area.ceded_to
                continue
            info = self.pack.countries.get(country)
            if info is not None and info.dependent_of:
                country = info.dependent_of
                continue
            break
        return country

    def country_state(self, name: str) -> CountryState:
        """The country's dynamic state, never invented: a Dependent the position leaves out shares its home
        country's alignment (pack `dependent_of`, e.g. Korea -> Japan), so 16.7 never reads it as a
        Neutral Country; any other unlisted country is Neutral. Nothing is stored."""
        listed = self.state.countries.get(name)
        if listed is not None:
            return listed
        home = self.home_of(name)
        if home != name:
            return self.country_state(home)
        return self.state.country(name)

    def is_minor_country(self, name: str) -> bool:
        """A Minor Country (pack `kind = "minor"`), the only kind conquest (16.1.1), occupation (16.1.2),
        reactivation and liberation (16.3.1/16.3.2, 16.5.1/16.5.2) and Influence (15.19) act on.

        A Dependent (`kind = "dependent"`, e.g. DS New Caledonia, TK Syria) is not one, unless the position
        makes it its own country (`dependent_of` = itself: TK 16.2.1 Step 4 creates Syria as a Neutral
        Country)."""
        info = self.pack.countries.get(name)
        if info is None:
            return False
        listed = self.state.countries.get(name)
        if listed is not None and listed.annexed_to:
            return False  # annexed: part of another country, no Minor Country while it lasts (16.7 example)
        if info.kind == "minor":
            return True
        return info.kind == "dependent" and listed is not None and listed.dependent_of == name

    # ---- Posture Boxes ---------------------------------------------------------------------------
    def shared_posture_box(self, country: str, as_faction: str | None = None) -> str | None:
        """The shared Posture Box whose markers are `country`'s (pack `[posture_boxes]`), else None.

        Why: DS prints shared boxes -- "US and Western Minors" (16.4.3 Step 1, 16.3.8 Step 3), "Soviet
        Minors" (16.6.2 Step 1) -- whose Policy/Truce markers affect every Country in them. A box lists its
        `countries`, and/or `minors_of` a faction (its Minor Countries, `except` the ones named)."""
        aligned = as_faction or self.country_state(country).faction
        for name, spec in self.pack.extra.get("posture_boxes", {}).items():
            if country in spec.get("countries", ()):
                return str(name)
            faction = spec.get("minors_of")
            if faction and country not in spec.get("except", ()) and self.is_minor_country(country) \
                    and aligned == faction:
                return str(name)
        return None

    def posture_markers(self, country: str, as_faction: str | None = None) -> list[str]:
        """The Policy/Truce markers in `country`'s Posture Box: its shared box's, else its own. With
        `as_faction`, the box it would be in as that faction's Minor (16.3.1/16.5.1 "its corresponding
        Posture Box" when reactivated as a Western / Soviet Minor)."""
        if as_faction is not None:
            box = self.shared_posture_box(country, as_faction)
            return list(self.state.posture_boxes.get(box, [])) if box is not None else \
                list(self.country_state(country).markers)
        box = self.shared_posture_box(country)
        if box is not None:
            return list(self.state.posture_boxes.get(box, []))
        return list(self.country_state(country).markers)

    def in_country(self, hex_id: str, country: str, dependents: bool = False,
                   ceded: frozenset[str] | None = None) -> bool:
        """Is the hex in `country` (annexed lands included) — or, with `dependents`, one of its Dependents?"""
        return self._counts_as(self.political_country(hex_id, ceded), country, dependents)

    def _counts_as(self, here: str, country: str, dependents: bool) -> bool:
        """Whether a hex that is politically part of `here` is in `country` (see `in_country`)."""
        if here == country:
            return True
        dynamic = self.state.countries.get(here)
        if dynamic is not None and dynamic.annexed_to == country:
            return True
        return dependents and self.home_of(here) == country

    def country_hexes(self, country: str, dependents: bool = False) -> list[str]:
        """Every pack hex `in_country`, in pack order.

        Why not hex by hex: whether a hex is in the country depends only on its pack country and
        area (`political_country`: the ceded areas covering it, the annexations), and the position
        does not change during this call; so the ceded areas are found once and each (country,
        area) pair is decided once (a third of the engine's work on the demo's first save)."""
        ceded = self.ceded_areas()
        decided: dict[tuple[str, str | None], bool] = {}
        found = []
        for hex_id, info in self.pack.hexes.items():
            pair = (info.country, info.area)
            inside = decided.get(pair)
            if inside is None:
                inside = decided[pair] = self._counts_as(self.political_country(hex_id, ceded), country,
                                                         dependents)
            if inside:
                found.append(hex_id)
        return found

    def cities(self, country: str, dependents: bool = False) -> list[str]:
        return [h for h in self.country_hexes(country, dependents) if self.pack.hex(h).city]

    def area_hexes(self, area_id: str) -> list[str]:
        """The hexes an area's marker moves (its own, or those of the area it is `hexes_of`)."""
        area = self.pack.areas.get(area_id)
        own = area.hexes_of if area is not None and area.hexes_of else area_id
        return [h for h, info in self.pack.hexes.items() if info.area == own]

    def capital(self, country: str) -> str | None:
        info = self.pack.countries.get(country)
        return info.capital if info else None

    # ---- counters ----------------------------------------------------------------------------
    def faction_of(self, counter: Counter) -> str | None:
        if counter.faction is not None:
            return counter.faction
        if counter.nationality is None:
            return None
        faction = self.country_state(counter.nationality).faction
        return None if faction == "Neutral" else faction

    def hex_of(self, counter: Counter) -> str | None:
        """The map hex a counter is in; units in a Holding Box are where their multi-national unit is."""
        location = counter.location
        for _ in range(4):
            if location.startswith("holding:"):
                holder = self.state.counters.get(location.split(":", 1)[1])
                if holder is None:
                    return None
                location = holder.location
            else:
                break
        return None if is_box(location) else location

    def counters_in_hex(self, hex_id: str) -> list[Counter]:
        return [c for c in self.state.counters.values() if c.location == hex_id]

    def counters_in_country(self, country: str, dependents: bool = False) -> list[Counter]:
        return [
            c
            for c in self.state.counters.values()
            if not is_box(c.location)
            and c.location in self.pack.hexes
            and self.in_country(c.location, country, dependents)
        ]

    def ground_units(self, hex_id: str, pred: Callable[[Counter], bool] | None = None) -> list[Counter]:
        return [c for c in self.counters_in_hex(hex_id) if c.is_ground and (pred is None or pred(c))]

    def faction_ground_units(self, hex_id: str, faction: str) -> list[Counter]:
        return self.ground_units(hex_id, lambda c: self.faction_of(c) == faction)

    def enemy_presence(self, hex_id: str, friendly: str) -> list[Counter]:
        """Enemy units, Detachments or Logistics markers in the hex (16.3.1, 16.1.1 France Step 2)."""
        enemies = ENEMY_OF.get(friendly, frozenset())
        return [
            c
            for c in self.counters_in_hex(hex_id)
            if c.kind in PRESENCE_KINDS and self.faction_of(c) in enemies
        ]

    def nationals(self, country: str, locations: Iterable[str] | None = None) -> list[Counter]:
        wanted = set(locations) if locations is not None else None
        return [
            c
            for c in self.state.counters.values()
            if c.nationality == country and (wanted is None or c.location in wanted)
        ]

    def ground_steps(self, hex_ids: Iterable[str], pred: Callable[[Counter], bool]) -> int:
        return sum(c.steps for h in hex_ids for c in self.ground_units(h, pred))
