"""A count shown by one marker per row of a digit track (`[[vassal.state]] sum`, bridge/mapping/sums.py;
the A3R BRP tracks that 60.61/60.62 read): every row exactly once, or the count is left unknown."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from bridge.mapping.mapper import VassalMapping
from bridge.mapping.memo import MappingMemo
from vassal_parser.errors import InputError

ROWS = {"hundreds": (0, 100), "tens": (50, 10), "units": (100, 1)}
BOXES = [{"name": f"{row} {d}", "value": d * place, "row": row, "rect": [d * 40, y, d * 40 + 40, y + 50]}
         for row, (y, place) in ROWS.items() for d in range(10)]
SUM = {"awaw.russia.brps": {"part": "{track_row}", "parts": ["hundreds", "tens", "units"]}}
TABLE = {"tracks": [{"name": "BRPs", "map": "Card", "boxes": BOXES}],
         "state": [{"match": {"@name": "BRP", "@track": "BRPs"},
                    "set": {"awaw.russia.brps": "{track_value}"}, "sum": SUM}]}


def _marker(pid: str, digit: int, row: str) -> SimpleNamespace:
    return SimpleNamespace(id=pid, basic_name="BRP", piece_name="BRP", map="Card", board="B", zone=None,
                           location="offboard", x=digit * 40 + 20, y=ROWS[row][0] + 25, properties={},
                           hidden_by=None, masked_by=None)


def test_one_marker_a_row_gives_the_sum() -> None:
    mapping = VassalMapping.from_table(TABLE, "v.toml")
    pieces = [_marker("1", 1, "hundreds"), _marker("2", 4, "tens"), _marker("3", 7, "units")]
    result = mapping.map_pieces(pieces)
    assert result.position["awaw"]["russia"]["brps"] == 147 and "awaw.russia.brps" in result.state_paths
    memo = MappingMemo()  # a daemon's memo: the same count twice, and a moved marker read anew
    assert mapping.map_pieces(pieces, memo=memo).position["awaw"]["russia"]["brps"] == 147
    pieces[1] = _marker("2", 0, "tens")
    assert mapping.map_pieces(pieces, memo=memo).position["awaw"]["russia"]["brps"] == 107


@pytest.mark.parametrize(("pieces", "said"), [
    ([("1", 1, "hundreds"), ("3", 7, "units")], "no BRP marker in tens"),
    ([("1", 1, "hundreds"), ("2", 4, "tens"), ("3", 7, "tens")], "more than one in tens"),
])
def test_a_row_missing_or_doubled_leaves_the_count_unknown(pieces: list, said: str) -> None:
    mapping = VassalMapping.from_table(TABLE, "v.toml")
    result = mapping.map_pieces([_marker(*p) for p in pieces])
    assert "awaw" not in result.position or "brps" not in result.position["awaw"].get("russia", {})
    assert "awaw.russia.brps" not in result.state_paths
    assert any(said in w and "left unknown" in w for w in result.warnings)


@pytest.mark.parametrize(("sums", "message"), [
    ({"other.path": SUM["awaw.russia.brps"]}, "names no path the rule's set writes"),
    ({"awaw.russia.brps": {"part": "{track_row}"}}, "is { part ="),
    ({"awaw.russia.brps": {"part": "{track_row}", "parts": ["a", "a"]}}, "distinct names"),
])
def test_a_bad_sum_is_one_line(sums: dict, message: str) -> None:
    table = {**TABLE, "state": [{**TABLE["state"][0], "sum": sums}]}
    with pytest.raises(InputError, match=message.replace("{", r"\{")):
        VassalMapping.from_table(table, "v.toml")
    counters = {"counters": [{"match": {"@name": "X"}, "set": {"id": "x"}, "sum": SUM}]}
    with pytest.raises(InputError, match="sum is for state rules"):
        VassalMapping.from_table(counters, "v.toml")
