"""`adjutant demo`: the demo story, live in the overlay (default) or printed (`--no-serve`).

Why live by default: it is the README's first command, so it should show what Adjutant is for — a
daemon watching a save folder and overlays that update as saves land — with nothing but the
checked-in demo module, pack and saves. The live run plays VASSAL's part: it copies the story's
saves one by one into a temporary folder (never the repo's), the real daemon (`bridge.daemon.watch`)
notices and plans each one, and the terminal says what became due. Once the story is over the last
plan stays up until Ctrl-C, so a newcomer has time to open the pages; `--exit` stops a few seconds
after the story instead (scripts, CI), and `--no-serve` keeps the plain printed walk-through.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, TextIO

from bridge.cli.helptext import HelpFormatter
from bridge.daemon.watch import MAX_REPLAY_STEPS, PlanFunction, ReplayFunction, WatchDaemon
from bridge.pipeline import CheckPipeline
from bridge.reports.step_plans import replay_plans
from bridge.web import access
from bridge.web.server import DEFAULT_HOST, DEFAULT_PORT
from module_patches.demo_story import PLAYERS, SAVES_DIR, Scene, load_story, save_path
from module_patches.demo_world import DEMO_DIR
from vassal_parser.errors import InputError

DEMO_MODULE = DEMO_DIR / "adjutant-demo.vmod"
DEMO_PACK = DEMO_DIR / "pack"
SHOWN = {"fired": "DUE", "waiting": "WAITING"}
DEFAULT_PAUSE_S = 4.0
DEFAULT_LINGER_S = 5.0  # with --exit: seconds served after the story
EPILOG = """\
examples:
  adjutant demo                  serve the story, then keep serving until Ctrl-C
  adjutant demo --exit           stop 5 s after the story (scripts, CI)
  adjutant demo --no-serve       print the walk-through, no server
  adjutant demo --no-serve --json

exit status: 0 every save made the story's events due; 1 some did not; 2 bad option or busy port;
130 stopped (Ctrl-C, SIGTERM) before the story ended.
"""
PLAN_TIMEOUT_S = 60.0  # a demo save plans in well under a second; this only stops a hang
EXIT_INTERRUPTED = 130


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "demo", help="play the demo story into the live overlay and say what each save makes due",
        description="Serve the live overlay (as `adjutant watch` does) on a temporary folder and copy the "
                    "demo saves (module_patches/demo/saves) into it one by one, printing for each save the "
                    "events now due by rule number. Exit status 0 when every save made the story's "
                    "expected events due, 1 otherwise.",
        epilog=EPILOG, formatter_class=HelpFormatter)
    parser.add_argument("--no-serve", action="store_true",
                        help="print the walk-through of every save without serving the overlay")
    parser.add_argument("--pause", type=float, default=DEFAULT_PAUSE_S, metavar="SECONDS",
                        help=f"seconds between two saves (default {DEFAULT_PAUSE_S:g})")
    parser.add_argument("--exit", action="store_true",
                        help="stop after the story (default: keep serving the last plan until Ctrl-C)")
    parser.add_argument("--linger", type=float, default=None, metavar="SECONDS",
                        help=f"with --exit: seconds to keep serving after the last save (default "
                             f"{DEFAULT_LINGER_S:g}; giving it implies --exit)")
    parser.add_argument("--json", action="store_true",
                        help="print the walk-through as JSON (format adjutant-demo; implies --no-serve)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"port (default {DEFAULT_PORT}; 0 = any free port)")
    parser.add_argument("--host", default=DEFAULT_HOST,
                        help=f"address to bind (default {DEFAULT_HOST}; another address exposes the overlay)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if getattr(args, "json", False):
        return walk_through_json(sys.stdout)
    if args.no_serve:
        return walk_through(sys.stdout)
    if not 0 <= args.port <= 65535:
        raise InputError(None, f"--port {args.port} is not a TCP port")
    for name in ("pause", "linger"):
        if (getattr(args, name) or 0) < 0:
            raise InputError(None, f"--{name} must be zero or more seconds")
    bounded = args.exit or args.linger is not None
    linger = (args.linger if args.linger is not None else DEFAULT_LINGER_S) if bounded else None
    return serve_story(sys.stdout, host=args.host, port=args.port, pause=args.pause, linger=linger)


def walk_through_json(out: TextIO) -> int:
    """The walk-through as one JSON document: each scene's file, title, due events and exit status."""
    from bridge.common.jsonout import dumps, header, module_json

    pipeline = CheckPipeline(DEMO_MODULE, DEMO_PACK)
    story = load_story()
    scenes = []
    mismatches = 0
    for scene in story:
        result = pipeline.plan_file(save_path(scene), answers=scene.answers, answers_source="story.toml")
        plan = result.plan
        matches = matches_story(plan, scene)
        mismatches += not matches
        scenes.append({"file": f"{scene.file}.vsav", "title": scene.title, "phasing": plan["phasing"],
                       "turn": plan["turn"], "exit_status": result.exit_status,
                       "events": [{"rule": e["rule"], "title": e["title"], "status": e["status"]}
                                  for e in plan["events"] if e["status"] in (*SHOWN, "undecided")],
                       "expected": scene.expect, "matches_story": matches})
    module = pipeline.module
    module_shape = module_json(module.name, module.version, module.vassal_version)
    out.write(dumps({**header("demo"), "module": module_shape, "pack": pipeline.pack.name,
                     "scenes": scenes}) + "\n")
    return 0 if mismatches == 0 else 1


