"""AWAW rule 60 benchmark: a Russian surrender planned on a map the size of the real one.

Why: the supply traces (60.41, 60.44) and repatriations walk the whole hex graph; this prints how long a
whole surrender takes (median of several runs) on a synthetic board of `--rows` x `--columns` land hexes in
the module's numbering, Russia east of column `--front`, Germany west of it, with `--units` Russian units
(every tenth in a Western Allied hex, to be repatriated) and a cut-off pocket.

Run:  .venv/bin/python benchmarks/awaw_plan.py [--runs 5] [--rows 40] [--columns 75] [--units 300]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_ROOT))

from rules.engine import plan  # noqa: E402
from rules.packs import PACKS_DIR, load_pack  # noqa: E402
from rules.state import GameState  # noqa: E402

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def hex_id(row: int, number: int) -> str:
    return LETTERS[row % 26] * (row // 26 + 1) + f"{number:02d}"


def make_pack(folder: Path, rows: int, columns: int, front: int) -> None:
    shutil.copytree(PACKS_DIR / "awaw", folder)
    lines = []
    for row in range(1, rows + 1):
        for number in range(10, 10 + columns):
            country = "Germany" if number < front else "Russia"
            lines.append(f'hexes.{hex_id(row, number)} = {{ country = "{country}" }}')
    lines += [
        'hexes.ZZ01 = { country = "Britain" }',
        'hexes.ZZ02 = { country = "France", area = "european_france" }',
        "[areas.ulster]",
        'name = "Ulster"',
        'country = "Britain"',
        'kind = "region"',
        "[areas.european_france]",
        'name = "European France"',
        'country = "France"',
        'kind = "region"',
    ]
    (folder / "map.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    east = [hex_id(r, 9 + columns) for r in range(1, rows + 1)]
    ics = [hex_id(r, front + 5) for r in range(2, rows, 4)]
    config = (
        f'[awaw]\nsample_map = true\nwestern_allies = ["Britain", "France", "USA"]\n'
        f"ic_hexes = {ics!r}\nobjectives = []\neast_edge = {east!r}\n"
        f"axis_supply_sources = {[hex_id(r, 10) for r in range(1, rows + 1)]!r}\nstacking_limit = 2\n"

    ).replace("'", '"')
    (folder / "awaw.toml").write_text(config, encoding="utf-8")
    for name in ("countries.toml",):
        text = (folder / name).read_text(encoding="utf-8")
        text = "\n".join(line for line in text.splitlines() if not line.startswith("capital ="))
        (folder / name).write_text(text + "\n", encoding="utf-8")


def position(rows: int, columns: int, front: int, units: int) -> dict[str, Any]:
    control = {
        hex_id(r, n): "Germany" for r in range(rows // 2 - 2, rows // 2 + 3) for n in range(front, front + 12)
    }
    control.update({hex_id(r, front + 20): "Germany" for r in range(1, rows + 1)})  # cuts off a western strip
    control.update({hex_id(r, 9 + columns): "Britain" for r in range(1, 4)})
    counters = []
    russian = [
        h
        for r in range(1, rows + 1)
        for n in range(front, 10 + columns)
        if (h := hex_id(r, n)) not in control
    ]
    for index in range(units):
        where = russian[(index * 37) % len(russian)]
        if index % 10 == 0:
            where = hex_id(1 + index % 3, 9 + columns)
        counters.append({"id": f"ru{index}", "nationality": "Russia", "kind": "ground", "location": where})
    return {
        "pack": "awaw",
        "counters": counters,
        "awaw": {
            "game_turn": 20,
            "phase": "end_of_player_turn",
            "side": "Allied",
            "powers": ["Russia"],
            "scenario": "European",
            "control_default": "country",
            "control": control,
            "russia": {
                "dp_level": -5,
                "atomic_attacks": 0,
                "cities_firestormed": 0,
                "oil_effects": 0,
                "unbuilt_factors": 0,
            },
            "western_at_war_with_germany": ["Britain"],
            "japan_at_war_with_russia": False,
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rows", type=int, default=40)
    parser.add_argument("--columns", type=int, default=75)
    parser.add_argument("--units", type=int, default=300)
    args = parser.parse_args()
    front = 10 + args.columns // 3
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "awaw-big"
        make_pack(folder, args.rows, args.columns, front)
        started = time.perf_counter()
        pack = load_pack(folder)
        load_ms = (time.perf_counter() - started) * 1000
        data = position(args.rows, args.columns, front, args.units)
        answers: dict[str, Any] = {"60.1:germany": "accept"}
        rounds = 0
        while True:  # answer every repatriation with its first option, one round per question asked
            pending = plan(GameState.from_json(data), pack, answers).pending_choices
            if not pending:
                break
            rounds += 1
            answers.update({c.id: c.options[0]["value"] for c in pending})
        timings = []
        for _ in range(args.runs):
            started = time.perf_counter()
            result = plan(GameState.from_json(data), pack, answers)
            timings.append((time.perf_counter() - started) * 1000)
        steps = sum(len(e.steps) for e in result.events)
    print(f"| case | median |\n|---|---|\n| load pack of {len(pack.hexes)} hexes | {load_ms:.0f} ms |")
    print(
        f"| surrender (60.1-60.7) on {len(pack.hexes)} hexes, {args.units} units; {steps} steps, "
        f"{len(answers) - 1} repatriation choices | "
        f"{statistics.median(timings):.0f} ms |"
    )


if __name__ == "__main__":
    main()
