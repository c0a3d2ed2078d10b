"""Equal trait texts share one Trait (spec §5.1 chains; docs/vassal-reader.md "Speed"): the answer is
the same as decoding afresh, and changing a piece makes new traits rather than touching shared ones."""

from __future__ import annotations

from vassal_parser import traits as traits_module
from vassal_parser.pieces import Piece
from vassal_parser.sequence import encode
from vassal_parser.traits import decode_chain, decode_chain_slowly, forget_shared_traits

LAYER = "emb2;;;;;;;;;;;;;;;;a.png,b.png;One,Two;;Step;;;;;;;;;;;;"
TYPE = encode(["mark;Side", encode([LAYER, "piece;;;u.png;Unit"], "\t")], "\t")
STATE = encode(["Allies", encode(["2", "Map;10;20;;0"], "\t")], "\t")


def test_5_1_equal_texts_share_traits_and_answer_as_a_fresh_decode() -> None:
    forget_shared_traits()
    first = decode_chain(TYPE, STATE)
    second = decode_chain(TYPE, STATE)
    assert all(a is b for a, b in zip(first, second, strict=True))
    assert [(t.type, t.state) for t in first] == [(t.type, t.state) for t in decode_chain_slowly(TYPE, STATE)]
    forget_shared_traits()
    fresh = decode_chain(TYPE, STATE)
    assert fresh == first and all(a is not b for a, b in zip(first, fresh, strict=True))


def test_5_1_changing_a_piece_leaves_the_shared_traits_alone() -> None:
    forget_shared_traits()
    piece = Piece("1", TYPE, STATE)
    other = Piece("2", TYPE, STATE)
    moved = piece.with_state(markers={"Side": "Axis"}, layer_levels={"Step": 1}, x=99)
    assert moved.properties()["Side"] == "Axis" and moved.properties()["Step_Level"] == "1"
    assert other.properties()["Side"] == "Allies" and other.properties()["Step_Level"] == "2"
    assert other.x == 10 and moved.x == 99


def test_5_1_the_tables_are_bounded(monkeypatch) -> None:
    forget_shared_traits()
    monkeypatch.setattr(traits_module, "_TRAIT_CACHE_LIMIT", 3)
    for n in range(10):
        decode_chain(f"mark;M{n}\tpiece;;;a.png;A", f"v{n}\tMap;1;1;;0")
    assert traits_module._trait_count[0] <= 3
    assert sum(map(len, traits_module._traits_by_type.values())) <= 3
