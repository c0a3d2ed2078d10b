"""`adjutant watch FOLDER --module MODULE --pack PACK`: the live overlay daemon.

Why the check pipeline is imported lazily: `watch` only needs it once a file must be planned, and
keeping the import out of module load lets `adjutant --help` work in any checkout.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import signal
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from bridge.cli import config
from bridge.cli.helptext import HelpFormatter
from bridge.daemon.folder import DEFAULT_DEBOUNCE_S
from bridge.daemon.planner_process import DEFAULT_PLAN_BUDGET_S, ProcessPlanner
from bridge.daemon.watch import MAX_REPLAY_STEPS, PlanFunction, ReplayFunction, WatchDaemon
from bridge.web import access
from bridge.web.server import DEFAULT_HOST, DEFAULT_PORT
from vassal_parser.collector import freeze_start_up_state
from vassal_parser.errors import InputError

EPILOG = """\
examples:
  adjutant watch ~/vassal/saves --module TK.vmod --pack my-pack
  adjutant watch .                                  (module, pack, port from ./adjutant.toml)
  adjutant watch saves --module TK.vmod --pack my-pack --host 0.0.0.0 --allow-origin http://192.168.1.5:8765

Prints one URL per view: a player view per faction, the stream view (OBS browser source) and the
control view. Answers given in the overlay are kept across a restart in the daemon's own state
folder (--state-dir; never the watched folder).
exit status: 0 stopped by Ctrl-C or SIGTERM; 2 bad input (no such folder or module, busy port).
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "watch",
        help="watch a save folder and serve the live overlay (player, stream and control views)",
        description=(
            "Watch FOLDER for new or changed .vsav saves (re-plan) and .vlog logs (replay step by step), "
            "and serve the overlay page and its WebSocket protocol on one port. Never writes to FOLDER."
        ),
        epilog=EPILOG,
        formatter_class=HelpFormatter,
    )
    parser.add_argument("folder", type=Path, help="the folder VASSAL saves into")
    parser.add_argument("--module", type=Path, help="the VASSAL module (.vmod; or `module` in adjutant.toml)")
    parser.add_argument("--pack", help="rules pack name or folder (e.g. tk; or `pack` in adjutant.toml)")
    parser.add_argument(
        "--extension", action="append", default=[], type=Path, help="a module extension (.vmdx); repeatable"
    )
    parser.add_argument("--port", type=int, default=None,
                        help=f"port (default {DEFAULT_PORT}, or `port` in adjutant.toml; 0 = any free port)")
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
    parser.add_argument(
        "--plan-budget", type=float, default=DEFAULT_PLAN_BUDGET_S, metavar="S",
        help=f"seconds one save may take to plan before it gets a notice (default {DEFAULT_PLAN_BUDGET_S:g})",
    )
    parser.add_argument("--state-dir", type=Path, metavar="DIR",
                        help="where answers are kept across restarts (default: $ADJUTANT_STATE_DIR, else "
                             "$XDG_STATE_HOME/adjutant or ~/.local/state/adjutant)")
    parser.add_argument("--json", action="store_true",
                        help="console lines as JSON objects, one a line (format adjutant-watch-log)")
    config.opt_in(parser, ("module", "extensions", "pack", "port"), anchor="folder",
                  required=("module", "pack"))
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

        Why `replay_plans`: it reads and decodes the log once, replays it forward, and runs the
        engine only where a step changed what the pack maps (a long session has thousands of
        steps, issue 27); the last step's plan is the full one."""
        from bridge.reports.step_plans import replay_plans

        yield from replay_plans(pipeline, path, answers=dict(answers) or None, max_steps=MAX_REPLAY_STEPS)

    return plan_file, replay_file


