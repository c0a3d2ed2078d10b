"""The editor's facts, whole (issue 38 item 5), in headless Chromium with real clicks and keys.

A ✓ on a fact with nothing marked asks before declaring it empty and then shows it as "declared none";
"neighbouring countries" shows the base pack's list, lets it be changed, and its "show" selects none of
the country's own hexes; the editor's count and `pack check`'s are one count, in the same words.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bridge.cli.commands.demo import DEMO_MODULE
from bridge.cli.main import main
from rules.packs import load_pack
from tests.bridge.editor_harness import EditorThread
from tests.bridge.test_editor_country_browser import open_editor, scaffold, settled
from tests.bridge.test_overlay_browser import CHROMIUM, chromium_context

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
)
pytestmark = pytest.mark.skipif(
    not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)),
    reason=f"Chromium not found at {CHROMIUM} (apt-get install chromium, or set ADJUTANT_CHROMIUM)",
)

POLAND = '#coverage details[data-group="Poland"]'
EASTERN_POLAND = f'{POLAND} li[data-fact="area_hexes"][data-subject="eastern_poland"]'
NEIGHBOURS = f'{POLAND} li[data-fact="neighbors"][data-subject="Poland"]'
# Poland's neighbours in the base pack (rules/packs/tk/countries.toml), what a scaffold inherits.
TK_POLAND = ["Germany", "Russia", "Baltic States", "Rumania", "Hungary", "Czechoslovakia"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium_context(viewport={"width": 1400, "height": 860}) as context:
        yield context


def open_poland(page: Any) -> None:
    page.click('#coverage details[data-group="Poland"] summary')


def own_countries(pack: Path) -> dict[str, Any]:
    """The `[countries]` entries the pack's own files hold (not the base's)."""
    import tomllib

    out: dict[str, Any] = {}
    for path in sorted(pack.glob("*.toml")):
        out.update(tomllib.loads(path.read_text()).get("countries", {}))
    return out


def pack_check_text(pack: Path, capsys: Any) -> tuple[str, dict[str, Any]]:
    """`pack check`'s count line (text) and its JSON count, as a player would read them after saving."""
    capsys.readouterr()
    main(["pack", "check", str(pack)])
    text = capsys.readouterr().out
    main(["pack", "check", str(pack), "--json"])
    report = json.loads(capsys.readouterr().out)
    head = next(line for line in text.splitlines() if line.startswith("map facts the events need"))
    return head, report["facts"]


def test_a_tick_on_an_empty_fact_asks_then_shows_declared_none(browser, tmp_path, capsys) -> None:
    pack = scaffold(tmp_path)
    capsys.readouterr()
    with EditorThread(pack, DEMO_MODULE) as editor:
        page = open_editor(browser, editor.url)
        open_poland(page)
        row = page.locator(EASTERN_POLAND)
        assert row.inner_text().startswith("✗ Eastern Poland: hexes")
        before = page.inner_text("#coverage-count")
        # ✓ asks; "cancel" leaves the fact missing and records nothing.
        row.locator("button.complete").click()
        ask = row.locator(".ask-none")
        assert "Nothing is marked as hexes of Eastern Poland" in ask.inner_text()
        assert "eastern_poland" not in editor.session.complete.get("area_hexes", set())
        ask.locator("button.cancel-none").click()
        assert row.locator(".ask-none").count() == 0 and row.inner_text().startswith("✗")
        assert editor.session.unsaved() == 0
        # Again, and Esc cancels too.
        row.locator("button.complete").click()
        page.keyboard.press("Escape")
        assert row.locator(".ask-none").count() == 0 and editor.session.unsaved() == 0
        # Again, and Enter on the focused "declare none" declares it.
        row.locator("button.complete").click()
        page.keyboard.press("Enter")
        settled(page)
        assert "eastern_poland" in editor.session.complete["area_hexes"]
        assert row.inner_text().startswith("∅ Eastern Poland: hexes")
        assert "declared none" in row.inner_text()
        assert row.get_attribute("class") == "none"  # not the green "done"
        assert row.evaluate("(n) => getComputedStyle(n).color") != "rgb(27, 107, 42)"
        assert "(1 declared none)" in page.inner_text("#coverage-count")
        assert "(1 declared none)" in page.inner_text('#coverage details[data-group="Poland"] summary')
        assert page.inner_text("#coverage-count") != before
        # "take back" makes it missing again; Ctrl+Y-free: one click.
        row.locator("button.take-back").click()
        settled(page)
        assert row.inner_text().startswith("✗") and page.inner_text("#coverage-count") == before
        # Declared again, saved with Ctrl+S: pack check says it in the same words as the page.
        row.locator("button.complete").click()
        row.locator("button.declare-none").click()
        settled(page)
        page.keyboard.press("Control+s")
        page.wait_for_selector("body[data-dirty=no]", state="attached")
        shown = page.inner_text("#coverage-count")
        assert page.errors == []
    head, counted = pack_check_text(pack, capsys)
    assert head.endswith(shown), (head, shown)
    assert counted["none"] == 1
    assert "eastern_poland" in load_pack(pack).complete["area_hexes"]


