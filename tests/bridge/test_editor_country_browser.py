"""The map editor as a player completing a pack for a real module uses it (issue 24), in headless Chromium.

One country of a freshly scaffolded pack completed through the page; unsaved edits that survive a reload
(and a second tab) with their history; a bare buildFile drawn over its whole extent; the coverage
grouped by country, the search box, wheel zoom about the pointer, panning, a drag that keeps its start
hex, hex labels that leave the board's printed numbers alone, and K counting as the Capital.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK
from bridge.cli.main import main
from rules.facts import coverage
from rules.packs import load_pack
from tests.bridge.editor_harness import EditorThread
from tests.bridge.editor_walk import complete_poland, poland_facts
from tests.bridge.test_overlay_browser import CHROMIUM, WAIT_MS, chromium_context

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
)
pytestmark = pytest.mark.skipif(
    not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)),
    reason=f"Chromium not found at {CHROMIUM} (apt-get install chromium, or set ADJUTANT_CHROMIUM)",
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium_context(viewport={"width": 1400, "height": 860}) as context:
        yield context


def open_editor(browser: Any, url: str) -> Any:
    page = browser.new_page()
    page.set_default_timeout(WAIT_MS)
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.goto(url)
    page.wait_for_selector("body[data-ready=yes]", state="attached")
    return page


def settled(page: Any) -> None:
    page.wait_for_function("document.body.dataset.busy !== 'yes'")


def scaffold(tmp_path: Path, module: Path = DEMO_MODULE) -> Path:
    pack = tmp_path / "pack"
    assert main(["pack", "scaffold", str(module), "--base", "tk", "-o", str(pack)]) == 0
    return pack


def centre(page: Any, hex_id: str) -> tuple[float, float]:
    box = page.locator(f'polygon[data-hex="{hex_id}"]').bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_one_country_of_a_scaffolded_pack_is_completed_through_the_page(browser, tmp_path, capsys) -> None:
    pack = scaffold(tmp_path)
    capsys.readouterr()
    with EditorThread(pack, DEMO_MODULE) as editor:
        page = open_editor(browser, editor.url)
        located, total = poland_facts(page)
        assert located == 0 and total == 7  # Cities, Capital, hexes, neighbours, two Ceded Lands, border
        actions = complete_poland(page)
        assert poland_facts(page) == (7, 7)
        assert "saved" in page.inner_text("#status")
        assert page.inner_text("#unsaved") == "all saved"
        assert len(actions.log) <= 25, actions.log
        assert page.errors == []
    # What the page showed is what the files now say.
    saved = load_pack(pack)
    for line in coverage(saved):
        for subject in ("Poland", "eastern_poland", "polish_corridor"):
            assert subject not in line.lack, (line.rule, line.fact, subject)
    assert saved.hexes["e3804"].capital and saved.hexes["e3804"].city
    assert "Poland" in saved.complete["capital"]


def test_unsaved_edits_survive_a_reload_and_show_in_a_second_tab(browser, tmp_path) -> None:
    pack = tmp_path / "pack"
    shutil.copytree(DEMO_PACK, pack)
    with EditorThread(pack, DEMO_MODULE) as editor:
        page = open_editor(browser, editor.url)
        assert page.inner_text("#unsaved") == "all saved"
        page.click('polygon[data-hex="e3501"]')  # Krakow: a City
        page.keyboard.press("k")
        settled(page)
        assert page.inner_text("#unsaved") == "1 unsaved change"
        page.click('polygon[data-hex="e3804"]')  # Warsaw
        page.keyboard.press("p")
        settled(page)
        assert page.inner_text("#unsaved") == "2 unsaved changes"
        assert page.title().startswith("●")

        other = open_editor(browser, editor.url)
        assert "2 unsaved changes from before this page was opened" in other.inner_text("#status")
        assert "ready" not in other.inner_text("#status")
        assert other.inner_text("#unsaved") == "2 unsaved changes"
        assert other.locator("#save").is_enabled() and other.locator("#undo").is_enabled()
        other.close()

        page.reload()
        page.wait_for_selector("body[data-ready=yes]", state="attached")
        assert "2 unsaved changes" in page.inner_text("#status")
        assert page.locator("#undo").is_enabled()
        # The history is the server's: the reloaded page undoes the edits made before the reload.
        page.keyboard.press("Control+z")
        settled(page)
        assert "port" not in editor.session.hexes["e3804"]
        assert page.inner_text("#unsaved") == "1 unsaved change"
        page.click("#undo")
        settled(page)
        assert "capital" not in editor.session.hexes["e3501"]
        assert page.inner_text("#unsaved") == "all saved"
        assert page.locator("#save").is_disabled() and page.locator("#undo").is_disabled()
        page.keyboard.press("Control+y")
        settled(page)
        assert editor.session.hexes["e3501"]["capital"] is True
        assert page.locator('text[data-marks="e3501"]').text_content() == "CK"

        # Closing with unsaved edits asks first.
        page.click('polygon[data-hex="e3804"]')
        dialogs: list[str] = []

        def dismiss(dialog: Any) -> None:
            dialogs.append(dialog.type)
            dialog.dismiss()

        page.on("dialog", dismiss)
        page.close(run_before_unload=True)
        page.wait_for_timeout(300)
        assert dialogs == ["beforeunload"]
        assert page.errors == []


def test_a_bare_buildfile_is_drawn_over_its_whole_grid(browser, corpus_dir, tmp_path, capsys) -> None:
    module = corpus_dir / "uckelman__tld-mod" / "buildFile"
    pack = scaffold(tmp_path, module)
    capsys.readouterr()
    with EditorThread(pack, module) as editor:
        page = open_editor(browser, editor.url)
        view_box = [float(v) for v in page.get_attribute("svg#map", "viewBox").split()]
        cells = page.evaluate("currentMap().cells.map((c) => c.center)")
        assert len(cells) > 2600
        assert max(x for x, _ in cells) > 5000 and max(y for _, y in cells) > 1700
        assert all(x <= view_box[2] and y <= view_box[3] for x, y in cells)  # every hex reachable
        note = page.locator("#image-note")
        assert note.is_visible() and "map image missing" in note.inner_text()
        assert "Map_Full.png" in note.inner_text()
        # No printed numbers to hide: every hex shows its label.
        label = page.locator("text.label").first
        assert label.evaluate("(n) => getComputedStyle(n).display") != "none"
        # The hex farthest right can be scrolled to and clicked.
        far = max(page.evaluate("currentMap().cells.filter((c) => c.hex)"), key=lambda c: c["center"][0])
        page.locator(f'polygon[data-hex="{far["hex"]}"]').scroll_into_view_if_needed()
        page.click(f'polygon[data-hex="{far["hex"]}"]')
        assert far["hex"] in page.inner_text("#selection")
        # France's Capital (w3516 in the tk pack) is no hex of this module: it is not counted located.
        page.select_option("#coverage-group", "fact")
        page.click('#coverage details[data-group="Capital"] summary')
        row = page.locator('#coverage details[data-group="Capital"] li[data-subject="France"]')
        assert row.inner_text().startswith("✗")
        assert "w3516" in row.inner_text() and "mark the Capital hex with K" in row.inner_text()
        assert page.errors == []


def test_coverage_is_grouped_by_country_and_the_search_box_jumps(browser, tmp_path, capsys) -> None:
    pack = scaffold(tmp_path)
    capsys.readouterr()
    with EditorThread(pack, DEMO_MODULE) as editor:
        page = open_editor(browser, editor.url)
        groups = page.locator("#coverage > li > details")
        names = [g.get_attribute("data-group") for g in groups.all()]
        assert "Poland" in names and "Norway" in names and names == sorted(names)
        assert page.locator("#coverage details").count() < 40  # not one button per event and subject
        progress = page.locator("#coverage-progress")
        located, _, total = page.inner_text("#coverage-count").partition(" of ")
        assert int(progress.get_attribute("max")) == int(total.split()[0]) > int(located)
        # A hex id, then a VASSAL location name that is a named hex, then a country.
        page.click("#search")
        page.keyboard.type("e3501")
        page.keyboard.press("Enter")
        assert page.inner_text("#selection").startswith("1 hex: e3501 Krakow")
        page.fill("#search", "")
        page.keyboard.type("Oslo")
        page.keyboard.press("Enter")
        assert page.inner_text("#selection").startswith("1 hex: w4624 Oslo")
        page.fill("#search", "")
        page.keyboard.type("Poland")
        page.keyboard.press("Enter")
        assert page.locator('#coverage details[data-group="Poland"]').get_attribute("open") is not None
        assert "e3501" in page.inner_text("#selection")
        # Typing in the box never toggles flags: no C/K/P reached the selection.
        assert editor.session.unsaved() == 0
        # By fact: one group per fact, counted over its subjects.
        page.select_option("#coverage-group", "fact")
        assert page.locator('#coverage details[data-group="City hexes"] summary').inner_text().startswith(
            "City hexes")
        assert page.errors == []


def test_wheel_zooms_about_the_pointer_and_a_middle_drag_pans(browser, tmp_path) -> None:
    pack = tmp_path / "pack"
    shutil.copytree(DEMO_PACK, pack)
    with EditorThread(pack, DEMO_MODULE) as editor:
        page = open_editor(browser, editor.url)
        page.locator('polygon[data-hex="e3804"]').scroll_into_view_if_needed()
        x, y = centre(page, "e3804")
        page.mouse.move(x, y)
        page.mouse.wheel(0, -300)
        page.wait_for_function("state.zoom > 1.1")
        hit = page.evaluate(f"document.elementFromPoint({x}, {y}).dataset.hex")
        assert hit == "e3804"  # the hex under the pointer stays under it
        page.mouse.wheel(0, 300)
        page.wait_for_function("state.zoom < 1.05")
        before = page.evaluate("[$('map-view').scrollLeft, $('map-view').scrollTop]")
        page.mouse.move(x, y)
        page.mouse.down(button="middle")
        page.mouse.move(x - 120, y - 80, steps=4)
        page.mouse.up(button="middle")
        after = page.evaluate("[$('map-view').scrollLeft, $('map-view').scrollTop]")
        assert after[0] - before[0] == pytest.approx(120, abs=3)
        assert after[1] - before[1] == pytest.approx(80, abs=3)
        assert page.locator("polygon.sel").count() == 0  # panning selects nothing
        assert page.errors == []


def test_a_drag_selection_includes_its_start_hex(browser, tmp_path) -> None:
    pack = tmp_path / "pack"
    shutil.copytree(DEMO_PACK, pack)
    with EditorThread(pack, DEMO_MODULE) as editor:
        page = open_editor(browser, editor.url)
        page.locator('polygon[data-hex="w4925"]').scroll_into_view_if_needed()
        box = page.locator('polygon[data-hex="w4925"]').bounding_box()
        # Start in the lower right of the hex, below and right of its centre; end two hexes on.
        start = (box["x"] + box["width"] * 0.7, box["y"] + box["height"] * 0.7)
        end = (start[0] + box["width"] * 1.6, start[1] + box["height"] * 1.2)
        page.mouse.move(*start)
        page.mouse.down()
        page.mouse.move(*end, steps=6)
        page.mouse.up()
        selected = page.evaluate("[...state.selected]")
        assert "w4925" in selected and len(selected) >= 2
        end_hex = page.evaluate(f"document.elementFromPoint({end[0]}, {end[1]}).dataset.hex")
        assert end_hex in selected
        assert page.errors == []


def test_hex_labels_show_on_hover_only_over_a_board_image(browser, tmp_path) -> None:
    pack = tmp_path / "pack"
    shutil.copytree(DEMO_PACK, pack)
    with EditorThread(pack, DEMO_MODULE) as editor:
        page = open_editor(browser, editor.url)
        index = page.get_attribute('polygon[data-hex="e3804"]', "data-index")
        label = page.locator(f'text[data-label="{index}"]')
        assert label.evaluate("(n) => getComputedStyle(n).display") == "none"
        page.locator('polygon[data-hex="e3804"]').scroll_into_view_if_needed()
        page.hover('polygon[data-hex="e3804"]')
        assert label.evaluate("(n) => getComputedStyle(n).display") != "none"
        assert "e3804 Warsaw (Poland)" in page.inner_text("#hover-name")
        assert page.errors == []


def test_marking_a_capital_counts_as_the_capital_without_a_separate_tick(browser, tmp_path, capsys) -> None:
    pack = scaffold(tmp_path)
    capsys.readouterr()
    with EditorThread(pack, DEMO_MODULE) as editor:
        page = open_editor(browser, editor.url)
        page.select_option("#coverage-group", "fact")
        capital = page.locator('#coverage details[data-group="Capital"] li[data-subject="Poland"]')
        page.click('#coverage details[data-group="Capital"] summary')
        assert capital.inner_text().startswith("✗")
        page.locator('polygon[data-hex="e3804"]').scroll_into_view_if_needed()
        page.click('polygon[data-hex="e3804"]')
        page.select_option("#field-country", "Poland")
        settled(page)
        page.keyboard.press("k")
        settled(page)
        assert capital.inner_text().startswith("✓")
        assert capital.locator("button.complete").count() == 0
        page.keyboard.press("Control+z")
        settled(page)
        assert capital.inner_text().startswith("✗")
        assert page.errors == []


def test_a_second_tab_sees_the_first_tabs_edits_before_it_toggles(browser, tmp_path) -> None:
    """Two pages on one editor: C in the first marks Krakow's City off; the second shows it at once, so
    its own C sets the City again instead of taking away one it still showed (the toggle keys)."""
    pack = tmp_path / "pack"
    shutil.copytree(DEMO_PACK, pack)
    with EditorThread(pack, DEMO_MODULE) as editor:
        first = open_editor(browser, editor.url)
        second = open_editor(browser, editor.url)
        first.click('polygon[data-hex="e3501"]')
        first.keyboard.press("c")
        settled(first)
        assert "city" not in editor.session.hexes["e3501"]
        second.wait_for_function("document.body.dataset.unsaved === '1'")
        assert second.locator('text[data-marks="e3501"]').text_content() == ""
        assert "changed in another editor page" in second.inner_text("#status")
        second.click('polygon[data-hex="e3501"]')
        assert not second.locator('[data-flag="city"]').is_checked()
        second.keyboard.press("c")
        settled(second)
        assert editor.session.hexes["e3501"]["city"] is True
        first.wait_for_function("document.body.dataset.unsaved === '0'")
        assert first.locator('text[data-marks="e3501"]').text_content() == "C"
        assert first.errors == [] and second.errors == []
