"""Second-reader audit of the reader against the spec (§1.1, §2.2, §5.2, §5.4, §7).

Each test states the spec rule it checks; these are the cases the corpus cannot prove.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from lxml import etree

from vassal_parser.container import decode_savedgame, open_container, read_metadata_xml
from vassal_parser.errors import InputError
from vassal_parser.module import find_target, load_module
from vassal_parser.pieces import make_piece
from vassal_parser.sequence import Decoder, encode
from vassal_parser.traits import Layer, Marker

# --- §5.2 Layer -------------------------------------------------------------------------------


def _layer_type(images: list[str], names: list[str], layer_name: str = "Step") -> str:
    fields = [""] * 33
    fields[15] = encode(images, ",") or ""
    fields[16] = encode(names, ",") or ""
    fields[18] = layer_name
    return "emb2;" + (encode(fields, ";") or "")


def test_5_2_layer_state_is_clamped_to_the_number_of_images() -> None:
    """§5.2: state value clamped to +-(number of images)."""
    layer = Layer(_layer_type(["a.png", "b.png"], ["Full", "Reduced"]), "5")
    assert layer.value == 2
    assert layer.properties()["Step_Level"] == "2"
    assert layer.properties()["Step_Name"] == "Reduced"
    inactive = Layer(_layer_type(["a.png", "b.png"], ["Full", "Reduced"]), "-7")
    assert inactive.value == -2 and inactive.properties()["Step_Active"] == "false"


def test_5_2_layer_bad_state_token_takes_the_default_level_1() -> None:
    """§4.2 typed readers: nextInt(1) on a bad token returns the default."""
    assert Layer(_layer_type(["a.png"], ["A"]), "x;y").value == 1


@pytest.mark.parametrize(
    ("level_name", "expected"),
    [
        ("+ (reduced)", "Panzer (reduced)"),  # '+ text' appends
        ("Elite +", "Elite Panzer"),  # 'text +' prepends
        ("Wreck", "Wreck"),  # no '+': replaces
        ("+", "Panzer"),
        ("Big+ignored", "BigPanzer"),  # SE('+') split: first token non-empty -> prefix
    ],
)
def test_5_2_layer_plus_rule_names(level_name: str, expected: str) -> None:
    """§5.2: the level name is split on '+'; an empty first part appends, else the first part
    is put before the inner name (Embellishment.getName)."""
    layer = Layer(_layer_type(["a.png"], [level_name]), "1")
    assert layer.name("Panzer") == expected


# --- §5.2 Marker, §5.4 stacks and decks -------------------------------------------------------


def test_5_2_marker_with_zero_names_is_written_mark_null() -> None:
    """§5.2: zero names serialises as `mark;null`; reading it gives no properties."""
    assert Marker("mark;null", "").properties() == {}
    assert Marker("mark;Nation,Type", "German,Inf").properties() == {"Nation": "German", "Type": "Inf"}
    assert Marker("mark;Nation,Type", "German").properties() == {"Nation": "German", "Type": ""}


def test_5_4_stack_on_a_map_reads_position_then_members_bottom_first() -> None:
    stack = make_piece("s", "stack", "Main;100;200;a;b;c;@@2")
    assert (stack.map, stack.x, stack.y) == ("Main", 100, 200)
    assert stack.member_ids == ["a", "b", "c"] and stack.layer == 2  # type: ignore[union-attr]


def test_5_4_deck_state_and_name_field_13() -> None:
    """§5.4: deck name is type field 13; state map;x;y;faceDown;SE(,)(ids) bottom first."""
    fields = [""] * 49
    fields[12] = "Draw Pile"
    deck = make_piece("d", "deck;" + (encode(fields, ";") or ""), "Main;5;6;true;p1,p2")
    assert deck.name == "Draw Pile"  # type: ignore[union-attr]
    assert (deck.map, deck.x, deck.y, deck.face_down) == ("Main", 5, 6, True)  # type: ignore[union-attr]
    assert deck.member_ids == ["p1", "p2"]


def test_4_2_next_int_consumes_a_bad_token() -> None:
    """§4.2: nextInt(default) returns the default on a parse failure AND consumes the token."""
    decoder = Decoder("x;7", ";")
    assert decoder.next_int(3) == 3
    assert decoder.next_int(3) == 7
    assert decoder.next_int(3) == 3  # exhausted: default, nothing consumed


# --- §2.2 plain savedGame shorter than 5 bytes ------------------------------------------------


def test_2_2_plain_entry_shorter_than_the_header_is_read_as_text() -> None:
    """§2.2: not `!VCSK` -> passed through as plain text, even when under 5 bytes long."""
    assert decode_savedgame(b"ab", "x") == ("ab", "plain")
    assert decode_savedgame(b"!VCS", "x") == ("!VCS", "plain")


# --- §1.1 buildFile vs buildFile.xml ----------------------------------------------------------

_MODULE_ROOT = '<VASSAL.build.GameModule name="{name}" version="1"/>'
_MODULEDATA = (
    '<data version="1"><version>1</version><VassalVersion>{vv}</VassalVersion><name>M</name></data>'
)


def _two_build_files(path: Path, vassal_version: str | None) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("buildFile.xml", _MODULE_ROOT.format(name="from buildFile.xml"))
        archive.writestr("buildFile", _MODULE_ROOT.format(name="from buildFile"))
        if vassal_version is not None:
            archive.writestr("moduledata", _MODULEDATA.format(vv=vassal_version))
    return path


@pytest.mark.parametrize(
    ("vassal_version", "entry"),
    [
        ("3.4.12", "buildFile"),
        ("3.5.0", "buildFile.xml"),
        ("3.7.12", "buildFile.xml"),
        ("", "buildFile"),  # missing VassalVersion compares as 0.0
        ("3.10", "buildFile.xml"),  # numeric, not string, comparison
    ],
)
def test_1_1_both_build_files_present_the_vassal_version_chooses(
    tmp_path: Path, vassal_version: str, entry: str
) -> None:
    """§1.1: VassalVersion (major.minor) < 3.5 -> `buildFile`, else `buildFile.xml`."""
    container = open_container(_two_build_files(tmp_path / "m.vmod", vassal_version))
    assert container.build_entry_name == entry


def test_1_1_single_build_file_is_used_whatever_the_version(tmp_path: Path) -> None:
    path = tmp_path / "old.vmod"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("buildFile.xml", _MODULE_ROOT.format(name="only"))
        archive.writestr("moduledata", _MODULEDATA.format(vv="3.2.17"))
    assert open_container(path).build_entry_name == "buildFile.xml"


# --- §7 extension target matching ---------------------------------------------------------------

_BUILD = """<?xml version="1.0" encoding="UTF-8"?>
<VASSAL.build.GameModule name="Base" version="1">
  <VASSAL.build.module.Map mapName="First">
    <VASSAL.build.module.map.BoardPicker/>
  </VASSAL.build.module.Map>
  <VASSAL.build.module.Map mapName="Second">
    <VASSAL.build.module.map.BoardPicker/>
    <VASSAL.build.module.map.SetupStack name="Holder" x="0" y="0"/>
  </VASSAL.build.module.Map>
