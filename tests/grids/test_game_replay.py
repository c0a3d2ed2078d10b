"""`load_game`: restore commands and log steps replayed into positions (spec §3.2, §3.3, §3.5, §5.4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.grids import builders
from vassal_parser.errors import InputError
from vassal_parser.game import check_same_module, load_game
from vassal_parser.module import load_module
from vassal_parser.traits import encode_chain, make_trait


@pytest.fixture
def module(tmp_path: Path):
    return load_module(builders.write_module(tmp_path))


def by_id(position):
    return {piece.id: piece for piece in position}


def test_save_pieces_take_their_container_position_5_4(tmp_path: Path, module) -> None:
    """§5.4/§3.2: members are listed before their stack/deck and take its position; the deck's
    name (field 13 of its type) is the piece's deck and, at the DrawPile point, its LocationName."""
    text = builders.stream(
        [
            builders.piece("a", "Tank", "Main Map", 135, 145),
            builders.piece("b", "Infantry", "Main Map", 135, 145),
            builders.piece("c", "Card", "Main Map", 460, 70),
            builders.piece("d", "Loner", "Main Map", 460, 470),
            builders.stack("s1", "Main Map", 135, 145, ["a", "b"]),
            builders.deck("k1", "Deck", "Main Map", 460, 70, ["c"]),
        ]
    )
    game = load_game(builders.write_game(tmp_path, text), module)
    assert game.kind == "save"
    assert (game.module_name, game.module_version, game.vassal_version) == ("Test Module", "1.0", "3.7.12")
    assert game.board_selections == {"Main Map": [("Board", False, 0, 0)]}
    pieces = by_id(game.position())
    assert set(pieces) == {"a", "b", "c", "d"}  # stacks and decks are not pieces
    a, b, c, d = pieces["a"], pieces["b"], pieces["c"], pieces["d"]
    assert (a.stack_id, a.stack_index, b.stack_index) == ("s1", 0, 1)
    # Board at (10,20) (edge buffer): local (125,125) -> col floor(100/50+.5)=2 `C`,
    # row (int)(2.5)=2, +vOff 1 -> `C3`.
    assert (a.map, a.x, a.y, a.board, a.location) == ("Main Map", 135, 145, "Board", "C3")
    # DrawPile "Deck" at board (450,50) -> map (460,70): LocationName is the deck name (§5.5).
    assert (c.deck, c.location, c.stack_id) == ("Deck", "Deck", None)
    # Zone "Box" 400..500 x 400..500 (board) holds local (450,450).
    assert (d.zone, d.location) == ("Box", "Box")
    assert a.basic_name == "Tank" and a.properties["Side"] == "Allies"
    assert a.properties["CurrentZone"] == "" and d.properties["CurrentZone"] == "Box"
    assert a.properties["LocationName"] == "C3"


def test_member_listed_after_its_stack_is_skipped_3_2(tmp_path: Path, module) -> None:
    """§3.2/§9.6: Stack.setState silently skips ids not yet added, so a late member is not stacked."""
    text = builders.stream(
        [
            builders.stack("s1", "Main Map", 135, 145, ["late"]),
            builders.piece("late", "Tank", "Main Map", 300, 300),
        ]
    )
    late = by_id(load_game(builders.write_game(tmp_path, text), module).position())["late"]
    assert (late.stack_id, late.x, late.y) == (None, 300, 300)


