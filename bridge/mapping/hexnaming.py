"""How a module names its hexes, read from its own grids: the basis of `pack scaffold --base`.

Why detect rather than ask: a pack's hex ids (TK's `w3516`) and a module's location names (`w3516`, or a
bare `3516` on the West board) must meet through `[[vassal.places.hexes]]` rules, and the module's
numbering (location format, per-board prefixes) says exactly which rule turns one into the other. The
scaffold writes those rules and states what it found, with how many base ids name a real location.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from rules.packs import Pack
from vassal_parser import grids
from vassal_parser.module import Module


def location_pattern(formats: Iterable[str]) -> str:
    """A regex for the names a map's grids produce: the numbering's format with `$...$` as wildcards."""
    alternatives = []
    for fmt in sorted(set(formats)):
        parts = re.split(r"\$[^$]*\$", fmt)
        alternatives.append(".+".join(re.escape(p) for p in parts))
    return alternatives[0] if len(alternatives) == 1 else "(" + "|".join(alternatives) + ")"


def grid_summary(grid: grids.Grid | None) -> tuple[str, list[str], list[str]]:
    """(description, numbering formats, zone names) of a board's grid."""
    if grid is None:
        return "no grid", [], []
    kind = type(grid).__name__
    numbering = getattr(grid, "numbering", None)
    formats = [numbering.location_format] if numbering is not None else []
    zones: list[str] = []
    if isinstance(grid, grids.ZonedGrid):
        for zone in grid.zones:
            zones.append(zone.name)
            inner = zone.grid or (grid.background if zone.use_parent_grid else None)
            inner_numbering = getattr(inner, "numbering", None)
            if inner_numbering is not None and "$gridLocation$" in zone.location_format:
                formats.append(zone.location_format.replace("$name$", zone.name).replace(
                    "$gridLocation$", inner_numbering.location_format))
        background = getattr(grid.background, "numbering", None)
        if background is not None:
            formats.append(background.location_format)
        kind += f" ({len(grid.zones)} zones)"
    if isinstance(grid, grids.RegionGrid):
        kind += f" ({len(getattr(grid, 'regions', []) or [])} regions)"
    return kind, formats, zones


@dataclass
class HexRule:
    """One `[[vassal.places.hexes]]` rule the scaffold writes: a location pattern and its id template."""

    pattern: str
    template: str  # "{location}" or e.g. "w{location}"
    boards: list[str]


@dataclass
class HexNaming:
    """How one map names its hexes, and the rules that turn those names into the base pack's ids."""

    map_id: str
    boards: list[tuple[str, str, list[str]]]  # (board, location format, sample names)
    rules: list[HexRule]
    base_name: str
    base_hits: int  # base pack hex ids that name a location of this map through the rules
    base_total: int
    notes: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = []
        for rule in self.rules:
            how = ("hex ids are the location names themselves" if rule.template == "{location}" else
                   f"hex id = {rule.template.replace('{location}', '')!r} + location name")
            out.append(f"map {self.map_id}, board {', '.join(rule.boards)}: {how}")
        for board, fmt, sample in self.boards:
            shown = ", ".join(sample[:3]) + (" ..." if len(sample) > 3 else "")
            out.append(f"board {board}: location format {fmt!r}, names like {shown or '(none)'}")
        out += self.notes
        out.append(f"{self.base_hits} of the {self.base_total} {self.base_name} hex ids name a location "
                   f"of this map")
        return out


def _numbering_regex(numbering: Any) -> str:
    """The names a board's numbering gives: its location format with `$gridLocation$`, `$row$` and
    `$column$` as the numbering's parts (digits or capitals), any other property as `.+`."""
    def part(kind: str) -> str:
        return "-?[A-Z]+" if kind == "A" else "-?[0-9]+"

    grid_location = (part(numbering.h_type) + re.escape(numbering.sep) + part(numbering.v_type)
                     if numbering.first == "H" else
                     part(numbering.v_type) + re.escape(numbering.sep) + part(numbering.h_type))
    pieces = re.split(r"(\$[^$]*\$)", numbering.location_format)
    known = {"$gridLocation$": grid_location, "$row$": part(numbering.v_type),
             "$column$": part(numbering.h_type)}
    return "".join(known.get(p, ".+") if p.startswith("$") and p.endswith("$") and len(p) > 1
                   else re.escape(p) for p in pieces)


