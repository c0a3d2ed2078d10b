"""The pack editor's session and server without a browser: choices only from the pack, saving with
tomlkit (comments, order and table style kept, base pack never written), and the overlay server's
hardening (Host, Origin, methods, whitelisted files, sandboxed board images)."""

from __future__ import annotations

import asyncio
import http.client
import json
import re
import shutil
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK
from bridge.cli.main import main
from bridge.web.editor.model import EditError, EditorSession
from rules.packs import PACKS_DIR, load_pack
from tests.bridge.editor_harness import EditorThread
from vassal_parser.errors import InputError


def demo_copy(tmp_path: Path) -> Path:
    target = tmp_path / "pack"
    shutil.copytree(DEMO_PACK, target)
    return target


def get(editor: EditorThread, path: str, host: str | None = None, method: str = "GET",
        token: str | None = "control", cookie: str | None = None) -> tuple[int, dict[str, str], bytes]:
    """GET `path`, with the editor's control token in the URL unless `token` is None (web/access.py)."""
    connection = http.client.HTTPConnection("127.0.0.1", editor.server.port, timeout=10)
    headers = {"Host": host} if host else {}
    if cookie:
        headers["Cookie"] = cookie
    if token == "control":
        path += ("&" if "?" in path else "?") + f"token={editor.server.tokens.control}"
    connection.request(method, path, headers=headers)
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, body


# ---- session -------------------------------------------------------------------------------------
def test_choices_come_from_the_pack_never_free_text(tmp_path) -> None:
    session = EditorSession(demo_copy(tmp_path), DEMO_MODULE)
    with pytest.raises(EditError, match="'Narnia' is not a country of pack demo"):
        session.apply({"type": "set", "hexes": ["w4925"], "field": "country", "value": "Narnia"})
    with pytest.raises(EditError, match="has no country yet"):
        session.apply({"type": "set", "hexes": ["w4925"], "field": "city", "value": True})
    with pytest.raises(EditError, match="not a box of the game"):
        session.apply({"type": "box", "zone": "Delay Box", "box": "delay_box"})
    with pytest.raises(EditError, match="not a zone or region"):
        session.apply({"type": "box", "zone": "Nowhere", "box": "delay"})
    with pytest.raises(EditError, match="fields"):
        session.apply({"type": "restore", "records": {"w4925": {"country": "France", "colour": "red"}}})
    assert not session.dirty
    labels = {c["value"]: c["label"] for c in session.box_choices()}
    assert labels["force_pool:Axis"] == "Axis Force Pool"
    assert labels["posture:France"] == "France's Posture Box"


def test_save_keeps_comments_and_writes_only_the_pack(tmp_path) -> None:
    pack = demo_copy(tmp_path)
    before = {p.name: p.read_text() for p in pack.glob("*.toml")}
    session = EditorSession(pack, DEMO_MODULE)
    session.apply({"type": "set", "hexes": ["w4925", "w4926"], "field": "country", "value": "France"})
    session.apply({"type": "set", "hexes": ["w4925"], "field": "port", "value": True})
    session.apply({"type": "border", "area": "eastern_poland", "hexes": ["e3905"], "member": True})
    session.apply({"type": "box", "zone": "War State Box", "box": "strategic_warfare"})
    coverage = {(line["rule"], line["fact"]): line for line in session.coverage()}
    assert "France" in coverage[("16.1.1", "city_hexes")]["have"]
    assert sorted(session.save()) == ["geography.toml", "vassal.toml"]
    after = {p.name: p.read_text() for p in pack.glob("*.toml")}
    assert after["pack.toml"] == before["pack.toml"]
    for name in ("geography.toml", "vassal.toml"):
        old_comments = [line for line in before[name].splitlines() if line.startswith("#")]
        assert [line for line in after[name].splitlines() if line.startswith("#")] == old_comments
    geography = after["geography.toml"]
    assert 'w4925 = {country = "France", port = true}' in geography
    assert 'hexes = ["e3806", "e3706", "e3905"]' in geography
    assert '"War State Box" = "strategic_warfare"' in after["vassal.toml"]
    reloaded = load_pack(pack)
    assert reloaded.hexes["w4925"].port and reloaded.hexes["w4926"].country == "France"
    assert not any(p.is_relative_to(PACKS_DIR) for p in pack.glob("*.toml"))


