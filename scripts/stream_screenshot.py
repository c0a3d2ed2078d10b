"""Make docs/img/stream-view.png: the stream view (OBS browser source) over the demo map, 1920x1080.

Run from the project root: `.venv/bin/python scripts/stream_screenshot.py` (needs the test extras'
Playwright and Debian's chromium, as the browser tests do). The real daemon plans a demo save; the
page is drawn on a 1920x1080 viewport over the demo module's own map picture (standing in for the
VASSAL window OBS would show beneath it) and written at half size so the PNG stays small.
"""

from __future__ import annotations

import base64
import os
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bridge.cli.commands.watch import pipeline_planner  # noqa: E402
from tests.bridge.harness import DaemonThread  # noqa: E402

DEMO = ROOT / "module_patches" / "demo"
OUT = ROOT / "docs" / "img" / "stream-view.png"
CHROMIUM = os.environ.get("ADJUTANT_CHROMIUM", "/usr/bin/chromium")
SAVE = "06-finest-hour.vsav"


def map_background() -> str:
    """The demo module's western map image as a CSS background (a data: URL; nothing fetched)."""
    with zipfile.ZipFile(DEMO / "adjutant-demo.vmod") as module:
        svg = module.read("images/west.svg")
    return "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii")


def main() -> int:
    from playwright.sync_api import sync_playwright

    plan_function, replay_function = pipeline_planner(DEMO / "adjutant-demo.vmod", "demo")
    with tempfile.TemporaryDirectory() as folder, DaemonThread(
        Path(folder), plan_function=plan_function, replay_function=replay_function, debounce=0.05
    ) as daemon, sync_playwright() as playwright:
        (Path(folder) / SAVE).write_bytes((DEMO / "saves" / SAVE).read_bytes())
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--headless"])
        page = browser.new_page(viewport={"width": 1920, "height": 1080}, device_scale_factor=0.5)
        page.goto(daemon.url("view=stream"))
        page.wait_for_selector(".stream-card[data-rule]", timeout=20_000)
        time.sleep(0.5)
        backdrop = f"html {{ background: #d8d2c0 url('{map_background()}') center / cover; }}"
        page.add_style_tag(content=backdrop)
        OUT.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(OUT))
        browser.close()
    print(f"{OUT} ({OUT.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
