"""Full-decode benchmark of the VASSAL reader on the largest corpus saves and logs.

Why a script and not a timed test: speed depends on the machine; tests assert behaviour, this
prints figures (median of several runs, peak traced memory) for docs/vassal-reader.md.

Run:  .venv/bin/python benchmarks/parse.py [--runs 5]

Per file: open + de-obfuscate, decode the command tree, build every piece (LOG payloads too),
force the lazy trait decode and derived properties, re-encode stream and chains (checked
byte-identical), and, when `vassal_parser.game` exists, locate the pieces with the module.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_ROOT))

from tests.conftest import CORPUS_DIR  # noqa: E402  (shared/ is located like the tests do)
from vassal_parser.commands import decode_stream, encode_stream, iter_commands  # noqa: E402
from vassal_parser.container import open_container  # noqa: E402
from vassal_parser.pieces import Piece, make_piece  # noqa: E402
from vassal_parser.traits import encode_chain  # noqa: E402

FILES = (
    "Cattlesquat__PathsOfGlory/Historical10-8.vsav",
    "Cattlesquat__ForThePeople/1861-3-5.vsav",
    "Cattlesquat__Almoravid/Scenario_D_Arrival_of_the_Africans.vsav",
    "uckelman__tld-mod/game/0608-3.log",
    "uckelman__tld-mod/game/0610-1.log",
)


BUILD_NAMES = ("buildFile.xml", "buildFile")


def _add_pieces(node):
    """Every add-piece command, LOG payloads unwrapped in place (replay order)."""
    return (command for command in iter_commands(node, unwrap_log=True) if command.kind == "add_piece")


def full_decode(path: Path, reencode: bool = True) -> dict[str, float | int]:
    """One complete pass; returns counts and per-phase seconds.

    `reencode=False` stops after decoding (what pywargame's `vsavdump -d` does: decode and dump), so
    the side-by-side comparison times the same job; the byte-identity check is extra work of ours.
    """
    t0 = time.perf_counter()
    container = open_container(path)
    text = container.command_text()
    t1 = time.perf_counter()
    tree = decode_stream(text)
    t2 = time.perf_counter()
    pieces = traits = depth = 0
    for command in _add_pieces(tree):
        piece = make_piece(command.fields["id"], command.fields["type"], command.fields["state"])
        pieces += 1
        if isinstance(piece, Piece):
            chain = piece.traits
            traits += len(chain)
            depth = max(depth, len(chain))
            for trait in chain:
                _ = trait.fields
            piece.properties()
    t3 = time.perf_counter()
    same = encode_stream(tree) == text if reencode else False
    for command in _add_pieces(tree) if reencode else ():
        piece = make_piece(command.fields["id"], command.fields["type"], command.fields["state"])
        if isinstance(piece, Piece):
            type_string, state_string = encode_chain(piece.traits)
            same = same and type_string == piece.type_string()
            same = same and (state_string or "") == piece.state_string()
    t4 = time.perf_counter()
    return {
        "bytes": path.stat().st_size,
        "chars": len(text),
        "pieces": pieces,
        "traits": traits,
        "depth": depth,
        "identical": int(same),
        "open": t1 - t0,
        "tree": t2 - t1,
        "pieces_s": t3 - t2,
        "reencode": t4 - t3,
        "total": t4 - t0,
    }


def locate_with_game(path: Path) -> str:
    """Time `load_game` + `position()` when B's game layer and the module's build file exist."""
    if importlib.util.find_spec("vassal_parser.game") is None:
        return "n/a (vassal_parser.game not present)"
    candidates = [folder / name for folder in (path.parent, path.parent.parent) for name in BUILD_NAMES]
    build = next((candidate for candidate in candidates if candidate.exists()), None)
    if build is None:
        return "n/a (no build file beside it)"
    from vassal_parser.game import load_game
    from vassal_parser.module import load_module

    start = time.perf_counter()
    try:
        game = load_game(path, load_module(build))
        placed = game.position()
    except Exception as exc:  # report, do not hide: the benchmark must still print the rest
        return f"failed: {type(exc).__name__}: {exc}"[:80]
    return f"{len(placed)} located in {time.perf_counter() - start:.2f} s (module {build.name})"


def peak_memory_mb(path: Path) -> float:
    gc.collect()
    tracemalloc.start()
    full_decode(path)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 1024 / 1024


def find_pywargame_python(explicit: str | None) -> str | None:
    """pywargame does not import on Python 3.11, so the comparison runs it under another interpreter."""
    candidates = [explicit] if explicit else [os.environ.get("ADJUTANT_PYWARGAME_PYTHON"),
                                              shutil.which("python3.12"), shutil.which("python3.13")]
    for candidate in filter(None, candidates):
        probe = subprocess.run([candidate, "-c", "import pywargame.vassal.dumpvsav"], capture_output=True,
                               timeout=60, check=False)
        if probe.returncode == 0:
            return candidate
    return None


def process_seconds(command: list[str], runs: int) -> float:
    """Median wall time of a whole process (interpreter start included for both sides: same footing)."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=900, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def compare_with_pywargame(explicit: str | None, runs: int) -> None:
    """Side by side with pywargame's `vsavdump.py -d` (its full decode and dump), printed as a ratio."""
    other = find_pywargame_python(explicit)
    if other is None:
        print("pywargame comparison: skipped — no Python >= 3.12 with pywargame found "
              "(pass --pywargame-python or set ADJUTANT_PYWARGAME_PYTHON).")
        return
    dump = ("import sys; from pywargame.vassal.dumpvsav import dumpMain; "
            "sys.argv = ['vsavdump.py', '-d', sys.argv[1]]; sys.exit(dumpMain())")
    print()
    print(f"pywargame comparison (whole processes incl. interpreter start, median of {runs}; both decode "
          f"every command, piece and trait; pywargame under {other}):")
    print("| file | adjutant s | pywargame vsavdump -d s | ratio |")
    print("|---|---|---|---|")
    for relative in FILES:
        path = CORPUS_DIR / relative
        if not path.exists() or path.suffix not in (".vsav", ".sav"):
            continue  # vsavdump reads saves; the logs have no counterpart there
        ours = process_seconds([sys.executable, __file__, "--decode-only", str(path)], runs)
        try:
            theirs = process_seconds([other, "-c", dump, str(path)], runs)
        except subprocess.CalledProcessError as exc:
            print(f"| {relative} | {ours:.2f} | failed (exit {exc.returncode}) | - |")
            continue
        print(f"| {relative} | {ours:.2f} | {theirs:.2f} | {theirs / ours:.1f}x |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)  # child: one file, report max RSS
    parser.add_argument("--decode-only", type=Path, help=argparse.SUPPRESS)  # child: timed as a process
    parser.add_argument(
        "--pywargame-python",
        help="a Python >= 3.12 with pywargame installed (default: $ADJUTANT_PYWARGAME_PYTHON, "
        "else python3.12/python3.13 on PATH if one imports pywargame)",
    )
    args = parser.parse_args()
    if args.decode_only is not None:
        full_decode(args.decode_only, reencode=False)
        return 0
    if args.one is not None:
        full_decode(args.one)
        located = locate_with_game(args.one)
        print(f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB ({located})")
        return 0
    if not CORPUS_DIR.exists():
        print(f"corpus not found at {CORPUS_DIR}; set ADJUTANT_SHARED")
        return 1
    print(f"Python {sys.version.split()[0]}, median of {args.runs} runs, peak = tracemalloc peak of one run")
    header = (
        "| file | size KB | pieces | traits | max depth | open s | tree s | pieces+traits s "
        "| re-encode s | total s | peak MB | identical |"
    )
    print(header)
    print("|" + "---|" * 12)
    locations = []
    for relative in FILES:
        path = CORPUS_DIR / relative
        if not path.exists():
            print(f"| {relative} | missing |")
            continue
        runs = [full_decode(path) for _ in range(args.runs)]
        med = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
        peak = peak_memory_mb(path)
        print(
            f"| {relative} | {med['bytes'] / 1024:.0f} | {med['pieces']:.0f} | {med['traits']:.0f} "
            f"| {med['depth']:.0f} | {med['open']:.3f} | {med['tree']:.3f} | {med['pieces_s']:.3f} "
            f"| {med['reencode']:.3f} | {med['total']:.3f} | {peak:.1f} "
            f"| {'yes' if med['identical'] else 'NO'} |"
        )
        locations.append((relative, locate_with_game(path)))
    print()
    print(f"process max RSS (all files, one process): "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    largest = CORPUS_DIR / FILES[0]
    if largest.exists():  # the target is per save: a fresh process, one full decode + locate
        child = subprocess.run([sys.executable, __file__, "--one", str(largest)], capture_output=True,
                               text=True, timeout=600, check=False)
        print(f"fresh process, full decode + locate of {FILES[0]}: max RSS "
              f"{child.stdout.strip() or child.stderr.strip()[-200:]}")
    for relative, result in locations:
        print(f"locations ({relative}): {result}")
    compare_with_pywargame(args.pywargame_python, args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
