"""`adjutant pieces SAVE_OR_LOG --module MODULE`: every piece, where it is, and its properties.

Why: before any rule is applied the user must be able to see that Adjutant reads their game the
way VASSAL does — the same map, board, zone and location name VASSAL would report.
Player ids hidden in mask/invisible owners are passwords (spec §9.11): only a yes/no is shown.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bridge.cli import config
from bridge.cli.helptext import HelpFormatter
from bridge.common.jsonout import header, module_json

if TYPE_CHECKING:
    from vassal_parser.game import Game, PlacedPiece

EPILOG = """\
examples:
  adjutant pieces game.vsav --module TK.vmod
  adjutant pieces session.vlog --module TK.vmod --step 12 --json

--step N means "the position after N replay steps" (0 = the log as opened), as in `adjutant check`.
exit status: 0 listed; 2 bad input (not a VASSAL file, another module's save, a step out of range).
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "pieces",
        help="list every piece of a save or log with its map, board, zone and location name",
        description=(
            "Replay a VASSAL save (.vsav) or log (.vlog) against its module and list every piece: id, "
            "name, map, x, y, board, zone, location name (as VASSAL computes it) and properties."
        ),
        epilog=EPILOG,
        formatter_class=HelpFormatter,
    )
    add_game_arguments(parser)
    parser.add_argument(
        "--step",
        type=int,
        default=None,
        metavar="N",
        help="for a log: the position after N replay steps (0 = as opened; default: the end, "
        "like `adjutant check`; negative counts back from the end)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument("--format", choices=("text", "json"), help="text (default) or json (= --json)")
    parser.set_defaults(handler=run_pieces)


def add_game_arguments(parser: argparse.ArgumentParser) -> None:
    """SAVE_OR_LOG, --module, --extension: what `load_checked` needs, worded alike wherever asked."""
    parser.add_argument("game", type=Path, metavar="SAVE_OR_LOG", help="a .vsav or .vlog file")
    parser.add_argument("--module", type=Path, help="the VASSAL module (.vmod or buildFile; or `module` in "
                        "adjutant.toml)")
    parser.add_argument(
        "--extension", action="append", default=[], type=Path, help="a module extension (.vmdx); repeatable"
    )
    config.opt_in(parser, ("module", "extensions"), anchor="game", required=("module",))


def load_checked(game_path: Path, module_path: Path, extensions: list[Path]) -> Game:
    """Module (with extensions) and game, refusing a save made by another module."""
    from vassal_parser.game import check_same_module, load_game
    from vassal_parser.module import load_module

    module = load_module(module_path, extensions)
    game = load_game(game_path, module)
    check_same_module(game, module)
    return game


def piece_json(piece: PlacedPiece) -> dict[str, Any]:
    return {
        "id": piece.id,
        "basic_name": piece.basic_name,
        "piece_name": piece.piece_name,
        "map": piece.map,
        "x": piece.x,
        "y": piece.y,
        "board": piece.board,
        "zone": piece.zone,
        "location": piece.location,
        "stack_id": piece.stack_id,
        "stack_index": piece.stack_index,
        "deck": piece.deck,
        "hidden": piece.hidden_by is not None,
        "masked": piece.masked_by is not None,
        "properties": piece.properties,
    }


def _text_line(piece: PlacedPiece) -> str:
    where = f"{piece.map or '-'} ({piece.x},{piece.y})"
    place = " / ".join(part for part in (piece.board, piece.zone) if part) or "-"
    holder = ""
    if piece.deck is not None:
        holder = f"  deck {piece.deck!r} #{piece.stack_index}"
    elif piece.stack_id is not None:
        holder = f"  stack {piece.stack_id} #{piece.stack_index}"
    flags = "".join(flag for flag, on in ((" hidden", piece.hidden_by), (" masked", piece.masked_by)) if on)
    return f"{piece.id}\t{piece.piece_name}\t{where}\t{place}\t{piece.location}{holder}{flags}"


def game_module_json(game: Game) -> dict[str, Any]:
    """The module a file was saved with, in the shape every command's JSON uses."""
    name = game.module_name or (game.module.name if game.module else None)
    return module_json(name, game.module_version, game.vassal_version)


def run_pieces(args: argparse.Namespace) -> int:
    game = load_checked(args.game, args.module, args.extension)
    requested = args.step if args.step is not None else len(game.steps)
    position = game.position_at(requested)  # validates the range; negative counts from the end
    step = requested if requested >= 0 else requested + len(game.steps) + 1
    if args.json or getattr(args, "format", None) == "json":
        document = {
            **header("pieces"),
            "file": str(args.game),
            "module": game_module_json(game),
            "kind": game.kind,
            "step": step,
            "steps": len(game.steps),
            "pieces": [piece_json(piece) for piece in position],
            "problems": game.problems(),
        }
        print(json.dumps(document, indent=1, ensure_ascii=False))
        return 0
    print(f"{args.game}: {len(position)} pieces ({game.kind}, {len(game.steps)} replay steps; step {step})")
    print("id\tname\tmap (x,y)\tboard / zone\tlocation")
    for piece in position:
        print(_text_line(piece))
        if piece.properties:
            pairs = ", ".join(f"{key}={value}" for key, value in sorted(piece.properties.items()))
            print(f"\t{pairs}")
    for problem in game.problems():
        print(f"adjutant: warning: {problem}", file=sys.stderr)
    return 0
