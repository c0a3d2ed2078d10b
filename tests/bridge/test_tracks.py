"""Printed tracks in a pack (`[[vassal.tracks]]`, mapping/tracks.py; issue 25): a marker's value is read from
the box it stands in — by the board point (rect / polygon, board pixels), or by VASSAL's own location where
the module has a zone grid — and a box of a `places` track is where counters stand."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from bridge.mapping.mapper import VassalMapping
from bridge.mapping.tracks import parse_tracks, row_of_boxes
from vassal_parser.errors import InputError

TABLE = {
    "tracks": [
        {"name": "Turn Track", "map": "Main", "board": "B",
         "boxes": [{"name": "Turn 1", "value": 1, "rect": [0, 0, 50, 50]},
                   {"name": "Turn 2", "value": 2, "polygon": [[50, 0], [100, 0], [100, 50], [50, 50]]},
                   {"name": "Turn 3", "value": 3, "location": "Turn 3 Box"}]},
        {"name": "Pools", "map": "Main", "board": "B", "places": True,
         "boxes": [{"name": "Axis pool", "value": "force_pool:Axis", "rect": [0, 100, 100, 200]}]},
    ],
    "state": [{"match": {"@name": "TURN", "@track": "Turn Track"},
               "set": {"turn.number": "{track_value}", "turn.box": "{track_box}"}}],
    "counters": [{"match": {"@name": "re:Unit.*"}, "set": {"id": "{piece_id}", "kind": "ground"}}],
}


def _piece(name: str, x: int, y: int, location: str = "", pid: str = "1") -> SimpleNamespace:
    return SimpleNamespace(id=pid, basic_name=name, piece_name=name, map="Main", board="B", zone=None,
                           location=location, x=x, y=y, properties={}, hidden_by=None, masked_by=None)


@pytest.mark.parametrize(("x", "y", "location", "turn"),
                         [(10, 10, "", 1), (60, 20, "", 2), (500, 500, "Turn 3 Box", 3)])
def test_a_marker_reads_the_value_of_the_box_it_stands_in(x: int, y: int, location: str, turn: int) -> None:
    mapping = VassalMapping.from_table(TABLE, "vassal.toml")
    position = mapping.map_pieces([_piece("TURN", x, y, location)]).position
    assert position["turn"]["number"] == turn  # the box's own (TOML) type, not text
    assert position["turn"]["box"] == f"Turn {turn}"


def test_the_board_origin_is_taken_off_the_map_point() -> None:
    mapping = VassalMapping.from_table(TABLE, "vassal.toml")
    moved = mapping.map_pieces([_piece("TURN", 210, 10)], board_origins={("Main", "B"): (200, 0)})
    assert moved.position["turn"]["number"] == 1


def test_off_every_box_nothing_is_read_and_the_marker_is_reported() -> None:
    mapping = VassalMapping.from_table(TABLE, "vassal.toml")
    result = mapping.map_pieces([_piece("TURN", 300, 300)])
    assert "number" not in result.position["turn"] and result.unmapped_pieces == {"TURN": 1}


def test_a_places_track_locates_counters() -> None:
    mapping = VassalMapping.from_table(TABLE, "vassal.toml")
    result = mapping.map_pieces([_piece("Unit A", 20, 150)])
    assert result.position["counters"][0]["location"] == "force_pool:Axis"


def test_bad_tracks_are_one_line() -> None:
    with pytest.raises(InputError, match="exactly one of rect, polygon or location"):
        parse_tracks([{"name": "T", "map": "M", "boxes": [{"name": "a", "value": 1}]}], "v.toml")
    with pytest.raises(InputError, match="is empty"):
        parse_tracks([{"name": "T", "map": "M", "boxes": [{"name": "a", "value": 1, "rect": [5, 5, 5, 9]}]}],
                     "v.toml")


def test_a_track_is_capped() -> None:
    box = {"name": "a", "value": 1, "rect": [0, 0, 5, 5]}
    with pytest.raises(InputError, match="1 to 1000 boxes"):
        parse_tracks([{"name": "T", "map": "M", "boxes": [box] * 1001}], "v.toml")
    with pytest.raises(InputError, match="3 to 64"):
        parse_tracks([{"name": "T", "map": "M", "boxes": [{"name": "a", "value": 1,
                                                            "polygon": [[0, 0]] * 65}]}], "v.toml")


def test_a_row_of_boxes_is_spaced_evenly_from_the_first_to_the_last() -> None:
    boxes = row_of_boxes((0, 0, 40, 40), (90, 0, 130, 40), 4, [1, 2, 3, 4])
    assert [b["rect"][0] for b in boxes] == [0, 30, 60, 90] and boxes[3]["value"] == 4
