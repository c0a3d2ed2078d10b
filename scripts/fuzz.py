"""Run the mutation fuzzer at length: `python scripts/fuzz.py --cases 20000`.

Seeds are the demo saves and module plus small corpus files (`ADJUTANT_SHARED`/corpus); each case
is a seeded mutation, run in a worker process under a hard time bound (tests/fuzz_engine.py).
Exit 0 when every case was read or refused with InputError within the bound, else 1.
`--repro SEED:CASE` writes that case's file to look at by hand.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.conftest import CORPUS_DIR  # noqa: E402
from tests.fuzz_engine import find_seeds, reproduce, run  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=20000)
    parser.add_argument("--bound", type=float, default=10.0, help="hard seconds per case (default 10)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--first-case", type=int, default=0, help="start at this case number per seed")
    parser.add_argument("--corpus-seeds", type=int, default=40, help="corpus files used as seeds")
    parser.add_argument("--repro", metavar="SEED:CASE", help="write one case to ./fuzz-case.* and stop")
    args = parser.parse_args()
    seeds = find_seeds(CORPUS_DIR if CORPUS_DIR.is_dir() else None, args.corpus_seeds)
    if args.repro:
        seed_index, case = (int(part) for part in args.repro.split(":"))
        print(reproduce(seeds, seed_index, case, Path("fuzz-case")))
        return 0
    print(f"fuzz: {len(seeds)} seeds, {args.cases} cases, bound {args.bound:g} s, {args.workers} workers",
          flush=True)
    report = run(seeds, args.cases, bound=args.bound, workers=args.workers, first_case=args.first_case,
                 progress=lambda r: print(f"  ... {r.cases} cases, {len(r.exceptions)} exceptions, "
                                          f"{len(r.over_bound)} over the bound, max {r.max_seconds:.2f} s",
                                          flush=True))
    print(report.summary(args.bound))
    for outcome in report.exceptions[:5]:
        print(f"\n{outcome.case}:\n{outcome.detail}")
    return 0 if not report.exceptions and not report.over_bound else 1


if __name__ == "__main__":
    raise SystemExit(main())
