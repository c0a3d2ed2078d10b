"""The `adjutant` command line.

Each subcommand lives in its own module under `bridge.commands` and exposes
`register(subparsers)`; this file only wires them together and turns bad input into one line.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from vassal_parser.errors import InputError

# Order here is the order `adjutant --help` lists them.
SUBCOMMAND_MODULES: tuple[str, ...] = (
    "demo",
    "inspect",
    "pieces",
    "verify",
    "plan",
    "check",
    "apply",
    "extension",
    "pack",
    "watch",
)

EXIT_BAD_INPUT = 2
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: what a shell reports for a tool whose reader went away


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="adjutant",
        description=(
            "Keep the conditional-event bookkeeping of Axis Empires and A World at War games on VASSAL "
            "honest: read VASSAL modules, saves and logs, and say which events are due, with the rule cited."
        ),
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMAND_MODULES:
        try:
            module = importlib.import_module(f"bridge.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"bridge.commands.{name}":
                continue  # subcommand not built yet in this checkout
            raise
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return EXIT_BAD_INPUT
    try:
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
