"""`adjutant extension`: a .vmdx Adjutant's own reader merges onto its module, each component at its target.

Checked on the demo module and on corpus modules (VASSAL 3.6/3.7 Cattlesquat modules, a legacy
`buildFile`); a target that would not resolve to the component meant is an error at build time.
"""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest
from lxml import etree

from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK
from bridge.cli.main import main
from bridge.writeback.translate import Writeback
from module_patches.extension import (
    CHART_FILE,
    HELP_TITLE,
    build_extension,
    target_path,
    write_extension,
)
from rules.packs import load_pack
from vassal_parser.container import major_minor, open_container, parse_xml
from vassal_parser.errors import InputError
from vassal_parser.module import _merge_extension, load_module

P = "VASSAL.build."
CORPUS_MODULES = ("Cattlesquat__Almoravid/buildFile.xml", "Cattlesquat__PathsOfGlory/buildFile.xml",
                  "SnookEE__WMH_Vassal/buildFile")
# Modules built before VASSAL 3.5 (VassalVersion 2.9b2, 3.2.16, 3.2.15): their extension keeps that
# version, so VASSAL reads its components from `buildFile` (issue 28: "Extension … v0.0 loaded", empty).
PRE_35_MODULES = ("uckelman__tld-mod/buildFile", "tomo9878__hannnibal/Hannibal_Valley_en_1.3.1/buildFile",
                  "SnookEE__WMH_Vassal/buildFile")


def merged_root(module_path: Path, extension: Path) -> etree._Element:
    """The module's build tree with the extension merged the way VASSAL adds ExtensionElements."""
    container = open_container(module_path)
    root = parse_xml(container.build_xml_bytes(), module_path, huge=True)
    name = load_module(module_path).name
    _merge_extension(root, extension, name)
    return root


def help_items(root: etree._Element) -> list[etree._Element]:
    return [item for doc in root if doc.tag == P + "module.Documentation"
            for item in doc if item.tag == P + "module.documentation.BrowserHelpFile"]


def vassal_build_entry(vassal_version: str) -> str:
    """The entry `ModuleExtension.build` (VASSAL 3.7.26) opens: legacy `buildFile` when the
    extensiondata's VassalVersion, truncated to major.minor, is below 3.5; else `buildFile.xml`."""
    return "buildFile" if major_minor(vassal_version) < (3, 5) else "buildFile.xml"


def check_extension(module_path: Path, out: Path, port: int = 8765) -> etree._Element:
    built = build_extension(module_path, port=port)
    write_extension(built, out)
    module = load_module(module_path, [out])  # Adjutant's reader loads it with its module
    assert module.extensions == [out.stem]
    root = merged_root(module_path, out)
    items = [i for i in help_items(root) if i.get("title", "").startswith(HELP_TITLE)]
    assert items and all(i.get("startingPage", "").startswith(f"http://127.0.0.1:{port}/?view=player")
                         for i in items)
    windows = [w for w in root if w.tag == P + "module.ChartWindow" and w.get("name") == "Adjutant"]
    assert len(windows) == 1
    (chart,) = windows[0]
    assert chart.tag == P + "widget.HtmlChart" and chart.get("fileName") == CHART_FILE
    extensiondata = open_container(out).metadata_entries["extensiondata"]
    entry = vassal_build_entry(extensiondata["VassalVersion"])
    with zipfile.ZipFile(out) as archive:
        names = archive.namelist()
        page = archive.read(CHART_FILE).decode("utf-8")
        ext_root = etree.fromstring(archive.read(entry))
    assert names[:2] == [entry, "extensiondata"], "the components under the one entry VASSAL reads"
    assert "File &gt; Load Game or Log" in page and f"http://127.0.0.1:{port}/?view=control" in page
    assert ext_root.get("module") == module.name and len(ext_root.get("extensionId")) == 3
    assert list(ext_root.attrib) == sorted(ext_root.attrib), "attributes in VASSAL's (alphabetical) order"
    assert extensiondata["universal"] == "false" and extensiondata["version"] == ext_root.get("version")
    for element in ext_root:
        assert element.tag == P + "module.ExtensionElement"
        assert len(element) == 1, "one component per ExtensionElement"
    # Harmless for an opponent without it: no pieces, maps, prototypes or at-start stacks.
    added = {node.tag for element in ext_root for node in element.iter()}
    assert not added & {P + "module.Map", P + "widget.PieceSlot", P + "module.PrototypeDefinition",
                        P + "module.map.SetupStack"}
    return root


