"""`adjutant pack scaffold MODULE -o DIR` and `adjutant pack check PACK --module MODULE [--save FILE]`.

Why these two: completing a pack for a real module is the user's job, so Adjutant writes the
starting point (every map, board, grid, zone and piece of the module, as TOML comments and rules to
fill in) and then says, with counts, what the pack still does not map.  `check` exits 1 while
anything is unmapped, 0 when the pack covers the module (and the save, if given).
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter as Tally
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from bridge.mapping import VassalMapping, slot_pieces
from rules.packs import load_pack
from vassal_parser import grids
from vassal_parser.errors import InputError
from vassal_parser.layout import OFFBOARD
from vassal_parser.module import Module, load_module
from vassal_parser.writer import write_atomically

SCAFFOLD_FILES = ("pack.toml", "vassal.toml")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("pack", help="write or check a pack's VASSAL mapping",
                                   description="Start a pack from a VASSAL module, or report what a pack "
                                               "does not yet map.")
    actions = parser.add_subparsers(dest="pack_command", metavar="ACTION")
    scaffold = actions.add_parser("scaffold", help="write a starting pack from a module")
    scaffold.add_argument("module", metavar="MODULE", help="a .vmod, or a bare buildFile/buildFile.xml")
    scaffold.add_argument("-o", "--output", help="pack directory to create (default: <module name>-pack)")
    scaffold.add_argument("--extension", action="append", default=[], metavar="VMDX")
    scaffold.add_argument("--force", action="store_true",
                          help="overwrite the scaffold files in an existing DIR")
    scaffold.set_defaults(handler=run_scaffold)
    check = actions.add_parser("check", help="report what a pack does not map in a module (and a save)")
    check.add_argument("pack", metavar="PACK", help="pack name or directory")
    check.add_argument("--module", required=True)
    check.add_argument("--extension", action="append", default=[], metavar="VMDX")
    check.add_argument("--save", help="also map this save or log and report its unmapped pieces and places")
    check.add_argument("--format", choices=("text", "json"), default="text")
    check.add_argument("--json", action="store_true", help="the same as --format json")
    check.set_defaults(handler=run_check)
    parser.set_defaults(handler=lambda args: _usage(parser))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


# ---- scaffold ------------------------------------------------------------------------------------
def _toml_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _comment(text: str) -> str:
    return " ".join(str(text).split())


def _location_pattern(formats: Iterable[str]) -> str:
    """A regex for the names a map's grids produce: the numbering's format with `$...$` as wildcards."""
    alternatives = []
    for fmt in sorted(set(formats)):
        parts = re.split(r"\$[^$]*\$", fmt)
        alternatives.append(".+".join(re.escape(p) for p in parts))
    return alternatives[0] if len(alternatives) == 1 else "(" + "|".join(alternatives) + ")"


def _grid_summary(grid: grids.Grid | None) -> tuple[str, list[str], list[str]]:
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


def scaffold_text(module: Module) -> dict[str, str]:
    """The starting pack's files: every map/zone/piece of the module, ready to be mapped."""
    name = module.name or "module"
    pack_name = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "pack"
    pack_toml = "\n".join([
        f"# Starting pack for the VASSAL module {name} {module.version},",
        "# written by `adjutant pack scaffold`.",
        "# Add [countries], [hexes], [areas], [cards], [order] and [events] (docs/pack-format.md),",
        "# then complete vassal.toml until `adjutant pack check` reports nothing unmapped.",
        "[pack]",
        f"name = {_toml_string(pack_name)}",
        f"title = {_toml_string(f'{name} (scaffold)')}",
        f"incomplete = [{_toml_string('scaffold: no rules data yet')}]",
        "",
    ])
    lines = [
        f"# How this pack reads the VASSAL module {name} (format: docs/vassal-mapping.md).",
        "[vassal.module]",
        f"name = {_toml_string(name)}",
        f"min_version = {_toml_string(module.version or '0')}",
        "extensions = []",
        "",
    ]
    zone_lines: list[str] = []
    for map_def in module.maps:
        formats: list[str] = []
        board_notes = []
        for board in map_def.boards:
            kind, board_formats, zones = _grid_summary(board.grid)
            formats += board_formats
            board_notes.append(f"{board.name}: {kind}")
            zone_lines += [f"# {_toml_string(z)} = \"\"   # zone on map {_comment(map_def.identifier)}, "
                           f"board {_comment(board.name)}" for z in zones]
        if map_def.boards and all(board.grid is None for board in map_def.boards):
            # A window without a grid (a Force Pool, a Dead Pile): every piece in it is `offboard`,
            # so it is a box by the name the unmapped-places report gives it (docs/vassal-mapping.md).
            window = f"{map_def.identifier}: {OFFBOARD}"
            zone_lines.append(f"# {_toml_string(window)} = \"\"   # window {_comment(map_def.identifier)} "
                              "has no grid: all its pieces")
        boards_text = _comment("; ".join(board_notes)) or "none"
        lines.append(f"# map {_comment(map_def.identifier)} -- boards: {boards_text}")
        if formats:
            lines += ["[[vassal.places.hexes]]", f"map = {_toml_string(map_def.identifier)}",
                      f"pattern = {_toml_string(_location_pattern(formats))}", ""]
    lines += ["", "[vassal.places.boxes]",
              "# Give each zone that is a box its position id (delay, ceded_lands, force_pool:Axis, "
              "posture:France, ...):"]
    lines += zone_lines or ["# (the module has no zones)"]
    lines += ["", "[vassal.places.box_patterns]", "# \"(.+) Posture Box\" = \"posture:{0}\"", ""]
    properties: Tally[str] = Tally()
    names = []
    for piece in slot_pieces(module):
        names.append(piece.basic_name)
        properties.update(k for k in piece.properties if not k.startswith(("Basic", "Piece", "Unique")))
    lines += ["# Counters: rules matched in order (match on Marker/Layer properties, `@name` = piece name,",
              "# `@prototype`, `@location`; values \"re:...\" are regular expressions). Example:",
              "# [[vassal.counters]]",
              "# match = { Nationality = \"re:.+\" }",
              "# set = { id = \"{PieceUID}\", kind = \"ground\", nationality = \"{Nationality}\","
              " steps = \"2\" }",
              "#",
              f"# Properties the module's pieces carry ({len(properties)}): "
              + _comment(", ".join(f"{k} x{n}" for k, n in sorted(properties.items()))),
              f"# Pieces the module defines ({len(names)}):"]
    lines += [f"#   {_comment(n)}" for n in sorted(set(names))]
    lines += ["", "[vassal.countries]", "", "[vassal.turn]", ""]
    return {"pack.toml": pack_toml, "vassal.toml": "\n".join(lines)}


