"""The daemon's memos change nothing: a warm pipeline plans every save exactly as a fresh one does.

Why this matters: `CheckPipeline` remembers each piece's decoding, location and mapping between
saves (vassal_parser.game.PositionMemo, bridge.mapping.mapper.MappingMemo) to meet the overlay's latency
target (docs/protocol.md). A stale entry would show players a plan for a position they no longer
have, so every kind of change a new save can bring is checked against a pipeline without memos:
the demo story in order and backwards (its events cite 16.1.1, 16.2.x, ... — tests/demo), a
stack moved, a piece moved between stacks, a piece's state changed, a piece removed — each
written to the SAME file name, as VASSAL does when a player saves again.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK
from bridge.pipeline import CheckPipeline
from module_patches.demo_story import load_story, save_path
from vassal_parser import commands
from vassal_parser.container import open_container
from vassal_parser.game import load_game
from vassal_parser.pieces import Piece, Stack, make_piece
from vassal_parser.writer import write_game_file

STORY = load_story()
SOURCE = save_path(next(scene for scene in STORY if scene.file == "02-poland-falls"))


@pytest.fixture(scope="module")
def fresh() -> CheckPipeline:
    return CheckPipeline(DEMO_MODULE, DEMO_PACK, remember=False)


@pytest.fixture
def warm() -> CheckPipeline:
    return CheckPipeline(DEMO_MODULE, DEMO_PACK)


def assert_same_plan(warm: CheckPipeline, fresh: CheckPipeline, path: Path, answers=None) -> dict:
    remembered = warm.plan_file(path, answers=answers)
    computed = fresh.plan_file(path, answers=answers)
    assert remembered.plan == computed.plan
    assert remembered.text == computed.text
    assert remembered.exit_status == computed.exit_status
    assert remembered.mapping.position == computed.mapping.position
    return computed.plan


def test_story_saves_in_order_and_backwards_plan_the_same_warm_as_fresh(warm, fresh) -> None:
    """Every demo scene (rules 16.1.1 .. 16.x, see tests/demo) through one long-lived pipeline."""
    for scene in [*STORY, *reversed(STORY), *STORY]:
        assert_same_plan(warm, fresh, save_path(scene), scene.answers)
    assert warm.position_memo is not None and warm.position_memo.hits > 0  # the memos were really used
    assert warm.mapping_memo is not None and len(warm.mapping_memo.outcomes) > 0


def test_story_saves_copied_to_one_file_name_plan_the_same(tmp_path, warm, fresh) -> None:
    """The daemon sees one file rewritten again and again: every scene written over `game.vsav`."""
    target = tmp_path / "game.vsav"
    for scene in [*STORY, *reversed(STORY)]:
        target.write_bytes(save_path(scene).read_bytes())
        assert_same_plan(warm, fresh, target, scene.answers)


# ---- saves with changed pieces ----------------------------------------------------------------------

def _tree_and_metadata(path: Path) -> tuple[commands.CommandTree, bytes]:
    with zipfile.ZipFile(path) as archive:
        moduledata = archive.read("moduledata")
    return commands.decode_stream(open_container(path).command_text()), moduledata


def _edited(source: Path, target: Path, edit: Callable[[dict[str, Piece | Stack]], None]) -> Path:
    """`source` with its AddPiece commands rebuilt by `edit` (id -> piece or stack), written to `target`."""
    tree, moduledata = _tree_and_metadata(source)
    group = next(child for child in tree.children if isinstance(child, commands.CommandGroup))
    things: dict[str, Piece | Stack] = {}
    for child in group.children:
        if isinstance(child, commands.Command) and child.kind == "add_piece":
            fields = child.fields
            things[fields["id"]] = make_piece(fields["id"], fields["type"], fields["state"])
    edit(things)
    rebuilt = []
    for child in group.children:
        if isinstance(child, commands.Command) and child.kind == "add_piece":
            thing = things.get(child.fields["id"])
            if thing is not None:
                command = commands.add_piece_command(thing.id, thing.type_string(), thing.state_string())
                rebuilt.append(command)
            continue
        rebuilt.append(child)
    group.children[:] = rebuilt
    return write_game_file(target, tree, module_metadata=moduledata, ensure=False)


def _piece(things: dict[str, Piece | Stack], counter: str) -> Piece:
    pieces = (t for t in things.values() if isinstance(t, Piece))
    return next(piece for piece in pieces if piece.properties().get("Counter") == counter)


def _stack_of(things: dict[str, Piece | Stack], piece_id: str) -> Stack:
    return next(t for t in things.values() if isinstance(t, Stack) and piece_id in t.member_ids)


def _hex_point(name: str) -> tuple[str, int, int]:
    from vassal_parser.module import load_module

    game = load_game(SOURCE, load_module(DEMO_MODULE))
    europe = next(p for p in game.position() if p.map and p.location == "e3804").map
    point = game.layout(europe).point_for(name)
    assert point is not None
    return europe, point[0], point[1]


def move_stack(things: dict[str, Piece | Stack]) -> None:
    """GE-1's whole stack to another hex: no piece text changes, only where its container is."""
    stack = _stack_of(things, _piece(things, "GE-1").id)
    map_id, x, y = _hex_point("w3928")
    things[stack.id] = stack.with_members(stack.member_ids, map_id, x, y)


