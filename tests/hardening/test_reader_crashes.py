"""Issue 14, tracebacks instead of one line: impossible numbers and broken zip containers are
`InputError`s naming the file, in the reader and in the daemon's completeness check."""

from __future__ import annotations

import io
import math
import struct
import zipfile
from pathlib import Path

import pytest

from bridge.cli.main import main
from bridge.daemon.completeness import IncompleteFile, check_complete
from tests.grids import builders
from vassal_parser.container import open_container
from vassal_parser.errors import InputError
from vassal_parser.game import load_game
from vassal_parser.module import load_module
from vassal_parser.sequence import java_parse_double, java_parse_int

SQUARE = 'SquareGrid dx="50.0" dy="50.0" x0="25" y0="25"'


def _module_with(tmp_path: Path, old: str, new: str) -> Path:
    text = builders.build_file()
    assert old in text
    path = tmp_path / "bad.vmod"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("buildFile.xml", text.replace(old, new))
        archive.writestr("moduledata", builders.MODULEDATA.format(name="Test Module"))
    return path


@pytest.mark.parametrize("attributes", [
    'SquareGrid dx="0" dy="50.0" x0="25" y0="25"',          # ZeroDivisionError before
    'SquareGrid dx="NaN" dy="50.0" x0="25" y0="25"',        # ValueError (int of NaN) before
    'SquareGrid dx="50.0" dy="1e400" x0="25" y0="25"',      # OverflowError before
    'SquareGrid dx="50.0" dy="50.0" x0="1e400" y0="25"',    # OverflowError: int(float('inf'))
    'SquareGrid dx="50.0" dy="50.0" x0="NaN" y0="25"',
    'SquareGrid dx="50.0" dy="50.0" x0="25" y0="99999999999"',
])
def test_impossible_grid_numbers_are_one_line_naming_the_module(tmp_path: Path, attributes: str) -> None:
    path = _module_with(tmp_path, SQUARE, attributes)
    with pytest.raises(InputError) as caught:
        load_module(path)
    line = caught.value.one_line()
    assert line.startswith(f"{path}: SquareGrid ") and "\n" not in line


def test_huge_leading_zeros_are_capped_where_the_name_is_made(tmp_path: Path) -> None:
    # hLeading="2000000000": VASSAL would pad two billion zeros; we stop and say where.
    numbering = 'hType="A" hOff="0" vLeading="0"'
    path = _module_with(tmp_path, numbering, 'hType="N" hOff="0" vLeading="2000000000"')
    save = builders.write_game(tmp_path, builders.stream([builders.piece("p1", "Tank", "Main Map", 40, 40)]))
    game = load_game(save, load_module(path))
    assert game.position()[0].location is None  # unknown, not "offboard"
    assert any("leading zeros" in problem for problem in game.problems())


def test_java_number_rules() -> None:
    assert java_parse_double("1e400") == math.inf and math.isnan(java_parse_double("NaN") or 0)
    assert java_parse_double(" 2.5d ") == 2.5 and java_parse_double("0x1p3") == 8.0
    for not_java in ("inf", "nan", "1_0", "\u0661", "", "1e"):
        assert java_parse_double(not_java) is None, not_java
    assert java_parse_int("9" * 5000) is None  # was a ValueError past Python's int-from-text limit
    assert java_parse_int("0" * 50 + "7") == 7 and java_parse_int("\u00b2") is None


def _zip_bytes(name: str, body: bytes, compression: int = zipfile.ZIP_DEFLATED) -> bytearray:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression) as archive:
        archive.writestr(name, body)
        archive.writestr("savedata", builders.SAVEDATA)
    return bytearray(out.getvalue())


def _central(data: bytearray) -> int:
    return data.index(b"PK\x01\x02")


def _corrupt_lzma(data: bytearray) -> None:
    start = 30 + len("savedGame") + 4 + 5  # after the LZMA properties header of the first entry
    data[start : start + 40] = b"\xff" * 40


def _bad_utf8_name(data: bytearray) -> None:
    at = _central(data)
    struct.pack_into("<H", data, at + 8, struct.unpack_from("<H", data, at + 8)[0] | 0x800)
    data[at + 46] = 0xFF


def _unsupported_version(data: bytearray) -> None:
    struct.pack_into("<H", data, _central(data) + 6, 99)


def _encrypted(data: bytearray) -> None:
    at = _central(data)
    struct.pack_into("<H", data, at + 8, struct.unpack_from("<H", data, at + 8)[0] | 0x1)


BROKEN_ZIPS = {
    "corrupt LZMA entry": (zipfile.ZIP_LZMA, _corrupt_lzma),            # LZMAError before
    "UTF-8 name flag with bad bytes": (zipfile.ZIP_DEFLATED, _bad_utf8_name),  # UnicodeDecodeError
    "unsupported zip version": (zipfile.ZIP_DEFLATED, _unsupported_version),  # NotImplementedError
    "encrypted flag": (zipfile.ZIP_DEFLATED, _encrypted),               # RuntimeError in the daemon
}


def _broken_save(tmp_path: Path, how: str) -> Path:
    compression, damage = BROKEN_ZIPS[how]
    text = builders.stream([builders.piece("p1", "Tank", "Main Map", 40, 40)])
    data = _zip_bytes("savedGame", builders.obfuscate(text) * 20, compression)
    damage(data)
    path = tmp_path / "broken.vsav"
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("how", sorted(BROKEN_ZIPS))
def test_broken_zip_containers_are_input_errors(tmp_path: Path, how: str) -> None:
    path = _broken_save(tmp_path, how)
    with pytest.raises(InputError) as caught:
        load_game(open_container(path).path)
    assert caught.value.one_line().startswith(f"{path}: ")


@pytest.mark.parametrize("how", sorted(BROKEN_ZIPS))
def test_broken_zip_containers_are_incomplete_for_the_daemon(tmp_path: Path, how: str) -> None:
    # RuntimeError/LZMAError escaped check_complete and the file was dropped without a notice.
    with pytest.raises(IncompleteFile):
        check_complete(_broken_save(tmp_path, how))


@pytest.mark.parametrize("how", sorted(BROKEN_ZIPS))
def test_cli_gives_one_line_and_exit_2_for_broken_zips(tmp_path: Path, how: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = _broken_save(tmp_path, how)
    assert main(["inspect", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"adjutant: {path}: ") and "Traceback" not in err


def test_cli_gives_one_line_and_exit_2_for_an_impossible_grid(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    path = _module_with(tmp_path, SQUARE, 'SquareGrid dx="50.0" dy="50.0" x0="1e400" y0="25"')
    assert main(["inspect", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "x0='1e400'" in err


def test_watch_with_a_bad_module_is_one_line_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # `adjutant watch --module BAD.vmod` crashed at start-up with a traceback.
    module = _module_with(tmp_path, SQUARE, 'SquareGrid dx="0" dy="50.0" x0="25" y0="25"')
    folder = tmp_path / "saves"
    folder.mkdir()
    pack = Path(__file__).resolve().parents[2] / "module_patches" / "demo" / "pack"
    assert main(["watch", str(folder), "--module", str(module), "--pack", str(pack), "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"adjutant: {module}: SquareGrid dx='0'")
