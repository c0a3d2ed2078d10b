"""Small hand-made VASSAL files for the grid/game tests: a module, saves and logs built with the
real encoders, so each test states exactly what the file holds."""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path

from vassal_parser.sequence import encode

ESC = "\x1b"

MODULEDATA = (
    '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<data version="1"><version>1.0</version>'
    "<extra1/><extra2/><VassalVersion>3.7.12</VassalVersion><dateSaved>1700000000000</dateSaved>"
    "<description/><name>{name}</name></data>"
)
SAVEDATA = (
    '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<data version="1"><version>1.0</version>'
    "<extra1/><extra2/><VassalVersion>3.7.12</VassalVersion><dateSaved>1700000000000</dateSaved></data>"
)

PKG = "VASSAL.build.module"
BUILD_FILE = f"""<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<VASSAL.build.GameModule name="{{name}}" version="1.0" VassalVersion="3.7.12">
<{PKG}.Map mapName="Main Map" edgeWidth="10" edgeHeight="20">
<{PKG}.map.BoardPicker>
<{PKG}.map.boardPicker.Board name="Board" {{board_size}} reversible="false">
<{PKG}.map.boardPicker.board.ZonedGrid>
<{PKG}.map.boardPicker.board.SquareGrid dx="50.0" dy="50.0" x0="25" y0="25">
<{PKG}.map.boardPicker.board.mapgrid.SquareGridNumbering hType="A" hOff="0" vLeading="0"/>
</{PKG}.map.boardPicker.board.SquareGrid>
<{PKG}.map.boardPicker.board.mapgrid.Zone name="Box" path="400,400;500,400;500,500;400,500"
 locationFormat="$name$"/>
</{PKG}.map.boardPicker.board.ZonedGrid>
</{PKG}.map.boardPicker.Board>
<setup>Main MapBoardPicker\tBoard\t0\t0</setup>
</{PKG}.map.BoardPicker>
<{PKG}.map.DrawPile name="Deck" x="450" y="50" owningBoard="Board"/>
</{PKG}.Map>
<{PKG}.PrivateMap mapName="">
<{PKG}.map.BoardPicker>
<{PKG}.map.boardPicker.Board name="Hand" width="100" height="100"/>
</{PKG}.map.BoardPicker>
</{PKG}.PrivateMap>
</VASSAL.build.GameModule>
"""


def png_header(width: int, height: int) -> bytes:
    """Enough of a PNG for its size to be read: signature plus the IHDR chunk."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + b"\0\0\0\0"


def build_file(name: str = "Test Module", image: str | None = None) -> str:
    board_size = f'image="{image}"' if image else 'width="500" height="500"'
    return BUILD_FILE.replace("{name}", name).replace("{board_size}", board_size)


def write_module(folder: Path, name: str = "Test Module", image_size: tuple[int, int] | None = None) -> Path:
    """A .vmod: buildFile.xml + moduledata (+ images/board.png when `image_size`)."""
    path = folder / "test.vmod"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("buildFile.xml", build_file(name, "board.png" if image_size else None))
        archive.writestr("moduledata", MODULEDATA.format(name=name))
        if image_size:
            archive.writestr("images/board.png", png_header(*image_size))
    return path


def piece(
    piece_id: str, name: str, map_id: str, x: int, y: int, persistent: dict[str, str] | None = None
) -> str:
    """`+/id/type/state` for a piece with one Marker (`Side`) over its BasicPiece."""
    props = persistent or {}
    basic_state = encode(
        [map_id, str(x), str(y), "1", str(len(props)), *[t for kv in props.items() for t in kv]], ";"
    )
    type_chain = encode(["mark;Side", f"piece;;;{name}.png;{name}"], "\t")
    state_chain = encode(["Allies", basic_state], "\t")
    return "+/" + encode([piece_id, type_chain, state_chain], "/")


def stack(stack_id: str, map_id: str, x: int, y: int, members: list[str]) -> str:
    return "+/" + encode([stack_id, "stack", encode([map_id, str(x), str(y), *members, "@@0"], ";")], "/")


def deck(deck_id: str, name: str, map_id: str, x: int, y: int, members: list[str]) -> str:
    type_fields = ["deck", *[""] * 12, name]
    state = encode([map_id, str(x), str(y), "false", encode(members, ",") or ""], ";")
    return "+/" + encode([deck_id, encode(type_fields, ";"), state], "/")


def stream(pieces: list[str], steps: list[list[str]] = (), extras: list[str] = ()) -> str:
    """A command stream laid out like GameState.getRestoreCommand, then one LOG token per step."""
    group = encode(["", *pieces], ESC)
    top = ["begin_save", "", group, "Main MapBoardPicker\tBoard\t0\t0", *extras, "SETUP_STACK\t", "end_save"]
    for step in steps:
        logged = ["LOG\t" + command for command in step]
        top.append(logged[0] if len(logged) == 1 else encode(logged, ESC))
    return encode(top, ESC)


def obfuscate(text: str, key: int = 0x2A) -> bytes:
    body = bytes(b ^ key for b in text.encode("utf-8"))
    return b"!VCSK" + f"{key:02x}".encode() + body.hex().encode()


def write_game(
    folder: Path, text: str, name: str = "game.vsav", module_name: str | None = "Test Module"
) -> Path:
    """A .vsav/.vlog zip: savedGame (!VCSK), savedata, and moduledata naming `module_name`."""
    path = folder / name
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("savedGame", obfuscate(text))
        archive.writestr("savedata", SAVEDATA)
        if module_name is not None:
            archive.writestr("moduledata", MODULEDATA.format(name=module_name))
    return path
