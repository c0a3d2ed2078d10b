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
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from bridge.web.access import AccessTokens
from tests.bridge.harness import DaemonThread
from tests.bridge.savefiles import HIDDEN_PIECE, _hexagon, sample_plan, save_bytes, write_in_place

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


@contextmanager
def chromium_context(**options: Any) -> Iterator[Any]:
    """The system Chromium in a fresh, throw-away profile (shared by every browser test module)."""
    with sync_api.sync_playwright() as playwright:
        user_data = tempfile.mkdtemp(prefix="adjutant-chromium-")
        context = playwright.chromium.launch_persistent_context(
            user_data, executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True, **options
        )
        try:
            yield context
        finally:
            context.close()
            shutil.rmtree(user_data, ignore_errors=True)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium_context() as context:
        yield context


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
        stream.goto(daemon.url("view=stream&insets=1"))  # insets on air are opt-in (room)
        stream.wait_for_selector("body[data-connected=yes]", state="attached")
        allied = open_view(browser, pages, daemon, "view=player&faction=western")  # any case
        write_in_place(tmp_path / "turn1.vsav", save_bytes(sample_plan()))

        player.wait_for_selector(".event[data-rule='16.2.1']")
        text = player.inner_text("#content")
        assert "Case Yellow" in text and "Germany is at war with France (16.2.1)" in text
        # Read-only (issue 41): the steps and the choice's options as text, no control it cannot use.
        assert player.locator(".step").count() == 2
        assert player.locator("#content input, #content button").count() == 0
        assert player.locator(".choice[data-choice='16.2.1:country'] .options-read li").count() == 2
        assert "Italy may not declare war this turn" in text  # violations (6.1)
        assert player.locator("svg.inset polygon").count() == 2  # map inset: Aachen and Liege
        # Issue 43: the counter the Western side masks is not drawn for the Axis, and the step of the piece
        # the plan flags hidden (whose, it does not say: hidden from every player) is said, not named.
        assert player.locator("svg.inset rect").count() == 1
        assert "A step for a piece another side keeps hidden" in text and HIDDEN_PIECE not in text

        stream.wait_for_selector(".event[data-rule='16.2.1']", timeout=WAIT_MS)
        stream_text = stream.inner_text("body")
        assert "Case Yellow" in stream_text and "Move GE 4-4-3 Inf from Aachen to Liege" in stream_text
        assert HIDDEN_PIECE not in stream_text
        assert stream.locator("input, button").count() == 0  # nothing interactive on air
        assert stream.locator("svg.inset rect").count() == 1  # the masked counter is not drawn
        background = stream.evaluate("getComputedStyle(document.body).backgroundColor")
        assert background in ("rgba(0, 0, 0, 0)", "transparent")
        assert frames and all(HIDDEN_PIECE not in frame for frame in frames)

        allied.wait_for_selector("#nothing:not([hidden])")  # Axis phasing: nothing for the Western player
        assert allied.locator(".event").count() == 0
        assert allied.inner_text("#nothing") == "Nothing is due for Western."


def test_control_view_names_the_facts_the_pack_trusts(browser: Any, pages: list, tmp_path: Path) -> None:
    """Issue 22: a plan whose pack trusts City hexes rather than locating them says so in the control view's
    warnings, as every report does; the player and stream views keep their plain layout."""
    plan = sample_plan()
    plan["trusted"] = ["City hexes (city_hexes)"]
    write_in_place(tmp_path / "turn1.vsav", save_bytes(plan))
    with DaemonThread(tmp_path, **FAST) as daemon:
        control = open_view(browser, pages, daemon, "view=control")
        control.wait_for_selector(".event[data-rule='16.2.1']")
        assert ("trusted, not located: pack tk takes what it locates of City hexes (city_hexes) as the whole "
                "fact") in control.inner_text("#warnings")
        player = open_view(browser, pages, daemon, "view=player&faction=Axis")
        player.wait_for_selector(".event[data-rule='16.2.1']")
        assert player.locator("#warnings").is_hidden()


