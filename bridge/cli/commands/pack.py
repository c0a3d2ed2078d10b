"""`adjutant pack scaffold MODULE [--base tk|ds] -o DIR`, `adjutant pack check PACK [--module MODULE]
[--save FILE]` (and `pack edit`, bridge/cli/commands/pack_edit.py).

Why: completing a pack for a real module is the user's job, so Adjutant writes the starting point
(every map, board, grid, zone and piece of the module, as TOML comments and rules to fill in; with
`--base`, the edition's rules data inherited by reference and the hex rules the module's numbering
calls for, bridge/mapping/hexnaming.py) and then says, with counts, what the pack still lacks: map facts its
events need (bridge/reports/pack_report.py) and, against a module, what it does not map. `check` exits 0 only
when nothing is missing or unmapped, else 1.
"""

from __future__ import annotations

import argparse
import json
import os
import re
from collections import Counter as Tally
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bridge.cli.commands.pack_check_text import check_status, render_check
from bridge.cli.commands.scaffold_proposal import (
    boxes_section,
    incomplete_text,
    places_lines,
    policy_lines,
    proposal_for,
    summary_line,
)
from bridge.cli.helptext import HelpFormatter
from bridge.mapping.hexnaming import HexNaming, detect_hex_naming
from bridge.mapping.hexnaming import grid_summary as _grid_summary
from bridge.mapping.hexnaming import location_pattern as _location_pattern
from bridge.mapping.mapper import VassalMapping
from bridge.mapping.proposal import proposed_counts
from bridge.mapping.propose import MappingProposal
from bridge.mapping.sides import propose_sides, side_warnings
from bridge.mapping.slots import slot_pieces
from bridge.reports.pack_report import (
    country_report,
    coverage_report,
    hex_id_report,
    module_hex_ids,
)
from rules.packs import PACKS_DIR, Pack, load_pack
from rules.state import FACTIONS
from vassal_parser.errors import InputError
from vassal_parser.layout import OFFBOARD
from vassal_parser.module import Module, load_module
from vassal_parser.writer import write_atomically

