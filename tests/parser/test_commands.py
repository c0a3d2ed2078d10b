"""The ESC command tree (spec §3): exact decode/encode on every corpus stream, kinds, LOG steps."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.parser.corpus_files import corpus_cases, expected_counts, stream_files
from vassal_parser.commands import (
    ESC,
    Command,
    CommandGroup,
    add_piece_command,
    decode_stream,
    encode_stream,
    iter_commands,
    move_piece_command,
    split_log,
)
from vassal_parser.container import open_container
from vassal_parser.sequence import encode

STREAMS = stream_files()
EXPECTED = expected_counts()


def _all_leaves(node):
    """Every leaf at every level, LOG payloads expanded (how SOURCES.md counted)."""
    for command in iter_commands(node):
        yield command
        if command.kind == "log" and command.inner is not None:
            yield from _all_leaves(command.inner)


@pytest.mark.parametrize("relative", corpus_cases(STREAMS))
def test_spec_3_1_every_corpus_stream_decodes_and_reencodes_byte_identically(
    corpus_dir: Path, relative: str
) -> None:
    text = open_container(corpus_dir / relative).command_text()
    tree = decode_stream(text)
    assert encode_stream(tree) == text
    assert tree.children[0] == Command("begin_save")
    # The two bare hand-made streams end "end_save\n" (a trailing newline VASSAL would not accept).
    assert any(
        isinstance(child, Command) and child.text.rstrip("\n") == "end_save" for child in tree.children
    )


@pytest.mark.parametrize("relative", corpus_cases(sorted(EXPECTED), "SOURCES.md counts"))
def test_spec_3_1_counts_match_the_independent_corpus_survey(corpus_dir: Path, relative: str) -> None:
    expected = EXPECTED[relative]
    tree = decode_stream(open_container(corpus_dir / relative).command_text())
    leaves = list(_all_leaves(tree))
    assert len(tree.children) == expected.top_level
    assert sum(1 for c in leaves if c.kind == "add_piece") == expected.add_pieces
    assert sum(1 for c in leaves if c.kind == "log") == expected.log_commands
    assert sum(1 for c in leaves if c.text and c.kind != "log") == expected.leaf_commands


def test_spec_3_2_example_layout_top_level_tokens() -> None:
    piece = "+/1700000000123/piece;;;a.png;A/null;0;0;1;0"
    stack = "+/1700000000999/stack/Main Map;325;188;1700000000123;1700000000124;@@0"
    group = encode(["", piece, stack], ESC)
    parts = [
        "begin_save",
        "",
        group,
        "UNMASK\tnull",
        "PLAYER\tsecret\tAlice\tGermany",
        "Main MapBoardPicker\tEurope\t0\t0",
        "TURNTurnTracker0\t0|1;0;false;-1",
        "SETUP_STACK\t",
        "end_save",
    ]
    text = encode(parts, ESC)
    assert "\\\x1b+/1700000000123" in text
    tree = decode_stream(text)
    assert encode_stream(tree) == text
    assert len(tree.children) == 9
    kinds = [c.kind for c in iter_commands(tree)]
    assert kinds == [
        "begin_save",
        "null",
        "null",
        "add_piece",
        "add_piece",
        "unmask",
        "player",
        "board_picker",
        "turn",
        "setup_stack",
        "end_save",
    ]
    commands = list(iter_commands(tree))
    assert commands[4].fields == {
        "id": "1700000000999",
        "type": "stack",
        "state": "Main Map;325;188;1700000000123;1700000000124;@@0",
    }
    assert commands[6].fields == {"player_id": "secret", "name": "Alice", "side": "Germany"}
    assert commands[7].fields["map"] == "Main Map"
    assert commands[7].fields["boards"] == [{"name": "Europe", "reversed": False, "col": 0, "row": 0}]
    assert commands[8].fields == {"tracker_id": "TurnTracker0", "state": "0|1;0;false;-1"}


@pytest.mark.parametrize(
    ("text", "kind", "fields"),
    [
        ("-/1700000000123", "remove_piece", {"id": "1700000000123"}),
        ("D/17/new\\/state/old", "change_piece", {"id": "17", "new_state": "new/state", "old_state": "old"}),
        (
            "GlobalProperty\t;VP;12\\;5;Module",
            "global_property",
            {"name": "VP", "value": "12;5", "container": "Module"},
        ),
        (
            "MutableProperty\t2d6_result\t3\t7\tModule",
            "mutable_property",
            {"name": "2d6_result", "old_value": "3", "new_value": "7", "container": "Module"},
        ),
        ("EXT\tBFP_v403\t4.03", "extension", {"name": "BFP_v403", "version": "4.03"}),
        ("PLUGIN\tp\t1", "plugin", {"name": "p", "version": "1"}),
        ("NOTES\tline 1|line 2||x\\|y", "notes", {"text": "line 1\nline 2\n\nx|y"}),
        ("PYREMOVE\tpw", "player_remove", {"player_id": "pw"}),
        ("UNDO\ttrue", "undo", {"begin": True}),
        ("CHAT&lt;Alice&gt; - hi", "chat", {"message": "&lt;Alice&gt; - hi"}),
        ("AUDIO\tbang.wav", "audio", {"clip": "bang.wav"}),
        ("SEMAIL\ta@b", "internet_dice", {"address": "a@b"}),
        ("FLARE\tFlare0\t10\t20", "flare", {"flare_id": "Flare0", "x": 10, "y": 20}),
        (
            "Events1,alice,moved|2,bob,rolled",
            "events",
            {
                "events": [
                    {"time": "1", "user": "alice", "action": "moved"},
                    {"time": "2", "user": "bob", "action": "rolled"},
                ]
            },
        ),
        ("SHOW_RESULTS\tbtn\t3\t5", "show_results", {"button_id": "btn", "results": ["3", "5"]}),
        ("PNOTE\tpw\thello|there", "private_note", {"owner_id": "pw", "text": "hello\nthere"}),
        (
            "LOCKSPOTAB\tOptions\talice\tpw\tnow",
            "scenario_tab_lock",
            {"tab": "Options", "locked_by": "alice", "locked_password": "pw", "locked_date": "now"},
        ),
        ("SomethingNew\tx", "unknown", {}),
    ],
)
def test_spec_3_4_leaf_command_kinds_and_fields(text: str, kind: str, fields: dict) -> None:
    command = Command(text)
    assert command.kind == kind
    assert command.fields == fields
    assert encode_stream(decode_stream(text)) == text


def test_spec_3_3_move_piece_fields_and_builder_round_trip() -> None:
    built = move_piece_command("17", "Main Map", 400, 188, "Main Map", 325, 188, player_id="secret")
    assert built.text == "M/17/Main Map/400/188/null/Main Map/325/188/null/secret"
    assert built.fields["new_x"] == 400 and built.fields["old_map"] == "Main Map"
    assert built.fields["new_under"] is None and built.fields["player_id"] == "secret"
    add = add_piece_command(None, "piece;;;a.png;1/2 Inf", "null;0;0;;0")
    assert add.text == "+/null/piece;;;a.png;1\\/2 Inf/null;0;0;;0"
    assert add.fields == {"id": None, "type": "piece;;;a.png;1/2 Inf", "state": "null;0;0;;0"}


def test_spec_3_5_log_steps_unwrap_nested_logs_and_tolerate_null_payloads() -> None:
    step1 = encode(["LOG\tM/1/Map/1/2/null/Map/0/0/null/pw", "LOG\tnull", "LOG\tCHAT* Alice moves"], ESC)
    step2 = "LOG\t"
    step3 = encode(["LOG\tUNDO\ttrue", "LOG\t-/1", "LOG\tUNDO\tfalse"], ESC)
    text = encode(["begin_save", "", "SETUP_STACK\t", "end_save", step1, step2, step3], ESC)
    tree = decode_stream(text)
    assert encode_stream(tree) == text
    restore, steps = split_log(tree)
    assert [c.text for c in restore] == ["begin_save", "", "SETUP_STACK\t", "end_save"]
    assert [[c.kind for c in step] for step in steps] == [
        ["move_piece", "chat"],
        [],
        ["undo", "remove_piece", "undo"],
    ]


def test_spec_3_5_split_log_on_a_real_log(corpus_dir: Path) -> None:
    tree = decode_stream(open_container(corpus_dir / "uckelman__tld-mod/game/0606-4.log").command_text())
    restore, steps = split_log(tree)
    assert restore[0].text == "begin_save" and restore[-1].text == "end_save"
    assert len(steps) == len(tree.children) - len(restore_top(tree))
    assert all(command.kind != "log" for step in steps for command in step)
    moves = [c for step in steps for c in step if c.kind == "move_piece"]
    assert moves and all(c.fields["id"] for c in moves)


def restore_top(tree: CommandGroup) -> list:
    end = next(i for i, c in enumerate(tree.children) if isinstance(c, Command) and c.text == "end_save")
    return tree.children[: end + 1]


def test_quoted_token_is_a_group_like_gamemodule_decode() -> None:
    # The top level strips one quote pair; the token "'+/…'" then splits to ["+/…"], which differs
    # from the input, so GameModule.decode treats it as a (one-command) group. Bytes survive.
    text = "begin_save\x1b''+/1/stack/null''"
    tree = decode_stream(text)
    group = tree.children[1]
    assert isinstance(group, CommandGroup) and group.quoted
    assert group.children[0].kind == "add_piece"
    assert encode_stream(tree) == text


def test_deep_nesting_does_not_hit_the_recursion_limit() -> None:
    text = "CHAT deepest"
    for level in range(1200):  # deeper than Python's default recursion limit (1000)
        text = encode([f"CHAT {level}", text], ESC) or ""
    tree = decode_stream(text)
    assert encode_stream(tree) == text
    assert sum(1 for _ in iter_commands(tree)) == 1201


leaf_text = st.text(alphabet=st.sampled_from(list("ab/;\t\\'+M é")), max_size=10).filter(
    lambda t: not t.endswith("\\")
)
trees = st.recursive(leaf_text, lambda children: st.lists(children, min_size=2, max_size=4), max_leaves=20)


def _encode_model(node) -> str:
    if isinstance(node, str):
        return node
    return encode([_encode_model(child) for child in node], ESC) or ""


@given(trees)
def test_property_tree_encode_decode_encode_is_identity(model) -> None:
    text = _encode_model(model)
    assert encode_stream(decode_stream(text)) == text


_TREE_TEXT = st.recursive(
    st.text(alphabet="ab\\'", max_size=4),
    lambda inner: st.lists(inner, min_size=1, max_size=4).map(lambda parts: encode(parts, ESC) or ""),
    max_leaves=12,
)


@settings(max_examples=400)
@given(st.one_of(_TREE_TEXT, st.text(alphabet="ab\x1b\\'", max_size=40)))
def test_spec_3_1_one_pass_tree_equals_the_level_by_level_decode(text: str) -> None:
    """Spec §3.1: the command tree read in one pass over the ESCs (ranges of the text, no group
    copied) is GameModule.decode's, level by level: nesting by backslash runs, escaped ESCs, quoted
    tokens, empty and trailing tokens, single-token (quoted) groups — and any text at all."""
    from vassal_parser.commands import _decode_node, _decode_node_slowly

    assert _decode_node(text) == _decode_node_slowly(text)


def test_spec_3_1_hostile_esc_shapes_stay_linear() -> None:
    """200,000 ESCs, plain and escaped, an ESC after 100,000 backslashes (a delimiter 100,000
    levels down: so many nested groups; the level-by-level decode copied the text at each) and a
    2,000-deep nesting: each ESC is looked at once per level it is inside, which its run of
    backslashes pays for (bounded subprocess)."""
    from tests.hardening.bounded import outcome

    result = outcome("""
        from vassal_parser.commands import Command, CommandGroup, decode_stream, encode_stream
        plain = decode_stream("\\x1b" * 200_000)
        assert len(plain.children) == 200_001
        escaped = decode_stream("a\\\\\\x1b" * 200_000)  # one token: 200,000 "a" and ""
        assert escaped.quoted and len(escaped.children[0].children) == 200_001
        deep = decode_stream("\\\\" * 100_000 + "\\x1bx")
        levels = 0
        node = deep
        while isinstance(node, CommandGroup):
            node, levels = node.children[0], levels + 1
        assert levels == 100_001 and isinstance(node, Command)
        nested = "x"
        for _ in range(2000):
            nested = "y\\x1b" + nested.replace("\\x1b", "\\\\\\x1b")
        assert encode_stream(decode_stream(nested)) == nested
        print("ok")
        """)
    assert result == "ok"
