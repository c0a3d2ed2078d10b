"""Spec §5.1: the one-pass trait-chain split agrees with the literal level-by-level decode
(`SequenceEncoder.Decoder` on TAB, token 0 own, token 1 the rest) on chains the corpus has few
of: own tokens holding TABs (a trigger's or key command's lists), backslash runs, quotes, and
state chains shorter or longer than their type chain. Seeded, so a failure reproduces."""

from __future__ import annotations

import random

import pytest

from vassal_parser import sequence
from vassal_parser.traits import (
    _quote_starts_a_token,
    decode_chain,
    decode_chain_slowly,
    forget_shared_traits,
)

ALPHABET = ["a", "b", ";", ",", "\t", "\\", "'", "/", "é"]


def _fold(tokens: list[str]) -> str:
    """Decorator.getType/getState: each level SE(TAB) of (own token, the inner chain)."""
    encoded = tokens[-1]
    for token in reversed(tokens[:-1]):
        encoded = sequence.encode([token, encoded], "\t") or ""
    return encoded


def _token(chooser: random.Random, tabs: float) -> str:
    """An own token: mostly plain; with probability `tabs`, TABs, backslashes and quotes too."""
    if chooser.random() >= tabs:
        return "".join(chooser.choice("abc;,0123") for _ in range(chooser.randrange(0, 8)))
    return "".join(chooser.choice(ALPHABET) for _ in range(chooser.randrange(0, 10)))


def _pairs(seed: int) -> list[tuple[str, str | None]]:
    chooser = random.Random(seed)
    pairs = []
    for _ in range(60):
        depth = chooser.randrange(1, 40)
        tabs = chooser.choice([0.0, 0.05, 0.3])
        types = [_token(chooser, tabs) for _ in range(depth - 1)] + ["piece;;;x.png;Name"]
        state_depth = chooser.choice([depth, depth, max(1, depth - 3), depth + 2])
        states = [_token(chooser, tabs) for _ in range(state_depth - 1)] + ["Main Map;10;20;;0"]
        pairs.append((_fold(types), chooser.choice([_fold(states), None])))
    return pairs


@pytest.mark.parametrize("seed", range(12))
def test_spec_5_1_encoded_chains_split_as_the_literal_decode_does(seed: int) -> None:
    forget_shared_traits()
    for type_string, state_string in _pairs(seed):
        fast = decode_chain(type_string, state_string)
        slow = decode_chain_slowly(type_string, state_string)
        assert [(t.type, t.state) for t in fast] == [(t.type, t.state) for t in slow], (
            type_string, state_string)


@pytest.mark.parametrize("seed", range(12))
def test_spec_5_1_arbitrary_text_splits_as_the_literal_decode_does(seed: int) -> None:
    """Not every file was written by VASSAL: any text, TAB and backslash runs included, splits as
    Java's decoder splits it."""
    chooser = random.Random(1000 + seed)
    forget_shared_traits()
    for _ in range(200):
        type_string = "".join(chooser.choice(ALPHABET) for _ in range(chooser.randrange(0, 60)))
        state_string = "".join(chooser.choice(ALPHABET) for _ in range(chooser.randrange(0, 60)))
        fast = decode_chain(type_string, state_string)
        slow = decode_chain_slowly(type_string, state_string)
        assert [(t.type, t.state) for t in fast] == [(t.type, t.state) for t in slow], (
            type_string, state_string)


def test_spec_5_1_a_deep_chain_with_tabs_in_a_few_levels() -> None:
    """The corpus shape (PathsOfGlory: 160 levels, two levels holding TABs): plain stretches
    around the irregular levels."""
    types = [f"mark;L{n}" for n in range(160)] + ["piece;;;x.png;Name"]
    types[9] = "trigger;a\tb\tc"
    types[10] = "report;x\ty"
    states = [f"v{n}" for n in range(160)] + ["Main Map;1;2;;0"]
    states[40] = "list\tof\tthree"
    fast = decode_chain(_fold(types), _fold(states))
    assert [t.type for t in fast] == types
    assert [t.state for t in fast] == states


def _long_token(chooser: random.Random, tabs: float) -> str:
    """An own token of a few hundred characters (a real type's), so the chain takes the suffix-test
    proof (`_usual_levels`: long levels) rather than cut-and-prove."""
    plain = "".join(chooser.choice("abc;,0123/") for _ in range(chooser.randrange(130, 300)))
    return plain + _token(chooser, tabs)


