"""`adjutant check SAVE_OR_LOG`: the conditional-events plan for a VASSAL file, as a PBEM report.

Exit status says what the player must do: 0 nothing is due, 1 events are due (or a War & Peace
action broke 6.1), 3 nothing is due but some event is undecided (the position lacks a fact it
needs), 2 bad input (the CLI turns `InputError` into one line).

Why the pipeline is imported in `run`: `adjutant check --help` must not load lxml and the engine.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from bridge.cli import config
from bridge.cli.helptext import HelpFormatter
from bridge.cli.plan_status import EXIT_DUE, EXIT_NOTHING_DUE, EXIT_UNDECIDED, exit_status  # noqa: F401  (re-exported: their home before issue 39)

FORMATS = ("text", "json", "markdown", "html")

EPILOG = """\
examples:
  adjutant check game.vsav --module TK.vmod --pack my-pack
  adjutant check game.vsav                                  (module, pack from adjutant.toml)
  adjutant check game.vsav --format markdown --only-due     paste into an email or a forum post
  adjutant check game.vsav --format html --out report.html  one self-contained file to attach
  adjutant check session.vlog --timeline                    when each event became due
  adjutant check session.vlog --step 12                     the position after step 12
  adjutant check round3/                                    every save and log in a folder, one line each
  adjutant check a.vsav b.vsav c.vlog --format json         a list of summaries, on every core (--jobs N)
  adjutant check game.vsav --answer 16.2.1:country=Belgium-Holland