def test_log_steps_move_merge_remove_change_3_5(tmp_path: Path, module) -> None:
    """§3.3/§3.5: one top-level LOG token per step; M/ with underId merges above that piece;
    M/ without it places the piece alone; -/ removes; D/ replaces the state."""
    changed = builders.piece("c", "Loner", "Main Map", 235, 245).split("/", 3)[3]
    changed = changed.replace("Allies", "Axis")
    text = builders.stream(
        [
            builders.piece("a", "Tank", "Main Map", 135, 145),
            builders.piece("b", "Infantry", "Main Map", 135, 145),
            builders.piece("c", "Loner", "Main Map", 235, 245),
            builders.stack("s1", "Main Map", 135, 145, ["a", "b"]),
        ],
        steps=[
            ["M/c/Main Map/135/145/a/Main Map/235/245/null/secret", "CHAT* moves"],
            ["M/b/Main Map/335/345/null/Main Map/135/145/null/secret"],
            ["-/a"],
            ["D/c/" + changed.replace("/", "\\/")],
        ],
    )
    game = load_game(builders.write_game(tmp_path, text, "game.vlog"), module)
    assert game.kind == "log" and len(game.steps) == 4
    start = by_id(game.position())
    assert start["c"].stack_id is None and start["c"].location == "E5"
    step1 = by_id(game.position_at(1))
    assert [(step1[i].stack_id, step1[i].stack_index) for i in "acb"] == [("s1", 0), ("s1", 1), ("s1", 2)]
    assert (step1["c"].x, step1["c"].y, step1["c"].location) == (135, 145, "C3")
    step2 = by_id(game.position_at(2))
    assert (step2["b"].stack_id, step2["b"].x, step2["b"].y, step2["b"].location) == (None, 335, 345, "G7")
    assert [(step2[i].stack_index) for i in "ac"] == [0, 1]
    step3 = by_id(game.position_at(3))
    assert "a" not in step3 and step3["c"].stack_index == 0
    end = by_id(game.position_at(-1))
    assert end["c"].properties["Side"] == "Axis"
    assert by_id(game.position())["c"].properties["Side"] == "Allies"  # the start is not mutated
    again = by_id(game.position_at(1))  # stepping back replays from the start
    assert [(again[i].stack_id, again[i].stack_index) for i in "acb"] == [("s1", 0), ("s1", 1), ("s1", 2)]
    with pytest.raises(InputError, match="out of range"):
        game.position_at(5)


def test_move_onto_under_id_not_at_that_point_gets_a_stack_of_its_own_3_3(tmp_path: Path, module) -> None:
    """MovePiece merges only when the `under` piece really is at the new point; else
    `stackOrPlacePiece`: a piece in no stack, on a map that stacks, goes into a new Stack (issue 40)."""
    text = builders.stream(
        [
            builders.piece("a", "Tank", "Main Map", 135, 145),
            builders.piece("c", "Loner", "Main Map", 235, 245),
        ],
        steps=[["M/c/Main Map/300/300/a/Main Map/235/245/null/secret"]],
    )
    game = load_game(builders.write_game(tmp_path, text, "game.vlog"), module)
    moved = by_id(game.position_at(1))["c"]
    assert (moved.x, moved.y, moved.stack_index) == (300, 300, 0)
    assert moved.stack_id is not None and moved.stack_id != by_id(game.position_at(1))["a"].stack_id


def test_lone_pieces_merging_form_a_new_stack_3_3(tmp_path: Path, module) -> None:
    """StackMetrics.merge of two lone pieces makes a stack: the fixed piece below the moving one."""
    text = builders.stream(
        [
            builders.piece("a", "Tank", "Main Map", 135, 145),
            builders.piece("c", "Loner", "Main Map", 235, 245),
        ],
        steps=[["M/c/Main Map/135/145/a/Main Map/235/245/null/secret"]],
    )
    game = load_game(builders.write_game(tmp_path, text, "game.vlog"), module)
    after = by_id(game.position_at(1))
    assert after["a"].stack_id is not None and after["a"].stack_id == after["c"].stack_id
    assert (after["a"].stack_index, after["c"].stack_index) == (0, 1)


def test_extensions_and_module_mismatch_7(tmp_path: Path, module) -> None:
    """§7: EXT commands list the extensions a save was made with; a save from another module is refused."""
    text = builders.stream([], extras=["EXT\tMyExtension\t1.2"])
    game = load_game(builders.write_game(tmp_path, text, module_name="Other Game"), module)
    assert game.extensions == [("MyExtension", "1.2")]
    with pytest.raises(InputError, match="'Other Game'"):
        check_same_module(game, module)


