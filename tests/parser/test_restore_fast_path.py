"""The replay of a file's restore (`_Board.restore`: runs of AddPieces in one loop, a plain text split
without `add_piece_strings`, the memo's table read and filled in the loop) gives the board the general
path gives: each AddPiece's `Command.fields`, a known id doing nothing, stacks and decks taking their
members by id (spec §3.2, §3.3), other commands applied in order between the runs."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from vassal_parser.commands import Command, add_piece_command, add_piece_strings, decode_stream, split_log
from vassal_parser.game import PositionMemo, _Board
from vassal_parser.pieces import Piece, make_piece

_IDS = ["1", "2", "3", "s1", "d1", "null", "'4'", "5'", "", "6/7"]
_TYPES = [
    "mark;Class\tpiece;;;a.svg;A",
    "piece;;;b.gif;B/with slash",
    "stack",
    "deck;Flip;true;true;true;false;true;Deck 1;false;false;false;false;false;false;false;Draw;",
    "emb2;;2;;;2;;;2;;;;1;false;0;0;,a.png;;;;;;false\\\tpiece;;;x.png;X",
    "'quoted type'",
    "piece;;;c\\/d.png;C",
]
_STATES = ["Main;10;20;;0", "Main;300;300;1;2;@@0", "null;0;0;;0", "Main;1;2;s1;3;2", "Other;5;5",
           "Main;9;9;d1;1", "", "'Main;4;4'", "Main;7;7;x/y;0"]


def _texts() -> st.SearchStrategy[str]:
    encoded = st.builds(lambda i, t, s: add_piece_command(None if i == "null" else i, t, s).text,
                        st.sampled_from(_IDS), st.sampled_from(_TYPES), st.sampled_from(_STATES))
    raw = st.builds(lambda i, t, s: f"+/{i}/{t}/{s}", st.sampled_from(_IDS), st.sampled_from(_TYPES),
                    st.sampled_from(_STATES))
    short = st.sampled_from(["+/", "+/1", "+/1/", "+/2/piece;;;a.svg;A", "+/null/stack/Main;1;1;1"])
    others = st.sampled_from(["D/1/Main;50;50;;0", "M/2/Main/300/300/null/Main/10/20/null/p",
                              "-/3", "D/s1/Main;1;1;2", "begin_save", "EXT\tExt one\t1.0",
                              "GlobalProperty\t;turn;3;", "CHAT hello"])
    return st.one_of(encoded, encoded, raw, short, others)


def _by_the_general_path(commands: list[Command]) -> _Board:
    """The restore as it was read before the run loop: `apply` each, an AddPiece by its fields."""
    board = _Board()
    for command in commands:
        if command.kind != "add_piece":
            board.apply(command)
            continue
        fields = command.fields
        piece_id = fields["id"]
        if piece_id is None or piece_id in board.pieces or piece_id in board.containers:
            continue
        thing = make_piece(piece_id, fields["type"], fields["state"])
        if isinstance(thing, Piece):
            board.pieces[piece_id] = thing
            board._raise(piece_id)
        else:
            board._install_container(piece_id, thing)
    return board


def _state(board: _Board) -> tuple:
    containers = [(key, c.id, c.map, c.x, c.y, list(c.members), c.deck_name, c.deck_type)
                  for key, c in board.containers.items()]
    return ([(key, piece.strings()) for key, piece in board.pieces.items()], containers,
            dict(board.parent), list(board.raised.items()), board._clock)


@settings(max_examples=400, deadline=None)
@given(st.lists(_texts(), max_size=30))
def test_3_3_restore_is_the_general_replay_with_or_without_a_memo(texts: list[str]) -> None:
    """§3.2/§3.3: the board after `restore` is the one the general path builds; with a memo, a second
    read of the same commands takes its Pieces from the table (the same objects) and agrees too."""
    expected = _state(_by_the_general_path([Command(text) for text in texts]))
    assert _state(_restored(texts)) == expected
    memo = PositionMemo(None, minimum=4)  # small: the table turns over during the run
    first = _restored(texts, memo)
    assert _state(first) == expected
    again = _restored(texts, memo)
    assert _state(again) == expected
    if len(texts) < memo.minimum and all(text.startswith("+/") for text in texts):
        # nothing dropped, nothing changed: every Piece of the second read is the first read's
        assert all(again.pieces[key] is piece for key, piece in first.pieces.items())


def _restored(texts: list[str], memo: PositionMemo | None = None) -> _Board:
    board = _Board(memo=memo)
    board.restore([Command(text) for text in texts])
    return board


@settings(max_examples=300, deadline=None)
@given(_texts())
def test_3_3_add_piece_strings_are_the_fields(text: str) -> None:
    """§3.3: `add_piece_strings` is `Command.fields` of an AddPiece, as a tuple."""
    command = Command(text)
    if command.kind == "add_piece":
        fields = command.fields
        assert add_piece_strings(text) == (fields["id"], fields["type"], fields["state"])


def test_restore_names_the_extensions_and_replays_between_runs() -> None:
    """EXT commands are listed; a change between two runs of AddPieces applies to the piece of the
    first run, and a stack of the second run takes members of both (§3.2)."""
    text = "\x1b".join([
        "begin_save", "+/1/piece;;;a.svg;A/Main;10;10", "D/1/Main;20;20", "EXT\tOne\t1.2",
        "+/2/piece;;;b.svg;B/Main;20;20", "+/s/stack/Main;20;20;1;2", "end_save",
    ])
    restore, _steps = split_log(decode_stream(text))
    board = _Board(memo=PositionMemo(None))
    assert board.restore(restore) == [("One", "1.2")]
    assert board.pieces["1"].state_string() == "Main;20;20"
    assert board.containers["s"].members == ["1", "2"]
    assert board.parent == {"1": "s", "2": "s"}


_STREAM_PARTS = ["+/1/x/y", "+/", "+", "+0", "+/'q'", "", "-/1", "begin_save", "'", "a", "\\"]
_GROUPS = st.one_of(st.lists(st.sampled_from(_STREAM_PARTS), max_size=12),
                    st.lists(st.sampled_from(["+/1/x/y", "+/2/stack/M;1;1;1", ""]), min_size=1, max_size=12))


@settings(max_examples=500, deadline=None)
@given(_GROUPS, st.integers(0, 2), st.sampled_from([1, 4, 1 << 16]))
def test_3_1_a_group_read_by_one_split_has_every_kind_right(parts: list[str], level: int,
                                                           sample: int) -> None:
    """§3.1: a group of leaves read by one split (`_read_flat`, which gives a run of AddPieces their
    kind without looking it up) is GameModule.decode's, and each leaf's kind is its text's."""
    from vassal_parser import commands

    if level == 0:
        text = "\x1b".join(["begin_save", *parts])
    elif level == 1:
        text = "begin_save\x1b" + "\\\x1b".join(parts)
    else:
        text = "begin_save\x1bx\\\x1b" + "\\\\\x1b".join(parts)
    saved = commands._SAMPLE
    try:
        commands._SAMPLE = sample  # small: a long range is tried as a group of leaves first
        tree = commands._decode_node(text)
    finally:
        commands._SAMPLE = saved
    assert tree == commands._decode_node_slowly(text)
    assert all(leaf.kind == Command(leaf.text).kind for leaf in commands.iter_commands(tree))


