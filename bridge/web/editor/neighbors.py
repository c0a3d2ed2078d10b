"""The editor's "neighbouring countries" of each country: the list shown, checked and written back.

Why a control of its own (issue 38): the fact is a list of countries, not hexes, so marking the map
cannot give it; a scaffolded pack inherits the base pack's lists, and the player must see that list
before a ✓ confirms it, and change it where the module's map differs. Saving writes only what
differs from the base pack (`[countries.X] neighbors`), so a later fix to the base still reaches the
countries the player left alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import tomlkit

MAX_NEIGHBOURS = 200


class NeighbourError(ValueError):
    """A list the page must not send (a name not of the pack); the session turns it into an EditError."""


def check_neighbours(country: Any, listed: Any, countries: Iterable[str], pack_name: str,
                     subjects: Iterable[str] | None = None, what: str = "a country") -> list[str]:
    """The list as the pack will hold it: countries of the pack, never the subject itself, each once.
    `subjects` are those that may have a list (the countries, or the areas for a region's list)."""
    known = set(countries)
    if not isinstance(country, str) or country not in (known if subjects is None else set(subjects)):
        raise NeighbourError(f"{country!r} is not {what} of pack {pack_name}")
    if not isinstance(listed, list) or len(listed) > MAX_NEIGHBOURS:
        raise NeighbourError(f"neighbours are a list of at most {MAX_NEIGHBOURS} countries")
    out: list[str] = []
    for name in listed:
        if not isinstance(name, str) or name not in known:
            raise NeighbourError(f"{name!r} is not a country of pack {pack_name}")
        if name == country:
            raise NeighbourError(f"{country} is not its own neighbour")
        if name not in out:
            out.append(name)
    return out


def base_neighbours(inherited: dict[str, Any], table: str = "countries") -> dict[str, list[str]]:
    """The base pack's lists (its raw `countries` or `areas` table), to show what a pack inherits."""
    out: dict[str, list[str]] = {}
    for name, entry in (inherited.get(table) or {}).items():
        if isinstance(entry, dict):
            out[name] = [str(n) for n in entry.get("neighbors", []) or []]
    return out


def write_neighbours(doc: Any, lists: dict[str, list[str]], base: dict[str, list[str]],
                     changed: Iterable[str], table_name: str = "countries") -> None:
    """Each changed list into the pack's own `[countries]` (or `[areas]`), only where it differs from the
    base pack's."""
    if table_name not in doc:
        doc.add(table_name, tomlkit.table(is_super_table=True))
    table = doc[table_name]
    for country in sorted(changed):
        value = lists.get(country, [])
        entry = table.get(country)
        if country in base and base[country] == value:
            if entry is not None and "neighbors" in entry:
                del entry["neighbors"]
                if not entry:
                    del table[country]
            continue
        if entry is None:
            entry = tomlkit.table()
            table[country] = entry
        entry["neighbors"] = value
    if not table:  # every list back to the base's: no empty [countries] left behind
        del doc[table_name]
