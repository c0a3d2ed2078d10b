"""What VASSAL 3.7.26 showed wrong in the files Adjutant writes (issue 28), each proved on the file.

* A save without `moduledata` (VASSAL 2.x saves, predefined setups): the written file names the
  module given with `--module`, as VASSAL's `SaveMetaData.save` -> `copyModuleMetadata` does, so
  VASSAL's `GameState` finds no module-name mismatch (an empty name opened a modal "Save Game
  Mismatch" dialog).
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK
from bridge.pipeline import CheckPipeline
from bridge.writeback.applier import apply_plan
from module_patches.demo_story import load_story, save_path
from vassal_parser.container import open_container, read_metadata_xml

STORY = {scene.file: scene for scene in load_story()}


def _bare_save(tmp_path: Path, name: str = "02-poland-falls") -> Path:
    """The story save with only its `savedGame` entry, as VASSAL 2.x and predefined setups are."""
    bare = tmp_path / f"{name}-bare.vsav"
    with zipfile.ZipFile(save_path(STORY[name])) as source, zipfile.ZipFile(bare, "w") as target:
        target.writestr("savedGame", source.read("savedGame"))
    return bare


@pytest.mark.parametrize("suffix", [".vsav", ".vlog"])
def test_save_without_moduledata_gets_the_modules_own(tmp_path, suffix) -> None:
    pipeline = CheckPipeline(DEMO_MODULE, DEMO_PACK, remember=False)
    bare = _bare_save(tmp_path)
    assert not open_container(bare).has_entry("moduledata")
    applied = apply_plan(pipeline, bare, tmp_path / f"out{suffix}", STORY["02-poland-falls"].answers)
    with zipfile.ZipFile(applied.out) as written, zipfile.ZipFile(DEMO_MODULE) as module:
        assert written.namelist() == ["savedGame", "savedata", "moduledata"]
        assert written.read("moduledata") == module.read("moduledata")  # copyModuleMetadata: a byte copy
        savedata = read_metadata_xml(written.read("savedata"), "savedata")
        moduledata = read_metadata_xml(written.read("moduledata"), "moduledata")
    assert moduledata["name"] == "Adjutant Demo" == pipeline.module.name
    assert moduledata["version"] == pipeline.module.version != ""
    assert savedata["version"] == pipeline.module.version  # SaveMetaData: module.getGameVersion()


def test_module_without_moduledata_gets_a_fresh_one(tmp_path) -> None:
    """`copyModuleMetadata` falls back to `new ModuleMetaData(GameModule)`: name, version, description."""
    module = tmp_path / "no-metadata.vmod"
    with zipfile.ZipFile(DEMO_MODULE) as source, zipfile.ZipFile(module, "w") as target:
        for entry in source.infolist():
            if entry.filename != "moduledata":
                target.writestr(entry, source.read(entry.filename))
    pipeline = CheckPipeline(module, DEMO_PACK, remember=False)
    applied = apply_plan(pipeline, _bare_save(tmp_path), tmp_path / "out.vsav",
                         STORY["02-poland-falls"].answers)
    with zipfile.ZipFile(applied.out) as written:
        moduledata = read_metadata_xml(written.read("moduledata"), "moduledata")
    assert moduledata["name"] == "Adjutant Demo"
    assert moduledata["version"] == pipeline.module.version != ""
