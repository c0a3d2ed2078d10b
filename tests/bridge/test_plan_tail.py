"""The part of a plan after the position is read (issue 15: a cold 5,000-piece first save) done with
fewer passes over the pieces: kinds counted whole in `VassalMapping.map_pieces`, one pass for every
map inset. Each shortcut must give what the piece-by-piece way gives, to the order of every list and
table (docs/architecture.md, "After the position")."""

from __future__ import annotations

from pathlib import Path

from bridge.mapping.mapper import VassalMapping
from bridge.mapping.memo import MappingMemo
from tests.grids.test_piece_kinds import DEMO, _with_spares
from vassal_parser.game import PositionMemo, load_game
from vassal_parser.module import load_module

# Spare markers are taken by no rule (counted whole per kind); German ground units are taken, and
# every other ground unit passes the first condition but not the second, so it is visited and left
# unmapped piece by piece: the unmapped names of both ways interleave.
MIXED = {"counters": [{"match": {"Kind": "ground", "Counter": "re:GE-.*"},
                       "set": {"id": "{Counter}", "kind": "{Kind}", "name": "{BasicName}"}}]}


def _orders(result) -> list:
    """Everything of a MappingResult, with the order of each table and list."""
    return [list(result.position.items()), list(result.piece_counters.items()),
            list(result.concealed.items()), list(result.unmapped_pieces.items()),
            list(result.unmapped_places.items()), result.warnings]


def test_kinds_counted_whole_keep_every_count_and_order(tmp_path: Path) -> None:
    module = load_module(DEMO / "adjutant-demo.vmod")
    save = _with_spares(DEMO / "saves" / "02-poland-falls.vsav", tmp_path / "spares.vsav", 90)
    with_kinds = load_game(save, module, memo=PositionMemo(module)).position()
    mapping = VassalMapping.from_table(MIXED, "test.toml")
    assert mapping._first_reads_kind
    fresh = mapping.map_pieces(with_kinds)  # no memo: every piece visited
    memo = MappingMemo()
    for _ in range(2):  # kinds decided during the pass, then already known
        assert _orders(mapping.map_pieces(with_kinds, memo=memo)) == _orders(fresh)
    spares = {name: count for name, count in fresh.unmapped_pieces.items() if "spare" in name.lower()}
    assert sum(spares.values()) == 90 and len(spares) == 6  # 3 visible + 3 hidden names, every piece counted
    names = list(fresh.unmapped_pieces)
    assert "PO 1 Inf" in names and "Spare marker 0" in names  # both ways took part
    assert fresh.unmapped_places  # the German units were taken (no places table: unmapped places)


def test_an_inset_shows_the_same_pieces_whatever_objects_it_is_given() -> None:
    """`inset._shown_in`: placed pieces read by their attributes, and piece-like objects that lack
    some (read the general way), give the same pieces: on the inset's map, in its hexes, neither
    hidden nor masked (the overlay must never show a hidden piece)."""
    from types import SimpleNamespace

    from bridge.mapping.inset import _shown_in

    full = [SimpleNamespace(map=m, location=loc, hidden_by=h, masked_by=k)
            for m in ("Europe", "Boxes") for loc in ("0101", "0102", None) for h in (None, "Axis")
            for k in (None, "Allies")]
    shown = _shown_in(full, "Europe", {"0101", "0102"})
    assert [(p.map, p.location) for p in shown] == [("Europe", "0101"), ("Europe", "0102")]
    partial = [SimpleNamespace(location="0101"), *full]  # no map, no hidden_by: never shown
    assert _shown_in(iter(partial), "Europe", {"0101", "0102"}) == shown
