"""What a pack still lacks, for `adjutant pack check`: map facts per event, hex ids a module lacks.

Why its own module: the same counts feed the text and JSON of `pack check` and the editor's live
coverage (rules.facts.coverage underneath), and the hex-id check is shared with `pack scaffold --base`.
"""

from __future__ import annotations

from typing import Any

from bridge.mapping.mapper import VassalMapping
from rules.packs import Pack
from vassal_parser.module import Module


def coverage_report(pack: Pack, module_hexes: set[str] | None = None,
                    module_name: str = "") -> dict[str, Any]:
    """Per event and per declared need, the subjects the pack has / lacks the fact for (rules.facts);
    with the module's hex ids, a Capital on a hex the module lacks is missing, as in the editor."""
    from rules.facts import count_facts, coverage, trusted_facts

    lines = [line.to_json() for line in coverage(pack)]
    if module_hexes is not None:
        for data in lines:
            if data["fact"] == "capital":
                capitals_off_module(pack, data, module_hexes, module_name)
    counted = count_facts(lines)  # each fact of each subject once: the editor's count too (issue 38)
    return {"events": len(pack.events),
            "trusted_facts": trusted_facts(pack),
            "coverage": lines,
            "facts": counted.to_json(),
            "facts_missing": counted.missing,
            "incomplete": list(pack.incomplete),
            # Areas are named in text as the rules text names them ("Eastern Poland"), ids stay in JSON.
            "area_names": {a: info.name for a, info in sorted(pack.areas.items())}}


def capitals_off_module(pack: Pack, data: dict[str, Any], module_hexes: set[str], module_name: str) -> None:
    """A Capital located on a hex this module does not have (the base pack's France w3516 on another
    game's map) is not located here: it moves from `have` to `missing` of the capital coverage line
    (JSON form), with the reason under `notes`. Without any module hex (no grid could be drawn) there is
    nothing to tell a real hex from a missing one, and nothing moves."""
    from rules.facts import FACT_KINDS

    notes = data.setdefault("notes", {})
    if not module_hexes:
        return
    for country in list(data["have"]):
        hex_id = FACT_KINDS["capital"].lookup(pack, country)
        marked = [h for h, i in pack.hexes.items()
                  if i.country == country and i.capital and h in module_hexes]
        if isinstance(hex_id, str) and hex_id not in module_hexes and not marked:
            data["have"].remove(country)
            data["missing"].append(country)
            notes[country] = f"its Capital {hex_id} (from the pack's countries table) is not a hex of " \
                             f"module {module_name}: mark the Capital hex with K"


def module_hex_ids(module: Module, mapping: VassalMapping) -> set[str]:
    """Every pack hex id the module's maps have, through the pack's hex rules (as the editor draws them)."""
    from bridge.mapping.cells import module_cells

    cells = module_cells(module)
    out: set[str] = set()
    for map_def in module.maps:
        for cell in cells[map_def.identifier].cells:
            if cell.kind not in ("hex", "square"):
                continue
            for rule_map, pattern, template in mapping.hex_maps:
                if rule_map == map_def.identifier and pattern.fullmatch(cell.name):
                    out.add(template.replace("{location}", cell.name))
                    break
    return out


def pack_hex_ids(pack: Pack) -> dict[str, str]:
    """Every hex id the pack uses -> where it uses it first (hexes, capitals, border defense, areas)."""
    used: dict[str, str] = {h: "[hexes]" for h in pack.hexes}
    for name, country in pack.countries.items():
        if country.capital:
            used.setdefault(country.capital, f"capital of {name}")
    for area_id, area in pack.areas.items():
        if area.strategic_hex:
            used.setdefault(area.strategic_hex, f"strategic hex of {area_id}")
    for area_id, spec in pack.border_defense.items():
        for hex_id in spec.get("hexes", ()) or ():
            used.setdefault(str(hex_id), f"border hex of {area_id}")
    return used


