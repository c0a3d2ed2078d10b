"""The one error type every reader raises for bad user input.

Why one type: the command line turns it into a single line naming the file and the problem (exit 2),
so a user never sees a traceback for a file that is simply not what it claims to be.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path


class InputError(Exception):
    """Bad user input: a file that is not what it should be, or an argument that cannot work."""

    def __init__(self, source: str | Path | None, message: str) -> None:
        self.source = str(source) if source is not None else None
        self.message = message
        super().__init__(self.one_line())

    def one_line(self) -> str:
        text = " ".join(self.message.split())
        return f"{self.source}: {text}" if self.source else text


@contextlib.contextmanager
def about(source: str | Path) -> Iterator[None]:
    """Name `source` in any InputError raised without a file inside the block.

    Why: deep readers (a BoardPicker command, a grid attribute) know what is wrong but not which
    file it came from; the entry point that opened the file adds its name, so the one line a user
    sees always says which file to look at."""
    try:
        yield
    except InputError as exc:
        if exc.source is None:
            raise InputError(source, exc.message) from None
        raise
