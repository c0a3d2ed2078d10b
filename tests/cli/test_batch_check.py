"""`adjutant check A.vsav B.vsav ... | DIR` (issue 27): one summary line per file and a total, or a JSON
list; a bad file is its own line and the others are still checked; the exit status is the worst."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from bridge.cli.batch_check import worst
from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK
from bridge.cli.main import main
from module_patches.demo_story import load_story, save_path

ROOT = Path(__file__).resolve().parents[2]
STORY = load_story()
NOTHING_DUE, DUE = save_path(STORY[0]), save_path(STORY[1])  # 01-opening: nothing; 02: 16.1.1


def check(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["check", *map(str, args), "--module", str(DEMO_MODULE), "--pack", str(DEMO_PACK)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def undecided(tmp_path: Path) -> Path:
    """The opening save with 300 markers the demo pack does not map: most of it unmapped, so nothing
    can be ruled out (exit 3)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from long_log import write_long_log

    return write_long_log(tmp_path / "padded.vsav", steps=0, pieces=340)


def test_undecided_fixture_exits_3_alone(capsys, undecided: Path) -> None:
    assert check(capsys, undecided)[0] == 3


def test_a_folder_of_good_and_bad_files_one_line_each_and_the_worst_status(
    capsys, tmp_path: Path, undecided: Path
) -> None:
    folder = tmp_path / "round"
    folder.mkdir()
    for source in (NOTHING_DUE, DUE):
        shutil.copy(source, folder / source.name)
    (folder / "03-broken.vsav").write_bytes(b"PK\x03\x04 not really a zip")
    (folder / "notes.txt").write_text("not a game file")  # not a save or log: not checked
    shutil.copy(undecided, folder / "04-padded.vsav")
    status, out, err = check(capsys, folder)
    lines = out.splitlines()
    assert status == 2 and err == ""
    assert lines == [
        f"{folder / NOTHING_DUE.name}: nothing due",
        f"{folder / DUE.name}: 1 due (16.1.1)",
        f"{folder / '03-broken.vsav'}: bad input: " + lines[2].split(": bad input: ", 1)[1],
        f"{folder / '04-padded.vsav'}: undecided (a fact the position does not give)",
        "total: 4 files: 1 nothing due, 1 due, 1 undecided, 1 bad input (exit 2)",
    ]
    assert "Traceback" not in out and "\n" not in lines[2]


@pytest.mark.parametrize(("names", "expected"), [
    (["nothing"], 0), (["nothing", "undecided"], 3), (["undecided", "due", "nothing"], 1),
    (["due", "missing", "undecided"], 2),
])
def test_exit_status_is_the_worst_of_the_files(capsys, tmp_path: Path, undecided: Path, names: list[str],
                                               expected: int) -> None:
    paths = {"nothing": NOTHING_DUE, "due": DUE, "undecided": undecided, "missing": tmp_path / "gone.vsav"}
    files = [paths[name] for name in names]
    if len(files) == 1:
        files.append(save_path(STORY[2]))  # two names make a batch (03-poland-settled: nothing due)
    status, out, _ = check(capsys, *files)
    assert status == expected
    assert out.splitlines()[-1].endswith(f"(exit {expected})")
    assert len(out.splitlines()) == len(files) + 1


def test_json_is_a_list_of_summaries_and_bad_files_do_not_stop_the_others(capsys, tmp_path: Path) -> None:
    broken = tmp_path / "broken.vsav"
    broken.write_text("junk")
    status, out, _ = check(capsys, broken, DUE, "--format", "json", "--jobs", "2")
    document = json.loads(out)
    assert status == 2
    assert document["format"] == "adjutant-check-batch" and document["exit_status"] == 2
    first, second = document["files"]
    assert (first["file"], first["status"], first["exit_status"]) == (str(broken), "bad_input", 2)
    assert "not a VASSAL file" in first["error"]
    assert (second["status"], second["due"], second["exit_status"]) == ("due", ["16.1.1"], 1)
    assert document["total"] == {"files": 2, "nothing_due": 0, "due": 1, "undecided": 0, "bad_input": 1,
                                 "internal_error": 0}


def test_one_process_and_a_pool_give_the_same_lines(capsys) -> None:
    saves = [save_path(scene) for scene in STORY]
    one = check(capsys, *saves, "--jobs", "1")
    pool = check(capsys, *saves, "--jobs", "2")
    assert one == pool
    assert one[0] == 1 and len(one[1].splitlines()) == len(saves) + 1


@pytest.mark.parametrize("flags", [["--timeline"], ["--step", "1"], ["--format", "html"], ["--jobs", "0"]])
def test_batch_refuses_what_reads_one_file_in_one_line(capsys, flags: list[str]) -> None:
    status, out, err = check(capsys, NOTHING_DUE, DUE, *flags)
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("adjutant: ")