# --- shared by both modes ---------------------------------------------------------------------------


def due_rules(plan: Mapping[str, Any]) -> list[str]:
    """Rules the players are told are due (fired or waiting), in the plan's 6.2 order."""
    return [event["rule"] for event in plan["events"] if event["status"] in SHOWN]


def nothing_line(plan: Mapping[str, Any]) -> str:
    """The line for a save with nothing due — unless something is undecided, which is not nothing."""
    if any(event["status"] == "undecided" for event in plan["events"]):
        return "  nothing is due that the pack can decide (see UNDECIDED above)"
    return "  nothing is due"


def matches_story(plan: Mapping[str, Any], scene: Scene) -> bool:
    """The scene's `expect` list: due events, leaving out those only held up by an earlier choice."""
    return [rule for rule in due_rules(plan) if not _blocked(plan, rule)] == scene.expect


def _blocked(plan: Mapping[str, Any], rule: str) -> bool:
    """An event reported only because an earlier unanswered choice holds it up (6.2 order)."""
    event = next(e for e in plan["events"] if e["rule"] == rule)
    return event["status"] == "waiting" and not event["choices"] and bool(event["waiting_for"])


# --- --no-serve: the printed walk-through -------------------------------------------------------------


def walk_through(out: TextIO) -> int:
    """Print every scene's plan in story order; 0 when each scene's due events are the story's."""
    pipeline = CheckPipeline(DEMO_MODULE, DEMO_PACK)
    story = load_story()
    mismatches = 0
    module = pipeline.module
    out.write(f"Adjutant demo: {len(story)} saves of module {module.name} {module.version}, "
              f"pack {pipeline.pack.name} ({SAVES_DIR})\n")
    for number, scene in enumerate(story, start=1):
        result = pipeline.plan_file(save_path(scene), answers=scene.answers, answers_source="story.toml")
        plan = result.plan
        out.write(f"\n[{number}/{len(story)}] {scene.file}.vsav -- {scene.title}\n")
        out.write(f"    {plan['phasing']} faction, {plan['turn']}; exit status {result.exit_status}\n")
        for event in plan["events"]:
            if event["status"] not in SHOWN:
                continue
            out.write(f"  {event['rule']} {event['title']}: {SHOWN[event['status']]}\n")
            for reason in event["why"]:
                out.write(f"      why: {reason}\n")
            for step in event["steps"]:
                label = f"{step['rule']} {step['step']}" if step["step"] else step["rule"]
                out.write(f"      ({label}) {step['text']}\n")
            for choice in event["choices"]:
                answer = f"answered {choice['answer']!r}" if choice["answered"] else "waiting for an answer"
                out.write(f"      ? {choice['decider']}: {choice['prompt']} ({answer})\n")
        for event in plan["events"]:
            if event["status"] == "undecided":  # unknown is never "not due": say which fact is missing
                missing = "; ".join(m.get("text", "") for m in event.get("missing") or [])
                out.write(f"  {event['rule']} {event['title']}: UNDECIDED (missing: {missing})\n")
        if not due_rules(plan):
            out.write(nothing_line(plan) + "\n")
        if not matches_story(plan, scene):
            mismatches += 1
            out.write(f"  ! the story expected {scene.expect or 'nothing'} here\n")
    return 0 if mismatches == 0 else 1


