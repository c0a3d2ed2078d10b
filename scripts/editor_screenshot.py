"""Make docs/img/pack-editor.png: `adjutant pack edit` on the demo module, Poland's City hexes still to mark.

Run from the project root: `.venv/bin/python scripts/editor_screenshot.py` (needs the test extras'
Playwright and Debian's chromium, as the browser tests do). A copy of the demo pack without Warsaw's and
Krakow's City marks is opened in the editor; the search box finds Poland, which opens its group in the
coverage sidebar and selects its hexes; the pointer rests on Warsaw, whose hex id shows.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.bridge.editor_harness import EditorThread  # noqa: E402

DEMO = ROOT / "module_patches" / "demo"
OUT = ROOT / "docs" / "img" / "pack-editor.png"
CHROMIUM = os.environ.get("ADJUTANT_CHROMIUM", "/usr/bin/chromium")


def main() -> int:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        pack = Path(folder) / "pack"
        shutil.copytree(DEMO / "pack", pack)
        geography = pack / "geography.toml"
        text = geography.read_text(encoding="utf-8")
        text = text.replace('name = "Warsaw", city = true, capital = true }', 'name = "Warsaw" }')
        geography.write_text(text.replace('name = "Krakow", city = true }', 'name = "Krakow" }'),
                             encoding="utf-8")
        with EditorThread(pack, DEMO / "adjutant-demo.vmod") as editor:
            browser = playwright.chromium.launch(executable_path=CHROMIUM,
                                                 args=["--no-sandbox", "--headless"])
            page = browser.new_page(viewport={"width": 1400, "height": 860})
            page.goto(editor.url)
            page.wait_for_selector("body[data-ready=yes]", state="attached")
            page.click("#search")
            page.keyboard.type("Poland")
            page.keyboard.press("Enter")
            page.hover('polygon[data-hex="e3804"]')
            page.wait_for_timeout(300)
            OUT.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(OUT))
            browser.close()
    print(f"{OUT} ({OUT.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
