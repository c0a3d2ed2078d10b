"""The overlay as a stream and a phone see it, in a real headless Chromium (Playwright), against the
real daemon: the lower third at 1920x1080, its URL settings, no banner on air, undecided events,
tables, faction matching, the answers export and the 390 px phone layout.

Skips (with the reason) where Playwright or Chromium is missing, as tests/bridge/test_overlay_browser.py.
"""

from __future__ import annotations

import json
import socket
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from tests.bridge import test_overlay_browser as base
from tests.bridge.harness import DaemonThread
from tests.bridge.savefiles import sample_plan, save_bytes, write_in_place

# The same Chromium, page list and skip reasons as the other browser tests.
browser, pages, pytestmark = base.browser, base.pages, base.pytestmark
FAST, WAIT_MS = base.FAST, base.WAIT_MS

DEMO = Path(__file__).resolve().parents[2] / "module_patches" / "demo"
FULL_HD = {"width": 1920, "height": 1080}


def _real(tmp_path: Path) -> dict:
    from bridge.cli.commands.watch import pipeline_planner

    plan_function, replay_function = pipeline_planner(DEMO / "adjutant-demo.vmod", "demo")
    return {"plan_function": plan_function, "replay_function": replay_function, **FAST}


def _page(browser: Any, pages: list, daemon: DaemonThread, query: str, viewport: dict | None = None) -> Any:
    page = browser.new_page()  # a persistent context: the size is set per page
    page.set_viewport_size(viewport or FULL_HD)
    page.set_default_timeout(WAIT_MS)
    pages.append(page)
    page.goto(daemon.url(query))
    page.wait_for_selector("body[data-connected=yes]", state="attached")
    return page


def _box(page: Any, selector: str) -> dict:
    return page.locator(selector).bounding_box()


def test_stream_at_1080p_is_a_lower_third_in_the_bottom_quarter(
    browser: Any, pages: list, tmp_path: Path
) -> None:
    """Scene 6 (16.3.3 Their Finest Hour and 16.3.4 Paris Threatened due): one card with the current
    event's rule, title and steps, the other as a chip; the panel stays inside the bottom quarter."""
    with DaemonThread(tmp_path, **_real(tmp_path)) as daemon:
        stream = _page(browser, pages, daemon, "view=stream&cycle=2")
        write_in_place(tmp_path / "game.vsav", (DEMO / "saves" / "06-finest-hour.vsav").read_bytes())
        stream.wait_for_selector(".stream-card[data-rule]")
        shot = tmp_path / "stream-1080p.png"
        stream.screenshot(path=str(shot))
        assert shot.stat().st_size > 0
        panel = _box(stream, "#content")
        assert panel["y"] >= 1080 * 0.75 and panel["y"] + panel["height"] <= 1080, panel
        assert panel["height"] > 40  # something is drawn
        card = stream.locator(".stream-card")
        assert card.count() == 1
        first = card.get_attribute("data-rule")
        title = card.locator("h2").inner_text()
        assert first in title and ("Their Finest Hour" in title or "Paris Threatened" in title)
        assert card.locator(".steps li").count() <= 3  # lines=3 by default
        chips = [c.get_attribute("data-rule") for c in stream.locator(".chip").all()]
        assert {*chips, first} >= {"16.3.3", "16.3.4"}
        assert "1/" in card.locator(".cycle").inner_text()
        stream.wait_for_function(
            f"document.querySelector('.stream-card').dataset.rule !== '{first}'", timeout=8000
        )  # it cycles (cycle=2 s)
        panel = _box(stream, "#content")
        assert panel["y"] >= 1080 * 0.75 and panel["y"] + panel["height"] <= 1080


@pytest.mark.parametrize(
    "query,check",
    [
        ("position=top", lambda box, h: box["y"] + box["height"] <= h * 0.25 + 1),
        ("position=left", lambda box, h: box["x"] < 100 and box["width"] <= 1920 * 0.3),
        ("position=right", lambda box, h: box["x"] >= 1920 * 0.7 - 1),
    ],
)
def test_stream_position_setting_moves_the_panel(
    browser: Any, pages: list, tmp_path: Path, query: str, check: Any
) -> None:
    write_in_place(tmp_path / "a.vsav", save_bytes(sample_plan()))
    with DaemonThread(tmp_path, **FAST) as daemon:
        stream = _page(browser, pages, daemon, f"view=stream&{query}")
        stream.wait_for_selector(".stream-card[data-rule='16.2.1']")
        assert check(_box(stream, "#content"), 1080), _box(stream, "#content")


