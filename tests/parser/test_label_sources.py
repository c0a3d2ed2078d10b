"""Issue 40: PieceName of pieces whose Text Label formats name properties, as VASSAL 3.7 evaluates
them (`Labeler.getName`, `FormattedStringExpression`, `BasicPiece.getPublicProperty`): the piece's
traits (Markers, Dynamic Properties, Translatable Messages, Calculated Properties, labels), then its
zone's, map's and the module's Global Properties with the values the file holds, and deck sizes.
Expected names are worked out from the files' own values, not from the code under test."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest

from tests.conftest import CORPUS_DIR
from tests.grids import builders
from tests.parser.corpus_files import corpus_cases, stream_files
from vassal_parser.game import PositionMemo, load_game
from vassal_parser.module import Module, load_module
from vassal_parser.sequence import decode, encode
from vassal_parser.traits import CalculatedProperty, DynamicProperty, Label, Marker, TranslatableMessage

INFERNO = "Cattlesquat__Inferno"
FOR_THE_PEOPLE = "Cattlesquat__ForThePeople"


def _label(name_format: str = "$pieceName$ ($label$)") -> str:
    fields = ["label", "", "", "10", "", "0,0,0", "t", "0", "c", "0", "b", "c", name_format, "Dialog", "0",
              "0", "TextLabel", ""]
    return encode(fields, ";") or ""


def _chain(levels: list[str]) -> str:
    text = levels[-1]
    for own in reversed(levels[:-1]):
        text = encode([own, text], "\t") or ""
    return text


def _piece(piece_id: str, types: list[str], states: list[str], x: int = 135, y: int = 145) -> str:
    basic = encode(["Main Map", str(x), str(y), "", "0"], ";")
    return "+/" + encode([piece_id, _chain([*types, "piece;;;a.png;Marker"]), _chain([*states, basic])], "/")


def _global(name: str, value: str, container: str) -> str:
    return encode(["GlobalProperty\t", name, value, container], ";") or ""


@pytest.fixture
def module(tmp_path: Path) -> Module:
    return load_module(builders.write_module(tmp_path))


def _names(tmp_path: Path, module: Module, pieces: list[str], extras: list[str], name: str = "g.vsav"):
    game = load_game(builders.write_game(tmp_path, builders.stream(pieces, extras=extras), name), module)
    return {piece.id: piece.piece_name for piece in game.position()}


# --- synthetic ---------------------------------------------------------------------------------

def test_a_translatable_message_answers_its_key(tmp_path: Path, module: Module) -> None:
    piece = _piece("p", [_label("Service Marker - $ShortName$"), "locmsg;ShortName;;Siena"], ["x", ""])
    assert _names(tmp_path, module, [piece], [])["p"] == "Service Marker - Siena"


def test_a_calculated_property_answers_with_its_expression(tmp_path: Path, module: Module) -> None:
    calc = 'calcProp;SideName;{If(CounterLayer == 1,"CONFEDERATE", "UNION")};'
    piece = _piece("p", [_label(), calc, "mark;CounterLayer"], ["$SideName$", "", "1"])
    assert _names(tmp_path, module, [piece], [])["p"] == "Marker (CONFEDERATE)"


def test_an_expression_not_read_leaves_the_name_as_for_an_unknown_property(
        tmp_path: Path, module: Module) -> None:
    """CountStack is not read: the value is unknown, and the format keeps the name (as VASSAL does
    for a property no one answers) rather than a guess."""
    piece = _piece("p", [_label(), "calcProp;Count;{CountStack()};"], ["$Count$", ""])
    assert _names(tmp_path, module, [piece], [])["p"] == "Marker (Count)"


def test_global_properties_zone_then_map_then_module_with_the_files_values(
        tmp_path: Path, module: Module) -> None:
    """BasicPiece.getPublicProperty -> Zone.getProperty -> Map.getProperty -> GameModule.getProperty;
    the values are those the save holds (`GlobalProperty` commands)."""
    in_zone = _piece("z", [_label()], ["$VP$"], 450, 450)  # inside zone "Box"
    on_map = _piece("m", [_label()], ["$VP$"])
    module_only = _piece("o", [_label()], ["$Turn$"])
    extras = [_global("VP", "12", "Module"), _global("VP", "7", "Main Map"),
              _global("VP", "3", "Main Map:Box"), _global("Turn", "5", "Module")]
    names = _names(tmp_path, module, [in_zone, on_map, module_only], extras)
    assert names == {"z": "Marker (3)", "m": "Marker (7)", "o": "Marker (5)"}


def test_the_pieces_own_properties_shadow_global_ones(tmp_path: Path, module: Module) -> None:
    piece = _piece("p", [_label(), "mark;VP"], ["$VP$", "mine"])
    assert _names(tmp_path, module, [piece], [_global("VP", "12", "Module")])["p"] == "Marker (mine)"


def test_a_decks_size_is_its_maps_numpieces_property(tmp_path: Path, module: Module) -> None:
    cards = [_piece(f"c{i}", ["mark;Side"], ["x"]) for i in range(3)]
    counter = _piece("p", [_label("Cards: $Deck_numPieces$")], ["x"])
    deck = builders.deck("d1", "Deck", "Main Map", 450, 50, ["c0", "c1", "c2"])
    assert _names(tmp_path, module, [*cards, deck, counter], [])["p"] == "Cards: 3"


def test_a_decks_count_expressions_count_its_pieces(tmp_path: Path, module: Module) -> None:
    """Deck.updateCounts: `<deck>_<name>` counts the pieces a `name: expression` accepts — an old-style
    PropertiesPieceFilter (`Count = One`) or a BeanShell one; an expression not read leaves the name."""
    cards = [_piece(f"c{i}", ["mark;Count"], ["One" if i < 2 else "Two"]) for i in range(3)]
    fields = ["deck", *[""] * 12, "Deck", *[""] * 7, "3",
              encode(["ones: Count = One", 'twos: {Count == "Two"}', "odd: Count =~ O.*"], ","), "true"]
    state = encode(["Main Map", "450", "50", "false", encode(["c0", "c1", "c2"], ",") or ""], ";")
    deck = "+/" + encode(["d1", encode(fields, ";"), state], "/")
    counter = _piece("p", [_label("$Deck_ones$ $Deck_twos$ $Deck_odd$")], ["x"])
    assert _names(tmp_path, module, [*cards, deck, counter], [])["p"] == "2 1 Deck_odd"


def test_a_memo_reuses_a_piece_reading_global_properties_only_where_they_are_the_same(
        tmp_path: Path, module: Module) -> None:
    """The daemon's memo: two saves alike but for a Global Property value give two names."""
    piece = _piece("p", [_label()], ["$VP$"])
    memo = PositionMemo(module)
    names = []
    for value in ("1", "2", "2"):
        text = builders.stream([piece], extras=[_global("VP", value, "Module")])
        path = builders.write_game(tmp_path, text, f"g{value}.vsav")
        (placed,) = load_game(path, module, memo=memo).position()
        names.append(placed.piece_name)
    assert names == ["Marker (1)", "Marker (2)", "Marker (2)"]