def hex_id_report(pack: Pack, mapping: VassalMapping, module: Module) -> dict[str, Any]:
    """Does every hex id the pack uses name a real location of this module (through its hex rules)?

    Why: a pack whose ids are another module's numbering maps no counter to its Cities, and every
    event reading them would decide on nothing. Ids on a map whose cells cannot be enumerated (a
    board without an image or size) are `unverified`, not wrong."""
    from bridge.mapping.cells import module_cells

    used = pack_hex_ids(pack)
    cells = module_cells(module)
    names = {map_id: found.names() for map_id, found in cells.items()}
    not_found: dict[str, str] = {}
    unverified: dict[str, str] = {}
    verified = 0
    for hex_id, why in sorted(used.items()):
        candidates = _locations_for(hex_id, mapping)
        if not candidates:
            not_found[hex_id] = f"{why}: no [[vassal.places.hexes]] rule can give this id"
        elif any(location in names.get(map_id, ()) for map_id, location in candidates):
            verified += 1
        elif all(not cells[m].cells and cells[m].problems for m, _loc in candidates if m in cells):
            unverified[hex_id] = f"{why}: the cells of map {candidates[0][0]} cannot be enumerated"
        else:
            maps = ", ".join(sorted({m for m, _loc in candidates}))
            not_found[hex_id] = f"{why}: no location {candidates[0][1]!r} on map {maps}"
    return {"checked": len(used), "verified": verified, "not_in_module": not_found, "unverified": unverified}


def _locations_for(hex_id: str, mapping: VassalMapping) -> list[tuple[str, str]]:
    """(map, location) pairs whose hex rule would turn that location into `hex_id`."""
    out = []
    for map_id, pattern, template in mapping.hex_maps:
        if template.count("{location}") != 1:
            continue
        prefix, suffix = template.split("{location}")
        if hex_id.startswith(prefix) and hex_id.endswith(suffix):
            location = hex_id[len(prefix):len(hex_id) - len(suffix)]
            if location and pattern.fullmatch(location):
                out.append((map_id, location))
    return out


def country_report(pack: Pack, mapping: VassalMapping, module: Module,
                   coverage: dict[str, Any]) -> dict[str, Any]:
    """Which of the module's hexes the pack locates, per country, with the facts each country lacks;
    the game facts the plan will ask; the tracks and whether their geometry was checked.

    Why per country: a pack for a real map is completed country by country (issue 25: the AWAW pack's
    265-hex sample must say plainly how much of the A3R map it covers)."""
    from bridge.mapping.cells import module_cells
    from bridge.mapping.game_facts import fact_table

    cells = module_cells(module)
    module_hexes: set[tuple[str, str]] = set()
    for map_id, pattern, _template in mapping.hex_maps:
        found = cells.get(map_id)
        if found is not None:
            module_hexes.update((map_id, name) for name in found.names() if pattern.fullmatch(name))
    located: dict[str, list[str]] = {}
    for hex_id, info in sorted(pack.hexes.items()):
        if any(place in module_hexes for place in _locations_for(hex_id, mapping)):
            located.setdefault(info.country or "(no country)", []).append(hex_id)
    lacking: dict[str, list[str]] = {}
    for line in coverage.get("coverage", []):
        if line.get("per") == "country":
            for subject in line["missing"]:
                lacking.setdefault(subject, []).append(f"{line['label']} ({line['rule']})")
    countries = {}
    for name in sorted(set(pack.countries) | set(located)):
        hexes = located.get(name, [])
        missing = list(lacking.get(name, []))
        if not hexes:
            missing.append("no hex of the module located")
        countries[name] = {"hexes_located": len(hexes), "missing": missing}
    facts = fact_table(pack)
    return {
        "module_hexes": len(module_hexes),
        "located": sum(len(v) for v in located.values()),
        "countries": countries,
        "game_facts": [{"name": f.name, "rules": list(f.rules), "asked_again": f.asked_again}
                       for f in facts.facts.values()],
        "tracks": [{"name": t.name, "map": t.map, "board": t.board, "boxes": len(t.boxes),
                    "verified": t.verified, "note": t.note} for t in mapping.tracks.tracks],
    }