def test_a_derived_pack_writes_only_what_differs_from_its_base(tmp_path) -> None:
    """A pack inheriting tk: Paris made a Port is written as `w3516 = {port = true}` in the derived
    pack's own new map.toml; tk's files are never touched; undoing it removes the entry again."""
    pack = tmp_path / "derived"
    pack.mkdir()
    (pack / "pack.toml").write_text(
        '# mine\n[pack]\nname = "derived"\nbase = "tk"\n'
        'base_tables = ["events", "order", "cards", "countries", "hexes", "areas"]\n')
    tk_before = {p: p.read_bytes() for p in (PACKS_DIR / "tk").glob("*.toml")}
    session = EditorSession(pack, DEMO_MODULE)
    paris = dict(session.hexes["w3516"])
    session.apply({"type": "set", "hexes": ["w3516"], "field": "port", "value": True})
    assert session.save() == ["map.toml"]
    assert "w3516 = {port = true}" in (pack / "map.toml").read_text()
    merged = load_pack(pack).hexes["w3516"]
    assert merged.port and merged.name == "Paris" and merged.capital
    with pytest.raises(EditError, match="comes from the base pack"):
        session.apply({"type": "restore", "records": {"w3516": None}})
    session.apply({"type": "restore", "records": {"w3516": paris}})
    session.save()
    assert "w3516" not in (pack / "map.toml").read_text()
    assert not load_pack(pack).hexes["w3516"].port
    assert {p: p.read_bytes() for p in (PACKS_DIR / "tk").glob("*.toml")} == tk_before


def test_table_style_hexes_stay_tables(tmp_path) -> None:
    pack = tmp_path / "tkcopy"
    shutil.copytree(PACKS_DIR / "tk", pack)
    text = (pack / "map.toml").read_text()
    session = EditorSession(pack, DEMO_MODULE)
    session.apply({"type": "set", "hexes": ["w3516"], "field": "port", "value": True})
    session.apply({"type": "set", "hexes": ["w4925"], "field": "country", "value": "France"})
    session.save()
    saved = (pack / "map.toml").read_text()
    assert saved.startswith(text.splitlines()[0])
    assert '[hexes.w3516]\nname = "Paris"' in saved and "\nport = true" in saved
    assert '[hexes.w4925]\ncountry = "France"' in saved
    assert load_pack(pack).hexes["w3516"].port


def test_a_save_the_pack_refuses_is_rolled_back(tmp_path) -> None:
    pack = demo_copy(tmp_path)
    before = (pack / "geography.toml").read_bytes()
    session = EditorSession(pack, DEMO_MODULE)
    # A Capital hex the pack's countries table also names: fine; an area the pack validates: fine.
    # An adjacency to an unknown hex only load_pack catches (the editor never sets it, restore can).
    session.apply({"type": "restore", "records": {"w4925": {"country": "France", "adjacent": ["zz9999"]}}})
    with pytest.raises(InputError, match="adjacent to unknown hex"):
        session.save()
    assert (pack / "geography.toml").read_bytes() == before


# ---- server hardening ----------------------------------------------------------------------------
def test_server_serves_page_model_and_sandboxed_board_images(tmp_path) -> None:
    with EditorThread(demo_copy(tmp_path), DEMO_MODULE) as editor:
        status, headers, body = get(editor, "/")
        assert status == 200 and b"Adjutant pack editor" in body
        status, headers, body = get(editor, "/model.json")
        model = json.loads(body)
        assert status == 200 and model["module"]["name"] == "Adjutant Demo"
        europe = next(m for m in model["maps"] if m["id"] == "Europe")
        assert {b["name"] for b in europe["boards"]} == {"West", "East"}
        assert any(c["hex"] == "w3516" and c["name"] == "w3516" for c in europe["cells"])
        status, headers, body = get(editor, europe["boards"][0]["image"])
        assert status == 200 and headers["content-type"] == "image/svg+xml" and body.startswith(b"<")
        assert headers["content-security-policy"].startswith("sandbox")
        assert get(editor, "/board/0/9")[0] == 404
        assert get(editor, "/board/x/../../etc")[0] == 404
        assert get(editor, "/../pack.toml")[0] == 404
        assert get(editor, "/model.json", host="attacker.example:80")[0] == 403
        assert get(editor, "/model.json", method="POST")[0] == 405


