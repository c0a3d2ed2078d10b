"""Issue 14: a seeded mutation fuzz run over the demo and corpus files, bounded for CI.

Asserts only what the project promises: every mutated file is read or refused with the
project's own `InputError`, and no case runs past a hard per-case bound (the worker running it
is killed and the case counted — no flaky timing assert). The run stops after
`ADJUTANT_FUZZ_BUDGET` seconds (default 30) or `ADJUTANT_FUZZ_CASES` cases (default 3000); the
long local run is `scripts/fuzz.py --cases 20000` (README, measured figures).
"""

from __future__ import annotations

import os

from tests.conftest import CORPUS_DIR
from tests.fuzz_engine import find_seeds, run

CASE_BOUND_S = 10.0


def test_mutated_files_give_input_error_or_success_within_the_bound() -> None:
    seeds = find_seeds(CORPUS_DIR if CORPUS_DIR.is_dir() else None, max_corpus=30)
    cases = int(os.environ.get("ADJUTANT_FUZZ_CASES", "3000"))
    budget = float(os.environ.get("ADJUTANT_FUZZ_BUDGET", "30"))
    # A different slice of cases each day keeps CI looking at new ones; the case names say which.
    first = int(os.environ.get("ADJUTANT_FUZZ_FIRST_CASE", "0"))
    report = run(seeds, cases, bound=CASE_BOUND_S, workers=2, budget=budget, first_case=first)
    summary = report.summary(CASE_BOUND_S)
    print(summary)
    assert report.cases >= min(cases, 20), summary  # it ran (a loaded machine runs fewer in the budget)
    assert not report.exceptions, summary
    assert not report.over_bound, summary