def _write_new(path: Path, text: str) -> None:
    write_atomically(path, text.encode("utf-8"))


def run_scaffold(args: argparse.Namespace) -> int:
    module = load_module(args.module, args.extension)
    files = scaffold_text(module)
    default = re.sub(r"[^A-Za-z0-9]+", "-", module.name or "module").strip("-").lower() + "-pack"
    target = Path(args.output or default)
    if target.exists() and not target.is_dir():
        raise InputError(target, "exists and is not a directory")
    clash = [name for name in SCAFFOLD_FILES if (target / name).exists()]
    if clash and not args.force:
        raise InputError(target, f"already holds {', '.join(clash)}; use --force to overwrite them")
    target.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        _write_new(target / name, text)
    print(f"wrote a starting pack for {module.name} {module.version} to {target} "
          f"({len(module.maps)} maps, {len(module.piece_slots)} piece slots); "
          f"next: adjutant pack check {target} --module {args.module}")
    return 0


# ---- check ---------------------------------------------------------------------------------------
def check_report(pack_arg: str, module_path: str, extensions: list[str],
                 save: str | None) -> dict[str, Any]:
    pack = load_pack(pack_arg)
    mapping = VassalMapping.from_pack(pack)
    module = load_module(module_path, extensions)
    warnings = mapping.module_warnings(module.name, module.version, module.extensions)
    from bridge.jsonout import header, module_json

    report: dict[str, Any] = {**header("pack-check"), "pack": pack.name,
                              "module": module_json(module.name, module.version, module.vassal_version),
                              "warnings": warnings}
    unmapped_slots: Tally[str] = Tally()
    for piece in slot_pieces(module):
        if not mapping.recognises(piece):
            unmapped_slots[piece.basic_name or "?"] += 1
    report["unmapped_piece_slots"] = dict(sorted(unmapped_slots.items()))
    zones = [(m.identifier, z) for m in module.maps for b in m.boards
             for z in _grid_summary(b.grid)[2]]
    report["unmapped_zones"] = sorted({f"{m}: {z}" for m, z in zones if not mapping.maps_box_name(z)})
    hex_maps = {m for m, _p, _t in mapping.hex_maps}
    report["maps_without_hex_rule"] = sorted(
        m.identifier for m in module.maps
        if m.identifier not in hex_maps and any(_grid_summary(b.grid)[1] for b in m.boards))
    if save:
        from bridge.pipeline import CheckPipeline

        pipeline = CheckPipeline(module_path, pack, extensions)
        pieces, _info = pipeline.pieces_of(save)
        mapped = mapping.map_pieces(pieces, pack, pipeline.prototypes)
        report["save"] = {"file": save, **mapped.report()}
    return report


