"""Every skip says what it needs (issue 41: three read only "got empty parameter set", pytest's words
for a test parametrized over the corpus files of a clone that has no corpus).

The suite is collected (not run) as a plain clone meets it: `ADJUTANT_SHARED` naming an empty
folder and no Chromium. Each skip mark of every test must name what would let it run: the shared
folder (corpus, rules text), Chromium, a package to install, or the platform feature it needs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
NEEDS = ("ADJUTANT_SHARED", "ADJUTANT_CHROMIUM", "pip install", "needs os.", "needs POSIX", "make_demo.py")


def test_every_skip_reason_names_what_the_test_needs(tmp_path: Path) -> None:
    empty = tmp_path / "shared"
    empty.mkdir()
    audit = tmp_path / "skips.json"
    env = {**os.environ, "ADJUTANT_SHARED": str(empty), "ADJUTANT_CHROMIUM": str(tmp_path / "no-chromium"),
           "ADJUTANT_SKIP_AUDIT": str(audit)}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "tests.skip_audit",
         "-p", "no:cacheprovider", "tests"],
        cwd=PROJECT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    skips = json.loads(audit.read_text(encoding="utf-8"))
    assert len(skips) > 50  # the corpus walks and the browser tests, at least
    vague = {node: reasons for node, reasons in skips.items()
             if any("empty parameter set" in r or not any(need in r for need in NEEDS) for r in reasons)}
    assert vague == {}
