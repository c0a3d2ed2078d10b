"""The reader's fast paths for a never-seen save answer exactly as the general code does: the
`!VCSK` body read in one step (§2.1), the command tree read by range scans (§3.1), AddPieces with
no backslash split plainly (§3.3), the table of coordinates read before (§4.2)."""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from vassal_parser import sequence


def _parse_int_like_java(token: str, bits: int = 32) -> int | None:
    """Integer.parseInt / Long.parseLong, digit by digit as the JDK does it (a sign only in front,
    at least one digit, the range checked as it accumulates), each UTF-16 unit read by
    `Character.digit(c, 10)`: a decimal digit of any script in the Basic Multilingual Plane."""
    if not token:
        return None
    negative = token[0] == "-"
    index = 1 if token[0] in "+-" else 0
    if index == len(token):
        return None
    limit = (1 << (bits - 1)) if negative else (1 << (bits - 1)) - 1
    value = 0
    for char in token[index:]:
        digit = unicodedata.decimal(char, None) if ord(char) < 0x10000 else None
        if digit is None:
            return None
        value = value * 10 + digit
        if value > limit:
            return None
    return -value if negative else value


_INT_TOKENS = st.one_of(
    st.text(alphabet="+-0123456789", max_size=14),
    st.integers(min_value=-(1 << 33), max_value=1 << 33).map(str),
    st.sampled_from(["2147483647", "2147483648", "-2147483648", "-2147483649", "+0", "-0", "00042",
                     "٣", "1٣", "²", "1_0", " 1", "1 ", "+", "-", "", "0" * 30 + "12", "9" * 40]),
    st.text(max_size=6),
    st.sampled_from(["\uff11\uff12", "\U0001d7cf", "\u0f20\u0f21", "-\u0661", "+\u0967\u0968"]),
    st.tuples(st.sampled_from(["", "-", "+"]), st.integers(0, 6000), st.sampled_from(["7", "2147483648", ""]))
    .map(lambda parts: parts[0] + "0" * parts[1] + parts[2]),
)


@settings(max_examples=600)
@given(_INT_TOKENS, st.integers(min_value=-5, max_value=5))
def test_4_2_java_int_is_integer_parse_int_read_again_or_not(token: str, default: int) -> None:
    """§4.2 `nextInt`: sign, 32-bit range, decimal digits; the first read and a repeat (from
    the table of tokens read before) give Java's answer, else the default."""
    expected = _parse_int_like_java(token)
    assert sequence.java_parse_int(token) == expected
    assert sequence.java_parse_int(token, 64) == _parse_int_like_java(token, 64)
    answer = default if expected is None else expected
    assert sequence.java_int(token, default) == answer
    assert sequence.java_int(token, default) == answer  # the repeat: from the table where valid


def test_4_2_java_int_table_stays_bounded_and_keeps_only_short_tokens() -> None:
    """The table of read tokens never grows past its limit and keeps no long token (a 5,000-digit
    `000…7` is read each time, as Java reads it: 7)."""
    for number in range(sequence._INTS_LIMIT + 50):
        assert sequence.java_int(str(number), -1) == number
    assert len(sequence.KNOWN_INTS) <= sequence._INTS_LIMIT
    long_token = "0" * 5000 + "7"
    assert sequence.java_int(long_token, -1) == 7
    assert long_token not in sequence.KNOWN_INTS
    assert sequence.java_int("2147483648", -1) == -1


def _add_piece_reference(text: str) -> dict[str, object]:
    tokens = sequence.Decoder(text[2:], "/")
    piece_id = tokens.next_token("null")
    return {"id": None if piece_id == "null" else piece_id, "type": tokens.next_token(""),
            "state": tokens.next_token("")}


@settings(max_examples=600)
@given(st.lists(st.sampled_from(["a", "/", "'", "\t", ";", "null", "''", "'x'"]), max_size=14).map("".join))
def test_3_3_add_piece_without_backslashes_splits_as_the_decoder(body: str) -> None:
    """§3.3/§4.2: an AddPiece with no backslash is a plain split on `/` (the fourth token the
    state, later ones unread), each token unquoted (`'…'`), `null` the missing id."""
    from vassal_parser.commands import Command

    text = "+/" + body
    assert Command(text).fields == _add_piece_reference(text)


_ESC_TEXT = st.one_of(
    st.text(alphabet="ab\x1b\\'", max_size=60),
    st.lists(st.sampled_from(["a", "\x1b", "\\\x1b", "\\\\\x1b", "\\\\\\\x1b", "'", "''", "\\", "+/1/x/y"]),
             max_size=20).map("".join),
)


