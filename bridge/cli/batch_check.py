"""`adjutant check A.vsav B.vsav ... | DIR`: many game files, one summary line each, on every core.

Why (issue 27): a tournament director checks a folder of PBEM files. Loading the module and the
pack is most of a small check, so each process loads them once and then only reads, maps and plans
its files. The workers are forked after the imports but before the module and pack are loaded,
and each loads its own at the same time as this process (`_forked` says why not before the fork).
A file that cannot be read is its own one line (exit 2 for it) and the others are still checked;
the command exits with the worst status of all (bad input 2 > due 1 > undecided 3 > nothing due 0;
a bug in Adjutant, 70, above all).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from bridge.common.jsonout import header

GAME_SUFFIXES = (".vsav", ".vlog", ".sav", ".log")  # what a folder given to `check` is searched for
EXIT_NOTHING_DUE, EXIT_DUE, EXIT_BAD_INPUT, EXIT_UNDECIDED, EXIT_INTERNAL_ERROR = 0, 1, 2, 3, 70
SEVERITY = {EXIT_NOTHING_DUE: 0, EXIT_UNDECIDED: 1, EXIT_DUE: 2, EXIT_BAD_INPUT: 3, EXIT_INTERNAL_ERROR: 4}
STATUS_NAMES = {EXIT_NOTHING_DUE: "nothing_due", EXIT_DUE: "due", EXIT_UNDECIDED: "undecided",
                EXIT_BAD_INPUT: "bad_input", EXIT_INTERNAL_ERROR: "internal_error"}

FORKED_FILES = 16_000  # files per round of forked workers: their numbers fill at most 64 KB of pipe
LOADED = -1  # a forked worker's first record: (LOADED, the time its pipeline was loaded)
_PIPELINE: Any = None  # the worker's CheckPipeline (inherited through fork, or made by `_start`)
_ANSWERS: tuple[dict[str, Any], str] = ({}, "<answers>")


def game_files(arguments: Iterable[str | Path]) -> list[Path]:
    """The files named, a folder's VASSAL saves and logs (sorted by name, not recursive) in its place.

    A name that is neither a file nor a folder is kept: checking it says "no such file" on its line."""
    from vassal_parser.errors import InputError

    files: list[Path] = []
    for argument in arguments:
        path = Path(argument)
        if path.is_dir():
            found = sorted((p for p in path.iterdir() if p.suffix.lower() in GAME_SUFFIXES and p.is_file()),
                           key=lambda p: p.name)
            if not found:
                raise InputError(path, f"holds no VASSAL save or log ({', '.join(GAME_SUFFIXES)})")
            files.extend(found)
        else:
            files.append(path)
    return list(dict.fromkeys(files))


def worst(statuses: Iterable[int]) -> int:
    return max(statuses, key=lambda status: SEVERITY.get(status, len(SEVERITY)), default=EXIT_NOTHING_DUE)


def check_one(path: Path) -> dict[str, Any]:
    """One file's summary (JSON-able); never raises: bad input and bugs are the file's own result."""
    from bridge.cli.plan_status import exit_status
    from vassal_parser.errors import InputError

    answers, source = _ANSWERS
    entry: dict[str, Any] = {"file": str(path)}
    try:
        from bridge.reports.referee import referee

        result = _PIPELINE.plan_file(path, answers=answers or None, answers_source=source)
        # As `check` of the one file: owed steps, and a remedy the position already shows made.
        plan = referee(_PIPELINE, path, None, answers or None, source, result)
    except InputError as exc:
        message = exc.message if exc.source == str(path) else exc.one_line()
        return {**entry, "status": "bad_input", "exit_status": EXIT_BAD_INPUT,
                "error": " ".join(message.split())}
    except Exception as exc:  # a bug with this file: its own line, the others still checked
        from bridge.common.errorlog import bug_line

        return {**entry, "status": "internal_error", "exit_status": EXIT_INTERNAL_ERROR,
                "error": bug_line(f"adjutant check {path}", exc)}
    status = exit_status(plan)
    events = plan.get("events", [])
    waiting = [e for e in events if waits_on_another(e)]
    return {**entry, "status": STATUS_NAMES[status], "exit_status": status,
            "due": [e["rule"] for e in events
                    if e.get("status") in ("fired", "waiting") and e not in waiting],
            "owed": [e["rule"] for e in events if e.get("status") == "owed"],
            "waiting": [e["rule"] for e in waiting],
            "waiting_for": list(dict.fromkeys(c for e in waiting for c in e.get("waiting_for") or [])),
            "undecided": [e["rule"] for e in events if e.get("status") == "undecided"],
            "violations": len(plan.get("violations") or []),
            "turn": plan.get("turn"), "steps": (plan.get("vassal") or {}).get("steps")}


def waits_on_another(event: Mapping[str, Any]) -> bool:
    """WAITING only on another event's decision (09's 16.5.5 on 16.5.4's redeploy, 04's 16.1.3 on
    16.1.2's remedy; issue 41): not known to be due until that answer settles the position, so it is
    listed as waiting, not due, as `check` of the one file shows it. An event waiting on a choice of
    its own fired: it is due, and owes that decision."""
    if event.get("status") != "waiting":
        return False
    own = {choice.get("id") for choice in event.get("choices") or []}
    return not own.intersection(event.get("waiting_for") or [])


def _start(module: str, pack: str, extensions: list[str], answers: tuple[dict[str, Any], str]) -> None:
    """A spawned worker's set-up (no fork on this platform): its own pipeline, loaded once."""
    global _PIPELINE, _ANSWERS
    from bridge.pipeline import CheckPipeline

    _PIPELINE = CheckPipeline(module, pack, extensions=extensions)
    _ANSWERS = answers


