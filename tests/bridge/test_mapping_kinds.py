"""The mapping decides per kind of piece (`MappingMemo.kinds`, issue 15) whether every rule refuses
it at its first condition, when those conditions read only what pieces of a kind share; the result
must be the full mapping's, piece for piece (docs/vassal-mapping.md), also when a first condition
reads where the piece stands or when some rule takes the kind."""

from __future__ import annotations

from pathlib import Path

from bridge.mapping.mapper import VassalMapping
from bridge.mapping.memo import MappingMemo
from bridge.pipeline import concealed_names
from tests.grids.test_piece_kinds import DEMO, _with_spares
from vassal_parser.game import PositionMemo, load_game
from vassal_parser.module import load_module

SPARES = {"counters": [{"match": {"Class": "Spare", "CurrentX": "re:[0-9]*7"},
                        "set": {"id": "S{CurrentX}", "kind": "marker", "name": "{BasicName}"}}]}
WHERE_FIRST = {"counters": [{"match": {"CurrentZone": "re:.*Box", "Class": "Spare"},
                             "set": {"id": "Z{CurrentX}", "kind": "marker", "name": "{BasicName}"}}]}
NONE_TAKEN = {"counters": [{"match": {"Kind": "re:ground|air", "Class": "Spare"},
                            "set": {"id": "{Counter}", "kind": "{Kind}", "name": "{BasicName}"}}]}


def _pieces(tmp_path: Path) -> list:
    module = load_module(DEMO / "adjutant-demo.vmod")
    save = _with_spares(DEMO / "saves" / "02-poland-falls.vsav", tmp_path / "spares.vsav", 90)
    return load_game(save, module, memo=PositionMemo(module)).position()


def test_kind_decisions_map_every_piece_as_the_full_mapping_does(tmp_path: Path) -> None:
    pieces = _pieces(tmp_path)
    assert sum(1 for p in pieces if p.kind is not None) > 90
    for table, per_kind in ((NONE_TAKEN, True), (SPARES, True), (WHERE_FIRST, False)):
        mapping = VassalMapping.from_table(table, "test.toml")
        assert mapping._first_reads_kind is per_kind
        fresh = mapping.map_pieces(pieces)
        memo = MappingMemo()
        for _ in range(2):  # filled, then read back
            assert mapping.map_pieces(pieces, memo=memo) == fresh
        if per_kind:
            assert 0 < len(memo.kinds) < len(pieces)
        else:
            assert not memo.kinds
    # the spares whose x ends in 7 are taken (each on its own: no places table, so unmapped places)
    spares = VassalMapping.from_table(SPARES, "test.toml").map_pieces(pieces, memo=MappingMemo())
    taken = [p for p in pieces
             if p.properties.get("Class") == "Spare" and p.properties["CurrentX"].endswith("7")]
    assert taken and sum(spares.unmapped_places.values()) == len(taken)


def test_a_new_mapping_forgets_the_kinds(tmp_path: Path) -> None:
    pieces = _pieces(tmp_path)
    memo = MappingMemo()
    first = VassalMapping.from_table(NONE_TAKEN, "test.toml")
    first.map_pieces(pieces, memo=memo)
    assert memo.kinds
    second = VassalMapping.from_table(SPARES, "test.toml")
    assert second.map_pieces(pieces, memo=memo) == second.map_pieces(pieces)


def test_concealed_names_per_kind_are_the_piece_by_piece_ones(tmp_path: Path) -> None:
    """The stream's filter (docs/protocol.md, "Hidden pieces") from pieces with kinds equals the one
    from the same pieces read without a memo: hidden spares' names secret, visible ones' public."""
    module = load_module(DEMO / "adjutant-demo.vmod")
    save = _with_spares(DEMO / "saves" / "02-poland-falls.vsav", tmp_path / "spares.vsav", 90)
    with_kinds = load_game(save, module, memo=PositionMemo(module)).position()
    without = load_game(save, module).position()
    mapping = VassalMapping.from_table(NONE_TAKEN, "test.toml")
    secret = concealed_names(with_kinds, mapping.map_pieces(with_kinds, memo=MappingMemo()))
    assert secret == concealed_names(without, mapping.map_pieces(without))
    assert {"Hidden spare 0", "Hidden spare 1", "Hidden spare 2"} <= set(secret)
    assert not any(name.startswith("Spare marker") for name in secret)
