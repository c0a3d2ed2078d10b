"""`adjutant verify SAVE_OR_LOG --module MODULE`: check our location names against VASSAL's own record.

Why: every piece VASSAL has moved carries `OldMap`/`OldX`/`OldY`/`OldLocationName` — the point
it came from and the name VASSAL itself gave that point. Recomputing the name of (OldMap, OldX,
OldY) with our grid code and comparing is the user's proof that Adjutant reads this module's
maps exactly as VASSAL does. Exit 0 only when every record agrees.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from bridge.cli.commands.pieces import add_game_arguments, game_module_json, load_checked
from bridge.cli.helptext import HelpFormatter
from bridge.common.jsonout import header

if TYPE_CHECKING:
    from vassal_parser.game import Game

EPILOG = """\
examples:
  adjutant verify game.vsav --module TK.vmod
  adjutant verify session.vlog --module TK.vmod --json

exit status: 0 every record agrees (or no piece carries one); 1 some disagree; 2 bad input.
"""

EXIT_DISAGREE = 1


@dataclass
class Disagreement:
    id: str
    name: str
    map: str
    x: int
    y: int
    vassal_says: str
    we_compute: str


@dataclass
class VerifyResult:
    agree: int
    total: int
    disagreements: list[Disagreement]
    pieces: int = 0  # every piece of the position, recorded or not


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "verify",
        help="recompute VASSAL's recorded location names (OldLocationName) and compare",
        description=(
            "For every piece whose properties carry VASSAL's own record of where it was (OldMap, OldX, "
            "OldY, OldLocationName), recompute the location name of that point from the module and compare. "
            "Exit 0 only when all agree."
        ),
        epilog=EPILOG,
        formatter_class=HelpFormatter,
    )
    add_game_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument("--format", choices=("text", "json"), help="text (default) or json (= --json)")
    parser.set_defaults(handler=run_verify)


def verify_game(game: Game) -> VerifyResult:
    """Compare each piece's OldLocationName with our name for (OldMap, OldX, OldY).

    Only records with a non-empty OldMap count: VASSAL writes empty Old* values for pieces that
    came from no map (e.g. fresh from a piece palette), and those name no point.
    """
    from vassal_parser.errors import InputError

    agree = 0
    disagreements: list[Disagreement] = []
    position = game.position()
    for piece in position:
        props = piece.properties
        old_map = props.get("OldMap")
        if not old_map or "OldLocationName" not in props or "OldX" not in props or "OldY" not in props:
            continue
        expected = props["OldLocationName"]
        try:
            x, y = int(props["OldX"]), int(props["OldY"])
        except ValueError:
            disagreements.append(
                Disagreement(piece.id, piece.basic_name, old_map, 0, 0, expected, "<bad OldX/OldY>")
            )
            continue
        layout = game.layout(old_map)
        if layout is None:
            computed = "<map not in module>"
        else:
            try:
                computed = layout.location_name(x, y)
            except InputError as exc:
                computed = f"<{exc.message}>"
        if computed == expected:
            agree += 1
        else:
            disagreements.append(Disagreement(piece.id, piece.basic_name, old_map, x, y, expected, computed))
    return VerifyResult(agree, agree + len(disagreements), disagreements, len(position))


def run_verify(args: argparse.Namespace) -> int:
    game = load_checked(args.game, args.module, args.extension)
    result = verify_game(game)
    unrecorded = result.pieces - result.total
    if args.json or getattr(args, "format", None) == "json":
        document = {
            **header("verify"),
            "file": str(args.game),
            "module": game_module_json(game),
            "agree": result.agree,
            "total": result.total,
            "pieces": result.pieces,
            "unrecorded": unrecorded,
            "disagreements": [asdict(d) for d in result.disagreements],
            "problems": game.problems(),
        }
        print(json.dumps(document, indent=1, ensure_ascii=False))
    else:
        wrong = len(result.disagreements)
        verdict = "" if not wrong else f", {wrong:,} {'disagrees' if wrong == 1 else 'disagree'}"
        print(f"{args.game}: {result.agree:,} of {result.total:,} recorded locations agree{verdict}; "
              f"{unrecorded:,} {'piece carries' if unrecorded == 1 else 'pieces carry'} no record")
        if result.total == 0:
            print("no piece carries VASSAL's record of where it was (OldMap/OldX/OldY/OldLocationName)")
        for d in result.disagreements:
            print(
                f"DISAGREE {d.id} {d.name!r} at {d.map} ({d.x},{d.y}): "
                f"VASSAL says {d.vassal_says!r}, we compute {d.we_compute!r}"
            )
        for problem in game.problems():
            print(f"note: {problem}")
    return 0 if not result.disagreements else EXIT_DISAGREE