def test_control_view_says_the_mapping_is_proposed(browser: Any, pages: list, tmp_path: Path) -> None:
    """Issue 38: a position read through rules `pack scaffold` proposed and no one reviewed says so in the
    control view, in the words of every report's header."""
    plan = sample_plan()
    plan.setdefault("vassal", {})["proposed"] = {"counter_rules": 14, "state_rules": 9, "ignore_rules": 1,
                                                 "boxes": 13}
    write_in_place(tmp_path / "turn1.vsav", save_bytes(plan))
    with DaemonThread(tmp_path, **FAST) as daemon:
        control = open_view(browser, pages, daemon, "view=control")
        control.wait_for_selector(".event[data-rule='16.2.1']")
        warnings = control.inner_text("#warnings")
        assert ("proposed mapping: 14 counter rules proposed from the module, not yet reviewed (and 9 state "
                "rules, 1 ignore rule, 13 boxes); this position is read through them") in warnings


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
        player.wait_for_selector("text=Answered: Luxembourg")
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
    # Tokens are per start (bridge/web/access.py); both runs get the same ones here so the page's URL stays
    # good: what is tested is the reconnect and the resync (tests/bridge/test_access_browser.py: a new
    # start's tokens shut the old URL out).
    tokens = AccessTokens.generate()
    write_in_place(tmp_path / "turn1.vsav", save_bytes(sample_plan(turn="Spring 1940")))
    with DaemonThread(tmp_path, port=port, tokens=tokens, **FAST) as daemon:
        page = open_view(browser, pages, daemon, "view=player&faction=Axis")
        page.wait_for_selector("text=Spring 1940")
    page.wait_for_selector("body[data-connected=no]", state="attached")
    assert "Disconnected" in page.inner_text("#connection")
    write_in_place(tmp_path / "turn1.vsav", save_bytes(sample_plan(turn="Summer 1940")))
    with DaemonThread(tmp_path, port=port, tokens=tokens, **FAST):
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
    from bridge.cli.commands.watch import pipeline_planner

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
        warsaw = event.locator("svg.inset g.hex-label[data-hex='e3804']")
        assert "Warsaw" in warsaw.text_content() and "e3804" in warsaw.text_content()


def _hex_ring(name: str, label: str, cx: float, cy: float) -> list[dict]:
    """A named (focus) hex and its six neighbours, flat-topped, 80 map px across (like _hexagon)."""
    ring = [{"name": name, "label": label, "center": [cx, cy], "points": _hexagon(cx, cy), "focus": True}]
    for n, (dx, dy) in enumerate(((0, -69.3), (60, -34.6), (60, 34.6), (0, 69.3), (-60, 34.6), (-60, -34.6))):
        x, y = cx + dx, cy + dy
        ring.append({"name": f"{name}-{n}", "label": None, "center": [x, y], "points": _hexagon(x, y),
                     "focus": False})
    return ring


def two_cluster_plan() -> dict:
    """16.5.4-shaped move between far-apart hexes: GE 4-4-3 Inf from Aachen (west) to Brest-Litovsk (east)."""
    plan = sample_plan()
    west, east = _hex_ring("w2001", "Aachen", 100, 100), _hex_ring("e3806", "Brest-Litovsk", 2400, 900)
    event = plan["events"][0]
    event["steps"] = [{"rule": "16.5.4", "step": "Step 1", "action": "move", "counter": "GE-1",
                       "from": "w2001", "to": "e3806", "text": "Move GE 4-4-3 Inf from w2001 to e3806"}]
    event["map"] = {
        # As bridge/mapping/inset.py orders them: the named hexes first (from, to), then their neighbours.
        "hexes": [west[0], east[0], *west[1:], *east[1:]],
        "counters": [{"name": "GE 4-4-3 Inf", "counter": "GE-1", "hex": "w2001", "x": 100, "y": 100},
                     {"name": "RU 2 Inf", "counter": "RU-2", "hex": "e3806", "x": 2400, "y": 900}],
    }
    return plan


def _inside(inner: dict, outer: dict, slack: float = 0.5) -> bool:
    return (inner["x"] >= outer["x"] - slack and inner["y"] >= outer["y"] - slack
            and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + slack
            and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + slack)


def assert_legible_panels(event: Any, min_hex_px: float = 60) -> None:
    """Every hex at least `min_hex_px` wide on screen, every label's box inside its own panel."""
    for panel in event.locator("svg.inset").all():
        frame = panel.bounding_box()
        for polygon in panel.locator("polygon").all():
            assert polygon.bounding_box()["width"] >= min_hex_px
        texts = panel.locator("text").all()
        assert texts
        for text in texts:
            assert _inside(text.bounding_box(), frame), text.text_content()


