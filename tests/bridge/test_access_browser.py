"""Issue 23, in a real headless Chromium against the real daemon: tokens, cookies and framing.

A page served by another local program (another port on 127.0.0.1) can neither frame the control view
nor drive its websocket, even though the browser holds the control cookie; the control view reloads
without the token in its URL; a player URL (read token) cannot answer. Skips as
tests/bridge/test_overlay_browser.py does.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.bridge import test_overlay_browser as base
from tests.bridge.harness import DaemonThread
from tests.bridge.savefiles import sample_plan, save_bytes, write_in_place

browser, pages, pytestmark = base.browser, base.pages, base.pytestmark


@pytest.fixture()
def foreign_site() -> Iterator[tuple[list[str], Any]]:
    """Another local web app on 127.0.0.1 (any dev server): serves whatever page the test sets."""
    page: list[str] = [""]

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # http.server's name
            body = page[0].encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield page, server
    finally:
        server.shutdown()
        server.server_close()


def test_another_local_site_can_neither_frame_nor_drive_the_control_view(
        browser: Any, pages: list, tmp_path: Path, foreign_site: Any) -> None:
    page_text, site = foreign_site
    write_in_place(tmp_path / "turn1.vsav", save_bytes(sample_plan(status="waiting")))
    with DaemonThread(tmp_path, **base.FAST) as daemon:
        control = base.open_view(browser, pages, daemon, "view=control")  # the browser has the cookie now
        control.wait_for_selector(".event[data-rule='16.2.1']")
        port = daemon.port
        page_text[0] = f"""<!doctype html><body>
          <iframe id="framed" src="http://127.0.0.1:{port}/?view=control"></iframe>
          <script>
            window.result = "pending";
            const ws = new WebSocket("ws://127.0.0.1:{port}/ws?view=control");
            const answer = {{type: "answer", choice: "16.2.1:country", option: "Luxembourg"}};
            ws.onopen = () => {{ ws.send(JSON.stringify(answer)); window.result = "open"; }};
            ws.onerror = () => {{ if (window.result === "pending") window.result = "refused"; }};
          </script></body>"""
        attacker = browser.new_page()
        pages.append(attacker)
        attacker.goto(f"http://127.0.0.1:{site.server_address[1]}/")
        attacker.wait_for_function("window.result !== 'pending'", timeout=base.WAIT_MS)
        assert attacker.evaluate("window.result") == "refused"
        framed = attacker.frame_locator("#framed")
        attacker.wait_for_timeout(500)
        assert framed.locator(".event").count() == 0  # the browser refused to draw it in a frame
        assert daemon.daemon.server.history.state["answers"] == {}


def test_the_control_view_reloads_from_its_cookie_and_a_player_url_cannot_answer(
        browser: Any, pages: list, tmp_path: Path) -> None:
    write_in_place(tmp_path / "turn1.vsav", save_bytes(sample_plan(status="waiting")))
    with DaemonThread(tmp_path, **base.FAST) as daemon:
        server = daemon.daemon.server
        player = base.open_view(browser, pages, daemon, "view=player&faction=Axis")
        player.goto(daemon.url("view=player&faction=Axis", token=server.tokens.player("Axis")))
        player.wait_for_selector("body[data-access=read]", state="attached")
        # The player view shows no control (issue 41); it says where the choice is answered.
        player.wait_for_selector(".choice[data-choice='16.2.1:country']")
        assert player.locator("#content button, #content input").count() == 0
        assert "in the control view" in player.inner_text(".choice[data-choice='16.2.1:country']")
        player.evaluate("""() => new Promise((resolve) => {  // as a script would: the server refuses it
            const ws = new WebSocket(`ws://${location.host}/ws?view=player&token=${
                new URLSearchParams(location.search).get('token')}`);
            ws.onopen = () => { ws.send(JSON.stringify({type: 'answer', choice: '16.2.1:country',
                option: 'Luxembourg'})); setTimeout(resolve, 300); };
            ws.onerror = resolve; })""")
        assert server.history.state["answers"] == {}

        control = base.open_view(browser, pages, daemon, "view=control")
        control.goto(f"http://127.0.0.1:{daemon.port}/?view=control")  # a bookmark without the token
        control.wait_for_selector("body[data-connected=yes]", state="attached")
        control.click(".choice[data-choice='16.2.1:country'] button[data-value='Luxembourg']")
        control.wait_for_selector("button.option.chosen[data-value='Luxembourg']")
        assert server.history.state["answers"] == {"16.2.1:country": "Luxembourg"}


def test_a_new_start_shuts_the_old_urls_out(browser: Any, pages: list, tmp_path: Path) -> None:
    with DaemonThread(tmp_path, **base.FAST) as daemon:
        old = daemon.url("view=stream", token=daemon.daemon.server.tokens.stream)
    with DaemonThread(tmp_path, **base.FAST) as daemon:
        page = browser.new_page()
        pages.append(page)
        response = page.goto(old.replace(old.split("/")[2], f"127.0.0.1:{daemon.port}"))
        assert response is not None and response.status == 403
        assert "copy the URL again" in page.inner_text("body")
