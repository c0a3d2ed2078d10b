"""The stream page in a real headless Chromium (issue 23): with exactly one event due, nothing but the
card is drawn in `section#events` — a lone chips slot once printed a literal `null` under the panel,
at every position and with `&insets=1`. Skips as tests/bridge/test_overlay_browser.py does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.bridge import test_overlay_browser as base
from tests.bridge.harness import DaemonThread
from tests.bridge.savefiles import sample_plan, save_bytes, write_in_place

browser, pages, pytestmark = base.browser, base.pages, base.pytestmark


@pytest.mark.parametrize("query", ["view=stream", "view=stream&position=top", "view=stream&position=left",
                                   "view=stream&insets=1"])
def test_one_due_event_draws_only_its_card(browser: Any, pages: list, tmp_path: Path, query: str) -> None:
    with DaemonThread(tmp_path, **base.FAST) as daemon:
        stream = base.open_view(browser, pages, daemon, query)
        write_in_place(tmp_path / "turn1.vsav", save_bytes(sample_plan()))
        stream.wait_for_selector("#events .stream-card[data-rule='16.2.1']")
        texts = stream.evaluate("""() => [...document.getElementById('events').childNodes]
            .filter((node) => node.nodeType === Node.TEXT_NODE).map((node) => node.textContent)""")
        assert texts == []
        assert "null" not in stream.inner_text("#events")
        assert stream.locator("#events > *").count() == 1
