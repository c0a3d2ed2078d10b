"""How `adjutant ... --help` is laid out: descriptions wrapped to the terminal, examples kept as written.

Why not argparse's RawDescriptionHelpFormatter: it keeps the description unwrapped too, so a long
description runs off an 80-column terminal; the examples and exit statuses (the epilog) must keep
their columns.
"""

from __future__ import annotations

import argparse
import functools


@functools.cache
def terminal_width() -> int:
    """argparse's own width (the terminal's, less 2), asked once per process.

    Why: argparse makes a formatter for every `add_argument` (to check its metavar), and each asked
    the terminal afresh (an environment look-up and an `ioctl`); once is enough (issue 27)."""
    import shutil

    return shutil.get_terminal_size().columns - 2


class HelpFormatter(argparse.HelpFormatter):
    """Wrap prose; keep any text with indented lines (examples, exit statuses) exactly as written."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position,
                         terminal_width() if width is None else width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n  " in text or text.lstrip().startswith(("examples:", "exit status")):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)
