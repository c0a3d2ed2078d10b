"""The Counters pane of `adjutant pack edit` (issue 38, item 3) in real headless Chromium.

A copy of the demo pack as `pack scaffold` would leave it: its counter rules and the war-state rule
marked `proposed = true` under their evidence comments, and the main counter rule proposed wrong (the
kinds capitalised, as no demo piece writes them), so `adjutant check` on the Poland-falls save maps none
of its 32 pieces and cannot call 16.1.1 due. In the editor a user sees the proposed rules with their
evidence and the module's pieces each one takes (with the module's own images) and the pieces no rule
takes, accepts the Strength rule and the proposed Delay Box, changes the broken rule's Kind with the
keyboard (a hex selected on the map: its keys must not fire), saves with Ctrl+S: vassal.toml changes in
those two rules and the `[vassal.places] proposed` list only (comments kept), and the next `adjutant
check` maps every piece and calls 16.1.1 DUE.
"""

from __future__ import annotations

import shutil
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK
from bridge.cli.main import main
from module_patches.demo_story import load_story, save_path
from tests.bridge.editor_harness import EditorThread
from tests.bridge.test_editor_browser import open_editor, pytestmark, settled  # noqa: F401
from tests.bridge.test_overlay_browser import chromium_context

POLAND_FALLS = save_path(load_story()[1])
MAIN_RULE = 'match = { Kind = "re:ground|air|naval|ceded_land|marker" }'
BROKEN_RULE = 'match = { Kind = "re:Ground|Air|Naval|Ceded_land|Marker" }'
FIXED_KIND = "re:ground|air|naval|ceded_land|marker"
EVIDENCE_MAIN = "# Kind: 5 values (ground, air, naval, ceded_land, marker) on 32 of 42 pieces"
EVIDENCE_STRENGTH = "# Strength_Level: level 2 of Layer Strength, the reduced face, on 0 of 42 pieces"
# (with markup in it: the page shows it as text, never runs it)
EVIDENCE_WAR = ('# Counter WAR-STATE: one piece, its Layer War names the war state '
                '<img src=x onerror="window.pwned=1"><b>bold</b>')
NOT_BOXES = 'not_boxes = ["War State Box", "re:Turn [0-9]+ .+", "re:(Axis|Western|Soviet) Current Card"]\n'
PROPOSED_BOXES = 'proposed = ["Delay Box", "(.+) Posture Box"]\n'


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium_context(viewport={"width": 1400, "height": 900}) as context:
        yield context


def proposed_pack(tmp_path: Path) -> Path:
    """The demo pack with three rules marked proposed (evidence comments above them), one of them wrong."""
    pack = tmp_path / "pack"
    shutil.copytree(DEMO_PACK, pack)
    vassal = pack / "vassal.toml"
    text = vassal.read_text()
    replacements = [
        (f"[[vassal.counters]]\n{MAIN_RULE}",
         f"{EVIDENCE_MAIN}\n[[vassal.counters]]\nproposed = true\n{BROKEN_RULE}"),
        ('[[vassal.counters]]\nnote = "the reduced',
         f'{EVIDENCE_STRENGTH}\n[[vassal.counters]]\nproposed = true\nnote = "the reduced'),
        ('[[vassal.state]]\nmatch = { Counter = "WAR-STATE" }',
         f'{EVIDENCE_WAR}\n[[vassal.state]]\nproposed = true\nmatch = {{ Counter = "WAR-STATE" }}'),
        (NOT_BOXES, NOT_BOXES + PROPOSED_BOXES),
    ]
    for old, new in replacements:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    vassal.write_text(text)
    return pack


def check(capsys: Any, pack: Path) -> tuple[int, str]:
    status = main(["check", str(POLAND_FALLS), "--module", str(DEMO_MODULE), "--pack", str(pack)])
    return status, capsys.readouterr().out


def rule(page: Any, rule_id: str) -> Any:
    return page.locator(f'#counter-rules li[data-rule="{rule_id}"]')


