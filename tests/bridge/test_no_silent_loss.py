"""Issue 23, "no silent loss": the user's disk is the user's input, and nothing written is ever half.

A full disk, a read-only folder, a denied permission, a name too long: one line naming the path and the
reason, exit 2 (the daemon: a line on the control view), never exit 70. Every writer fsyncs before it
renames and keeps the file's mode; the editor saves all its files or none, refuses text it cannot write,
and removes what a killed save left. One daemon per --out folder. The disk failures are made by
replacing the one function that writes a temp file's bytes (`vassal_parser.atomic._write_all`) with one
that fails as the disk would: running as root, a real read-only or full folder cannot be had here.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

from bridge.cli.main import main
from bridge.daemon.answer_store import AnswerStore
from bridge.web.editor.model import EditError, EditorSession
from tests.bridge.harness import daemon_running, receive_until, run, ws_url
from tests.bridge.savefiles import sample_plan, save_bytes, write_in_place
from vassal_parser import atomic
from vassal_parser.errors import InputError
from vassal_parser.writer import write_atomically, write_game_file

PROJECT = Path(__file__).resolve().parents[2]
DEMO = PROJECT / "module_patches" / "demo"
MODULE, PACK = DEMO / "adjutant-demo.vmod", DEMO / "pack"
SAVE = DEMO / "saves" / "04-hungary-occupied.vsav"
FAST = {"debounce": 0.03, "retry": 0.05}
DISK_ERRORS = {errno.ENOSPC: "the disk is full", errno.EROFS: "read-only file system",
               errno.EACCES: "permission denied"}
needs_demo = pytest.mark.skipif(not MODULE.exists(),
                                reason=f"demo module not built at {MODULE} (scripts/make_demo.py builds it)")


def failing_disk(monkeypatch: pytest.MonkeyPatch, code: int, after: int = 0) -> None:
    """From the `after`+1-th temp file on, writing its bytes fails with `code` (as that disk would)."""
    real = atomic._write_all
    calls = [0]

    def write_all(fd: int, data: bytes) -> None:
        calls[0] += 1
        if calls[0] > after:
            os.write(fd, data[: len(data) // 2])  # half of it, as a disk filling up would leave
            raise OSError(code, os.strerror(code))
        real(fd, data)

    monkeypatch.setattr(atomic, "_write_all", write_all)


def answers_file(folder: Path) -> Path:
    """The Axis's answer to 16.1.2 (Hungary): with it save 04's plan has moves to write."""
    path = folder / "answers" / "answers.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({"16.1.2:remedy:Hungary": "intern"}))
    return path


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


# --- fsync before every rename, modes kept -----------------------------------------------------------


@needs_demo
def test_every_writer_fsyncs_the_file_before_it_renames_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """Packs (editor), answers, apply and "Write the moves" all go through one writer that fsyncs."""
    events: list[tuple[str, Any]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        named = os.readlink(f"/proc/self/fd/{fd}") if os.path.exists("/proc/self/fd") else fd
        events.append(("fsync", named))
        real_fsync(fd)

    def replace(src: Any, dst: Any) -> None:
        events.append(("replace", str(src)))
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    pack = tmp_path / "pack"
    shutil.copytree(PACK, pack)
    session = EditorSession(pack, MODULE)
    session.apply({"type": "set", "hexes": ["w4925"], "field": "country", "value": "France"})
    session.apply({"type": "box", "zone": "War State Box", "box": "strategic_warfare"})
    session.save()
    AnswerStore(tmp_path, tmp_path / "state").save({"16.1.2:remedy:Hungary": "intern"})
    assert main(["apply", str(SAVE), "--module", str(MODULE), "--pack", str(PACK), "--answers",
                 str(answers_file(tmp_path)), "--out", str(tmp_path / "next.vlog")]) == 0
    write_game_file(tmp_path / "plain.vsav", "begin_save\x1b\x1bend_save")
    renamed = [src for kind, src in events if kind == "replace"]
    assert len(renamed) >= 5
    for src in renamed:
        position = events.index(("replace", src))
        assert ("fsync", src) in events[:position] or any(
            kind == "fsync" and not isinstance(what, str) for kind, what in events[:position]), src


def test_a_0600_file_stays_0600(tmp_path: Path) -> None:
    target = tmp_path / "private.toml"
    target.write_text("a = 1\n")
    target.chmod(0o600)
    write_atomically(target, b"a = 2\n")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600 and target.read_bytes() == b"a = 2\n"
    fresh = write_atomically(tmp_path / "new.toml", b"b = 1\n")
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o644


@needs_demo
def test_the_editor_keeps_a_pack_files_mode(tmp_path: Path) -> None:
    pack = tmp_path / "pack"
    shutil.copytree(PACK, pack)
    (pack / "geography.toml").chmod(0o600)
    session = EditorSession(pack, MODULE)
    session.apply({"type": "set", "hexes": ["w4925"], "field": "country", "value": "France"})
    assert session.save() == ["geography.toml"]
    assert stat.S_IMODE((pack / "geography.toml").stat().st_mode) == 0o600


# --- the editor: all or nothing, bad text, leftovers -------------------------------------------------


@needs_demo
def test_an_editor_save_of_two_files_is_all_or_nothing(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The second file's temp write fails (disk full): geography.toml is NOT rewritten, no temp file is
    left, and the reason names the file; once the disk has room the same save goes through."""
    pack = tmp_path / "pack"
    shutil.copytree(PACK, pack)
    before = {p.name: p.read_bytes() for p in pack.iterdir()}
    session = EditorSession(pack, MODULE)
    session.apply({"type": "set", "hexes": ["w4925"], "field": "country", "value": "France"})
    session.apply({"type": "box", "zone": "War State Box", "box": "strategic_warfare"})
    failing_disk(monkeypatch, errno.ENOSPC, after=1)
    with pytest.raises(InputError, match=r"vassal\.toml: cannot write: the disk is full"):
        session.save()
    assert {p.name: p.read_bytes() for p in pack.iterdir()} == before
    monkeypatch.undo()
    assert sorted(session.save()) == ["geography.toml", "vassal.toml"]
    assert leftovers(pack) == []