# --- live: the daemon on a temporary folder -------------------------------------------------------------


def overlay_urls(base: str, tokened: Callable[[str], str] | None = None) -> list[tuple[str, str]]:
    """(label, URL) of every view worth opening: one player view per faction, stream, control."""
    factions = [faction for _id, _name, faction in PLAYERS]

    def url(query: str) -> str:  # with the token the view needs (bridge/web/access.py)
        return tokened(query) if tokened is not None else f"{base}?{query}"

    urls = [(f"player ({faction})", url(f"view=player&faction={faction}")) for faction in factions]
    urls.append(("stream (OBS browser source)", url("view=stream")))
    urls.append(("control (OBS dock / table)", url("view=control")))
    return urls


def story_planner(pipeline: CheckPipeline, story: list[Scene]) -> tuple[PlanFunction, ReplayFunction]:
    """The daemon's planner for the demo: each save is planned with its scene's story answers.

    Why merge: in a real game the players answer choices in the overlay; in the demo the story
    answers them (Case Yellow's target, 16.5.4's redeployment), and anything a viewer answers in
    the overlay takes precedence.
    """
    answers_by_file = {f"{scene.file}.vsav": scene.answers for scene in story}

    def plan_file(path: Path, answers: Mapping[str, Any]) -> dict:
        merged = {**answers_by_file.get(path.name, {}), **answers}
        return pipeline.plan_file(path, answers=merged or None, answers_source="story.toml").plan

    def replay_file(path: Path, answers: Mapping[str, Any]) -> Iterator[tuple[int, dict]]:
        yield from replay_plans(pipeline, path, answers=dict(answers) or None, max_steps=MAX_REPLAY_STEPS)

    return plan_file, replay_file


def copy_into(folder: Path, source: Path) -> Path:
    """Copy a save into the watched folder as VASSAL ≤ 3.4 does: a temporary name, then a rename.

    Why: the daemon must only ever see a complete file; the `.`-prefixed temporary name is one the
    watcher ignores (bridge.daemon.completeness.is_watched_name)."""
    target = folder / source.name
    temporary = folder / f".{source.name}.{os.getpid()}.tmp"
    temporary.write_bytes(source.read_bytes())
    os.replace(temporary, target)
    return target


