"""The `adjutant` command line.

Each subcommand lives in its own module under `bridge.cli.commands` and exposes
`register(subparsers)`; this file only wires them together and turns bad input into one line.

Why the one-line help of each command is written here and not read from its module: `adjutant --help`
must start in well under 0.1 s (benchmarks/startup.py), so only the module of the command being run
is imported; the others get a placeholder parser that shows their help line and is never parsed.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from bridge.cli import config
from bridge.cli.helptext import HelpFormatter

# name -> the line `adjutant --help` shows. Order here is the order `adjutant --help` lists them.
# To add a command: one line here, and bridge/cli/commands/<name>.py with `register(subparsers)`.
SUBCOMMANDS: dict[str, str] = {
    "demo": "play the demo story into the live overlay and say what each save makes due",
    "check": "the plan for a VASSAL save or log: a PBEM report (text, markdown, html, json) or a timeline",
    "continuity": "does the NEXT save or log start where the PREVIOUS one ended? (ghost moves)",
    "watch": "watch a save folder and serve the live overlay (player, stream and control views)",
    "plan": "which conditional events are due in a position (JSON)",
    "apply": "write the plan's moves as a VASSAL continuation log or save",
    "extension": "build the Adjutant extension (.vmdx) for a module",
    "pack": "write or check a pack's VASSAL mapping",
    "inspect": "describe a VASSAL module, extension, save or log",
    "pieces": "list every piece of a save or log with its map, board, zone and location name",
    "verify": "recompute VASSAL's recorded location names (OldLocationName) and compare",
}
SUBCOMMAND_MODULES: tuple[str, ...] = tuple(SUBCOMMANDS)

EXIT_BAD_INPUT = 2
EXIT_INTERNAL_ERROR = 70  # a bug in Adjutant (sysexits EX_SOFTWARE; 3 is "undecided"): one line + error log
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: what a shell reports for a tool whose reader went away

EPILOG = """\
examples:
  adjutant demo                                   the live demo (serves until Ctrl-C)
  adjutant check game.vsav                        with module and pack from ./adjutant.toml
  adjutant check game.vsav --module M.vmod --pack my-pack --format markdown --only-due
  adjutant check session.vlog --timeline          when each event became due, step by step
  adjutant watch ~/vassal/saves --module M.vmod --pack my-pack
  adjutant pack scaffold M.vmod --base tk -o my-pack   first: my-pack, a pack of your own for the module

exit status: 0 nothing due / all agree, 1 something due (or differs), 2 bad input,
3 nothing due but something undecided (a fact the position does not give).
`adjutant COMMAND --help` gives each command's options, examples and exit statuses.
Documentation: {docs}
"""


def _version() -> str:
    """The package's version: one constant (pyproject reads it too), so no metadata lookup at start-up."""
    from bridge import __version__

    return __version__


def command_word(argv: Sequence[str]) -> str | None:
    """The subcommand named in `argv` (the first word that is not a global option), if any."""
    words = iter(argv)
    for word in words:
        if word == "--config":
            next(words, None)
            continue
        if word.startswith("-"):
            continue
        return word
    return None


def build_parser(selected: str | None = "*", listed: bool = True) -> argparse.ArgumentParser:
    """The parser; only `selected`'s module is imported ("*": every command's, None: none).

    `listed=False` (a command is being run, no help asked for) leaves out the other commands'
    placeholder parsers: they only list the commands in `adjutant --help` and an unknown command's
    message, and each costs argparse's set-up and its translation look-ups (issue 27)."""
    parser = argparse.ArgumentParser(
        prog="adjutant",
        description=(
            "Keep the conditional-event bookkeeping of Axis Empires and A World at War games on VASSAL "
            "honest: read VASSAL modules, saves and logs, and say which events are due, with the rule cited."
        ),
        epilog=EPILOG.format(docs=config.docs_location()) + config.help_lines(),
        formatter_class=HelpFormatter,
        allow_abbrev=False,  # `--answer` must never be read as `--answers` (nor any prefix as an option)
    )
    parser.add_argument("--version", action="version", version=f"adjutant {_version()}")
    add_global_options(parser)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMAND_MODULES:
        if selected == "*" or selected == name:
            import importlib

            try:
                module = importlib.import_module(f"bridge.cli.commands.{name}")
            except ModuleNotFoundError as exc:
                if exc.name == f"bridge.cli.commands.{name}":
                    continue  # subcommand not built yet in this checkout
                raise
            module.register(subparsers)
            _accept_global_options(subparsers.choices[name])
        elif listed:
            subparsers.add_parser(name, help=SUBCOMMANDS.get(name, ""), add_help=False,
                                  formatter_class=HelpFormatter)
    return parser


