"""The AWAW board: hex ids in the module's numbering, grid distance, the sample graph's adjacency."""

from __future__ import annotations

from collections import deque

import pytest

from rules.awaw.board import AwawBoard, hex_distance, parse_hex_id
from rules.state import GameState
from tests.awaw.helpers import awaw_pack, example
from vassal_parser.oblique_numbering import oblique_neighbors


@pytest.mark.parametrize(("hex_id", "coord"), [("H55", (7, 55)), ("A07", (0, 7)), ("AA07", (26, 7)),
                                               ("BB35", (27, 35)), ("AAA01", (52, 1)), ("AB12", None),
                                               ("h55", None), ("H", None)])
def test_hex_ids_read_as_vassal_names_them(hex_id: str, coord: tuple[int, int] | None) -> None:
    assert parse_hex_id(hex_id) == coord


def _bfs(a: tuple[int, int], b: tuple[int, int]) -> int:
    seen = {a: 0}
    queue = deque([a])
    while queue:
        here = queue.popleft()
        if here == b:
            return seen[here]
        for there in oblique_neighbors(*here):
            if there not in seen and abs(there[0]) < 40 and abs(there[1]) < 90:
                seen[there] = seen[here] + 1
                queue.append(there)
    raise AssertionError("unreachable")


@pytest.mark.parametrize(("a", "b"), [((7, 55), (7, 55)), ((7, 55), (9, 52)), ((9, 52), (13, 48)),
                                      ((4, 49), (20, 50)), ((20, 51), (19, 52)), ((3, 80), (30, 10))])
def test_grid_distance_counts_steps_between_neighbours(a: tuple[int, int], b: tuple[int, int]) -> None:
    assert hex_distance(a, b) == _bfs(a, b)


def test_sample_graph_neighbours_come_from_the_numbering() -> None:
    board = AwawBoard(GameState.from_json(example(), "p.json"), awaw_pack())
    assert sorted(board.neighbors("O48")) == ["N48", "N49", "O47", "O49", "P47", "P48"]
    assert board.in_britain("E30") and not board.in_britain("F29")  # Scapa Flow yes, Ulster no
    assert board.in_european_france("N30") and not board.in_european_france("Y30")