my-pack: your pack for the module (`adjutant pack scaffold TK.vmod --base tk -o my-pack`,
then `adjutant pack edit`); the built-in tk and ds packs hold the rules data but read no module.
--step N means "the position after N replay steps" (0 = the log as opened), as in `adjutant pieces`.
exit status: 0 nothing is due; 1 events are due or a War & Peace action broke 6.1;
3 nothing is due but an event is undecided (a fact it needs is missing); 2 bad input.
Several files (or a folder): the worst status of them all (2 bad input, then 1, then 3, then 0);
a file that cannot be read is its own line and the others are still checked.
"""


def add_answer_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--answers", metavar="FILE.json",
                        help="JSON file of answers to the plan's choices (choice id -> value)")
    parser.add_argument("--answer", action="append", default=[], metavar="ID=VALUE",
                        help="one answer (repeatable; wins over --answers); VALUE is text, or JSON "
                             "for a list or number, e.g. --answer '16.5.4:redeploy=[\"GE-1\"]'")
    parser.add_argument("--fact", action="append", default=[], metavar="NAME=VALUE",
                        help="a game fact no save carries (repeatable; the plan's questions name them), "
                             "e.g. --fact dp_level=-2 or --fact western_at_war=Britain,France")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "check", help="the plan for a VASSAL save or log: a PBEM report or a timeline",
        description="Read a VASSAL save (.vsav) or log (.vlog) with its module, map it through the pack's "
                    "[vassal] table and report which conditional events are due, with the rule cited.",
        epilog=EPILOG, formatter_class=HelpFormatter)
    parser.add_argument("file", metavar="SAVE_OR_LOG", nargs="+",
                        help="a .vsav save or .vlog log; several files or a folder: one summary line each")
    parser.add_argument("--module", help="the VASSAL module (.vmod) the file was saved with "
                                         "(or `module` in adjutant.toml)")
    parser.add_argument("--extension", action="append", default=[], metavar="VMDX",
                        help="a module extension in use (repeatable; or `extensions` in adjutant.toml)")
    parser.add_argument("--pack", help="rules pack: a name (tk, ds, demo) or a directory "
                                       "(or `pack` in adjutant.toml)")
    add_answer_arguments(parser)
    parser.add_argument("--format", choices=FORMATS, default=None, help="report format (default text)")
    parser.add_argument("--json", action="store_true", help="the same as --format json")
    parser.add_argument("--only-due", action="store_true",
                        help="only what is due, undecided or violated, and the choices")
    parser.add_argument("--faction", help="only what concerns this faction (Axis, Western, Soviet; any case)")
    parser.add_argument("--step", type=int, metavar="N",
                        help="for a log: the position after N replay steps (0 = as opened; default: the end)")
    parser.add_argument("--audit", action="store_true",
                        help="for a log: was each event due in it carried out, step by step "
                             "(with --step N: up to step N)")
    parser.add_argument("--timeline", action="store_true",
                        help="for a log: at which step each event became due (and stopped being due)")
    parser.add_argument("--out", metavar="FILE", help="write the report to FILE (or `out` in adjutant.toml)")
    parser.add_argument("--jobs", type=int, metavar="N",
                        help="several files: check them in N processes (default: one per core)")
    config.opt_in(parser, ("module", "extensions", "pack", "out"), anchor="file", required=("module", "pack"))
    parser.set_defaults(handler=run)


def parse_answer_flags(values: list[str]) -> dict[str, Any]:
    """`--answer ID=VALUE` pairs; VALUE is JSON when it reads as JSON (a list, a number), else text."""
    from vassal_parser.errors import InputError

    answers: dict[str, Any] = {}
    for item in values:
        choice_id, sep, raw = item.partition("=")
        if not sep or not choice_id.strip():
            raise InputError(None, f"--answer {item!r}: write it as CHOICE_ID=VALUE")
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        if isinstance(value, dict):
            raise InputError(None, f"--answer {item!r}: an answer is text, a number or a list, not an object")
        answers[choice_id.strip()] = value
    return answers


def collect_answers(args: argparse.Namespace, reader: Any = None) -> tuple[dict[str, Any], str]:
    """--answers FILE, then --answer ID=VALUE over it; and the name to cite in errors."""
    if reader is None:
        from bridge.pipeline import load_answers as reader

    from bridge.mapping.game_facts import parse_fact_flags

    answers = dict(reader(args.answers))
    answers.update(parse_answer_flags(args.answer))
    answers.update(parse_fact_flags(getattr(args, "fact", []) or []))
    source = args.answers or "<answers>"
    if args.answer:
        source = f"{args.answers} and --answer" if args.answers else "--answer"
    elif getattr(args, "fact", None) and not args.answers:
        source = "--fact"
    return answers, source


def canonical_faction(name: str | None) -> str | None:
    """A faction named in any case, as the rules write it; an unknown one lists the valid ones."""
    if name is None:
        return None
    from rules.state import FACTIONS
    from vassal_parser.errors import InputError

    for faction in FACTIONS:
        if faction.casefold() == name.strip().casefold():
            return faction
    raise InputError(None, f"unknown faction {name!r}: use one of {', '.join(FACTIONS)}")


def emit(text: str, out: Path | str | None) -> None:
    """Print the report, or write it to `out` (a temporary name, then a rename: never half a file)."""
    if out is None:
        print(text)
        return
    from vassal_parser.writer import write_atomically

    target = Path(out)
    if target.is_dir():
        from vassal_parser.errors import InputError

        raise InputError(target, "--out is a folder; give a file name")
    write_atomically(target, (text if text.endswith("\n") else text + "\n").encode("utf-8"))
    import sys

    # On stderr: stdout stays for the report itself (nothing else when it is piped or written).
    print(f"wrote {target}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    from bridge.pipeline import CheckPipeline
    from bridge.reports import report
    from vassal_parser.errors import InputError

    fmt = "json" if args.json else (args.format or "text")
    if args.json and args.format not in (None, "json"):
        raise InputError(None, f"--json and --format {args.format} disagree: give one")
    faction = canonical_faction(args.faction)
    answers, source = collect_answers(args)
    files = list(args.file)
    if len(files) > 1 or Path(files[0]).is_dir():
        return run_batch(args, files, fmt, answers, source)
    args.file = files[0]
    if args.timeline and args.step is not None:
        raise InputError(args.file, "--timeline walks every step; it takes no --step")
    pipeline = CheckPipeline(args.module, args.pack, extensions=args.extension)
    if args.audit:
        if args.timeline:
            raise InputError(args.file, "--audit and --timeline are two reports: give one")
        from bridge.reports import audit

        document = audit.build_audit(pipeline, args.file, answers=answers or None, answers_source=source,
                                     up_to=args.step)
        emit(audit.render(document, fmt), args.out)
        return 0 if document["settled"] else 1
    if args.timeline:
        from bridge.reports import timeline

        document = timeline.build_timeline(pipeline, args.file, answers=answers or None,
                                           answers_source=source)
        emit(timeline.render(document, fmt), args.out)
        return 1 if document["owed_at_end"] else exit_status(document["plan"])
    from bridge.reports.referee import referee

    result = pipeline.plan_file(args.file, step=args.step, answers=answers or None, answers_source=source)
    plan = referee(pipeline, args.file, args.step, answers or None, source, result)
    note_writeback_gap(pipeline, args.file, args.step, answers or None, plan)
    emit(report.render(plan, fmt, only_due=args.only_due, faction=faction), args.out)
    return exit_status(plan)


def note_writeback_gap(pipeline, path, step, answers, plan: dict) -> None:
    """An answer `check` accepts must be writable by `apply`; where the pack lacks what the write needs,
    the plan is not whole for VASSAL: say so (`vassal.not_writable`, and a warning naming the fact)."""
    fired = any(e.get("status") == "fired" and e.get("steps") for e in plan.get("events", []))
    if not fired or plan.get("pending_choices") or plan.get("undecided"):
        return
    from bridge.writeback.applier import writeback_gap

    gap = writeback_gap(pipeline, path, step, answers)
    if gap is not None:
        plan["vassal"]["not_writable"] = gap
        plan["vassal"]["warnings"].append(f"adjutant apply cannot write this plan into VASSAL: {gap}")


def run_batch(args: argparse.Namespace, names: list[str], fmt: str, answers: dict[str, Any],
              source: str) -> int:
    """Several files or a folder (bridge/cli/batch_check.py): one line per file and a total, or JSON."""
    from bridge.cli import batch_check
    from bridge.common.jsonout import dumps
    from vassal_parser.errors import InputError

    single = (("--timeline", args.timeline), ("--audit", args.audit), ("--step", args.step is not None))
    for flag, given in single:
        if given:
            raise InputError(None, f"{flag} reads one log; give one file, not {len(names)} or a folder")
    if fmt not in ("text", "json"):
        raise InputError(None, f"several files are summarised as text or json, not {fmt}")
    if args.jobs is not None and args.jobs < 1:
        raise InputError(None, f"--jobs {args.jobs}: give at least 1")
    files = batch_check.game_files(names)
    results = batch_check.check_files(files, args.module, args.pack, args.extension, answers, source,
                                      jobs=args.jobs)
    entries = []
    lines = []
    for entry in results:
        entries.append(entry)
        if fmt == "text":
            line = batch_check.summary_line(entry)
            if args.out is None:
                print(line, flush=True)  # as each file is done
            lines.append(line)
    if fmt == "json":
        emit(dumps(batch_check.document(entries)), args.out)
    else:
        total = batch_check.total_line(entries)
        if args.out is None:
            print(total)
        else:
            emit("\n".join([*lines, total]), args.out)
    return batch_check.worst(entry["exit_status"] for entry in entries)
