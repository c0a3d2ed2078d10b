"""A long log made from the demo story, and what `adjutant check --timeline` costs on it (issue 27).

The log: the demo story's first save as the restore, padded with counters the demo pack does not map
(the spare markers of benchmarks/latency.py) up to `--pieces`; then the story's own replay steps (the
eight of `story.vlog`: moves, trait changes, adds and removals, each with its chat line) and one step
back from the last scene to the first, repeated until the log has `--steps` steps. So every cycle
makes the same events due and stops them again, as a long campaign's turns would. Made from the demo
module alone (module_patches/demo): no corpus needed.

What is timed: the whole `adjutant check LOG --timeline --format json` process (its output
discarded), for each size in `--sizes`, the sizes interleaved run by run so that the machine's
load falls on all of them alike; the median per size, and the ratio of the largest to the
smallest size beside the ratio of their steps (linear growth: 1,600 steps at most 4.4x the time
of 400). Targets: 1,600 steps over 2,000 pieces within 5 s; growth at most 4.4x.

    .venv/bin/python benchmarks/long_log.py [--sizes 400,1600] [--pieces 2000] [--runs 3]
    .venv/bin/python benchmarks/long_log.py --write OUT.vlog --steps 1600   (just the file)
    .venv/bin/python benchmarks/long_log.py --daemon-replay [--sizes 100,400] [--runs 3]
    .venv/bin/python benchmarks/long_log.py --audit [--sizes 1600] [--runs 3]

`--audit`: `adjutant check LOG --audit --format json` beside `--timeline` on the same log, whole
processes, interleaved run by run (issue 37's target: the audit within 2x the timeline's time). The
audit replays the log once like the timeline, and reads each turn's unanswered choices from the
moves (bridge/reports/recognise.py: the story's 16.1.2 remedy and 16.5.4 redeployment, every cycle).

`--daemon-replay`: the `adjutant watch` replay of a log (the overlay's "became due"), as its worker
process runs it, in one process with the module and pack loaded beforehand (not timed): the log
read, every step's events and the last step's full plan (`bridge.reports.step_plans.replay_plans`),
beside every step's position planned whole (`CheckPipeline.plan_steps`, the daemon's replay before
issue 27's change), the two interleaved run by run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from module_patches.demo_module import moduledata_xml  # noqa: E402
from module_patches.demo_pieces import basic_state, type_and_state  # noqa: E402
from module_patches.demo_story import (  # noqa: E402
    FIXED_KEY,
    _pieces_of,
    scene_streams,
    step_commands,
)
from module_patches.demo_world import MAIN_MAP, WORLD  # noqa: E402
from vassal_parser import commands  # noqa: E402
from vassal_parser.writer import write_game_file  # noqa: E402

DEMO = PROJECT / "module_patches" / "demo"
MODULE = DEMO / "adjutant-demo.vmod"
PACK = DEMO / "pack"
FIRST_PADDING_ID = 1_900_000_000_000


def story_steps() -> tuple[str, list[list[str]]]:
    """(the first scene's save stream, the story's steps as command texts): the eight steps of
    `story.vlog`, then the step from the last scene back to the first, which closes the cycle."""
    streams = scene_streams(WORLD())
    pieces = [_pieces_of(stream) for _scene, stream in streams]
    steps = [step_commands(pieces[n - 1], pieces[n], streams[n][0]) for n in range(1, len(streams))]
    steps.append(step_commands(pieces[-1], pieces[0], streams[0][0]))
    return streams[0][1], steps


def long_log_stream(steps: int, pieces: int, marker_steps: int = 0) -> str:
    """The command stream of a log of `steps` replay steps over about `pieces` pieces; with
    `marker_steps`, each story step is followed by that many steps moving one padding marker (a
    piece the pack does not map) and saying so in the chat, as most steps of a real log do."""
    start, cycle = story_steps()
    tree = commands.decode_stream(start)
    group = next(child for child in tree.children if isinstance(child, commands.CommandGroup))
    existing = sum(1 for child in group.children
                   if isinstance(child, commands.Command) and child.kind == "add_piece")
    padding = []
    for n in range(max(0, pieces - existing)):
        type_string, state_string = type_and_state(
            [("mark;Class", "Spare")], f"piece;;;spare.svg;Spare marker {n % 50}",
            basic_state(MAIN_MAP, 40 + (n % 80) * 9, 40 + (n // 80) * 9, ""))
        padding.append(commands.add_piece_command(str(FIRST_PADDING_ID + n), type_string, state_string))
    group.children[1:1] = padding
    story = 0
    for n in range(steps):
        if marker_steps and padding and n % (marker_steps + 1):
            marker = (n * 7919) % len(padding)
            x, y = 40 + (marker % 80) * 9 + (n % 3) * 3, 40 + (marker // 80) * 9
            texts = ["CHAT<Axis player> - tidying the markers",
                     commands.move_piece_command(str(FIRST_PADDING_ID + marker), MAIN_MAP, x, y,
                                                 MAIN_MAP, 0, 0,
                                                 player_id="demo-axis").text]
        else:
            texts = cycle[story % len(cycle)]
            story += 1
        tree.children.append(commands.CommandGroup([commands.leaf_command("LOG\t" + t) for t in texts]))
    return commands.encode_stream(tree)


def write_long_log(path: Path, steps: int, pieces: int = 2000, marker_steps: int = 0) -> Path:
    """Write the log with the project's writer and the demo module's metadata."""
    world = WORLD()
    return write_game_file(path, long_log_stream(steps, pieces, marker_steps),
                           module_metadata=moduledata_xml(world),
                           comment=f"benchmark: the demo story repeated, {steps} steps",
                           module_version=world.module["version"],
                           vassal_version=world.module["vassal_version"], key=FIXED_KEY, ensure=False)


def timeline_argv(log: Path, report: str = "--timeline") -> list[str]:
    return [sys.executable, "-m", "bridge", "check", str(log), "--module", str(MODULE), "--pack", str(PACK),
            report, "--format", "json"]


def timed_run(log: Path, report: str = "--timeline") -> float:
    """Wall seconds of one whole `check --timeline` (or `--audit`) process (exit 0, 1 or 3 are all
    plans)."""
    started = time.perf_counter()
    done = subprocess.run(timeline_argv(log, report), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          cwd=PROJECT, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1, 3):
        raise SystemExit(f"check {report} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    return elapsed


def daemon_replays(logs: dict[int, Path], runs: int) -> dict[str, dict[int, list[float]]]:
    """Seconds of each way of replaying each log, in this process (module and pack loaded once)."""
    from bridge.pipeline import CheckPipeline
    from bridge.reports.step_plans import replay_plans

    pipeline = CheckPipeline(DEMO / "adjutant-demo.vmod", DEMO / "pack")
    pipeline.warm_up()
    ways = {"replay_plans": lambda log: list(replay_plans(pipeline, log)),
            "plan_steps (whole)": lambda log: [(step, done.plan) for step, done in pipeline.plan_steps(log)]}
    times: dict[str, dict[int, list[float]]] = {name: {size: [] for size in logs} for name in ways}
    for _run in range(runs):
        for size, log in logs.items():
            for name, replay in ways.items():
                started = time.perf_counter()
                replay(log)
                times[name][size].append(time.perf_counter() - started)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="400,1600", help="steps of each log, comma-separated")
    parser.add_argument("--pieces", type=int, default=2000, help="pieces of each log (default 2000)")
    parser.add_argument("--runs", type=int, default=3, help="runs per size, interleaved (default 3)")
    parser.add_argument("--write", type=Path, help="only write one log to this path (with --steps)")
    parser.add_argument("--steps", type=int, default=1600, help="steps of the log --write writes")
    parser.add_argument("--daemon-replay", action="store_true",
                        help="time the daemon's replay of each log instead, in-process (see above)")
    parser.add_argument("--audit", action="store_true",
                        help="time check --audit beside check --timeline on each log (see above)")
    args = parser.parse_args()
    if args.write:
        print(write_long_log(args.write, args.steps, args.pieces))
        return 0
    if args.daemon_replay:
        return print_daemon_replays(args)
    if args.audit:
        return print_audit_times(args)
    sizes = [int(size) for size in args.sizes.split(",") if size.strip()]
    load_before = " ".join(f"{v:.2f}" for v in os.getloadavg())
    with tempfile.TemporaryDirectory(prefix="adjutant-long-log-") as scratch:
        logs = {size: write_long_log(Path(scratch, f"long-{size}.vlog"), size, args.pieces) for size in sizes}
        times: dict[int, list[float]] = {size: [] for size in sizes}
        for _run in range(args.runs):
            for size in sizes:
                times[size].append(timed_run(logs[size]))
    load_after = " ".join(f"{v:.2f}" for v in os.getloadavg())
    print(f"check --timeline, whole process, {args.pieces} pieces, {args.runs} runs per size interleaved; "
          f"load average before {load_before}, after {load_after}")
    for size in sizes:
        print(f"  {size:6d} steps: median {statistics.median(times[size]):6.2f} s  "
              f"(min {min(times[size]):.2f}, max {max(times[size]):.2f})")
    if len(sizes) > 1:
        small, large = min(sizes), max(sizes)
        ratio = statistics.median(times[large]) / statistics.median(times[small])
        print(f"  growth {large}/{small} steps ({large / small:.1f}x the steps): {ratio:.2f}x the time")
    return 0


def print_audit_times(args: argparse.Namespace) -> int:
    sizes = [int(size) for size in args.sizes.split(",") if size.strip()]
    load_before = " ".join(f"{v:.2f}" for v in os.getloadavg())
    reports = ("--timeline", "--audit")
    with tempfile.TemporaryDirectory(prefix="adjutant-long-log-") as scratch:
        logs = {size: write_long_log(Path(scratch, f"long-{size}.vlog"), size, args.pieces) for size in sizes}
        times = {(size, report): [] for size in sizes for report in reports}
        for _run in range(args.runs):
            for size in sizes:
                for report in reports:
                    times[size, report].append(timed_run(logs[size], report))
    load_after = " ".join(f"{v:.2f}" for v in os.getloadavg())
    print(f"check --audit beside --timeline, whole processes, {args.pieces} pieces, {args.runs} runs "
          f"interleaved; load average before {load_before}, after {load_after}")
    for size in sizes:
        medians = {report: statistics.median(times[size, report]) for report in reports}
        for report in reports:
            print(f"  {size:6d} steps {report:10s}: median {medians[report]:6.2f} s  "
                  f"(min {min(times[size, report]):.2f}, max {max(times[size, report]):.2f})")
        ratio = medians["--audit"] / medians["--timeline"]
        print(f"  {size:6d} steps: the audit takes {ratio:.2f}x the timeline's time (target: at most 2x)")
    return 0


def print_daemon_replays(args: argparse.Namespace) -> int:
    sizes = [int(size) for size in args.sizes.split(",") if size.strip()]
    load_before = " ".join(f"{v:.2f}" for v in os.getloadavg())
    with tempfile.TemporaryDirectory(prefix="adjutant-long-log-") as scratch:
        logs = {size: write_long_log(Path(scratch, f"long-{size}.vlog"), size, args.pieces) for size in sizes}
        times = daemon_replays(logs, args.runs)
    load_after = " ".join(f"{v:.2f}" for v in os.getloadavg())
    print(f"the daemon's replay, in-process, {args.pieces} pieces, {args.runs} runs interleaved; "
          f"load average before {load_before}, after {load_after}")
    for name, by_size in times.items():
        for size in sizes:
            print(f"  {name:20s} {size:6d} steps: median {statistics.median(by_size[size]):6.2f} s  "
                  f"(min {min(by_size[size]):.2f}, max {max(by_size[size]):.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
