"""A piece of a kind read before (same type, same state text up to its BasicPiece state) takes its
outer traits from that piece instead of a decode (`Piece._known_kind_chain`, issue 15). Its chain
must be what the literal level-by-level decode gives (spec §5.1: BasicCommandEncoder.createPiece,
Decorator.setState), for outer states holding TABs, backslashes and quotes (spec §4) and for
BasicPiece states with and without them."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from module_patches.demo_pieces import chain
from vassal_parser.pieces import Piece
from vassal_parser.sequence import encode
from vassal_parser.traits import decode_chain_slowly, forget_shared_traits

USED: list[int] = []  # examples where the second piece took the shortcut (the test is not vacuous)
TEXT = st.text(alphabet="ab;,\t\\' 1", max_size=6)
OUTER = st.one_of(
    st.tuples(st.just("mark;Kind,Side"), TEXT),
    st.tuples(st.just("hide;p;Hide"), st.sampled_from(["null", "Axis", "", "'q'"])),
    st.tuples(st.just("PROP;Strength;;;"), TEXT),
    st.tuples(st.just("label;L;;;;;;;;;;;;;TextLabel"), TEXT),
)
BASIC = st.one_of(
    st.tuples(st.sampled_from(["Main", "null", "East"]), st.integers(-3, 999).map(str),
              st.integers(0, 999).map(str)).map(lambda t: encode(list(t), ";")),
    TEXT,
)


def _literal(type_string: str, state: str) -> list[tuple[type, str, str | None]]:
    return [(type(t), t.type, t.state) for t in decode_chain_slowly(type_string, state)]


@settings(max_examples=400, deadline=None)
@given(st.lists(OUTER, max_size=4), BASIC, BASIC, st.booleans())
def test_spec_5_1_a_known_kind_chain_is_the_literal_decode(outer, first_basic, second_basic, raw) -> None:
    forget_shared_traits()
    type_string = chain([t for t, _ in outer] + ["piece;;;img.svg;Rifle"])
    states = [s for _, s in outer]
    if raw:  # arbitrary state text, not an encoded chain
        first = "\t".join([*states, first_basic])
        second = "\t".join([*states, second_basic])
    else:
        first, second = chain([*states, first_basic]), chain([*states, second_basic])
    one = Piece("1", type_string, first)
    _ = one.where  # the full decode, which remembers the kind where its tail is plain
    two = Piece("2", type_string, second)
    if two._known_kind_chain() is not None:
        USED.append(1)
    assert [(type(t), t.type, t.state) for t in one.traits] == _literal(type_string, first)
    assert [(type(t), t.type, t.state) for t in two.traits] == _literal(type_string, second)
    assert two.where == (two.map, two.x, two.y)


def test_the_shortcut_was_taken() -> None:
    if not USED:  # run on its own (-k): run the comparison here
        test_spec_5_1_a_known_kind_chain_is_the_literal_decode()
    assert len(USED) > 40


def test_a_lone_basic_piece_and_an_escaped_tail() -> None:
    forget_shared_traits()
    lone = Piece("1", "piece;;;a.svg;Rifle", "Main;1;2")
    assert lone.where == ("Main", 1, 2)
    again = Piece("2", "piece;;;a.svg;Rifle", "Main;5;6")
    assert again._known_kind_chain() is not None and again.where == ("Main", 5, 6)
    tabbed = Piece("3", "piece;;;a.svg;Rifle", "Main;7;8\tx")  # a lone BasicPiece takes it all
    assert tabbed._known_kind_chain() is None and tabbed.traits[-1].state == "Main;7;8\tx"
    rifle = chain(["mark;Kind", "piece;;;a.svg;Rifle"])
    first = Piece("4", rifle, chain(["unit", "Main;1;2"]))
    assert first.where == ("Main", 1, 2)
    escaped = Piece("5", rifle, chain(["unit", "Main;1;2;a\\;b"]))
    assert escaped._known_kind_chain() is None and escaped.where == ("Main", 1, 2)
