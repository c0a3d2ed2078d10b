"""The overlay page in a real headless Chromium, driven by Playwright, against the real daemon.

Skips (with the reason) when Playwright's Python package or a Chromium binary is missing. Chromium
comes from the system (`/usr/bin/chromium`, or ADJUTANT_CHROMIUM); `playwright install` is never used.
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.bridge.harness import DaemonThread
from tests.bridge.savefiles import HIDDEN_PIECE, sample_plan, save_bytes, write_in_place

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
)

CHROMIUM = os.environ.get("ADJUTANT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WAIT_MS = 15_000
FAST = {"debounce": 0.03, "retry": 0.05}

pytestmark = pytest.mark.skipif(
    not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)),
    reason=f"Chromium not found at {CHROMIUM} (apt-get install chromium, or set ADJUTANT_CHROMIUM)",
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        user_data = tempfile.mkdtemp(prefix="adjutant-chromium-")
        context = playwright.chromium.launch_persistent_context(
            user_data, executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield context
        finally:
            context.close()
            shutil.rmtree(user_data, ignore_errors=True)


@pytest.fixture()
def pages(browser: Any) -> Iterator[list[Any]]:
    opened: list[Any] = []
    yield opened
    for page in opened:
        page.close()


def open_view(browser: Any, pages: list[Any], daemon: DaemonThread, query: str) -> Any:
    page = browser.new_page()
    page.set_default_timeout(WAIT_MS)
    pages.append(page)
    page.goto(daemon.url(query))
    page.wait_for_selector("body[data-connected=yes]", state="attached")
    return page


def record_frames(page: Any) -> list[str]:
    """Every WebSocket frame the page receives, to prove what never reached it."""
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(str(payload))))
    return frames


def test_a_save_lands_and_player_and_stream_views_show_the_event(
    browser: Any, pages: list, tmp_path: Path
) -> None:
    """16.2.1 fires: the Axis player sees it with rule, why, checklist and choice; the stream sees it too."""
    with DaemonThread(tmp_path, **FAST) as daemon:
        player = open_view(browser, pages, daemon, "view=player&faction=Axis")
        stream = browser.new_page()
        pages.append(stream)
        frames = record_frames(stream)
        stream.goto(daemon.url("view=stream"))
        stream.wait_for_selector("body[data-connected=yes]", state="attached")
        allied = open_view(browser, pages, daemon, "view=player&faction=Allied")
        write_in_place(tmp_path / "turn1.vsav", save_bytes(sample_plan()))

        player.wait_for_selector(".event[data-rule='16.2.1']")
        text = player.inner_text("#content")
        assert "Case Yellow" in text and "Germany is at war with France (16.2.1)" in text
        assert player.locator(".step input[type=checkbox]").count() == 2
        assert player.locator(".choice[data-choice='16.2.1:country'] button.option").count() == 2
        assert "Italy may not declare war this turn" in text  # violations (6.1)
        assert player.locator("svg.inset polygon").count() == 2  # map inset: Aachen and Liege
        assert player.locator("svg.inset rect").count() == 2

        stream.wait_for_selector(".event[data-rule='16.2.1']", timeout=WAIT_MS)
        stream_text = stream.inner_text("body")
        assert "Case Yellow" in stream_text and "Move GE 4-4-3 Inf from Aachen to Liege" in stream_text
        assert HIDDEN_PIECE not in stream_text
        assert stream.locator("input, button").count() == 0  # nothing interactive on air
        assert stream.locator("svg.inset rect").count() == 1  # the masked counter is not drawn
        background = stream.evaluate("getComputedStyle(document.body).backgroundColor")
        assert background in ("rgba(0, 0, 0, 0)", "transparent")
        assert frames and all(HIDDEN_PIECE not in frame for frame in frames)

        allied.wait_for_selector("#nothing:not([hidden])")  # Axis phasing: nothing for the Allies
        assert allied.locator(".event").count() == 0


def test_choice_answered_in_control_view_updates_the_other_views(
    browser: Any, pages: list, tmp_path: Path
) -> None:
    """Answering 16.2.1's country choice in the control view fires it in the player and stream views."""
    write_in_place(tmp_path / "turn1.vsav", save_bytes(sample_plan(status="waiting")))
    with DaemonThread(tmp_path, **FAST) as daemon:
        control = open_view(browser, pages, daemon, "view=control")
        player = open_view(browser, pages, daemon, "view=player&faction=Axis")
        stream = open_view(browser, pages, daemon, "view=stream")
        for page in (control, player, stream):
            page.wait_for_selector(".event.status-waiting[data-rule='16.2.1']")
        control.click(".choice[data-choice='16.2.1:country'] button[data-value='Luxembourg']")
        for page in (control, player, stream):
            page.wait_for_selector(".event.status-fired[data-rule='16.2.1']")
            page.wait_for_selector("text=Axis units enter Luxembourg")
        control.wait_for_selector("button.option.chosen[data-value='Luxembourg']")
        assert "unmapped piece: Spare marker ×3" in control.inner_text("#warnings")
        assert player.locator("#warnings").is_hidden() and stream.locator("#warnings").is_hidden()
        player.wait_for_selector("button.option.chosen[data-value='Luxembourg']")
        assert "Answered: Luxembourg" in stream.inner_text("body")

        key = daemon.daemon.server.history.state["plan"]["events"][0]["steps"][0]["key"]
        control.check(f"input[data-key='{key}']")
        player.wait_for_selector(f"li.step.done[data-key='{key}']")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_page_reconnects_and_resyncs_after_the_server_restarts(
    browser: Any, pages: list, tmp_path: Path
) -> None:
    port = _free_port()
    write_in_place(tmp_path / "turn1.vsav", save_bytes(sample_plan(turn="Spring 1940")))
    with DaemonThread(tmp_path, port=port, **FAST) as daemon:
        page = open_view(browser, pages, daemon, "view=player&faction=Axis")
        page.wait_for_selector("text=Spring 1940")
    page.wait_for_selector("body[data-connected=no]", state="attached")
    assert "Disconnected" in page.inner_text("#connection")
    write_in_place(tmp_path / "turn1.vsav", save_bytes(sample_plan(turn="Summer 1940")))
    with DaemonThread(tmp_path, port=port, **FAST):
        page.wait_for_selector("body[data-connected=yes]", state="attached")
        page.wait_for_selector("text=Summer 1940")
        assert page.locator(".event[data-rule='16.2.1']").count() == 1