SCAFFOLD_FILES = ("pack.toml", "vassal.toml")
PACK_EPILOG = """\
examples:
  adjutant pack scaffold TK.vmod --base tk -o my-pack     first, a pack of your own for the module
  adjutant pack edit my-pack --module TK.vmod              mark its map facts in the browser
  adjutant pack check my-pack --module TK.vmod             what the pack still lacks

`adjutant pack ACTION --help` gives each action's options, examples and exit statuses.
exit status: that of the action; 2 bad input (or no ACTION given).
"""
SCAFFOLD_EPILOG = """\
examples:
  adjutant pack scaffold TK.vmod --base tk -o my-pack      a pack of your own for the module, TK's rules
  adjutant pack scaffold M.vmod --extension Extra.vmdx     the extension's maps too (into <module name>-pack)
  adjutant pack scaffold TK.vmod --base tk -o my-pack --force -q   write it again over the old files, silently

then: `adjutant pack edit my-pack --module TK.vmod` marks the map facts on the module's map, and
`adjutant pack check my-pack --module TK.vmod` says what is still missing.
exit status: 0 written; 2 bad input (not a module, an unknown --base, DIR already holds a pack without
--force, a folder that cannot be written).
"""
CHECK_EPILOG = """\
examples:
  adjutant pack check tk                                  the map facts the built-in TK pack lacks
  adjutant pack check my-pack --module TK.vmod            and what it does not map in the module
  adjutant pack check my-pack --module TK.vmod --save game.vsav --json

exit status: 0 nothing is missing or unmapped (the pack has events, each has the facts it needs, no
rule is still marked proposed, and with --module/--save nothing is left unmapped); 1 something is
missing, unmapped or not yet reviewed; 2 bad input.
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("pack", help="write or check a pack's VASSAL mapping",
                                   description="Start a pack from a VASSAL module, or report what a pack "
                                               "does not yet map.",
                                   epilog=PACK_EPILOG, formatter_class=HelpFormatter)
    actions = parser.add_subparsers(dest="pack_command", metavar="ACTION")
    scaffold = actions.add_parser(
        "scaffold", help="write a starting pack from a module",
        description="Write a starting pack for a VASSAL module into a new folder: pack.toml and vassal.toml "
                    "listing every map, board, grid, zone and piece of the module (and of each --extension) "
                    "as rules to fill in. With --base, the pack inherits that pack's rules data (events, "
                    "countries, hexes, ...) by reference, and its hex rules follow the numbering the "
                    "module's grids use, so the base pack's hex ids name the module's locations; and it "
                    "proposes counter, state and box rules from what the module's pieces and zones say, "
                    "each with its evidence and marked `proposed = true` until you review it.",
        epilog=SCAFFOLD_EPILOG, formatter_class=HelpFormatter)
    scaffold.add_argument("module", metavar="MODULE", help="a .vmod, or a bare buildFile/buildFile.xml")
    scaffold.add_argument("-o", "--output", help="pack directory to create (default: <module name>-pack)")
    scaffold.add_argument("--extension", action="append", default=[], metavar="VMDX",
                          help="a module extension (.vmdx) the game uses (repeatable): its maps, boards, "
                               "zones and pieces are scaffolded with the module's")
    scaffold.add_argument("--force", action="store_true",
                          help="overwrite the scaffold files in an existing DIR")
    scaffold.add_argument("--base", metavar="PACK",
                          help="inherit this pack's rules data by reference (tk, ds, or a pack directory)")
    scaffold.set_defaults(handler=run_scaffold)
    check = actions.add_parser(
        "check", help="report what a pack lacks: map facts its events need, and "
                      "(with --module) what it does not map in a module and save",
        description="Say, with counts, what a pack still lacks: the map facts each of its events needs "
                    "(per event and per country). With --module, also the hex ids that name no location of "
                    "the module, the piece slots, zones and numbered maps its [vassal] table does not map; "
                    "with --save, the pieces and places of that save or log it leaves out.",
        epilog=CHECK_EPILOG, formatter_class=HelpFormatter)
    check.add_argument("pack", metavar="PACK", help="pack name or directory")
    check.add_argument("--module", help="also check the pack's [vassal] mapping and hex ids against it")
    check.add_argument("--extension", action="append", default=[], metavar="VMDX",
                       help="a module extension (.vmdx) the game uses (repeatable; with --module): its "
                            "maps, zones and pieces are checked with the module's")
    check.add_argument("--save", help="also map this save or log and report its unmapped pieces and places")
    check.add_argument("--format", choices=("text", "json"), default="text",
                       help="report format (default text; -v lists every unmapped name in text)")
    check.add_argument("--json", dest="format", action="store_const", const="json",
                       help="same as --format json")
    check.set_defaults(handler=run_check)
    from bridge.cli.commands import pack_edit

    pack_edit.register(actions)
    parser.set_defaults(handler=lambda args: _usage(parser))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


# ---- scaffold ------------------------------------------------------------------------------------
def _toml_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _comment(text: str) -> str:
    return " ".join(str(text).split())


def scaffold_text(module: Module, base: BaseRef | None = None,
                  naming: list[HexNaming] | None = None) -> dict[str, str]:
    """The starting pack's files: every map/zone/piece of the module, ready to be mapped.

    With `base`, pack.toml inherits the base pack's rules data by reference (`base = "tk"`) and the
    hex rules use the naming `detect_hex_naming` found, so the base pack's hex ids are the places."""
    name = module.name or "module"
    pack_name = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "pack"
    proposal = proposal_for(module, base.pack) if base else None
    pack_toml = _based_pack_toml(module, pack_name, base, naming or [], proposal) if base else "\n".join([
        f"# Starting pack for the VASSAL module {name} {module.version},",
        "# written by `adjutant pack scaffold`.",
        "# Add [countries], [hexes], [areas], [cards], [order] and [events] (docs/pack-format.md),",
        "# then complete vassal.toml until `adjutant pack check` reports nothing unmapped.",
        "[pack]",
        f"name = {_toml_string(pack_name)}",
        f"title = {_toml_string(f'{name} (scaffold)')}",
        f"incomplete = [{_toml_string('scaffold: no rules data yet')}]",
        "",
        *NOTHING_TRUSTED,
    ])
    lines = [
        f"# How this pack reads the VASSAL module {name} (format: docs/vassal-mapping.md).",
        "[vassal.module]",
        f"name = {_toml_string(name)}",
        f"min_version = {_toml_string(module.version or '0')}",
        "extensions = []",
        "",
    ]
    if proposal is not None:
        lines += places_lines(proposal)
    zone_lines: list[str] = []
    for map_def in module.maps:
        formats: list[str] = []
        board_notes = []
        for board in map_def.boards:
            kind, board_formats, zones = _grid_summary(board.grid)
            formats += board_formats
            board_notes.append(f"{board.name}: {kind}")
            zone_lines += [f"# {_toml_string(z)} = \"\"   # zone on map {_comment(map_def.identifier)}, "
                           f"board {_comment(board.name)}" for z in zones
                           if proposal is None or z in proposal.boxes.unmatched]
        if map_def.boards and all(board.grid is None for board in map_def.boards):
            # A window without a grid (a Force Pool, a Dead Pile): every piece in it is `offboard`,
            # so it is a box by the name the unmapped-places report gives it (docs/vassal-mapping.md).
            window = f"{map_def.identifier}: {OFFBOARD}"
            if proposal is None or window in proposal.boxes.unmatched:
                zone_lines.append(f"# {_toml_string(window)} = \"\"   # window "
                                  f"{_comment(map_def.identifier)} has no grid: all its pieces")
        boards_text = _comment("; ".join(board_notes)) or "none"
        lines.append(f"# map {_comment(map_def.identifier)} -- boards: {boards_text}")
        found = next((n for n in naming or [] if n.map_id == map_def.identifier), None)
        if found is not None and found.rules:
            lines += [f"# {_comment(line)}" for line in found.lines()]
            for rule in found.rules:
                lines += ["[[vassal.places.hexes]]", f"map = {_toml_string(map_def.identifier)}",
                          f"pattern = {_toml_string(rule.pattern)}"]
                if rule.template != "{location}":
                    lines.append(f"hex = {_toml_string(rule.template)}")
                lines.append("")
        elif formats:
            lines += ["[[vassal.places.hexes]]", f"map = {_toml_string(map_def.identifier)}",
                      f"pattern = {_toml_string(_location_pattern(formats))}", ""]
    lines += ["", "[vassal.places.boxes]",
              "# Give each zone that is a box its position id (delay, ceded_lands, force_pool:Axis, "
              "posture:France, ...):"]
    if proposal is not None:
        lines += boxes_section(proposal, zone_lines)
    else:
        lines += [*(zone_lines or ["# (the module has no zones)"]), "", "[vassal.places.box_patterns]",
                  "# \"(.+) Posture Box\" = \"posture:{0}\"", ""]
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
    lines += _sides_lines(module)
    return {"pack.toml": pack_toml, "vassal.toml": "\n".join(lines)}


