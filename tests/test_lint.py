"""The style standard is enforced by CI, not by memory: `ruff check` must be clean on the whole project."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tests.conftest import PROJECT_ROOT


def test_ruff_check_is_clean() -> None:
    if shutil.which("ruff") is None and subprocess.run(
        [sys.executable, "-m", "ruff", "--version"], capture_output=True
    ).returncode != 0:
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", str(PROJECT_ROOT)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