def _board_format(grid: grids.Grid | None) -> str:
    numbering = getattr(grid, "numbering", None)
    if numbering is not None:
        return str(numbering.location_format)
    if isinstance(grid, grids.ZonedGrid):
        return "; ".join(sorted({z.location_format for z in grid.zones})) or "zones"
    return "none"


def _id_prefix(hex_id: str) -> str:
    """The letters before a hex id's number: 'w' of w3516 (AE's West and East maps)."""
    match = re.match(r"[^0-9]*", hex_id)
    return match.group(0) if match else ""


def _best_template(names: set[str], base_ids: list[str]) -> tuple[str, int]:
    """The id template turning most of these names into base ids: as they are, or with a prefix."""
    hits = {"{location}": sum(1 for h in base_ids if h in names)}
    for prefix in sorted({_id_prefix(h) for h in base_ids} - {""}):
        hits[prefix + "{location}"] = sum(1 for h in base_ids if h.startswith(prefix)
                                          and h[len(prefix):] in names)
    template = max(hits, key=lambda t: (hits[t], t == "{location}"))
    return (template, hits[template]) if hits[template] else ("{location}", 0)


def detect_hex_naming(module: Module, base: Pack) -> list[HexNaming]:
    """Per numbered map and board: the module's own location names (from its grids) against the base
    pack's ids.

    A board whose names already are the base's ids (`w3516`, format `w$gridLocation$`) maps as
    `{location}`; a board of bare names (`3516`) takes the base ids' prefix that turns most of its
    names into base ids (`w{location}`), so AE's West and East boards may differ. Boards are told
    apart by their own location format (pattern). When nothing matches, names are the ids."""
    from bridge.mapping.cells import map_cells

    base_ids = sorted(base.hexes)
    found: list[HexNaming] = []
    named: set[str] = set()
    for map_def in module.maps:
        if not any(grid_summary(b.grid)[1] for b in map_def.boards):
            continue
        cells = map_cells(map_def)
        boards, rules, notes = [], [], []
        numbered = []
        for board in map_def.boards:
            sample = sorted({c.name for c in cells.cells
                             if c.board == board.name and c.kind in ("hex", "square")})
            boards.append((board.name, _board_format(board.grid), sample))
            _kind, formats, _zones = grid_summary(board.grid)
            if formats:
                numbered.append((board, formats, sample))
        # Boards whose names already are base ids claim those ids first; a board of bare names then
        # takes the prefix that turns its names into the ids still unclaimed (West after East).
        def direct_hits(item: tuple[Any, list[str], list[str]]) -> int:
            template, hits = _best_template(set(item[2]), base_ids)
            return hits if template == "{location}" else 0

        numbered.sort(key=direct_hits, reverse=True)
        unclaimed = list(base_ids)
        by_key: dict[tuple[str, str], HexRule] = {}
        for board, formats, sample in numbered:
            numbering = getattr(board.grid, "numbering", None)
            pattern = _numbering_regex(numbering) if numbering is not None else location_pattern(formats)
            template, _hits = _best_template(set(sample), unclaimed)
            prefix = template[:-len("{location}")]
            unclaimed = [h for h in unclaimed if not (h.startswith(prefix) and h[len(prefix):] in sample)]
            key = (pattern, template)
            if key in by_key:
                by_key[key].boards.append(board.name)
                continue
            clash = [r for r in rules if r.pattern == pattern]
            if clash:
                notes.append(f"boards {', '.join(clash[0].boards)} and {board.name} name their hexes "
                             f"alike (as VASSAL shows them too): the rule for {board.name} is never reached")
            by_key[key] = HexRule(pattern, template, [board.name])
            rules.append(by_key[key])
        rules.sort(key=lambda r: r.template == "{location}")  # prefixed (more specific) rules first
        names = cells.names()
        hits = 0
        for hex_id in base_ids:
            for rule in rules:
                prefix = rule.template[:-len("{location}")]
                location = hex_id[len(prefix):] if hex_id.startswith(prefix) else None
                if location and location in names and re.fullmatch(rule.pattern, location):
                    hits += 1
                    named.add(hex_id)
                    break
        if rules and hits == 0:
            notes.append("the module's names match none of the base pack's hex ids: "
                         "ids are the names themselves")
        found.append(HexNaming(map_def.identifier, boards, rules, base.name, hits, len(base_ids), notes))
    unnamed = len(base_ids) - len(named)
    if found and named and unnamed:
        # A real edition's module names every hex its rules text names; a partial match may be chance.
        found[-1].notes.append(f"{unnamed} {base.name} hex ids name no location of this module: check on the "
                               "printed map that this numbering is the game's before trusting it")
    return found
