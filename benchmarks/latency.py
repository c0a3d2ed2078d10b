"""Save-to-overlay latency of `adjutant watch`, on a 5,000-piece save, with the real pipeline.

What is timed: from the moment the last byte of a save has been written (file closed, written in
place the way VASSAL 3.5+ does, spec §8.3) to the moment a WebSocket client receives the overlay
message carrying that save's plan. Included: the debounce, the stable-file check, reading and
replaying the save, mapping, the rules engine, and the protocol. The daemon runs as the real
command (`python -m bridge watch`) in its own process; this process only writes and listens.

The two saves are demo saves (module_patches/demo) padded to 5,000 pieces with extra counters the
pack does not map; rewrites alternate between them so every write changes the plan.

    .venv/bin/python benchmarks/latency.py [--saves 100] [--budget 120] [--gap 0.25] [--existing]
        [--repeat 3]

Targets (docs/protocol.md): p50 < 150 ms, p99 < 400 ms; issue 15: warm p99 < 150 ms, and the first
save after start-up within 100 ms.

Bounded: at most --saves saves and --budget seconds per round, then the daemon is stopped. The daemon starts
on an empty folder, so its first save of each of the two games is read with empty memos (cold);
the figures are printed over all saves and, separately, without those first two. The load
average is printed before and after: other processes on the machine move every figure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import selectors
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from module_patches.demo_pieces import basic_state, type_and_state  # noqa: E402
from module_patches.demo_world import MAIN_MAP  # noqa: E402
from vassal_parser import commands  # noqa: E402
from vassal_parser.writer import write_game_file  # noqa: E402

DEMO = PROJECT / "module_patches" / "demo"
MODULE = DEMO / "adjutant-demo.vmod"
PACK = DEMO / "pack"
SOURCES = (DEMO / "saves" / "02-poland-falls.vsav", DEMO / "saves" / "05-case-yellow.vsav")
TARGET_PIECES = 5000
FIRST_PADDING_ID = 1_800_000_000_000


def _deobfuscate(data: bytes) -> str:
    if not data.startswith(b"!VCSK"):
        return data.decode("utf-8")
    raw = bytes.fromhex(data[5:].decode("ascii"))
    return bytes(b ^ raw[0] for b in raw[1:]).decode("utf-8")


def padded_save(source: Path, folder: Path, variant: int = 0) -> tuple[bytes, str, int]:
    """The source save with extra unmapped counters up to TARGET_PIECES; returns bytes, turn, pieces.
    A `variant` other than 0 names its counters and shifts them so that none is one of another
    variant's (benchmarks/cold_plan.py: saves whose pieces a pipeline has never seen)."""
    with zipfile.ZipFile(source) as archive:
        tree = commands.decode_stream(_deobfuscate(archive.read("savedGame")))
        moduledata = archive.read("moduledata")
    group = next(child for child in tree.children if isinstance(child, commands.CommandGroup))
    existing = sum(
        1 for child in group.children if isinstance(child, commands.Command) and child.kind == "add_piece"
    )
    padding = []
    for n in range(TARGET_PIECES - existing):
        type_string, state_string = type_and_state(
            [("mark;Class", "Spare")],
            f"piece;;;spare.svg;Spare marker {n % 50}" + (f" v{variant}" if variant else ""),
            basic_state(MAIN_MAP, 40 + (n % 80) * 9 + variant % 5, 40 + (n // 80) * 9 + variant // 5 % 5, ""),
        )
        padding.append(commands.add_piece_command(str(FIRST_PADDING_ID + n), type_string, state_string))
    group.children[1:1] = padding
    path = write_game_file(
        folder / source.name, tree, module_metadata=moduledata, ensure=False, comment=f"bench {source.stem}"
    )
    return path.read_bytes(), source.stem, existing + len(padding)


async def measure(
    port: int, token: str, target: Path, saves: list[tuple[bytes, str]], count: int, budget: float,
    gap: float,
    settled_turn: str | None = None,
) -> list[float]:
    """Time `count` saves; with `settled_turn`, first wait until the daemon shows the plan of the save
    that was in the folder when it started (its start-up plan), so no timed save includes it."""
    from websockets.asyncio.client import connect

    latencies: list[float] = []
    deadline = time.monotonic() + budget
    async with connect(f"ws://127.0.0.1:{port}/ws?view=stream&token={token}", max_size=None) as ws:
        message = json.loads(await ws.recv())  # snapshot
        shown = ((message.get("state") or message.get("set") or {}).get("plan") or {}).get("turn")
        while settled_turn is not None and shown != settled_turn:
            message = json.loads(await asyncio.wait_for(ws.recv(), 120))
            shown = ((message.get("set") or message.get("state") or {}).get("plan") or {}).get("turn")
        for n in range(count):
            if time.monotonic() > deadline:
                break
            data, turn = saves[n % len(saves)]
            with open(target, "wb") as handle:  # in place, like VASSAL 3.5+
                handle.write(data)
            written = time.perf_counter()
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), 30))
                plan = (message.get("set") or {}).get("plan")
                if plan and plan.get("turn") == turn:
                    break
            latencies.append(time.perf_counter() - written)
            await asyncio.sleep(gap)
    return latencies


