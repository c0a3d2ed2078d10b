"""§3.3 AddPiece `+/id/type/state`: the fast three-token split answers as SequenceEncoder.Decoder does."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from vassal_parser import sequence
from vassal_parser.commands import _first_slash_tokens, _parse_fields


def _reference(text: str) -> list[str]:
    tokens = sequence.Decoder(text[2:], "/")
    return [tokens.next_token("null"), tokens.next_token(""), tokens.next_token("")]


@settings(max_examples=500)
@given(st.text(alphabet="ab/\\'\t", max_size=40))
def test_3_3_add_piece_tokens_match_the_decoder(body: str) -> None:
    """§3.3/§4.2: escaped slashes (backslash dropped), the trailing-backslash merge, quotes, empties."""
    text = "+/" + body
    fields = _parse_fields("add_piece", text)
    expected = _reference(text)
    assert [fields["type"], fields["state"]] == expected[1:]
    assert fields["id"] == (None if expected[0] == "null" else expected[0])


def test_3_3_hand_worked_splits() -> None:
    """§4.2: `\\/` is an escaped slash; a quoted token loses its quotes; further tokens are left."""
    assert _first_slash_tokens("+/7/piece;;;a\\/b.png;X/Map;1;2/extra", 2, 3) == [
        "7", "piece;;;a/b.png;X", "Map;1;2"
    ]
    assert _first_slash_tokens("+/'q'/t/", 2, 3) == ["q", "t", ""]
    assert _first_slash_tokens("+/", 2, 3) == [""]
    fields = _parse_fields("add_piece", "+/9/mark;a\\/b\\/c\tpiece;;;x.png;X/on\\/off\tMap;1;2")
    assert (fields["id"], fields["type"]) == ("9", "mark;a/b/c\tpiece;;;x.png;X")
    assert fields["state"] == "on/off\tMap;1;2"


def test_3_3_a_repeated_type_is_looked_up_and_answers_as_the_first_read() -> None:
    """Pieces of one type share the unescaped type string (one table, bounded, emptied with the
    trait tables); a quoted or escaped type answers the same the second time."""
    from vassal_parser import commands
    from vassal_parser.traits import forget_shared_traits

    forget_shared_traits()
    texts = ["+/1/'mark;a\\/b\tpiece;;;x.png;X'/Map;1;2", "+/2/'mark;a\\/b\tpiece;;;x.png;X'/Map;3;4"]
    first, second = (_parse_fields("add_piece", text) for text in texts)
    assert first["type"] == second["type"] == "mark;a/b\tpiece;;;x.png;X"
    assert first["type"] is second["type"]
    assert [first["id"], second["state"]] == ["1", "Map;3;4"]
    assert all(_parse_fields("add_piece", text)["type"] == _reference(text)[1] for text in texts)
    for n in range(commands._TYPES_LIMIT + 10):  # full: emptied and started again, never larger
        _parse_fields("add_piece", f"+/{n}/piece;;;{n}.png;N/Map;1;2")
    assert len(commands._types_by_ends) <= commands._TYPES_LIMIT
    forget_shared_traits()
    assert not commands._types_by_ends


def test_3_3_types_alike_at_both_ends_are_told_apart() -> None:
    """A repeated type is found by its length and ends and proved by its whole text: two types of
    one length and the same ends (past the key's ends) are each read as themselves (spec §3.3)."""
    from vassal_parser import commands
    from vassal_parser.traits import forget_shared_traits

    forget_shared_traits()
    head, tail = "mark;a\\/b" + "x" * 100, "y" * 100 + "\tpiece;;;x.png;X"
    texts = [f"+/{n}/{head}{middle}{tail}/Map;{n};2" for n, middle in enumerate(["P", "Q", "P", "Q"])]
    read = [_parse_fields("add_piece", text) for text in texts]
    assert [fields["type"] for fields in read] == [_reference(text)[1] for text in texts]
    assert read[0]["type"] != read[1]["type"] and read[0]["type"] is read[2]["type"]
    assert len(commands._types_by_ends) == 1  # the second kept no entry: the first's ends are taken


@settings(max_examples=300)
@given(st.lists(st.text(alphabet="ab/\\'\t", max_size=12), min_size=2, max_size=6),
       st.lists(st.text(alphabet="ab/\\'", max_size=12), min_size=1, max_size=6))
def test_3_3_types_alike_up_to_their_last_tab_answer_as_the_decoder(
    heads: list[str], tails: list[str]
) -> None:
    """§3.3: AddPieces whose types share the text up to the last TAB (the outer traits of one kind)
    around other tails — escaped and unescaped slashes, quotes, backslashes — read one after
    another with the shared tables, answer as the decoder does (`commands._unescaped_type` takes the
    first one's unescaped text before the TAB)."""
    from vassal_parser.traits import forget_shared_traits

    forget_shared_traits()
    for head in heads:
        prefix = "x" * 200 + head + "\\/" + "\t"  # long: the ends alone name it
        for tail in tails:
            text = f"+/7/{prefix}{tail}\\/c/Map;1;2"
            assert _parse_fields("add_piece", text)["type"] == _reference(text)[1], text


def test_3_3_types_alike_at_both_ends_keep_their_own_text() -> None:
    """Two types as long, alike for hundreds of characters at either end of the text before their
    last TAB but not between, each read as their own."""
    from vassal_parser.traits import forget_shared_traits

    forget_shared_traits()
    for middle in ("c", "d", "c"):
        text = "+/1/mark;" + "a\\/" * 100 + middle + "b" * 300 + "\tpiece;;;x.png;X/Map;1;2"
        assert _parse_fields("add_piece", text)["type"] == _reference(text)[1]
