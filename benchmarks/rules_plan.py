"""Rules-engine benchmark: how long `plan` takes on a large synthetic position and on the examples.

Why a script and not a timed test: speed depends on the machine; tests assert behaviour, this prints
figures (median of several runs) for docs/engine-api.md.

Run:  .venv/bin/python benchmarks/rules_plan.py [--runs 5] [--hexes 3000] [--counters 1000]

The synthetic pack is the rules tests' small TK map (tests/rules/packs/mini: the real TK events, order,
cards and areas) plus `--hexes` generated hexes spread over its countries (every 7th a City), and the
position puts `--counters` ground units of Germany, its Minor allies and the Allied countries on them.
Each faction's Conditional Events Segment (6.2) is planned separately, as a turn would.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_ROOT))

from rules.combined import plan_combined  # noqa: E402
from rules.engine import plan  # noqa: E402
from rules.packs import Pack, load_pack  # noqa: E402
from rules.state import GameState  # noqa: E402
from tests.rules.builder import MINI_PACK_DIR  # noqa: E402
from vassal_parser.errors import InputError  # noqa: E402

EXAMPLES = PROJECT_ROOT / "examples"
# country -> faction in the synthetic position (the Minor Countries the TK events look at).
SIDES = {
    "Germany": "Axis",
    "Italy": "Axis",
    "Hungary": "Axis",
    "Rumania": "Axis",
    "Britain": "Western",
    "France": "Western",
    "Poland": "Western",
    "Norway": "Western",
    "Belgium-Holland": "Western",
    "Spain": "Western",
    "Russia": "Soviet",
    "Finland": "Soviet",
}


def synthetic_pack(folder: Path, hexes: int, seed: int) -> Pack:
    """The mini TK pack plus `hexes` generated hexes, chained by adjacency, over the SIDES countries."""
    for source in MINI_PACK_DIR.glob("*.toml"):
        shutil.copy(source, folder / source.name)
    rng = random.Random(seed)
    countries = sorted(SIDES)
    lines = []
    for index in range(hexes):
        hex_id = f"x{index:05d}"
        country = countries[rng.randrange(len(countries))]
        lines.append(f"[hexes.{hex_id}]")
        lines.append(f'country = "{country}"')
        if index % 7 == 0:
            lines.append("city = true")
        if index:
            lines.append(f'adjacent = ["x{index - 1:05d}"]')
    (folder / "zz_synthetic.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return load_pack(folder)


def synthetic_position(pack: Pack, phasing: str, counters: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    generated = sorted(h for h in pack.hexes if h.startswith("x"))
    nationalities = sorted(SIDES)
    units = []
    for index in range(counters):
        nationality = nationalities[rng.randrange(len(nationalities))]
        units.append(
            {
                "id": f"u{index:05d}",
                "nationality": nationality,
                "kind": "ground",
                "location": generated[rng.randrange(len(generated))],
                "steps": rng.choice((1, 1, 2, 3)),
            }
        )
    return {
        "pack": "synthetic",
        "turn": {"date": "1941-06", "phasing": phasing, "war_state": "Limited War"},
        "countries": {name: {"faction": faction, "status": "active"} for name, faction in SIDES.items()},
        "counters": units,
    }


def answer_everything(state: GameState, pack: Pack) -> dict[str, Any]:
    """Answer each pending choice with its first legal option until nothing waits, so the timed plan
    checks every event of the segment (an unanswered choice would leave the later ones `waiting`)."""
    answers: dict[str, Any] = {}
    for _ in range(40):
        try:
            pending = [c for c in plan(state, pack, answers).pending_choices if c.id not in answers]
        except InputError as error:  # a `multiple` choice wants a list: answer it with a one-item list
            wrong = next(k for k in answers if k in str(error) and not isinstance(answers[k], list))
            answers[wrong] = [answers[wrong]]
            continue
        if not pending:
            break
        for choice in pending:
            answers[choice.id] = choice.options[0]["value"]
    return answers


def median_seconds(run: Callable[[], object], runs: int) -> float:
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        timings.append(time.perf_counter() - start)
    return statistics.median(timings)


def example_cases() -> list[tuple[str, Callable[[], object]]]:
    """The worked examples as `adjutant plan` runs them (answers included where the example has them)."""
    cases: list[tuple[str, Callable[[], object]]] = []
    tk, ds = load_pack("tk"), load_pack("ds")
    for position_file in sorted((EXAMPLES / "tk").glob("*.position.json")):
        data = json.loads(position_file.read_text(encoding="utf-8"))
        answers_file = position_file.with_name(position_file.name.replace(".position.", ".answers."))
        answers = json.loads(answers_file.read_text(encoding="utf-8")) if answers_file.exists() else {}
        state = GameState.from_json(data, source=position_file)
        cases.append((f"tk/{position_file.name}", lambda s=state, a=answers: plan(s, tk, a)))
    garrison = EXAMPLES / "ds" / "garrison_e5201.json"
    state = GameState.from_json(json.loads(garrison.read_text(encoding="utf-8")), source=garrison)
    answers = json.loads((EXAMPLES / "ds" / "garrison_e5201.answers.json").read_text(encoding="utf-8"))
    cases.append(("ds/garrison_e5201.json", lambda: plan(state, ds, answers)))
    combined = json.loads((EXAMPLES / "ds" / "combined_axis_turn.json").read_text(encoding="utf-8"))
    cases.append(("ds/combined_axis_turn.json (TK+DS)", lambda: plan_combined(combined, tk, ds)))
    return cases


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--hexes", type=int, default=3000)
    parser.add_argument("--counters", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1940)
    args = parser.parse_args(argv)
    rows: list[tuple[str, str, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        pack = synthetic_pack(Path(tmp), args.hexes, args.seed)
        rows.append(("synthetic pack load", f"{len(pack.hexes)} hexes", time.perf_counter() - start))
        for phasing in ("Axis", "Western", "Soviet"):
            data = synthetic_position(pack, phasing, args.counters, args.seed)
            state = GameState.from_json(data, source="synthetic")
            answers = answer_everything(state, pack)
            result = plan(state, pack, answers)  # warm-up, and the shape of what is timed
            checked = sum(e.status != "waiting" for e in result.events)
            size = (
                f"{len(pack.hexes)} hexes, {len(state.counters)} counters, {checked}/{len(result.events)} "
                f"events checked, {sum(len(e.steps) for e in result.events)} steps"
            )
            seconds = median_seconds(lambda s=state, a=answers: plan(s, pack, a), args.runs)
            rows.append((f"synthetic, {phasing} phasing", size, seconds))
    for name, run in example_cases():
        run()
        rows.append((name, "example", median_seconds(run, args.runs)))
    width = max(len(name) for name, _, _ in rows)
    print(f"{'case':<{width}}  {'median ms':>10}  size   (median of {args.runs} runs)")
    for name, size, seconds in rows:
        print(f"{name:<{width}}  {seconds * 1000:>10.1f}  {size}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