def test_demo_extension_merges_at_its_targets(tmp_path) -> None:
    root = check_extension(DEMO_MODULE, tmp_path / "Adjutant.vmdx", port=8899)
    (item,) = help_items(root)
    # The demo module has sides (Axis, Western, Soviet): VASSAL fills in the player's side on each click.
    assert item.get("startingPage") == "http://127.0.0.1:8899/?view=player&faction=$PlayerSide$"
    with zipfile.ZipFile(tmp_path / "Adjutant.vmdx") as archive, zipfile.ZipFile(DEMO_MODULE) as module:
        assert archive.read("moduledata") == module.read("moduledata")


@pytest.mark.parametrize("relative", CORPUS_MODULES)
def test_corpus_module_extension_merges_at_its_targets(corpus_dir, tmp_path, relative) -> None:
    module_path = corpus_dir / relative
    if not module_path.exists():
        pytest.skip(f"{module_path} not in the corpus")
    root = check_extension(module_path, tmp_path / "Adjutant.vmdx")
    documentation = [d for d in root if d.tag == P + "module.Documentation"]
    assert len(documentation) == 1, "the module's own Help menu component takes the item"


def test_side_names_with_spaces_get_one_help_item_each(corpus_dir, tmp_path) -> None:
    """Paths of Glory's sides ("Central Powers") cannot go into a URL as they are: no $PlayerSide$."""
    module_path = corpus_dir / "Cattlesquat__PathsOfGlory/buildFile.xml"
    if not module_path.exists():
        pytest.skip(f"{module_path} not in the corpus")
    root = check_extension(module_path, tmp_path / "pog.vmdx")
    pages = {i.get("title"): i.get("startingPage") for i in help_items(root)
             if HELP_TITLE in i.get("title", "")}
    assert pages[f"{HELP_TITLE}: Central Powers"].endswith("faction=Central%20Powers")
    assert not any("$PlayerSide$" in page for page in pages.values())


def test_target_that_resolves_elsewhere_is_a_build_time_error() -> None:
    """ComponentPathBuilder takes the first same-class, same-name child: a second twin is unreachable."""
    root = etree.fromstring(f'<{P}GameModule name="M"><{P}module.ChartWindow name="Charts"/>'
                            f'<{P}module.ChartWindow name="Charts"/></{P}GameModule>')
    first, second = list(root)
    assert target_path(root, first) == f"{P}module.ChartWindow:Charts"
    with pytest.raises(InputError, match="would resolve to another component"):
        target_path(root, second)


def test_names_with_path_delimiters_are_escaped() -> None:
    root = etree.fromstring(f'<{P}GameModule name="M"><{P}module.Map mapName="Allied O/B: 1914">'
                            f'<{P}module.map.BoardPicker/></{P}module.Map></{P}GameModule>')
    picker = root[0][0]
    path = target_path(root, picker)
    # ComponentPathBuilder: ':' escaped inside the segment, then '/' escaped by the outer encoder
    # (as in the corpus's `…BoxWidget:Allied O\/B`); the reader resolves it back (checked in target_path).
    assert path == f"{P}module.Map:Allied O\\/B\\: 1914/{P}module.map.BoardPicker"


def _zones_pack(tmp_path: Path, polygon: str) -> Path:
    pack = tmp_path / "pack"
    shutil.copytree(DEMO_PACK, pack)
    text = (pack / "vassal.toml").read_text(encoding="utf-8")
    text = text.replace('"Delay Box" = "delay"\n', '"Delay Box" = "delay"\n"Adjutant Corner" = "holding:X"\n')
    text += ('\n[vassal.writeback.points]\n'
             f'"holding:X" = {{ map = "Boxes", board = "Boxes", location = "Adjutant Corner", '
             f'polygon = {polygon} }}\n')
    (pack / "vassal.toml").write_text(text, encoding="utf-8")
    return pack