def _warm(pipeline: Any) -> None:
    """Plan an empty position once before any file: the first plan of a process imports the pack's
    event modules and fills the mapping's and the engine's one-time tables, so that no file's time
    (nor the first file's line) carries them. The plan is thrown away."""
    from vassal_parser.errors import InputError

    info = {"file": "<warm-up>", "kind": "save", "module_name": pipeline.module.name,
            "module_version": pipeline.module.version, "vassal_version": "", "extensions": [],
            "extension_versions": {}, "steps": 0, "step": None}
    with contextlib.suppress(InputError):  # a pack that cannot plan: each file's line says so
        pipeline.plan_pieces([], info)


def check_files(files: list[Path], module: str | Path, pack: str | Path, extensions: Iterable[str] = (),
                answers: Mapping[str, Any] | None = None, answers_source: str = "<answers>",
                jobs: int | None = None) -> Iterator[dict[str, Any]]:
    """Each file's summary, in the order given, checked by `jobs` processes (default: every core).

    The module and pack are loaded before any file is read: a bad module or pack is one InputError
    for the whole command. So are the answers' choice ids checked against the pack."""
    global _PIPELINE, _ANSWERS
    from rules.engine import check_answer_ids
    from vassal_parser.collector import freeze_start_up_state, unfreeze_start_up_state

    jobs = max(1, min(jobs or os.cpu_count() or 1, len(files)))
    extensions = [str(e) for e in extensions]
    _PIPELINE = None  # an earlier call's (another module or pack) is never this one's
    _ANSWERS = (dict(answers or {}), answers_source)

    def load() -> None:
        """This process's pipeline: a bad module, pack or answer id is one InputError for the command.

        The loaded pipeline lives as long as the batch: frozen out of the collector's sight, no
        full collection during a file walks the module and pack again (one process or many alike,
        so that the benchmark's ratio is the cores' and not a difference in collections)."""
        _start(str(module), str(pack), extensions, _ANSWERS)
        check_answer_ids(_ANSWERS[0], _PIPELINE.pack, answers_source)
        _warm(_PIPELINE)
        freeze_start_up_state()

    if jobs > 1 and hasattr(os, "fork"):
        timer: list[float] = []
        for start in range(0, len(files), FORKED_FILES):  # what one pipe of numbers holds
            yield from _forked(files[start:start + FORKED_FILES], jobs - 1, load, timer)
        _say_timing(len(files), jobs, min(timer))
        return
    load()
    try:
        started = time.perf_counter()
        if jobs == 1:
            yield from map(check_one, files)
        else:  # no fork (Windows): a pool of spawned workers, each loading the pipeline once
            from concurrent.futures import ProcessPoolExecutor

            spawn = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(jobs, mp_context=spawn, initializer=_start,
                                     initargs=(str(module), str(pack), extensions, _ANSWERS)) as pool:
                yield from pool.map(check_one, files, chunksize=max(1, len(files) // (jobs * 4)))
        _say_timing(len(files), jobs, started)
    finally:  # an in-process caller's heap is its own again
        unfreeze_start_up_state()


def _say_timing(count: int, jobs: int, started: float) -> None:
    """benchmarks/batch_check.py (`ADJUTANT_BATCH_TIMING`): the time from the first process's
    pipeline loaded (the first moment a file could be checked) to the last file checked."""
    if os.environ.get("ADJUTANT_BATCH_TIMING"):
        print(f"batch timing: {count} files in {jobs} processes: {time.perf_counter() - started:.4f} s",
              file=sys.stderr)


def summary_line(entry: Mapping[str, Any]) -> str:
    status = entry["status"]
    if status in ("bad_input", "internal_error"):
        return f"{entry['file']}: {'bad input' if status == 'bad_input' else 'error'}: {entry['error']}"
    parts = []
    if entry["due"]:
        parts.append(f"{len(entry['due'])} due ({', '.join(entry['due'])})")
    if entry.get("owed"):
        parts.append(f"{len(entry['owed'])} owed ({', '.join(entry['owed'])})")
    if entry.get("waiting"):
        on = ", ".join(entry.get("waiting_for") or []) or "an earlier decision"
        parts.append(f"{len(entry['waiting'])} waiting for {on} ({', '.join(entry['waiting'])})")
    if entry["violations"]:
        parts.append(f"{entry['violations']} War & Peace violation{'s' if entry['violations'] > 1 else ''}")
    if entry["undecided"]:
        parts.append(f"{len(entry['undecided'])} undecided ({', '.join(entry['undecided'])})")
    if status == "undecided" and not entry["undecided"]:
        parts.append("undecided (a fact the position does not give)")
    return f"{entry['file']}: {'; '.join(parts) or 'nothing due'}"


def totals(entries: list[Mapping[str, Any]]) -> dict[str, int]:
    counts = {name: 0 for name in STATUS_NAMES.values()}
    for entry in entries:
        counts[entry["status"]] += 1
    return {"files": len(entries), **counts}


def total_line(entries: list[Mapping[str, Any]]) -> str:
    counts = totals(entries)
    words = [f"{counts['nothing_due']} nothing due", f"{counts['due']} due",
             f"{counts['undecided']} undecided", f"{counts['bad_input']} bad input"]
    if counts["internal_error"]:
        words.append(f"{counts['internal_error']} internal error")
    status = worst(e["exit_status"] for e in entries)
    files = f"{counts['files']} file{'s' if counts['files'] != 1 else ''}"
    return f"total: {files}: {', '.join(words)} (exit {status})"


def document(entries: list[Mapping[str, Any]]) -> dict[str, Any]:
    """`--format json`: the files' summaries as a list, with the totals (format adjutant-check-batch)."""
    return {**header("check-batch"), "files": list(entries), "total": totals(entries),
            "exit_status": worst(e["exit_status"] for e in entries)}


def _forked(files: list[Path], workers: int, load: Callable[[], None],
            timer: list[float]) -> Iterator[dict[str, Any]]:
    """Check `files` in this process and `workers` forked ones; their summaries in order.

    Why os.fork and pipes, not a pool: a demo-sized file is checked in a few ms, and a pool's
    imports, threads and per-task pickling cost as much as several files. Every process takes the
    next file's number from one pipe filled before the fork (4-byte records: a pipe never splits
    a read of them between readers), so the work is shared as it goes; a worker sends each summary
    back (pickled, length first) on its own pipe, and this process, while the next summary in
    order is not there, checks a file itself or waits on the workers' pipes. Everything is frozen
    before the fork, so no collection in a worker walks (and copies) the pages it shares with this
    process. A worker that dies leaves its files' lines as internal errors, never a hang.

    Why each process loads its own pipeline (`load`, after the fork, in the first round only;
    each process's time of being loaded goes into `timer`, and the batch is timed from the
    first): the two loads run at once, on two cores, and no page of the pipeline's memos is
    shared, to be copied when a file first writes into it. (The twice-as-slow files once measured
    with an inherited pipeline were the collector's freeze count walking it at every decode,
    vassal_parser/collector.py; without that walk an inherited and an own pipeline measure alike,
    2026-12-03: 4.4-6.7 ms and 4.9-6.6 ms a file, two processes at once.)
    A worker whose load fails leaves its files to this process, whose own load reports the error;
    the workers are killed and reaped whatever happens (`finally`)."""
    import pickle
    import select
    import struct

    from vassal_parser.collector import freeze_start_up_state, unfreeze_start_up_state

    count = len(files)
    if count == 0:
        return
    fresh = _PIPELINE is None  # the first round: nobody has loaded a pipeline yet
    freeze_start_up_state()
    todo_read, todo_write = os.pipe()
    results: list[tuple[int, int]] = []  # (pid, read end) per worker
    try:
        os.write(todo_write, b"".join(struct.pack("<I", n) for n in range(count)))
        os.close(todo_write)
        for _worker in range(workers):
            read_end, write_end = os.pipe()
            pid = os.fork()
            if pid == 0:  # the worker: its own pipeline, then numbers until none is left, a summary each
                os.close(read_end)
                code = 0
                try:
                    if fresh:
                        load()
                        loaded = pickle.dumps((LOADED, time.perf_counter()))
                        os.write(write_end, struct.pack("<I", len(loaded)) + loaded)
                    while True:
                        record = os.read(todo_read, 4)
                        if len(record) < 4:
                            break
                        (number,) = struct.unpack("<I", record)
                        data = pickle.dumps((number, check_one(files[number])))
                        os.write(write_end, struct.pack("<I", len(data)) + data)
                except BaseException:  # the parent reports the files it never got back
                    code = 1
                finally:
                    os._exit(code)
            os.close(write_end)
            results.append((pid, read_end))
        if fresh:
            load()
            timer.append(time.perf_counter())
        os.set_blocking(todo_read, False)
        done: dict[int, dict[str, Any]] = {}
        buffers = {fd: b"" for _pid, fd in results}
        open_ends = set(buffers)
        for index in range(count):
            while index not in done:
                try:
                    record = os.read(todo_read, 4)
                except BlockingIOError:
                    record = b""
                if len(record) == 4:
                    (number,) = struct.unpack("<I", record)
                    done[number] = check_one(files[number])
                    continue
                if not open_ends:  # every worker gone and the file never sent back
                    done[index] = {"file": str(files[index]), "status": "internal_error",
                                   "exit_status": EXIT_INTERNAL_ERROR,
                                   "error": f"adjutant check {files[index]}: a worker process stopped"}
                    break
                ready, _w, _x = select.select(list(open_ends), [], [])
                for fd in ready:
                    chunk = os.read(fd, 1 << 16)
                    if not chunk:
                        open_ends.discard(fd)
                        continue
                    buffers[fd] += chunk
                    while len(buffers[fd]) >= 4:
                        (size,) = struct.unpack("<I", buffers[fd][:4])
                        if len(buffers[fd]) < 4 + size:
                            break
                        number, entry = pickle.loads(buffers[fd][4:4 + size])
                        buffers[fd] = buffers[fd][4 + size:]
                        if number == LOADED:
                            timer.append(entry)
                        else:
                            done[number] = entry
            yield done.pop(index)
    finally:  # also when this process's load refused the module or pack: no worker is left behind
        unfreeze_start_up_state()
        os.close(todo_read)
        for pid, fd in results:
            os.close(fd)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
