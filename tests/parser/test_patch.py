"""vassal_parser.patch: the commands VASSAL itself would write for Adjutant's piece changes (spec
vassal-writeback.md §1.5, §2.2): `M/` with the piece beneath, stacks and decks rebuilt in a save."""

from __future__ import annotations

from pathlib import Path

from vassal_parser.commands import ESC, decode_stream, encode_stream, iter_commands, leaf_command
from vassal_parser.container import open_container
from vassal_parser.game import _Board, load_game
from vassal_parser.patch import Move, Remove, Table, java_hashmap_order, patch_save
from vassal_parser.sequence import encode
from vassal_parser.writer import _fix_member_order, write_game_file

DECK_TYPE = "deck;" + ";".join([""] * 12 + ["Draw"])


def _piece(piece_id: str, name: str, x: int, y: int) -> str:
    return f"+/{piece_id}/piece;;;{name}.png;{name}/Main;{x};{y};;0"


def _save(tmp_path: Path) -> Path:
    pieces = [_piece("1", "A", 100, 100), _piece("2", "B", 100, 100), _piece("3", "C", 300, 300),
              _piece("4", "Card1", 500, 500), _piece("5", "Card2", 500, 500),
              "+/10/stack/Main;100;100;1;2;@@3", "+/11/stack/Main;300;300;3;@@3",
              f"+/12/{DECK_TYPE}/Main;500;500;false;4,5"]
    group = encode(["", *pieces], ESC)
    stream = encode(["begin_save", "", group, "end_save"], ESC)
    path = tmp_path / "g.vsav"
    write_game_file(path, stream, ensure=False)
    return path


def _table(path: Path) -> tuple[Table, object]:
    game = load_game(path)
    table = Table.from_placed(game.position(), lambda _m: True, lambda m, x, y: (m or "", "", "", "here"))
    tree = decode_stream(open_container(path).command_text())
    table.learn_layers(c for c in iter_commands(tree) if c.kind == "add_piece")
    table.reserve_ids(["12"])
    return table, tree


def test_move_names_the_piece_beneath_before_and_after(tmp_path) -> None:
    table, _tree = _table(_save(tmp_path))
    (command,) = table.apply(Move("2", "Main", 300, 300))  # B leaves A's stack, lands on C
    assert command.text == "M/2/Main/300/300/3/Main/100/100/1"
    (command,) = table.apply(Move("1", "Main", 700, 700))  # A alone to an empty point
    assert command.text == "M/1/Main/700/700/null/Main/100/100/null"


def test_save_rebuilds_stacks_and_decks(tmp_path) -> None:
    table, tree = _table(_save(tmp_path))
    table.apply(Move("4", "Main", 300, 300))  # a card drawn out of the deck onto C's stack
    table.apply(Move("1", "Main", 300, 300))
    table.apply(Move("2", "Main", 300, 300))  # A's stack is emptied
    table.apply(Remove("5"))
    patched = patch_save(tree, table)
    texts = [c.text for c in iter_commands(patched) if c.kind == "add_piece"]
    assert not any(t.startswith("+/10/") for t in texts), "the emptied stack is dropped"
    assert "+/11/stack/Main;300;300;3;4;1;2;@@3" in texts, "each moved piece on top, in order"
    assert f"+/12/{DECK_TYPE}/Main;500;500;false;" in texts and not any(t.startswith("+/5/") for t in texts)
    assert not _fix_member_order(patched)
    text = encode_stream(patched)
    assert encode_stream(decode_stream(text)) == text
    card = next(t for t in texts if t.startswith("+/4/"))
    assert card.endswith("Main;300;300;;8;OldZone;;UniqueID;4;OldLocationName;here;OldDeckName;Draw;"
                         "OldX;500;OldY;500;OldBoard;;OldMap;Main")


