"""vassal_parser.patch on real saves (VASSAL 3.7.9 ragnarok, 3.6.4 For the People, Paths of Glory): a
piece moved onto another stack lands on its top, the stack it left loses it, every other token stays
byte for byte."""

from __future__ import annotations

import pytest

from vassal_parser.commands import decode_stream, encode_stream, iter_commands
from vassal_parser.container import open_container
from vassal_parser.game import load_game
from vassal_parser.patch import Move, Table, patch_save
from vassal_parser.writer import _fix_member_order, write_game_file

SAVES = ("jzedwards__vassal-hex-n-counters-template/ragnarok/vassal/ragnarok-start.vsav",
         "Cattlesquat__PathsOfGlory/Historical10-8.vsav",
         "Cattlesquat__ForThePeople/1861-3-5.vsav")


@pytest.mark.parametrize("relative", SAVES)
def test_move_in_a_real_save(corpus_dir, tmp_path, relative) -> None:
    path = corpus_dir / relative
    if not path.exists():
        pytest.skip(f"{path} not in the corpus")
    game = load_game(path)
    placed = game.position()
    stacks: dict[str, list] = {}
    for piece in placed:
        if piece.stack_id and "#" not in piece.stack_id:
            stacks.setdefault(piece.stack_id, []).append(piece)
    table = Table.from_placed(placed, lambda _m: True, lambda m, x, y: (m or "", "", "", "x"))
    # Pieces that stack (no "Does not stack"): VASSAL's merge finder never merges the others.
    big = [s for s in stacks.values() if len(s) >= 2 and all(table._stacks(p.id, p.map) for p in s)]
    assert len(big) >= 2, "the save has stacks to move between"
    source, target = sorted(big[0], key=lambda p: p.stack_index), big[1]
    mover = source[-1]
    text = open_container(path).command_text()
    tree = decode_stream(text)
    add_pieces = [c for c in iter_commands(tree) if c.kind == "add_piece"]
    table.learn_layers(add_pieces)
    table.reserve_ids(c.fields.get("id") or "" for c in add_pieces)
    (command,) = table.apply(Move(mover.id, target[0].map, target[0].x, target[0].y))
    top = max(target, key=lambda p: p.stack_index)
    assert command.fields["new_under"] == top.id and command.fields["old_under"] == source[-2].id
    patched = patch_save(tree, table)
    assert not _fix_member_order(patched)
    out = tmp_path / "patched.vsav"
    write_game_file(out, patched, ensure=False)
    written = open_container(out).command_text()
    assert encode_stream(decode_stream(written)) == written
    after = {p.id: p for p in load_game(out).position()}
    moved = after[mover.id]
    assert (moved.map, moved.x, moved.y) == (target[0].map, target[0].x, target[0].y)
    assert moved.stack_id == target[0].stack_id
    assert moved.stack_index == len(target)  # on top
    assert all(after[p.id].stack_id == p.stack_id for p in source[:-1])
    assert len(after) == len(placed)
    changed_ids = {mover.id, source[0].stack_id, target[0].stack_id}
    before_tokens = {c.text for c in iter_commands(tree)}
    for command in iter_commands(decode_stream(written)):
        if command.text not in before_tokens:
            assert command.kind == "add_piece" and command.fields["id"] in changed_ids, command.text[:80]
