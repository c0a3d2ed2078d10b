"""The start-up warm-up reads the module's predefined setups into the memos (issue 15): a new game's
first save, mostly a setup's unmoved pieces, then finds them there, and its plan is the one a fresh
pipeline without memos makes. The setups are saves packed in the module (`PredefinedSetup@file`,
spec vassal-formats.md "archive entries"); here the demo module gets one, packed as VASSAL does."""

from __future__ import annotations

import zipfile
from pathlib import Path

from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK
from bridge.pipeline import CheckPipeline
from module_patches.demo_story import load_story, save_path
from vassal_parser.module import load_module, setup_file

SETUP = '<VASSAL.build.module.PredefinedSetup file="{file}" isMenu="false" name="{name}" useFile="true"/>'


def module_with_setups(folder: Path, setups: dict[str, bytes | None]) -> Path:
    """The demo module with one PredefinedSetup per entry (bytes None: the file is not in the archive)."""
    target = folder / "with-setups.vmod"
    with zipfile.ZipFile(DEMO_MODULE) as source, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == "buildFile.xml":
                text = data.decode("utf-8")
                elements = "".join(SETUP.format(file=name, name=name.removesuffix(".vsav"))
                                   for name in setups)
                closing = text.rindex("</")
                data = (text[:closing] + elements + text[closing:]).encode("utf-8")
            out.writestr(info, data)
        for name, data in setups.items():
            if data is not None:
                out.writestr(name, data)
    return target


def test_setups_are_read_from_the_module_archive(tmp_path: Path) -> None:
    first = save_path(load_story()[0])
    module = load_module(module_with_setups(tmp_path, {"Start.vsav": first.read_bytes(), "Gone.vsav": None}))
    assert [(s.name, s.file, s.use_file) for s in module.predefined_setups] == [
        ("Start", "Start.vsav", True), ("Gone", "Gone.vsav", True)]
    start, gone = module.predefined_setups
    assert setup_file(module, start, 1 << 26) == first.read_bytes()
    assert setup_file(module, gone, 1 << 26) is None  # named but not packed: nothing, no error
    assert setup_file(module, start, 10) is None  # larger than the cap


def test_first_save_from_a_setup_is_found_in_the_memos_and_planned_as_fresh(tmp_path: Path) -> None:
    """16.1.1 / 16.2.x (the demo story's events): the first save after start-up, written from the
    setup the game began with, is read from the memos, and its plan equals a fresh pipeline's."""
    scenes = load_story()
    setup, later = save_path(scenes[0]), save_path(scenes[1])
    vmod = module_with_setups(tmp_path, {"Start.vsav": setup.read_bytes(), "Broken.vsav": b"not a save"})
    warmed = CheckPipeline(vmod, DEMO_PACK)
    warmed.warm_up()
    memo = warmed.position_memo
    assert memo is not None and len(memo.placed) > 0 and len(warmed.mapping_memo.outcomes) > 0
    assert [line.split(":")[0] for line in warmed.setup_problems] == ["Broken"]  # skipped, named
    fresh = CheckPipeline(vmod, DEMO_PACK, remember=False)
    for path in (setup, later):
        hits = memo.hits
        assert warmed.plan_file(path).plan == fresh.plan_file(path).plan, path.name
        assert memo.hits > hits, path.name  # unmoved pieces came from the warm-up


def test_warm_up_without_setups_reads_none(tmp_path: Path) -> None:
    warmed = CheckPipeline(DEMO_MODULE, DEMO_PACK)
    assert warmed.module.predefined_setups == []
    assert warmed.warm_setups(deadline=float("inf")) == 0