def test_websocket_refuses_other_origins_and_bad_edits(tmp_path) -> None:
    with EditorThread(demo_copy(tmp_path), DEMO_MODULE) as editor:
        port = editor.server.port

        async def scenario() -> None:
            url = f"ws://127.0.0.1:{port}/ws?token={editor.server.tokens.control}"
            for origin in ("http://127.0.0.1:1", "http://evil.example", None):
                with pytest.raises(InvalidStatus):
                    async with connect(url, origin=origin):
                        pass
            async with connect(url, origin=f"http://127.0.0.1:{port}") as ws:
                await ws.send("{nope")
                assert json.loads(await ws.recv())["type"] == "error"
                await ws.send(json.dumps({"type": "set", "hexes": ["w4925"], "field": "country",
                                          "value": "Narnia"}))
                assert "not a country" in json.loads(await ws.recv())["text"]
                await ws.send(json.dumps({"type": "set", "hexes": ["w4925"], "field": "country",
                                          "value": "France"}))
                reply = json.loads(await ws.recv())
                assert reply["type"] == "applied" and reply["dirty"] is True

        asyncio.run(asyncio.wait_for(scenario(), 20))
        assert editor.session.hexes["w4925"] == {"country": "France"}


def test_a_corpus_module_serves_its_jpeg_board_and_sizes_a_board_without_image(corpus_dir, tmp_path) -> None:
    module = corpus_dir.joinpath("jzedwards__vassal-hex-n-counters-template",
                                 "jzhex-n-counters-template-v12-379.vmod")

    assert main(["pack", "scaffold", str(module), "--base", "tk", "-o", str(tmp_path / "pack")]) == 0
    with EditorThread(tmp_path / "pack", module) as editor:
        model = json.loads(get(editor, "/model.json")[2])
        maps = {m["id"]: m for m in model["maps"]}
        board = maps["Main Map"]["boards"][0]
        assert board["image"] and (board["width"], board["height"]) == (750, 750)
        status, headers, body = get(editor, board["image"])
        assert status == 200 and headers["content-type"] == "image/jpeg" and body[:2] == b"\xff\xd8"
        dead = maps["DeadPile"]["boards"][0]
        assert dead["image"] is None and (dead["width"], dead["height"]) == (500, 500)
        assert {c["name"] for c in maps["Main Map"]["cells"]} >= {"0001", "0908"}
        assert all(c["hex"] == c["name"] for c in maps["Main Map"]["cells"])


def test_declaring_a_fact_complete_writes_the_complete_table(tmp_path) -> None:
    """With `[complete] city_hexes = ["Norway"]`, Poland's located Cities are only some of them (16.1.1
    undecided); declaring Poland complete in the editor lists it, and saving writes the full list."""
    pack = demo_copy(tmp_path)
    meta = pack / "pack.toml"  # the demo's own claim, `city_hexes = "all"`, gives way to complete.toml's
    meta.write_text(meta.read_text().replace('city_hexes = "all"\n', ""))
    (pack / "complete.toml").write_text('# which facts are whole\n[complete]\ncity_hexes = ["Norway"]\n')
    session = EditorSession(pack, DEMO_MODULE)
    line = next(c for c in session.coverage() if c["rule"] == "16.1.1")
    assert "Poland" in line["missing"] and line["can_complete"]
    session.apply({"type": "complete", "fact": "city_hexes", "subject": "Poland", "value": True})
    line = next(c for c in session.coverage() if c["rule"] == "16.1.1")
    assert "Poland" in line["have"] and "Poland" in line["complete"]
    with pytest.raises(EditError, match="not a country"):
        session.apply({"type": "complete", "fact": "city_hexes", "subject": "Narnia", "value": True})
    assert session.save() == ["complete.toml"]
    text = (pack / "complete.toml").read_text()
    assert text.startswith("# which facts are whole") and 'city_hexes = ["Norway", "Poland"]' in text
    assert load_pack(pack).complete["city_hexes"] == frozenset({"Norway", "Poland"})


