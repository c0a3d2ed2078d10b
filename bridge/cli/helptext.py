"""How `adjutant ... --help` is laid out: descriptions wrapped to the terminal, examples kept as written.

Why not argparse's RawDescriptionHelpFormatter: it keeps the description unwrapped too, so a long
description runs off an 80-column terminal; the examples and exit statuses (the epilog) must keep
their columns.
"""

from __future__ import annotations

import argparse


class HelpFormatter(argparse.HelpFormatter):
    """Wrap prose; keep any text with indented lines (examples, exit statuses) exactly as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n  " in text or text.lstrip().startswith(("examples:", "exit status")):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)
