"""Issue 40: stack membership and index after a MovePiece, as VASSAL's `MovePiece.executeCommand` and
`stackOrPlacePiece` leave them (spec §3.3): a piece in no stack moved on a map that stacks gets a new
Stack (index 0); a move onto the point a piece already stands on keeps it in its stack (at the
bottom, `getParent().insert(piece, 0)`, when no `under` is given); a stacked piece moved to an
empty point stands alone (`Map.placeAt` takes it out of its stack)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from tests.grids import builders
from vassal_parser.game import load_game
from vassal_parser.module import load_module
from vassal_parser.sequence import encode

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "module_patches" / "demo"


@pytest.fixture
def module(tmp_path: Path):
    return load_module(builders.write_module(tmp_path))


def _by_id(position):
    return {piece.id: piece for piece in position}


def _moved(tmp_path: Path, module, pieces: list[str], move: str, name: str = "game.vlog"):
    text = builders.stream(pieces, steps=[[move]])
    game = load_game(builders.write_game(tmp_path, text, name), module)
    return _by_id(game.position_at(0)), _by_id(game.position_at(1))


def _loner(piece_id: str, x: int, y: int) -> str:
    """A piece with a "Does not stack" trait (`immob;` stacking option `N`: Properties.NO_STACK)."""
    basic = encode(["Main Map", str(x), str(y), "1", "0"], ";")
    types = encode(["immob;;N;N;", encode(["mark;Side", f"piece;;;{piece_id}.png;{piece_id}"], "\t")], "\t")
    states = encode(["", encode(["Allies", basic], "\t")], "\t")
    return "+/" + encode([piece_id, types, states], "/")


def test_3_3_a_piece_in_no_stack_moved_on_a_stacking_map_gets_a_new_stack(tmp_path: Path, module) -> None:
    """`stackOrPlacePiece`: no parent, stacking enabled, not NO_STACK -> `new Stack(); s.add(piece)`."""
    before, after = _moved(tmp_path, module, [builders.piece("a", "Tank", "Main Map", 135, 145)],
                           "M/a/Main Map/235/245/null/Main Map/135/145/null/secret")
    assert before["a"].stack_id is None
    assert (after["a"].x, after["a"].y, after["a"].stack_index) == (235, 245, 0)
    assert after["a"].stack_id is not None


def test_3_3_a_piece_that_does_not_stack_stays_alone(tmp_path: Path, module) -> None:
    _, after = _moved(tmp_path, module, [_loner("a", 135, 145)],
                      "M/a/Main Map/235/245/null/Main Map/135/145/null/secret")
    assert (after["a"].x, after["a"].stack_id, after["a"].stack_index) == (235, None, None)


def test_3_3_on_a_map_that_does_not_stack_a_moved_piece_stays_alone(tmp_path: Path) -> None:
    path = tmp_path / "flat.vmod"
    build = builders.build_file().replace(
        "<VASSAL.build.module.map.DrawPile",
        '<VASSAL.build.module.map.StackMetrics disabled="true"/>\n<VASSAL.build.module.map.DrawPile', 1)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("buildFile.xml", build)
        archive.writestr("moduledata", builders.MODULEDATA.format(name="Test Module"))
    flat = load_module(path)
    assert flat.maps[0].stacking_enabled is False
    _, after = _moved(tmp_path, flat, [builders.piece("a", "Tank", "Main Map", 135, 145)],
                      "M/a/Main Map/235/245/null/Main Map/135/145/null/secret")
    assert (after["a"].x, after["a"].stack_id) == (235, None)


def test_3_3_a_lone_piece_moved_onto_its_own_point_stays_lone(tmp_path: Path, module) -> None:
    """The merge finder visits the piece itself there: `merge(piece, piece)` changes nothing, and
    as it returned a command, no new stack is made."""
    _, after = _moved(tmp_path, module, [builders.piece("a", "Tank", "Main Map", 135, 145)],
                      "M/a/Main Map/135/145/null/Main Map/135/145/null/secret")
    assert (after["a"].x, after["a"].stack_id) == (135, None)


def test_3_3_the_only_piece_of_a_stack_moved_onto_its_own_point_keeps_its_stack(tmp_path: Path, module) -> None:  # noqa: E501
    pieces = [builders.piece("a", "Tank", "Main Map", 135, 145),
              builders.stack("s1", "Main Map", 135, 145, ["a"])]
    before, after = _moved(tmp_path, module, pieces, "M/a/Main Map/135/145/null/Main Map/135/145/null/secret")
    assert (before["a"].stack_id, before["a"].stack_index) == ("s1", 0)
    assert (after["a"].stack_id, after["a"].stack_index) == ("s1", 0)


def test_3_3_a_stacked_piece_moved_onto_its_own_point_goes_to_the_bottom(tmp_path: Path, module) -> None:
    """Its own stack is what the finder finds: `merge(top, piece)` puts it on top, then with no
    `under` `insert(piece, 0)` puts it at the bottom; with `under` = the top piece it stays on top."""
    pieces = [builders.piece(pid, pid, "Main Map", 135, 145) for pid in "abc"]
    pieces.append(builders.stack("s1", "Main Map", 135, 145, ["a", "b", "c"]))
    _, after = _moved(tmp_path, module, pieces, "M/b/Main Map/135/145/null/Main Map/135/145/null/secret")
    assert [(after[pid].stack_id, after[pid].stack_index) for pid in "bac"] == [("s1", i) for i in range(3)]
    _, after = _moved(tmp_path, module, pieces, "M/b/Main Map/135/145/c/Main Map/135/145/null/secret",
                      "under.vlog")
    assert [(after[pid].stack_id, after[pid].stack_index) for pid in "acb"] == [("s1", i) for i in range(3)]


def test_3_3_a_stacked_piece_moved_to_an_empty_point_stands_alone(tmp_path: Path, module) -> None:
    """`stackOrPlacePiece` with a parent: `Map.placeAt` -> `addPiece` removes it from its stack; no new
    Stack (a real log follows it with an AddPiece of the stack VASSAL made for it)."""
    pieces = [builders.piece(pid, pid, "Main Map", 135, 145) for pid in "ab"]
    pieces.append(builders.stack("s1", "Main Map", 135, 145, ["a", "b"]))
    _, after = _moved(tmp_path, module, pieces, "M/b/Main Map/235/245/null/Main Map/135/145/null/secret")
    assert (after["b"].x, after["b"].stack_id) == (235, None)
    assert (after["a"].stack_id, after["a"].stack_index) == ("s1", 0)


def _demo_module():
    vmod = DEMO / "adjutant-demo.vmod"
    if not vmod.exists():
        pytest.skip(f"the demo module {vmod} is not built (scripts build it)")
    return load_module(vmod)


def test_3_3_the_story_logs_turn_marker_stands_at_index_0_of_its_own_stack() -> None:
    """Issue 40: step 3 moves the Turn marker, in no stack since step 2, to the next turn box."""
    module = _demo_module()
    game = load_game(DEMO / "saves" / "story.vlog", module)
    (move,) = [c for c in game.steps[2] if c.kind == "move_piece" and c.fields["id"] == "1767225600034"]
    marker_before = _by_id(game.position_at(2))["1767225600034"]
    marker = _by_id(game.position_at(3))["1767225600034"]
    assert marker_before.stack_id is None
    assert (marker.x, marker.y) == (move.fields["new_x"], move.fields["new_y"])
    assert marker.stack_index == 0 and marker.stack_id is not None
    assert [p.id for p in game.position_at(3) if p.stack_id == marker.stack_id] == ["1767225600034"]


def test_3_3_apply_moving_a_piece_onto_its_own_point_keeps_its_stack(tmp_path: Path) -> None:
    """Issue 40: `apply 05-case-yellow.vsav --answer 16.2.1:country=Poland` writes a move of the
    Poland Conquered marker onto the point it stands on; step 1 keeps it in its stack."""
    from bridge.cli.main import main

    _demo_module()
    out = tmp_path / "x.vlog"
    status = main(["apply", str(DEMO / "saves" / "05-case-yellow.vsav"),
                   "--module", str(DEMO / "adjutant-demo.vmod"), "--pack", "demo",
                   "--answer", "16.2.1:country=Poland", "--out", str(out), "-q"])
    assert status == 0
    game = load_game(out, load_module(DEMO / "adjutant-demo.vmod"))
    moves = [c.fields for c in game.steps[0] if c.kind == "move_piece"]
    assert moves and all((m["new_map"], m["new_x"], m["new_y"]) == (m["old_map"], m["old_x"], m["old_y"])
                         for m in moves)
    start, step1 = _by_id(game.position_at(0)), _by_id(game.position_at(1))
    for fields in moves:
        piece_id = fields["id"]
        assert start[piece_id].stack_id is not None
        assert (step1[piece_id].stack_id, step1[piece_id].stack_index) == (start[piece_id].stack_id, 0)
