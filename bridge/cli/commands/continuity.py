"""`adjutant continuity PREVIOUS NEXT`: does NEXT start where PREVIOUS ended?

Why: in PBEM each player continues from the file the other sent. A continuation started from the
wrong file (an older save, a log not played to its end) carries "ghost moves": pieces that are not
where the opponent left them. Comparing the canonical positions — every piece's map, location and
trait state at the end of PREVIOUS (a log: after its last step) and at the start of NEXT (a log: as
opened, before its first step) — lists every such piece, plus module and extension version changes.

Exit status: 0 the same, 1 different, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from typing import Any

from bridge.cli import config
from bridge.cli.helptext import HelpFormatter
from bridge.common.jsonout import header, module_json

EPILOG = """\
examples:
  adjutant continuity turn3-axis.vlog turn3-allied.vlog --module TK.vmod
  adjutant continuity last-week.vsav this-week.vsav --json

PREVIOUS is read at its end (a log after its last step), NEXT at its start (a log as opened).
Without --module (and no `module` in adjutant.toml) pieces are compared by map and x,y.
exit status: 0 NEXT starts where PREVIOUS ended; 1 pieces or versions differ; 2 bad input.
"""
MAX_LISTED = 50  # pieces listed in text; --json lists every one


@dataclass(frozen=True)
class Placed:
    """One piece as the continuity check compares it."""

    name: str
    map: str | None
    where: str  # VASSAL's location name, or x,y without a module
    traits: tuple[tuple[str, str | None], ...]  # (trait kind as VASSAL names it, state); no BasicPiece


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "continuity",
        help="does the NEXT save or log start where the PREVIOUS one ended? (ghost moves)",
        description="Compare the end of PREVIOUS with the start of NEXT, piece by piece (map, location, "
        "trait state), and the module and extension versions.",
        epilog=EPILOG,
        formatter_class=HelpFormatter,
    )
    parser.add_argument("previous", metavar="PREVIOUS", help="the save or log the opponent sent")
    parser.add_argument("next", metavar="NEXT", help="the save or log that should continue from it")
    parser.add_argument(
        "--module", help="the VASSAL module, for location names (or `module` in adjutant.toml)"
    )
    parser.add_argument(
        "--extension",
        action="append",
        default=[],
        metavar="VMDX",
        help="a module extension in use (repeatable)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON (format adjutant-continuity)")
    parser.add_argument("--format", choices=("text", "json"), help="text (default) or json (= --json)")
    config.opt_in(parser, ("module", "extensions"), anchor="next")
    parser.set_defaults(handler=run)


def canonical(pieces: list[Any], with_module: bool) -> dict[str, Placed]:
    """Piece id -> what must be the same in both files."""
    result = {}
    for piece in pieces:
        where = piece.location if with_module and piece.location is not None else f"{piece.x},{piece.y}"
        traits = tuple(
            (type(trait).DESCRIPTION, trait.state) for trait in piece.traits if trait.prefix != "piece;"
        )
        result[piece.id] = Placed(piece.piece_name or piece.basic_name, piece.map, where, traits)
    return result


def _trait_names(before: Placed, after: Placed) -> list[str]:
    changed = []
    for (kind, old), (_kind, new) in zip(before.traits, after.traits, strict=False):
        if old != new:
            changed.append(kind)
    if len(before.traits) != len(after.traits):
        changed.append("trait list")
    return list(dict.fromkeys(changed))


def compare(previous: Any, following: Any, with_module: bool) -> dict[str, Any]:
    """The differences between PREVIOUS's end and NEXT's start, as JSON-able data."""
    end = canonical(previous.position_at(len(previous.steps)), with_module)
    start = canonical(following.position(), with_module)
    pieces: list[dict[str, Any]] = []
    for piece_id in sorted(set(end) | set(start)):
        before, after = end.get(piece_id), start.get(piece_id)
        if before == after:
            continue
        entry: dict[str, Any] = {"id": piece_id, "name": (after or before).name}
        if after is None:
            entry.update(change="missing in NEXT", previous=f"{before.map}: {before.where}")
        elif before is None:
            entry.update(change="only in NEXT", next=f"{after.map}: {after.where}")
        else:
            if (before.map, before.where) != (after.map, after.where):
                entry.update(
                    change="moved",
                    previous=f"{before.map}: {before.where}",
                    next=f"{after.map}: {after.where}",
                )
            traits = _trait_names(before, after) if before.traits != after.traits else []
            if traits:
                entry["traits"] = traits
                entry.setdefault("change", "changed")
        pieces.append(entry)
    versions = []
    if previous.module_name != following.module_name:
        versions.append(f"module {previous.module_name!r} -> {following.module_name!r}")
    if previous.module_version != following.module_version:
        versions.append(
            f"module version {previous.module_version or '?'} -> {following.module_version or '?'}"
        )
    if previous.vassal_version != following.vassal_version:
        versions.append(f"VASSAL {previous.vassal_version or '?'} -> {following.vassal_version or '?'}")
    old_ext, new_ext = dict(previous.extensions), dict(following.extensions)
    for name in sorted(set(old_ext) | set(new_ext)):
        if name not in new_ext:
            versions.append(f"extension {name} {old_ext[name]} no longer loaded")
        elif name not in old_ext:
            versions.append(f"extension {name} {new_ext[name]} added")
        elif old_ext[name] != new_ext[name]:
            versions.append(f"extension {name} {old_ext[name]} -> {new_ext[name]}")
    return {"pieces": pieces, "versions": versions, "compared": len(set(end) | set(start))}


def run(args: argparse.Namespace) -> int:
    from vassal_parser.game import check_same_module, load_game
    from vassal_parser.module import load_module

    module = load_module(args.module, args.extension) if args.module else None
    games = []
    for path in (args.previous, args.next):
        game = load_game(path, module)
        if module is not None:
            check_same_module(game, module)
        games.append(game)
    previous, following = games
    found = compare(previous, following, module is not None)
    same = not found["pieces"] and not found["versions"]
    if args.json or args.format == "json":
        document = {
            **header("continuity"),
            "previous": {
                "file": str(args.previous),
                "kind": previous.kind,
                "read_at": "end",
                "step": len(previous.steps),
                "module": module_json(previous.module_name, previous.module_version, previous.vassal_version),
            },
            "next": {
                "file": str(args.next),
                "kind": following.kind,
                "read_at": "start",
                "step": 0,
                "module": module_json(
                    following.module_name, following.module_version, following.vassal_version
                ),
            },
            "same": same,
            **found,
        }
        print(json.dumps(document, indent=2, ensure_ascii=False))
        return 0 if same else 1
    end = f"after step {len(previous.steps)}" if previous.kind == "log" else "as saved"
    print(f"{args.previous} ({end}) -> {args.next} (as opened): {found['compared']} pieces compared")
    for line in found["versions"]:
        print(f"version change: {line}")
    for entry in found["pieces"][:MAX_LISTED]:
        detail = {
            "moved": lambda e: f"{e['previous']} -> {e['next']}",
            "missing in NEXT": lambda e: f"was at {e['previous']}",
            "only in NEXT": lambda e: f"at {e['next']}",
            "changed": lambda e: "",
        }[entry["change"]](entry)
        traits = f" ({', '.join(entry['traits'])} changed)" if entry.get("traits") else ""
        print(
            f"  {entry['name']} [{entry['id']}]: {entry['change']}"
            + (f" {detail}" if detail else "")
            + traits
        )
    if len(found["pieces"]) > MAX_LISTED:
        print(f"  ... and {len(found['pieces']) - MAX_LISTED} more (--json lists every one)")
    if same:
        print("same: NEXT starts where PREVIOUS ended")
    else:
        print(
            f"different: {len(found['pieces'])} piece(s) differ"
            + (f", {len(found['versions'])} version change(s)" if found["versions"] else "")
            + " — NEXT may not continue from PREVIOUS"
        )
    return 0 if same else 1
