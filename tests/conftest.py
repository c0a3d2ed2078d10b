"""Shared test fixtures: where the real VASSAL corpus and the rules text live.

The corpus is read in place from `../shared/` (never copied into the project); tests that need it
skip with a message saying where they looked.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[1]
SHARED_DIR = Path(os.environ.get("ADJUTANT_SHARED", PROJECT_ROOT.parent / "shared")).resolve()
CORPUS_DIR = SHARED_DIR / "corpus"
RULES_TEXT_DIR = SHARED_DIR / "rules-text"

# The commands the tests run keep their start-up caches (vassal_parser/user_cache.py) in a folder of
# this session's own: never the developer's ~/.cache/adjutant, and every session starts cold.
if "ADJUTANT_CACHE_DIR" not in os.environ:
    os.environ["ADJUTANT_CACHE_DIR"] = tempfile.mkdtemp(prefix="adjutant-test-cache-")
    atexit.register(shutil.rmtree, os.environ["ADJUTANT_CACHE_DIR"], True)


def _require(path: Path, what: str) -> Path:
    if not path.exists():
        pytest.skip(f"{what} not found at {path} (set ADJUTANT_SHARED to the shared/ folder)")
    return path


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    return _require(CORPUS_DIR, "VASSAL corpus")


@pytest.fixture(scope="session")
def rules_text_dir() -> Path:
    return _require(RULES_TEXT_DIR, "rules text")
