"""§5.5 BasicName and PieceName as VASSAL 3.7 computes them: the Basic Name trait (`BasicName.java`)
answers BasicName; Text Label name and label texts are `$…$` formats (`Labeler`,
`FormattedStringExpression`) evaluated against the piece's own properties."""

from __future__ import annotations

from pathlib import Path

from vassal_parser.game import load_game
from vassal_parser.module import load_module
from vassal_parser.pieces import Piece
from vassal_parser.sequence import encode
from vassal_parser.traits import BasicNameTrait, evaluate_format


def _label(name_format: str = "$pieceName$ ($label$)", property_name: str = "TextLabel", always: str = "") -> str:  # noqa: E501
    fields = ["label", "", "", "10", "", "0,0,0", "t", "0", "c", "0", "b", "c", name_format, "Dialog", "0",
              "0", property_name, ""]
    if always:
        fields.append(always)
    return encode(fields, ";") or ""


def _piece(types: list[str], states: list[str]) -> Piece:
    type_string = types[-1]
    for own in reversed(types[:-1]):
        type_string = encode([own, type_string], "\t") or ""
    state_string = states[-1]
    for own in reversed(states[:-1]):
        state_string = encode([own, state_string], "\t") or ""
    return Piece("7", type_string, state_string)


BASIC = "piece;;;a.png;Panzer"
BASIC_STATE = "Map;1;2;5;0"


def test_5_5_basic_name_trait_answers_basic_name_and_passes_the_name_through() -> None:
    """BasicName.getProperty(BasicName) = its name; BasicName.getName() = piece.getName(), and the
    BasicPiece's getName() is the outermost piece's BasicName property (`BasicPiece.getName`, 3.6-3.7)."""
    piece = _piece(["basicName;Domash", "piece;;;card.png;"], ["", BASIC_STATE])
    assert isinstance(piece.traits[0], BasicNameTrait)
    assert piece.properties()["BasicName"] == "Domash"
    assert piece.basic_name_property == "Domash" and piece.basic_name == ""
    assert piece.piece_name == "Domash"  # issue 28: was "", where VASSAL names the piece
    assert piece.properties()["PieceName"] == "Domash"


def test_5_5_the_outermost_basic_name_trait_wins() -> None:
    piece = _piece(["basicName;Outer", "basicName;Inner", BASIC], ["", "", BASIC_STATE])
    assert piece.properties()["BasicName"] == "Outer"


def test_5_5_a_label_format_refers_to_another_property() -> None:
    """The label text `$Strength$` is evaluated against the piece: a Marker answers it."""
    piece = _piece([_label(), "mark;Strength", BASIC], ["$Strength$", "4", BASIC_STATE])
    assert piece.properties()["TextLabel"] == "4"
    assert piece.piece_name == "Panzer (4)"


def test_5_5_a_name_format_with_other_properties_and_pieceName_cleaned() -> None:
    """`$PieceName$` in a name format is read as `$pieceName$` (Labeler.clean); `$BasicName$` is the
    piece's property (here from a Basic Name trait outside the label). The inner name is the
    BasicPiece's getName(), which is that same BasicName property, not the BasicPiece's own field."""
    piece = _piece(["basicName;Tiger", _label("$BasicName$: $PieceName$ [$label$]"), BASIC],
                   ["", "II", BASIC_STATE])
    assert piece.piece_name == "Tiger: Tiger [II]"
    assert piece.properties()["PieceName"] == "Tiger: Tiger [II]"


def test_5_5_an_unknown_property_gives_its_own_name() -> None:
    """FormattedStringExpression appends the token when the piece answers null."""
    piece = _piece([_label("$pieceName$ $Nowhere$"), BASIC], ["x", BASIC_STATE])
    assert piece.piece_name == "Panzer Nowhere"
    assert evaluate_format("a$b$c", {}, lambda key: None) == "abc"
    assert evaluate_format("a$b$c", {"b": None}, None) == "ac"  # a format's own null property: nothing


def test_5_5_empty_label_keeps_the_inner_name_unless_always_use_format() -> None:
    assert _piece([_label(), BASIC], ["", BASIC_STATE]).piece_name == "Panzer"
    always = _piece([_label("[$pieceName$]", always="true"), BASIC], ["", BASIC_STATE])
    assert always.piece_name == "[Panzer]"


def test_5_5_label_is_trimmed_and_may_not_name_itself() -> None:
    """Labeler.setLabel: trim, then `$<its property name>$` removed."""
    piece = _piece([_label(property_name="Tag"), BASIC], ["  A$Tag$B  ", BASIC_STATE])
    assert piece.properties()["Tag"] == "AB"
    assert piece.piece_name == "Panzer (AB)"


def test_5_5_a_label_naming_the_piece_name_stops() -> None:
    """A label whose text is `$PieceName$` asks for the name it is part of: bounded, no hang."""
    piece = _piece([_label(), BASIC], ["$PieceName$", BASIC_STATE])
    assert isinstance(piece.piece_name, str)


def test_5_5_label_formats_see_the_map_properties(tmp_path: Path) -> None:
    """The game layer passes CurrentMap/LocationName etc.: a label `$CurrentMap$` names the map."""
    from tests.grids.builders import stream, write_game, write_module

    module = load_module(write_module(tmp_path, image_size=(500, 400)))
    types = encode([_label(), "piece;;;a.png;Panzer"], "\t")
    states = encode(["on $CurrentMap$", "Main Map;100;100;;0"], "\t")
    text = stream(["+/" + encode(["p1", types, states], "/")])
    game = load_game(write_game(tmp_path, text), module)
    (placed,) = game.position()
    assert placed.piece_name == "Panzer (on Main Map)"
    assert placed.properties["TextLabel"] == "on Main Map"


def test_5_5_nevsky_cards_take_their_basic_name_from_the_trait(corpus_dir: Path) -> None:
    """Nevsky's command cards are defined by prototype with an empty BasicPiece name."""
    folder = corpus_dir / "Cattlesquat__Nevsky"
    module = load_module(folder / "buildFile.xml")
    game = load_game(folder / "Scenario_Crusade_on_Novgorod_1240_to_1242.vsav", module)
    cards = [piece for piece in game.position() if any(isinstance(t, BasicNameTrait) for t in piece.traits)]
    assert cards
    for piece in cards:
        outermost = next(t for t in piece.traits if isinstance(t, BasicNameTrait))
        assert piece.basic_name == outermost.basic_name
    assert any(piece.basic_name == "Domash - Command Card" for piece in cards)


def test_5_5_a_piece_named_by_a_basic_name_trait_has_that_piece_name(corpus_dir: Path) -> None:
    """Issue 28: Inferno's cards carry their name in a Basic Name trait only; VASSAL's PieceName is that
    name (`BasicPiece.getName` asks the outermost piece for BasicName), never ""."""
    folder = corpus_dir / "Cattlesquat__Inferno"
    if not (folder / "Scen0-QuickStart.vsav").exists():
        import pytest

        pytest.skip(f"{folder} not in the corpus")
    game = load_game(folder / "Scen0-QuickStart.vsav", load_module(folder / "buildFile.xml"))
    named = [p for p in game.position() if any(isinstance(t, BasicNameTrait) for t in p.traits)]
    (genova,) = [p for p in named if p.basic_name == "F9 - Genova / Balestrieri"]
    assert genova.piece_name == "F9 - Genova / Balestrieri"
    assert genova.properties["PieceName"] == "F9 - Genova / Balestrieri"
    assert len(named) > 100 and all(p.piece_name for p in named if p.basic_name)
