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
        control.wait_for_selector(".event.status-undecided[data-rule='60.1']", timeout=WAIT_MS)
        control.select_option("form.fact[data-fact='player_turn'] select", "Axis")
        control.click("form.fact[data-fact='player_turn'] button.fact-give")
        control.wait_for_selector("form.fact[data-fact='player_turn'][data-given='yes']", timeout=WAIT_MS)
        assert "= Axis (given by control view)" in control.inner_text("form.fact[data-fact='player_turn']")
        control.select_option("form.fact[data-fact='phase'] select", "end_of_player_turn")
        control.click("form.fact[data-fact='phase'] button.fact-give")
        control.wait_for_selector("form.fact[data-fact='phase'][data-given='yes']", timeout=WAIT_MS)
        # 60.1 is decided now (not due in an Axis player turn): no longer listed as undecided
        control.wait_for_selector(".event.status-undecided[data-rule='60.1']", state="detached",
                                  timeout=WAIT_MS)
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
        assert player.locator("#facts").count() == 0  # questions are the control view's only