def test_a_lone_piece_at_the_target_makes_a_new_stack_with_a_fresh_id(tmp_path) -> None:
    """StackMetrics.merge onto a lone piece: a new stack of the two, the layer of the one A left."""
    table, tree = _table(_save(tmp_path))
    table.apply(Move("3", "Main", 900, 900))  # C leaves its stack for an empty point: alone
    table.apply(Move("1", "Main", 900, 900))  # A onto lone C: a new stack [C, A]
    patched = patch_save(tree, table)
    new = [c.text for c in iter_commands(patched) if c.kind == "add_piece" and "stack/Main;900;900" in c.text]
    assert len(new) == 1 and new[0].endswith(";3;1;@@3") and int(new[0].split("/")[1]) > 12


def test_a_piece_leaving_a_stack_for_an_empty_point_stands_alone_as_vassal_replays_it(tmp_path) -> None:
    """MovePiece.stackOrPlacePiece makes a one-piece Stack only for a piece with no parent: one that
    leaves a stack is placed alone (issue 28), so the save holds what VASSAL's replay of the log holds."""
    table, tree = _table(_save(tmp_path))
    table.apply(Move("1", "Main", 900, 900))
    patched = patch_save(tree, table)
    texts = [c.text for c in iter_commands(patched) if c.kind == "add_piece"]
    assert not any("stack/Main;900;900" in t for t in texts)
    assert "+/10/stack/Main;100;100;2;@@3" in texts
    assert load_game_from(tmp_path, patched)["1"].stack_id is None


def load_game_from(tmp_path: Path, tree) -> dict:
    path = tmp_path / "patched.vsav"
    write_game_file(path, tree, ensure=False)
    return {p.id: p for p in load_game(path).position()}


def test_hashmap_order_is_by_bucket_not_by_insertion() -> None:
    """"OldZone" hashes to bucket 0 of 16 and "UniqueID" to a later one, whatever the insertion order
    (the full order is checked against a VASSAL 3.7.9 save in tests/bridge/test_apply.py)."""
    assert java_hashmap_order(["OldZone", "UniqueID"]) == ["OldZone", "UniqueID"]
    assert java_hashmap_order(["UniqueID", "OldZone"]) == ["OldZone", "UniqueID"]


def test_a_move_onto_its_own_point_keeps_the_only_piece_of_a_stack_in_it(tmp_path) -> None:
    """Issue 40: MovePiece's merge finder finds the piece's own stack (its top piece is the piece:
    `merge` changes nothing), so VASSAL keeps it there; the save written says the same as the log
    VASSAL replays."""
    path = _save(tmp_path)
    table, tree = _table(path)
    (command,) = table.apply(Move("3", "Main", 300, 300))  # C, alone in stack 11, onto its own point
    assert command.text == "M/3/Main/300/300/null/Main/300/300/null"
    texts = [c.text for c in iter_commands(patch_save(tree, table)) if c.kind == "add_piece"]
    assert "+/11/stack/Main;300;300;3;@@3" in texts
    board = _Board(lambda _m: True)
    board.restore([c for c in iter_commands(tree) if c.kind == "add_piece"])
    board.apply(leaf_command(command.text))
    assert board.parent["3"] == "11"


def test_a_lone_piece_moved_onto_its_own_point_gets_no_stack(tmp_path) -> None:
    """The finder visits the lone piece itself there (`merge(piece, piece)`): no new Stack."""
    pieces = [_piece("1", "A", 100, 100)]
    stream = encode(["begin_save", "", encode(["", *pieces], ESC), "end_save"], ESC)
    path = tmp_path / "lone.vsav"
    write_game_file(path, stream, ensure=False)
    table, tree = _table(path)
    (command,) = table.apply(Move("1", "Main", 100, 100))
    texts = [c.text for c in iter_commands(patch_save(tree, table)) if c.kind == "add_piece"]
    assert not any("/stack/" in text for text in texts)
    board = _Board(lambda _m: True)
    board.restore([c for c in iter_commands(tree) if c.kind == "add_piece"])
    board.apply(leaf_command(command.text))
    assert "1" not in board.parent