def test_accepting_and_changing_proposed_rules_is_read_back_by_check(browser, tmp_path, capsys) -> None:
    pack = proposed_pack(tmp_path)
    status, out = check(capsys, pack)
    assert "the pack maps only 0 of the save's 32 pieces" in out, out
    assert "16.1.1 Allied Minor Country Conquest [permanent]: not due" in out
    before = (pack / "vassal.toml").read_text()

    with EditorThread(pack, DEMO_MODULE) as editor:
        page = open_editor(browser, editor)
        assert page.inner_text("#counters-jump") == "Counters: 5 proposed"  # 3 rules, 2 boxes
        page.click("#counters-jump")  # the header's way to the pane, below the map facts
        assert "3 proposed from the module, not yet reviewed" in page.inner_text("#counters-summary")
        assert "2 boxes proposed" in page.inner_text("#counters-summary")
        delay = page.locator('#counter-places li[data-place="Delay Box"]')
        assert "Delay Box → Delay Box" in delay.inner_text()
        assert "proposed, not reviewed" in delay.inner_text()
        assert "zones named (.+) Posture Box → posture:{0}" in page.inner_text("#counter-places")
        main_rule, strength, war = rule(page, "counters:0"), rule(page, "counters:1"), rule(page, "state:0")
        shown = ((main_rule, EVIDENCE_MAIN), (strength, EVIDENCE_STRENGTH), (war, EVIDENCE_WAR))
        for item, evidence in shown:
            assert "proposed, not reviewed" in item.locator(".badge").inner_text()
            assert evidence.lstrip("# ") in item.locator(".evidence").inner_text()
        # The broken rule takes no piece; the module's units and markers are listed as taken by none,
        # with their images from the .vmod.
        assert "matches 0 pieces" in main_rule.inner_text()
        assert "match: Kind = re:Ground|Air|Naval|Ceded_land|Marker" in main_rule.inner_text()
        unmatched = page.locator("#counters-unmatched figure.piece")
        assert unmatched.count() >= 26
        assert page.locator('#counters-unmatched figure.piece[title^="GE 1 Pz"]').count() == 1
        image = page.locator('#counters-unmatched figure.piece[title^="GE 1 Pz"] img')
        image.scroll_into_view_if_needed()
        page.wait_for_function("(img) => img.complete && img.naturalWidth > 0", arg=image.element_handle())
        # The war-state rule takes its one marker, shown under it.
        assert war.locator("figure.piece").count() == 1
        assert "War State" in war.locator("figure.piece").get_attribute("title")

        assert '<b>bold</b>' in war.locator(".evidence").inner_text()
        assert war.locator(".evidence img, .evidence b").count() == 0
        assert page.evaluate("window.pwned") is None

        # Accept the Strength rule: no longer proposed, not yet saved; Ctrl+Z, Ctrl+Y take it back, again.
        strength.locator("button.rule-accept").click()
        settled(page)
        page.wait_for_function("document.body.dataset.proposedRules === '2'")
        assert "accepted (not saved yet)" in strength.locator(".badge").inner_text()
        page.keyboard.press("Control+z")
        page.wait_for_function("document.body.dataset.proposedRules === '3'")
        assert "proposed, not reviewed" in strength.locator(".badge").inner_text()
        page.keyboard.press("Control+y")
        page.wait_for_function("document.body.dataset.proposedRules === '2'")
        settled(page)
        assert strength.locator("button.rule-accept").count() == 0
        assert page.locator("body[data-dirty=yes]").count() == 1

        # Accept the Delay Box as proposed.
        delay.locator("button.place-accept").click()
        settled(page)
        page.wait_for_function("document.body.dataset.proposedBoxes === '1'")
        assert "accepted (not saved yet)" in delay.inner_text()

        # Change the broken rule: its Kind field, typed, then Enter. Warsaw is selected on the map, and the
        # map's keys (C toggles City, L rail…) must not fire while typing in the pane.
        page.click('polygon[data-hex="e3804"]')
        assert "e3804 Warsaw" in page.inner_text("#selection")
        main_rule.locator("button.rule-change").click()
        field = main_rule.locator('input[data-match="Kind"]')
        assert field.input_value() == "re:Ground|Air|Naval|Ceded_land|Marker"
        field.click()
        page.keyboard.press("Control+a")
        page.keyboard.type(FIXED_KIND)
        # The pane redrawn under the open form (the header's Undo and Redo of the Delay Box's accept) keeps
        # the text.
        page.click("#undo")
        page.wait_for_function("document.body.dataset.proposedBoxes === '2'")
        settled(page)
        assert main_rule.locator('input[data-match="Kind"]').input_value() == FIXED_KIND
        page.click("#redo")
        page.wait_for_function("document.body.dataset.proposedBoxes === '1'")
        settled(page)
        main_rule.locator('input[data-match="Kind"]').click()
        assert main_rule.locator('input[data-match="Kind"]').input_value() == FIXED_KIND
        page.keyboard.press("Enter")
        settled(page)
        page.wait_for_function("document.body.dataset.proposedRules === '1'")
        main_rule = rule(page, "counters:0")
        assert "changed (not saved yet)" in main_rule.locator(".badge").inner_text()
        assert f"match: Kind = {FIXED_KIND}" in main_rule.inner_text()
        assert "matches 32 pieces" in main_rule.inner_text()
        assert main_rule.locator("form").count() == 0
        assert page.locator('#counters-unmatched figure.piece[title^="GE 1 Pz"]').count() == 0
        assert page.locator("#counters-unmatched figure.piece").count() < 26
        assert not page.errors
        assert (pack / "vassal.toml").read_text() == before  # nothing written before Save
        assert editor.session.hexes["e3804"].get("city") is True and editor.session.unsaved() == 3
        assert page.inner_text("#unsaved") == "3 unsaved changes"

        page.keyboard.press("Control+s")
        settled(page)
        page.wait_for_selector("body[data-dirty=no]", state="attached")
        assert "saved vassal.toml" in page.inner_text("#status")
        page.wait_for_function("document.body.dataset.proposedRules === '1'")
        assert "proposed, not reviewed" in rule(page, "state:0").locator(".badge").inner_text()
        assert rule(page, "counters:0").locator(".badge").count() == 0  # reviewed and saved
        assert page.inner_text("#counters-jump") == "Counters: 2 proposed"
        assert page.locator('#counter-places li[data-place="Delay Box"]').count() == 0
        page.close()

    after = (pack / "vassal.toml").read_text()
    # Only the two rules changed: the comments (the evidence too) and the war-state rule's mark kept.
    assert EVIDENCE_MAIN in after and EVIDENCE_STRENGTH in after and EVIDENCE_WAR in after
    assert f'{EVIDENCE_MAIN}\n[[vassal.counters]]\nmatch = {{ Kind = "{FIXED_KIND}" }}\n' in after
    assert f'{EVIDENCE_STRENGTH}\n[[vassal.counters]]\nnote = "the reduced' in after
    assert f'{EVIDENCE_WAR}\n[[vassal.state]]\nproposed = true\n' in after
    expected = before.replace(f"proposed = true\n{BROKEN_RULE}", MAIN_RULE)
    expected = expected.replace(PROPOSED_BOXES, 'proposed = ["(.+) Posture Box"]\n')
    expected = expected.replace(f'{EVIDENCE_STRENGTH}\n[[vassal.counters]]\nproposed = true\n',
                                f'{EVIDENCE_STRENGTH}\n[[vassal.counters]]\n')
    assert after == expected

    status, out = check(capsys, pack)
    assert "unmapped pieces" not in out and "the pack maps only" not in out, out
    assert "16.1.1 Allied Minor Country Conquest [permanent]: DUE" in out
    assert status == 1


