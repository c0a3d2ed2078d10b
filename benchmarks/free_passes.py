"""What the floor ratio would be if some passes of the decode cost nothing (issue 27).

Why: Almoravid's decode is 3.2-3.9x its open in `benchmarks/parse.py`'s one-process table, and the
target is 2.5x. The passes over each distinct type chain (its split into levels, the `/` unescape of
its AddPiece) look like what a compiled core would take over. This measures, by the clock and in
the same process and order as `parse.py`, the ratio with those passes answered from a table filled
in an untimed decode before: the lower bound of what compiling them could give. The tables are
exact (the passes are pure functions of their arguments), so every run still decodes the same
pieces and fields; `tests/parser/test_free_passes_benchmark.py` checks that.

Run:  .venv/bin/python benchmarks/free_passes.py [--runs 7] [--rounds 3]
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_ROOT))

from benchmarks.parse import CORPUS_DIR, FILES, build_file_for, floor_run  # noqa: E402

# The passes, by module and function name, that the decode reaches through module globals.
CHAIN_SPLITS = ("traits._split_levels_and_tail", "traits._split_levels", "traits._split_levels_slowly")
SLASH_UNESCAPE = ("commands._unescaped_type",)
SETTINGS: dict[str, tuple[str, ...]] = {
    "as it is": (),
    "chain splits free": CHAIN_SPLITS,
    "/ unescape free": SLASH_UNESCAPE,
    "chain splits and / unescape free": CHAIN_SPLITS + SLASH_UNESCAPE,
}


def _answered_from_a_table(function: Callable[..., object]) -> Callable[..., object]:
    answers: dict[tuple, object] = {}

    def table_first(*arguments: object) -> object:
        found = answers.get(arguments, answers)
        if found is answers:
            found = answers[arguments] = function(*arguments)
        return found

    return table_first


@contextmanager
def passes_free(names: tuple[str, ...]) -> Iterator[None]:
    """Within the block each named function answers from a table of its earlier answers (kept
    across `forget_shared_traits`, which the timed runs call), and is itself again after it."""
    originals: list[tuple[object, str, object]] = []
    try:
        for name in names:
            module_name, function_name = name.split(".")
            module = importlib.import_module(f"vassal_parser.{module_name}")
            original = getattr(module, function_name)
            originals.append((module, function_name, original))
            setattr(module, function_name, _answered_from_a_table(original))
        yield
    finally:
        for module, function_name, original in originals:
            setattr(module, function_name, original)


def ratios(runs: int, names: tuple[str, ...]) -> dict[str, dict[str, float]]:
    """Median decode/open ratio and decode seconds of each floor save, files in `parse.py`'s order;
    with `names` free, one untimed run per file fills their tables first."""
    from vassal_parser.module import load_module

    result: dict[str, dict[str, float]] = {}
    with passes_free(names):
        for relative in FILES[:3]:
            path = CORPUS_DIR / relative
            build = build_file_for(path)
            if not path.exists() or build is None:
                continue
            module = load_module(build)
            floor_run(path, module)  # untimed: fills the tables (and warms what parse.py's first run does)
            measured = [floor_run(path, module) for _ in range(runs)]
            result[relative] = {
                "ratio": statistics.median(m["decode"] / m["open"] for m in measured),
                "decode": statistics.median(m["decode"] for m in measured),
                "pieces": measured[0]["pieces"], "traits": measured[0]["traits"],
            }
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=3, help="settings alternate, round by round")
    args = parser.parse_args()
    if not (CORPUS_DIR / FILES[2]).exists():
        print(f"skipped: the corpus saves are not at {CORPUS_DIR} (set ADJUTANT_SHARED)")
        return 0
    print(f"floor ratio with passes answered from a table (median of {args.runs} a round; one process, "
          f"files in parse.py's order; load {os.getloadavg()[0]:.2f})")
    print("| round | setting | " + " | ".join(Path(r).parent.name.split("__")[-1] for r in FILES[:3]) + " |")
    print("|---|---|" + "---|" * 3)
    for round_number in range(1, args.rounds + 1):
        for setting, names in SETTINGS.items():
            row = ratios(args.runs, names)
            cells = [f"{row[r]['ratio']:.2f}x ({1000 * row[r]['decode']:.0f} ms)" if r in row else "n/a"
                     for r in FILES[:3]]
            print(f"| {round_number} | {setting} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