def test_not_a_game_is_one_line_input_error(tmp_path: Path, module) -> None:
    path = builders.write_module(tmp_path)
    with pytest.raises(InputError) as info:
        load_game(path, module)
    assert "\n" not in str(info.value) and "not a VASSAL saved game" in str(info.value)


def _stacks(position) -> set[tuple[str, ...]]:
    """Stack contents bottom first, ignoring stack ids (a merge of two lone pieces makes a new id)."""
    stacks: dict[str, list] = {}
    for piece in position:
        if piece.stack_id is not None:
            stacks.setdefault(piece.stack_id, []).append((piece.stack_index, piece.id))
    return {tuple(pid for _, pid in sorted(members)) for members in stacks.values()}


@pytest.mark.parametrize(
    ("log", "next_log"),
    [("0606-4.log", "0607-1.log"), ("0607-4.log", "0607-5.log"), ("0607-5.log", "0608-1.log")],
)
def test_tld_log_replayed_to_its_end_is_the_next_logs_start_3_5(
    corpus_dir: Path, log: str, next_log: str
) -> None:
    """§3.5 on real play-by-email logs (VASSAL 2.9, uckelman/tld-mod): replaying every step of one log
    gives exactly the position the next log starts from -- every piece's map, x, y and every stack's
    members in order. Pairs where a player moved pieces without logging them cannot match and are not
    used here. This exercises merges via underId, the merge finder, stack moves, and the 2.x
    ChangePiece quirks (stacked pieces written with `null`/stale maps stay in their stack)."""
    folder = corpus_dir / "uckelman__tld-mod"
    module = load_module(folder / "buildFile")
    replayed = load_game(folder / "game" / log, module).position_at(-1)
    expected = load_game(folder / "game" / next_log, module).position()
    where = {p.id: (p.map, p.x, p.y) for p in replayed}
    assert where == {p.id: (p.map, p.x, p.y) for p in expected}
    assert _stacks(replayed) == _stacks(expected)


def test_modern_change_piece_to_another_map_unstacks_3_3(tmp_path: Path, module) -> None:
    """3.x BasicPiece.setState: a new map id differing from getMap() (the stack's map) re-adds the piece
    to that map alone; the same map keeps it in its stack."""
    same = builders.piece("a", "Tank", "Main Map", 135, 145).split("/", 3)[3].replace("Allies", "Axis")
    other = builders.piece("a", "Tank", "Map1", 5, 5).split("/", 3)[3]
    text = builders.stream(
        [
            builders.piece("a", "Tank", "Main Map", 135, 145),
            builders.piece("b", "Infantry", "Main Map", 135, 145),
            builders.stack("s1", "Main Map", 135, 145, ["a", "b"]),
        ],
        steps=[["D/a/" + same.replace("/", "\\/")], ["D/a/" + other.replace("/", "\\/")]],
    )
    game = load_game(builders.write_game(tmp_path, text, "game.vlog"), module)
    assert by_id(game.position_at(1))["a"].stack_id == "s1"
    moved = by_id(game.position_at(2))["a"]
    assert (moved.stack_id, moved.map, moved.x, moved.y) == (None, "Map1", 5, 5)


def test_merge_finder_joins_a_stack_at_the_exact_point_without_under_id_3_3(tmp_path: Path, module) -> None:
    """MovePiece.createMergeFinder: with no underId, a piece landing exactly on a stack joins it, and
    `executeCommand` then does `piece.getParent().insert(piece, 0)`: it ends at the stack's bottom
    (issue 28: Adjutant had left it on top, VASSAL 3.7.26 shows it at the bottom)."""
    text = builders.stream(
        [
            builders.piece("a", "Tank", "Main Map", 135, 145),
            builders.piece("b", "Infantry", "Main Map", 135, 145),
            builders.piece("c", "Loner", "Main Map", 235, 245),
            builders.stack("s1", "Main Map", 135, 145, ["a", "b"]),
        ],
        steps=[["M/c/Main Map/135/145/null/Main Map/235/245/null/secret"]],
    )
    game = load_game(builders.write_game(tmp_path, text, "game.vlog"), module)
    after = by_id(game.position_at(1))
    assert (after["c"].stack_id, after["c"].stack_index) == ("s1", 0)
    assert [after[p].stack_index for p in "ab"] == [1, 2]


