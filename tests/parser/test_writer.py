"""Writing saves/logs VASSAL 3.7 loads (spec §1.1, §1.2, §2.1, §3.2, §9.6-9.7)."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest
from lxml import etree

from vassal_parser.commands import Command, decode_stream, encode_stream, iter_commands, split_log
from vassal_parser.container import open_container
from vassal_parser.sequence import encode
from vassal_parser.writer import ENTRY_ORDER, ensure_loadable, metadata_xml, write_game_file

SAVE = "Cattlesquat__PathsOfGlory/Historical10-8.vsav"
LOG = "danj3000__BBVassal/testlog.vlog"


KASSALA = "rummelsworth__vassal-module-kassala/vmod/Default Setup.vsav"


@pytest.mark.parametrize("relative", [SAVE, LOG, KASSALA])
def test_spec_1_1_written_file_reads_back_identically(
    corpus_dir: Path, tmp_path: Path, relative: str
) -> None:
    source = open_container(corpus_dir / relative)
    text = source.command_text()
    assert "SETUP_STACK\t" in text  # modern saves: ensure_loadable must change nothing
    target = tmp_path / ("copy" + Path(relative).suffix)
    moduledata = source.read_entry("moduledata") if source.has_entry("moduledata") else {"name": "PoG"}
    write_game_file(target, decode_stream(text), module_metadata=moduledata, key=0x5A)
    copy = open_container(target)
    assert copy.kind == source.kind
    assert copy.savedgame_encoding == "!VCSK"
    assert copy.command_text() == text
    if isinstance(moduledata, bytes):
        assert copy.read_entry("moduledata") == moduledata  # byte copy, as VASSAL does
    else:
        assert copy.metadata["name"] == "PoG"
    with zipfile.ZipFile(target) as archive:
        assert archive.namelist() == list(ENTRY_ORDER)
        assert all(info.compress_type == zipfile.ZIP_DEFLATED for info in archive.infolist())
        assert archive.testzip() is None
        assert archive.read("savedGame").startswith(b"!VCSK5a")
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]  # temp file renamed away


def test_spec_1_2_metadata_is_well_formed_and_in_vassal_order(tmp_path: Path) -> None:
    xml = metadata_xml(
        {
            "version": "2.1",
            "VassalVersion": "3.7.12",
            "dateSaved": "1700000000000",
            "description": "Turn 3 & co",
            "name": "My Module",
        },
        "moduledata",
    )
    root = etree.fromstring(xml)
    assert [child.tag for child in root] == [
        "version",
        "extra1",
        "extra2",
        "VassalVersion",
        "dateSaved",
        "description",
        "name",
    ]
    assert root.findtext("description") == "Turn 3 & co"
    savedata = etree.fromstring(metadata_xml({"version": "2.1"}, "savedata"))
    assert savedata.find("description") is None  # omitted without a comment
    assert savedata.findtext("dateSaved").isdigit()


def _stream(*pieces: str) -> str:
    group = encode(["", *pieces], "\x1b")
    return encode(["begin_save", "", group, "end_save"], "\x1b") or ""


def test_spec_3_2_members_are_moved_before_their_stack_and_setup_stack_added(tmp_path: Path) -> None:
    stack = "+/9/stack/Main Map;10;20;1;2;@@0"
    text = _stream(stack, "+/1/piece;;;a.png;A/Main Map;10;20;;0", "+/2/piece;;;b.png;B/Main Map;10;20;;0")
    tree = ensure_loadable(decode_stream(text))
    adds = [c.fields["id"] for c in iter_commands(tree) if c.kind == "add_piece"]
    assert adds == ["1", "2", "9"]
    assert [c.text for c in iter_commands(tree)][-2:] == ["SETUP_STACK\t", "end_save"]
    target = write_game_file(tmp_path / "fixed.vsav", text)
    assert open_container(target).command_text() == encode_stream(tree)


def test_spec_3_2_correct_order_is_left_untouched() -> None:
    text = _stream("+/1/piece;;;a.png;A/Main Map;10;20;;0", "+/9/stack/Main Map;10;20;1;@@0")
    tree = ensure_loadable(decode_stream(text))
    assert [c.fields["id"] for c in iter_commands(tree) if c.kind == "add_piece"] == ["1", "9"]


def test_spec_3_5_log_written_keeps_its_steps(corpus_dir: Path, tmp_path: Path) -> None:
    text = open_container(corpus_dir / LOG).command_text()
    target = write_game_file(tmp_path / "out.vlog", text)
    _, steps = split_log(decode_stream(open_container(target).command_text()))
    _, original = split_log(decode_stream(text))
    assert [[c.text for c in step] for step in steps] == [[c.text for c in step] for step in original]


def test_existing_file_is_replaced_atomically_not_rewritten_in_place(tmp_path: Path) -> None:
    target = tmp_path / "game.vsav"
    write_game_file(target, _stream("+/1/piece;;;a.png;A/Main Map;10;20;;0"))
    inode_before = os.stat(target).st_ino
    write_game_file(target, _stream("+/2/piece;;;b.png;B/Main Map;10;20;;0"))
    assert os.stat(target).st_ino != inode_before  # a new file was renamed over the old one
    commands = list(iter_commands(decode_stream(open_container(target).command_text())))
    assert Command("+/2/piece;;;b.png;B/Main Map;10;20;;0") in commands


def test_a_failed_write_leaves_the_old_file_and_no_temp_file(tmp_path: Path, monkeypatch) -> None:
    """User files are never modified in place: if the rename fails, the old file is intact and the
    temporary file is gone (write_atomically, used by saves, packs and the demo module)."""
    from vassal_parser import writer

    target = tmp_path / "pack.toml"
    target.write_bytes(b"old")

    def refuse(*_args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(writer.os, "replace", refuse)
    with pytest.raises(OSError, match="disk full"):  # the refused rename, not some other OSError
        writer.write_atomically(target, b"new")
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pack.toml"]
