"""The HTML report's map insets in headless Chromium (issue 24): no text is clipped by its picture, and
no counter is drawn unlabelled over a hex id.

The demo's Case Yellow (05: Paris, Lyon, Bordeaux) and Finest Hour (06: Brussels, Rome) events name
far-apart hexes; a single drawing over all of them clipped the city names at its edges ("usse",
"ome") and dropped the counters as bare squares on the hex ids. The report comes from `adjutant check
--format html`, the file a player attaches to a PBEM mail.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK
from bridge.cli.main import main
from module_patches.demo_story import load_story, save_path
from tests.bridge.test_overlay_browser import CHROMIUM, WAIT_MS, chromium_context

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
)
pytestmark = pytest.mark.skipif(
    not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)),
    reason=f"Chromium not found at {CHROMIUM} (apt-get install chromium, or set ADJUTANT_CHROMIUM)",
)

STORY = {scene.file: scene for scene in load_story()}

# For every svg.inset: each <text>'s box against its svg's box, and each counter's box against the
# boxes of the hex ids and place names (screen pixels, as the reader sees them).
MEASURE = """() => {
  const out = [];
  const inside = (a, b) => a.left >= b.left - 0.5 && a.right <= b.right + 0.5
    && a.top >= b.top - 0.5 && a.bottom <= b.bottom + 0.5;
  const meets = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  for (const svg of document.querySelectorAll("svg.inset")) {
    const frame = svg.getBoundingClientRect();
    const texts = [...svg.querySelectorAll("text")];
    for (const text of texts) {
      const box = text.getBoundingClientRect();
      if (!inside(box, frame)) out.push(`clipped: ${text.textContent}`);
    }
    const labels = texts.filter((t) => !t.classList.contains("counter-name"));
    for (const counter of svg.querySelectorAll("rect.counter")) {
      const box = counter.getBoundingClientRect();
      for (const label of labels) {
        if (meets(box, label.getBoundingClientRect())) out.push(`counter over ${label.textContent}`);
      }
      const named = counter.nextElementSibling;
      if (!named || !named.classList.contains("counter-name") || !named.textContent.trim()) {
        out.push(`unlabelled counter: ${counter.textContent}`);
      }
    }
  }
  return out;
}"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium_context(viewport={"width": 1000, "height": 900}) as context:
        yield context


SCENES = ["05-case-yellow", "06-finest-hour", "02-poland-falls", "09-border-defense"]


@pytest.mark.parametrize("scene", SCENES)
def test_every_inset_text_lies_inside_its_picture(browser, tmp_path, capsys, scene) -> None:
    report = tmp_path / "report.html"
    story = STORY[scene]
    answers = [a for k, v in (story.answers or {}).items() for a in ("--answer", f"{k}={json.dumps(v)}")]
    main(["check", str(save_path(story)), "--module", str(DEMO_MODULE), "--pack", str(DEMO_PACK),
          "--format", "html", "--out", str(report), *answers])
    capsys.readouterr()
    page = browser.new_page()
    page.set_default_timeout(WAIT_MS)
    try:
        page.goto(report.as_uri())
        assert page.locator("svg.inset text").count() > 0
        assert page.evaluate(MEASURE) == []
        if scene in ("05-case-yellow", "06-finest-hour"):
            # Far-apart hexes get a panel each, every one at a readable size.
            panels = [row.get_attribute("data-panels") for row in page.locator(".insets").all()]
            assert any(n != "1" for n in panels), panels
            for svg in page.locator("svg.inset").all():
                hexes = svg.locator("polygon").all()
                assert min(h.bounding_box()["width"] for h in hexes) >= 60
        names = set(page.locator("svg.inset text.place").all_text_contents())
        expected = {"05-case-yellow": {"Paris", "Lyon", "Bordeaux"}, "06-finest-hour": {"Brussels", "Rome"}}
        assert expected.get(scene, set()) <= names
    finally:
        page.close()


# The page's width, and for the answer hint (the report's command-line footer) its width, the width
# of what it holds, and its right edge (CSS pixels).
FOOTER = """() => {
  const footer = document.querySelector("pre.answer-hint");
  if (!footer) return null;
  return {page: document.documentElement.clientWidth, pageScroll: document.documentElement.scrollWidth,
          width: footer.clientWidth, scroll: footer.scrollWidth,
          right: footer.getBoundingClientRect().right, text: footer.textContent};
}"""


@pytest.mark.parametrize("width", [1000, 560])
def test_the_command_line_footer_wraps_within_the_page(browser, tmp_path, capsys, width) -> None:
    """Issue 41: the footer saying how to answer (`--answer ID=VALUE` and every value of 16.5.4's
    redeploy list) ran past the page's edge; it wraps inside the page, every word of it kept."""
    report = tmp_path / "report.html"
    main(["check", str(save_path(STORY["09-border-defense"])), "--module", str(DEMO_MODULE),
          "--pack", str(DEMO_PACK), "--format", "html", "--out", str(report)])
    capsys.readouterr()
    page = browser.new_page()
    page.set_default_timeout(WAIT_MS)
    try:
        page.set_viewport_size({"width": width, "height": 800})
        page.goto(report.as_uri())
        measured = page.evaluate(FOOTER)
    finally:
        page.close()
    assert measured is not None, "no answer hint in the report of 09 (16.5.4 is unanswered)"
    assert "--answer ID=VALUE" in measured["text"] and '"RU-3:1>e3806"' in measured["text"]
    assert measured["scroll"] <= measured["width"], measured
    assert measured["right"] <= measured["page"] and measured["pageScroll"] <= measured["page"], measured
