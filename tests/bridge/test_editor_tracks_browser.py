"""Drawing a track in `adjutant pack edit` (bridge/web/editor/static/tracks.js), in real headless Chromium
(issue 25).

A copy of the demo pack reads the turn from the TURN marker's box on a track that does not exist yet, so
`adjutant check` knows no turn. In the editor a user picks the Boxes map, drags the first and the last box
of the demo module's turn track, gives the eight turns as values, makes the boxes, nudges one with the
arrow keys and back, adds the track and saves: the pack file gets the `[[vassal.tracks]]` entry (its
comments kept) and the next `adjutant check` reads the turn from the box the marker stands in.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK
from bridge.cli.main import main
from module_patches.demo_story import load_story, save_path
from module_patches.demo_world import WORLD
from tests.bridge.editor_harness import EditorThread
from tests.bridge.test_editor_browser import open_editor, pytestmark, settled  # noqa: F401
from tests.bridge.test_overlay_browser import WAIT_MS, chromium_context

ZONE_RULE = ('match = { Counter = "TURN", "@location" = "re:Turn [0-9]+ (?P<date>.+)" }\n'
             'set = { "turn.date" = "{date}"')
TRACK_RULE = ('match = { Counter = "TURN", "@track" = "Demo Turn Track" }\n'
              'set = { "turn.date" = "{track_value}"')
SCENE = load_story()[4]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium_context(viewport={"width": 1400, "height": 860}) as context:
        yield context


def pack_reading_the_turn_from_a_track(tmp_path: Path) -> Path:
    import shutil

    pack = tmp_path / "pack"
    shutil.copytree(DEMO_PACK, pack)
    vassal = pack / "vassal.toml"
    text = vassal.read_text()
    assert ZONE_RULE in text
    vassal.write_text(text.replace(ZONE_RULE, TRACK_RULE))
    return pack


def turn_of(capsys: Any, pack: Path) -> str | None:
    args = ["check", str(save_path(SCENE)), "--module", str(DEMO_MODULE), "--pack", str(pack), "--json"]
    assert main(args) in (0, 1, 3)
    return json.loads(capsys.readouterr().out).get("turn") or None


def client_point(page: Any, x: float, y: float) -> tuple[float, float]:
    """A point of the map (map pixels, the SVG's viewBox) where the browser shows it."""
    return tuple(page.evaluate(
        """([x, y]) => { const svg = document.getElementById('map'); const p = svg.createSVGPoint();
        p.x = x; p.y = y; const q = p.matrixTransform(svg.getScreenCTM()); return [q.x, q.y]; }""", [x, y]))


def drag(page: Any, box: Any, origin: tuple[int, int]) -> None:
    x0, y0 = client_point(page, origin[0] + box.x + 3, origin[1] + box.y + 3)
    x1, y1 = client_point(page, origin[0] + box.x + box.width - 3, origin[1] + box.y + box.height - 3)
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2, steps=4)
    page.mouse.move(x1, y1, steps=4)
    page.mouse.up()


def test_a_track_drawn_on_the_demo_turn_track_is_read_back_by_check(browser, tmp_path, capsys) -> None:
    pack = pack_reading_the_turn_from_a_track(tmp_path)
    assert turn_of(capsys, pack) is None  # no track yet: the TURN marker gives nothing
    world = WORLD()
    turns = [b for b in world.boxes if b.name.startswith("Turn ")]
    labels = [b.name.split(" ", 2)[2] for b in turns]
    with EditorThread(pack, DEMO_MODULE) as editor:
        page = open_editor(browser, editor)
        model = page.evaluate("state.model")
        index = next(i for i, m in enumerate(model["maps"]) if m["id"] == world.boxes_window)
        page.select_option("#map-choice", str(index))
        page.click("#zoom-out")
        page.click("#zoom-out")  # the whole Boxes window, turn track included, in the viewport
        board = model["maps"][index]["boards"][0]
        origin = (board["x"], board["y"])
        page.fill("#track-name", "Demo Turn Track")
        page.click("#track-first")
        drag(page, turns[0], origin)
        page.click("#track-last")
        drag(page, turns[-1], origin)
        page.fill("#track-values", ", ".join(labels))
        page.click("#track-make")
        assert page.locator("#track-layer rect.track-box").count() == len(turns)
        third = page.locator("#track-boxes li").nth(2)
        before = third.inner_text()
        page.click("#track-layer rect.track-box[data-box='2']")
        page.keyboard.press("ArrowRight")
        assert page.locator("#track-boxes li").nth(2).inner_text() != before  # adjusted by one pixel
        page.keyboard.press("ArrowLeft")
        assert page.locator("#track-boxes li").nth(2).inner_text() == before
        page.click("#track-add")
        page.wait_for_selector("body[data-track-added='Demo Turn Track']", timeout=WAIT_MS)
        page.wait_for_selector("body[data-dirty=yes]", timeout=WAIT_MS)
        page.click("#save")
        page.wait_for_selector("body[data-dirty=no]", timeout=WAIT_MS)
        settled(page)
        assert not page.errors
    text = (pack / "vassal.toml").read_text()
    assert "[[vassal.tracks]]" in text and 'name = "Demo Turn Track"' in text
    assert text.startswith((DEMO_PACK / "vassal.toml").read_text().splitlines()[0])  # comments kept
    assert turn_of(capsys, pack) == labels[SCENE.turn - 1]
