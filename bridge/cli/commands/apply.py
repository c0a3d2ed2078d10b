"""`adjutant apply GAME --module M --pack P --out NEW.vlog|NEW.vsav`: the plan written back into VASSAL.

Exit status: 0 written, 1 nothing written because the plan waits on unanswered choices (the
message lists them as `check` does), 2 bad input — including a step the pack cannot place and an
output file that exists — and 3 nothing written because an event is undecided (a map fact the pack
lacks; docs/writeback.md).
"""

from __future__ import annotations

import argparse
import sys

from bridge.cli.commands.check import add_answer_arguments, collect_answers
from bridge.cli.helptext import HelpFormatter
from bridge.pipeline import CheckPipeline, load_answers
from bridge.writeback.applier import NeedsAnswers, PlanUndecided, apply_plan

EXIT_NEEDS_ANSWERS = 1
EXIT_UNDECIDED = 3  # as `check`: something the pack lacks keeps an event undecided
EPILOG = """\
examples:
  adjutant apply game.vsav --module TK.vmod --pack my-pack --out game-adjutant.vlog
  adjutant apply game.vsav --module TK.vmod --pack my-pack --answers a.json --out next.vsav --json
  adjutant apply game.vsav --module TK.vmod --pack my-pack --answer 16.2.1:country=Belgium-Holland \
--out next.vsav

my-pack: your pack for the module (`adjutant pack scaffold TK.vmod --base tk -o my-pack`).
exit status: 0 written; 1 nothing written, the plan waits on unanswered choices; 3 nothing written,
an event is undecided (a map fact the pack lacks); 2 bad input (or --out exists without --force).
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "apply", help="write the plan's moves as a VASSAL continuation log or save",
        description="Plan a VASSAL save or log, then write a NEW file with the required moves: a .vlog "
                    "continuation (one replay step per plan step, each citing its rule in the chat) or a "
                    ".vsav with the moves made. The game file itself is never changed.",
        epilog=EPILOG, formatter_class=HelpFormatter)
    parser.add_argument("file", metavar="GAME", help="a .vsav save or .vlog log")
    parser.add_argument("--module", required=True, help="the VASSAL module (.vmod) the file was saved with")
    parser.add_argument("--extension", action="append", default=[], metavar="VMDX",
                        help="a module extension in use (repeatable)")
    parser.add_argument("--pack", required=True, help="rules pack: a name or a directory")
    add_answer_arguments(parser)  # --answers FILE, --answer ID=VALUE and --fact NAME=VALUE, as `check`
    parser.add_argument("--step", type=int, help="for a log: plan the position after this many replay steps "
                                                  "(default: the last); later steps are not kept")
    parser.add_argument("--partial", action="store_true",
                        help="write the steps before the first unanswered choice instead of refusing")
    parser.add_argument("--force", action="store_true",
                        help="replace --out if it exists (never the game file)")
    parser.add_argument("--out", required=True, help="NEW.vlog (continuation log) or NEW.vsav (moves made)")
    parser.add_argument("--json", action="store_true", help="print what was written as JSON (adjutant-apply)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    answers, source = collect_answers(args, load_answers)
    pipeline = CheckPipeline(args.module, args.pack, extensions=args.extension, remember=False)
    try:
        applied = apply_plan(pipeline, args.file, args.out, answers, step=args.step, partial=args.partial,
                             force=args.force, answers_source=source)
    except NeedsAnswers as waiting:
        print("\n".join(waiting.lines), file=sys.stderr)
        return EXIT_UNDECIDED if isinstance(waiting, PlanUndecided) else EXIT_NEEDS_ANSWERS
    if getattr(args, "json", False):
        from bridge.common.jsonout import dumps, header

        print(dumps({**header("apply"), "out": str(applied.out), "kind": applied.kind, "steps": applied.steps,
                     "operations": applied.operations, "description": applied.description,
                     "stopped": applied.stopped, "warnings": list(applied.warnings)}))
        return 0
    if getattr(args, "quiet", False):  # -q: only errors; the file is written all the same
        return 0
    what = "continuation log" if applied.kind == "log" else "save with the moves made"
    print(f"wrote {applied.out} ({what}): {applied.steps} step(s), {applied.operations} piece change(s)")
    print(f"  description: {applied.description}")
    if applied.stopped:
        print(f"  stopped before {applied.stopped}")
    for warning in applied.warnings:
        print(f"  warning: {warning}")
    if applied.kind == "log":
        print("  the opponent opens it with File > Load Game or Log... and steps with Page Down")
    return 0