def test_move_with_no_under_onto_a_lone_piece_goes_beneath_it_3_3(tmp_path: Path, module) -> None:
    """StackMetrics.merge makes a stack of the two (fixed first), then insert(piece, 0): the mover below."""
    text = builders.stream(
        [builders.piece("a", "Tank", "Main Map", 135, 145),
         builders.piece("c", "Loner", "Main Map", 235, 245)],
        steps=[["M/c/Main Map/135/145/null/Main Map/235/245/null/secret"],
               ["M/c/Main Map/235/245/null/Main Map/135/145/null/secret"],
               ["M/c/Main Map/135/145/a/Main Map/235/245/null/secret"]],
    )
    game = load_game(builders.write_game(tmp_path, text, "game.vlog"), module)
    first = by_id(game.position_at(1))
    assert first["a"].stack_id == first["c"].stack_id is not None
    assert (first["c"].stack_index, first["a"].stack_index) == (0, 1)
    with_under = by_id(game.position_at(3))  # an underId: StackMetrics.merge above it, no insert(0)
    assert (with_under["a"].stack_index, with_under["c"].stack_index) == (0, 1)


def test_story_log_step_1_puts_the_moved_piece_at_the_bottom_3_3() -> None:
    """story.vlog step 1 moves PO 2 Inf (no underId) onto PO Res at Boxes (430, 265): VASSAL shows PO 2 Inf
    at index 0, PO Res 0-1-2 at 1."""
    from bridge.cli.commands.demo import DEMO_MODULE
    from module_patches.demo_story import LOG_FILE, SAVES_DIR

    game = load_game(SAVES_DIR / LOG_FILE, load_module(DEMO_MODULE))
    there = sorted((p.stack_index, p.basic_name) for p in game.position_at(1) if (p.x, p.y) == (430, 265))
    assert there == [(0, "PO 2 Inf"), (1, "PO Res 0-1-2")]


def _immobile(piece_id: str, name: str, x: int, y: int, stacking: str) -> str:
    """A piece with a "Does not stack" (`immob;`) trait over the builders' Marker and BasicPiece."""
    basic_state = builders.encode(["Main Map", str(x), str(y), "1", "0"], ";")
    chain = [make_trait(f"immob;;;{stacking};", ""), make_trait("mark;Side", "Allies"),
             make_trait(f"piece;;;{name}.png;{name}", basic_state)]
    type_chain, state_chain = encode_chain(chain)  # nested as Decorator.getType/getState nest them
    return "+/" + builders.encode([piece_id, type_chain, state_chain], "/")


@pytest.mark.parametrize(("stacking", "stacks"), [("L", True), ("R", False), ("", False)])
def test_does_not_stack_trait_honours_its_stacking_option_3_3(
    tmp_path: Path, module, stacking: str, stacks: bool
) -> None:
    """Immobilized: Properties.NO_STACK unless the stacking option starts with `L` (stack normally);
    MovePiece.createMergeFinder then leaves a NO_STACK piece alone at the point."""
    text = builders.stream(
        [builders.piece("a", "Tank", "Main Map", 135, 145), _immobile("c", "Marker", 235, 245, stacking)],
        steps=[["M/c/Main Map/135/145/null/Main Map/235/245/null/secret"]],  # no underId: merge finder
    )
    game = load_game(builders.write_game(tmp_path, text, "game.vlog"), module)
    after = by_id(game.position_at(1))
    assert (after["c"].x, after["c"].y) == (135, 145)
    assert (after["c"].stack_id is not None and after["c"].stack_id == after["a"].stack_id) is stacks
