"""Editor benchmark: how many user actions each map fact costs in `adjutant pack edit`.

Why actions and not seconds: completing a pack is the player's work, and what the page can save them is
clicks and keys. The walk (tests/bridge/editor_walk.py) completes Poland on a pack freshly scaffolded
for the demo module (`adjutant pack scaffold --base tk`) in headless Chromium, with real clicks and keys:
its hexes, Cities, Capital, both Ceded Lands, its Border Defense hexes, and the "that is all" declarations.
The same walk is asserted by tests/bridge/test_editor_country_browser.py; this script reports the figures.

Run:  .venv/bin/python benchmarks/editor_actions.py
"""

from __future__ import annotations

import collections
import contextlib
import io
import sys
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from bridge.cli.commands.demo import DEMO_MODULE  # noqa: E402
from bridge.cli.main import main  # noqa: E402
from tests.bridge.editor_harness import EditorThread  # noqa: E402
from tests.bridge.editor_walk import complete_poland, poland_facts  # noqa: E402
from tests.bridge.test_overlay_browser import chromium_context  # noqa: E402


def run() -> None:
    with tempfile.TemporaryDirectory(prefix="adjutant-editor-bench-") as tmp:
        pack = Path(tmp) / "pack"
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            assert main(["pack", "scaffold", str(DEMO_MODULE), "--base", "tk", "-o", str(pack)]) == 0
        with EditorThread(pack, DEMO_MODULE) as editor, \
                chromium_context(viewport={"width": 1400, "height": 860}) as browser:
            page = browser.new_page()
            page.goto(editor.url)
            page.wait_for_selector("body[data-ready=yes]", state="attached")
            before = poland_facts(page)
            started = time.perf_counter()
            actions = complete_poland(page)
            elapsed = time.perf_counter() - started
            after = poland_facts(page)
    kinds = collections.Counter(entry.split(" ")[0] for entry in actions.log)
    facts = after[0] - before[0]
    print(f"Poland on a scaffolded demo pack: {before[0]} -> {after[0]} of {after[1]} facts complete")
    print(f"actions: {len(actions.log)} ({', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))})")
    print(f"actions per fact: {len(actions.log) / max(1, facts):.1f}")
    print(f"wall time of the scripted walk: {elapsed:.1f} s (page and server, not the player)")


if __name__ == "__main__":
    run()
