"""Issue 14: caps cover counts as well as sizes (docs/vassal-reader.md, "Caps"). Each cap is set
low here so a small file crosses it: the result is one InputError line naming the file."""

from __future__ import annotations

from pathlib import Path

import pytest

import vassal_parser.game as game
import vassal_parser.module as module
from tests.grids import builders
from vassal_parser.errors import InputError
from vassal_parser.game import load_game
from vassal_parser.module import load_module, parse_board_picker
from vassal_parser.traits import encode_chain, make_trait


def _pieces(count: int) -> list[str]:
    return [builders.piece(f"p{i}", f"Unit{i}", "Main Map", 40 + i, 40) for i in range(count)]


def test_pieces_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(game, "MAX_PIECES", 2)
    save = builders.write_game(tmp_path, builders.stream(_pieces(3)))
    with pytest.raises(InputError, match="adds 3 pieces"):
        load_game(save)


def test_steps_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(game, "MAX_STEPS", 1)
    moves = [[f"M/p0/Main Map/{x}/40/null/Main Map/40/40/null/p"] for x in (60, 80)]
    log = builders.write_game(tmp_path, builders.stream(_pieces(1), moves), name="game.vlog")
    with pytest.raises(InputError, match="2 replay steps"):
        load_game(log)


def _unstacking(piece_id: str, x: int, y: int) -> str:
    """A piece with a "Does not stack" (`immob;`) trait: many of them on one point stay apart."""
    basic_state = builders.encode(["Main Map", str(x), str(y), "1", "0"], ";")
    chain = [make_trait("immob;;;R;", ""), make_trait(f"piece;;;{piece_id}.png;{piece_id}", basic_state)]
    type_chain, state_chain = encode_chain(chain)
    return "+/" + builders.encode([piece_id, type_chain, state_chain], "/")


def test_merge_finder_cap_names_the_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The merge finder looks only at the things on the point a piece moves to (issue 27), but many
    # pieces that do not stack on one point still make a replay moves x pieces: it is stopped.
    monkeypatch.setattr(game, "MAX_MERGE_VISITS", 30)
    pieces = [_unstacking(f"q{i}", 200, 200) for i in range(8)] + _pieces(1)
    moves = [[f"M/p0/Main Map/200/200/null/Main Map/{40 + k}/40/null/p",
              f"M/p0/Main Map/{41 + k}/40/null/Main Map/200/200/null/p"] for k in range(5)]
    log = builders.write_game(tmp_path, builders.stream(pieces, moves), name="game.vlog")
    loaded = load_game(log, load_module(builders.write_module(tmp_path)))
    with pytest.raises(InputError) as caught:
        loaded.position_at(-1)
    assert caught.value.one_line().startswith(f"{log}: replay looks for stacks more than 30 times")


def test_merge_finder_looks_only_at_the_point_it_moves_to(tmp_path: Path) -> None:
    # Issue 27: 2,000 pieces on their own points and 400 moves looked at every piece for every move
    # (800,000 visits); with the index of things by point, the pieces once and then a few per move.
    moves = [[f"M/p0/Main Map/{60 + k % 300}/41/null/Main Map/40/40/null/p"] for k in range(400)]
    log = builders.write_game(tmp_path, builders.stream(_pieces(2000), moves), name="game.vlog")
    loaded = load_game(log, load_module(builders.write_module(tmp_path)))
    loaded.position_at(-1)
    board = loaded._replayed[1]  # type: ignore[index]
    assert board.merge_visits < 2000 + 4 * 400


def test_board_count_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(module, "MAX_BOARDS", 2)
    with pytest.raises(InputError, match="chooses 3 boards"):
        parse_board_picker("MapBoardPicker\tA\t0\t0\tB\t1\t0\tC\t2\t0")


def test_build_file_element_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(module, "MAX_ELEMENTS", 5)
    path = builders.write_module(tmp_path)
    with pytest.raises(InputError) as caught:
        load_module(path)
    assert caught.value.one_line() == f"{path}: build file has more than 5 elements"


def test_extension_target_step_cap() -> None:
    from lxml import etree

    with pytest.raises(InputError, match="201 steps"):
        module.find_target(etree.Element("root"), "/".join(["a"] * 201), "ext.vmdx")