def move_between_stacks(things: dict[str, Piece | Stack]) -> None:
    """GE-3 leaves its stack for GE-1's: its stack index and location change, its text does not."""
    mover = _piece(things, "GE-3").id
    old, new = _stack_of(things, mover), _stack_of(things, _piece(things, "GE-1").id)
    things[old.id] = old.with_members([m for m in old.member_ids if m != mover], old.map, old.x, old.y)
    things[new.id] = new.with_members([*new.member_ids, mover], new.map, new.x, new.y)


def reduce_strength(things: dict[str, Piece | Stack]) -> None:
    """GE-1 flipped to its reduced side (a Layer level): its state text changes, its place does not."""
    piece = _piece(things, "GE-1")
    layer = next(layer for layer in piece.layers() if "Strength" in layer.layer_name)
    things[piece.id] = piece.with_state(layer_levels={layer.layer_name: 2})


def remove_piece(things: dict[str, Piece | Stack]) -> None:
    """GE-2 taken out of play: its AddPiece and its stack membership disappear."""
    gone = _piece(things, "GE-2").id
    stack = _stack_of(things, gone)
    del things[gone]
    kept = [m for m in stack.member_ids if m != gone]
    things[stack.id] = stack.with_members(kept, stack.map, stack.x, stack.y)


def counter_location(plan_position: dict, counter: str) -> str | None:
    return next((c["location"] for c in plan_position["counters"] if c["id"] == counter), None)


@pytest.mark.parametrize(
    ("edit", "check"),
    [
        (move_stack, lambda before, after: counter_location(after, "GE-1") == "w3928"
         and counter_location(before, "GE-1") == "e3804"),
        (move_between_stacks, lambda before, after: counter_location(after, "GE-3") == "e3804"
         and counter_location(before, "GE-3") == "w3425"),
        (reduce_strength, lambda before, after: next(c for c in after["counters"] if c["id"] == "GE-1")
         != next(c for c in before["counters"] if c["id"] == "GE-1")),
        (remove_piece, lambda before, after: counter_location(after, "GE-2") is None
         and counter_location(before, "GE-2") is not None),
    ],
)
def test_changed_piece_in_a_rewritten_save_is_seen_by_the_warm_pipeline(tmp_path, warm, fresh, edit,
                                                                         check) -> None:
    """Original, changed, original again — all over one file name, warm plans equal fresh ones."""
    target = tmp_path / "game.vsav"
    target.write_bytes(SOURCE.read_bytes())
    before = warm.plan_file(target).mapping.position
    assert_same_plan(warm, fresh, target)
    _edited(SOURCE, target, edit)
    assert_same_plan(warm, fresh, target)
    after = warm.plan_file(target).mapping.position
    assert check(before, after)  # the edit really changed the position the rules see
    target.write_bytes(SOURCE.read_bytes())
    assert_same_plan(warm, fresh, target)
    assert warm.plan_file(target).mapping.position == before