def test_zones_adds_a_named_zone_where_no_module_zone_is(tmp_path) -> None:
    pack = _zones_pack(tmp_path, "[[2, 2], [16, 2], [16, 16], [2, 16]]")
    built = build_extension(DEMO_MODULE, pack=load_pack(pack), zones=True,
                            writeback=Writeback.from_pack(load_pack(pack)))
    out = write_extension(built, tmp_path / "zones.vmdx")
    zone_targets = [t for t, tag in built.components if tag.endswith("mapgrid.Zone")]
    assert zone_targets == [f"{P}module.Map:Boxes/{P}module.map.BoardPicker/"
                            f"{P}module.map.boardPicker.Board:Boxes/{P}module.map.boardPicker.board.ZonedGrid"]
    module = load_module(DEMO_MODULE, [out])
    boxes = next(m for m in module.maps if m.identifier == "Boxes")
    from vassal_parser.layout import MapLayout

    layout = MapLayout(boxes, None, module.module_property)
    assert layout.location_name(9, 9) == "Adjutant Corner"
    assert load_module(DEMO_MODULE).maps and MapLayout(
        next(m for m in load_module(DEMO_MODULE).maps if m.identifier == "Boxes"), None).location_name(9, 9) \
        != "Adjutant Corner"


def test_zones_skips_a_box_a_module_zone_covers(tmp_path) -> None:
    pack = _zones_pack(tmp_path, "[[30, 30], [60, 30], [60, 60], [30, 60]]")  # inside the Delay Box zone
    built = build_extension(DEMO_MODULE, pack=load_pack(pack), zones=True,
                            writeback=Writeback.from_pack(load_pack(pack)))
    assert not [t for t, tag in built.components if tag.endswith("mapgrid.Zone")]
    assert any("already covers it" in note for note in built.notes)


def test_extension_cli(tmp_path, capsys) -> None:
    out = tmp_path / "Adjutant.vmdx"
    assert main(["extension", str(DEMO_MODULE), "--out", str(out), "--port", "9000"]) == 0
    printed = capsys.readouterr().out
    assert f"wrote {out}: extension" in printed and "adjutant-demo_ext/" in printed
    assert main(["extension", str(DEMO_MODULE), "--out", str(out)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert main(["extension", str(DEMO_MODULE), "--out", str(tmp_path / "x.zip")]) == 2
    assert main(["extension", str(DEMO_MODULE), "--zones", "--out", str(tmp_path / "z.vmdx")]) == 2
    assert "needs --pack" in capsys.readouterr().err


@pytest.mark.parametrize("relative", PRE_35_MODULES)
def test_extension_for_a_pre_35_module_names_its_entry_buildfile(corpus_dir, tmp_path, relative) -> None:
    module_path = corpus_dir / relative
    if not module_path.exists():
        pytest.skip(f"{module_path} not in the corpus")
    out = tmp_path / "Adjutant.vmdx"
    root = check_extension(module_path, out)
    extension = open_container(out)
    assert major_minor(extension.metadata_entries["extensiondata"]["VassalVersion"]) < (3, 5)
    assert "buildFile" in extension.entry_names and "buildFile.xml" not in extension.entry_names
    assert any(i.get("title", "").startswith(HELP_TITLE) for i in help_items(root))


def test_extension_for_a_35_or_later_module_names_its_entry_buildfile_xml(tmp_path) -> None:
    out = tmp_path / "Adjutant.vmdx"
    check_extension(DEMO_MODULE, out)
    assert open_container(out).entry_names[0] == "buildFile.xml"  # ModuleExtension.write's name


def test_extension_without_force_never_replaces_a_file_made_while_it_was_built(tmp_path, capsys,
                                                                              monkeypatch) -> None:
    """Issue 43: the refusal holds at the instant of writing, not only at the start's check."""
    import bridge.cli.commands.extension as command

    out = tmp_path / "Adjutant.vmdx"
    real = command.build_extension

    def built_while_another_writes(*args, **kwargs):
        made = real(*args, **kwargs)
        out.write_bytes(b"another writer's file")  # after the check, before the write
        return made

    monkeypatch.setattr(command, "build_extension", built_while_another_writes)
    assert main(["extension", str(DEMO_MODULE), "--out", str(out)]) == 2
    assert "already exists" in capsys.readouterr().err and out.read_bytes() == b"another writer's file"
    assert main(["extension", str(DEMO_MODULE), "--out", str(out), "--force"]) == 0
    assert out.read_bytes()[:2] == b"PK" and [p.name for p in tmp_path.iterdir()] == ["Adjutant.vmdx"]
