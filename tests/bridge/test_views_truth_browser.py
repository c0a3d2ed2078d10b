"""The control, player and stream views tell the truth (issue 41), in headless Chromium with real clicks.

A "Moves written" notice belongs to the save it was written for; the player view is read-only and
says who decides and where; the stream never shows how to type an answer; "Clear answer" on an answer
the demo's story gives says so instead of doing nothing; "Export answers" carries only the current
file's choices; `&insets=1` on 16.5.4 shows its inset at the default scale.
"""

from __future__ import annotations

import json
import re
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK, story_planner
from bridge.cli.commands.watch import moves_writer, pipeline_planner
from bridge.pipeline import CheckPipeline
from module_patches.demo_story import load_story, save_path
from tests.bridge.harness import DaemonThread
from tests.bridge.savefiles import write_in_place
from tests.bridge.test_overlay_browser import (  # noqa: F401 - pytestmark: skip without Chromium
    FAST,
    WAIT_MS,
    chromium_context,
    pytestmark,
    sync_api,
)

STORY = {scene.file: scene for scene in load_story()}
REDEPLOY = ".choice[data-choice='16.5.4:redeploy']"
# How an answer is typed, never what the decision is: "(answer a list of 'unit:steps>hex')", an option
# value such as RU-1:1>e3806, a --answer flag, a choice id.
ANSWER_SYNTAX = re.compile(
    r"answer (a|an|with|the value)\b|unit:steps|--answer|\w[\w-]*:\d+>\w+|\b16\.\d\.\d:\w+", re.IGNORECASE)


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    with chromium_context(viewport={"width": 1280, "height": 720}) as context:
        yield context


@pytest.fixture()
def tabs() -> Iterator[list[Any]]:
    opened: list[Any] = []
    yield opened
    for page in opened:
        page.close()


def view(chromium: Any, tabs: list, daemon: DaemonThread, query: str) -> Any:
    page = chromium.new_page()
    page.set_default_timeout(WAIT_MS)
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    tabs.append(page)
    page.goto(daemon.url(query))
    page.wait_for_selector("body[data-connected=yes]", state="attached")
    return page


def real(out: Path | None = None) -> dict:
    plan_function, replay_function = pipeline_planner(DEMO_MODULE, str(DEMO_PACK))
    write = moves_writer(DEMO_MODULE, str(DEMO_PACK), (), out, False) if out is not None else None
    return {"plan_function": plan_function, "replay_function": replay_function, "write_function": write,
            **FAST}


def demo(*_: Any) -> dict:
    plan_function, replay_function = story_planner(CheckPipeline(DEMO_MODULE, DEMO_PACK), load_story())
    return {"plan_function": plan_function, "replay_function": replay_function, **FAST}


def land(folder: Path, scene: str, name: str | None = None) -> str:
    name = name or f"{scene}.vsav"
    write_in_place(folder / name, save_path(STORY[scene]).read_bytes())
    return name


def test_moves_written_belongs_to_the_file_it_was_written_for(chromium, tabs, tmp_path) -> None:
    watched, out = tmp_path / "saves", tmp_path / "out"
    watched.mkdir()
    out.mkdir()
    with DaemonThread(watched, **real(out)) as daemon:
        control = view(chromium, tabs, daemon, "view=control")
        player = view(chromium, tabs, daemon, "view=player&faction=Axis")
        land(watched, "04-hungary-occupied")
        control.click(".choice[data-choice='16.1.2:remedy:Hungary'] button[data-value='remove']")
        control.wait_for_selector("#write-moves:not([disabled])")
        control.click("#write-moves")
        for page in (control, player):
            page.wait_for_selector("#writeback[data-written='04-hungary-occupied-adjutant.vlog']")
        assert "Send it to your opponent" in control.inner_text("#writeback")
        # Another save is planned: the notice no longer offers 04's log as the one to send.
        land(watched, "05-case-yellow")
        for page in (control, player):
            page.wait_for_selector("text=05-case-yellow.vsav", state="attached")
            page.wait_for_selector("#writeback[data-written='']", state="attached")
        shown = control.inner_text("#writeback")
        assert "Send it to your opponent" not in shown and "Moves written:" not in shown
        assert ("Moves written earlier for 04-hungary-occupied.vsav: 04-hungary-occupied-adjutant.vlog; "
                "not for 05-case-yellow.vsav") in shown
        assert player.locator("#writeback").is_hidden()
        assert control.errors == [] and player.errors == []


def test_the_player_view_is_read_only_and_says_who_decides_and_where(chromium, tabs, tmp_path) -> None:
    """16.5.4 (scene 9): the Axis redeploys; its player view shows no "+" counts, no step boxes."""
    with DaemonThread(tmp_path, **real()) as daemon:
        axis = view(chromium, tabs, daemon, "view=player&faction=Axis")
        soviet = view(chromium, tabs, daemon, "view=player&faction=Soviet")
        control = view(chromium, tabs, daemon, "view=control")
        land(tmp_path, "09-border-defense")
        axis.wait_for_selector(f".event[data-rule='16.5.4'] {REDEPLOY}")
        assert axis.locator("#content button, #content input, #content select").count() == 0
        text = axis.inner_text(REDEPLOY)
        assert "pick below" not in text
        assert "Your decision (Axis): give it in the control view" in text
        assert "RU 1 Inf" in axis.inner_text(f"{REDEPLOY} .options-read")  # what may be chosen, as text
        # The control view answers; the player view follows, still with nothing to click.
        control.wait_for_selector(f"{REDEPLOY} .tally-row[data-group='RU-1>e3806'] button.more")
        control.locator(f"{REDEPLOY} .tally-row[data-group='RU-1>e3806'] button.more").click()
        control.locator(f"{REDEPLOY} .tally-row[data-group='RU-3>e3806'] button.more").click()
        control.click(f"{REDEPLOY} button.submit")
        axis.wait_for_selector(".event.status-fired[data-rule='16.5.4'] li.step")
        assert "Answered:" in axis.inner_text(REDEPLOY)
        assert axis.locator("#content button, #content input").count() == 0
        assert soviet.locator("#content button, #content input").count() == 0
        assert axis.errors == [] and soviet.errors == []


