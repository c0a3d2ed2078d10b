"""The daemon's stable-file check (spec §8.3), which now inflates `savedGame` in steps and decodes
only its head: a file is complete when the entry inflates to its recorded size with a good CRC
and the stamp held still; the encoding of the rest is the reader's to judge, and a complete file
the reader refuses gets a notice and never a plan.
"""

from __future__ import annotations

import io
import tracemalloc
import zipfile
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

from bridge.daemon.completeness import IncompleteFile, check_complete
from tests.bridge.harness import daemon_running, receive_until, run, ws_url
from tests.bridge.savefiles import (
    command_stream,
    fixture_planner,
    obfuscate,
    sample_plan,
    save_bytes,
    write_in_place,
)
from vassal_parser.container import open_container
from vassal_parser.errors import InputError

FAST = {"debounce": 0.03, "retry": 0.05}


def _zip(entry: bytes, method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        archive.writestr("savedGame", entry)
    return buffer.getvalue()


def _bad_hex_save() -> bytes:
    """A whole, well-formed zip whose `!VCSK` body has a non-hex character half-way through."""
    body = obfuscate(command_stream(sample_plan(turn="Broken"), pieces=50))
    middle = len(body) // 2
    return _zip(body[:middle] + b"zz" + body[middle + 2 :])


@pytest.mark.parametrize("entry", [
    obfuscate("begin_save\x1bend_save"),
    b"!VCSK \n" + obfuscate("begin_save\x1bend_save")[5:],  # whitespace before the digits, as before
    b"VOBS\x07" + bytes(b ^ 7 for b in b"begin_save\x1bend_save"),
    b"begin_save\x1bend_save",
])
def test_each_encoding_whose_stream_starts_begin_save_is_complete(tmp_path: Path, entry: bytes) -> None:
    path = tmp_path / "game.vsav"
    path.write_bytes(_zip(entry))
    assert check_complete(path).size == path.stat().st_size


@pytest.mark.parametrize("entry", [
    obfuscate("end_save"), obfuscate("")[:6], b"!VCSK2a" + b"zz" * 20, b"VOBS\x07" + b"begin_save",
    b"VOBS", b"hello world", b"",
])
def test_a_stream_that_does_not_start_begin_save_is_not_a_save(tmp_path: Path, entry: bytes) -> None:
    path = tmp_path / "game.vsav"
    path.write_bytes(_zip(entry))
    with pytest.raises(IncompleteFile, match="decode"):
        check_complete(path)


def test_an_entry_whose_bytes_do_not_match_its_crc_is_incomplete(tmp_path: Path) -> None:
    entry = obfuscate(command_stream(sample_plan(), pieces=20))
    data = bytearray(_zip(entry, zipfile.ZIP_STORED))
    at = data.index(entry) + len(entry) // 2
    data[at] = ord("0") if data[at] != ord("0") else ord("1")  # still hex: only the CRC can tell
    path = tmp_path / "game.vsav"
    path.write_bytes(bytes(data))
    with pytest.raises(IncompleteFile, match="CRC"):
        check_complete(path)


def test_an_entry_longer_than_its_recorded_size_is_incomplete(tmp_path: Path) -> None:
    # A zip that lies about the inflated size (a bomb's trick): zipfile stops at the recorded
    # size, and the CRC of what it read then does not match.
    entry = obfuscate(command_stream(sample_plan(), pieces=20))
    data = bytearray(_zip(entry))
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as archive:
        info = archive.getinfo("savedGame")
    recorded = info.file_size.to_bytes(4, "little")
    smaller = (info.file_size // 2).to_bytes(4, "little")
    at = data.rindex(recorded)  # the central directory's copy: the one zipfile reads
    data[at : at + 4] = smaller
    path = tmp_path / "game.vsav"
    path.write_bytes(bytes(data))
    with pytest.raises(IncompleteFile):
        check_complete(path)


def test_the_check_holds_a_step_of_the_entry_not_all_of_it(tmp_path: Path) -> None:
    path = tmp_path / "game.vsav"
    path.write_bytes(save_bytes(sample_plan(), pieces=20_000))
    with zipfile.ZipFile(path) as archive:
        size = archive.getinfo("savedGame").file_size
    assert size > 2_000_000
    tracemalloc.start()
    try:
        check_complete(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < size // 4  # it held the whole entry, and a decoded copy of it, before


def test_a_complete_save_the_reader_refuses_gets_a_notice_and_never_a_plan(tmp_path: Path) -> None:
    """A non-hex character in a whole file: the check passes it on (it is complete), the reader
    the real planner uses refuses it with its reason, and the last good plan stays."""
    path = tmp_path / "game.vsav"
    bad = _bad_hex_save()
    path.write_bytes(bad)
    assert check_complete(path).size == len(bad)
    with pytest.raises(InputError, match="non-hex"):
        open_container(path).command_text()
    lines: list[str] = []

    def reading_planner(file: Path, answers: Any) -> dict:
        open_container(file).command_text()  # what CheckPipeline's load_game decodes first
        return fixture_planner(file, answers)

    async def scenario() -> None:
        write_in_place(path, save_bytes(sample_plan(turn="Spring 1940")))
        async with (
            daemon_running(tmp_path, lines, plan_function=reading_planner, **FAST) as daemon,
            connect(ws_url(daemon, "stream")) as ws,
        ):
            await receive_until(ws, lambda m: ((m.get("set") or m.get("state") or {}).get("plan") or {})
                                .get("turn") == "Spring 1940")
            write_in_place(path, bad)
            seen = await receive_until(ws, lambda m: (m.get("set") or {}).get("status") == "error")
            assert "plan" not in seen["set"] and "non-hex" in seen["set"]["notice"]
            assert daemon.server.history.state["plan"]["turn"] == "Spring 1940"

    run(scenario)
    assert any(line.startswith("game.vsav: rejected") and "non-hex" in line for line in lines)