def container_planner(path: Path, answers: object) -> dict:
    """The daemon's overhead alone: read and decode the save with the real container reader, no rules."""
    from vassal_parser.container import open_container

    container = open_container(path)
    text = container.command_text()
    comment = container.metadata_entries.get("savedata", {}).get("description", "")
    return {"turn": comment, "events": [], "characters": len(text)}


def serve_container(folder: Path) -> None:
    """`--serve-container`: the daemon with `container_planner`, in this (child) process."""
    from bridge.cli.commands.watch import serve_until_signal
    from bridge.daemon.watch import WatchDaemon

    daemon = WatchDaemon(
        folder, container_planner, port=0, log_line=lambda line: print(f"adjutant watch: {line}")
    )
    asyncio.run(serve_until_signal(daemon, lambda line: print(f"adjutant watch: {line}", flush=True)))


def _daemon_port(daemon: subprocess.Popen, timeout: float) -> tuple[int, str]:
    """The port and the stream URL's token from the daemon's lines ("stream (OBS browser source):
    http://127.0.0.1:PORT/?view=stream&token=T", bridge/web/access.py); gives up after `timeout` seconds or
    when the daemon exits, so the benchmark always stops by itself."""
    # Read from the pipe itself, not line by line through the text wrapper: the daemon prints its
    # URLs at once, and a `readline` would keep the stream's line in the wrapper's buffer, where
    # `select` cannot see it (the benchmark then waited the whole timeout).
    deadline = time.monotonic() + timeout
    fd = daemon.stdout.fileno()
    pending = ""
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while time.monotonic() < deadline:
            if not selector.select(max(0.0, deadline - time.monotonic())):
                break
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise SystemExit(f"the daemon exited (status {daemon.wait()}) before listening")
            *lines, pending = (pending + chunk.decode("utf-8", "replace")).split("\n")
            for line in lines:
                if "stream (" in line and "token=" in line:
                    url = line.split(": ", 2)[-1].strip()
                    return int(url.split("/")[2].rsplit(":", 1)[1]), url.rsplit("token=", 1)[1]
    raise SystemExit(f"the daemon did not start listening within {timeout:.0f} s")


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=100, help="number of saves to time (default 100)")
    parser.add_argument("--budget", type=float, default=120.0, help="stop after this many seconds")
    parser.add_argument("--gap", type=float, default=0.25, help="seconds between saves")
    parser.add_argument(
        "--planner",
        choices=("pipeline", "container"),
        default="pipeline",
        help="pipeline: the real CheckPipeline (default); container: read+decode only (daemon overhead)",
    )
    parser.add_argument(
        "--existing", action="store_true",
        help="start the daemon on a folder that already holds the game's previous save (as a real game "
             "folder does): it is planned at start-up, and the first timed save is the next one")
    parser.add_argument(
        "--repeat", type=int, default=1,
        help="rounds, each a fresh daemon on a fresh folder (the first save after start-up is one "
             "figure a round: its median over the rounds is printed)")
    parser.add_argument("--serve-container", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.serve_container:
        serve_container(args.serve_container)
        return 0
    if not MODULE.exists():
        print(f"demo module missing at {MODULE}", file=sys.stderr)
        return 2

    load_before = _load_average()
    with tempfile.TemporaryDirectory(prefix="adjutant-latency-") as scratch:
        staging = Path(scratch, "staging")
        staging.mkdir()
        built = [padded_save(source, staging) for source in SOURCES]
        from bridge.pipeline import CheckPipeline  # the planner alone, for context

        pipeline = CheckPipeline(MODULE, str(PACK))
        turns = []
        plan_ms = []
        for source in SOURCES:
            started = time.perf_counter()
            turns.append(pipeline.plan_file(staging / source.name).plan["turn"])
            plan_ms.append((time.perf_counter() - started) * 1000)
        warm_ms = []
        for source in SOURCES:
            started = time.perf_counter()
            pipeline.plan_file(staging / source.name)
            warm_ms.append((time.perf_counter() - started) * 1000)
        if args.planner == "container":
            turns = [f"bench {source.stem}" for source in SOURCES]

        def command_for(folder: Path) -> list[str]:
            if args.planner == "container":
                return [sys.executable, str(Path(__file__).resolve()), "--serve-container", str(folder)]
            return [sys.executable, "-m", "bridge", "watch", str(folder), "--module", str(MODULE),
                    "--pack", str(PACK), "--port", "0"]

        saves = [(data, turn) for (data, _, _), turn in zip(built, turns, strict=True)]
        rounds = []
        for round_number in range(args.repeat):
            folder = Path(scratch, f"watched-{round_number}")  # a fresh game folder each round
            folder.mkdir()
            rounds.append(run_daemon(command_for(folder), folder, saves, args))

    sizes = [len(data) for data, _, _ in built]
    pieces = [count for _, _, count in built]
    print(f"planner: {args.planner}; pieces per save: {pieces}; sizes: {sizes} bytes")
    print(f"load average before: {load_before}, after: {_load_average()}")
    print(f"pipeline alone (in-process, first call each): {', '.join(f'{v:.0f}' for v in plan_ms)} ms; "
          f"again (memos warm): {', '.join(f'{v:.0f}' for v in warm_ms)} ms")
    state = "start-up plan of the folder's save done first" if args.existing else "daemon memos cold"
    for number, latencies in enumerate(rounds, 1):
        ms = [value * 1000 for value in latencies]
        label = f"round {number}: " if len(rounds) > 1 else ""
        print(f"{label}saves timed: {len(ms)}")
        if not ms:
            print("no save was timed (budget too small?)")
            return 1
        print(f"{label}first two saves ({state}): {', '.join(f'{v:.0f}' for v in ms[:2])} ms")
        print(f"{label}latency ms, all saves: {_summary(ms)}")
        if len(ms) > 2:
            print(f"{label}latency ms, without the first two: {_summary(ms[2:])}")
    if len(rounds) > 1:
        firsts = [latencies[0] * 1000 for latencies in rounds if latencies]
        later = [value * 1000 for latencies in rounds for value in latencies[2:]]
        median = statistics.median(firsts)
        rest = f"; without the first two: {_summary(later)}" if later else ""
        print(f"over {len(rounds)} rounds: first save after start-up, median {median:.0f} ms "
              f"({', '.join(f'{v:.0f}' for v in firsts)}){rest}")
    return 0


def run_daemon(command: list[str], watched: Path, saves: list[tuple[bytes, str]],
               args: argparse.Namespace) -> list[float]:
    """One round: a fresh `adjutant watch` on `watched`, `args.saves` saves timed, then stopped."""
    settled_turn = None
    if args.existing:
        # The previous save of the game is in the folder before the daemon starts; timing starts
        # with the other one.
        (watched / "game.vsav").write_bytes(saves[-1][0])
        settled_turn = saves[-1][1]
    drain: threading.Thread | None = None
    daemon = subprocess.Popen(
        command,
        cwd=PROJECT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        port, token = _daemon_port(daemon, timeout=60)
        # Keep reading its log lines: a full pipe would block the daemon mid-benchmark.
        drain = threading.Thread(target=lambda: [None for _ in daemon.stdout], daemon=True)
        drain.start()
        return asyncio.run(
            measure(port, token, watched / "game.vsav", saves, args.saves, args.budget, args.gap,
                    settled_turn)
        )
    finally:
        daemon.terminate()
        daemon.wait(timeout=15)
        if drain is not None:
            drain.join(timeout=5)  # ends at the pipe's end of file, now the daemon is gone
        daemon.stdout.close()


def _summary(ms: list[float]) -> str:
    return (f"p50 {percentile(ms, 0.5):.0f}, p90 {percentile(ms, 0.9):.0f}, p99 {percentile(ms, 0.99):.0f}, "
            f"mean {statistics.fmean(ms):.0f}, max {max(ms):.0f}")


def _load_average() -> str:
    try:
        return " ".join(f"{value:.2f}" for value in os.getloadavg())
    except OSError:
        return "unknown"


if __name__ == "__main__":
    raise SystemExit(main())