def test_stream_scale_and_lines_settings(browser: Any, pages: list, tmp_path: Path) -> None:
    plan = sample_plan()
    plan["events"][0]["steps"] = [
        dict(plan["events"][0]["steps"][0], text=f"Move GE {n} Inf to Liege") for n in range(1, 7)
    ]
    write_in_place(tmp_path / "a.vsav", save_bytes(plan))
    with DaemonThread(tmp_path, **FAST) as daemon:
        normal = _page(browser, pages, daemon, "view=stream")
        big = _page(browser, pages, daemon, "view=stream&scale=1.5&lines=1")
        for page in (normal, big):
            page.wait_for_selector(".stream-card[data-rule='16.2.1']")
        size = "parseFloat(getComputedStyle(document.body).fontSize)"
        assert big.evaluate(size) == pytest.approx(normal.evaluate(size) * 1.5, rel=0.02)
        assert big.locator(".stream-card .steps li").count() == 1
        assert "more step" in big.inner_text(".stream-card .more")
        assert normal.locator(".stream-card .steps li").count() <= 3


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_stream_shows_no_banner_when_the_link_drops_but_control_does(
    browser: Any, pages: list, tmp_path: Path
) -> None:
    port = _free_port()
    write_in_place(tmp_path / "a.vsav", save_bytes(sample_plan()))
    with DaemonThread(tmp_path, port=port, **FAST) as daemon:
        stream = _page(browser, pages, daemon, "view=stream")
        control = _page(browser, pages, daemon, "view=control", {"width": 1280, "height": 720})
        stream.wait_for_selector(".stream-card[data-rule='16.2.1']")
    for page in (stream, control):
        page.wait_for_selector("body[data-connected=no]", state="attached")
    assert stream.locator("#connection").is_hidden()
    assert "Disconnected" not in stream.inner_text("body")
    assert stream.locator("#stale").is_visible()  # the small marker
    marker = _box(stream, "#stale")
    assert marker["width"] < 30 and marker["height"] < 30
    assert float(stream.evaluate("getComputedStyle(document.getElementById('content')).opacity")) < 0.6
    assert stream.locator(".stream-card[data-rule='16.2.1']").count() == 1  # the last plan stays up
    assert control.locator("#connection").is_visible() and "Disconnected" in control.inner_text("#connection")
    assert control.locator("#stale").is_hidden()


def _undecided_plan() -> dict:
    plan = sample_plan()
    plan["violations"] = []
    plan["events"] = [
        {
            "rule": "16.1.1",
            "title": "Allied Minor Country Conquest",
            "source": "permanent",
            "status": "undecided",
            "why": [],
            "steps": [],
            "choices": [],
            "waiting_for": [],
            "missing": [
                {"fact": "city_hexes", "subject": "Poland", "text": "the pack locates no City hex of Poland"}
            ],
        }
    ]
    plan["due"], plan["undecided"], plan["pending_choices"] = False, True, []
    return plan


def test_undecided_event_has_its_own_style_in_every_view_and_never_reads_nothing_due(
    browser: Any, pages: list, tmp_path: Path
) -> None:
    write_in_place(tmp_path / "a.vsav", save_bytes(_undecided_plan()))
    with DaemonThread(tmp_path, **FAST) as daemon:
        views = {
            query: _page(browser, pages, daemon, query, {"width": 1280, "height": 720})
            for query in ("view=player&faction=Axis", "view=control", "view=stream")
        }
        for query, page in views.items():
            page.wait_for_selector(".event.status-undecided[data-rule='16.1.1']")
            text = page.inner_text("body")
            assert "the pack locates no City hex of Poland" in text, query
            assert "undecided" in page.inner_text(".event.status-undecided .badge"), query
            assert "Nothing is due" not in text, query
        style = views["view=player&faction=Axis"].evaluate(
            "getComputedStyle(document.querySelector('.event.status-undecided')).borderLeftStyle"
        )
        assert style == "dashed"


def test_tables_are_shown_in_full_for_players_and_condensed_on_air(
    browser: Any, pages: list, tmp_path: Path
) -> None:
    """AWAW 60.41-style table (plan key `tables`): rows with figures and rules, total, threshold, note."""
    plan = sample_plan()
    plan["tables"] = [
        {
            "title": "Russian Resistance Table",
            "rule": "60.41",
            "rows": [
                {"label": "Moscow is Axis-controlled", "figure": 3, "rule": "60.41A"},
                {"label": "Leningrad is Axis-controlled", "figure": 2, "rule": "60.41B"},
            ],
            "total": 5,
            "threshold": 8,
            "note": "Russia does not surrender this turn.",
        }
    ]
    write_in_place(tmp_path / "a.vsav", save_bytes(plan))
    with DaemonThread(tmp_path, **FAST) as daemon:
        player = _page(browser, pages, daemon, "view=player&faction=Axis", {"width": 1280, "height": 720})
        control = _page(browser, pages, daemon, "view=control", {"width": 1280, "height": 720})
        stream = _page(browser, pages, daemon, "view=stream")
        for page in (player, control):
            page.wait_for_selector(".table-panel")
            text = page.inner_text(".table-panel")
            for fact in (
                "Russian Resistance Table",
                "60.41",
                "Moscow is Axis-controlled",
                "60.41A",
                "threshold 8",
                "Russia does not surrender this turn.",
            ):
                assert fact in text
            assert page.locator(".table-panel tr").count() == 3
        stream.wait_for_selector(".table-chip")
        assert stream.inner_text(".table-chip").strip().endswith("Russian Resistance Table: 5 / 8")
        panel = _box(stream, "#content")
        assert panel["y"] >= 1080 * 0.75