@settings(max_examples=500)
@given(_ESC_TEXT, st.sampled_from([0, 1, 3, 128, 10**9]), st.integers(min_value=1, max_value=6))
def test_3_1_range_scans_and_esc_positions_agree_whichever_reads_a_range(
    text: str, chars_per_esc: int, step: int
) -> None:
    """§3.1: the command tree read range by range by the scans (a plain group split a few
    characters at a time, as a big one is a megabyte at a time), by the ESC positions (found a
    few characters at a time), or by either as a range's density of ESCs chooses, is
    GameModule.decode's level by level."""
    from vassal_parser import commands

    expected = commands._decode_node_slowly(text)
    saved = commands._SCAN_CHARS_PER_ESC, commands._SPLIT_STEP, commands._POSITIONS_STEP
    finds, sample = commands._FINDS_PER_STEP, commands._SAMPLE
    try:
        commands._SCAN_CHARS_PER_ESC = chars_per_esc
        commands._SPLIT_STEP = commands._POSITIONS_STEP = step
        commands._FINDS_PER_STEP = step % 3
        commands._SAMPLE = step + 1
        assert commands._decode_node(text) == expected
        assert commands._esc_positions(text) == [i for i, char in enumerate(text) if char == "\x1b"]
    finally:
        commands._SCAN_CHARS_PER_ESC, commands._SPLIT_STEP, commands._POSITIONS_STEP = saved
        commands._FINDS_PER_STEP, commands._SAMPLE = finds, sample
    assert commands._decode_node(text) == expected


@settings(max_examples=300)
@given(st.text(alphabet="a\\\x1b", max_size=50), st.integers(0, 3), st.integers(1, 7), st.data())
def test_3_1_a_range_split_in_steps_is_the_range_split(text: str, level: int, step: int, data) -> None:
    """The split of a range a few characters at a time is the split of the range's copy."""
    from vassal_parser import commands

    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    delimiter = "\\" * level + "\x1b"
    saved = commands._SPLIT_STEP
    try:
        commands._SPLIT_STEP = step
        assert commands._split_range(text, start, end, delimiter) == text[start:end].split(delimiter)
    finally:
        commands._SPLIT_STEP = saved


def test_3_1_a_plain_group_of_add_pieces_is_one_split_and_round_trips() -> None:
    """§3.1: a save's group of plain AddPieces (one backslash before each ESC) gives one leaf per
    command, each the command's text, and encodes back byte for byte."""
    from vassal_parser.commands import Command, CommandGroup, decode_stream, encode_stream

    pieces = [f"+/{n}/piece;;;p{n}.png;P {n}/Map;{n};{2 * n};;0" for n in range(50)]
    text = "begin_save\x1b" + "\\\x1b".join(pieces) + "\x1bend_save"
    tree = decode_stream(text)
    group = tree.children[1]
    assert isinstance(group, CommandGroup) and not group.quoted
    assert [child.text for child in group.children if isinstance(child, Command)] == pieces
    assert encode_stream(tree) == text


def _vcsk(text_bytes: bytes, key: int) -> bytes:
    return b"!VCSK" + bytes([key]).hex().encode() + bytes(b ^ key for b in text_bytes).hex().encode()


@settings(max_examples=300)
@given(st.one_of(st.text(max_size=30).map(str.encode), st.binary(max_size=30)),
       st.integers(min_value=0, max_value=255), st.sampled_from([2, 4, 6, 1 << 20]),
       st.sampled_from(["", "x", "0", " "]))
def test_2_1_vcsk_in_one_step_or_many_gives_one_text_or_one_error(
    payload: bytes, key: int, chunk: int, tail: str
) -> None:
    """§2.1 `!VCSK`: hex, XOR with the first byte, UTF-8 after the XOR (§9.5). Read in one step
    (a body up to 1 MB) or in steps (bigger bodies), the text — or the one-line InputError for
    bad UTF-8, a non-hex character or an odd digit count — is the same."""
    from vassal_parser import container
    from vassal_parser.errors import InputError

    data = _vcsk(payload, key) + tail.encode()
    saved = container._HEX_CHUNK
    answers = []
    for size in (chunk, 1 << 20):
        container._HEX_CHUNK = size
        try:
            answers.append(container.decode_savedgame(data, "s.vsav"))
        except InputError as exc:
            answers.append(str(exc))
        finally:
            container._HEX_CHUNK = saved
    assert answers[0] == answers[1]
    if not tail:
        try:
            expected: object = (payload.decode("utf-8"), "!VCSK")
        except UnicodeDecodeError as exc:
            expected = f"s.vsav: savedGame is not valid UTF-8 (byte {exc.start + 1})"
        assert answers[0] == expected
    else:
        assert isinstance(answers[0], str) and "!VCSK body" in answers[0]  # strict: refused


def test_4_2_integer_parse_int_reads_digits_of_any_script_as_jdk_17_does() -> None:
    """What JDK 17's Integer.parseInt answered for these tokens (run by hand: NFE is None)."""
    answers = {"\u0661\u0662": 12, "-\u0661\u0662": -12, "\uff11\uff12": 12, "\U0001d7cf": None,
               "\u00b2": None, "1\u0663": 13, "\u0966\u0967": 1, "\u0660\u0660\u0667": 7, "\u2460": None,
               "\u0f20\u0f21": 1}
    assert {token: sequence.java_parse_int(token) for token in answers} == answers
