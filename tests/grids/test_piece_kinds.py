"""Pieces of one kind (same type, same state but for where they stand: `Piece.unplaced_key`) share
one `PieceKind`, and a placed piece's properties (spec §5.5) are its kind's plus only the ones
`PER_PIECE_PROPERTIES` names (CurrentMap/Board/Zone/X/Y, DeckName, LocationName, PieceUID/UniqueID):
what a consumer keeping work per kind relies on (issue 15)."""

from __future__ import annotations

import zipfile
from pathlib import Path

from module_patches.demo_pieces import basic_state, hide_trait, type_and_state
from module_patches.demo_world import MAIN_MAP
from vassal_parser import commands
from vassal_parser.container import open_container
from vassal_parser.game import PER_PIECE_PROPERTIES, PositionMemo, load_game
from vassal_parser.module import load_module
from vassal_parser.writer import write_game_file

DEMO = Path(__file__).resolve().parents[2] / "module_patches" / "demo"


def _with_spares(source: Path, target: Path, count: int) -> Path:
    """The demo save with `count` spare markers of a few kinds spread over the main map."""
    tree = commands.decode_stream(open_container(source).command_text())
    group = next(child for child in tree.children if isinstance(child, commands.CommandGroup))
    for n in range(count):
        hidden = n % 5 == 4  # every fifth one hidden by the Axis (Invisible, spec §5.5), names of its own
        outer = [(hide_trait()[0], "Axis"), ("mark;Class", "Spare")] if hidden else [("mark;Class", "Spare")]
        type_string, state_string = type_and_state(
            outer, f"piece;;;spare.svg;{'Hidden spare' if hidden else 'Spare marker'} {n % 3}",
            basic_state(MAIN_MAP, 40 + (n % 20) * 37, 40 + (n // 20) * 41, ""))
        group.children.insert(1, commands.add_piece_command(str(9_000_000 + n), type_string, state_string))
    with zipfile.ZipFile(source) as archive:
        moduledata = archive.read("moduledata")
    return write_game_file(target, tree, module_metadata=moduledata, ensure=False, comment="spares")


def test_a_placed_piece_is_its_kind_plus_the_per_piece_properties_5_5(tmp_path: Path) -> None:
    module = load_module(DEMO / "adjutant-demo.vmod")
    memo = PositionMemo(module)
    save = _with_spares(DEMO / "saves" / "05-case-yellow.vsav", tmp_path / "spares.vsav", 60)
    remembered = load_game(save, module, memo=memo).position()
    fresh = load_game(save, module).position()
    assert remembered == fresh
    kinds = [placed.kind for placed in remembered if placed.kind is not None]
    assert kinds and len({id(kind) for kind in kinds}) < len(kinds)  # shared for real
    for placed in remembered:
        if placed.kind is None:
            continue
        shared = placed.kind.properties
        extra = {key for key, value in placed.properties.items() if key not in shared or value != shared[key]}
        assert extra <= PER_PIECE_PROPERTIES, (placed.basic_name, extra - PER_PIECE_PROPERTIES)
        assert (placed.hidden_by, placed.masked_by) == (placed.kind.hidden_by, placed.kind.masked_by)
        properties, hidden_by, masked_by = placed.kind  # the (properties, hidden_by, masked_by) triple
        assert properties is shared and placed.kind[1] == hidden_by and placed.kind[2] == masked_by


def test_without_a_memo_pieces_share_kinds_within_the_position(tmp_path: Path) -> None:
    module = load_module(DEMO / "adjutant-demo.vmod")
    save = _with_spares(DEMO / "saves" / "02-poland-falls.vsav", tmp_path / "spares.vsav", 30)
    first, second = load_game(save, module).position(), load_game(save, module).position()
    assert first == second
    kinds = {id(placed.kind) for placed in first if placed.kind is not None}
    assert kinds and len(kinds) < len(first)
    assert not {id(placed.kind) for placed in second} & kinds  # a new table for each position
