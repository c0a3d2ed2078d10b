"""`adjutant pack scaffold` on real corpus modules, and `adjutant pack check` reporting what is unmapped."""

from __future__ import annotations

import json

import pytest

from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK
from bridge.cli.main import main
from bridge.mapping.mapper import VassalMapping
from module_patches.demo_story import load_story, save_path
from rules.packs import load_pack


def corpus_module(corpus_dir, which: str):
    paths = {
        "tld": corpus_dir / "uckelman__tld-mod" / "buildFile",
        "jz_vmod": corpus_dir / "jzedwards__vassal-hex-n-counters-template"
        / "jzhex-n-counters-template-v12-379.vmod",
        "ragnarok": corpus_dir / "jzedwards__vassal-hex-n-counters-template" / "ragnarok" / "vassal"
        / "buildFile.xml",
    }
    return paths[which]


@pytest.mark.parametrize("which, name", [("tld", "The Longest Day"), ("jz_vmod", "Hex'n'Counters template"),
                                         ("ragnarok", "Ragnarok (SPI) 1981")])
def test_scaffold_of_a_real_module_loads_as_a_pack(corpus_dir, tmp_path, capsys, which, name) -> None:
    target = tmp_path / "pack"
    assert main(["pack", "scaffold", str(corpus_module(corpus_dir, which)), "-o", str(target)]) == 0
    assert "wrote a starting pack" in capsys.readouterr().out
    pack = load_pack(target)
    mapping = VassalMapping.from_pack(pack)
    assert mapping.module_name == name
    assert mapping.hex_maps, "a numbered map gets a [[vassal.places.hexes]] rule"
    text = (target / "vassal.toml").read_text()
    assert "# Pieces the module defines" in text


def test_scaffold_lists_zones_and_pieces_of_the_module(corpus_dir, tmp_path) -> None:
    target = tmp_path / "pack"
    main(["pack", "scaffold", str(corpus_module(corpus_dir, "jz_vmod")), "-o", str(target)])
    text = (target / "vassal.toml").read_text()
    assert '# "TurnTrack" = ""   # zone on map TurnTrack, board Turn' in text
    assert "#   INF-XX-2-3-5_123_456" in text
    assert '[[vassal.places.hexes]]\nmap = "Main Map"' in text


def test_scaffold_never_overwrites_without_force(corpus_dir, tmp_path, capsys) -> None:
    target = tmp_path / "pack"
    module = str(corpus_module(corpus_dir, "jz_vmod"))
    assert main(["pack", "scaffold", module, "-o", str(target)]) == 0
    capsys.readouterr()
    assert main(["pack", "scaffold", module, "-o", str(target)]) == 2
    assert "already holds pack.toml, vassal.toml; use --force" in capsys.readouterr().err
    assert main(["pack", "scaffold", module, "-o", str(target), "--force"]) == 0


def test_pack_check_reports_the_unmapped_pieces_of_a_real_save(corpus_dir, tmp_path, capsys) -> None:
    module = corpus_module(corpus_dir, "ragnarok")
    save = module.parent / "ragnarok-start.vsav"
    target = tmp_path / "pack"
    main(["pack", "scaffold", str(module), "-o", str(target)])
    capsys.readouterr()
    status = main(["pack", "check", str(target), "--module", str(module), "--save", str(save),
                   "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert status == 1
    assert sum(report["unmapped_piece_slots"].values()) == 34  # every slot: the scaffold maps nothing yet
    assert sum(report["save"]["unmapped_pieces"].values()) > 0
    # the module's sides (Aesir, Jotun) name no faction: the scaffold could not place them (issue 43)
    assert report["warnings"] == [
        "[vassal.sides]: the module's PlayerRoster (Aesir, Jotun) has no side Axis ('Axis', by default); "
        "Western ('Western', by default); Soviet ('Soviet', by default): their player views would show none "
        "of their own hidden pieces"]


def test_pack_check_counts_drop_as_rules_are_added(corpus_dir, tmp_path, capsys) -> None:
    module = corpus_module(corpus_dir, "jz_vmod")
    target = tmp_path / "pack"
    main(["pack", "scaffold", str(module), "-o", str(target)])
    capsys.readouterr()
    main(["pack", "check", str(target), "--module", str(module), "--format", "json"])
    before = json.loads(capsys.readouterr().out)
    with (target / "vassal.toml").open("a") as handle:
        handle.write('\n[[vassal.ignore]]\nmatch = { "@name" = "re:INF-.*" }\n')
    main(["pack", "check", str(target), "--module", str(module), "--format", "json"])
    after = json.loads(capsys.readouterr().out)
    inf = {k: v for k, v in before["unmapped_piece_slots"].items() if k.startswith("INF-")}
    assert inf and not any(k.startswith("INF-") for k in after["unmapped_piece_slots"])
    assert sum(after["unmapped_piece_slots"].values()) == sum(before["unmapped_piece_slots"].values()) - sum(
        inf.values())


def test_demo_pack_maps_everything_in_the_demo_module_and_saves(capsys) -> None:
    story = load_story()
    assert story  # an empty story would check nothing
    for scene in story:
        status = main(["pack", "check", str(DEMO_PACK), "--module", str(DEMO_MODULE),
                       "--save", str(save_path(scene))])
        out = capsys.readouterr().out
        assert status == 0, out
        assert out.rstrip().endswith("nothing unmapped")


def test_pack_check_of_a_pack_without_vassal_table_exits_2(capsys) -> None:
    assert main(["pack", "check", "tk", "--module", str(DEMO_MODULE)]) == 2
    assert "no [vassal] table" in capsys.readouterr().err


def test_an_off_map_window_is_scaffolded_and_mapped_as_a_box(corpus_dir, tmp_path, capsys) -> None:
    """Ragnarok's `deployment` window has no grid: its 86 pieces are all `offboard`. The scaffold
    offers the window as a box line named as the unmapped-places report names it."""
    module = corpus_module(corpus_dir, "ragnarok")
    save = module.parent / "ragnarok-start.vsav"
    target = tmp_path / "pack"
    main(["pack", "scaffold", str(module), "-o", str(target)])
    vassal_toml = target / "vassal.toml"
    text = vassal_toml.read_text()
    offered = '# "deployment: offboard" = ""'
    assert offered in text
    every_piece = ('\n[[vassal.counters]]\nmatch = { "@name" = "re:.+" }\n'
                   'set = { id = "{piece_id}", kind = "ground" }\n')
    as_box = text.replace(offered, '"deployment: offboard" = "set_aside"')
    places = []
    for edited in (text + every_piece, as_box + every_piece):
        vassal_toml.write_text(edited)
        capsys.readouterr()
        main(["pack", "check", str(target), "--module", str(module), "--save", str(save), "--format", "json"])
        places.append(json.loads(capsys.readouterr().out)["save"]["unmapped_places"])
    assert places[0].get("deployment: offboard") == 86
    assert "deployment: offboard" not in places[1]