def _accept_global_options(parser: argparse.ArgumentParser) -> None:
    """`adjutant check game.vsav -v` as well as `adjutant -v check game.vsav` (nested actions too);
    no command takes an abbreviated option (`allow_abbrev`, read when parsing)."""
    parser.allow_abbrev = False
    add_global_options(parser, suppress=True)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                _accept_global_options(child)


def add_global_options(parser: argparse.ArgumentParser, suppress: bool = False) -> None:
    """-v/-q/--config, accepted before the command (and, with `suppress`, after it too)."""
    default = argparse.SUPPRESS if suppress else None
    parser.add_argument("-v", "--verbose", action="count", default=argparse.SUPPRESS if suppress else 0,
                        help="more log output (-vv: debug)")
    parser.add_argument("-q", "--quiet", action="store_true",
                        default=argparse.SUPPRESS if suppress else False, help="only errors")
    parser.add_argument("--config", metavar="FILE", default=default,
                        help="read options from FILE instead of looking for adjutant.toml")


def _set_up_logging(args: argparse.Namespace) -> None:
    verbose, quiet = getattr(args, "verbose", 0) or 0, getattr(args, "quiet", False)
    if not verbose and not quiet:
        return  # the libraries' defaults: warnings and errors on stderr
    import logging

    level = logging.ERROR if quiet else logging.INFO if verbose == 1 else logging.DEBUG
    logging.basicConfig(level=level, format="adjutant: %(name)s: %(message)s", stream=sys.stderr)
    logging.getLogger("adjutant").setLevel(level)


def main(argv: Sequence[str] | None = None) -> int:
    from vassal_parser.errors import InputError

    argv = list(sys.argv[1:] if argv is None else argv)
    selected = command_word(argv)
    listed = selected not in SUBCOMMANDS or any(word in ("-h", "--help") for word in argv)
    parser = build_parser(selected, listed=listed)
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return EXIT_BAD_INPUT
    try:
        _start_caches()
        _set_up_logging(args)
        config.apply(args)
        status = int(args.handler(args) or 0)
        sys.stdout.flush()  # inside the try: a reader that went away is handled below, not at exit
        return status
    except InputError as exc:
        print(f"adjutant: {exc.one_line()}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `adjutant demo --no-serve | head -1`: the reader left, which is not an error worth a
        # traceback. Point stdout at /dev/null so the interpreter's final flush cannot fail again.
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except Exception as exc:  # the boundary: a bug is one line + a log, never a traceback
        from bridge.common.errorlog import bug_line

        print(f"adjutant: {bug_line(f'adjutant {args.command}', exc)}", file=sys.stderr)
        return EXIT_INTERNAL_ERROR


def _start_caches() -> None:
    """A command (not `--help`) keeps what start-up recomputes from unchanged text between runs:
    the record classes' compiled methods and the packs' parsed TOML (vassal_parser/user_cache.py)."""
    from bridge.cli import dataclass_code
    from vassal_parser import user_cache

    user_cache.enable()
    dataclass_code.install()


def _silence_stdout() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass  # stdout is not a real file (tests capture it): nothing left to flush into a pipe
    finally:
        os.close(devnull)


if __name__ == "__main__":
    raise SystemExit(main())
