"""`adjutant plan POSITION.json [--pack PACK] [--answers ANSWERS.json] [--json]`.

Why a command on the neutral position: players (and tests) can ask "what is due?" without VASSAL at
all. Exit status: 0 nothing is due, 1 events are due or a War & Peace action broke 6.1, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rules.engine import plan
from rules.packs import load_pack
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
        help='rules pack: a name under rules/packs or a directory (default: the position\'s "pack", else tk)',
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


def run(args: argparse.Namespace) -> int:
    data = read_json(args.position, "position")
    state = GameState.from_json(data, source=args.position)
    pack_name = args.pack or state.pack or "tk"
    pack_ref: str | Path = pack_name
    if args.pack is None and state.pack and not Path(state.pack).is_absolute():
        beside = Path(args.position).parent / state.pack
        if beside.is_dir():
            pack_ref = beside
    pack = load_pack(pack_ref)
    answers: dict[str, Any] = {}
    if args.answers:
        answers = read_json(args.answers, "answers file")
        if not isinstance(answers, dict):
            raise InputError(args.answers, "answers must be a JSON object keyed by choice id")
    result = plan(state, pack, answers=answers, answers_source=args.answers or "<answers>")
    if args.json:
        print(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
    else:
        print(result.render_text())
    return 1 if result.due else 0
