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