def test_a_folder_without_games_is_bad_input(capsys, tmp_path: Path) -> None:
    status, _out, err = check(capsys, tmp_path)
    assert status == 2 and "holds no VASSAL save or log" in err


def test_worst_ranks_bad_input_over_due_over_undecided() -> None:
    assert worst([0, 3]) == 3 and worst([3, 1]) == 1 and worst([1, 2, 3]) == 2 and worst([2, 70]) == 70
    assert worst([]) == 0


def _children() -> list[int]:
    """This process's live children (Linux /proc), to see that no worker outlives its command."""
    mine = str(os.getpid())
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == mine and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


@pytest.mark.skipif(not hasattr(os, "fork") or not Path("/proc/self/stat").exists(),
                    reason="needs os.fork and /proc (Linux)")
def test_each_forked_process_loads_its_own_pipeline(monkeypatch, tmp_path: Path, capsys) -> None:
    """Issue 27: each process loads its own pipeline after the fork, the two loads at once on two
    cores, and no page of a pipeline's memos shared (to be copied as a file first writes to it)."""
    from bridge.cli import batch_check

    loads = tmp_path / "loads"
    real_start = batch_check._start

    def counted(*args) -> None:
        with loads.open("a") as out:
            out.write(f"{os.getpid()}\n")
        real_start(*args)

    monkeypatch.setattr(batch_check, "_start", counted)
    saves = [save_path(scene) for scene in STORY]
    assert check(capsys, *saves, "--jobs", "2")[0] == 1
    pids = loads.read_text().split()
    assert len(pids) == 2 and len(set(pids)) == 2 and str(os.getpid()) in pids


@pytest.mark.skipif(not hasattr(os, "fork") or not Path("/proc/self/stat").exists(),
                    reason="needs os.fork and /proc (Linux)")
@pytest.mark.parametrize("bad", ["module", "pack", "answer"])
def test_a_bad_module_pack_or_answer_is_one_line_and_leaves_no_worker(capsys, tmp_path: Path,
                                                                      bad: str) -> None:
    saves = [str(save_path(scene)) for scene in STORY]
    module, pack, extra = str(DEMO_MODULE), str(DEMO_PACK), []
    if bad == "module":
        module = str(tmp_path / "nothing.vmod")
        (tmp_path / "nothing.vmod").write_bytes(b"not a zip")
    elif bad == "pack":
        pack = str(tmp_path)
    else:
        extra = ["--answer", "16.9.9:nothing=1"]
    before = _children()
    status = main(["check", *saves, "--module", module, "--pack", pack, "--jobs", "2", *extra])
    captured = capsys.readouterr()
    assert status == 2 and captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1 and captured.err.startswith("adjutant: ")
    assert _children() == before


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_batch_leaves_the_callers_collector_as_it_found_it(capsys, jobs: str) -> None:
    """Issue 27: the batch freezes its loaded pipeline out of the collector's sight while it runs;
    an in-process caller (this test run) gets its heap back unfrozen, and later decodes move their
    objects to the oldest generation again (vassal_parser/collector.py)."""
    import gc

    assert gc.get_freeze_count() == 0
    saves = [save_path(scene) for scene in STORY[:3]]
    assert check(capsys, *saves, "--jobs", jobs)[0] == 1
    assert gc.get_freeze_count() == 0 and gc.isenabled()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork (not on Windows)")
def test_the_batch_is_timed_from_the_first_process_loaded(capsys, monkeypatch) -> None:
    """benchmarks/batch_check.py reads one timing line: from the moment the first process had its
    pipeline (here the worker: this process's load is held back 1 s), so that a worker checking
    files while this process still loads is timed too; every file still has its one line."""
    import time

    from bridge.cli import batch_check

    parent = os.getpid()
    real_start = batch_check._start
    loaded_here: list[float] = []
    said: list[float] = []

    def slow_here(*args) -> None:
        real_start(*args)
        if os.getpid() == parent:
            time.sleep(1.0)
            loaded_here.append(time.perf_counter())

    monkeypatch.setattr(batch_check, "_start", slow_here)
    monkeypatch.setattr(batch_check, "_say_timing", lambda count, jobs, started: said.append(started))
    saves = [save_path(scene) for scene in STORY]
    status, out, _err = check(capsys, *saves, "--jobs", "2")
    assert status == 1 and len(out.splitlines()) == len(saves) + 1
    assert len(said) == 1 and len(loaded_here) == 1
    # the worker's time, not this process's (the worker's warm-up, after its load, has 0.5 s)
    assert said[0] < loaded_here[0] - 0.5


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork (not on Windows)")
def test_a_workers_loaded_record_is_no_files_line_and_the_timing_is_one_line(capsys, monkeypatch) -> None:
    """benchmarks/batch_check.py reads one timing line on stderr, naming the files and processes,
    with the seconds as its last word but one; the summaries on stdout are one line a file."""
    monkeypatch.setenv("ADJUTANT_BATCH_TIMING", "1")
    saves = [save_path(scene) for scene in STORY]
    status, out, err = check(capsys, *saves, "--jobs", "2")
    assert status == 1 and len(out.splitlines()) == len(saves) + 1
    timing = [line for line in err.splitlines() if line.startswith("batch timing")]
    assert len(timing) == 1 and f"{len(saves)} files in 2 processes" in timing[0]
    assert 0 < float(timing[0].split()[-2]) < 60