def serve_story(out: TextIO, *, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT,
                pause: float = DEFAULT_PAUSE_S, linger: float | None = DEFAULT_LINGER_S) -> int:
    """Run the live demo to its end (or a signal); 0 when every save made the story's events due.

    `linger`: seconds to keep serving after the story; None = until Ctrl-C or SIGTERM."""
    pipeline = CheckPipeline(DEMO_MODULE, DEMO_PACK)
    story = load_story()
    folder = Path(tempfile.mkdtemp(prefix="adjutant-demo-"))
    try:
        return asyncio.run(_live(out, pipeline, story, folder, host, port, pause, linger))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def _live(out: TextIO, pipeline: CheckPipeline, story: list[Scene], folder: Path, host: str,
                port: int, pause: float, linger: float | None) -> int:
    def say(text: str) -> None:
        out.write(text + "\n")
        out.flush()

    def daemon_line(line: str) -> None:
        # The daemon's verdict on each save is worth showing; its start-up line and the notes about
        # our own temporary copies are not (the URLs are printed below).
        if not line.startswith("watching ") and ": ignored (" not in line:
            say(f"    (daemon) {line}")

    plan_function, replay_function = story_planner(pipeline, story)
    daemon = WatchDaemon(folder, plan_function, replay_function=replay_function, host=host, port=port,
                         plan_existing=False, log_line=daemon_line)
    await daemon.start()  # a busy port is an InputError: one line, exit 2
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    story_task: asyncio.Future[int] | None = None
    stopper: asyncio.Future[Any] | None = None
    try:
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(signum, stop.set)
        module = pipeline.module
        say(f"Adjutant demo: {len(story)} saves of module {module.name} {module.version}, "
            f"pack {pipeline.pack.name}; live overlay at {daemon.server.url}")
        for label, url in overlay_urls(daemon.server.url, daemon.server.view_url):
            say(f"  {label}: {url}")
        say(f"  ({access.WHO_GETS_WHICH})")
        say(f"  watched folder (temporary, removed at the end): {folder}")
        story_task = asyncio.ensure_future(_play(say, daemon, story, folder, pause, stop))
        stopper = asyncio.ensure_future(stop.wait())
        await asyncio.wait({story_task, stopper}, return_when=asyncio.FIRST_COMPLETED)
        if stop.is_set() or not story_task.done():
            story_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await story_task
            say("Adjutant demo: stopped before the story ended")
            return EXIT_INTERRUPTED
        mismatches = story_task.result()
        verdict = "every save made the story's events due" if not mismatches else \
            f"{mismatches} save(s) did not make the story's events due"
        more = ("the last plan stays up until Ctrl-C" if linger is None
                else f"serving {linger:g} s more (Ctrl-C stops)")
        say(f"\nAdjutant demo: story over, {verdict}; {more}")
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(stopper, timeout=linger)
        return 0 if not mismatches else 1
    finally:
        for pending in (story_task, stopper):
            if pending is not None and not pending.done():
                pending.cancel()
        await daemon.stop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(signum)


async def _play(say: Callable[[str], None], daemon: WatchDaemon, story: list[Scene], folder: Path,
                pause: float, stop: asyncio.Event) -> int:
    """Copy each save in, wait for the daemon's plan of it, print what is due; count mismatches."""
    mismatches = 0
    for number, scene in enumerate(story, start=1):
        if number > 1:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=pause)
        if stop.is_set():  # checked, not trusted to cancellation: 3.11's wait_for can swallow a cancel
            break
        name = f"{scene.file}.vsav"
        say(f"\n[{number}/{len(story)}] {name} -- {scene.title}")
        seq = daemon.server.history.seq
        copy_into(folder, save_path(scene))
        state = await _planned(daemon, name, seq)
        plan = state.get("plan") if state.get("file") == name and state.get("status") == "ok" else None
        if plan is None:
            mismatches += 1
            say(f"  ! no plan: {state.get('notice') or 'the daemon did not plan this save in time'}")
            continue
        for event in plan["events"]:
            if event["status"] in SHOWN:
                steps = len(event.get("steps") or [])
                open_choices = sum(1 for c in event.get("choices") or [] if not c.get("answered"))
                detail = f"{steps} step(s)"
                if open_choices:
                    detail += f", {open_choices} choice(s) to answer"
                say(f"  {SHOWN[event['status']]} {event['rule']} {event['title']} ({detail})")
        for event in plan["events"]:
            if event["status"] == "undecided":
                say(f"  UNDECIDED {event['rule']} {event['title']} (a fact it needs is missing)")
        if not due_rules(plan):
            say(nothing_line(plan))
        if not matches_story(plan, scene):
            mismatches += 1
            say(f"  ! the story expected {scene.expect or 'nothing'} here")
    return mismatches


async def _planned(daemon: WatchDaemon, name: str, after_seq: int) -> dict[str, Any]:
    """The daemon's state once it has planned `name` (or refused it), polled; bounded wait."""
    history = daemon.server.history
    deadline = time.monotonic() + PLAN_TIMEOUT_S
    while time.monotonic() < deadline:
        state = history.state
        if history.seq > after_seq:
            if state.get("file") == name and state.get("status") == "ok":
                return state
            if state.get("status") == "error":
                return state
        await asyncio.sleep(0.02)
    return history.state