def test_neighbouring_countries_are_shown_changed_and_confirmed(browser, tmp_path, capsys) -> None:
    pack = scaffold(tmp_path)
    capsys.readouterr()
    with EditorThread(pack, DEMO_MODULE) as editor:
        page = open_editor(browser, editor.url)
        open_poland(page)
        row = page.locator(NEIGHBOURS)
        chips = row.locator(".neighbours .neighbour")
        assert [c.get_attribute("data-neighbour") for c in chips.all()] == TK_POLAND  # the inherited list
        assert "as the base pack lists them" in row.inner_text()
        # "show" lights the neighbours' hexes and selects nothing (never Poland's own hexes).
        page.click('polygon[data-hex="e3804"]')  # Warsaw selected first: the selection stays the player's
        row.locator("button.show").click()
        assert page.evaluate("[...state.selected]") == ["e3804"]
        lit = page.evaluate("[...state.focus]")
        countries = {editor.session.hexes[h]["country"] for h in lit}
        assert lit and countries <= set(TK_POLAND) and "Poland" not in countries
        assert "Germany" in page.inner_text("#status")
        # Change it: Hungary dropped (its × button), Sweden added from the list.
        row.locator('.neighbour[data-neighbour="Hungary"] button.drop').click()
        settled(page)
        row.locator("select.add-neighbour").select_option("Sweden")
        settled(page)
        changed = [n for n in TK_POLAND if n != "Hungary"] + ["Sweden"]
        assert [c.get_attribute("data-neighbour") for c in chips.all()] == changed
        # A second page on the same editor shows the changed list at once.
        other = open_editor(browser, editor.url)
        open_poland(other)
        other_chips = other.locator(f"{NEIGHBOURS} .neighbours .neighbour")
        assert [c.get_attribute("data-neighbour") for c in other_chips.all()] == changed
        assert editor.session.neighbors["Poland"] == changed
        assert "base pack: " + ", ".join(TK_POLAND) in row.inner_text()
        # Ctrl+Z takes Sweden back, Ctrl+Y puts it again.
        page.keyboard.press("Control+z")
        settled(page)
        assert "Sweden" not in [c.get_attribute("data-neighbour") for c in chips.all()]
        other.wait_for_function(f"!document.querySelector('{NEIGHBOURS} .neighbour[data-neighbour=Sweden]')")
        page.keyboard.press("Control+y")
        settled(page)
        assert [c.get_attribute("data-neighbour") for c in chips.all()] == changed
        other.wait_for_function(f"document.querySelector('{NEIGHBOURS} .neighbour[data-neighbour=Sweden]')")
        assert other.errors == []
        other.close()
        # ✓ confirms what is shown.
        assert not row.inner_text().startswith("✓")
        row.locator("button.complete").click()
        settled(page)
        assert row.inner_text().startswith("✓")
        assert row.locator(".ask-none").count() == 0  # a non-empty list is confirmed, not asked about
        page.keyboard.press("Control+s")
        page.wait_for_selector("body[data-dirty=no]", state="attached")
        saved = load_pack(pack)
        assert list(saved.countries["Poland"].neighbors) == changed
        assert "Poland" in saved.complete["neighbors"]
        tk = load_pack("tk")
        assert saved.countries["Poland"].capital == tk.countries["Poland"].capital  # merged
        assert saved.countries["Rumania"].neighbors == tk.countries["Rumania"].neighbors
        own = own_countries(pack)  # only what differs from the base: Poland's list, nothing else
        assert own == {"Poland": {"neighbors": changed}}
        # Back to the base's list: the pack's own override goes, the base's list is what it reads.
        row.locator("button.use-base").click()
        settled(page)
        assert [c.get_attribute("data-neighbour") for c in chips.all()] == TK_POLAND
        page.keyboard.press("Control+s")
        page.wait_for_selector("body[data-dirty=no]", state="attached")
        assert own_countries(pack) == {}
        assert list(load_pack(pack).countries["Poland"].neighbors) == TK_POLAND
        assert page.errors == []


