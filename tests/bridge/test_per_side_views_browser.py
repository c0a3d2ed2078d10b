"""Issue 43 in a real headless Chromium against the real daemon: each printed player URL is its player's.

The demo's story save 09 with RU 1 Inf hidden in Moscow by the Soviet side. The Soviet player's page
lists it among the 16.5.4 redeployment's options; the Axis player's page (its own browser) shows the
event without it, every frame it receives included; that browser, holding the Axis cookie, cannot open
the Soviet view by editing the URL, with or without the Axis token, while its own view reloads from the
cookie as the VASSAL extension's menu link does. Skips as tests/bridge/test_overlay_browser.py does.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import connect

from tests.bridge import test_overlay_browser as base
from tests.bridge.harness import DaemonThread
from tests.bridge.savefiles import sample_plan, save_bytes, write_in_place
from tests.bridge.test_view_filter import DEMO, MODULE, demo_save, secrets_of

browser, pages, pytestmark = base.browser, base.pages, base.pytestmark
HIDE = {"RU-1": "Soviet"}
SCENE = "09-border-defense"


@pytest.fixture(scope="module")
def pipeline() -> Any:
    if not MODULE.exists():
        pytest.skip(f"demo module not built at {MODULE} (scripts/make_demo.py builds it)")
    from bridge.pipeline import CheckPipeline

    return CheckPipeline(MODULE, DEMO / "pack")


@pytest.fixture()
def own_browser(browser: Any) -> Iterator[Any]:
    """Pages each in a browser context of its own: its own cookies, as each player's own browser."""
    contexts: list[Any] = []

    def page() -> Any:
        context = browser.browser.new_context()
        contexts.append(context)
        opened = context.new_page()
        opened.set_default_timeout(base.WAIT_MS)
        return opened

    yield page
    for context in contexts:
        context.close()


def test_each_player_url_shows_its_own_sides_hidden_piece_and_cannot_be_edited_into_another(
        own_browser: Any, tmp_path: Path, pipeline: Any) -> None:
    save = demo_save(tmp_path, SCENE, hide=HIDE)
    watched = tmp_path / "watched"
    watched.mkdir()

    def planner(_path: Path, answers: Any) -> dict:
        return pipeline.plan_file(save, answers=answers).plan

    with DaemonThread(watched, plan_function=planner, **base.FAST) as daemon:
        server = daemon.daemon.server
        write_in_place(watched / "turn.vsav", save_bytes(sample_plan()))
        soviet = own_browser()
        soviet.goto(server.view_url("view=player&faction=Soviet"))
        soviet.wait_for_selector(".event[data-rule='16.5.4']")
        # The Axis decides at the control desk: RU 1 Inf to Brest-Litovsk.
        desk = f"ws://127.0.0.1:{daemon.port}/ws?view=control&token={server.tokens.control}"
        with connect(desk) as control:
            answer = {"type": "answer", "choice": "16.5.4:redeploy", "option": ["RU-1:2>e3806"]}
            control.send(json.dumps(answer))
            soviet.wait_for_function("document.querySelector(\".event[data-rule='16.5.4']\")"
                                     ".innerText.includes('Moscow')")
        inset = soviet.inner_text(".event[data-rule='16.5.4'] .insets")
        assert "Moscow" in inset and "RU-1" in inset  # its own hidden piece, where it stands and goes

        axis = own_browser()
        frames = base.record_frames(axis)
        axis_url = server.view_url("view=player&faction=Axis")
        axis.goto(axis_url)
        axis.wait_for_selector(".event[data-rule='16.5.4'] .insets")
        text = axis.inner_text("body")
        # the event, its inset without Moscow, and the step the answer made said without naming the piece
        assert "Border Defense" in text and "Brest-Litovsk" in text
        assert "A step for a piece the Soviet side keeps hidden" in text
        forbidden = secrets_of(HIDE, SCENE)
        assert [name for name in sorted(forbidden) if name in text] == []
        assert frames and [name for name in sorted(forbidden) if any(name in frame for frame in frames)] == []

        # The Axis player edits the URL: the Soviet view is refused, by the token and by the cookie.
        port = daemon.port
        for edited in (axis_url.replace("faction=Axis", "faction=Soviet"),
                       f"http://127.0.0.1:{port}/?view=player&faction=Soviet",
                       f"http://127.0.0.1:{port}/?view=player&faction=soviet"):
            response = axis.goto(edited)
            assert response is not None and response.status == 403, edited
            assert "its own URL" in axis.inner_text("body")
        # ...while its own view reloads from the cookie (a bookmark, the extension's $PlayerSide$ link)
        response = axis.goto(f"http://127.0.0.1:{port}/?view=player&faction=Axis")
        assert response is not None and response.status == 200
        axis.wait_for_selector(".event[data-rule='16.5.4']")
        assert "RU 1 Inf" not in axis.inner_text("body")
        axis.keyboard.press("F5")  # a reload, by the key
        axis.wait_for_selector(".event[data-rule='16.5.4']")
        assert "RU 1 Inf" not in axis.inner_text("body")


def test_a_player_url_naming_a_vassal_side_opens_that_factions_view(own_browser: Any, tmp_path: Path) -> None:
    """The VASSAL extension's link names the player's side (`faction=$PlayerSide$`); where the pack says the
    Axis plays "Deutsches Reich", that link opens the Axis view, with the Axis player's cookie only."""
    plan = sample_plan()
    plan["vassal"]["sides"] = {"Axis": ["Deutsches Reich"], "Western": ["Western"], "Soviet": ["Soviet"]}
    write_in_place(tmp_path / "turn1.vsav", save_bytes(plan))
    with DaemonThread(tmp_path, **base.FAST) as daemon:
        server = daemon.daemon.server
        while server.history.state.get("plan") is None:
            time.sleep(0.02)
        axis = own_browser()
        axis.goto(server.view_url("view=player&faction=Axis"))  # the printed URL: the cookie is set
        axis.wait_for_selector(".event[data-rule='16.2.1']")
        link = f"http://127.0.0.1:{daemon.port}/?view=player&faction=Deutsches%20Reich"
        response = axis.goto(link)
        assert response is not None and response.status == 200
        axis.wait_for_selector(".event[data-rule='16.2.1']")
        assert axis.inner_text("#title") == "Adjutant — Axis"
        assert "Unknown faction" not in axis.inner_text("body")
        soviet = own_browser()
        soviet.goto(server.view_url("view=player&faction=Soviet"))
        response = soviet.goto(link)  # the Soviet player's cookie does not open the Axis side's view
        assert response is not None and response.status == 403
