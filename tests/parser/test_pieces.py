"""Trait chains and pieces (spec §5): lossless on every corpus piece, known trait fields,
derived properties, and state changes that touch only what they must."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.parser.corpus_files import corpus_cases, stream_files
from vassal_parser.commands import decode_stream, iter_commands
from vassal_parser.container import open_container
from vassal_parser.pieces import Deck, Piece, Stack, make_piece, piece_from_command
from vassal_parser.sequence import encode
from vassal_parser.traits import (
    BasicPiece,
    DynamicProperty,
    Label,
    Layer,
    Marker,
    Mask,
    decode_chain,
    decode_chain_slowly,
    encode_chain,
)

STREAMS = stream_files()


def _add_pieces(node):
    """Every add-piece command, LOG payloads unwrapped in place (replay order)."""
    return (command for command in iter_commands(node, unwrap_log=True) if command.kind == "add_piece")


@pytest.mark.parametrize("relative", corpus_cases(STREAMS))
def test_spec_5_1_every_corpus_trait_chain_reencodes_byte_identically(
    corpus_dir: Path, relative: str
) -> None:
    tree = decode_stream(open_container(corpus_dir / relative).command_text())
    commands = list(_add_pieces(tree))
    # Every AddPiece that is not a Stack (type `stack`) or Deck (`deck;...`) is a piece and is checked;
    # streams with none (the empty corpus saves) check nothing, and say so by this count.
    expected = sum(
        1 for c in commands if c.fields["type"] != "stack" and not c.fields["type"].startswith("deck;")
    )
    checked = 0
    for command in commands:
        piece = piece_from_command(command)
        if not isinstance(piece, Piece):
            continue
        checked += 1
        traits = piece.traits  # forces the lazy decode
        type_string, state_string = encode_chain(traits)
        assert type_string == piece.type_string(), command.text[:120]
        assert (state_string or "") == piece.state_string(), command.text[:120]
        if len(piece.type_string()) + len(piece.state_string()) < 20_000:
            # the one-pass decoder agrees with the literal level-by-level SequenceEncoder decode
            assert traits == decode_chain_slowly(piece.type_string(), piece.state_string())
        assert isinstance(traits[-1], BasicPiece) or not piece.type_string().count("piece;")
        piece.properties()  # derived properties never fail on real pieces
    assert checked == expected


LAYER_TYPE = "emb2;" + ";".join(
    [
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "false",
        "0",
        "0",
        "full.png,reduced.png",
        ",+ (reduced)",
        "true",
        "Strength",
        "",
        "",
        "false",
        "",
        "1",
        "1",
        "false",
        "",
        "",
        "",
        "",
        "1.0",
        "",
        "",
    ]
)
BASIC_TYPE = encode(["piece", "", "", "tank.png", "1/2 Inf;Bn"], ";")
EXAMPLE_TYPE = encode(["mark;Nation,Type", encode([LAYER_TYPE, BASIC_TYPE], "\t")], "\t")
EXAMPLE_STATE = "German,Inf\t-1\\\tMain Map;325;188;12;1;UniqueID;1700000000123"


def test_spec_3_3_example_piece_fields() -> None:
    piece = Piece("1700000000123", EXAMPLE_TYPE, EXAMPLE_STATE)
    marker, layer, basic = piece.traits
    assert isinstance(marker, Marker) and isinstance(layer, Layer) and isinstance(basic, BasicPiece)
    assert marker.properties() == {"Nation": "German", "Type": "Inf"}
    assert piece.basic_name == "1/2 Inf;Bn"
    assert (piece.map, piece.x, piece.y, piece.gpid) == ("Main Map", 325, 188, "12")
    assert piece.persistent == {"UniqueID": "1700000000123"}
    assert layer.layer_name == "Strength" and layer.value == -1 and not layer.active
    props = piece.properties()
    assert props["Strength_Level"] == "-1" and props["Strength_Active"] == "false"
    assert props["Strength_Name"] == "" and props["PieceName"] == "1/2 Inf;Bn"
    assert props["Nation"] == "German" and props["UniqueID"] == "1700000000123"


def test_spec_5_2_layer_plus_rule_renames_the_piece_and_moved_to_keeps_other_bytes() -> None:
    piece = Piece("1", EXAMPLE_TYPE, EXAMPLE_STATE)
    reduced = piece.with_state(layer_levels={"Strength": 2})
    assert reduced.piece_name == "1/2 Inf;Bn (reduced)"
    assert reduced.properties()["Strength_Name"] == " (reduced)"
    assert reduced.properties()["Strength_Image"] == "reduced.png"
    moved = piece.moved_to("East Map", 400, -20)
    assert (moved.map, moved.x, moved.y) == ("East Map", 400, -20)
    assert moved.type_string() == piece.type_string()
    assert moved.state_string() == "German,Inf\t-1\\\tEast Map;400;-20;12;1;UniqueID;1700000000123"
    assert moved.traits[0] is piece.traits[0]  # untouched traits are the same objects
    off = piece.with_state(map=None, persistent={"OldLocationName": "0101"})
    assert off.map is None and off.persistent == {"UniqueID": "1700000000123", "OldLocationName": "0101"}
    assert decode_chain(off.type_string(), off.state_string())[-1].fields["map"] is None


def test_spec_5_2_marker_and_dynamic_property_changes() -> None:
    type_string = encode(["PROP;Steps;;;", encode(["mark;Nation", "piece;;;a.png;A"], "\t")], "\t")
    state_string = encode(["2", encode(["German", "null;0;0;;0"], "\t")], "\t")
    piece = Piece("9", type_string, state_string)
    assert isinstance(piece.traits[0], DynamicProperty)
    changed = piece.with_state(markers={"Nation": "Italian"}, dynamic={"Steps": "1"})
    assert changed.properties()["Nation"] == "Italian" and changed.properties()["Steps"] == "1"
    assert Piece("9", changed.type_string(), changed.state_string()).properties()["Steps"] == "1"


def test_spec_5_2_mask_label_invisible_and_names() -> None:
    basic = "piece;;;a.png;Panzer"
    label = "label;;;10;;0,0,0;t;0;c;0;b;c;$pieceName$ ($label$);Dialog;0;0;TextLabel;;false"
    mask = "obs;70,130;back.png;Flip;g;Hidden unit;sides:Germany;Peek;;false;;"
    hide = "hide;72,130;HIP;;player:;0.3"
    type_string = encode([hide, encode([mask, encode([label, basic], "\t")], "\t")], "\t")
    state_plain = encode(["null", encode(["null", encode(["XL", "Map;1;2;5;0"], "\t")], "\t")], "\t")
    piece = Piece("3", type_string, state_plain)
    assert isinstance(piece.traits[1], Mask) and isinstance(piece.traits[2], Label)
    assert piece.piece_name == "Panzer (XL)" and piece.properties()["TextLabel"] == "XL"
    assert piece.hidden_by is None and piece.masked_by is None
    state_masked = encode(["pw1", encode(["pw2;", encode(["XL", "Map;1;2;5;0"], "\t")], "\t")], "\t")
    masked = Piece("3", type_string, state_masked)
    assert masked.hidden_by == "pw1" and masked.masked_by == "pw2"
    assert masked.piece_name == "Hidden unit" and masked.basic_name == "Panzer"


def test_spec_5_1_chain_of_300_traits_decodes_without_recursion() -> None:
    type_string, state_string = "piece;;;a.png;Deep", "Map;10;20;1;0"
    for level in range(300):
        type_string = encode([f"mark;M{level}", type_string], "\t") or ""
        state_string = encode([f"v{level}", state_string], "\t") or ""
    piece = Piece("1", type_string, state_string)
    assert len(piece.traits) == 301
    assert piece.basic_name == "Deep" and (piece.x, piece.y) == (10, 20)
    assert piece.properties()["M0"] == "v0" and piece.properties()["M299"] == "v299"
    assert encode_chain(piece.traits) == (type_string, state_string)


def test_spec_5_4_stack_and_deck_states() -> None:
    stack = make_piece("5", "stack", "Main Map;325;188;1;2;@@0")
    assert isinstance(stack, Stack)
    assert (stack.map, stack.x, stack.y, stack.member_ids, stack.layer) == (
        "Main Map",
        325,
        188,
        ["1", "2"],
        0,
    )
    offmap = make_piece("6", "stack", "null;0;0;1;2;@@-1")
    assert offmap.map is None and offmap.member_ids == ["0", "0", "1", "2"]  # Stack.setState quirk
    deck_type = "deck;" + ";".join(["x"] * 12) + ";Strategy Deck;" + ";".join(["y"] * 10)
    deck = make_piece("7", deck_type, "Main Map;1057;143;true;11,12,13")
    assert isinstance(deck, Deck)
    assert (deck.name, deck.map, deck.face_down, deck.member_ids) == (
        "Strategy Deck",
        "Main Map",
        True,
        ["11", "12", "13"],
    )


def test_real_save_pieces_have_names_and_positions(corpus_dir: Path) -> None:
    save = corpus_dir / "jzedwards__vassal-hex-n-counters-template/ragnarok/vassal/ragnarok-start.vsav"
    tree = decode_stream(open_container(save).command_text())
    pieces = [piece_from_command(c) for c in _add_pieces(tree)]
    real = [p for p in pieces if isinstance(p, Piece)]
    assert real and all(p.basic_name for p in real)
    assert {p.map for p in real} - {None} and all(isinstance(p.x, int) for p in real)
    stacks = [p for p in pieces if isinstance(p, Stack)]
    known = {p.id for p in real}
    assert stacks and all(set(s.member_ids) <= known for s in stacks if s.map is not None)


def test_spec_5_5_chains_of_one_length_with_other_classes_answer_their_own_properties() -> None:
    """Chains as long but with their traits' classes in another order (a Marker where the other
    has a Text Label, a Basic Name trait, a Mask) each answer their own properties and names
    (pieces.py's chain profiles are shared by equal sequences of classes only)."""
    from vassal_parser.traits import forget_shared_traits

    label = "label;;;10;;0,0,0;t;0;c;0;b;c;$pieceName$ ($label$);Dialog;0;0;TextLabel;;false"
    mask = "obs;70,130;back.png;Flip;g;Hidden unit;sides:Germany;Peek;;false;;"
    outers = {
        "marker": (["mark;Nation", "mark;Type"], ["German", "Inf"]),
        "label": (["mark;Nation", label], ["German", "XL"]),
        "basic name": (["basicName;Renamed", "mark;Type"], ["", "Inf"]),
        "mask": ([mask, "mark;Type"], ["pw2;", "Inf"]),
    }
    forget_shared_traits()
    for _ in range(2):  # the second time from the shared tables
        found = {}
        for name, (types, states) in outers.items():
            type_string = encode([types[0], encode([types[1], "piece;;;a.png;Panzer"], "\t")], "\t")
            state_string = encode([states[0], encode([states[1], "Map;1;2;5;0"], "\t")], "\t")
            piece = Piece("3", type_string, state_string)
            properties = piece.properties()
            found[name] = (properties.get("Nation"), properties.get("Type"), properties.get("TextLabel"),
                           properties["BasicName"], properties["PieceName"], piece.masked_by)
        assert found == {
            "marker": ("German", "Inf", None, "Panzer", "Panzer", None),
            "label": ("German", None, "XL", "Panzer", "Panzer (XL)", None),
            "basic name": (None, "Inf", None, "Renamed", "Renamed", None),
            "mask": (None, "Inf", None, "Panzer", "Hidden unit", "pw2"),
        }