def test_the_page_and_pack_check_give_one_count_in_the_same_words(browser, tmp_path, capsys) -> None:
    """Several events read Poland's City hexes; both count it once (issue 38: "8 of 100" against "414")."""
    pack = scaffold(tmp_path)
    capsys.readouterr()
    head, counted = pack_check_text(pack, capsys)
    with EditorThread(pack, DEMO_MODULE) as editor:
        page = open_editor(browser, editor.url)
        shown = page.inner_text("#coverage-count")
        assert head.endswith(shown), (head, shown)
        assert f"{counted['complete']} of {counted['total']} map facts complete" in shown
        assert f"{counted['missing']} missing" in shown
        progress = page.locator("#coverage-progress")
        assert int(progress.get_attribute("max")) == counted["total"]
        assert int(progress.get_attribute("value")) == counted["complete"]
        # Summed over the country groups, the page's rows are the same facts.
        rows = page.locator("#coverage details li[data-fact]").count()
        assert rows == counted["total"]
        # One edit: Warsaw marked Polish and a City, Capital: both counts move together.
        page.locator('polygon[data-hex="e3804"]').scroll_into_view_if_needed()
        page.click('polygon[data-hex="e3804"]')
        page.select_option("#field-country", "Poland")
        settled(page)
        page.keyboard.press("k")
        settled(page)
        page.keyboard.press("Control+s")
        page.wait_for_selector("body[data-dirty=no]", state="attached")
        after = page.inner_text("#coverage-count")
        assert after != shown
        assert page.errors == []
    head, counted = pack_check_text(pack, capsys)
    assert head.endswith(after), (head, after)


def test_a_regions_neighbouring_countries_get_the_same_control(browser, tmp_path, capsys) -> None:
    """16.2.2 Step 10 reads the countries bordering an Ostland Region (Ukraine): tk lists none, so its ✓
    asks first; a country added from the list is confirmed without asking and saved as `[areas.x]`."""
    pack = scaffold(tmp_path)
    capsys.readouterr()
    with EditorThread(pack, DEMO_MODULE) as editor:
        page = open_editor(browser, editor.url)
        page.click('#coverage details[data-group="Russia"] summary')
        row = page.locator('#coverage details[data-group="Russia"] li[data-fact="area_neighbors"]'
                           '[data-subject="ukraine"]')
        assert "none listed" in row.locator(".neighbours").inner_text()
        row.locator("button.complete").click()
        assert "Declare that Ukraine has none?" in row.locator(".ask-none").inner_text()
        row.locator("button.cancel-none").click()
        row.locator("select.add-neighbour").select_option("Poland")
        settled(page)
        assert [c.get_attribute("data-neighbour") for c in row.locator(".neighbour").all()] == ["Poland"]
        row.locator("button.show").click()  # lights Poland's hexes (Krakow), selects nothing
        assert page.evaluate("state.selected.size") == 0
        assert {editor.session.hexes[h]["country"] for h in page.evaluate("[...state.focus]")} == {"Poland"}
        row.locator("button.complete").click()
        settled(page)
        assert row.locator(".ask-none").count() == 0 and row.inner_text().startswith("✓")
        page.keyboard.press("Control+s")
        page.wait_for_selector("body[data-dirty=no]", state="attached")
        assert page.errors == []
    saved = load_pack(pack)
    assert saved.areas["ukraine"].neighbors == ("Poland",) and "ukraine" in saved.complete["area_neighbors"]
    assert saved.areas["ukraine"].name == "Ukraine"  # merged with the base's entry field by field


def test_the_by_event_view_asks_too_and_names_what_is_declared_none(browser, tmp_path, capsys) -> None:
    pack = scaffold(tmp_path)
    capsys.readouterr()
    with EditorThread(pack, DEMO_MODULE) as editor:
        page = open_editor(browser, editor.url)
        page.select_option("#coverage-group", "event")
        item = page.locator('#coverage li[data-rule="16.1.1"][data-fact="area_hexes"]')
        item.locator('button.complete[data-complete="eastern_poland"]').click()
        assert "Declare that Eastern Poland has none?" in item.locator(".ask-none").inner_text()
        assert editor.session.unsaved() == 0
        item.locator("button.declare-none").click()
        settled(page)
        assert "declared none: Eastern Poland" in item.inner_text()
        assert "eastern_poland" in editor.session.complete["area_hexes"]
        assert "(1 declared none)" in page.inner_text("#coverage-count")
        assert page.errors == []
