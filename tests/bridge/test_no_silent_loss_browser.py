"""Issue 23, in a real headless Chromium: a save the disk refuses says so in the editor's page (and the
pack is left as it was); answers the daemon cannot keep are shown on the control view. The disk is made
to fail as in tests/bridge/test_no_silent_loss.py. Skips as tests/bridge/test_overlay_browser.py does."""

from __future__ import annotations

import errno
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK
from bridge.daemon.answer_store import AnswerStore
from tests.bridge import test_overlay_browser as base
from tests.bridge.editor_harness import EditorThread
from tests.bridge.harness import DaemonThread
from tests.bridge.savefiles import sample_plan, save_bytes, write_in_place
from tests.bridge.test_no_silent_loss import failing_disk

browser, pages, pytestmark = base.browser, base.pages, base.pytestmark


def test_a_save_on_a_full_disk_says_so_in_the_editor_and_keeps_the_pack(
        browser: Any, pages: list, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pack = tmp_path / "pack"
    shutil.copytree(DEMO_PACK, pack)
    before = (pack / "geography.toml").read_bytes()
    with EditorThread(pack, DEMO_MODULE) as editor:
        page = browser.new_page()
        pages.append(page)
        page.set_default_timeout(base.WAIT_MS)
        page.goto(editor.url)
        page.wait_for_selector("body[data-ready=yes]", state="attached")
        page.click('polygon[data-hex="e3804"]')
        page.keyboard.press("c")
        page.wait_for_selector("body[data-dirty=yes]", state="attached")
        failing_disk(monkeypatch, errno.ENOSPC)
        page.click("#save")
        page.wait_for_selector("#status.error")
        assert "geography.toml: cannot write: the disk is full" in page.inner_text("#status")
        assert (pack / "geography.toml").read_bytes() == before
        assert sorted(p.name for p in pack.iterdir() if p.name.startswith(".")) == []
        monkeypatch.undo()
        page.click("#save")
        page.wait_for_selector("body[data-dirty=no]", state="attached")
        assert "saved geography.toml" in page.inner_text("#status")


def test_answers_the_state_folder_refuses_are_shown_on_the_control_view(
        browser: Any, pages: list, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    watched, state = tmp_path / "saves", tmp_path / "state"
    watched.mkdir()
    write_in_place(watched / "turn1.vsav", save_bytes(sample_plan(status="waiting")))
    store = AnswerStore(watched, state)
    with DaemonThread(watched, answer_store=store, **base.FAST) as daemon:
        control = base.open_view(browser, pages, daemon, "view=control")
        stream = base.open_view(browser, pages, daemon, "view=stream")
        control.wait_for_selector(".event[data-rule='16.2.1']")
        failing_disk(monkeypatch, errno.EROFS)
        control.click(".choice[data-choice='16.2.1:country'] button[data-value='Luxembourg']")
        control.wait_for_selector(".storage-error")
        text = control.inner_text(".storage-error")
        assert text.startswith("Answers cannot be kept across a restart") and str(store.path) in text
        assert stream.locator(".storage-error").count() == 0
        monkeypatch.undo()
        control.click(".choice[data-choice='16.2.1:country'] button[data-value='Belgium-Holland']")
        control.wait_for_selector(".storage-error", state="detached")
    assert json.loads(store.path.read_text())["answers"] == {"16.2.1:country": "Belgium-Holland"}
