"""Issue 22's examples on the demo save 02-poland-falls.vsav: undecided only where a missing fact could
change the outcome, trust named in the header, and "the pack lists no City" never read as a cession.

16.1.1: "If Axis ground units occupy all City and Partisan Base hexes of an active Allied Minor Country,
that Country is conquered" -- a located City of France or Belgium-Holland that the Axis does not hold
decides both, whatever else the pack lacks.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK
from bridge.cli.main import main
from module_patches.demo_story import load_story, save_path

SAVE = save_path(load_story()[1])  # 02-poland-falls.vsav


# The demo pack's [complete] table as it stands (every fact "all"), written here so each test states the
# table it changes.
COMPLETE = {fact: '"all"' for fact in ("city_hexes", "capital", "border_hexes", "area_hexes", "neighbors",
                                       "area_neighbors", "port_hexes", "region_strategic_hex",
                                       "country_hexes")}


def _pack(tmp_path: Path, edit, **complete: str | None) -> Path:  # type: ignore[no-untyped-def]
    """A copy of the demo pack with its [complete] table replaced (`fact=None` leaves the fact out)."""
    folder = tmp_path / "pack"
    shutil.copytree(DEMO_PACK, folder)
    table = {**COMPLETE, **complete}
    for name in ("pack.toml", "geography.toml"):
        path = folder / name
        text = path.read_text(encoding="utf-8")
        if name == "pack.toml":
            text = text[:text.index("\n[complete]\n")] + "\n[complete]\n" + "".join(
                f"{fact} = {value}\n" for fact, value in table.items() if value is not None)
        path.write_text(edit(name, text), encoding="utf-8")
    return folder


def _same(name: str, text: str) -> str:
    return text


def _conquest(capsys, pack: Path) -> tuple[int, dict, str]:  # type: ignore[no-untyped-def]
    status = main(["check", str(SAVE), "--module", str(DEMO_MODULE), "--pack", str(pack), "--format", "json"])
    plan = json.loads(capsys.readouterr().out)
    main(["check", str(SAVE), "--module", str(DEMO_MODULE), "--pack", str(pack)])
    return status, next(e for e in plan["events"] if e["rule"] == "16.1.1"), capsys.readouterr().out


def test_16_1_1_poland_due_naming_no_city_of_france_or_belgium_holland(tmp_path, capsys) -> None:
    """Only Poland's Cities are claimed complete: Poland is due, and France and Belgium-Holland are not
    named as missing -- Paris, Lyon, Brussels and Amsterdam are known and free of Axis units."""
    pack = _pack(tmp_path, _same, city_hexes='["Poland"]')
    status, conquest, _ = _conquest(capsys, pack)
    assert status == 1 and conquest["status"] == "fired" and conquest["missing"] == []


def test_16_1_1_without_a_city_claim_only_poland_is_undecided(tmp_path, capsys) -> None:
    """No [complete] city_hexes at all: Poland (both located Cities held) could have another City, so it is
    undecided; France and Belgium-Holland are decided not due by their known free Cities."""
    pack = _pack(tmp_path, _same, city_hexes=None)
    status, conquest, out = _conquest(capsys, pack)
    assert status == 3 and conquest["status"] == "undecided"
    assert [(m["fact"], m["subject"]) for m in conquest["missing"]] == [("city_hexes", "Poland")]
    assert "Belgium-Holland: Axis ground units do not occupy Brussels (w3619), Amsterdam (w3820)" in out


def test_trusted_facts_are_named_in_the_plan_header(tmp_path, capsys) -> None:
    """`others = "trusted"` stays available, but every plan header says which facts are trusted."""
    pack = _pack(tmp_path, _same, city_hexes=None, others='"trusted"')
    status, conquest, out = _conquest(capsys, pack)
    assert status == 1 and conquest["status"] == "fired"
    assert ("trusted, not located: pack demo takes what it locates of City hexes (city_hexes) as the whole "
            "fact") in out
    main(["check", str(SAVE), "--module", str(DEMO_MODULE), "--pack", str(pack), "--format", "markdown"])
    assert "trusted, not located: pack demo takes what it locates of City hexes" in capsys.readouterr().out


def test_a_country_whose_pack_lists_no_city_is_never_all_ceded_away(tmp_path, capsys) -> None:
    """Warsaw and Krakow lose their City flags in a copy that claims its Cities complete: "the pack lists no
    City of Poland" -- nothing was ceded (the Polish Corridor marker is still in the Axis Force Pool)."""
    def edit(name: str, text: str) -> str:
        if name != "geography.toml":
            return text
        text = text.replace('name = "Warsaw", city = true, capital = true', 'name = "Warsaw"')
        return text.replace('name = "Krakow", city = true', 'name = "Krakow"')

    status, conquest, out = _conquest(capsys, _pack(tmp_path, edit))
    assert conquest["status"] == "not_due" and status == 0
    assert "Poland: the pack lists no City of Poland, and it holds no City or Partisan Base hex" in out
    assert "ceded away" not in out


def test_all_ceded_away_only_where_ceded_lands_hold_the_cities() -> None:
    """16.1.1 France: with Occupied France's marker in the Ceded Lands Box and Bordeaux no City, France holds
    no City because Paris and Lyon are ceded away -- and the plan says so, naming the area."""
    import dataclasses

    from rules.engine import plan
    from rules.packs import load_pack
    from rules.state import GameState

    pack = load_pack(DEMO_PACK)
    pack = dataclasses.replace(pack, hexes={**pack.hexes,
                                            "w3313": dataclasses.replace(pack.hexes["w3313"], city=False)})
    sides = (("Germany", "Axis"), ("Britain", "Western"), ("Russia", "Soviet"), ("USA", "Western"))
    majors = {m: {"faction": f} for m, f in sides}
    state = GameState.from_json({
        "pack": "demo", "turn": {"date": "1940-05", "phasing": "Axis"},
        "countries": {**majors, "France": {"faction": "Western", "status": "active"}},
        "counters": [{"id": "occfr", "kind": "ceded_land", "area": "occupied_france",
                      "location": "ceded_lands"}],
    })
    conquest = next(e for e in plan(state, pack).events if e.rule == "16.1.1")
    assert "France: it holds no City now (its Cities are ceded away: Occupied France)" in conquest.why
