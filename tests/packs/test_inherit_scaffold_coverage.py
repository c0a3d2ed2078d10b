"""Packs that fit a real module (issue 9, sections 2 and 4): inheritance by reference, `pack scaffold
--base`, hex naming detected from the module's grid numbering, `pack check` coverage and hex ids."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK
from bridge.cli.main import main
from bridge.mapping.cells import map_cells
from rules.facts import coverage
from rules.packs import load_pack
from vassal_parser.errors import InputError
from vassal_parser.layout import MapLayout
from vassal_parser.module import load_module

JZ_MODULE = ("jzedwards__vassal-hex-n-counters-template", "jzhex-n-counters-template-v12-379.vmod")


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# ---- inheritance ---------------------------------------------------------------------------------
def test_demo_pack_has_no_symlinks_and_inherits_tk_events_by_reference() -> None:
    assert not any(p.is_symlink() for p in DEMO_PACK.iterdir())
    demo, tk = load_pack(DEMO_PACK), load_pack("tk")
    assert set(demo.events) == set(tk.events) and demo.order == tk.order and set(demo.cards) == set(tk.cards)
    assert demo.events["16.1.1"].needs == tk.events["16.1.1"].needs
    # Its own geography, not TK's: the demo lists only the hexes its map draws.
    assert "Yugoslavia" not in demo.countries and demo.hexes["w3516"].name == "Paris"


def test_derived_hexes_extend_and_override_the_base_field_by_field(tmp_path) -> None:
    derived = tmp_path / "derived"
    write(derived / "pack.toml", '[pack]\nname = "derived"\nbase = "tk"\n'
                                 'base_tables = ["events", "order", "cards", "countries", "hexes", "areas"]\n'
                                 'incomplete = ["mine"]\n')
    write(derived / "map.toml", '[hexes]\nw3516 = { port = true }\n'
                                'w3517 = { country = "France", name = "Orleans", city = true }\n')
    pack, tk = load_pack(derived), load_pack("tk")
    paris = pack.hexes["w3516"]
    assert paris.port and paris.name == "Paris" and paris.capital and paris.country == "France"
    assert not tk.hexes["w3516"].port  # the base itself is untouched
    assert pack.hexes["w3517"].city and set(tk.hexes) < set(pack.hexes)
    assert set(pack.countries) == set(tk.countries) and set(pack.areas) == set(tk.areas)
    # The base's `incomplete` notes still apply to a pack that inherits its geography.
    assert pack.incomplete[0] == "mine" and set(tk.incomplete) <= set(pack.incomplete)
    city = next(line for line in coverage(pack) if line.rule == "16.1.1")
    city_tk = next(line for line in coverage(tk) if line.rule == "16.1.1")
    assert "France" in city.have and len(city.have) >= len(city_tk.have)


def test_a_base_cycle_is_one_line(tmp_path) -> None:
    write(tmp_path / "a" / "pack.toml", '[pack]\nname = "a"\nbase = "../b"\n')
    write(tmp_path / "b" / "pack.toml", '[pack]\nname = "b"\nbase = "../a"\n')
    with pytest.raises(InputError, match="cycle"):
        load_pack(tmp_path / "a")


# ---- cells: the module's own locations -----------------------------------------------------------
def test_cells_are_where_vassal_names_them() -> None:
    """Every enumerated hex centre is the point VASSAL's own numbering gives its name (round trip)."""
    module = load_module(DEMO_MODULE)
    europe = module.map_by_id("Europe")
    cells = map_cells(europe)
    layout = MapLayout(europe)
    assert len(cells.cells) > 500 and not cells.problems
    for cell in cells.cells:
        assert layout.location_name(*cell.center) == cell.name
        assert layout.point_for(cell.name) == cell.center
    assert set(load_pack(DEMO_PACK).hexes) <= cells.names()