</VASSAL.build.GameModule>"""


def _extension(folder: Path, target: str) -> Path:
    path = folder / "ext.vmdx"
    build = (
        '<VASSAL.build.module.ModuleExtension anyModule="false" module="Base" version="1">'
        f'<VASSAL.build.module.ExtensionElement target="{target}">'
        '<VASSAL.build.module.map.SetupStack name="Added" x="1" y="2"/>'
        "</VASSAL.build.module.ExtensionElement></VASSAL.build.module.ModuleExtension>"
    )
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("buildFile.xml", build)
        archive.writestr(
            "extensiondata",
            "<data version=\"1\"><version>1</version><VassalVersion>3.7.12</VassalVersion>"
            "<universal>false</universal></data>",
        )
    return path


def _module(folder: Path) -> Path:
    path = folder / "base.vmod"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("buildFile.xml", _BUILD)
        archive.writestr("moduledata", _MODULEDATA.format(vv="3.7.12").replace("<name>M", "<name>Base"))
    return path


def _setup_stack_maps(module: object) -> dict[str, str]:
    found = {}
    for map_def in module.maps:  # type: ignore[attr-defined]
        for stack in map_def.setup_stacks:
            found[stack.name] = map_def.identifier
    return found


def test_7_exact_class_and_name_match(tmp_path: Path) -> None:
    target = "VASSAL.build.module.Map:Second"
    module = load_module(_module(tmp_path), [_extension(tmp_path, target)])
    assert _setup_stack_maps(module)["Added"] == "Second"


def test_7_without_exact_match_same_class_children_are_tried_in_order() -> None:
    """§7: no exact name match -> same-class children tried in order; a later step that does
    not resolve under the first candidate moves on to the next one."""
    root = etree.fromstring(_BUILD.encode())
    target = "VASSAL.build.module.Map:Renamed/VASSAL.build.module.map.SetupStack:Holder"
    found = find_target(root, target, "ext.vmdx")
    assert found.get("name") == "Holder" and found.getparent().get("mapName") == "Second"


def test_7_last_step_without_exact_match_takes_the_first_same_class_child() -> None:
    root = etree.fromstring(_BUILD.encode())
    assert find_target(root, "VASSAL.build.module.Map:Renamed", "x").get("mapName") == "First"
    assert find_target(root, "", "x") is root


def test_7_unresolvable_target_is_one_line_input_error(tmp_path: Path) -> None:
    target = "VASSAL.build.module.Chart"
    with pytest.raises(InputError, match="not found"):
        load_module(_module(tmp_path), [_extension(tmp_path, target)])


def test_1_2_pre_3_6_11_swapped_translations_do_not_replace_the_description() -> None:
    """§1.2: before 3.6.11 translations were written swapped (language as text, translation in
    `lang`); the untranslated element is what we report, whichever way the pair is written."""
    swapped = (
        b'<data version="1"><version>1</version><VassalVersion>3.6.7</VassalVersion>'
        b'<description>Turn 3</description><description lang="Zug 3">de</description>'
        b"<name>Mod</name><name lang=\"Modul\">de</name></data>"
    )
    metadata = read_metadata_xml(swapped, "moduledata")
    fields = (metadata["description"], metadata["name"], metadata["VassalVersion"])
    assert fields == ("Turn 3", "Mod", "3.6.7")


def test_4_2_next_int_out_of_int_range_is_a_parse_failure() -> None:
    """§4.2: nextInt is Integer.parseInt: a value beyond 32 bits fails -> default, consumed;
    nextLong accepts it (64 bits). No trimming: ' 5' is a failure too."""
    decoder = Decoder("99999999999;2147483647;-2147483648; 5;7", ";")
    assert decoder.next_int(0) == 0
    assert decoder.next_int(0) == 2147483647
    assert decoder.next_int(0) == -2147483648
    assert decoder.next_int(0) == 0
    assert decoder.next_int(0) == 7
    assert Decoder("99999999999", ";").next_long(0) == 99999999999
    assert Decoder("9223372036854775808", ";").next_long(-1) == -1


def test_5_2_layer_state_is_read_with_next_int() -> None:
    """§5.2/§4.2: the level is `nextInt(1)`: an untrimmed or oversized token gives level 1."""
    layer_type = _layer_type(["a.png", "b.png"], ["A", "B"])
    assert Layer(layer_type, " 2").value == 1
    assert Layer(layer_type, "2;x").value == 2