def test_a_pack_without_complete_table_offers_no_completion(tmp_path) -> None:
    pack = demo_copy(tmp_path)
    meta = pack / "pack.toml"  # the demo's own [complete] table (its world is whole) ends the file: drop it
    meta.write_text(meta.read_text().partition("\n[complete]\n")[0] + "\n")
    session = EditorSession(pack, DEMO_MODULE)
    assert not any(c["can_complete"] for c in session.coverage())
    # No table: every located fact is trusted, and the coverage says so (issue 22).
    assert all(c["trusted"] == c["have"] for c in session.coverage())
    with pytest.raises(EditError, match="no \\[complete\\] table"):
        session.apply({"type": "complete", "fact": "city_hexes", "subject": "Poland", "value": True})


def test_a_shipped_pack_is_never_edited_in_place(capsys) -> None:
    assert main(["pack", "edit", "tk", "--module", str(DEMO_MODULE)]) == 2
    err = capsys.readouterr().err
    assert "pack tk ships with Adjutant" in err and "--base tk -o my-pack" in err


def trusting_copy(tmp_path: Path) -> Path:
    """The demo pack with `[complete] others = "trusted"` in place of its `city_hexes = "all"`."""
    target = demo_copy(tmp_path)
    toml = target / "pack.toml"
    toml.write_text(toml.read_text().replace('city_hexes = "all"\n', 'others = "trusted"\n'))
    return target


def test_a_fact_the_complete_table_leaves_trusted_cannot_be_declared(tmp_path) -> None:
    """`[complete] others = "trusted"`: City hexes are already whole as located; naming one country there
    would make every other country's Cities missing, so the editor does not offer it -- and its coverage
    says they are trusted, not confirmed (issue 22), as `pack check` does."""
    session = EditorSession(trusting_copy(tmp_path), DEMO_MODULE)
    line = next(c for c in session.coverage() if c["rule"] == "16.1.1" and c["fact"] == "city_hexes")
    assert not line["can_complete"] and "Poland" in line["have"]
    assert line["trusted"] == line["have"]
    with pytest.raises(EditError, match="already counts every located"):
        session.apply({"type": "complete", "fact": "city_hexes", "subject": "Poland", "value": True})


def test_the_editor_needs_its_control_token_and_pack_edit_prints_it(tmp_path, capsys) -> None:
    """Issue 23: any local page could open the editor's socket and rewrite a pack; now the page, the
    model, the boards and the socket need this start's token, which `pack edit` prints in its URL."""
    from bridge.cli.commands.pack_edit import serve_editor

    with EditorThread(demo_copy(tmp_path), DEMO_MODULE) as editor:
        port, token = editor.server.port, editor.server.tokens.control
        for path in ("/", "/model.json", "/board/0/0"):
            status, headers, _ = get(editor, path, token=None)
            assert status == 403 and headers["x-frame-options"] == "DENY", path
        stream = editor.server.tokens.stream
        assert get(editor, f"/?token={stream}", token=None)[0] == 403  # a view's key is not enough
        status, headers, _ = get(editor, "/")
        assert status == 200 and "frame-ancestors 'none'" in headers["content-security-policy"]
        cookie = headers["set-cookie"].split(";")[0]
        assert get(editor, "/model.json", token=None, cookie=cookie)[0] == 200  # a reload from the cookie
        assert get(editor, "/editor.js", token=None)[0] == 200  # public code

        async def scenario() -> None:
            own = f"http://127.0.0.1:{port}"
            with pytest.raises(InvalidStatus):  # its own origin, but no token
                async with connect(f"ws://127.0.0.1:{port}/ws", origin=own):
                    pass
            async with connect(f"ws://127.0.0.1:{port}/ws", origin=own,
                               additional_headers={"Cookie": cookie}) as ws:
                await ws.send(json.dumps({"type": "model"}))
                assert json.loads(await ws.recv())["type"] == "model"

        asyncio.run(asyncio.wait_for(scenario(), 20))
        assert token not in (editor.server.tokens.stream, *editor.server.tokens.players.values())

    async def printed() -> None:
        stop, started = asyncio.Event(), asyncio.Event()
        session = EditorSession(demo_copy(tmp_path / "again"), DEMO_MODULE)
        task = asyncio.ensure_future(serve_editor(session, 0, started, stop))
        await asyncio.wait_for(started.wait(), 20)
        stop.set()
        await task

    asyncio.run(printed())
    out = capsys.readouterr().out
    assert re.search(r"open http://127\.0\.0\.1:\d+/\?token=[\w-]{20,} ", out), out