@pytest.mark.parametrize("seed", range(8))
def test_spec_5_1_long_levels_split_as_the_literal_decode_does(seed: int) -> None:
    chooser = random.Random(2000 + seed)
    forget_shared_traits()
    for _ in range(20):
        depth = chooser.randrange(1, 30)
        tabs = chooser.choice([0.0, 0.1, 0.4])
        types = [_long_token(chooser, tabs) for _ in range(depth - 1)] + ["piece;;;x.png;Name"]
        states = [_long_token(chooser, tabs) for _ in range(chooser.choice([depth, depth + 1]) - 1)]
        state_string = _fold([*states, "Main Map;10;20;;0"])
        for pair in ((_fold(types), state_string), (_fold(types), _fold(types))):
            fast = decode_chain(*pair)
            slow = decode_chain_slowly(*pair)
            assert [(t.type, t.state) for t in fast] == [(t.type, t.state) for t in slow], pair


@pytest.mark.parametrize("width", [3, 200])
def test_spec_5_1_chains_deeper_than_the_run_tables(width: int) -> None:
    """600 levels (beyond the 512-level tables of backslash runs and cuts): short and long levels,
    plain and with TABs in two own tokens, each split back into the tokens it was folded from."""
    types = [f"mark;L{n}" + "x" * width for n in range(600)] + ["piece;;;x.png;Name"]
    states = [f"v{n}" + "y" * width for n in range(600)] + ["Main Map;1;2;;0"]
    forget_shared_traits()
    fast = decode_chain(_fold(types), _fold(states))
    assert [t.type for t in fast] == types
    assert [t.state for t in fast] == states
    types[7] = "trigger;a\tb"
    states[550] = "list\tof\tthree"
    forget_shared_traits()
    fast = decode_chain(_fold(types), _fold(states))
    assert [t.type for t in fast] == types
    assert [t.state for t in fast] == states


def test_spec_5_1_hostile_tab_shapes_stay_linear() -> None:
    """A million plain TABs, and a million TABs after runs too short for their level: the checks
    beyond the tables build no quadratic list of expected runs (bounded subprocess)."""
    from tests.hardening.bounded import outcome

    result = outcome("""
        from vassal_parser.traits import decode_chain, decode_chain_slowly
        tabs = "\\t" * 1_000_000
        short = "a\\\\\\t" * 1_000_000
        def pairs(chain):
            return [(t.type, t.state) for t in chain]
        one = decode_chain(tabs, tabs)
        two = decode_chain("mark;x" + short, short)
        assert pairs(one) == pairs(decode_chain_slowly(tabs, tabs))
        assert pairs(two) == pairs(decode_chain_slowly("mark;x" + short, short))
        print("ok", len(one), len(two))
        """)
    assert result.startswith("ok ")


INNERMOST = ["Main Map;10;20;;0", "Main Map;30;40;;0", "", "x'", "'x", "'x'", "a\\b", "b\\", "\\", "a\tb",
             "'"]


@pytest.mark.parametrize("seed", range(8))
def test_spec_5_1_pieces_differing_in_the_innermost_state_split_as_the_literal_decode(seed: int) -> None:
    """Pieces of one type whose states differ only in the innermost level (the BasicPiece's map and
    position, or a quote, a backslash or a TAB there), one after another in the shared tables,
    split as the literal decode does."""
    chooser = random.Random(3000 + seed)
    forget_shared_traits()
    for _ in range(25):
        depth = chooser.randrange(2, 30)
        tabs = chooser.choice([0.0, 0.05, 0.3])
        types = [_token(chooser, tabs) for _ in range(depth - 1)] + ["piece;;;x.png;Name"]
        outer_depth = chooser.choice([depth, depth, depth - 1, depth + 1])
        outer = [_token(chooser, tabs) for _ in range(outer_depth - 1)]
        for innermost in INNERMOST * 2:
            pair = (_fold(types), _fold([*outer, innermost]))
            fast = decode_chain(*pair)
            slow = decode_chain_slowly(*pair)
            assert [(t.type, t.state) for t in fast] == [(t.type, t.state) for t in slow], pair


@pytest.mark.parametrize("seed", range(8))
def test_spec_5_1_types_differing_after_the_last_tab_split_as_the_literal_decode(seed: int) -> None:
    """Type chains that differ only after their last TAB share the outer levels of the first one
    split (`traits._own_types`): one after another in the shared tables — their innermost level a
    BasicPiece type, empty, quoted, ending in backslashes or holding a TAB, around outer levels
    holding TABs, and arbitrary text before the TAB (runs ending the chain early) — each splits as
    the literal decode does."""
    chooser = random.Random(4000 + seed)
    forget_shared_traits()
    for _ in range(25):
        depth = chooser.randrange(1, 30)
        tabs = chooser.choice([0.0, 0.05, 0.3])
        outer = [_token(chooser, tabs) for _ in range(depth)]
        head = "".join(chooser.choice(ALPHABET) for _ in range(chooser.randrange(0, 40))) + "\t"
        for innermost in ["piece;;;x.png;Name", "piece;;;y.png;Other", *INNERMOST] * 2:
            for type_string in (_fold([*outer, innermost]), head + innermost.replace("\t", "")):
                fast = decode_chain(type_string, None)
                slow = decode_chain_slowly(type_string, None)
                assert [t.type for t in fast] == [t.type for t in slow], type_string


