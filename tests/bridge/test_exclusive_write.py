"""A new file claims its name at the instant of writing (issue 43): `apply` without --force, and the
daemon's "Write the moves", never replace a file another writer made, even one made a moment before.

Why processes held at a barrier: the old refusal was a check at the start of `apply`, seconds before
the write; every run that started before the first one wrote passed it and then replaced the file.
Holding each run just before its write puts them all in that window, every time.
"""

from __future__ import annotations

import errno
import hashlib
import io
import multiprocessing
import os
import shutil
import sys
import zipfile
from pathlib import Path

import pytest

from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK
from module_patches.demo_story import load_story, save_path
from vassal_parser import atomic

STORY = {scene.file: scene for scene in load_story()}
HUNGARY = save_path(STORY["04-hungary-occupied"])  # 16.1.2: the Axis answers "intern" or "remove"
RUNS = 4


def temp_files(folder: Path) -> list[str]:
    return sorted(entry.name for entry in folder.iterdir() if atomic.is_temp_name(entry.name))


# --- the writer itself --------------------------------------------------------------------------------


def test_an_exclusive_write_never_replaces_a_file_that_is_there(tmp_path: Path) -> None:
    target = tmp_path / "out.vlog"
    atomic.write_atomically(target, b"first", exclusive=True)
    with pytest.raises(atomic.AlreadyExists) as refused:
        atomic.write_atomically(target, b"second", exclusive=True)
    assert target.read_bytes() == b"first" and temp_files(tmp_path) == []
    assert refused.value.one_line() == f"{target}: already exists"