def test_a_rule_added_for_the_pieces_no_rule_matches_is_read_back_by_check(browser, tmp_path, capsys) -> None:
    """The demo pack's counter rule without `ceded_land`: the three Ceded Land counters and Russia's
    Eastern Poland are matched by no rule, so `check` leaves GE Polish Corridor out and 16.1.1 Step 4
    asks nothing. Clicking the Polish Corridor among the pieces no rule matches starts a counter rule for
    it; the user turns it into one for every Ceded Land (Kind = ceded_land), fills its fields, adds it
    and saves: `check` moves the Polish Corridor to the Ceded Lands Box."""
    pack = tmp_path / "pack"
    shutil.copytree(DEMO_PACK, pack)
    vassal = pack / "vassal.toml"
    without = 'match = { Kind = "re:ground|air|naval|marker" }'
    vassal.write_text(vassal.read_text().replace(MAIN_RULE, without))
    status, out = check(capsys, pack)
    assert "GE Polish Corridor x1" in out and "move GE Polish Corridor" not in out

    with EditorThread(pack, DEMO_MODULE) as editor:
        page = open_editor(browser, editor)
        page.click("#counters-jump")
        corridor = page.locator('#counters-unmatched figure.piece[title^="GE Polish Corridor"]')
        # its properties, to write the rule from
        assert "Area = polish_corridor" in corridor.get_attribute("title")
        corridor.click()
        form = page.locator('#counters-new form[data-form="new:counters"]')
        name = form.locator('input[data-match="@name"]')
        assert name.input_value() == "GE Polish Corridor"
        name.fill("")  # emptied: left out
        form.locator(".rule-add .add-key").first.fill("Kind")
        form.locator(".rule-add .add-value").first.fill("ceded_land")
        for field, value in (("id", "{Counter}"), ("kind", "{Kind}"), ("name", "{BasicName}"),
                             ("nationality", "{Nation}"), ("steps", "{Steps}")):
            form.locator(f'input[data-set="{field}"]').fill(value)
        # One more field through "+ field" (a second empty row), typed with the keyboard.
        form.locator("fieldset").nth(1).locator("button.rule-more").click()
        assert form.locator("fieldset").nth(1).locator(".rule-add").count() == 2
        page.keyboard.type("area")  # the new row's name field has the focus
        form.locator("fieldset").nth(1).locator(".add-value").last.click()
        page.keyboard.type("{Area}")
        page.keyboard.press("Enter")
        settled(page)
        added = page.locator('#counter-rules li[data-rule="counters:+1"]')
        added.wait_for()
        assert "Counter rule #3" in added.inner_text() and "matches 4 pieces" in added.inner_text()
        assert "match: Kind = ceded_land" in added.inner_text()
        assert page.locator('#counters-unmatched figure.piece[title^="GE Polish Corridor"]').count() == 0
        assert page.locator('#counters-new form').count() == 0
        page.keyboard.press("Control+s")
        page.wait_for_selector("body[data-dirty=no]", state="attached")
        assert not page.errors
        page.close()

    raw = tomllib.loads(vassal.read_text())["vassal"]["counters"]
    assert raw[-1] == {"match": {"Kind": "ceded_land"},
                       "set": {"id": "{Counter}", "kind": "{Kind}", "name": "{BasicName}",
                               "nationality": "{Nation}", "steps": "{Steps}", "area": "{Area}"}}
    status, out = check(capsys, pack)
    assert status == 1 and "unmapped pieces" not in out, out
    assert ("(16.1.1 Step 4) move GE Polish Corridor (GE-CORRIDOR) from Axis Force Pool to Ceded Lands Box"
            in out)
