"""Game facts in the control view (bridge/web/overlay/facts.js), in a real headless Chromium against the real
daemon and pipeline on the corpus A3R/AWAW 1939 save (issue 25): the plan asks whose player turn it is;
a player picks "Axis" and clicks Give, the daemon re-plans, 60.1 is no longer undecided, and the fact
shows who gave it. The player and stream views never show the questions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bridge.cli.commands.watch import pipeline_planner
from tests.awaw.vassal_situation import FOLDER, MODULE, SAVE
from tests.bridge.harness import DaemonThread
from tests.bridge.savefiles import write_in_place
from tests.bridge.test_overlay_browser import (  # noqa: F401 - pytestmark: skip without Chromium
    FAST,
    WAIT_MS,
    chromium_context,
    open_view,
    pytestmark,
    sync_api,
)


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    with chromium_context() as context:
        yield context


@pytest.fixture()
def tabs() -> Iterator[list[Any]]:
    opened: list[Any] = []
    yield opened
    for page in opened:
        page.close()


def test_a_fact_given_in_the_control_view_replans_60_1(chromium: Any, tabs: list, tmp_path: Path,
                                                       corpus_dir: Path) -> None:
    watched = tmp_path / "saves"
    watched.mkdir()
    plan_function, replay_function = pipeline_planner(corpus_dir / FOLDER / MODULE, "awaw")
    daemon_thread = DaemonThread(watched, plan_function=plan_function, replay_function=replay_function,
                                 **FAST)
    with daemon_thread as daemon:
        control = open_view(chromium, tabs, daemon, "view=control")
        player = open_view(chromium, tabs, daemon, "view=player&faction=Soviet")
        write_in_place(watched / "game.vsav", (corpus_dir / FOLDER / SAVE).read_bytes())
        control.wait_for_selector("#facts form.fact[data-fact='player_turn']", timeout=WAIT_MS)
        assert "game turn on the map: Fall" in control.inner_text("#facts")
        # Russia's BRPs stand on the scenario card's track (60.61): shown as read, with no control to type
        mapped = control.locator("#facts .fact-map[data-fact='brps']")
        assert "= 90 (read from the map)" in mapped.inner_text()
        assert mapped.locator("input, select, button").count() == 0
        control.wait_for_selector(".event.status-undecided[data-rule='60.1']", timeout=WAIT_MS)
        assert control.locator("form.fact[data-fact='russian_surrender_turn']").count() == 0
        control.select_option("form.fact[data-fact='player_turn'] select", "Allied")
        control.click("form.fact[data-fact='player_turn'] button.fact-give")
        control.wait_for_selector("form.fact[data-fact='player_turn'][data-given='yes']", timeout=WAIT_MS)
        assert "= Allied (given by control view)" in control.inner_text("form.fact[data-fact='player_turn']")
        control.select_option("form.fact[data-fact='phase'] select", "end_of_player_turn")
        control.click("form.fact[data-fact='phase'] button.fact-give")
        control.wait_for_selector("form.fact[data-fact='phase'][data-given='yes']", timeout=WAIT_MS)
        # Issue 41: the header says the player turn in rule 60's words, never an Axis Empires faction
        control.wait_for_function(
            "document.getElementById('turn').textContent.includes('Allied player turn')", timeout=WAIT_MS)
        assert "Soviet" not in control.inner_text("#turn")
        control.fill("form.fact[data-fact='dp_level'] input", "-2")
        control.press("form.fact[data-fact='dp_level'] input", "Enter")
        control.wait_for_selector("form.fact[data-fact='dp_level'][data-given='yes']", timeout=WAIT_MS)
        western = "form.fact[data-fact='western_at_war_with_germany']"
        control.check(f"{western} input[value='Britain']")
        control.check(f"{western} input[value='France']")
        control.click(f"{western} button.fact-give")
        control.wait_for_selector(f"{western}[data-given='yes']", timeout=WAIT_MS)
        assert "= Britain, France (given by control view)" in control.inner_text(western)
        assert control.is_checked(f"{western} input[value='France']")  # the form shows what was given
        assert not control.is_checked(f"{western} input[value='USA']")
        # Issue 41: with no surrender, the turn of a surrender is never asked (no answer changes a verdict)
        control.select_option("form.fact[data-fact='russian_surrender'] select", "none")
        control.click("form.fact[data-fact='russian_surrender'] button.fact-give")
        control.wait_for_selector("form.fact[data-fact='russian_surrender'][data-given='yes']",
                                  timeout=WAIT_MS)
        assert control.locator("form.fact[data-fact='russian_surrender_turn']").count() == 0
        # An Axis player turn: 60.1 is decided (not due), so no longer listed as undecided, and the
        # phase it no longer needs stays shown as given (a given fact is never dropped from view)
        control.select_option("form.fact[data-fact='player_turn'] select", "Axis")
        control.click("form.fact[data-fact='player_turn'] button.fact-give")
        control.wait_for_function("[...document.querySelectorAll(\"form.fact[data-fact='player_turn']\")]"
                                  ".some(f => f.textContent.includes('= Axis (given by control view)'))",
                                  timeout=WAIT_MS)
        control.wait_for_selector(".event[data-rule='60.1']", timeout=WAIT_MS)
        assert control.locator(".event.status-undecided[data-rule='60.1']").count() == 0
        assert control.locator("form.fact[data-fact='phase'][data-given='yes']").count() == 1
        assert player.locator("#facts").count() == 0  # questions are the control view's only