def test_faction_in_the_url_is_matched_in_any_case_and_checked(
    browser: Any, pages: list, tmp_path: Path
) -> None:
    """Was: `?view=player&faction=axis` said "Nothing is due for axis" while 16.2.1 was due for the Axis."""
    write_in_place(tmp_path / "a.vsav", save_bytes(sample_plan()))
    with DaemonThread(tmp_path, **FAST) as daemon:
        lower = _page(browser, pages, daemon, "view=player&faction=axis", {"width": 1280, "height": 720})
        lower.wait_for_selector(".event[data-rule='16.2.1']")
        assert lower.inner_text("#title") == "Adjutant — Axis"
        assert lower.locator(".choice[data-choice='16.2.1:country'] .options-read li").count() == 2
        wrong = _page(browser, pages, daemon, "view=player&faction=allies", {"width": 1280, "height": 720})
        wrong.wait_for_selector("#notice:not([hidden])")
        assert 'Unknown faction "allies": use Axis, Western, Soviet' in wrong.inner_text("#notice")
        assert wrong.locator(".event").count() == 0 and wrong.locator("#nothing").is_hidden()


def test_control_view_exports_the_answers_check_reads(
    browser: Any, pages: list, tmp_path: Path, capsys
) -> None:
    """16.1.2 (scene 4): the Axis's remedy answered in the control view; the exported JSON, given to
    `adjutant check --answers`, answers the same choice."""
    from bridge.cli.main import main

    save = DEMO / "saves" / "04-hungary-occupied.vsav"
    with DaemonThread(tmp_path, **_real(tmp_path)) as daemon:
        control = _page(browser, pages, daemon, "view=control", {"width": 1280, "height": 720})
        write_in_place(tmp_path / "game.vsav", save.read_bytes())
        button = ".choice[data-choice='16.1.2:remedy:Hungary'] button[data-value='intern']"
        control.wait_for_selector(button)
        control.click(button)
        control.wait_for_selector(f"{button}.chosen")
        control.wait_for_function("document.querySelector('a.export-answers').href.includes('intern')")
        link = control.locator("a.export-answers")
        assert link.get_attribute("download") == "answers.json"
        href = link.get_attribute("href")
    exported = json.loads(urllib.parse.unquote(href.split(",", 1)[1]))
    assert exported == {"16.1.2:remedy:Hungary": "intern"}
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(exported))
    main(
        [
            "check",
            str(save),
            "--module",
            str(DEMO / "adjutant-demo.vmod"),
            "--pack",
            "demo",
            "--answers",
            str(answers),
            "--json",
        ]
    )
    plan = json.loads(capsys.readouterr().out)
    choice = next(c for e in plan["events"] for c in e["choices"] if c["id"] == "16.1.2:remedy:Hungary")
    assert choice["answered"] and choice["answer"] == "intern"


def _overlaps(a: dict, b: dict) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def test_phone_width_header_does_not_overlap_and_insets_fit(
    browser: Any, pages: list, tmp_path: Path
) -> None:
    """390 px (a phone): title, file, turn and the connection line never overlap; nothing is wider
    than the screen, the 16.1.1 inset included."""
    phone = {"width": 390, "height": 844}
    with DaemonThread(tmp_path, **_real(tmp_path)) as daemon:
        page = _page(browser, pages, daemon, "view=player&faction=Axis", phone)
        write_in_place(
            tmp_path / "a-rather-long-save-file-name-from-a-pbem-opponent.vsav",
            (DEMO / "saves" / "02-poland-falls.vsav").read_bytes(),
        )
        page.wait_for_selector(".event[data-rule='16.1.1'] svg.inset")
        parts = [_box(page, f"#{name}") for name in ("title", "file", "turn", "connection")]
        for i, first in enumerate(parts):
            for second in parts[i + 1 :]:
                assert not _overlaps(first, second), (first, second)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        for svg in page.locator("svg.inset").all():
            box = svg.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box


def test_a_plan_that_decides_nothing_never_reads_nothing_due(
    browser: Any, pages: list, tmp_path: Path
) -> None:
    """Most of the save unmapped (plan-level `missing`): every view says nothing is decided, and why."""
    plan = sample_plan(status="not_due")
    plan["violations"] = []
    plan["missing"] = [
        {"fact": "vassal_mapping", "subject": None, "text": "the pack maps only 3 of 40 pieces (37 unmapped)"}
    ]
    plan["due"], plan["undecided"] = False, True
    write_in_place(tmp_path / "a.vsav", save_bytes(plan))
    with DaemonThread(tmp_path, **FAST) as daemon:
        for query in ("view=player&faction=Axis", "view=control", "view=stream"):
            page = _page(browser, pages, daemon, query)
            page.wait_for_selector("#undecided:not([hidden]) .plan-missing")
            text = page.inner_text("body")
            assert "Nothing is decided" in text and "the pack maps only 3 of 40 pieces" in text, query
            assert "Nothing is due" not in text, query
        panel = _box(page, "#content")
        assert panel["y"] >= 1080 * 0.75 and panel["y"] + panel["height"] <= 1080
