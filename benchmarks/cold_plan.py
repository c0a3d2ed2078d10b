"""The daemon's first save, inside one process: what a cold plan of 5,000 never-seen pieces costs.

What is measured: `CheckPipeline.plan_file` of a `benchmarks/latency.py` save (the demo save padded
to 5,000 pieces) whose padding counters the pipeline has never seen, after `warm_up()` — the work
of the daemon's worker for the first save after start-up (issue 15), without the daemon around it.

Two measures:
  * time (default): `--runs` fresh processes, each warming up and planning one save of its own;
    CPU milliseconds of the plan and of its three phases (load: open, command tree, replay;
    position: every piece placed and located; plan: mapping, rules, insets, JSON). On a busy or
    shared machine the same work varies a lot between processes: read the minimum and the median.
  * `--instructions`: the same plan counted in machine instructions with valgrind (cachegrind,
    no cache simulation, PYTHONHASHSEED=0), as (warm-up + plan) minus (warm-up alone), both cut off
    where the worker would send the plan. Repeat runs agree within about 0.3%: the measure to
    compare two trees by. Needs `valgrind` on PATH; about a minute.

    .venv/bin/python benchmarks/cold_plan.py [--runs 9] [--instructions]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))
sys.path.insert(0, str(PROJECT / "benchmarks"))


def child(save: str, stage: str) -> None:
    """In a fresh process: warm up, then plan `save` (stage "plan"), or stop before it ("none");
    prints CPU ms of the phases. Warm-up without its time budgets, so that valgrind's slowness
    does not change what it does."""
    import gc

    from latency import MODULE, PACK

    import bridge.pipeline as pipeline_module
    from bridge.pipeline import CheckPipeline
    from vassal_parser.collector import collector_paused

    pipeline_module.WARM_READER_BUDGET_S = pipeline_module.WARM_SETUPS_BUDGET_S = 1e9
    pipeline = CheckPipeline(MODULE, str(PACK))
    pipeline.warm_up()
    gc.collect()
    gc.freeze()  # as the worker does (bridge/daemon/planner_process.py)
    with collector_paused():  # as the worker plans a save
        if stage == "plan":
            started = time.process_time()
            game, info = pipeline.load(save)
            loaded = time.process_time()
            pieces = game.position()
            placed = time.process_time()
            pipeline.plan_pieces(pieces, info, layout_for=game.layout)
            done = time.process_time()
            print(f"{1000 * (done - started):.1f} {1000 * (loaded - started):.1f} "
                  f"{1000 * (placed - loaded):.1f} {1000 * (done - placed):.1f}", flush=True)
        sys.stdout.flush()
        os._exit(0)  # what a worker does after sending is not counted (nor the collection)


def instructions(save: Path) -> int:
    def count(stage: str) -> int:
        done = subprocess.run(
            ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
             sys.executable, __file__, "--child", str(save), stage],
            capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"}, check=True)
        line = next(line for line in done.stderr.splitlines() if "I   refs:" in line)
        return int(line.rsplit(":", 1)[1].replace(",", ""))
    return count("plan") - count("none")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="fresh processes to time (default 9)")
    parser.add_argument("--instructions", action="store_true", help="count instructions with valgrind")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return 0
    from latency import MODULE, SOURCES, padded_save

    if not MODULE.exists():
        print(f"demo module missing at {MODULE}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="adjutant-cold-") as scratch:
        if args.instructions:
            if shutil.which("valgrind") is None:
                print("cold_plan.py: --instructions needs valgrind on PATH", file=sys.stderr)
                return 2
            folder = Path(scratch, "s")
            folder.mkdir()
            padded_save(SOURCES[0], folder, variant=1)
            print(f"cold plan: {instructions(folder / SOURCES[0].name) / 1e6:.0f} M instructions")
            return 0
        rows = []
        for run in range(args.runs):
            folder = Path(scratch, f"s{run}")
            folder.mkdir()
            padded_save(SOURCES[run % 2], folder, variant=run + 1)
            out = subprocess.run([sys.executable, __file__, "--child", str(folder / SOURCES[run % 2].name),
                                  "plan"], capture_output=True, text=True, check=True).stdout
            rows.append([float(value) for value in out.split()])
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"cold plan of a 5,000-piece save after warm_up(), {len(rows)} fresh processes, load {load}")
    for index, name in enumerate(("plan", "load", "position", "mapping+rules+insets")):
        column = [row[index] for row in rows]
        print(f"  {name:22s} CPU ms: min {min(column):6.1f}  median {statistics.median(column):6.1f}  "
              f"max {max(column):6.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