def test_spec_5_1_types_alike_at_both_ends_keep_their_own_outer_levels() -> None:
    """Two chains as long, alike for hundreds of characters at either end of the text before their
    last TAB but not between, each keep their own outer levels (a table found by the ends alone is
    not taken as the other's)."""
    forget_shared_traits()
    for middle in ("c", "d\te", "d", "c\te"):
        types = ["mark;" + "a" * 300 + middle + "b" * 300, "report;x", "piece;;;x.png;Name"]
        assert [t.type for t in decode_chain(_fold(types), None)] == types


def test_spec_5_1_a_quote_starts_a_token_however_many_quotes_come_before() -> None:
    """The quoted-token test reads a few quotes one by one and searches the rest of the text
    whole: a TAB and quote before, at or after that bound, or none, is found as the plain
    definition finds it (text starting with a quote, or a quote right after a TAB)."""
    chooser = random.Random(5000)
    texts = [("a'" * quotes) + tail for quotes in range(40) for tail in ("", "\t'x", "\tb'", "'")]
    texts += ["".join(chooser.choice(["'", "'", "a", "\t", "\\"]) for _ in range(chooser.randrange(0, 120)))
              for _ in range(2000)]
    for text in texts:
        assert _quote_starts_a_token(text) == (text.startswith("'") or "\t'" in text), text


@pytest.mark.parametrize("seed", range(6))
def test_spec_5_1_chains_full_of_quotes_split_as_the_literal_decode_does(seed: int) -> None:
    """Texts with many quotes (more than the ones looked at one by one), TABs and backslashes,
    as type and state chains, split as Java's decoder splits them."""
    chooser = random.Random(6000 + seed)
    alphabet = ["'", "'", "'", "a", "\t", "\\", ";"]
    forget_shared_traits()
    for _ in range(150):
        type_string = "".join(chooser.choice(alphabet) for _ in range(chooser.randrange(0, 200)))
        state_string = "".join(chooser.choice(alphabet) for _ in range(chooser.randrange(0, 200)))
        fast = decode_chain(type_string, state_string)
        slow = decode_chain_slowly(type_string, state_string)
        assert [(t.type, t.state) for t in fast] == [(t.type, t.state) for t in slow], (
            type_string, state_string)


def test_spec_5_1_walked_chains_deeper_than_the_run_tables_end_where_java_ends() -> None:
    """700 levels with TABs inside own tokens on either side of the 512-level tables (the runs
    beyond them built when asked), a TAB inside the innermost state, and text after a TAB whose
    run is too short for the innermost level (Java ignores it, so the levels are the folded
    ones)."""
    types = [f"mark;L{n}" for n in range(700)] + ["piece;;;x.png;Name"]
    for level in (3, 300, 510, 511, 512, 513, 650):
        types[level] = f"placemark;a{level}\tb\tc"
    states = [f"v{n}" for n in range(700)] + ["Main Map;1;2;;0\tinner\tstate"]
    states[600] = "list\tof\tthree"
    for tail in ("", "\tjunk", "\\" * 520 + "\tjunk"):
        forget_shared_traits()
        fast = decode_chain(_fold(types) + tail, _fold(states))
        assert [t.type for t in fast] == types, tail
        assert [t.state for t in fast] == states, tail


def test_spec_5_1_hostile_inner_tabs_and_quotes_stay_linear() -> None:
    """A million TABs inside one own token (each escaped deeper than its level), and a million
    quotes before a quoted token, split as the literal decode does, in linear time (bounded
    subprocess)."""
    from tests.hardening.bounded import outcome

    result = outcome("""
        from vassal_parser.traits import decode_chain, decode_chain_slowly
        inner = "mark;x\\t" + "a\\\\\\\\\\t" * 1_000_000 + "piece;;;x.png;Name"
        quotes = "'" * 1_000_000 + "\\t'x'\\tpiece;;;x.png;Name"
        def pairs(chain):
            return [(t.type, t.state) for t in chain]
        for chain in (inner, quotes):
            assert pairs(decode_chain(chain, chain)) == pairs(decode_chain_slowly(chain, chain))
        print("ok", len(decode_chain(inner, None)), len(decode_chain(quotes, None)))
        """)
    assert result.startswith("ok ")
