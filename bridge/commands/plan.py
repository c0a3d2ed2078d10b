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
from typing import Any

from rules.combined import is_combined, plan_combined
from rules.engine import check_answer_ids, plan
from rules.packs import Pack, load_pack
from rules.state import GameState
from vassal_parser.errors import InputError

MAX_JSON_BYTES = 32 * 1024 * 1024


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "plan",
        help="which conditional events are due in a position (JSON)",
        description="Check the phasing faction's Conditional Events (6.2) in a neutral position file; list "
        "each event with its rule number, why it fired or not, its steps and the choices to make.",
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
    parser.add_argument("--answers", metavar="ANSWERS.json", help="answers keyed by choice id")
    parser.add_argument("--json", action="store_true", help="print the machine form (docs/plan-format.md)")
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
    if explicit is not None:
        return load_pack(explicit)
    if not isinstance(named, str) or not named:
        return load_pack(default)
    beside = Path(position_path).parent / named
    if not Path(named).is_absolute() and beside.is_dir():
        return load_pack(beside)
    return load_pack(named)


def read_answers(path: str | None) -> dict[str, Any]:
    if not path:
        return {}
    answers = read_json(path, "answers file")
    if not isinstance(answers, dict):
        raise InputError(path, "answers must be a JSON object keyed by choice id")
    return answers


def run(args: argparse.Namespace) -> int:
    data = read_json(args.position, "position")
    answers = read_answers(args.answers)
    answers_source = args.answers or "<answers>"
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
    if args.json:
        print(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
    else:
        print(result.render_text())
    return result.exit_status