def test_without_hard_links_the_name_is_claimed_with_o_excl(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    def no_links(_source: object, _target: object) -> None:  # a FAT or SMB folder
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    target = tmp_path / "out.vlog"
    atomic.write_atomically(target, b"first", exclusive=True)
    assert target.read_bytes() == b"first" and temp_files(tmp_path) == []
    with pytest.raises(atomic.AlreadyExists):
        atomic.write_atomically(target, b"second", exclusive=True)
    assert target.read_bytes() == b"first" and temp_files(tmp_path) == []


# --- `apply` runs started together ---------------------------------------------------------------------


def _apply_run(barrier: multiprocessing.synchronize.Barrier, results: multiprocessing.Queue, argv: list[str],
               answer: str) -> None:
    """One `adjutant apply` (its own process), held at the barrier just before it writes."""
    import bridge.writeback.applier as applier
    from bridge.cli.main import main

    real = applier.write_game_file
    written: dict[str, str] = {}

    def held_write(path: Path, *args: object, **kwargs: object) -> Path:
        barrier.wait(timeout=120)
        result = real(path, *args, **kwargs)
        written["digest"] = hashlib.sha256(Path(path).read_bytes()).hexdigest()  # what this run left there
        return result

    applier.write_game_file = held_write
    sys.stderr = io.StringIO()
    status = main([*argv, "--answer", f"16.1.2:remedy:Hungary={answer}"])
    results.put((status, answer, sys.stderr.getvalue(), written.get("digest")))


def _race(tmp_path: Path, force: bool) -> tuple[Path, list[tuple[int, str, str, str | None]]]:
    source = tmp_path / "hungary.vsav"
    shutil.copy(HUNGARY, source)
    out = tmp_path / "out" / "hungary-moves.vlog"
    out.parent.mkdir()
    argv = ["apply", str(source), "--module", str(DEMO_MODULE), "--pack", str(DEMO_PACK), "--out", str(out),
            *(["--force"] if force else [])]
    context = multiprocessing.get_context("fork")
    barrier, results = context.Barrier(RUNS), context.Queue()
    runs = [context.Process(target=_apply_run, args=(barrier, results, argv, ("intern", "remove")[n % 2]))
            for n in range(RUNS)]
    for run in runs:
        run.start()
    got = [results.get(timeout=300) for _run in runs]
    for run in runs:
        run.join(timeout=30)
    return out, got


@pytest.mark.skipif(sys.platform == "win32", reason="needs os.fork (the fork start method: POSIX)")
def test_concurrent_applies_on_one_new_out_exactly_one_wins(tmp_path: Path) -> None:
    out, got = _race(tmp_path, force=False)
    winners = [entry for entry in got if entry[0] == 0]
    losers = [entry for entry in got if entry[0] != 0]
    assert len(winners) == 1, [(status, err) for status, _answer, err, _digest in got]
    for status, _answer, err, _digest in losers:
        assert status == 2 and err.strip() == \
            f"adjutant: {out}: already exists: choose another name, or pass --force to replace it", err
    assert hashlib.sha256(out.read_bytes()).hexdigest() == winners[0][3]  # the winner's file, whole
    assert temp_files(out.parent) == [] and os.listdir(out.parent) == [out.name]


@pytest.mark.skipif(sys.platform == "win32", reason="needs os.fork (the fork start method: POSIX)")
def test_concurrent_forced_applies_leave_one_whole_file_and_no_temp_file(tmp_path: Path) -> None:
    out, got = _race(tmp_path, force=True)
    assert [status for status, *_rest in got] == [0] * RUNS, got
    assert hashlib.sha256(out.read_bytes()).hexdigest() in {digest for *_rest, digest in got}
    with zipfile.ZipFile(out) as archive:
        assert archive.testzip() is None and "savedGame" in archive.namelist()
    assert temp_files(out.parent) == [] and os.listdir(out.parent) == [out.name]


# --- the daemon's "Write the moves" -------------------------------------------------------------------


def test_write_the_moves_never_replaces_a_file_made_while_it_wrote(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """An `apply` writing the daemon's chosen name at the same moment keeps its file; the daemon's
    moves go to the next free name."""
    import bridge.writeback.applier as applier
    from bridge.cli.commands.watch import moves_writer

    source = tmp_path / "hungary.vsav"
    shutil.copy(HUNGARY, source)
    out = tmp_path / "out"
    out.mkdir()
    real = applier.write_game_file
    intruder = out / "hungary-adjutant.vlog"

    def write_after_an_intruder(path: Path, *args: object, **kwargs: object) -> Path:
        if Path(path) == intruder and not intruder.exists():
            intruder.write_bytes(b"another apply's file")  # made after the daemon looked, before it wrote
        return real(path, *args, **kwargs)

    monkeypatch.setattr(applier, "write_game_file", write_after_an_intruder)
    write = moves_writer(DEMO_MODULE, str(DEMO_PACK), (), out)
    written = write(source, {"16.1.2:remedy:Hungary": "intern"})
    assert intruder.read_bytes() == b"another apply's file"
    assert written["file"] == "hungary-adjutant-2.vlog" and (out / written["file"]).read_bytes()[:2] == b"PK"
    again = write(source, {"16.1.2:remedy:Hungary": "remove"})  # its own file it may replace
    assert again["file"] == "hungary-adjutant-2.vlog" and intruder.read_bytes() == b"another apply's file"


def test_write_the_moves_leaves_a_file_put_in_place_of_its_own(tmp_path: Path) -> None:
    """Its own file it may write again; one another writer put in its place since (known by its inode,
    not its name) it leaves alone."""
    from bridge.cli.commands.watch import moves_writer

    source = tmp_path / "hungary.vsav"
    shutil.copy(HUNGARY, source)
    out = tmp_path / "out"
    out.mkdir()
    write = moves_writer(DEMO_MODULE, str(DEMO_PACK), (), out)
    first = write(source, {"16.1.2:remedy:Hungary": "intern"})
    assert first["file"] == "hungary-adjutant.vlog"
    assert write(source, {"16.1.2:remedy:Hungary": "remove"})["file"] == "hungary-adjutant.vlog"
    theirs = out / ".theirs"
    theirs.write_bytes(b"an apply --force of the same name")
    os.replace(theirs, out / "hungary-adjutant.vlog")
    again = write(source, {"16.1.2:remedy:Hungary": "intern"})
    assert again["file"] == "hungary-adjutant-2.vlog"
    assert (out / "hungary-adjutant.vlog").read_bytes() == b"an apply --force of the same name"