@needs_demo
def test_a_lone_surrogate_in_a_hex_id_is_refused_and_later_saves_work(tmp_path: Path) -> None:
    """Before: `"\\udc80"` in a hex id made the save fail with 1011, and every later save too."""
    from tests.bridge.editor_harness import EditorThread

    pack = tmp_path / "pack"
    shutil.copytree(PACK, pack)
    with EditorThread(pack, MODULE) as editor:
        port, token = editor.server.port, editor.server.tokens.control

        async def scenario() -> list[dict]:
            replies = []
            url, own = f"ws://127.0.0.1:{port}/ws?token={token}", f"http://127.0.0.1:{port}"
            bad = '{"type": "set", "hexes": ["w49\\udc80"], "field": "country", "value": "France"}'
            async with connect(url, origin=own) as ws:
                for message in (bad,
                                json.dumps({"type": "set", "hexes": ["w4925"], "field": "country",
                                            "value": "France"}),
                                json.dumps({"type": "save"})):
                    await ws.send(message)
                    replies.append(json.loads(await ws.recv()))
            return replies

        import asyncio

        refused, applied, saved = asyncio.run(asyncio.wait_for(scenario(), 20))
    assert refused["type"] == "error" and "lone surrogate" in refused["text"], refused
    assert applied["type"] == "applied" and saved["type"] == "saved", (applied, saved)
    with pytest.raises(EditError, match="lone surrogate"):
        EditorSession(pack, MODULE).apply({"type": "set", "hexes": ["\udc80"], "field": "city",
                                           "value": True})


