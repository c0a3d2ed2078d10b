"""`adjutant plan POSITION.json [--pack PACK | --tk-pack P --ds-pack P] [--answers ANSWERS.json] [--json]`.

Why a command on the neutral position: players (and tests) can ask "what is due?" without VASSAL at
all. A combined Axis Empires position (`{"maps": {"TK": ..., "DS": ...}}`, rules/combined.py) is planned
TK map first, then DS (AE 6.2 ©), each map with its own pack. Exit status: 0 nothing is due and nothing
undecided, 1 events are due or a War & Peace action broke 6.1, 2 bad input, 3 nothing is due but some event
is undecided for lack of a fact.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bridge.cli.helptext import HelpFormatter
from vassal_parser.errors import InputError

if TYPE_CHECKING:
    from rules.packs import Pack

MAX_JSON_BYTES = 32 * 1024 * 1024
VASSAL_SUFFIXES = (".vsav", ".vlog", ".sav", ".log", ".vmod", ".vmdx")

EPILOG = """\
examples:
  adjutant plan examples/tk/reduced-us-impact.position.json    (from the project folder)
  adjutant plan examples/awaw/offer.position.json --answers examples/awaw/offer.accept.answers.json
  adjutant plan position.json --pack ds --answers answers.json --json
  adjutant plan combined.json --tk-pack tk --ds-pack ds

exit status: 0 nothing is due; 1 events are due or a War & Peace action broke 6.1;
3 nothing is due but an event is undecided (a fact it needs is missing); 2 bad input
(a VASSAL save, a position without a phasing faction, an answer id no event asks).
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "plan",
        help="which conditional events are due in a position (JSON)",
        description="Check the phasing faction's Conditional Events (6.2) in a neutral position file; list "
        "each event with its rule number, why it fired or not, its steps and the choices to make. "
        "For a VASSAL save or log use `adjutant check`.",
        epilog=EPILOG,
        formatter_class=HelpFormatter,
    )
    parser.add_argument("position", metavar="POSITION.json", help="the position (docs/position-format.md)")
    parser.add_argument(
        "--pack",
        help="rules pack: a name under rules/packs or a directory (default: the position's \"pack\", "
        "else tk); not for a combined position",
    )
    parser.add_argument(
        "--tk-pack",
        metavar="PACK",
        help="combined position: the TK map's pack (default: maps.TK's pack, else tk)",
    )
    parser.add_argument(
        "--ds-pack",
        metavar="PACK",
        help="combined position: the DS map's pack (default: maps.DS's pack, else ds)",
    )
    from bridge.cli.commands.check import add_answer_arguments

    add_answer_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print the machine form (docs/plan-format.md)")
    parser.add_argument("--format", choices=("text", "json"), help="text (default) or json (= --json)")
    parser.set_defaults(handler=run)