def test_a_walk_places_a_reader_again_when_a_step_sets_a_global_property(
        tmp_path: Path, module: Module) -> None:
    """Game.walk places only what a step touched: a step setting VP touches the pieces reading it."""
    piece = _piece("p", [_label()], ["$VP$"])
    text = builders.stream([piece], steps=[[_global("VP", "9", "Module")]],
                           extras=[_global("VP", "1", "Module")])
    game = load_game(builders.write_game(tmp_path, text, "g.vlog"), module)
    walked = [step.placed["p"].piece_name for step in game.walk()]
    assert walked == ["Marker (1)", "Marker (9)"]
    assert game.position_at(1)[0].piece_name == "Marker (9)"


def test_calculated_properties_naming_each_other_stay_linear(tmp_path: Path, module: Module) -> None:
    """Twelve properties each naming the next three times: 3^12 evaluations without one answer per
    name and evaluation; here one lookup per name. Deeper than the cap (a cycle) is unknown."""
    calcs = [f"calcProp;P{i};{{P{i + 1} + P{i + 1} + P{i + 1}}};" for i in range(12)] + ["calcProp;P12;{1};"]
    piece = _piece("p", [_label(), *calcs], ["$P0$", *[""] * len(calcs)])
    assert _names(tmp_path, module, [piece], [])["p"] == f"Marker ({3 ** 12})"
    loop = _piece("q", [_label(), "calcProp;A;{B};", "calcProp;B;{A};"], ["$A$", "", ""])
    assert _names(tmp_path, module, [loop], [], "loop.vsav")["q"] == "Marker (A)"


# --- the corpus --------------------------------------------------------------------------------

def _need(*relative: str) -> None:
    for path in relative:
        if not (CORPUS_DIR / path).exists():
            pytest.skip(f"{CORPUS_DIR / path} not in the corpus (set ADJUTANT_SHARED to the shared/ folder)")


@lru_cache(maxsize=4)
def _module(path: str) -> Module:
    return load_module(CORPUS_DIR / path)