def moves_writer(module: Path, pack: str, extensions: tuple[Path, ...], out: Path, also_save: bool = False):
    """The daemon's "Write the moves": `<name>-adjutant.vlog` in `out` (bridge.writeback.applier.apply_plan).

    Why a file this daemon wrote may be replaced and no other: the players press the button again
    after answering or after a new save; a file of that name that was already there is theirs, and so
    is one put in place of ours since (it is known by its inode, not its name). A new name is claimed
    at the instant of writing (vassal_parser/atomic.py), so an `apply` writing it too is never replaced."""
    from bridge.pipeline import CheckPipeline
    from bridge.writeback.applier import ALREADY_EXISTS, NeedsAnswers, apply_plan
    from vassal_parser.atomic import DiskError

    pipeline = CheckPipeline(module, pack, extensions=extensions, remember=False)
    # name -> (device, inode) of the file this daemon wrote there: a file another writer put in its
    # place since (an `apply --force`, a sync tool) is no longer ours and is left alone
    ours: dict[Path, tuple[int, int]] = {}

    def mine(target: Path) -> bool:
        try:
            found = target.stat()
        except OSError:
            return False  # gone (or unreadable): then it is written anew, exclusively
        return ours.get(target) == (found.st_dev, found.st_ino)

    def free_name(path: Path, suffix: str) -> Path:
        target = out / f"{path.stem}-adjutant{suffix}"
        number = 2
        while target.exists() and not mine(target):
            target = out / f"{path.stem}-adjutant-{number}{suffix}"
            number += 1
        return target

    def write(path: Path, answers: Mapping[str, Any]) -> dict:
        try:
            return _write(path, answers)
        except DiskError:
            raise
        except OSError as exc:  # the --out folder's disk (gone, a name too long): one line, not a bug
            raise DiskError(out, exc) from None

    def claimed(path: Path, suffix: str, answers: Mapping[str, Any]) -> tuple[Path, Any]:
        """apply_plan on the first free name; a name another writer takes at the same instant (an
        `apply` run, a second daemon) is never replaced: the next free one is tried."""
        while True:
            target = free_name(path, suffix)
            replace = mine(target)
            try:
                applied = apply_plan(pipeline, path, target, answers, force=replace)
            except InputError as exc:
                if not replace and exc.message == ALREADY_EXISTS and target.exists():
                    continue  # taken between the look and the write: someone else's file
                raise
            with contextlib.suppress(OSError):
                written = target.stat()
                ours[target] = (written.st_dev, written.st_ino)
            return target, applied

    def _write(path: Path, answers: Mapping[str, Any]) -> dict:
        try:
            target, applied = claimed(path, ".vlog", answers)
            written = {"file": target.name, "path": str(target.resolve()), "description": applied.description,
                       "steps": applied.steps, "source": path.name}
            if also_save:
                save, _applied = claimed(path, ".vsav", answers)
                written.update({"save_file": save.name, "save_path": str(save.resolve())})
        except NeedsAnswers as waiting:
            raise InputError(path, " ".join(waiting.lines[1:]) or waiting.lines[0]) from None
        return written

    return write


