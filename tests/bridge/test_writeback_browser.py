"""The control view's "Write the moves" in a real headless Chromium, against the real daemon and pipeline.

Demo save 04 (TK 16.1.2, Hungary under Occupation): the button stays off until the Axis answers the
remedy choice; once answered, a click writes `<name>-adjutant.vlog` into `--out` (never into the
watched folder); the control view says where, the players' views which file (never its folder), and
the stream says nothing of it (issue 23: the line stayed on air, white, for good).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bridge.cli.commands.watch import moves_writer, pipeline_planner
from bridge.pipeline import CheckPipeline
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

DEMO = Path(__file__).resolve().parents[2] / "module_patches" / "demo"
MODULE, PACK = DEMO / "adjutant-demo.vmod", str(DEMO / "pack")


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


def real_daemon(folder: Path, out: Path | None, also_save: bool = False) -> DaemonThread:
    plan_function, replay_function = pipeline_planner(MODULE, PACK)
    write_function = moves_writer(MODULE, PACK, (), out, also_save) if out is not None else None
    return DaemonThread(folder, plan_function=plan_function, replay_function=replay_function,
                        write_function=write_function, **FAST)


def test_control_view_writes_the_moves_and_every_view_sees_it(chromium: Any, tabs: list,
                                                              tmp_path: Path) -> None:
    watched, out = tmp_path / "saves", tmp_path / "out"
    watched.mkdir()
    out.mkdir()
    with real_daemon(watched, out, also_save=True) as daemon:
        control = open_view(chromium, tabs, daemon, "view=control")
        player = open_view(chromium, tabs, daemon, "view=player&faction=Axis")
        stream = open_view(chromium, tabs, daemon, "view=stream")
        write_in_place(watched / "hungary.vsav", (DEMO / "saves" / "04-hungary-occupied.vsav").read_bytes())
        control.wait_for_selector(".event[data-rule='16.1.2']")
        button = control.locator("#write-moves")
        control.wait_for_selector("#write-moves[disabled]")
        assert "answer every choice first (16.1.2:remedy:Hungary)" in control.inner_text("#writeback")
        control.click(".choice[data-choice='16.1.2:remedy:Hungary'] button[data-value='remove']")
        control.wait_for_selector("#write-moves:not([disabled])", timeout=WAIT_MS)
        button.click()
        written = out / "hungary-adjutant.vlog"
        for page in (control, player):
            page.wait_for_selector("#writeback[data-written='hungary-adjutant.vlog']", timeout=WAIT_MS)
        shown = control.inner_text("#writeback")
        assert f"Moves written: hungary-adjutant.vlog ({written.resolve()})" in shown
        saved = (out / "hungary-adjutant.vsav").resolve()
        assert f"Save with the moves made: hungary-adjutant.vsav ({saved})" in shown
        player_text = player.inner_text("#writeback")
        assert "Moves written: hungary-adjutant.vlog" in player_text and str(out) not in player_text
        assert "16.1.2" in player_text  # the description says which rule was carried out
        stream.wait_for_timeout(300)  # the stream's own delta has arrived by now (same publish)
        assert stream.locator("#writeback").is_hidden()
        assert "Moves written" not in stream.inner_text("body") and str(out) not in stream.content()
        assert stream.locator("input, button").count() == 0  # still nothing interactive on air
        assert sorted(p.name for p in watched.iterdir()) == ["hungary.vsav"]  # never the watched folder
        assert sorted(p.name for p in out.iterdir()) == ["hungary-adjutant.vlog", "hungary-adjutant.vsav"]
        # Pressed again (same plan): this daemon's own files are replaced, nothing else appears.
        first = daemon.daemon.server.history.state["writeback"]["last"]["time"]
        control.click("#write-moves")
        for _ in range(300):
            if daemon.daemon.server.history.state["writeback"]["last"]["time"] != first:
                break
            time.sleep(0.05)
        assert daemon.daemon.server.history.state["writeback"]["last"]["time"] != first
        assert sorted(p.name for p in out.iterdir()) == ["hungary-adjutant.vlog", "hungary-adjutant.vsav"]
    pipeline = CheckPipeline(MODULE, PACK)
    reread = pipeline.load(written)[0]
    assert reread.kind == "log" and len(reread.steps) == 1


def test_without_out_the_button_says_how_to_enable_it(chromium: Any, tabs: list, tmp_path: Path) -> None:
    with real_daemon(tmp_path, None) as daemon:
        control = open_view(chromium, tabs, daemon, "view=control")
        write_in_place(tmp_path / "poland.vsav", (DEMO / "saves" / "02-poland-falls.vsav").read_bytes())
        control.wait_for_selector(".event[data-rule='16.1.1']")
        control.wait_for_selector("#write-moves[disabled]")
        assert "start adjutant watch with --out FOLDER" in control.inner_text("#writeback")
        player = open_view(chromium, tabs, daemon, "view=player&faction=Axis")
        assert player.locator("#write-moves").count() == 0
