"""`adjutant inspect FILE [--json]`: what a VASSAL file is and what is in it.

Why: the first thing a user (or a bug report) needs is "which module, which VASSAL, which
encoding, how many pieces/commands/steps" — answered from the file alone, without the module.
Player ids (passwords, spec §9.11) are never printed: only counts and names.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from typing import TYPE_CHECKING, Any

from bridge.cli.helptext import HelpFormatter
from bridge.common.jsonout import header, module_json

if TYPE_CHECKING:
    from vassal_parser.container import Container

EPILOG = """\
examples:
  adjutant inspect game.vsav
  adjutant inspect TK.vmod --json

exit status: 0 described; 2 not a VASSAL file (or unreadable).
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "inspect",
        help="describe a VASSAL module, extension, save or log",
        description="Describe a VASSAL file: kind, savedGame encoding, module, VASSAL version, "
        "extensions, maps/boards/grids (modules), piece and command counts (saves/logs).",
        epilog=EPILOG,
        formatter_class=HelpFormatter,
    )
    parser.add_argument("file", help="a .vmod, .vmdx, .vsav, .vlog, buildFile, moduledata or command stream")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.add_argument("--format", choices=("text", "json"), help="text (default) or json (= --json)")
    parser.set_defaults(handler=run)


def _stream_report(container: Container) -> dict[str, Any]:
    from vassal_parser.commands import decode_stream, iter_commands, split_log
    from vassal_parser.pieces import Deck, Stack, make_piece

    tree = decode_stream(container.command_text())
    kinds: Counter[str] = Counter()
    maps: Counter[str] = Counter()
    pieces = stacks = decks = 0
    extensions: list[dict[str, str]] = []
    restore, steps = split_log(tree)
    for command in restore:
        kinds[command.kind] += 1
        if command.kind == "extension":
            extensions.append({"name": command.fields["name"], "version": command.fields["version"]})
        if command.kind != "add_piece":
            continue
        piece = make_piece(command.fields["id"], command.fields["type"], command.fields["state"])
        if isinstance(piece, Stack):
            stacks += 1
        elif isinstance(piece, Deck):
            decks += 1
        else:
            pieces += 1
            maps[piece.map or "(no map)"] += 1
    step_commands = sum(len(step) for step in steps)
    leaf_count = sum(1 for _ in iter_commands(tree))
    return {
        "savedgame_encoding": container.savedgame_encoding,
        "extensions": extensions,
        "top_level_commands": len(tree.children),
        "leaf_commands": leaf_count,
        "add_piece_commands": kinds["add_piece"],
        "pieces": pieces,
        "stacks": stacks,
        "decks": decks,
        "pieces_per_map": dict(maps.most_common()),
        "log_steps": len(steps),
        "log_step_commands": step_commands,
        "restore_command_kinds": dict(sorted(kinds.items())),
    }


def _module_report(container: Container) -> dict[str, Any]:
    try:
        from vassal_parser.module import load_module
    except ImportError:  # module reader not in this checkout
        return {}
    module = load_module(container.path)
    maps = []
    for map_def in module.maps:
        boards = []
        for board in map_def.boards:
            grid = board.grid
            boards.append(
                {
                    "name": board.name,
                    "size": list(board.size) if board.size else None,
                    "grid": type(grid).__name__ if grid is not None else None,
                }
            )
        maps.append({"identifier": map_def.identifier, "kind": map_def.kind, "boards": boards})
    return {"maps": maps, "piece_slots": len(module.piece_slots), "prototypes": len(module.prototypes)}


def inspect_file(path: str) -> dict[str, Any]:
    """The report as a dict (what `--json` prints); InputError for files that are not VASSAL's."""
    from vassal_parser.container import open_container

    container = open_container(path)
    metadata = container.metadata
    report: dict[str, Any] = {
        **header("inspect"),
        "file": str(container.path),
        "kind": container.kind,
        "module": module_json(metadata.get("name"), metadata.get("moduleVersion", metadata.get("version")),
                              metadata.get("VassalVersion")),
        "vassal_version": metadata.get("VassalVersion"),
        "description": metadata.get("description"),
        "entries": len(container.entry_names),
    }
    if container.kind in ("save", "log", "command-stream"):
        report.update(_stream_report(container))
    elif container.kind in ("module", "buildfile"):
        if b"VASSAL.build.module.ModuleExtension" in container.build_xml_bytes()[:4096]:
            report["build_root"] = "extension"  # a bare extension build file: no maps of its own
        else:
            report.update(_module_report(container))
    return report


def _print_text(report: dict[str, Any]) -> None:
    labels = (
        ("file", "file"),
        ("kind", "kind"),
        ("build_root", "build file of"),
        ("savedgame_encoding", "savedGame encoding"),
        ("module_name", "module"),
        ("module_version", "module version"),
        ("vassal_version", "VASSAL version"),
        ("top_level_commands", "top-level commands"),
        ("leaf_commands", "leaf commands"),
        ("add_piece_commands", "AddPiece commands"),
        ("pieces", "pieces"),
        ("stacks", "stacks"),
        ("decks", "decks"),
        ("log_steps", "LOG steps"),
        ("log_step_commands", "commands in LOG steps"),
        ("piece_slots", "piece slots"),
        ("prototypes", "prototypes"),
    )
    module = report.get("module") or {}
    report = {**report, "module_name": module.get("name"), "module_version": module.get("version")}
    for key, label in labels:
        if key in report and report[key] is not None:
            print(f"{label}: {report[key]}")
    if "extensions" in report:
        names = ", ".join(f"{ext['name']} {ext['version']}".strip() for ext in report["extensions"])
        print(f"extensions: {names or '(none)'}")
    for map_name, count in report.get("pieces_per_map", {}).items():
        print(f"  pieces on {map_name}: {count}")
    for map_def in report.get("maps", []):
        print(f"map {map_def['identifier']} ({map_def['kind']})")
        for board in map_def["boards"]:
            size = "x".join(map(str, board["size"])) if board["size"] else "size unknown"
            print(f"  board {board['name']}: {size}, grid {board['grid'] or 'none'}")


def run(args: argparse.Namespace) -> int:
    report = inspect_file(args.file)
    if args.json or getattr(args, "format", None) == "json":
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        _print_text(report)
    return 0
