"""The control view as a player answering with it relies on it (issue 24), in headless Chromium.

16.5.4's list answer ("answer a list of 'unit:steps>hex'") is built item by item with the real reader,
mapping and engine on the demo's border-defense save: counts per unit, "1 of 2 steps chosen", one
submission; the command-line form of an answer is shown for copying; a corrupt first save never claims
a "last good plan" that does not exist.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK
from bridge.cli.commands.watch import pipeline_planner
from module_patches.demo_story import load_story, save_path
from tests.bridge.harness import DaemonThread
from tests.bridge.savefiles import sample_plan, save_bytes, write_in_place
from tests.bridge.test_overlay_browser import CHROMIUM, FAST, WAIT_MS, chromium_context

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
)
pytestmark = pytest.mark.skipif(
    not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)),
    reason=f"Chromium not found at {CHROMIUM} (apt-get install chromium, or set ADJUTANT_CHROMIUM)",
)

STORY = {scene.file: scene for scene in load_story()}
CHOICE = ".choice[data-choice='16.5.4:redeploy']"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium_context() as context:
        yield context


def open_view(browser: Any, daemon: DaemonThread, query: str) -> Any:
    page = browser.new_page()
    page.set_default_timeout(WAIT_MS)
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    # Every message the page sends, to prove a list is sent once, complete.
    page.add_init_script("""(() => { window.__sent = []; const send = WebSocket.prototype.send;
        WebSocket.prototype.send = function (data) {
            window.__sent.push(String(data)); return send.call(this, data); };
    })();""")
    page.goto(daemon.url(query))
    page.wait_for_selector("body[data-connected=yes]", state="attached")
    return page


def test_16_5_4_list_answer_is_built_by_counts_and_submitted_once(browser, tmp_path) -> None:
    """16.5.4 Step: "Redeploy exactly 2 Russian non-fortress ground step(s)" — RU 1 Inf may give one or
    two steps, RU 3 Inf one; one step of each is a legal answer the page must be able to build."""
    shutil.copy(save_path(STORY["09-border-defense"]), tmp_path / "09.vsav")
    plan_function, replay_function = pipeline_planner(DEMO_MODULE, str(DEMO_PACK))
    planners = {"plan_function": plan_function, "replay_function": replay_function}
    with DaemonThread(tmp_path, **planners, **FAST) as daemon:
        page = open_view(browser, daemon, "view=control")
        page.wait_for_selector(f".event.status-waiting[data-rule='16.5.4'] {CHOICE}")
        rows = page.locator(f"{CHOICE} .tally-row")
        assert rows.count() == 2  # one count per unit and hex, not one toggle per amount
        ru1 = page.locator(f"{CHOICE} .tally-row[data-group='RU-1>e3806']")
        ru3 = page.locator(f"{CHOICE} .tally-row[data-group='RU-3>e3806']")
        assert "RU 1 Inf" in ru1.inner_text() and "up to 2 steps" in ru1.inner_text()
        assert "up to 1 step" in ru3.inner_text()
        progress = page.locator(f"{CHOICE} .progress-text")
        assert progress.inner_text() == "0 of 2 steps chosen"
        ru1.locator("button.more").click()
        assert progress.inner_text() == "1 of 2 steps chosen"
        assert page.locator(f"{CHOICE} button.submit").is_disabled()
        ru3.locator("button.more").click()
        assert progress.inner_text() == "2 of 2 steps chosen"
        assert ru3.locator("button.more").is_disabled() and ru1.locator("button.more").is_disabled()
        answers_sent = "window.__sent.filter((m) => m.includes('\"answer\"')).length"
        assert page.evaluate(answers_sent) == 0  # nothing sent while the list is built
        assert page.inner_text(f"{CHOICE} .cli-answer") == \
            """--answer '16.5.4:redeploy=["RU-1:1>e3806","RU-3:1>e3806"]'"""
        page.click(f"{CHOICE} button.submit")
        page.wait_for_selector(".event.status-fired[data-rule='16.5.4']")
        assert page.evaluate(answers_sent) == 1
        assert daemon.daemon.coordinator.answers["16.5.4:redeploy"] == ["RU-1:1>e3806", "RU-3:1>e3806"]
        # Taking a step back down and choosing the other legal list (two steps of RU 1 Inf).
        ru1 = page.locator(f"{CHOICE} .tally-row[data-group='RU-1>e3806']")
        page.locator(f"{CHOICE} .tally-row[data-group='RU-3>e3806'] button.less").click()
        ru1.locator("button.more").click()
        assert page.inner_text(f"{CHOICE} .progress-text") == "2 of 2 steps chosen"
        page.click(f"{CHOICE} button.submit")
        page.wait_for_function("() => document.querySelector(\".choice[data-choice='16.5.4:redeploy'] "
                               ".answer\").textContent.includes('2 step(s) of RU 1 Inf')")
        assert page.errors == []


def test_single_choice_options_show_the_value_the_command_line_takes(browser, tmp_path) -> None:
    plan = sample_plan(status="waiting")
    plan["events"][0]["choices"][0]["options"] = [
        {"value": "none", "label": "no Influence"}, {"value": "Luxembourg", "label": "Luxembourg"}]
    write_in_place(tmp_path / "turn1.vsav", save_bytes(plan))
    with DaemonThread(tmp_path, **FAST) as daemon:
        control = open_view(browser, daemon, "view=control")
        player = open_view(browser, daemon, "view=player&faction=Axis")
        control.wait_for_selector(".choice[data-choice='16.2.1:country']")
        option = control.locator(".choice[data-choice='16.2.1:country'] button[data-value='none']")
        assert option.locator("code.value").inner_text() == "none"
        assert control.locator(".choice[data-choice='16.2.1:country'] button[data-value='Luxembourg'] "
                               "code").count() == 0  # label and value are the same: shown once
        assert control.inner_text(".choice[data-choice='16.2.1:country'] .cli-answer") == \
            "--answer '16.2.1:country=VALUE'"
        player.wait_for_selector(".choice[data-choice='16.2.1:country']")
        assert player.locator(".choice code").count() == 0  # the values are for the control view
        option.click()
        control.wait_for_function("() => document.querySelector(\".choice[data-choice='16.2.1:country'] "
                                  ".cli-answer\").textContent === \"--answer '16.2.1:country=none'\"")
        assert control.errors == [] and player.errors == []


def test_a_corrupt_first_save_does_not_claim_a_last_good_plan(browser, tmp_path) -> None:
    (tmp_path / "broken.vsav").write_bytes(b"PK\x03\x04 this is not a whole zip")
    with DaemonThread(tmp_path, **FAST) as daemon:
        page = open_view(browser, daemon, "view=control")
        page.wait_for_selector("#notice:not([hidden])")
        notice = page.inner_text("#notice")
        assert "broken.vsav" in notice
        assert "last good plan" not in notice
        assert "no plan yet" in notice
        write_in_place(tmp_path / "good.vsav", save_bytes(sample_plan()))
        page.wait_for_selector(".event[data-rule='16.2.1']")
        (tmp_path / "broken2.vsav").write_bytes(b"PK\x03\x04 not whole either")
        page.wait_for_function("() => document.getElementById('notice').textContent.includes('broken2')")
        assert "showing the last good plan" in page.inner_text("#notice")