def _sides_lines(module: Module) -> list[str]:
    """`[vassal.sides]` as proposed from the module's PlayerRoster by name (bridge/mapping/sides.py)."""
    proposed, unmatched = propose_sides(module.sides, FACTIONS)
    lines = ["# Which of the module's sides (its PlayerRoster) each faction plays: a player view shows",
             "# the pieces those sides hide or mask, never another side's (docs/vassal-mapping.md).",
             "# PROPOSED from the side names: check it. A faction left out plays the side of its own name."]
    if not module.sides:
        return [*lines, "# (the module has no PlayerRoster sides)", "[vassal.sides]", ""]
    lines.append(f"# The module's sides: {_comment(', '.join(module.sides))}")
    if unmatched:
        listed = _comment(", ".join(unmatched))
        lines.append(f"# No faction matched by name (add each where it belongs): {listed}")
    lines.append("[vassal.sides]")
    for faction, sides in proposed.items():
        listed = ", ".join(_toml_string(side) for side in sides)
        lines.append(f"{faction} = [{listed}]" if sides else f"# {faction} = []")
    return [*lines, ""]


def _write_new(path: Path, text: str) -> None:
    write_atomically(path, text.encode("utf-8"))


def run_scaffold(args: argparse.Namespace) -> int:
    module = load_module(args.module, args.extension)
    base = naming = None
    if args.base:
        base = BaseRef.of(args.base)
        naming = detect_hex_naming(module, base.pack)
    default = re.sub(r"[^A-Za-z0-9]+", "-", module.name or "module").strip("-").lower() + "-pack"
    target = Path(args.output or default)
    if target.exists() and not target.is_dir():
        raise InputError(target, "exists and is not a directory")
    clash = [name for name in SCAFFOLD_FILES if (target / name).exists()]
    if clash and not args.force:
        raise InputError(target, f"already holds {', '.join(clash)}; use --force to overwrite them")
    if base is not None:
        base = base.relative_to(target)
    files = scaffold_text(module, base, naming)
    target.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        _write_new(target / name, text)
    if getattr(args, "quiet", False):  # -q: only errors (the pack is written all the same)
        return 0
    print(f"wrote a starting pack for {module.name} {module.version} to {target} "
          f"({len(module.maps)} maps, {len(module.piece_slots)} piece slots); "
          f"next: adjutant pack check {target} --module {args.module}")
    if base is not None:
        print(f"inherits {base.pack.name} by reference: its events, order, cards, countries, hexes, areas, "
              f"border defense and [complete] (base = {base.value!r} in pack.toml)")
        for found in naming or []:
            for line in found.lines():
                print(f"  {line}")
        print(summary_line(files["vassal.toml"]))
    return 0


# ---- scaffold --base: inherit a pack, detect how the module names its hexes ------------------------
INHERITED_TABLES = ("events", "order", "cards", "countries", "hexes", "areas", "border_defense", "complete")


