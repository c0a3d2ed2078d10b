"""`Game.walk` (issue 27): a log replayed once, only the pieces a step touched placed again, gives
at every step what `Game.position_at(step)` gives (spec §3.5: moves, merges, changes, removals)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.grids import builders
from vassal_parser.game import PositionMemo, load_game
from vassal_parser.module import load_module

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "module_patches" / "demo"


def _walked(game) -> list[list]:
    return [walked.pieces() for walked in game.walk()]


def _stepped(game) -> list[list]:
    return [game.position_at(step) for step in range(len(game.steps) + 1)]


def test_walk_of_the_demo_story_is_every_step_position_3_5() -> None:
    module = load_module(DEMO / "adjutant-demo.vmod")
    path = DEMO / "saves" / "story.vlog"
    expected = _stepped(load_game(path, module))
    assert _walked(load_game(path, module)) == expected
    memo = PositionMemo(module)
    assert _walked(load_game(path, module, memo=memo)) == expected
    assert _walked(load_game(path, module, memo=memo)) == expected  # every piece from the memo


def _random_log(seed: int) -> str:
    """Moves (onto pieces, stacks, the deck, other maps), stack and piece changes, removals, re-adds,
    AddPieces and BoardPickers among stacked pieces: everything that moves a piece's placement."""
    rng = random.Random(seed)
    ids = [f"p{i}" for i in range(12)]
    points = [(135, 145), (235, 245), (460, 70), (450, 450), (60, 60)]
    pieces = [builders.piece(pid, f"Unit{i % 4}", "Main Map", *points[i % 3]) for i, pid in enumerate(ids)]
    pieces += [builders.stack("s1", "Main Map", 135, 145, ["p0", "p3", "p6"]),
               builders.stack("s2", "Main Map", 235, 245, ["p1", "p4"]),
               builders.deck("k1", "Deck", "Main Map", 460, 70, ["p2", "p5"])]
    steps = []
    for _ in range(40):
        step = []
        for _ in range(rng.randint(0, 4)):
            pid = rng.choice([*ids, "s1", "s2"])
            roll = rng.random()
            x, y = rng.choice(points)
            if roll < 0.55:
                under = rng.choice(["null", *ids])
                step.append(f"M/{pid}/Main Map/{x}/{y}/{under}/Main Map/0/0/null/p")
            elif roll < 0.65:
                members = ";".join(rng.sample(ids, rng.randint(1, 3)))
                step.append(f"D/s1/Main Map;{x};{y};{members};@@0/")
            elif roll < 0.75:
                state = builders.piece(pid, "x", "Main Map", x, y).rsplit("/", 1)[1]
                step.append(f"D/{pid}/{state}/")
            elif roll < 0.85:
                step.append(f"-/{pid}")
            elif roll < 0.95:
                step.append(builders.piece(pid, f"Back{pid}", "Main Map", x, y))
            else:
                step.append("Main MapBoardPicker\tBoard\t0\t0")
        steps.append(step or ["CHAT<p> - nothing moved"])
    return builders.stream(pieces, steps)


@pytest.mark.parametrize("seed", range(12))
def test_walk_of_random_logs_is_every_step_position_3_5(tmp_path: Path, seed: int) -> None:
    module = load_module(builders.write_module(tmp_path))
    path = builders.write_game(tmp_path, _random_log(seed), name="game.vlog")
    expected = _stepped(load_game(path, module))
    assert _walked(load_game(path, module)) == expected
    assert _walked(load_game(path, module, memo=PositionMemo(module))) == expected


def test_walk_of_a_long_synthetic_log_is_every_step_position_3_5(tmp_path: Path) -> None:
    """The benchmark's log (benchmarks/long_log.py), small: the story repeated over padding markers."""
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from long_log import write_long_log

    module = load_module(DEMO / "adjutant-demo.vmod")
    path = write_long_log(tmp_path / "long.vlog", steps=30, pieces=300)
    game = load_game(path, module)
    assert len(game.steps) == 30
    assert _walked(load_game(path, module, memo=PositionMemo(module))) == _stepped(game)


def test_walk_of_a_corpus_log_is_every_step_position_3_5(corpus_dir: Path) -> None:
    module = load_module(corpus_dir / "uckelman__tld-mod/buildFile")
    path = corpus_dir / "uckelman__tld-mod/game/0608-4.log"
    game = load_game(path, module)
    assert len(game.steps) > 50
    assert _walked(load_game(path, module, memo=PositionMemo(module))) == _stepped(game)


def test_walk_hands_out_the_pieces_before_each_step(tmp_path: Path) -> None:
    module = load_module(builders.write_module(tmp_path))
    text = builders.stream(
        [builders.piece("a", "Tank", "Main Map", 135, 145), builders.piece("b", "Inf", "Main Map", 135, 145),
         builders.stack("s1", "Main Map", 135, 145, ["a", "b"]),
         builders.piece("c", "Far", "Main Map", 60, 60)],
        steps=[["M/a/Main Map/235/245/null/Main Map/135/145/null/p"], ["-/c"]])
    game = load_game(builders.write_game(tmp_path, text, "game.vlog"), module)
    walk = game.walk()
    start = {pid: piece for pid, piece in next(walk).placed.items()}
    first = next(walk)
    # a moved; b was above nothing but its stack changed (a left it); c untouched
    assert set(first.before) == {"a", "b"}
    assert first.before["a"] == start["a"] and first.placed["a"].x == 235
    second = next(walk)
    assert set(second.before) == {"c"} and "c" not in second.placed


def _every_thing_at(board, point):
    """The merge finder's candidates as the replay found them before its index: every top-level thing."""
    board.merge_visits += len(board.raised)
    return [thing_id for thing_id in board.raised if board._at(thing_id) == point]


@pytest.mark.parametrize("seed", range(12, 40))
def test_merge_index_finds_what_a_walk_over_every_thing_finds_3_5(
    tmp_path: Path, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 27: `_Board._things_at` (top-level things by point, kept as commands apply) gives the
    positions the look at every top-level thing gave, on random logs of moves, merges and changes."""
    from vassal_parser.game import _Board

    module = load_module(builders.write_module(tmp_path))
    path = builders.write_game(tmp_path, _random_log(seed), name="game.vlog")
    indexed = _stepped(load_game(path, module))
    monkeypatch.setattr(_Board, "_things_at", _every_thing_at)
    assert _stepped(load_game(path, module)) == indexed