def render_countries(report: dict[str, Any]) -> list[str]:
    lines = [f"module hexes the pack locates: {report['located']} of {report['module_hexes']} "
             f"(the rest have no pack hex: counters there are unmapped places)"]
    lines.append("per country (hexes of the module located; facts missing):")
    for name, entry in report["countries"].items():
        missing = f"; missing: {', '.join(entry['missing'])}" if entry["missing"] else ""
        lines.append(f"  {name}: {entry['hexes_located']}{missing}")
    if report["game_facts"]:
        lines.append("game facts no save carries, asked in the plan until given:")
        lines += [f"  {f['name']} ({', '.join(f['rules'])}; asked again: {f['asked_again']})"
                  for f in report["game_facts"]]
    for track in report["tracks"]:
        why = track["note"] or "not checked against the board"
        checked = "" if track["verified"] else f" UNVERIFIED: {why}"
        lines.append(f"track {track['name']}: {track['boxes']} boxes on {track['map']}"
                     f"{' / ' + track['board'] if track['board'] else ''}{checked}")
    return lines


def _fact_label(fact: str) -> str:
    from rules.facts import FACT_KINDS

    kind = FACT_KINDS.get(fact)
    return f"{kind.label} ({fact})" if kind else fact


# Facts every country of the game has, so that "the pack says it has none" is worth a second look (a City
# flag lost from a pack that claims its Cities complete); a Port or Strategic Hex may truly be none.
NOTEWORTHY_NONE = frozenset({"city_hexes", "capital", "country_hexes", "area_hexes"})
PER_WORDS = {"country": ("country", "countries"), "area": ("area", "areas")}


def render_coverage(report: dict[str, Any]) -> list[str]:
    """'16.1.1 City hexes: 14 of 31 countries' per event and need, the subjects lacking it, the notes."""
    if not report.get("events", 1):
        return ["the pack lists no events: it decides nothing (start it with pack scaffold --base tk or ds)",
                *(f"  - {note}" for note in report["incomplete"])]
    from rules.facts import FactCount

    counted = FactCount(**report["facts"])
    lines = [f"map facts the events need (each counted once): {counted.text()}"]
    if report.get("trusted_facts"):
        lines.append("  trusted, not located (no [complete] entry names them; what the pack locates of them "
                     "is taken as the whole fact): "
                     + ", ".join(_fact_label(f) for f in report["trusted_facts"]))
    if not report["coverage"]:
        lines.append("  (no event declares the facts it needs)")
    names = report.get("area_names", {})
    for line in report["coverage"]:
        shown = (lambda s: names.get(s, s)) if line["per"] == "area" else (lambda s: s)
        have, lack = [shown(s) for s in line["have"]], [shown(s) for s in line["missing"]]
        total = len(have) + len(lack)
        one, many = PER_WORDS.get(line["per"], (line["per"], line["per"] + "s"))
        word = one if total == 1 else many
        lines.append(f"  {line['rule']} {line['label']}: {len(have)} of {total} {word}")
        trusted = {shown(s) for s in line.get("trusted", [])}
        none = {shown(s) for s in line.get("none", [])}
        confirmed = [s for s in have if s not in trusted and s not in none]
        if confirmed:
            lines.append(f"    present: {', '.join(confirmed)}")
        if trusted:
            lines.append(f"    trusted, not confirmed: {', '.join(s for s in have if s in trusted)}")
        if none and line["fact"] in NOTEWORTHY_NONE:
            lines.append(f"    none (the pack lists none and says that is all): "
                         f"{', '.join(s for s in have if s in none)}")
        if lack:
            lines.append(f"    missing: {', '.join(lack)}")
        for subject, note in sorted((line.get("notes") or {}).items()):
            lines.append(f"    {shown(subject)}: {note}")
    if report["incomplete"]:
        lines.append("the pack says it is incomplete:")
        lines += [f"  - {note}" for note in report["incomplete"]]
    return lines