def test_far_apart_hexes_are_drawn_as_two_legible_panels_with_an_arrow(
    browser: Any, pages: list, tmp_path: Path
) -> None:
    """16.5.4 redeployment from Aachen to Brest-Litovsk: one inset panel per cluster, "from" then "to",
    an arrow naming the counter between them, hexes >= 60 px, labels inside their panel."""
    write_in_place(tmp_path / "turn1.vsav", save_bytes(two_cluster_plan()))
    with DaemonThread(tmp_path, **FAST) as daemon:
        player = open_view(browser, pages, daemon, "view=player&faction=Axis")
        player.wait_for_selector(".event[data-rule='16.2.1'] .insets")
        event = player.locator(".event[data-rule='16.2.1']")
        panels = event.locator("figure.inset-panel")
        assert panels.count() == 2
        first, second = (panels.nth(i).locator("svg.inset") for i in (0, 1))
        assert first.locator("polygon").count() == second.locator("polygon").count() == 7
        assert first.locator("polygon.focus").count() == second.locator("polygon.focus").count() == 1
        assert "Aachen" in first.text_content() and "w2001" in first.text_content()
        assert "Brest-" in second.text_content() and "e3806" in second.text_content()
        assert panels.nth(0).locator("figcaption").inner_text().startswith("from Aachen")
        assert panels.nth(1).locator("figcaption").inner_text().startswith("to Brest-Litovsk")
        link = event.locator(".inset-link")
        assert link.locator(".arrow").inner_text() == "→" and "GE 4-4-3 Inf" in link.inner_text()
        assert first.bounding_box()["x"] < link.bounding_box()["x"] < second.bounding_box()["x"]
        assert first.locator("rect.counter").count() == second.locator("rect.counter").count() == 1
        assert_legible_panels(event)

        stream = open_view(browser, pages, daemon, "view=stream&insets=1")
        stream.wait_for_selector(".event[data-rule='16.2.1']")
        on_air = stream.locator(".event[data-rule='16.2.1']")
        assert on_air.locator("figure.inset-panel").count() == 2  # it fits the 1280x720 band insets=1 allows
        assert_legible_panels(on_air, min_hex_px=70)
        background = stream.evaluate("getComputedStyle(document.body).backgroundColor")
        assert background in ("rgba(0, 0, 0, 0)", "transparent")


def test_nearby_hexes_share_one_panel(browser: Any, pages: list, tmp_path: Path) -> None:
    """16.2.1's Aachen and Liege are neighbours: one panel, not two."""
    write_in_place(tmp_path / "turn1.vsav", save_bytes(sample_plan()))
    with DaemonThread(tmp_path, **FAST) as daemon:
        player = open_view(browser, pages, daemon, "view=player&faction=Axis")
        player.wait_for_selector(".event[data-rule='16.2.1'] .insets")
        event = player.locator(".event[data-rule='16.2.1']")
        assert event.locator("figure.inset-panel").count() == 1
        assert event.locator(".inset-link").count() == 0
        assert_legible_panels(event)


def test_waiting_page_says_what_it_waits_for_and_answers_read_as_words(
    browser: Any, pages: list, tmp_path: Path
) -> None:
    """Before any save: a visible waiting line. A `multiple` choice (16.2.1) answered with two options
    reads "Answered: Belgium-Holland, Luxembourg", not JSON; the player's own choice says it is theirs."""
    with DaemonThread(tmp_path, **FAST) as daemon:
        player = open_view(browser, pages, daemon, "view=player&faction=Axis")
        player.wait_for_selector("#waiting:not([hidden])")
        assert "Waiting for a save" in player.inner_text("#waiting")
        write_in_place(tmp_path / "turn1.vsav", save_bytes(sample_plan(status="waiting", multiple=True)))
        player.wait_for_selector(".choice[data-choice='16.2.1:country'] .answer")
        assert player.locator("#waiting").is_hidden()
        assert "Your decision (Axis): give it in the control view" in player.inner_text(
            ".choice[data-choice='16.2.1:country'] .answer")
        stream = open_view(browser, pages, daemon, "view=stream")
        stream.wait_for_selector("text=Awaiting Axis's decision")
        control = open_view(browser, pages, daemon, "view=control")
        control.click("button.option[data-value='Belgium-Holland']")
        control.wait_for_selector("button.option.chosen[data-value='Belgium-Holland']")
        control.click("button.option[data-value='Luxembourg']")
        # A list answer is built in the page and sent once, complete (issue 24, listanswer.js).
        assert control.inner_text(".choice[data-choice='16.2.1:country'] .progress-text") == "2 chosen"
        control.click(".choice[data-choice='16.2.1:country'] button.submit")
        stream.wait_for_selector("text=Answered: Belgium-Holland, Luxembourg")
        player.wait_for_selector("text=Answered: Belgium-Holland, Luxembourg")