@dataclass
class BaseRef:
    """The pack a scaffold inherits: as written in pack.toml (`value`) and loaded (`pack`)."""

    value: str
    pack: Pack

    @classmethod
    def of(cls, text: str) -> BaseRef:
        pack = load_pack(text)
        shipped = pack.path.resolve().parent == PACKS_DIR.resolve()
        return cls(pack.path.name if shipped else str(pack.path.resolve()), pack)

    def relative_to(self, target: Path) -> BaseRef:
        """A directory base is written relative to the new pack, so the two can move together."""
        if not Path(self.value).is_absolute():
            return self
        return BaseRef(Path(os.path.relpath(self.value, target.resolve())).as_posix(), self.pack)


def _based_pack_toml(module: Module, pack_name: str, base: BaseRef, naming: list[HexNaming],
                     proposal: MappingProposal | None = None) -> str:
    name = module.name or "module"
    lines = [
        f"# Pack for the VASSAL module {name} {module.version}, written by "
        f"`adjutant pack scaffold --base {base.pack.name}`.",
        f"# The rules data (events, cards, countries, named hexes) is {base.pack.name}'s, by reference:",
        f"# a fix to {base.pack.name} reaches this pack. Add hexes here to extend or override the base's,",
        "# entry by entry and field by field (docs/pack-format.md, \"Inheritance\"); `adjutant pack edit`",
        "# does it on the module's own map. How the module names hexes (detected from its grid numbering):",
    ]
    for found in naming:
        lines += [f"#   {_comment(line)}" for line in found.lines()]
    lines += [
        "[pack]",
        f"name = {_toml_string(pack_name)}",
        f"edition = {_toml_string(base.pack.edition)}",
        f"title = {_toml_string(f'{base.pack.title} on {name}')}",
        f"base = {_toml_string(base.value)}",
        *policy_lines(base.pack),
        "base_tables = [" + ", ".join(_toml_string(t) for t in INHERITED_TABLES) + "]",
        "incomplete = [" + _toml_string(incomplete_text(proposal)) + "]",
        "",
        *NOTHING_TRUSTED,
    ]
    return "\n".join(lines)


# Every scaffold states that it trusts nothing (issue 22): without a [complete] table every located fact
# would count as the whole fact, and a base's `others = "trusted"` would be inherited unseen.
NOTHING_TRUSTED = [
    "# Which map facts this pack locates in full: name a fact and its countries/areas (or \"all\") once",
    "# every one of them is marked; until then the events reading it are undecided (docs/pack-format.md).",
    "[complete]",
    'others = "missing"',
    "",
]


def check_report(pack_arg: str, module_path: str | None, extensions: list[str],
                 save: str | None) -> dict[str, Any]:
    """What the pack lacks: map facts its events need (always), and with a module what it does not map
    there (pieces, zones, hex ids that name no location) and, with a save, what it leaves out of it."""
    pack = load_pack(pack_arg)
    from bridge.common.jsonout import header

    report: dict[str, Any] = {**header("pack-check"), "pack": pack.name, **coverage_report(pack)}
    if isinstance(pack.extra.get("vassal"), dict):  # what `pack scaffold` proposed and no one reviewed yet
        report["proposed"] = proposed_counts(VassalMapping.from_pack(pack))
    if module_path is None:
        if save:
            raise InputError(save, "--save needs --module (the module the save was made with)")
        return report
    mapping = VassalMapping.from_pack(pack)
    module = load_module(module_path, extensions)
    warnings = mapping.module_warnings(module.name, module.version, module.extensions)
    warnings += side_warnings(mapping.sides, module.sides, FACTIONS)
    from bridge.common.jsonout import module_json

    report.update({"module": module_json(module.name, module.version, module.vassal_version),
                   "warnings": warnings})
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
    # With the module, a Capital on a hex it lacks is missing, as the editor counts it (issue 38).
    report.update(coverage_report(pack, module_hex_ids(module, mapping), module.name))
    report["hex_ids"] = hex_id_report(pack, mapping, module)
    report["countries"] = country_report(pack, mapping, module, report)
    if save:
        from bridge.pipeline import CheckPipeline

        pipeline = CheckPipeline(module_path, pack, extensions)
        pieces, _info = pipeline.pieces_of(save)
        mapped = mapping.map_pieces(pieces, pack, pipeline.prototypes)
        report["save"] = {"file": save, **mapped.report()}
    return report


def run_check(args: argparse.Namespace) -> int:
    report = check_report(args.pack, args.module, args.extension, args.save)
    if args.format == "json" or getattr(args, "json", False):
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print(render_check(report, verbose=bool(getattr(args, "verbose", 0))))
    return check_status(report)
