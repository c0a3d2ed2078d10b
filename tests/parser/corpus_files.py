"""The corpus saves/logs this suite walks, and the counts SOURCES.md records for them.

Why read SOURCES.md: its counts (top-level tokens, AddPiece and LOG commands, leaf commands)
were computed by a separate throwaway decoder when the corpus was assembled; matching them is an
independent check of our decoder, not a test of the code against itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPUS_DIR

STREAM_SUFFIXES = (".vsav", ".sav", ".vlog", ".log")


@dataclass(frozen=True)
class Expected:
    leaf_commands: int
    top_level: int
    add_pieces: int
    log_commands: int


def expected_counts(corpus: Path = CORPUS_DIR) -> dict[str, Expected]:
    """`<repo dir>/<path>` -> counts, from the per-repository tables in SOURCES.md."""
    result: dict[str, Expected] = {}
    repo = None
    sources = corpus / "SOURCES.md"
    if not sources.exists():
        return result
    row = re.compile(r"^\| `([^`]+)` \|[^|]*\|[^|]*\|[^|]*\| (\d+) \| (\d+) \| (\d+) \| (\d+) \|")
    for line in sources.read_text(encoding="utf-8").splitlines():
        heading = re.match(r"^## (\S+)/(\S+)\s*$", line)
        if heading:
            repo = f"{heading.group(1)}__{heading.group(2)}"
            continue
        match = row.match(line)
        if match and repo:
            numbers = [int(value) for value in match.groups()[1:]]
            result[f"{repo}/{match.group(1)}"] = Expected(*numbers)
    return result


def stream_files(corpus: Path = CORPUS_DIR) -> list[str]:
    """Every save/log in the corpus: by suffix, plus the bare ones SOURCES.md lists (e.g. `0611-2`)."""
    if not corpus.exists():
        return []
    found = {
        str(path.relative_to(corpus))
        for path in corpus.rglob("*")
        if path.is_file() and path.suffix.lower() in STREAM_SUFFIXES
    }
    found.update(expected_counts(corpus))
    return sorted(found)


def corpus_cases(names: list[str], what: str = "corpus saves and logs",
                 corpus: Path = CORPUS_DIR) -> list[Any]:
    """`names` to parametrize a test over, or, with no corpus, one case that skips saying what it
    needs (issue 41: an empty list skips with only pytest's "got empty parameter set")."""
    if names:
        return names
    reason = (f"VASSAL corpus not found at {corpus} (set ADJUTANT_SHARED to the shared/ folder): no {what} "
              "to walk")
    return [pytest.param("", marks=pytest.mark.skip(reason=reason), id="no-corpus")]
