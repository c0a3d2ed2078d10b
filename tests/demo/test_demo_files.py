"""The checked-in demo module and saves are exactly what module_patches makes (scripts/make_demo.py).

Saves are compared on what VASSAL reads (the decoded command stream, the copied moduledata) and on
the obfuscation key; only `savedata`'s dateSaved (written by the writer at save time) may differ.
"""

from __future__ import annotations

import zipfile

import pytest

from module_patches.demo_module import MODULE_FILE, module_bytes, moduledata_xml
from module_patches.demo_story import FIXED_KEY, load_story, save_path, scene_streams
from module_patches.demo_world import WORLD
from vassal_parser.container import open_container


def test_checked_in_module_is_what_the_builder_makes() -> None:
    assert MODULE_FILE.read_bytes() == module_bytes(), "run scripts/make_demo.py and check in the result"


def test_module_build_is_deterministic() -> None:
    assert module_bytes() == module_bytes()


def test_module_has_metadata_vassal_37_can_read() -> None:
    with zipfile.ZipFile(MODULE_FILE) as archive:
        names = archive.namelist()
        moduledata = archive.read("moduledata").decode()
    assert names[:2] == ["buildFile.xml", "moduledata"]
    assert "<VassalVersion>3.7." in moduledata
    assert "<name>Adjutant Demo</name>" in moduledata
    assert all(n.startswith("images/") and n.endswith(".svg") for n in names[2:])


@pytest.mark.parametrize("scene_and_stream", scene_streams(), ids=lambda s: s[0].file)
def test_checked_in_save_matches_the_story(scene_and_stream) -> None:
    scene, stream = scene_and_stream
    path = save_path(scene)
    container = open_container(path)
    assert container.command_text() == stream, f"{path.name} is stale: run scripts/make_demo.py"
    assert container.read_entry("moduledata") == moduledata_xml(WORLD())
    assert container.read_entry("savedGame")[:7] == b"!VCSK" + f"{FIXED_KEY:02x}".encode()
    assert container.metadata["description"] == scene.title


def test_every_story_scene_has_a_save_and_no_stray_saves_exist() -> None:
    expected = {save_path(scene).name for scene in load_story()}
    present = {p.name for p in save_path(load_story()[0]).parent.glob("*.vsav")}
    assert present == expected


def _build_tree():
    from lxml import etree

    with zipfile.ZipFile(MODULE_FILE) as archive:
        return etree.fromstring(archive.read("buildFile.xml")), set(archive.namelist())


def _slot_images(text: str) -> set[str]:
    """Every image file a piece definition draws: BasicPiece, Layer levels, a Mask's own image."""
    from vassal_parser.commands import leaf_command
    from vassal_parser.pieces import piece_from_command

    images: set[str] = set()
    for trait in piece_from_command(leaf_command(text.strip())).traits:
        fields = getattr(trait, "fields", {})
        images.update(i for i in fields.get("images", []) if i)
        images.update(fields[k] for k in ("image", "mask_image") if fields.get(k))
        style = fields.get("display_style", "")
        if style.startswith("G") and len(style) > 1:  # spec §5.2: "G" + the image shown to others
            images.add(style[1:])
    return images


def test_build_file_components_are_ones_vassal_loads() -> None:
    """Spec §1.3/§6: a VASSAL 3.7 loader needs each map's mapName and boards whose images are in the
    archive, PieceSlot gpids unique and below nextPieceSlotId, and piece texts `+/null/<type>/<state>`."""
    root, names = _build_tree()
    assert root.tag == "VASSAL.build.GameModule"
    assert {"name", "version", "VassalVersion", "nextPieceSlotId"} <= set(root.attrib)
    maps = root.findall("VASSAL.build.module.Map")
    assert [m.get("mapName") for m in maps] == ["Europe", "Boxes"]
    for map_el in maps:
        picker = "VASSAL.build.module.map.BoardPicker"
        boards = map_el.findall(f"{picker}/{picker.replace('BoardPicker', 'boardPicker.Board')}")
        assert boards and all(f"images/{b.get('image')}" in names for b in boards)
    slots = list(root.iter("VASSAL.build.widget.PieceSlot"))
    gpids = [int(s.get("gpid")) for s in slots]
    assert len(set(gpids)) == len(gpids) and max(gpids) < int(root.get("nextPieceSlotId"))
    definitions = [*slots, *root.iter("VASSAL.build.module.PrototypeDefinition")]
    assert all((d.text or "").startswith("+/null/") for d in definitions)


def test_every_image_a_piece_draws_is_in_the_module() -> None:
    """A missing image shows as a blank counter in VASSAL: Layer levels (the reduced side) and the
    face-down card's Mask image must be in images/ like the counters' own."""
    root, names = _build_tree()
    slots = list(root.iter("VASSAL.build.widget.PieceSlot"))
    drawn = set().union(*(_slot_images(s.text) for s in slots))
    assert {"card-back.svg", "ge-1-reduced.svg"} <= drawn  # the test sees Mask and Layer images
    assert sorted(i for i in drawn if f"images/{i}" not in names) == []
