"""Errata and open readings of the rules text, as a pack records them, and the note a plan shows.

Why a shared module: where the rules text contradicts itself (an erratum) or leaves a question open (a
reading), the pack records the readings, the one used and the option that switches it
(`[errata.<key>]` / `[readings.<key>]`, `[options] <key> = "<reading>"`; docs/pack-format.md). Every
Step that applies such a reading must say so in the plan -- which reading, the alternatives, the option
-- so a player can see and switch it (docs/plan-format.md, "errata"). Events call
`EventContext.erratum(key, step)`, which reads the pack through `reading_of` here and records an
`rules.plan.ErratumNote` on the event. Any edition (TK, DS, AWAW) uses the same tables and call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vassal_parser.errors import InputError

if TYPE_CHECKING:
    from rules.packs import Pack

KINDS = ("errata", "readings")  # pack tables: the text contradicts itself / leaves the wording open


def entry_of(pack: Pack, key: str) -> tuple[str, dict[str, Any]]:
    """The pack's `[errata.<key>]` (kind "errata") or `[readings.<key>]` table; missing -> InputError."""
    for kind in KINDS:
        table = pack.extra.get(kind, {}).get(key)
        if table is not None:
            return kind, table
    raise InputError(pack.path, f"no errata/readings entry {key!r} in pack {pack.name}")


def reading_of(pack: Pack, key: str) -> str:
    """The reading the pack uses: its `[options]` override, else the entry's `used`; checked legal."""
    _, table = entry_of(pack, key)
    chosen = pack.extra.get("options", {}).get(key, table.get("used"))
    readings = table.get("readings", {})
    if chosen not in readings:
        legal = ", ".join(readings)
        raise InputError(pack.path, f"options.{key} = {chosen!r} is not one of its readings ({legal})")
    return str(chosen)


def option_text(key: str) -> str:
    """How a user switches the reading: the pack's `[options]` table (errata.toml or pack.toml)."""
    return f'[options] {key} = "<reading>"'
