"""Issue 37 item 3 in headless Chromium, with real clicks: after a partial execution of 16.1.1 (Allied
Minor Country Conquest; 6.2 Important: a fired event is carried out in full) the control, player and
stream views show the event owed, its remaining steps unticked ("still to do") and the steps the
position shows made ticked by themselves; unticking one in the control view works and survives a
re-plan of that file; a deviation reads as the rules text does; a hidden unit stays off the stream.

The files are the demo's own partial executions (tests/bridge/owed_files.py): the continuation log
`adjutant apply` writes for the Poland-falls save, cut after N of its six moves, or a save of the
position after N moves; the planner is `adjutant watch`'s worker process.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bridge.daemon.planner_process import ProcessPlanner
from bridge.reports.session_owed import FiredMemory
from tests.bridge.harness import DaemonThread
from tests.bridge.owed_files import applied_log, cut_log, misplaced_log, save_after
from tests.bridge.test_overlay_browser import (  # noqa: F401 - pytestmark: skip without Chromium
    FAST,
    WAIT_MS,
    chromium_context,
    pytestmark,
    sync_api,
)
from tests.bridge.test_view_filter import demo_save, secrets_of
from tests.bridge.test_views_truth_browser import view

PROJECT = Path(__file__).resolve().parents[2]
DEMO = PROJECT / "module_patches" / "demo"
MODULE = DEMO / "adjutant-demo.vmod"
POLAND = DEMO / "saves" / "02-poland-falls.vsav"
EVENT = "article.event[data-rule='16.1.1']"
DEVIATION = ("PO 2 Inf (PO-2) is in the Delay Box; 16.1.1 Step 2 puts it in the Western Conquered Minor "
             "Countries Box")

needs_demo = pytest.mark.skipif(not MODULE.exists(),
                                reason=f"demo module not built at {MODULE} (scripts/make_demo.py builds it)")


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    with chromium_context(viewport={"width": 1280, "height": 900}) as context:
        yield context


@pytest.fixture(scope="module")
def worker() -> Iterator[Any]:
    if not MODULE.exists():
        pytest.skip(f"demo module not built at {MODULE} (scripts/make_demo.py builds it)")
    planner = ProcessPlanner(MODULE, str(DEMO / "pack"), budget=60)
    planner.start()
    yield planner
    planner.close()


@pytest.fixture()
def planner(worker: Any) -> Any:
    worker.fired = FiredMemory()  # each test a session of its own
    return worker


@pytest.fixture(scope="module")
def pipeline() -> Any:
    from bridge.pipeline import CheckPipeline

    return CheckPipeline(MODULE, DEMO / "pack")


@pytest.fixture()
def tabs() -> Iterator[list[Any]]:
    opened: list[Any] = []
    yield opened
    for page in opened:
        assert page.errors == [], page.errors
        page.close()


def daemon_for(folder: Path, planner: Any) -> DaemonThread:
    return DaemonThread(folder, plan_function=planner.plan, plan_async=planner.plan_async,
                        replay_function=planner.replay, **FAST)


def owed_card(page: Any) -> Any:
    page.wait_for_selector(f"{EVENT}.status-owed", timeout=60_000)
    return page.locator(f"{EVENT}.status-owed")


def seq(page: Any) -> int:
    return int(page.evaluate("document.body.dataset.seq"))


@needs_demo
def test_control_view_ticks_made_steps_by_itself_and_an_untick_survives_a_re_plan(
        chromium, tabs, planner, pipeline, tmp_path) -> None:
    """Save 02 (16.1.1 due, six steps), then a save after 2 of the moves (Poland conquered, PO 1 Inf in
    the Western Conquered Minor Countries Box): the control view shows 16.1.1 owed, the 2 made steps
    ticked, the 4 others unticked and "still to do"; a click unticks a made step, and it stays unticked
    when the same file is planned again and after a reload."""
    log = applied_log(pipeline, POLAND, tmp_path / "02.vlog")
    partial = save_after(pipeline, log, tmp_path / "after-2.vsav", 2)
    watched = tmp_path / "watched"
    watched.mkdir()
    with daemon_for(watched, planner) as daemon:
        control = view(chromium, tabs, daemon, "view=control")
        shutil.copy(POLAND, watched / "02.vsav")
        control.wait_for_selector(f"{EVENT}.status-fired", timeout=60_000)
        assert control.locator(f"{EVENT} .steps input:checked").count() == 0
        shutil.copy(partial, watched / "02b.vsav")
        card = owed_card(control)
        assert card.locator(".badge-owed").inner_text() == "owed: steps still to make"
        assert card.locator(".owed-summary").inner_text() == "2 of 6 step(s) made; still to do: 4"
        made, todo = card.locator(".step.made"), card.locator(".step.todo")
        assert made.count() == 2 and todo.count() == 4
        assert made.locator("input:checked").count() == 2
        assert todo.locator("input:checked").count() == 0
        assert "still to do" in todo.nth(0).inner_text() and "PO 2 Inf" in todo.nth(0).inner_text()
        assert "Poland: conquered" in made.nth(0).inner_text()
        # untick "PO 1 Inf ... to Western Conquered Minor Countries Box" by a click
        box = made.nth(1).locator("input")
        before = seq(control)
        box.click()
        control.wait_for_function(f"Number(document.body.dataset.seq) > {before}")
        assert not made.nth(1).locator("input").is_checked()
        assert "done" not in (made.nth(1).get_attribute("class") or "")
        assert made.nth(0).locator("input").is_checked()
        # the same file planned again (VASSAL saved over it): still unticked
        planned = len([line for line in daemon.lines if "02b.vsav" in line])
        (watched / "02b.vsav").write_bytes(partial.read_bytes())
        control.wait_for_function(f"Number(document.body.dataset.seq) > {seq(control)}", timeout=60_000)
        deadline = 200
        while len([line for line in daemon.lines if "02b.vsav" in line]) == planned and deadline:
            control.wait_for_timeout(50)
            deadline -= 1
        assert len([line for line in daemon.lines if "02b.vsav" in line]) > planned, daemon.lines
        card = owed_card(control)
        assert not card.locator(".step.made").nth(1).locator("input").is_checked()
        assert card.locator(".step.made").nth(0).locator("input").is_checked()
        control.reload()
        card = owed_card(control)
        boxes = card.locator(".step.made input")
        assert [boxes.nth(i).is_checked() for i in range(2)] == [True, False]
        # ticked back by a click
        card.locator(".step.made").nth(1).locator("input").click()
        control.wait_for_selector(f"{EVENT} .step.made:nth-child(2).done")


@needs_demo
def test_player_view_shows_the_owed_steps_and_the_deviation_read_only(chromium, tabs, planner, pipeline,
                                                                      tmp_path) -> None:
    """A PBEM log in which PO 2 Inf went to the Delay Box (16.1.1 Step 2 puts it in the Western
    Conquered Minor Countries Box), cut after 3 moves: the Western player's view lists 16.1.1 owed,
    the deviation in the rules' words, the made steps struck through, no check box to click."""
    log = misplaced_log(pipeline, POLAND, tmp_path / "wrong.vlog", "PO-2", "delay")
    watched = tmp_path / "watched"
    watched.mkdir()
    with daemon_for(watched, planner) as daemon:
        player = view(chromium, tabs, daemon, "view=player&faction=Western")
        control = view(chromium, tabs, daemon, "view=control")
        shutil.copy(cut_log(log, tmp_path / "wrong-3.vlog", 3), watched / "pbem.vlog")
        for page in (player, control):
            card = owed_card(page)
            assert card.locator(".deviations li").all_inner_texts() == [DEVIATION]
            wrong = card.locator(".step.deviation")
            assert wrong.count() == 1 and "not where the rules put it" in wrong.inner_text()
            assert wrong.locator(".step-deviation").inner_text() == DEVIATION
            assert "PO-2-" not in card.inner_text()  # never a VASSAL piece id
        card = owed_card(player)
        assert card.locator("input").count() == 0
        assert card.locator(".step.made.done").count() == 2  # Poland conquered, PO 1 Inf (PO 2 Inf: wrong)
        assert card.locator(".step.todo:not(.done)").count() == 4
        assert player.locator("#nothing").is_hidden()
        assert owed_card(control).locator(".step.deviation input").is_checked() is False