def _total(report: dict[str, Any]) -> int:
    total = sum(report["unmapped_piece_slots"].values()) + len(report["unmapped_zones"])
    total += len(report["maps_without_hex_rule"])
    if "save" in report:
        save = report["save"]
        total += sum(save["unmapped_pieces"].values()) + sum(save["unmapped_places"].values())
    return total


def render_check(report: dict[str, Any]) -> str:
    module = report["module"]
    lines = [f"pack {report['pack']} against module {module['name']} {module['version']}"]
    lines += [f"warning: {w}" for w in report["warnings"]]
    slots = report["unmapped_piece_slots"]
    lines.append(f"piece slots no rule recognises: {sum(slots.values())}")
    lines += [f"  {name} x{count}" for name, count in slots.items()]
    lines.append(f"zones not mapped to a box: {len(report['unmapped_zones'])}")
    lines += [f"  {zone}" for zone in report["unmapped_zones"]]
    missing_hex_rules = report["maps_without_hex_rule"]
    lines.append(f"numbered maps without a [[vassal.places.hexes]] rule: {len(missing_hex_rules)}")
    lines += [f"  {m}" for m in report["maps_without_hex_rule"]]
    if "save" in report:
        lines += _save_lines(report["save"])
    lines.append("nothing unmapped" if _total(report) == 0 else f"{_total(report)} things unmapped")
    return "\n".join(lines)


SAVE_LIST_LIMIT = 15  # names listed per kind in text; --format json lists them all


def _save_lines(save: dict[str, Any]) -> list[str]:
    """The --save part: the most frequent unmapped names (limited), then a one-line summary."""
    pieces, places = save["unmapped_pieces"], save["unmapped_places"]
    lines = [f"in {save['file']}:"]
    for what, table in (("piece", pieces), ("place", places)):
        ranked = sorted(table.items(), key=lambda item: (-item[1], item[0]))
        lines += [f"  {what} {name} x{count}" for name, count in ranked[:SAVE_LIST_LIMIT]]
        if len(ranked) > SAVE_LIST_LIMIT:
            rest = ranked[SAVE_LIST_LIMIT:]
            lines.append(f"  ... and {len(rest)} more {what} names ({sum(c for _n, c in rest)} counters; "
                         f"--format json lists every one)")
    lines.append(f"summary of {save['file']}: {sum(pieces.values())} unmapped pieces of {len(pieces)} kinds, "
                 f"{sum(places.values())} counters on {len(places)} unmapped places")
    return lines


def run_check(args: argparse.Namespace) -> int:
    report = check_report(args.pack, args.module, args.extension, args.save)
    if args.format == "json" or getattr(args, "json", False):
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print(render_check(report))
    return 0 if _total(report) == 0 else 1