def test_stream_view_never_receives_a_hidden_piece(browser: Any, pages: list, tmp_path: Path) -> None:
    """Across saves, answers and a log replay, no frame sent to the stream view names the hidden piece."""
    with DaemonThread(tmp_path, **FAST) as daemon:
        stream = browser.new_page()
        pages.append(stream)
        frames = record_frames(stream)
        stream.goto(daemon.url("view=stream"))
        control = open_view(browser, pages, daemon, "view=control")
        write_in_place(tmp_path / "a.vsav", save_bytes(sample_plan(status="waiting")))
        control.wait_for_selector(
            ".choice[data-choice='16.2.1:country'] button[data-value='Belgium-Holland']"
        )
        control.click(".choice[data-choice='16.2.1:country'] button[data-value='Belgium-Holland']")
        stream.wait_for_selector("text=Axis units enter Belgium-Holland", timeout=WAIT_MS)
        steps = [sample_plan(status=s) for s in ("not_due", "fired")]
        write_in_place(tmp_path / "b.vlog", save_bytes(steps[0], log_plans=steps[1:]))
        control.wait_for_selector("#replay:not([hidden])")
        assert HIDDEN_PIECE in control.inner_text("body")  # the players' own view does show it
        assert len(frames) >= 3
        assert all(HIDDEN_PIECE not in frame for frame in frames)
        assert HIDDEN_PIECE not in stream.content()


def test_real_demo_save_shows_the_map_inset_in_the_player_view(
    browser: Any, pages: list, tmp_path: Path
) -> None:
    """16.1.1 (Poland conquered) with the real CheckPipeline: the (phasing) Axis player's view draws the
    inset SVG — one polygon per hex the pipeline supplies, the named hexes in focus."""
    from bridge.commands.watch import pipeline_planner

    demo = Path(__file__).resolve().parents[2] / "module_patches" / "demo"
    plan_function, replay_function = pipeline_planner(demo / "adjutant-demo.vmod", str(demo / "pack"))
    real = {"plan_function": plan_function, "replay_function": replay_function}
    with DaemonThread(tmp_path, **real, **FAST) as daemon:
        player = open_view(browser, pages, daemon, "view=player&faction=Axis")
        write_in_place(tmp_path / "poland.vsav", (demo / "saves" / "02-poland-falls.vsav").read_bytes())
        player.wait_for_selector(".event[data-rule='16.1.1'] svg.inset polygon")
        events = daemon.daemon.server.history.state["plan"]["events"]
        inset = next(e for e in events if e["rule"] == "16.1.1")["map"]
        event = player.locator(".event[data-rule='16.1.1']")
        assert event.locator("svg.inset polygon").count() == len(inset["hexes"])
        focus = sum(1 for h in inset["hexes"] if h["focus"])
        assert event.locator("svg.inset polygon.focus").count() == focus
        assert event.locator("svg.inset rect").count() == len(inset["counters"]) > 0
        assert "Warsaw e3804" in event.locator("svg.inset").text_content()
