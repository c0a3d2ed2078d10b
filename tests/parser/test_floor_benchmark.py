"""benchmarks/parse.py's floor ratio (issue 27): the fresh-process table measures the same decode as
the one-process table, only in another process.

Why a test for a benchmark: the two tables are compared in the README as the same work under two
allocator states (page faults in the open); if the child decoded something else (another file, fewer
pieces, no trait fields), the comparison would be wrong without anything failing. No time is
asserted: figures belong to the benchmark.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ALMORAVID = "Cattlesquat__Almoravid/Scenario_D_Arrival_of_the_Africans.vsav"


def test_the_fresh_process_floor_decodes_what_the_one_process_floor_does(corpus_dir: Path) -> None:
    sys.path.insert(0, str(ROOT))
    from benchmarks import parse

    path = corpus_dir / ALMORAVID
    assert parse.build_file_for(path) is not None
    here = parse.floor_medians(path, 1)
    env = {**os.environ, "ADJUTANT_SHARED": str(corpus_dir.parent)}
    child = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "parse.py"), "--floor-one", str(path),
                            "--runs", "1"], capture_output=True, text=True, timeout=300, check=True, env=env)
    there = json.loads(child.stdout)
    # every piece located and every trait's fields read, in both (Almoravid: 589 pieces, 22,618 traits)
    assert (there["pieces"], there["traits"]) == (here["pieces"], here["traits"]) == (589, 22618)
    for measured in (here, there):
        assert measured["open"] > 0 and measured["decode"] > 0
        assert measured["open_faults"] >= 0 and measured["decode_faults"] >= 0
        assert measured["ratio"] == measured["decode"] / measured["open"]
    row = parse.floor_row(ALMORAVID, there)
    assert row.startswith(f"| {ALMORAVID} | ") and row.count("|") == parse.FLOOR_COLUMNS.count("|")