def read_json(path: str | Path, what: str) -> Any:
    """Read a JSON file; anything wrong with it is one InputError line naming the file."""
    file = Path(path)
    try:
        if file.stat().st_size > MAX_JSON_BYTES:
            raise InputError(file, f"{what} is larger than {MAX_JSON_BYTES // (1024 * 1024)} MiB")
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(file, f"{what} not found") from None
    except IsADirectoryError:
        raise InputError(file, f"{what} is a directory, not a file") from None
    except UnicodeDecodeError:
        raise InputError(file, f"{what} is not UTF-8 text") from None
    except OSError as exc:
        raise InputError(file, f"cannot read {what}: {exc.strerror}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            file, f"{what} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except RecursionError:
        raise InputError(file, f"{what} is nested too deeply") from None


def resolve_pack(explicit: str | None, named: Any, position_path: str | Path, default: str) -> Pack:
    """The pack to plan with: the option, else the position's own "pack" (a folder beside the position
    file wins over a built-in pack of that name), else the edition's default."""
    from rules.packs import load_pack

    if explicit is not None:
        return load_pack(explicit)
    if not isinstance(named, str) or not named:
        return load_pack(default)
    beside = Path(position_path).parent / named
    try:
        is_beside = not Path(named).is_absolute() and beside.is_dir()
    except (OSError, ValueError):  # a "pack" no path can be (too long, a NUL byte): not beside it
        is_beside = False
    if is_beside:
        return load_pack(beside)
    return load_pack(named)


def read_answers(path: str | None) -> dict[str, Any]:
    if not path:
        return {}
    answers = read_json(path, "answers file")
    if not isinstance(answers, dict):
        raise InputError(path, "answers must be a JSON object keyed by choice id")
    return answers


def refuse_non_positions(path: str, data: Any) -> None:
    """A VASSAL file, or a position that names no phasing faction, is not something to plan.

    Why refuse `{}`: the position format defaults many fields, but whose Conditional Events Segment
    it is must be said — "Nothing is due" for an empty file would be a false all-clear. An A World at
    War position (with its `awaw` part) is the exception: rule 60 has no phasing faction."""
    from rules.combined import is_combined
    from rules.state import FACTIONS

    if not isinstance(data, dict):
        return  # GameState.from_json says what is wrong with it
    if data.get("awaw") is not None:
        return  # A World at War rule 60 is checked for the whole war, not in one faction's segment
    if is_combined(data):
        turns = [m.get("turn") for m in data["maps"].values() if isinstance(m, dict)]
    else:
        turns = [data.get("turn") if isinstance(data, dict) else None]
    for turn in turns:
        if turn is not None and not isinstance(turn, dict):
            return  # GameState.from_json says what is wrong with it
        if not (isinstance(turn, dict) and turn.get("phasing")):
            raise InputError(path, f"no phasing faction: the position must give turn.phasing "
                                   f"({', '.join(FACTIONS)})")


def run(args: argparse.Namespace) -> int:
    from bridge.cli.commands.check import collect_answers
    from rules.combined import is_combined, plan_combined
    from rules.engine import check_answer_ids, plan
    from rules.state import GameState

    if Path(args.position).suffix.lower() in VASSAL_SUFFIXES:
        raise InputError(args.position, "that is a VASSAL file, not a position; use `adjutant check "
                                        f"{args.position}` (with --module and --pack)")
    data = read_json(args.position, "position")
    refuse_non_positions(args.position, data)
    answers, answers_source = collect_answers(args, read_answers)
    if any(str(k).startswith("fact:") or k == "facts" for k in answers):
        raise InputError(answers_source, "game facts (--fact, \"facts\") are for VASSAL files (check, apply, "
                                         "watch); a position JSON carries its facts itself")
    if is_combined(data):
        if args.pack is not None:
            raise InputError(
                args.position, "a combined position has one pack per map: use --tk-pack/--ds-pack, not --pack"
            )
        maps = data["maps"]
        tk_named = maps.get("TK", {}).get("pack") if isinstance(maps.get("TK"), dict) else None
        ds_named = maps.get("DS", {}).get("pack") if isinstance(maps.get("DS"), dict) else None
        tk_pack = resolve_pack(args.tk_pack, tk_named, args.position, "tk")
        ds_pack = resolve_pack(args.ds_pack, ds_named, args.position, "ds")
        for edition, edition_pack in (("TK", tk_pack), ("DS", ds_pack)):
            edition_answers = answers.get(edition)
            if isinstance(edition_answers, dict):
                check_answer_ids(edition_answers, edition_pack, answers_source)
        result: Any = plan_combined(
            data, tk_pack, ds_pack, answers, source=args.position, answers_source=answers_source
        )
    else:
        if args.tk_pack is not None or args.ds_pack is not None:
            raise InputError(
                args.position, 'not a combined position ({"maps": {"TK": ..., "DS": ...}}): use --pack'
            )
        state = GameState.from_json(data, source=args.position)
        pack = resolve_pack(args.pack, state.pack, args.position, "awaw" if state.awaw is not None else "tk")
        if state.awaw is not None and "awaw" not in pack.extra:
            raise InputError(args.position, f"an A World at War position (it has 'awaw') needs an AWAW pack, "
                                            f"not {pack.name}")
        check_answer_ids(answers, pack, answers_source)
        result = plan(state, pack, answers=answers, answers_source=answers_source)
    document = result.to_json()
    if args.json or getattr(args, "format", None) == "json":
        print(json.dumps(document, indent=2, ensure_ascii=False))
    else:
        # -v/--verbose (a global option, bridge/cli/main.py) also shows the why lines that do not decide (e.g.
        # countries that did not trigger an event that fired); the JSON always has them in why_detail.
        print(result.render_text(verbose=bool(getattr(args, "verbose", 0))))
    return result.exit_status
