"""The map editor tells the truth (issue 41), in headless Chromium with real pointer moves and clicks.

A drag selects the hexes it passes over — a steep diagonal from one hex centre to another keeps the
whole column it starts in, not only the hexes whose centres fall inside the rectangle — and a header
message (a refused Ceded Land on a hex with no country) is shown whole, never cut off.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK
from tests.bridge.editor_harness import EditorThread
from tests.bridge.test_overlay_browser import CHROMIUM, WAIT_MS, chromium_context

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
)
pytestmark = pytest.mark.skipif(
    not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)),
    reason=f"Chromium not found at {CHROMIUM} (apt-get install chromium, or set ADJUTANT_CHROMIUM)",
)

# A hex with a column below it, and the hex two columns right and four rows down: the L40 -> N44 drag.
FIND_DIAGONAL = """() => {
  const cells = currentMap().cells.filter((c) => c.hex && c.points.length);
  const near = (a, b) => Math.abs(a - b) < 1;
  const first = cells[0];
  const gaps = (values) => Math.min(...values.filter((v) => v > 2));
  const same = cells.filter((c) => near(c.center[0], first.center[0]));
  const dy = gaps(same.map((c) => Math.abs(c.center[1] - first.center[1])));
  const dx = gaps(cells.map((c) => Math.abs(c.center[0] - first.center[0])));
  for (const a of cells) {
    const column = [1, 2, 3, 4].map((k) => cells.find((c) => near(c.center[0], a.center[0])
      && Math.abs(c.center[1] - (a.center[1] + k * dy)) < dy / 4));
    const end = cells.find((c) => Math.abs(c.center[0] - (a.center[0] + 2 * dx)) < dx / 4
      && Math.abs(c.center[1] - (a.center[1] + 4 * dy)) < dy / 2);
    if (column.every(Boolean) && end) return {start: a.hex, column: column.map((c) => c.hex), end: end.hex};
  }
  return null;
}"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium_context(viewport={"width": 1400, "height": 860}) as context:
        yield context


def open_editor(browser: Any, url: str, width: int = 1400) -> Any:
    page = browser.new_page()
    page.set_viewport_size({"width": width, "height": 860})
    page.set_default_timeout(WAIT_MS)
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.goto(url)
    page.wait_for_selector("body[data-ready=yes]", state="attached")
    return page


def centre(page: Any, hex_id: str) -> tuple[float, float]:
    box = page.locator(f'polygon[data-hex="{hex_id}"]').bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


@pytest.mark.parametrize("nudge", [0.0, 1.5])
def test_a_diagonal_drag_keeps_the_column_it_starts_in(browser, tmp_path, nudge) -> None:
    pack = tmp_path / "pack"
    shutil.copytree(DEMO_PACK, pack)
    with EditorThread(pack, DEMO_MODULE) as editor:
        page = open_editor(browser, editor.url)
        found = page.evaluate(FIND_DIAGONAL)
        assert found, "the demo map has a hex with four below it and one two columns on"
        page.locator(f'polygon[data-hex="{found["start"]}"]').scroll_into_view_if_needed()
        x0, y0 = centre(page, found["start"])
        x1, y1 = centre(page, found["end"])
        # From hex centre to hex centre, as a hand does it: the pointer a pixel or so off the centre.
        page.mouse.move(x0 + nudge, y0 + nudge)
        page.mouse.down()
        page.mouse.move(x1, y1, steps=8)
        page.mouse.up()
        selected = set(page.evaluate("[...state.selected]"))
        assert found["start"] in selected and found["end"] in selected
        assert set(found["column"]) <= selected, (found, sorted(selected))
        assert page.errors == []


def test_a_drag_selects_nothing_it_does_not_pass_over(browser, tmp_path) -> None:
    """The hexes of the column left of the drag are not selected: the rectangle only touches their edge."""
    pack = tmp_path / "pack"
    shutil.copytree(DEMO_PACK, pack)
    with EditorThread(pack, DEMO_MODULE) as editor:
        page = open_editor(browser, editor.url)
        found = page.evaluate(FIND_DIAGONAL)
        page.locator(f'polygon[data-hex="{found["start"]}"]').scroll_into_view_if_needed()
        x0, y0 = centre(page, found["start"])
        x1, y1 = centre(page, found["end"])
        page.mouse.move(x0, y0)
        page.mouse.down()
        page.mouse.move(x1, y1, steps=8)
        page.mouse.up()
        selected = page.evaluate("[...state.selected]")
        left = page.evaluate(
            """(ids) => { const cells = currentMap().cells.filter((c) => c.hex);
               const start = cells.find((c) => c.hex === ids.start);
               return cells.filter((c) => c.center[0] < start.center[0] - 1).map((c) => c.hex); }""", found)
        assert not set(selected) & set(left)
        assert page.errors == []


@pytest.mark.parametrize("width", [1400, 900])
def test_a_refused_ceded_land_message_is_shown_whole(browser, tmp_path, width) -> None:
    pack = tmp_path / "pack"
    shutil.copytree(DEMO_PACK, pack)
    with EditorThread(pack, DEMO_MODULE) as editor:
        page = open_editor(browser, editor.url, width=width)
        bare = page.evaluate(
            "Object.values(currentMap().cells).filter((c) => c.hex && !(hexes()[c.hex] || {}).country)"
            ".map((c) => c.hex).slice(0, 1)")
        assert bare, "the demo map has a hex with no country"
        page.locator(f'polygon[data-hex="{bare[0]}"]').scroll_into_view_if_needed()
        page.click(f'polygon[data-hex="{bare[0]}"]')
        page.select_option("#field-area", label="Polish Corridor")
        page.wait_for_selector("#status.error")
        text = page.inner_text("#status")
        assert "has no country" in text, text
        fits = page.evaluate("""() => { const s = $('status'); const r = s.getBoundingClientRect();
            return {clipped: s.scrollWidth > s.clientWidth + 1 || s.scrollHeight > s.clientHeight + 1,
                    inside: r.left >= 0 && r.right <= window.innerWidth + 1,
                    overflow: getComputedStyle(s).textOverflow}; }""")
        assert not fits["clipped"] and fits["inside"] and fits["overflow"] != "ellipsis", fits
        # The map stays usable under the taller header: the panel and the map still fit the window.
        bottom = page.evaluate("document.querySelector('main.layout').getBoundingClientRect().bottom")
        assert bottom <= 860 + 1
        assert page.errors == []
