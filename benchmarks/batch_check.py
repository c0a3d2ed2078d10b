"""Batch `adjutant check DIR` (issue 27): throughput on every core against one core.

The files: 40 demo-sized saves (the nine scenes of the demo story, 38 pieces each), every one with
its own piece ids, so no file's pieces are another's (the pipeline's memos cannot carry one file's
work to the next, as between the files of different games). Timed side by side, interleaved run
by run: the whole `adjutant check DIR --jobs 1` process and `--jobs N` (N = the cores), each
reporting its own time from the first of its processes having loaded the module and pack (the
first moment a file could be checked) to the last line (`ADJUTANT_BATCH_TIMING` makes it print
it on stderr), and the whole process's wall time. Throughput ratio = time with
one job / time with N jobs (target on 2 cores: at least 1.7x). Beside it, the machine's own
ceiling in the same minutes: a pure-Python loop run twice in one process against once in each of N
processes (on a machine other engineers share, the second core is often busy: the batch's
ratio cannot beat that one).

    .venv/bin/python benchmarks/batch_check.py [--files 40] [--runs 5]
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
from module_patches.demo_story import FIRST_PIECE_ID, FIXED_KEY, scene_streams  # noqa: E402
from module_patches.demo_world import WORLD  # noqa: E402
from vassal_parser.writer import write_game_file  # noqa: E402

DEMO = PROJECT / "module_patches" / "demo"
MODULE = DEMO / "adjutant-demo.vmod"
PACK = DEMO / "pack"


def write_files(folder: Path, count: int) -> list[Path]:
    """`count` saves of the demo story's scenes in turn, file n with its piece ids moved to n's own."""
    world = WORLD()
    streams = scene_streams(world)
    prefix = str(FIRST_PIECE_ID)[:9]  # every piece and stack id of the story starts so
    written = []
    for n in range(count):
        scene, stream = streams[n % len(streams)]
        own = f"{int(prefix) + 1 + n:09d}"
        written.append(write_game_file(
            folder / f"{n:02d}-{scene.file}.vsav", stream.replace(prefix, own),
            module_metadata=moduledata_xml(world), module_version=world.module["version"],
            vassal_version=world.module["vassal_version"], key=FIXED_KEY, ensure=False))
    return written


def timed(folder: Path, jobs: int) -> tuple[float, float]:
    """(wall seconds of the whole process, seconds from the pipeline loaded to the last line)."""
    argv = [sys.executable, "-m", "bridge", "check", str(folder), "--module", str(MODULE),
            "--pack", str(PACK), "--jobs", str(jobs)]
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, cwd=PROJECT, check=False,
                          env={**os.environ, "ADJUTANT_BATCH_TIMING": "1"})
    wall = time.perf_counter() - started
    if done.returncode not in (0, 1, 3):
        raise SystemExit(f"check failed ({done.returncode}): {done.stderr[-400:]}")
    inner = next(float(line.split()[-2]) for line in done.stderr.splitlines()
                 if line.startswith("batch timing"))
    return wall, inner


def _spin(count: int) -> int:
    total = 0
    for number in range(count):
        total += number * number
    return total


def ceiling(jobs: int, count: int = 2_000_000) -> float:
    """Seconds of `jobs` loops in one process / in `jobs` forked processes at once."""
    import multiprocessing

    started = time.perf_counter()
    for _ in range(jobs):
        _spin(count)
    alone = time.perf_counter() - started
    started = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        pool.map(_spin, [count] * jobs)
    return alone / (time.perf_counter() - started)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=40)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="the pool's size (default: the cores)")
    args = parser.parse_args()
    load_before = " ".join(f"{v:.2f}" for v in os.getloadavg())
    with tempfile.TemporaryDirectory(prefix="adjutant-batch-") as scratch:
        folder = Path(scratch)
        write_files(folder, args.files)
        results: dict[int, list[tuple[float, float]]] = {1: [], args.jobs: []}
        ceilings = []
        for _run in range(args.runs):
            for jobs in results:
                results[jobs].append(timed(folder, jobs))
            ceilings.append(ceiling(args.jobs))
    load_after = " ".join(f"{v:.2f}" for v in os.getloadavg())
    print(f"check of {args.files} demo-sized saves, {args.runs} runs interleaved, {os.cpu_count()} cores; "
          f"load average before {load_before}, after {load_after}")
    for jobs, rows in results.items():
        print(f"  --jobs {jobs}: checking median {statistics.median(r[1] for r in rows):.3f} s, "
              f"whole process median {statistics.median(r[0] for r in rows):.3f} s")
    ratios = [one[1] / many[1] for one, many in zip(results[1], results[args.jobs], strict=True)]
    whole = [one[0] / many[0] for one, many in zip(results[1], results[args.jobs], strict=True)]
    print(f"  throughput --jobs {args.jobs} / --jobs 1: checking {statistics.median(ratios):.2f}x "
          f"(per run: {', '.join(f'{r:.2f}' for r in ratios)}), "
          f"whole process {statistics.median(whole):.2f}x")
    print(f"  the machine's ceiling, {args.jobs} processes / 1: {statistics.median(ceilings):.2f}x "
          f"(per run: {', '.join(f'{r:.2f}' for r in ceilings)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
