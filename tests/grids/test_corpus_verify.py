"""`verify` on every corpus save whose module is in the corpus and whose pieces carry VASSAL's own
location record (OldMap/OldX/OldY/OldLocationName): our names must agree 100% (spec §5.3, §6).

The pairs come from SOURCES.md (which save belongs to which module). Saves whose pieces carry no
record with a map (Hannibal, two Malifaux saves) are checked to say so rather than silently pass.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest

from bridge.cli.commands.verify import verify_game
from vassal_parser.game import Game, check_same_module, load_game
from vassal_parser.module import load_module

RAGNAROK = "jzedwards__vassal-hex-n-counters-template/ragnarok/vassal"
MALIFAUX = "andoroth__malifaux_vassal_module/module"
HANNIBAL = "tomo9878__hannnibal/Hannibal_Valley_en_1.3.1"

# (save, module, records expected): the counts are what these files hold, so a reader that
# stops finding records (e.g. a broken persistent-property parse) fails here too.
PAIRS = [
    (f"{RAGNAROK}/ragnarok-start.vsav", f"{RAGNAROK}/buildFile.xml", 43),
    ("Cattlesquat__Almoravid/Scenario_A_Toledo_Beset.vsav", "Cattlesquat__Almoravid/buildFile.xml", 60),
    (
        "Cattlesquat__Almoravid/Scenario_B_Quelling_of_the_Tajo.vsav",
        "Cattlesquat__Almoravid/buildFile.xml",
        50,
    ),
    ("Cattlesquat__Almoravid/Scenario_C_Parias_Wars.vsav", "Cattlesquat__Almoravid/buildFile.xml", 45),
    (
        "Cattlesquat__Almoravid/Scenario_D_Arrival_of_the_Africans.vsav",
        "Cattlesquat__Almoravid/buildFile.xml",
        62,
    ),
    (
        "Cattlesquat__Almoravid/Scenario_E_Alfonso_and_the_Almoravids.vsav",
        "Cattlesquat__Almoravid/buildFile.xml",
        47,
    ),
    (
        "Cattlesquat__Almoravid/Scenario_F_Reconquista_and_Riposte.vsav",
        "Cattlesquat__Almoravid/buildFile.xml",
        46,
    ),
    ("Cattlesquat__ForThePeople/1861-3-5.vsav", "Cattlesquat__ForThePeople/buildFile.xml", 28),
    ("Cattlesquat__Inferno/Scen0-QuickStart.vsav", "Cattlesquat__Inferno/buildFile.xml", 106),
    ("Cattlesquat__Inferno/Scen1-DolentiNote1259.vsav", "Cattlesquat__Inferno/buildFile.xml", 29),
    ("Cattlesquat__Inferno/Scen2-InFarVendetta1259-1260.vsav", "Cattlesquat__Inferno/buildFile.xml", 37),
    ("Cattlesquat__Inferno/Scen3-SantafiorOscura-Early1260.vsav", "Cattlesquat__Inferno/buildFile.xml", 40),
    (
        "Cattlesquat__Inferno/Scen4-ArbiaColoratainRosso-Late1260.vsav",
        "Cattlesquat__Inferno/buildFile.xml",
        41,
    ),
    ("Cattlesquat__Inferno/Scen5-LasciateOgneSperanza-1261.vsav", "Cattlesquat__Inferno/buildFile.xml", 45),
    ("Cattlesquat__Inferno/Scen6-DiSanguetEmpio-1259to1261.vsav", "Cattlesquat__Inferno/buildFile.xml", 29),
    (
        "Cattlesquat__Nevsky/Scenario_Crusade_on_Novgorod_1240_to_1242.vsav",
        "Cattlesquat__Nevsky/buildFile.xml",
        47,
    ),
    ("Cattlesquat__Nevsky/Scenario_Peipus_1242.vsav", "Cattlesquat__Nevsky/buildFile.xml", 39),
    ("Cattlesquat__Nevsky/Scenario_Pleskau_1240.vsav", "Cattlesquat__Nevsky/buildFile.xml", 22),
    (
        "Cattlesquat__Nevsky/Scenario_Return_of_the_Prince_1241_to_1242.vsav",
        "Cattlesquat__Nevsky/buildFile.xml",
        35,
    ),
    (
        "Cattlesquat__Nevsky/Scenario_Return_of_the_Prince_Nicolle_Variant.vsav",
        "Cattlesquat__Nevsky/buildFile.xml",
        84,
    ),
    ("Cattlesquat__Nevsky/Scenario_Watland_1241.vsav", "Cattlesquat__Nevsky/buildFile.xml", 27),
    ("Cattlesquat__PathsOfGlory/Historical10-8.vsav", "Cattlesquat__PathsOfGlory/buildFile.xml", 9),
    (f"{MALIFAUX}/A Desert Saloon.vsav", f"{MALIFAUX}/buildFile.xml", 43),
    (f"{MALIFAUX}/Arctic Lodge.vsav", f"{MALIFAUX}/buildFile.xml", 113),
    (f"{MALIFAUX}/Boomtown_v2.vsav", f"{MALIFAUX}/buildFile.xml", 52),
    (f"{MALIFAUX}/2018 Season G1.vsav", f"{MALIFAUX}/buildFile.xml", 0),
    (f"{MALIFAUX}/Bayou Blues.vsav", f"{MALIFAUX}/buildFile.xml", 0),
    (f"{HANNIBAL}/Charles' Variant.vsav", f"{HANNIBAL}/buildFile", 0),
    (f"{HANNIBAL}/PredifinedScenario.vsav", f"{HANNIBAL}/buildFile", 0),
]


ZONE_PAIRS = [
    ("Cattlesquat__Almoravid/Scenario_A_Toledo_Beset.vsav", "Cattlesquat__Almoravid/buildFile.xml"),
    ("Cattlesquat__Inferno/Scen0-QuickStart.vsav", "Cattlesquat__Inferno/buildFile.xml"),
    (f"{MALIFAUX}/Arctic Lodge.vsav", f"{MALIFAUX}/buildFile.xml"),
    (f"{RAGNAROK}/ragnarok-start.vsav", f"{RAGNAROK}/buildFile.xml"),
]


def _load(save: Path, module: Path) -> Game:
    loaded = load_module(module)
    game = load_game(save, loaded)
    check_same_module(game, loaded)
    return game


_cached_load = lru_cache(maxsize=len(ZONE_PAIRS))(_load)


def _loaded(corpus_dir: Path, save: str, module: str) -> Game:
    """The zone test re-reads the games of ZONE_PAIRS: those are loaded (and trait-decoded) once."""
    loader = _cached_load if (save, module) in ZONE_PAIRS else _load
    return loader(corpus_dir / save, corpus_dir / module)


@pytest.mark.parametrize(("save", "module", "records"), PAIRS, ids=[Path(p[0]).stem for p in PAIRS])
def test_verify_agrees_with_vassal_old_location_name(
    corpus_dir: Path, save: str, module: str, records: int
) -> None:
    """Spec §5.3/§6: OldLocationName of (OldMap, OldX, OldY) equals our Map.locationName, every time."""
    result = verify_game(_loaded(corpus_dir, save, module))
    assert result.disagreements == []
    assert (result.agree, result.total) == (records, records)


@pytest.mark.parametrize(("save", "module"), ZONE_PAIRS, ids=[Path(p[0]).stem for p in ZONE_PAIRS])
def test_current_zone_and_board_agree_with_old_zone_and_old_board(
    corpus_dir: Path, save: str, module: str
) -> None:
    """Spec §5.5/§6.7: OldZone = first zone (build order) holding the unflipped board point; OldBoard =
    Map.findBoard. Boards whose image is not in the corpus have no known size (docs/locations.md): there
    VASSAL's board test cannot be reproduced, so only zones are compared for points off a sized board."""
    game = _loaded(corpus_dir, save, module)
    compared = 0
    for piece in game.position():
        props = piece.properties
        if not props.get("OldMap") or "OldZone" not in props:
            continue
        layout = game.layout(props["OldMap"])
        x, y = int(props["OldX"]), int(props["OldY"])
        zone = layout.zone_at(x, y)
        assert (zone.name if zone else "") == props["OldZone"], (piece.id, x, y)
        board = layout.board_at(x, y)
        if board is not None and board.board.size is not None and "OldBoard" in props:
            assert board.name == props["OldBoard"], (piece.id, x, y)
        compared += 1
    assert compared > 0
