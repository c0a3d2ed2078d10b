"""Start-up benchmark: how long `adjutant --help` (and friends) take as whole processes.

Why whole processes: what a user feels is the time from Enter to the prompt, interpreter start-up
included; a bare interpreter is measured beside it as the floor. Target: `adjutant --help` under
0.1 s. Why a script and not a timed test: the figure depends on the machine and its load.

Run:  .venv/bin/python benchmarks/startup.py [--runs 15]

Rows:
  bare interpreter        python -c pass (same venv: site-packages and the editable-install finder)
  bare, isolated          python -I -c pass (no site: the interpreter alone)
  adjutant --help         the installed console script
  adjutant --help (-I)    the same parser from the source tree without site (what a regular, non-
                          editable install costs, minus the editable finder's own start-up)
  adjutant check --help   imports only the check command's module
  adjutant --version
  adjutant check SAVE     the 38-piece demo save planned whole (issue 27: at most 4x the bare interpreter);
                          timed interleaved with the bare interpreter, run by run, and given as their ratio;
                          with the start-up caches warm (vassal_parser/user_cache.py: a folder of the
                          benchmark's own, filled by one untimed run), and cold (a new empty folder each
                          run: a user's very first check, or one after the module or pack changed)
It also lists which of the heavy modules (lxml, websockets, watchdog, the engine) `--help` imported:
none should be.
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

PROJECT_ROOT = Path(__file__).resolve().parents[1]
# Byte-code caches on, as a user's shell has them: a PYTHONDONTWRITEBYTECODE in the caller's
# environment (some sandboxes set it) would make every run compile every module from source
# (the demo check then costs 1.6 G instructions instead of 0.7 G) and measure the wrong thing.
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
HEAVY = ("lxml", "websockets", "watchdog", "asyncio", "rules.engine", "bridge.pipeline", "vassal_parser.game")


def timed(argv: list[str], runs: int, env: dict[str, str] | None = None) -> tuple[float, float]:
    """(median, best) wall-clock seconds of `runs` whole-process runs; output discarded."""
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(
            argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, cwd=PROJECT_ROOT,
            env=env or CHILD_ENV,
        )
        samples.append(time.perf_counter() - started)
    return statistics.median(samples), min(samples)


def heavy_imports(python: str) -> list[str]:
    code = (
        "import sys; from bridge.cli.main import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        f"print('\\n'.join(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)"
    )
    result = subprocess.run(
        [python, "-c", code], capture_output=True, text=True, cwd=PROJECT_ROOT, check=False
    )
    return [line for line in result.stderr.splitlines() if line]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    python = sys.executable
    script = shutil.which("adjutant", path=str(Path(python).parent)) or shutil.which("adjutant")
    isolated = [
        python,
        "-I",
        "-c",
        f"import sys; sys.path.insert(0, {str(PROJECT_ROOT)!r}); "
        "from bridge.cli.main import main; main(['--help'])",
    ]
    rows = [
        ("bare interpreter", [python, "-c", "pass"]),
        ("bare, isolated (-I)", [python, "-I", "-c", "pass"]),
        ("adjutant --help", [script, "--help"] if script else [python, "-m", "adjutant", "--help"]),
        ("adjutant --help (-I, source tree)", isolated),
        (
            "adjutant check --help",
            [script, "check", "--help"] if script else [python, "-m", "adjutant", "check", "--help"],
        ),
        ("adjutant --version", [script, "--version"] if script else [python, "-m", "adjutant", "--version"]),
    ]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"start-up, whole processes, median (best) of {args.runs} runs; load average {load:.1f}")
    for label, argv in rows:
        median, best = timed(argv, args.runs)
        print(f"  {label:<36} {median * 1000:6.0f} ms  ({best * 1000:.0f} ms)")
    demo = PROJECT_ROOT / "module_patches" / "demo"
    check = [script or python, *([] if script else ["-m", "adjutant"]), "check",
             str(demo / "saves" / "05-case-yellow.vsav"), "--module", str(demo / "adjutant-demo.vmod"),
             "--pack", str(demo / "pack")]
    with tempfile.TemporaryDirectory(prefix="adjutant-startup-") as scratch:
        warm = {**CHILD_ENV, "ADJUTANT_CACHE_DIR": str(Path(scratch) / "warm")}
        timed(check, 1, warm)  # once untimed: the byte-code and start-up caches a first run would lack
        for label, cold in (("warm caches", False), ("start-up caches cold", True)):
            ratios, checks = [], []
            for run in range(args.runs):  # side by side: each check beside a bare start just before it
                fresh = {**CHILD_ENV, "ADJUTANT_CACHE_DIR": str(Path(scratch) / f"cold-{run}")}
                env = fresh if cold else warm
                bare, _best = timed([python, "-c", "pass"], 1)
                took, _best = timed(check, 1, env)
                ratios.append(took / bare)
                checks.append(took)
            print(f"  {'check (demo save), ' + label:<36} {statistics.median(checks) * 1000:6.0f} ms  "
                  f"= {statistics.median(ratios):.1f}x the bare interpreter (median of {args.runs} pairs)")
    heavy = heavy_imports(python)
    print(f"heavy modules imported by --help: {', '.join(heavy) if heavy else 'none'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
