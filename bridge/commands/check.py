"""`adjutant check SAVE_OR_LOG --module M --pack P`: the conditional-events plan for a VASSAL file.

Exit status says what the player must do: 0 nothing is due and nothing undecided, 1 events are due
(or a War & Peace action broke 6.1), 2 bad input (the CLI turns `InputError` into one line), 3 nothing
is due but some event is undecided because the pack or position lacks a fact it needs.
"""

from __future__ import annotations

import argparse
import json

from bridge.pipeline import CheckPipeline, load_answers


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "check", help="plan the conditional events for a VASSAL save or log",
        description="Read a VASSAL save (.vsav) or log (.vlog) with its module, map it through the pack's "
                    "[vassal] table and print which conditional events are due, with the rule cited.")
    parser.add_argument("file", metavar="SAVE_OR_LOG", help="a .vsav save or .vlog log")
    parser.add_argument("--module", required=True, help="the VASSAL module (.vmod) the file was saved with")
    parser.add_argument("--extension", action="append", default=[], metavar="VMDX",
                        help="a module extension in use (repeatable)")
    parser.add_argument("--pack", required=True, help="rules pack: a name (tk, demo...) or a directory")
    parser.add_argument("--answers", help="JSON file of answers to the plan's choices (choice id -> value)")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--step", type=int, help="for a log: the position after this many replay steps")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    answers = load_answers(args.answers)
    pipeline = CheckPipeline(args.module, args.pack, extensions=args.extension)
    result = pipeline.plan_file(args.file, step=args.step, answers=answers,
                                answers_source=args.answers or "<answers>")
    if args.format == "json":
        print(json.dumps(result.plan, indent=2, ensure_ascii=False))
    else:
        print(result.text)
    return result.exit_status