def test_inferno_service_markers_are_named_by_their_short_name() -> None:
    """Scen0-QuickStart: label `Service Marker - $ShortName$`, ShortName a Translatable Message of the
    piece (`locmsg;ShortName;;Siena`): VASSAL shows `Service Marker - Siena`."""
    _need(f"{INFERNO}/Scen0-QuickStart.vsav", f"{INFERNO}/buildFile.xml")
    game = load_game(CORPUS_DIR / INFERNO / "Scen0-QuickStart.vsav", _module(f"{INFERNO}/buildFile.xml"))
    checked = 0
    for piece in game.position():
        labels = [t for t in piece.traits if isinstance(t, Label)
                  and t.fields.get("name_format") == "Service Marker - $ShortName$"]
        if not labels:
            continue
        short = next(t.fields["message"] for t in piece.traits
                     if isinstance(t, TranslatableMessage) and t.fields["key"] == "ShortName")
        assert piece.piece_name == f"Service Marker - {short}"
        checked += 1
    assert checked >= 4
    assert "Service Marker - Siena" in {piece.piece_name for piece in game.position()}


def test_for_the_people_political_control_markers_name_their_side() -> None:
    """1861-3-5: `$SideName$` with `SideName = {If(CounterLayer == 1,"CONFEDERATE", "UNION")}` and
    CounterLayer a Dynamic Property of the piece."""
    _need(f"{FOR_THE_PEOPLE}/1861-3-5.vsav", f"{FOR_THE_PEOPLE}/buildFile.xml")
    game = load_game(CORPUS_DIR / FOR_THE_PEOPLE / "1861-3-5.vsav",
                     _module(f"{FOR_THE_PEOPLE}/buildFile.xml"))
    found = []
    for piece in game.position():
        if not any(isinstance(t, CalculatedProperty) and t.property_name == "SideName" for t in piece.traits):
            continue
        if not any(isinstance(t, Label) and "$SideName$" in t.fields["label"] + t.fields["name_format"]
                   for t in piece.traits):
            continue
        layer = next(value for t in piece.traits if (value := t.properties().get("CounterLayer")) is not None)
        side = "CONFEDERATE" if layer == "1" else "UNION"
        assert piece.piece_name.endswith(f"({side})")
        found.append(piece.piece_name)
    assert "Political Control Marker (CONFEDERATE)" in found


def _module_for(path: Path) -> Path | None:
    for folder in [path.parent, *path.parents]:
        for name in ("buildFile.xml", "buildFile"):
            if (folder / name).is_file():
                return folder / name
        if folder == CORPUS_DIR:
            return None
    return None


def _simple_values(piece, game) -> dict[str, str]:
    """The values of the names a format may read, from the sources a reader can see without the code
    under test: the piece's Markers, Dynamic Properties and Translatable Messages (outer first) and
    the module-level Global Property values the file holds."""
    values: dict[str, str] = {}
    for (container, name), value in game.global_properties.items():
        if container in ("Module", ""):
            values[name] = value
    own: dict[str, str] = {}
    for trait in piece.traits:
        if isinstance(trait, Marker):
            for key, value in zip(trait.fields["names"], trait.fields["values"], strict=False):
                own.setdefault(key, value)
        elif isinstance(trait, DynamicProperty):
            own.setdefault(trait.fields["name"], trait.state or "")
        elif isinstance(trait, TranslatableMessage):
            own.setdefault(trait.fields["key"], trait.fields["message"])
        elif isinstance(trait, CalculatedProperty | Label):
            own.setdefault(getattr(trait, "property_name", ""), "\0")  # answered otherwise: not simple
    values.update(own)
    return {key: value for key, value in values.items() if value != "\0"}


_STREAMS = [name for name in stream_files() if _module_for(CORPUS_DIR / name) is not None]


@pytest.mark.parametrize("relative", corpus_cases(_STREAMS, "corpus saves and logs with their module"))
def test_no_placeholder_whose_value_is_known_remains(relative: str) -> None:
    """Every corpus piece with a label format: a name the format reads whose value the file holds
    (a Marker, Dynamic Property or Translatable Message of the piece, a module Global Property) is
    replaced by that value — its bare name does not stand in the PieceName where the value is
    another text that the name is not part of."""
    path = CORPUS_DIR / relative
    module_path = _module_for(path)
    game = load_game(path, _module(str(module_path.relative_to(CORPUS_DIR))))  # type: ignore[union-attr]
    for piece in game.position():
        formats = [text for trait in piece.traits if isinstance(trait, Label)
                   for text in (trait.fields.get("label", ""), trait.fields.get("name_format", ""))]
        names = {token for text in formats if "$" in text for token in decode(text, "$")[1:-1:2]}
        names -= {"", "pieceName", "label", "PieceName", "BasicName"}
        if not names:
            continue
        literal = "".join(token for text in formats for token in decode(text, "$")[0::2])
        values = _simple_values(piece, game)
        for name in names:
            if name in literal:  # the format's own text holds it
                continue
            value = values.get(name)
            if value is None or name in value or name in piece.basic_name:
                continue
            others = [v for key, v in values.items() if key != name] + [piece.basic_name]
            if any(name in text for text in others):
                continue
            assert name not in piece.piece_name, (relative, piece.id, name, value, piece.piece_name)