@needs_demo
def test_stream_shows_what_is_still_to_do_and_never_the_hidden_unit(chromium, tabs, planner, pipeline,
                                                                    tmp_path) -> None:
    """PO 1 Inf hidden in Lvov by the Western side; the log made only the Poland Conquered mark. The
    stream's card shows 16.1.1 owed with its steps still to do, and no byte of the page names PO 1
    Inf, PO-1, Lvov or e3706 (the control view does list PO 1 Inf's move)."""
    hide = {"PO-1": "demo-western"}
    save = demo_save(tmp_path, "02-poland-falls", hide=hide)
    forbidden = secrets_of(hide, "02-poland-falls")
    log = cut_log(applied_log(pipeline, save, tmp_path / "hidden.vlog"), tmp_path / "hidden-1.vlog", 1)
    watched = tmp_path / "watched"
    watched.mkdir()
    with daemon_for(watched, planner) as daemon:
        control = view(chromium, tabs, daemon, "view=control")
        stream = view(chromium, tabs, daemon, "view=stream&lines=6")
        shutil.copy(log, watched / "pbem.vlog")
        assert "PO 1 Inf" in owed_card(control).inner_text()
        card = stream.locator(".stream-card.status-owed[data-rule='16.1.1']")
        card.wait_for(timeout=60_000)
        control.wait_for_function(f"Number(document.body.dataset.seq) <= {seq(stream)}")
        assert card.locator(".badge-owed").count() == 1
        assert card.locator(".owed-summary").inner_text() == "1 of 5 step(s) made; still to do: 4"
        steps = card.locator(".steps > li").all_inner_texts()
        assert len(steps) == 4 and all("still to do" in text for text in steps)
        assert any("PO 2 Inf" in text for text in steps)
        html = stream.content()
        assert [name for name in sorted(forbidden) if name in html] == []
