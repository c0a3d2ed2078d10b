"""`adjutant pack edit` end to end in real headless Chromium (issue 9, section 3).

A copy of the demo pack lacks Poland's City hexes, so `adjutant check` calls 16.1.1 undecided on the
Poland-falls save (exit 3). In the editor a user clicks Warsaw, shift-clicks Krakow, presses C and
saves; the next `adjutant check` decides 16.1.1 (DUE, exit 1), and the pack file keeps its comments.
Skips (with the reason) when Playwright or Chromium is missing, as the overlay browser tests do.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK
from bridge.cli.main import main
from module_patches.demo_story import load_story, save_path
from tests.bridge.editor_harness import EditorThread
from tests.bridge.test_overlay_browser import CHROMIUM, WAIT_MS, chromium_context

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
)
pytestmark = pytest.mark.skipif(
    not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)),
    reason=f"Chromium not found at {CHROMIUM} (apt-get install chromium, or set ADJUTANT_CHROMIUM)",
)

POLAND_FALLS = save_path(load_story()[1])
WARSAW = 'e3804 = { country = "Poland", name = "Warsaw", city = true, capital = true }'
KRAKOW = 'e3501 = { country = "Poland", name = "Krakow", city = true }'


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium_context(viewport={"width": 1400, "height": 860}) as context:
        yield context


def pack_without_polish_cities(tmp_path: Path) -> Path:
    pack = tmp_path / "pack"
    shutil.copytree(DEMO_PACK, pack)
    geography = pack / "geography.toml"
    text = geography.read_text()
    assert WARSAW in text and KRAKOW in text
    text = text.replace(WARSAW, 'e3804 = { country = "Poland", name = "Warsaw" }')
    geography.write_text(text.replace(KRAKOW, 'e3501 = { country = "Poland", name = "Krakow" }'))
    # The demo claims every City located (`city_hexes = "all"`): this copy claims them for the others only,
    # so Poland's Cities are missing, not "none".
    meta = pack / "pack.toml"
    others = '["Belgium-Holland", "France", "Hungary", "Italy", "Norway"]'
    meta.write_text(meta.read_text().replace('city_hexes = "all"', f"city_hexes = {others}"))
    return pack


def check(capsys, pack: Path) -> tuple[int, str]:
    status = main(["check", str(POLAND_FALLS), "--module", str(DEMO_MODULE), "--pack", str(pack)])
    return status, capsys.readouterr().out


def open_editor(browser: Any, editor: EditorThread) -> Any:
    page = browser.new_page()
    page.set_default_timeout(WAIT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(editor.url)
    page.wait_for_selector("body[data-ready=yes]", state="attached")
    page.errors = errors
    return page


def settled(page: Any) -> None:
    page.wait_for_function("document.body.dataset.busy !== 'yes'")


def test_marking_cities_in_the_editor_decides_16_1_1(browser, tmp_path, capsys) -> None:
    pack = pack_without_polish_cities(tmp_path)
    module_digest = hashlib.sha256(DEMO_MODULE.read_bytes()).hexdigest()
    status, out = check(capsys, pack)
    assert status == 3, out
    assert "16.1.1 Allied Minor Country Conquest [permanent]: UNDECIDED" in out
    assert "missing: 16.1.1 Poland: the pack locates no City hex of Poland" in out

    with EditorThread(pack, DEMO_MODULE) as editor:
        page = open_editor(browser, editor)
        page.select_option("#coverage-group", "event")  # the per-event list, as `adjutant check` reads
        # The module's own boards, its grid, VASSAL's location names.
        assert page.locator("svg#map image").count() == 2
        assert page.locator('polygon[data-hex="e3804"]').count() == 1
        assert page.locator('polygon[data-hex="e3804"] title').text_content() == "e3804"
        assert "16.1.1 City hexes: 5 of 6 countries" in page.inner_text("#coverage")
        # Clicking the missing item highlights where to work: Poland's hexes.
        page.click('#coverage button[data-subject="Poland"]')
        assert page.locator("polygon.focus").count() == 5
        assert "Poland: 5 hexes in the pack" in page.inner_text("#status")

        page.click('polygon[data-hex="e3804"]')
        page.click('polygon[data-hex="e3501"]', modifiers=["Shift"])
        assert "2 hexes: e3804 Warsaw, e3501 Krakow" in page.inner_text("#selection")
        assert page.locator("#field-country").input_value() == "Poland"
        page.keyboard.press("c")
        settled(page)
        page.wait_for_selector("body[data-dirty=yes]", state="attached")
        assert page.locator('[data-flag="city"]').is_checked()
        # Located, not yet declared whole: Poland stays missing until its ✓ says these are all its Cities.
        assert "16.1.1 City hexes: 5 of 6 countries" in page.inner_text("#coverage")
        page.click('#coverage button[data-complete="Poland"]')
        settled(page)
        assert "16.1.1 City hexes: 6 of 6 countries" in page.inner_text("#coverage")
        # Undo and redo go through the server too: coverage follows.
        page.keyboard.press("Control+z")
        settled(page)
        assert "16.1.1 City hexes: 5 of 6 countries" in page.inner_text("#coverage")
        page.keyboard.press("Control+y")
        settled(page)
        assert "16.1.1 City hexes: 6 of 6 countries" in page.inner_text("#coverage")
        # Nothing is written before saving.
        assert check(capsys, pack)[0] == 3
        page.click("#save")
        page.wait_for_selector("body[data-dirty=no]", state="attached")
        assert "saved geography.toml" in page.inner_text("#status")
        assert page.errors == []

    status, out = check(capsys, pack)
    assert status == 1, out
    assert "16.1.1 Allied Minor Country Conquest [permanent]: DUE" in out
    text = (pack / "geography.toml").read_text()
    assert text.startswith("# Countries, hexes and Ceded Land areas of the demo map")
    assert 'e3804 = {country = "Poland", name = "Warsaw", city = true}' in text
    assert hashlib.sha256(DEMO_MODULE.read_bytes()).hexdigest() == module_digest


def test_drag_select_country_and_zone_boxes(browser, tmp_path) -> None:
    """Drag-select several hexes and give them a country; name a zone of the module as a box."""
    pack = tmp_path / "pack"
    shutil.copytree(DEMO_PACK, pack)
    with EditorThread(pack, DEMO_MODULE) as editor:
        page = open_editor(browser, editor)
        page.locator('polygon[data-hex="w4925"]').scroll_into_view_if_needed()
        first = page.locator('polygon[data-hex="w4925"]').bounding_box()
        last = page.locator('polygon[data-hex="w4729"]').bounding_box()
        page.mouse.move(first["x"] + 5, first["y"] + 5)
        page.mouse.down()
        page.mouse.move(last["x"] + last["width"] - 5, last["y"] + last["height"] - 5, steps=6)
        page.mouse.up()
        selected = page.locator("polygon.sel").count()
        assert selected >= 6
        assert "hexes: " in page.inner_text("#selection")
        page.select_option("#field-country", "France")
        settled(page)
        assert page.locator("polygon.sel").count() == selected
        assert editor.session.hexes["w4827"]["country"] == "France"
        # The Boxes map: a zone named as the game's box.
        page.select_option("#map-choice", label="Boxes (30 places)")
        assert "Delay Box = Delay Box" in page.inner_text("#zones")
        assert "Axis Current Card (not a box)" in page.inner_text("#zones")
        page.click('polygon[data-zone="Delay Box"]')
        assert page.locator("#zone-name").inner_text() == "Delay Box"
        assert page.locator("#field-box").input_value() == "delay"
        page.select_option("#field-box", label="Axis Force Pool")
        settled(page)
        assert editor.session.boxes["Delay Box"] == "force_pool:Axis"
        page.keyboard.press("Control+z")
        settled(page)
        assert editor.session.boxes["Delay Box"] == "delay"
        assert page.errors == []


def test_a_whole_map_selection_is_sent_in_parts_under_the_message_limit(browser, tmp_path) -> None:
    """1,066 hexes at once: the page splits the edit into messages the server accepts (16 KB each),
    and Escape clears the selection."""
    pack = tmp_path / "pack"
    shutil.copytree(DEMO_PACK, pack)
    with EditorThread(pack, DEMO_MODULE) as editor:
        page = open_editor(browser, editor)
        frames: list[int] = []
        page.on("websocket", lambda ws: ws.on("framesent", lambda payload: frames.append(len(payload))))
        page.reload()
        page.wait_for_selector("body[data-ready=yes]", state="attached")
        total = page.evaluate("""() => {
            for (const cell of currentMap().cells) if (cell.hex) state.selected.add(cell.hex);
            refreshCells();
            return state.selected.size;
        }""")
        assert total == 1066
        page.select_option("#field-country", "Russia")
        settled(page)
        assert sum(1 for r in editor.session.hexes.values() if r.get("country") == "Russia") == 1066
        assert len(frames) > 1 and max(frames) < 16 * 1024
        page.keyboard.press("Escape")
        assert page.locator("polygon.sel").count() == 0
        assert page.errors == []


def test_trusted_facts_are_shown_as_trusted_never_green(browser, tmp_path) -> None:
    """Issue 22: a pack with `[complete] others = "trusted"` counts its located City hexes as whole; the
    coverage list says they are trusted, not confirmed, and does not mark the line done."""
    pack = tmp_path / "pack"
    shutil.copytree(DEMO_PACK, pack)
    meta = pack / "pack.toml"
    meta.write_text(meta.read_text().replace('city_hexes = "all"\n', 'others = "trusted"\n'))
    with EditorThread(pack, DEMO_MODULE) as editor:
        page = open_editor(browser, editor)
        page.select_option("#coverage-group", "event")  # the per-event list (the sidebar groups by country)
        item = page.locator('#coverage li[data-rule="16.1.1"][data-fact="city_hexes"]')
        note = "trusted, not confirmed (no [complete] entry names city_hexes): Belgium-Holland"
        assert note in item.inner_text()
        assert "trusted" in (item.get_attribute("class") or "")
        assert "done" not in (item.get_attribute("class") or "").split()
        areas = page.locator('#coverage li[data-rule="16.1.1"][data-fact="area_hexes"]')
        assert "done" in (areas.get_attribute("class") or "").split()  # claimed "all": confirmed
        # Clicking a hex and marking it keeps the trusted note in step with the server's coverage.
        page.click('polygon[data-hex="e4102"]')
        page.keyboard.press("c")
        settled(page)
        assert "Poland" in item.inner_text() and page.errors == []


def test_declaring_poland_complete_in_the_page(browser, tmp_path) -> None:
    pack = tmp_path / "pack"
    shutil.copytree(DEMO_PACK, pack)
    meta = pack / "pack.toml"  # the demo's own claim, `city_hexes = "all"`, gives way to complete.toml's
    meta.write_text(meta.read_text().replace('city_hexes = "all"\n', ""))
    (pack / "complete.toml").write_text('[complete]\ncity_hexes = ["Norway"]\n')
    with EditorThread(pack, DEMO_MODULE) as editor:
        page = open_editor(browser, editor)
        page.select_option("#coverage-group", "event")
        assert "16.1.1 City hexes: 1 of 6 countries" in page.inner_text("#coverage")
        page.click('#coverage button[data-complete="Poland"]')
        settled(page)
        assert "16.1.1 City hexes: 2 of 6 countries" in page.inner_text("#coverage")
        page.keyboard.press("Control+z")
        settled(page)
        assert "16.1.1 City hexes: 1 of 6 countries" in page.inner_text("#coverage")
        assert page.errors == []
