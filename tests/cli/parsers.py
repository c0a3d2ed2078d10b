"""Every parser of the command line, walked once: the help tests read each command and each action of one."""

from __future__ import annotations

import argparse

from bridge.cli import main as cli


def every_parser() -> list[tuple[str, argparse.ArgumentParser]]:
    """(`adjutant WORDS`, its parser) for every command and every action of one (`pack scaffold`)."""
    found: list[tuple[str, argparse.ArgumentParser]] = []

    def walk(words: str, parser: argparse.ArgumentParser) -> None:
        found.append((words, parser))
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    walk(f"{words} {name}".strip(), child)

    walk("", cli.build_parser("*"))
    return found
