"""`load_module`: maps, boards, BoardPicker, decks, extensions (spec §1.3, §6.1, §6.2, §7), and bad
module files refused with one line."""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path

import pytest

from tests.grids import builders
from vassal_parser.errors import InputError
from vassal_parser.grids import SquareGrid, ZonedGrid
from vassal_parser.layout import MapLayout
from vassal_parser.module import image_size, load_module, parse_board_picker

PKG = "VASSAL.build.module"


def test_maps_boards_and_identifiers_6_1(tmp_path: Path) -> None:
    """§6.1: identifier = mapName, else `MapN` by build order; §6.2 `<setup>` default selection."""
    module = load_module(builders.write_module(tmp_path))
    assert (module.name, module.version, module.vassal_version) == ("Test Module", "1.0", "3.7.12")
    assert [m.identifier for m in module.maps] == ["Main Map", "Map1"]
    assert [m.kind for m in module.maps] == ["Map", "PrivateMap"]
    main = module.map_by_id("Main Map")
    assert module.map_by_id("Map0") is main  # getMapById also accepts the internal id
    assert (main.edge_width, main.edge_height) == (10, 20)
    assert parse_board_picker(main.default_setup)[1] == [("Board", False, 0, 0)]
    assert main.draw_piles == {"Deck": (450, 50)}
    board = main.boards[0]
    assert board.size == (500, 500) and isinstance(board.grid, ZonedGrid)
    assert isinstance(board.grid.background, SquareGrid)
    assert board.grid.background.container_size == (500, 500)


def test_board_size_from_png_in_vmod_6_2(tmp_path: Path) -> None:
    """§6.2: a board with an image takes the image's size, read from the PNG header in the archive."""
    module = load_module(builders.write_module(tmp_path, image_size=(1234, 567)))
    board = module.map_by_id("Main Map").boards[0]
    assert (board.image, board.size) == ("board.png", (1234, 567))
    assert MapLayout(module.map_by_id("Main Map")).size == (1234 + 20, 567 + 40)


def test_image_size_headers() -> None:
    """PNG, GIF, JPEG (SOF0) and SVG sizes from the first bytes; anything else is unknown."""
    assert image_size(builders.png_header(10, 20)) == (10, 20)
    assert image_size(b"GIF89a" + struct.pack("<HH", 33, 44) + b"\0" * 8) == (33, 44)
    jpeg = (
        b"\xff\xd8"
        + b"\xff\xe0"
        + struct.pack(">H", 4)
        + b"JF"
        + b"\xff\xc0"
        + struct.pack(">HBHH", 11, 8, 66, 55)
    )
    assert image_size(jpeg) == (55, 66)
    assert image_size(b'<svg xmlns="http://www.w3.org/2000/svg" width="120px" height="80"/>') == (120, 80)
    assert image_size(b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 200"/>') == (300, 200)
    assert image_size(b"not an image") is None


def _write_extension(
    folder: Path, module_name: str, element: str, target: str, universal: bool = False
) -> Path:
    path = folder / "extra.vmdx"
    build = (
        f'<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
        f'<{PKG}.ModuleExtension anyModule="{str(universal).lower()}" module="{module_name}" version="1.0">'
        f'<{PKG}.ExtensionElement target="{target}">{element}</{PKG}.ExtensionElement>'
        f"</{PKG}.ModuleExtension>"
    )
    extensiondata = (
        '<data version="1"><version>1.0</version><VassalVersion>3.7.12</VassalVersion>'
        "<description/><universal>false</universal></data>"
    )
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("buildFile.xml", build)
        archive.writestr("extensiondata", extensiondata)
    return path


def test_extension_adds_deck_to_its_target_map_7(tmp_path: Path) -> None:
    """§7: each ExtensionElement's child is added at its `target` path (class:name steps)."""
    module_path = builders.write_module(tmp_path)
    element = f'<{PKG}.map.DrawPile name="Reinforcements" x="100" y="100" owningBoard="Board"/>'
    extension = _write_extension(tmp_path, "Test Module", element, f"{PKG}.Map:Main Map")
    module = load_module(module_path, [extension])
    assert module.extensions == ["extra"]
    assert module.map_by_id("Main Map").draw_piles == {"Deck": (450, 50), "Reinforcements": (100, 100)}


def test_extension_adds_a_map_at_module_level_7(tmp_path: Path) -> None:
    """§7: an empty target is the GameModule; an added Map gets the next internal id."""
    element = f'<{PKG}.Map mapName=""><{PKG}.map.BoardPicker/></{PKG}.Map>'
    extension = _write_extension(tmp_path, "Test Module", element, "")
    module = load_module(builders.write_module(tmp_path), [extension])
    assert [m.identifier for m in module.maps] == ["Main Map", "Map1", "Map2"]


def test_extension_for_another_module_is_refused_7(tmp_path: Path) -> None:
    """§7: a non-universal extension must name the module exactly; a universal one loads anywhere."""
    element = f'<{PKG}.map.DrawPile name="X" x="1" y="1"/>'
    wrong = _write_extension(tmp_path, "Another Game", element, f"{PKG}.Map:Main Map")
    with pytest.raises(InputError, match="'Another Game'"):
        load_module(builders.write_module(tmp_path), [wrong])
    universal = _write_extension(tmp_path, "Another Game", element, f"{PKG}.Map:Main Map", universal=True)
    assert "X" in load_module(builders.write_module(tmp_path), [universal]).map_by_id("Main Map").draw_piles


def test_extension_target_not_found_is_input_error_7(tmp_path: Path) -> None:
    element = f'<{PKG}.map.DrawPile name="X" x="1" y="1"/>'
    extension = _write_extension(tmp_path, "Test Module", element, f"{PKG}.Chatter/{PKG}.Nothing")
    with pytest.raises(InputError, match="not found"):
        load_module(builders.write_module(tmp_path), [extension])


def test_bare_build_file_loads_1_3(tmp_path: Path) -> None:
    path = tmp_path / "buildFile.xml"
    path.write_text(builders.build_file("Bare"), encoding="utf-8")
    module = load_module(path)
    assert module.name == "Bare" and module.map_by_id("Main Map").boards[0].size == (500, 500)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"<VASSAL.build.GameModule name='x'><unclosed></VASSAL.build.GameModule>", "malformed XML"),
        (
            b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>'
            b"<VASSAL.build.GameModule name='&lol2;'/>",
            "DTD",
        ),
        (b"<VASSAL.build.module.ModuleExtension module='x'/>", "extension"),
    ],
    ids=["malformed", "entity-bomb", "extension-not-module"],
)
def test_bad_module_files_are_one_line_input_errors(tmp_path: Path, content: bytes, message: str) -> None:
    """Bad input -> InputError naming the file, on one line (never a traceback, never an expansion)."""
    path = tmp_path / "buildFile.xml"
    path.write_bytes(content)
    with pytest.raises(InputError) as info:
        load_module(path)
    text = str(info.value)
    assert "\n" not in text and str(path) in text and message in text