def test_a_mistyped_view_never_falls_back_to_the_player_view(browser: Any, pages: list, tmp_path: Path) -> None:  # noqa: E501
    """`?view=strem` in an OBS source used to become the player view, which shows hidden pieces on
    stream; an unknown view must say so and never connect (a missing view still means player)."""
    write_in_place(tmp_path / "a.vsav", save_bytes(sample_plan()))
    with DaemonThread(tmp_path, **FAST) as daemon:
        page = browser.new_page()
        page.set_default_timeout(WAIT_MS)
        pages.append(page)
        frames = record_frames(page)
        page.goto(daemon.url("view=strem"))
        page.wait_for_selector("body[data-connected=no]", state="attached")
        page.wait_for_timeout(1000)
        assert "Unknown view" in page.inner_text("#connection")
        assert frames == [] and HIDDEN_PIECE not in page.content()


def test_non_phasing_player_view_shows_an_event_that_moves_its_counters(
    browser: Any, pages: list, tmp_path: Path
) -> None:
    """Issue 12.19: in the Axis turn 16.1.1 moves the Western faction's Polish units; the Western player view
    showed "Nothing is due for Western". The plan names the event's `factions`; the view reads them."""
    plan = sample_plan()
    event = plan["events"][0]
    answered = {"id": "16.1.1:colonial_hexes", "rule": "16.1.1", "decider": "Western", "prompt": "Place",
                "options": [{"value": "w2911", "label": "Algiers (w2911)"}], "answer": "w2911",
                "answered": True, "affects_position": True, "multiple": False}
    event.update({"rule": "16.1.1", "title": "Allied Minor Country Conquest", "source": "permanent",
                  "choices": [answered], "factions": ["Axis", "Western"]})
    other = {**event, "rule": "16.1.3", "title": "Internment", "factions": ["Axis"], "steps": [],
             "choices": []}
    plan["events"] = [event, other]
    with DaemonThread(tmp_path, **FAST) as daemon:
        western = open_view(browser, pages, daemon, "view=player&faction=Western")
        soviet = open_view(browser, pages, daemon, "view=player&faction=Soviet")
        write_in_place(tmp_path / "turn1.vsav", save_bytes(plan))
        western.wait_for_selector(".event[data-rule='16.1.1']")
        assert western.locator(".event[data-rule='16.1.3']").count() == 0  # moves no Western counter
        assert western.locator("#nothing").is_hidden()
        # Issue 12.17: an answer reads as its option's label, never the bare value
        shown = western.inner_text(".choice[data-choice='16.1.1:colonial_hexes']")
        assert "Answered: Algiers (w2911)" in shown
        soviet.wait_for_selector("#nothing:not([hidden])")
        assert "Nothing is due for Soviet" in soviet.inner_text("#nothing")


def test_errata_a_step_applied_are_shown_in_the_player_view(
    browser: Any, pages: list, tmp_path: Path
) -> None:
    """Issue 12 item 7: a reading of an erratum an event applied (plan `errata`) is shown with the event:
    which reading, the others, and the pack option that switches it."""
    plan = sample_plan()
    note = {"key": "irkutsk", "kind": "errata", "rule": "16.2.1", "step": "Step 1", "reading": "w5817",
            "reading_text": "Irkutsk is w5817", "alternatives": [{"reading": "w5821", "text": "w5821"}],
            "option": '[options] irkutsk = "<reading>"', "conflict": "Irkutsk is printed two ways.",
            "text": 'erratum irkutsk (16.2.1 Step 1): Irkutsk is printed two ways. Used: w5817. '
                    'Other readings: w5821. Switch: [options] irkutsk = "<reading>" in the pack.'}
    plan["events"][0]["errata"] = [note]
    with DaemonThread(tmp_path, **FAST) as daemon:
        player = open_view(browser, pages, daemon, "view=player&faction=Axis")
        write_in_place(tmp_path / "turn1.vsav", save_bytes(plan))
        player.wait_for_selector(".event[data-rule='16.2.1'] .erratum[data-key='irkutsk']")
        shown = player.inner_text(".event[data-rule='16.2.1'] .errata")
        assert "Used: w5817" in shown and '[options] irkutsk = "<reading>"' in shown