@needs_demo
def test_the_editor_removes_what_a_killed_save_left_and_nothing_else(tmp_path: Path) -> None:
    pack = tmp_path / "pack"
    shutil.copytree(PACK, pack)
    (pack / ".geography.toml.adjutant-0123abcd.tmp").write_bytes(b"[hexes]\nw49")  # half a save
    (pack / ".notes.tmp").write_text("the user's own")
    session = EditorSession(pack, MODULE)
    assert session.leftovers_removed == [".geography.toml.adjutant-0123abcd.tmp"]
    assert leftovers(pack) == [".notes.tmp"]


@needs_demo
def test_killing_the_writer_mid_save_leaves_only_names_the_editor_cleans(tmp_path: Path) -> None:
    """kill -9 while a save writes its temp files (15 partial temps in 50 rounds before, by names
    nobody knew): whatever is left is one of our temp names, and the next session removes it."""
    pack = tmp_path / "pack"
    shutil.copytree(PACK, pack)
    script = (
        "import sys, time, os\n"
        "from vassal_parser import atomic\n"
        "real = atomic._write_all\n"
        "def slow(fd, data):\n"
        "    os.write(fd, data[:10]); print('writing', flush=True); time.sleep(60)\n"
        "atomic._write_all = slow\n"
        "from bridge.web.editor.model import EditorSession\n"
        f"s = EditorSession({str(pack)!r}, {str(MODULE)!r})\n"
        "s.apply({'type': 'set', 'hexes': ['w4925'], 'field': 'country', 'value': 'France'})\n"
        "s.save()\n")
    process = subprocess.Popen([sys.executable, "-c", script], cwd=PROJECT, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "writing"
        process.kill()
        process.wait(10)
    finally:
        if process.poll() is None:
            process.kill()
    left = leftovers(pack)
    assert left and all(atomic.is_temp_name(name) for name in left), left
    EditorSession(pack, MODULE)
    assert leftovers(pack) == []


# --- apply and "Write the moves" on a disk that says no ----------------------------------------------


@needs_demo
@pytest.mark.parametrize("code", sorted(DISK_ERRORS))
def test_apply_on_a_full_read_only_or_denied_disk_is_one_line_and_exit_2(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        code: int) -> None:
    out = tmp_path / "next.vlog"
    failing_disk(monkeypatch, code)
    status = main(["apply", str(SAVE), "--module", str(MODULE), "--pack", str(PACK), "--answers",
                   str(answers_file(tmp_path)), "--out", str(out)])
    err = capsys.readouterr().err
    assert status == 2, err
    assert err.count("\n") == 1 and str(out) in err and DISK_ERRORS[code] in err, err
    assert "internal error" not in err and "bug" not in err
    assert leftovers(tmp_path) == [] and not out.exists()


@needs_demo
def test_apply_with_a_name_too_long_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    out = tmp_path / ("x" * 300 + ".vlog")
    status = main(["apply", str(SAVE), "--module", str(MODULE), "--pack", str(PACK), "--answers",
                   str(answers_file(tmp_path)), "--out", str(out)])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and "too long" in err and "bug" not in err, err


@needs_demo
def test_write_the_moves_on_a_full_disk_tells_the_control_view(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from bridge.cli.commands.watch import moves_writer, pipeline_planner

    watched, out = tmp_path / "saves", tmp_path / "out"
    watched.mkdir()
    out.mkdir()
    plan_function, _ = pipeline_planner(MODULE, str(PACK))
    writer = moves_writer(MODULE, str(PACK), (), out)
    lines: list[str] = []

    async def scenario() -> dict:
        async with daemon_running(watched, lines, plan_function=plan_function, write_function=writer,
                                  **FAST) as daemon, connect(ws_url(daemon, "control")) as control:
            write_in_place(watched / "hungary.vsav", SAVE.read_bytes())
            await receive_until(control, lambda m: bool((m.get("state") or m.get("set") or {}).get("plan")))
            answer = {"type": "answer", "choice": "16.1.2:remedy:Hungary", "option": "intern"}
            await control.send(json.dumps(answer))
            await receive_until(control, lambda m: "plan" in (m.get("set") or {}))
            failing_disk(monkeypatch, errno.ENOSPC)
            await control.send(json.dumps({"type": "write_moves"}))
            done = await receive_until(control, lambda m: bool(((m.get("set") or {}).get("writeback") or {})
                                                               .get("error")))
            return done["set"]["writeback"]

    writeback = run(scenario)
    assert "hungary-adjutant.vlog: cannot write: the disk is full" in writeback["error"], writeback
    assert "internal error" not in writeback["error"]
    assert any("moves not written" in line and "disk is full" in line for line in lines), lines
    assert leftovers(out) == [".adjutant-out.lock"] or leftovers(out) == []


# --- one daemon per --out ----------------------------------------------------------------------------


def test_a_second_daemon_on_the_same_out_folder_is_refused_with_one_line(tmp_path: Path) -> None:
    from bridge.daemon.out_lock import lock_out_folder

    out = tmp_path / "out"
    out.mkdir()
    held = lock_out_folder(out)
    try:
        with pytest.raises(InputError, match=rf"pid {os.getpid()}\) writes its moves into this --out"):
            lock_out_folder(out)
        if MODULE.exists():  # the real command: one line, exit 2, before a port is taken
            (tmp_path / "saves").mkdir()
            done = subprocess.run(
                [sys.executable, "-m", "bridge", "watch", str(tmp_path / "saves"), "--module", str(MODULE),
                 "--pack", str(PACK), "--out", str(out), "--port", "0",
                 "--state-dir", str(tmp_path / "state")],
                cwd=PROJECT, capture_output=True, text=True, timeout=60)
            assert done.returncode == 2, done
            assert done.stderr.count("\n") == 1 and "another adjutant watch" in done.stderr, done.stderr
    finally:
        held.release()
    lock_out_folder(out).release()  # free again once the first is gone


# --- the state folder full or read-only --------------------------------------------------------------


def test_answers_that_cannot_be_kept_are_shown_on_the_control_view_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    watched, state = tmp_path / "saves", tmp_path / "state"
    watched.mkdir()
    store = AnswerStore(watched, state)
    failing_disk(monkeypatch, errno.ENOSPC)

    async def scenario() -> tuple[dict, dict]:
        async with daemon_running(watched, answer_store=store, **FAST) as daemon, \
                connect(ws_url(daemon, "control")) as control, connect(ws_url(daemon, "stream")) as stream:
            write_in_place(watched / "a.vsav", save_bytes(sample_plan(status="waiting")))
            await receive_until(control, lambda m: bool((m.get("state") or m.get("set") or {}).get("plan")))
            answer = {"type": "answer", "choice": "16.2.1:country", "option": "Luxembourg"}
            await control.send(json.dumps(answer))
            shown = await receive_until(control, lambda m: bool((m.get("set") or {}).get("storage")))
            seen = await receive_until(stream, lambda m: "storage" in (m.get("set") or {}))
            return shown["set"]["storage"], seen["set"]

    storage, on_air = run(scenario)
    assert storage["answers_kept"] is False
    assert str(store.path) in storage["error"] and "No space left on device" in storage["error"]
    assert on_air["storage"] is None
    assert leftovers(state) == []


# --- a dangling symlink in a pack ----------------------------------------------------------------------


@needs_demo
@pytest.mark.parametrize("command", ["pack check", "check", "pack edit"])
def test_a_dangling_symlink_in_a_pack_is_one_line_and_exit_2(tmp_path: Path, command: str) -> None:
    pack = tmp_path / "pack"
    shutil.copytree(PACK, pack)
    (pack / "map.toml").symlink_to(tmp_path / "gone.toml")
    args = {"pack check": ["pack", "check", str(pack)],
            "check": ["check", str(SAVE), "--module", str(MODULE), "--pack", str(pack)],
            "pack edit": ["pack", "edit", str(pack), "--module", str(MODULE), "--port", "0"]}[command]
    done = subprocess.run([sys.executable, "-m", "bridge", *args], cwd=PROJECT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2, done
    assert done.stderr.count("\n") == 1 and "map.toml" in done.stderr and "does not exist" in done.stderr