def test_save_given_as_module_is_refused(tmp_path: Path) -> None:
    game = builders.write_game(tmp_path, builders.stream([]))
    with pytest.raises(InputError, match="not a VASSAL module"):
        load_module(game)


def test_board_without_image_or_size_is_500_square_6_2(tmp_path: Path) -> None:
    """Board.boundaries defaults to 500x500 when neither an image nor width/height is given; an image
    that is not in hand (bare build file) leaves the size unknown instead of guessing."""
    path = tmp_path / "buildFile.xml"
    path.write_text(
        f'<VASSAL.build.GameModule name="m"><{PKG}.Map mapName="M"><{PKG}.map.BoardPicker>'
        f'<{PKG}.map.boardPicker.Board name="Plain"/><{PKG}.map.boardPicker.Board name="Wide" width="800"/>'
        f'<{PKG}.map.boardPicker.Board name="Pictured" image="missing.png"/>'
        f"</{PKG}.map.BoardPicker></{PKG}.Map></VASSAL.build.GameModule>",
        encoding="utf-8",
    )
    boards = load_module(path).map_by_id("M").boards
    assert [board.size for board in boards] == [(500, 500), (800, 500), None]


def test_module_property_is_the_first_definition_and_follows_the_list() -> None:
    """`module_property` answers from an index: the first definition of a name wins, and a
    definition appended later (an extension's) or a value changed after a first ask is seen."""
    from vassal_parser.module import GlobalPropertyDef, Module

    module = Module("m.vmod", "m", "1", "3.7.12", "")
    module.global_properties += [GlobalPropertyDef("Turn", "1", "Module"),
                                 GlobalPropertyDef("Turn", "2", "Module")]
    assert (module.module_property("Turn"), module.module_property("Phase")) == ("1", None)
    module.global_properties.append(GlobalPropertyDef("Phase", "Move", "Module"))
    module.global_properties[0].initial_value = "3"
    assert (module.module_property("Turn"), module.module_property("Phase")) == ("3", "Move")
    module.global_properties = [GlobalPropertyDef("Phase", "Fire", "Module")]
    assert (module.module_property("Turn"), module.module_property("Phase")) == (None, "Fire")