def test_events_that_only_wait_on_another_are_waiting_not_due(capsys) -> None:
    """Issue 41: 09's 16.5.5-16.5.7 wait on 16.5.4's redeploy (04's 16.1.3 on 16.1.2's remedy): the
    batch lists them as `waiting` and its summary line says so, as `check` of the one file shows them
    (WAITING, "checked after the position is settled by ..."); the events that owe a decision of
    their own stay due."""
    folder = ROOT / "module_patches" / "demo" / "saves"
    _status, out, _ = check(capsys, folder, "--format", "json")
    by_name = {Path(entry["file"]).name: entry for entry in json.loads(out)["files"]}
    expected = {"04-hungary-occupied.vsav": (["16.1.2"], ["16.1.3"]),
                "09-border-defense.vsav": (["16.5.4"], ["16.5.5", "16.5.6", "16.5.7"])}
    for name, (due, waiting) in expected.items():
        entry = by_name[name]
        assert (entry["due"], entry["waiting"], entry["status"]) == (due, waiting, "due"), name
        single_status, single_out, _ = check(capsys, folder / name, "--format", "json")
        events = json.loads(single_out)["events"]
        settled_after = [e["rule"] for e in events if e["status"] == "waiting"
                         and e["why"][0].startswith("checked after the position is settled")]
        assert settled_after == waiting and single_status == entry["exit_status"] == 1
    assert by_name["09-border-defense.vsav"]["waiting_for"] == ["16.5.4:redeploy"]
    _status, out, _ = check(capsys, folder)
    lines = {Path(line.split(":", 1)[0]).name: line for line in out.splitlines()[:-1]}
    assert lines["09-border-defense.vsav"].endswith(
        ": 1 due (16.5.4); 3 waiting for 16.5.4:redeploy (16.5.5, 16.5.6, 16.5.7)")
    assert lines["04-hungary-occupied.vsav"].endswith(
        ": 1 due (16.1.2); 1 waiting for 16.1.2:remedy:Hungary (16.1.3)")


def test_batch_referees_each_file_as_check_does(capsys, tmp_path: Path, monkeypatch) -> None:
    """Issue 37: a folder holding 04r (the 16.1.2 remedy "remove" made) and a 02 log whose PO 2 Inf went
    to the Delay Box: 04r is nothing due (its remedy is carried out), the log owes 16.1.1 (6.2)."""
    from bridge.writeback import applier

    folder = tmp_path / "round"
    folder.mkdir()
    pack = ["--module", str(DEMO_MODULE), "--pack", str(DEMO_PACK)]
    hungary = save_path(STORY[3])
    assert main(["apply", str(hungary), *pack, "--answer", "16.1.2:remedy:Hungary=remove",
                 "--out", str(folder / "04r.vsav")]) == 0
    real = applier.translate

    def misplayed(plan, *args, **kwargs):  # the player sends PO 2 Inf to the Delay Box
        for event in plan["events"]:
            for step in event.get("steps", []):
                if step.get("counter") == "PO-2" and step.get("to"):
                    step["to"] = "delay"
        plan["resulting_position"] = None
        return real(plan, *args, **kwargs)

    monkeypatch.setattr(applier, "translate", misplayed)
    assert main(["apply", str(DUE), *pack, "--out", str(folder / "02-wrong.vlog")]) == 0
    capsys.readouterr()
    status, out, _err = check(capsys, folder)
    assert out.splitlines()[:2] == [f"{folder / '02-wrong.vlog'}: 1 owed (16.1.1)",
                                    f"{folder / '04r.vsav'}: nothing due"]
    assert status == 1
    capsys.readouterr()
    main(["check", str(folder), *pack, "--format", "json"])
    files = {Path(f["file"]).name: f for f in json.loads(capsys.readouterr().out)["files"]}
    assert files["02-wrong.vlog"]["owed"] == ["16.1.1"] and files["02-wrong.vlog"]["due"] == []
    assert files["04r.vsav"]["status"] == "nothing_due"