# ---- scaffold --base -----------------------------------------------------------------------------
def test_scaffold_base_tk_on_the_demo_module(tmp_path, capsys) -> None:
    target = tmp_path / "pack"
    assert main(["pack", "scaffold", str(DEMO_MODULE), "--base", "tk", "-o", str(target)]) == 0
    out = capsys.readouterr().out
    assert "inherits tk by reference" in out
    assert "map Europe, board West: hex ids are the location names themselves" in out
    assert "board West: location format 'w$gridLocation$'" in out
    assert "9 of the 9 tk hex ids name a location of this map" in out
    text = (target / "pack.toml").read_text()
    assert 'base = "tk"' in text and not any(p.is_symlink() for p in target.iterdir())
    pack = load_pack(target)
    assert set(pack.hexes) == set(load_pack("tk").hexes) and pack.edition == "tk"
    status = main(["pack", "check", str(target), "--module", str(DEMO_MODULE), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert status == 1  # counters and boxes are not mapped yet, and TK lacks most City hexes
    assert report["hex_ids"]["verified"] == report["hex_ids"]["checked"] == 9
    assert report["hex_ids"]["not_in_module"] == {}


def test_scaffold_never_writes_trust_nor_inherits_it_unseen(tmp_path, capsys) -> None:
    """Issue 22: `pack scaffold` never writes `others = "trusted"`; without a base it writes a [complete]
    table (no table would trust every located fact), and over a base that trusts, its own table says
    `others = "missing"`, so `pack check` and every plan see no trusted fact."""
    from rules.facts import trusted_facts

    trusting = tmp_path / "trusting"
    shutil.copytree(DEMO_PACK, trusting)
    toml = trusting / "pack.toml"
    toml.write_text(toml.read_text().replace('city_hexes = "all"\n', 'others = "trusted"\n'))
    assert trusted_facts(load_pack(trusting)) == ["city_hexes"]
    for base in (None, str(trusting)):
        target = tmp_path / f"scaffold-{bool(base)}"
        extra = ["--base", base] if base else []
        assert main(["pack", "scaffold", str(DEMO_MODULE), *extra, "-o", str(target)]) == 0
        capsys.readouterr()
        text = "".join(p.read_text() for p in target.glob("*.toml"))
        assert 'others = "trusted"' not in text and "[complete]" in text
        assert trusted_facts(load_pack(target)) == []
    main(["pack", "check", str(tmp_path / "scaffold-True")])
    out = capsys.readouterr().out
    assert "trusted" not in out and "16.1.1 City hexes: 0 of 6 countries" in out


def _bare_west_module(tmp_path: Path) -> Path:
    """The demo module with its West board numbered without the `w` (names 3516, not w3516)."""
    target = tmp_path / "bare.vmod"
    with zipfile.ZipFile(DEMO_MODULE) as source, zipfile.ZipFile(target, "w") as out:
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == "buildFile.xml":
                assert b'locationFormat="w$gridLocation$"' in data
                data = data.replace(b'locationFormat="w$gridLocation$"', b'locationFormat="$gridLocation$"')
            out.writestr(info, data)
    return target


def test_scaffold_detects_a_per_board_prefix(tmp_path, capsys) -> None:
    module = _bare_west_module(tmp_path)
    target = tmp_path / "pack"
    assert main(["pack", "scaffold", str(module), "--base", "tk", "-o", str(target)]) == 0
    out = capsys.readouterr().out
    assert "map Europe, board West: hex id = 'w' + location name" in out
    assert "map Europe, board East: hex ids are the location names themselves" in out
    assert "9 of the 9 tk hex ids name a location of this map" in out
    vassal = (target / "vassal.toml").read_text()
    assert 'hex = "w{location}"' in vassal
    main(["pack", "check", str(target), "--module", str(module), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert report["hex_ids"]["verified"] == 9 and report["hex_ids"]["not_in_module"] == {}
    # The same pack checked against the original module (names w3516): West ids name nothing there.
    main(["pack", "check", str(target), "--module", str(DEMO_MODULE), "--json"])
    report = json.loads(capsys.readouterr().out)
    wrong = report["hex_ids"]["not_in_module"]
    assert set(wrong) == {h for h in load_pack("tk").hexes if h.startswith("w")}
    assert "no location '3516' on map Europe" in wrong["w3516"]


def test_scaffold_base_tk_on_a_corpus_hex_module(corpus_dir, tmp_path, capsys) -> None:
    module = corpus_dir.joinpath(*JZ_MODULE)
    target = tmp_path / "pack"
    assert main(["pack", "scaffold", str(module), "--base", "tk", "-o", str(target)]) == 0
    out = capsys.readouterr().out
    assert "board Map: location format '$gridLocation$', names like 0001, 0002, 0003" in out
    assert "match none of the base pack's hex ids" in out
    status = main(["pack", "check", str(target), "--module", str(module)])
    out = capsys.readouterr().out
    assert status == 1
    assert "hex ids naming a location of the module: 0 of 9" in out
    assert "not in the module: w3516 ([hexes]: no location 'w3516' on map" in out
    # Hexes added in the module's own numbering are verified.
    write(target / "map.toml", '[hexes]\n"0203" = { country = "France", name = "Here", city = true }\n'
                               '"9999" = { country = "France", name = "Nowhere" }\n')
    main(["pack", "check", str(target), "--module", str(module), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert "0203" not in report["hex_ids"]["not_in_module"]
    assert "9999" in report["hex_ids"]["not_in_module"]
    assert report["hex_ids"]["verified"] == 1


# ---- pack check coverage -------------------------------------------------------------------------
@pytest.mark.parametrize("pack", ["tk", "ds", str(DEMO_PACK)])
def test_pack_check_prints_coverage_and_exits_0_only_when_nothing_is_missing(pack, capsys) -> None:
    status = main(["pack", "check", pack, "--json"])
    report = json.loads(capsys.readouterr().out)
    lines = coverage(load_pack(pack))
    # Each fact of each subject once (issue 38): the editor's count, not a sum over the events reading it.
    assert report["facts_missing"] == len({(line.fact, s) for line in lines for s in line.lack})
    assert report["facts_missing"] == report["facts"]["missing"]
    assert status == (0 if report["facts_missing"] == 0 else 1)
    assert report["incomplete"] == list(load_pack(pack).incomplete)
    main(["pack", "check", pack])
    text = capsys.readouterr().out
    areas = load_pack(pack).areas
    for line in lines:
        total = len(line.have) + len(line.lack)
        assert f"{line.rule} {line.label}: {len(line.have)} of {total} " in text
        named = [areas[s].name if line.per == "area" else s for s in line.lack]
        if line.lack:
            assert f"missing: {', '.join(named)}" in text


def test_pack_check_counts_what_a_pack_lacks(tmp_path, capsys) -> None:
    """16.1.1 needs the City hexes of every Minor Country: the demo pack has them all (exit 0) and says so
    fact by fact, trusting none. A copy without Hungary's City shows Hungary as having none (its
    `city_hexes = "all"` says so); a copy whose [complete] does not name Hungary lists it missing, exit 1."""
    assert main(["pack", "check", str(DEMO_PACK)]) == 0
    out = capsys.readouterr().out
    assert "16.1.1 City hexes: 6 of 6 countries" in out and "trusted" not in out
    pack = tmp_path / "demo"
    pack.mkdir()
    for path in DEMO_PACK.glob("*.toml"):
        text = path.read_text()
        if path.name == "geography.toml":
            budapest = 'e3403 = { country = "Hungary", name = "Budapest"'
            text = text.replace(f"{budapest}, city = true, capital = true }}", f"{budapest} }}")
            text = text.replace('"Hungary" = { kind = "minor", capital = "e3403" }',
                                '"Hungary" = { kind = "minor" }')
        write(pack / path.name, text)
    main(["pack", "check", str(pack)])
    out = capsys.readouterr().out
    assert "    none (the pack lists none and says that is all): Hungary" in out
    listed = '["Belgium-Holland", "France", "Italy", "Norway", "Poland"]'
    write(pack / "pack.toml", (pack / "pack.toml").read_text().replace('city_hexes = "all"',
                                                                        f"city_hexes = {listed}"))
    assert main(["pack", "check", str(pack)]) == 1
    out = capsys.readouterr().out
    assert "16.1.1 City hexes: 5 of 6 countries" in out
    assert "    missing: Hungary" in out


def test_pack_check_save_needs_module(capsys) -> None:
    assert main(["pack", "check", str(DEMO_PACK), "--save", "x.vsav"]) == 2
    assert "--save needs --module" in capsys.readouterr().err



def test_a_chance_match_of_numbering_is_flagged(corpus_dir, tmp_path, capsys) -> None:
    """The Longest Day numbers its hexes 0100..9625: some DS ids match by chance once prefixed, so the
    scaffold says how many do not and asks for a check against the printed map."""
    module = corpus_dir / "uckelman__tld-mod" / "buildFile"
    assert main(["pack", "scaffold", str(module), "--base", "ds", "-o", str(tmp_path / "pack")]) == 0
    out = capsys.readouterr().out
    assert "hex ids name no location of this module: check on the printed map" in out


def test_pack_check_names_areas_as_the_rules_text_does(tmp_path, capsys) -> None:
    """A border-defense need per area prints "Eastern Poland", not the id `eastern_poland`."""
    pack = tmp_path / "pack"
    pack.mkdir()
    for path in DEMO_PACK.glob("*.toml"):
        write(pack / path.name, path.read_text())
    write(pack / "needs.toml", '[events."16.9.9"]\nimpl = "minor_conquest"\n'
                               'needs = [{fact = "road_rail_hexes", of = ["eastern_poland"]}]\n')
    assert main(["pack", "check", str(pack)]) == 1
    out = capsys.readouterr().out
    assert "16.9.9 road/rail hexes: 0 of 1 area" in out and "missing: Eastern Poland" in out


def test_pack_check_of_a_pack_without_events_is_not_complete(tmp_path, capsys) -> None:
    target = tmp_path / "pack"
    assert main(["pack", "scaffold", str(DEMO_MODULE), "-o", str(target)]) == 0
    capsys.readouterr()
    assert main(["pack", "check", str(target)]) == 1
    assert "the pack lists no events: it decides nothing" in capsys.readouterr().out
