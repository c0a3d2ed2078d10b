"""Opening VASSAL files (spec §1, §2): encodings sniffed, metadata hardened, bad input refused
with one line through the CLI (exit 2, no traceback)."""

from __future__ import annotations

import lzma
import zipfile
from pathlib import Path

import pytest

from bridge.cli.main import main
from vassal_parser import container as container_module
from vassal_parser.container import decode_savedgame, open_container, read_metadata_xml
from vassal_parser.errors import InputError
from vassal_parser.writer import obfuscate

VASL_FIXTURES = "pacman-ghost__vasl-templates/vasl_templates/webapp/tests/fixtures"
TEMPLATE_VMOD = "jzedwards__vassal-hex-n-counters-template/jzhex-n-counters-template-v12-379.vmod"
STREAM = "begin_save\x1bCHAT<Zoë> - héllo\x1bend_save"


def test_spec_2_1_worked_example_key_2a() -> None:
    assert decode_savedgame(b"!VCSK2a484f4d434475594b5c4f", "x") == ("begin_save", "!VCSK")
    assert decode_savedgame(b"!VCSK2ae983", "x") == ("é", "!VCSK")
    assert decode_savedgame(b"!VCSK2AE983", "x") == ("é", "!VCSK")  # upper-case hex accepted
    assert obfuscate("begin_save", 0x2A) == b"!VCSK2a484f4d434475594b5c4f"
    assert obfuscate("é", 0x2A) == b"!VCSK2ae983"


def _zip(path: Path, entries: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return path


@pytest.mark.parametrize(
    ("payload", "encoding"),
    [
        (obfuscate(STREAM, 0), "!VCSK"),
        (b"VOBS" + bytes([0x5C]) + bytes(b ^ 0x5C for b in STREAM.encode()), "VOBS"),
        (lzma.compress(STREAM.encode()), "xz"),
        (STREAM.encode(), "plain"),
    ],
)
def test_spec_2_savedgame_encoding_is_sniffed(tmp_path: Path, payload: bytes, encoding: str) -> None:
    save = open_container(_zip(tmp_path / "g.vsav", {"savedGame": payload}))
    assert save.kind == "save"
    assert save.savedgame_encoding == encoding
    assert save.command_text() == STREAM  # UTF-8 decoded after the XOR


def test_bare_plain_command_stream_from_corpus(corpus_dir: Path) -> None:
    bare = open_container(corpus_dir / "uckelman__tld-mod/scenarios/scenario_5.sav")
    assert bare.kind == "command-stream"
    assert bare.savedgame_encoding == "plain"
    assert bare.command_text().startswith("begin_save\x1bCHECK\t")


@pytest.mark.parametrize(
    ("relative", "kind"),
    [
        ("uckelman__tld-mod/game/0611-2", "log"),  # no suffix: LOG steps after end_save
        ("uckelman__tld-mod/scenarios/campaign.sav", "save"),  # 2.x zip with only savedGame
        ("uckelman__tld-mod/buildFile", "buildfile"),
        (TEMPLATE_VMOD, "module"),
        (VASL_FIXTURES + "/vasl-extensions/real/ffs.vmdx", "extension"),
        ("npe9__CID-extension/extensiondata", "moduledata"),
    ],
)
def test_spec_1_1_kind_is_sniffed_from_content(corpus_dir: Path, relative: str, kind: str) -> None:
    assert open_container(corpus_dir / relative).kind == kind


def test_spec_1_2_metadata_of_a_real_save(corpus_dir: Path) -> None:
    save = open_container(corpus_dir / "rummelsworth__vassal-module-kassala/vmod/Default Setup.vsav")
    assert save.entry_names == ["savedGame", "savedata", "moduledata"]
    assert save.metadata["name"] == "Kassala"
    assert save.metadata["VassalVersion"] == "3.6.5"
    assert save.metadata["dateSaved"].isdigit()


def test_spec_1_1_build_xml_preferred_and_root_fallback_metadata(corpus_dir: Path) -> None:
    module = open_container(corpus_dir / TEMPLATE_VMOD)
    assert module.build_entry_name == "buildFile.xml"
    assert module.build_xml_bytes().lstrip().startswith(b"<?xml")
    bare = open_container(corpus_dir / "uckelman__tld-mod/buildFile")
    assert bare.metadata["name"] == "The Longest Day"  # from root attributes: no moduledata


def test_metadata_translation_entries_do_not_override_untranslated() -> None:
    xml = (
        b'<data version="1"><version>2</version><description>plain</description>'
        b'<description lang="de">x</description></data>'
    )
    assert read_metadata_xml(xml, "m")["description"] == "plain"


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<data version="1"><name>&lol3;</name></data>"""


def _bad_inputs(tmp_path: Path) -> list[tuple[Path, str]]:
    cases = []
    empty = tmp_path / "empty.vsav"
    empty.write_bytes(b"")
    cases.append((empty, "empty file"))
    not_zip = tmp_path / "notzip.vmod"
    not_zip.write_bytes(b"this is not a zip archive at all")
    cases.append((not_zip, "not a zip"))
    good = _zip(tmp_path / "good.vsav", {"savedGame": obfuscate(STREAM * 200, 7), "savedata": b"<data/>"})
    truncated = tmp_path / "truncated.vsav"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    cases.append((truncated, "truncated or corrupt zip"))
    cases.append((_zip(tmp_path / "badheader.vsav", {"savedGame": b"!VCSK"}), "header has no key"))
    cases.append((_zip(tmp_path / "badhex.vsav", {"savedGame": b"!VCSK2a48zz"}), "non-hex"))
    cases.append((_zip(tmp_path / "oddhex.vsav", {"savedGame": b"!VCSK2a484"}), "odd number of hex digits"))
    cases.append(
        (
            _zip(tmp_path / "badxml.vsav", {"savedGame": obfuscate(STREAM), "savedata": b"<data><x></data>"}),
            "malformed XML",
        )
    )
    cases.append(
        (
            _zip(tmp_path / "bomb.vsav", {"savedGame": obfuscate(STREAM), "savedata": BILLION_LAUGHS}),
            "entity bomb",
        )
    )
    zeros = b"\0" * (container_module.RATIO_CHECK_AFTER + 4 * 1024 * 1024)
    cases.append((_zip(tmp_path / "zipbomb.vsav", {"savedGame": zeros}), "zip bomb"))
    return cases


def test_bad_input_through_cli_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for path, problem in _bad_inputs(tmp_path):
        status = main(["inspect", str(path)])
        captured = capsys.readouterr()
        lines = captured.err.strip().splitlines()
        assert status == 2, (path, captured)
        assert len(lines) == 1, lines
        assert str(path) in lines[0] and problem in lines[0], lines[0]
        assert "Traceback" not in captured.err


def test_zip_bomb_cap_counts_real_bytes_not_the_header(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(container_module, "MAX_ENTRY_BYTES", 3 * 1024 * 1024)
    path = _zip(tmp_path / "big.vsav", {"savedGame": b"a" * (4 * 1024 * 1024)})
    with pytest.raises(InputError, match="expands beyond"):
        open_container(path).command_text()


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        open_container(tmp_path / "nope.vsav")
    with pytest.raises(InputError, match="directory"):
        open_container(tmp_path)


def test_old_vcss_info_file_is_refused(corpus_dir: Path) -> None:
    with pytest.raises(InputError, match="not a VASSAL file"):
        open_container(corpus_dir / "uckelman__tld-mod/tmp/info")