async def serve_until_signal(daemon: WatchDaemon, say: Any = None) -> None:
    """Run until Ctrl-C or SIGTERM, then shut down cleanly (observer joined, sockets closed)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        # Windows has no add_signal_handler: there Ctrl-C still raises KeyboardInterrupt.
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, stop.set)
    await daemon.start()
    try:
        if say is not None:
            for label, url in view_urls(daemon.server.url, daemon.server.host, daemon.server.view_url):
                say(f"{label}: {url}")
            say(access.WHO_GETS_WHICH)
        await stop.wait()
    finally:
        await daemon.stop()


def lan_address() -> str | None:
    """This machine's address on the local network (for a phone or a second PC), if it has one.

    Why a UDP socket: `connect` on UDP only picks the outgoing interface; no packet is sent."""
    import socket

    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed anywhere real
        address = probe.getsockname()[0]
        return None if address.startswith("127.") or address == "0.0.0.0" else address
    return None


def view_urls(base: str, host: str, tokened: Any = None) -> list[tuple[str, str]]:
    """(label, URL) for every view: one player view per faction, stream, control; LAN copies too.

    `tokened` (`OverlayServer.view_url`) adds each URL's token (bridge/web/access.py), which opens that
    view only: each faction's own to its player URL, the stream's to the stream URL, the control token
    to the control URL."""
    from rules.state import FACTIONS

    def url(root: str, query: str) -> str:
        return tokened(query, base=root) if tokened is not None else f"{root}?{query}"

    def views(root: str, suffix: str = "") -> list[tuple[str, str]]:
        urls = [(f"player ({faction}){suffix}", url(root, f"view=player&faction={faction}"))
                for faction in FACTIONS]
        urls.append((f"stream (OBS browser source){suffix}", url(root, "view=stream")))
        urls.append((f"control (OBS dock / table){suffix}", url(root, "view=control")))
        return urls

    urls = views(base)
    if host in ("0.0.0.0", "::", ""):
        address = lan_address()
        if address:
            port = base.rstrip("/").rsplit(":", 1)[-1]
            urls += views(f"http://{address}:{port}/", " on the LAN")
    return urls


def _log_line(text: str) -> None:
    print(f"adjutant watch: {text}", flush=True)


def _json_line(text: str) -> None:
    import json

    from bridge.common.jsonout import header

    print(json.dumps({**header("watch-log"), "line": text}, ensure_ascii=False), flush=True)


def run_watch(args: argparse.Namespace) -> int:
    folder: Path = args.folder
    if not folder.is_dir():
        raise InputError(folder, "not a folder (give the folder VASSAL saves into)")
    if not Path(args.module).is_file():
        raise InputError(args.module, "module file not found")
    port = DEFAULT_PORT if args.port is None else args.port
    if not 0 <= port <= 65535:
        raise InputError(None, f"--port {port} is not a TCP port")
    from bridge.daemon.answer_store import AnswerStore

    state = getattr(args, "state_dir", None)
    if state is not None and Path(state).resolve() == folder.resolve():
        raise InputError(state, "--state-dir must not be the watched folder (Adjutant never writes there)")
    store = AnswerStore(folder, state)
    if store.path.parent.resolve() == folder.resolve():
        raise InputError(store.path.parent,
                         "the state folder must not be the watched folder; give --state-dir")
    log_line = _json_line if getattr(args, "json", False) else _log_line
    out = getattr(args, "out", None)
    if out is not None and not out.is_dir():
        raise InputError(out, "--out must be an existing folder (where the continuation logs go)")
    if out is not None:  # one daemon per --out folder (bridge/daemon/out_lock.py): refused here, exit 2
        from bridge.daemon.out_lock import lock_out_folder

        out_lock = lock_out_folder(out)  # held (open) until this process ends
    module, extensions = Path(args.module), tuple(Path(e) for e in args.extension)
    if not args.plan_budget > 0:
        raise InputError(None, f"--plan-budget {args.plan_budget} must be a positive number of seconds")
    # The planner runs in a worker process (bridge/daemon/planner_process.py): a save that takes longer
    # than --plan-budget is stopped there, so it cannot stall the saves after it.
    planner = ProcessPlanner(module, args.pack, extensions, budget=args.plan_budget,
                             max_steps=MAX_REPLAY_STEPS)
    planner.start()  # a bad module or pack: one line, exit 2, before any port is taken
    if getattr(args, "write_save", False) and out is None:
        raise InputError("--write-save", "needs --out FOLDER (where the files go)")
    write_function = (moves_writer(module, args.pack, extensions, out,
                                   also_save=getattr(args, "write_save", False)) if out else None)
    daemon = WatchDaemon(
        folder,
        planner.plan,
        plan_async=planner.plan_async,  # a save's plan without a thread hop (issue 15)
        replay_function=planner.replay,
        write_function=write_function,
        host=args.host,
        port=port,
        allowed_origins=tuple(args.allow_origin),
        debounce=args.debounce,
        log_line=log_line,
        answer_store=store,
    )
    # What start-up built (imports, the daemon's objects) lives as long as the daemon: out of the
    # collector's sight, a full collection that falls in a save's round (unpickling the plan and
    # publishing it allocate enough to start one) walks only what came after (as the worker does).
    gc.collect()
    freeze_start_up_state()
    if out is not None:
        daemon.server.private_folders += (str(out), str(out.resolve()))
    try:
        asyncio.run(serve_until_signal(daemon, log_line))
    finally:
        planner.close()
        if out is not None:
            out_lock.release()
    print("adjutant watch: stopped", file=sys.stderr, flush=True)
    return 0