def stream_decisions(plan: dict) -> list[str]:
    """Every text a decision puts on air: its prompt and its options' labels (the answer shown)."""
    texts = []
    for event in plan.get("events", []):
        for choice in event.get("choices") or []:
            texts.append(choice.get("prompt") or "")
            texts.extend(str(o.get("label", "")) for o in choice.get("options") or [] if isinstance(o, dict))
    return texts


@pytest.mark.parametrize("answered", [False, True], ids=["open", "story answers"])
def test_no_decision_of_the_demo_story_carries_answer_syntax(answered) -> None:
    """Every scene of the demo story, planned open (nothing answered) and with the story's answers."""
    pipeline = CheckPipeline(DEMO_MODULE, DEMO_PACK)
    seen = 0
    for scene in load_story():
        plan = pipeline.plan_file(save_path(scene), answers=scene.answers if answered else None,
                                  answers_source="story.toml").plan
        for text in stream_decisions(plan):
            seen += 1
            assert not ANSWER_SYNTAX.search(text), f"{scene.file}: {text}"
    assert seen > 0


def test_the_stream_card_of_every_demo_decision_shows_no_answer_syntax(chromium, tabs, tmp_path) -> None:
    """Each scene with a decision, on air, open: the card says what the decision is in the rules' words."""
    pipeline = CheckPipeline(DEMO_MODULE, DEMO_PACK)
    scenes = [s for s in load_story()
              if any(e.get("choices") for e in pipeline.plan_file(save_path(s)).plan["events"])]
    assert any(s.file == "09-border-defense" for s in scenes)
    with DaemonThread(tmp_path, **real()) as daemon:
        stream = view(chromium, tabs, daemon, "view=stream&cycle=2")
        for scene in scenes:
            history = daemon.daemon.server.history
            seq = history.seq
            land(tmp_path, scene.file, "game.vsav")
            for _ in range(400):
                if history.seq > seq and history.state.get("plan") and history.state.get("status") == "ok":
                    break
                stream.wait_for_timeout(50)
            ids = {c["id"] for e in history.state["plan"]["events"] for c in e.get("choices") or []}
            shown: set[str] = set()
            for _ in range(80):  # the card cycles every 2 s: wait until each decision has been on air
                for choice in stream.locator("#events .choice").all():
                    shown.add(choice.get_attribute("data-choice"))
                    text = choice.inner_text()
                    assert not ANSWER_SYNTAX.search(text), f"{scene.file}: {text}"
                if ids <= shown:
                    break
                stream.wait_for_timeout(250)
            assert ids <= shown, (scene.file, ids, shown)
        assert stream.errors == []


def test_clear_answer_in_the_demo_says_the_story_answers_it(chromium, tabs, tmp_path) -> None:
    """Scene 9: the story answers 16.5.4; clearing would bring it straight back, so the page says so."""
    with DaemonThread(tmp_path, **demo()) as daemon:
        control = view(chromium, tabs, daemon, "view=control")
        land(tmp_path, "09-border-defense")
        control.wait_for_selector(f".event.status-fired[data-rule='16.5.4'] {REDEPLOY}")
        assert control.locator(f"{REDEPLOY} button.clear").count() == 0
        assert "the demo's story answers it" in control.inner_text(f"{REDEPLOY} .given-answer")
        # An answer given in this page can be cleared, and clearing really removes it.
        land(tmp_path, "04-hungary-occupied")
        remedy = ".choice[data-choice='16.1.2:remedy:Hungary']"
        control.wait_for_selector(f"{remedy} button[data-value='intern']")
        control.click(f"{remedy} button[data-value='intern']")
        control.wait_for_selector(f"{remedy} button.clear")
        control.click(f"{remedy} button.clear")
        control.wait_for_function("() => !document.querySelector(\"" + remedy.replace('"', '\\"')
                                  + " button.clear\")")
        assert "16.1.2:remedy:Hungary" not in daemon.daemon.server.history.state["answers"]
        assert control.errors == []


def test_export_answers_carries_only_the_current_files_choices(chromium, tabs, tmp_path) -> None:
    with DaemonThread(tmp_path, **real()) as daemon:
        control = view(chromium, tabs, daemon, "view=control")
        land(tmp_path, "04-hungary-occupied")
        button = ".choice[data-choice='16.1.2:remedy:Hungary'] button[data-value='intern']"
        control.click(button)
        control.wait_for_function("document.querySelector('a.export-answers').href.includes('intern')")
        land(tmp_path, "05-case-yellow")
        control.wait_for_selector("text=05-case-yellow.vsav", state="attached")
        control.wait_for_function("!document.querySelector('a.export-answers').href.includes('intern')")
        href = control.locator("a.export-answers").get_attribute("href")
        exported = json.loads(urllib.parse.unquote(href.split(",", 1)[1]))
        plan = daemon.daemon.server.history.state["plan"]
        ids = {c["id"] for e in plan["events"] for c in e.get("choices") or []}
        assert set(exported) <= ids and "16.1.2:remedy:Hungary" not in exported
        assert "16.1.2:remedy:Hungary" in daemon.daemon.server.history.state["answers"]  # kept, not exported
        assert control.errors == []
