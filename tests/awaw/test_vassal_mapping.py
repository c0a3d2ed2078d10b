"""The awaw pack's VASSAL mapping on the corpus "A3R with AWAW Map" save: nationality and unit type from the
piece names, control markers into `awaw.control`, and what the pieces cannot give (docs/awaw.md)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from bridge.mapping.mapper import VassalMapping
from tests.awaw.helpers import awaw_pack
from vassal_parser.game import load_game
from vassal_parser.module import load_module

FOLDER = "patricksurry__jspy-vassal/test"


@pytest.fixture(scope="module")
def mapped(corpus_dir: Path):  # type: ignore[no-untyped-def]
    module = load_module(corpus_dir / FOLDER / "buildFile-a3r.yml")
    game = load_game(corpus_dir / FOLDER / "A3R_1939_Scenario_Template_Rev1702_AWAW.vsav", module)
    mapping = VassalMapping.from_pack(awaw_pack())
    return mapping, mapping.map_pieces(game.position(), awaw_pack()), game.position()


def test_units_get_nationality_and_kind_from_their_names(mapped) -> None:  # type: ignore[no-untyped-def]
    mapping, result, pieces = mapped
    # Without the pack's hex list every European Front hex is taken, so every placed unit shows its fields.
    counters = mapping.map_pieces(pieces).position["counters"]
    by_name = {}
    for counter in counters:
        by_name.setdefault(counter["name"], counter)
    assert (by_name["GE Arm 4-6"]["nationality"], by_name["GE Arm 4-6"]["kind"]) == ("Germany", "ground")
    assert (by_name["UK Naval"]["nationality"], by_name["UK Naval"]["kind"]) == ("Britain", "naval")
    assert (by_name["IT Air"]["nationality"], by_name["IT Air"]["kind"]) == ("Italy", "air")
    assert by_name["Finn Air 14"]["nationality"] == "Finland"
    assert "industrial_center" in by_name["RUS Industrial Center"]["tags"]
    assert not result.unmapped_pieces  # every piece is a counter, state, or ignored on purpose


def test_pieces_off_the_sample_map_are_listed_not_guessed(mapped) -> None:  # type: ignore[no-untyped-def]
    """The save's pieces stand on real European Front hexes (C35, H55 ...) that the pack's sample graph
    does not hold: they are unmapped places, named, not moved elsewhere; H55, in the sample, is mapped."""
    _, result, _ = mapped
    assert "Map Window: C35" in result.unmapped_places
    placed = {(c["location"], c["name"]) for c in result.position["counters"]}
    assert ("H55", "RUS Industrial Center") in placed


def test_control_markers_set_hex_control(mapped) -> None:  # type: ignore[no-untyped-def]
    mapping, _, _ = mapped
    marker = SimpleNamespace(id="m1", basic_name="German Control", piece_name="German Control",
                             map="Map Window", board="A3R European Front", zone=None, location="K50",
                             properties={},
                             hidden_by=None, masked_by=None)
    result = mapping.map_pieces([marker], awaw_pack())
    assert result.position["awaw"]["control"] == {"K50": "Germany"}
