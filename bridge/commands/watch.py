"""`adjutant watch FOLDER --module MODULE --pack PACK`: the live overlay daemon.

Why the check pipeline is imported lazily: `watch` only needs it once a file must be planned, and
keeping the import out of module load lets `adjutant --help` work in any checkout.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from bridge.server import DEFAULT_HOST, DEFAULT_PORT
from bridge.watch import DEFAULT_DEBOUNCE_S, PlanFunction, ReplayFunction, WatchDaemon
from vassal_parser.errors import InputError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "watch",
        help="watch a save folder and serve the live overlay (player, stream and control views)",
        description=(
            "Watch FOLDER for new or changed .vsav saves (re-plan) and .vlog logs (replay step by step), "
            "and serve the overlay page and its WebSocket protocol on one port. Never writes to FOLDER."
        ),
    )
    parser.add_argument("folder", type=Path, help="the folder VASSAL saves into")
    parser.add_argument("--module", required=True, type=Path, help="the VASSAL module (.vmod)")
    parser.add_argument("--pack", required=True, help="rules pack name or folder (e.g. tk)")
    parser.add_argument(
        "--extension", action="append", default=[], type=Path, help="a module extension (.vmdx); repeatable"
    )
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    parser.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help=f"address to bind (default {DEFAULT_HOST}; another address exposes the overlay to the network)",
    )
    parser.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="also accept pages from this origin (e.g. http://192.168.1.5:8765); repeatable",
    )
    parser.add_argument(
        "--out", type=Path, metavar="FOLDER",
        help="enable the control view's \"Write the moves\": writes NAME-adjutant.vlog into FOLDER",
    )
    parser.add_argument(
        "--write-save", action="store_true",
        help="with --out: \"Write the moves\" also writes NAME-adjutant.vsav, a save with the moves made",
    )
    parser.add_argument(
        "--debounce", type=float, default=DEFAULT_DEBOUNCE_S, help="seconds of quiet before a file is read"
    )
    parser.set_defaults(handler=run_watch)


def pipeline_planner(
    module: Path, pack: str, extensions: tuple[Path, ...] = ()
) -> tuple[PlanFunction, ReplayFunction | None]:
    """Adapt engineer F's `bridge.pipeline.CheckPipeline` to the daemon's planner protocol."""
    try:
        from bridge.pipeline import CheckPipeline
    except ModuleNotFoundError as exc:
        if exc.name != "bridge.pipeline":
            raise
        missing = "bridge/pipeline.py is missing from this checkout; watch cannot plan"
        raise InputError(None, missing) from None
    pipeline = CheckPipeline(module, pack, extensions=extensions)
    pipeline.warm_up()  # at start-up, not on the first save (issue 15)

    def plan_file(path: Path, answers: Mapping[str, Any]) -> dict:
        return pipeline.plan_file(path, answers=dict(answers) or None).plan

    def replay_file(path: Path, answers: Mapping[str, Any]) -> Iterator[tuple[int, dict]]:
        """Plan the position after every replay step of a log (spec §3.5): step 0 .. last.

        Why `plan_steps`: it reads and decodes the log once and replays it forward, instead of
        re-reading the whole file for every step (a long session has hundreds of steps)."""
        for step, result in pipeline.plan_steps(path, answers=dict(answers) or None):
            yield step, result.plan

    return plan_file, replay_file


def moves_writer(module: Path, pack: str, extensions: tuple[Path, ...], out: Path, also_save: bool = False):
    """The daemon's "Write the moves": `<name>-adjutant.vlog` in `out` (bridge.applier.apply_plan).

    Why a file this daemon wrote may be replaced and no other: the players press the button again
    after answering or after a new save; a file of that name that was already there is theirs."""
    from bridge.applier import NeedsAnswers, apply_plan
    from bridge.pipeline import CheckPipeline

    pipeline = CheckPipeline(module, pack, extensions=extensions, remember=False)
    ours: set[Path] = set()

    def free_name(path: Path, suffix: str) -> Path:
        target = out / f"{path.stem}-adjutant{suffix}"
        number = 2
        while target.exists() and target not in ours:
            target = out / f"{path.stem}-adjutant-{number}{suffix}"
            number += 1
        return target

    def write(path: Path, answers: Mapping[str, Any]) -> dict:
        target = free_name(path, ".vlog")
        try:
            applied = apply_plan(pipeline, path, target, answers, force=target in ours)
            ours.add(target)
            written = {"file": target.name, "path": str(target.resolve()), "description": applied.description,
                       "steps": applied.steps, "source": path.name}
            if also_save:
                save = free_name(path, ".vsav")
                apply_plan(pipeline, path, save, answers, force=save in ours)
                ours.add(save)
                written.update({"save_file": save.name, "save_path": str(save.resolve())})
        except NeedsAnswers as waiting:
            raise InputError(path, " ".join(waiting.lines[1:]) or waiting.lines[0]) from None
        return written

    return write


async def serve_until_signal(daemon: WatchDaemon) -> None:
    """Run until Ctrl-C or SIGTERM, then shut down cleanly (observer joined, sockets closed)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        # Windows has no add_signal_handler: there Ctrl-C still raises KeyboardInterrupt.
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, stop.set)
    await daemon.run_until(stop)


def _log_line(text: str) -> None:
    print(f"adjutant watch: {text}", flush=True)


def run_watch(args: argparse.Namespace) -> int:
    folder: Path = args.folder
    if not folder.is_dir():
        raise InputError(folder, "not a folder (give the folder VASSAL saves into)")
    if not args.module.is_file():
        raise InputError(args.module, "module file not found")
    if not 0 <= args.port <= 65535:
        raise InputError(None, f"--port {args.port} is not a TCP port")
    out = getattr(args, "out", None)
    if out is not None and not out.is_dir():
        raise InputError(out, "--out must be an existing folder (where the continuation logs go)")
    plan_function, replay_function = pipeline_planner(args.module, args.pack, tuple(args.extension))
    if getattr(args, "write_save", False) and out is None:
        raise InputError("--write-save", "needs --out FOLDER (where the files go)")
    write_function = (moves_writer(args.module, args.pack, tuple(args.extension), out,
                                   also_save=getattr(args, "write_save", False)) if out else None)
    daemon = WatchDaemon(
        folder,
        plan_function,
        replay_function=replay_function,
        write_function=write_function,
        host=args.host,
        port=args.port,
        allowed_origins=tuple(args.allow_origin),
        debounce=args.debounce,
        log_line=_log_line,
    )
    asyncio.run(serve_until_signal(daemon))
    print("adjutant watch: stopped", file=sys.stderr, flush=True)
    return 0