def test_3_2_stacks_alike_but_for_their_id_are_read_once_and_each_installed() -> None:
    """§3.2: a save's many stacks of one state text (VASSAL's empty `null;0;0;@@-1` ones, or stacks
    naming the same members) are each a container of their own, with the members they name that are
    known; a repeated id does nothing. The state is read once per text (`Stack` made once)."""
    import vassal_parser.game as game_module

    texts = ["+/1/piece;;;a.svg;A/Main;10;20;;0", "+/2/piece;;;a.svg;A/Main;10;20;;0"]
    texts += [f"+/s{n}/stack/null;0;0;@@-1" for n in range(40)]
    texts += ["+/t1/stack/Main;10;20;1;2;@@0", "+/t2/stack/Main;10;20;1;2;@@0", "+/s3/stack/Main;5;5;1"]
    made: list[str] = []
    real_stack = game_module.Stack

    class Counted(real_stack):  # type: ignore[misc, valid-type]
        __slots__ = ()

        def __init__(self, piece_id, state_string) -> None:
            made.append(state_string)
            super().__init__(piece_id, state_string)

    expected = _state(_by_the_general_path([Command(text) for text in texts]))
    game_module.Stack = Counted
    try:
        board = _restored(texts)
    finally:
        game_module.Stack = real_stack
    assert _state(board) == expected
    assert sorted(made) == ["Main;10;20;1;2;@@0", "null;0;0;@@-1"]  # s3's repeated id: not read
    # t2 takes the members from t1, and a stack emptied so disappears (as the general path)
    assert len(board.containers) == 41 and "t1" not in board.containers
    assert board.containers["t2"].members == ["1", "2"] and board.parent == {"1": "t2", "2": "t2"}
