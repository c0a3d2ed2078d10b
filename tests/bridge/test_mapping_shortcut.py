"""The mapping's first-read shortcut (issue 15, `MappingMemo.unmatched`): a piece every rule refuses at
its first condition is "unmapped" under its name, decided once per kind of piece; every other piece
is mapped in full. Checked against the mapping without memo on pieces built to sit on each side of
that line: a regex first condition, a missing property, a place condition first, a piece refused
only by a later condition, and pieces alike but for where they stand (docs/vassal-mapping.md)."""

from __future__ import annotations

from bridge.mapping.mapper import VassalMapping
from bridge.mapping.memo import MappingMemo
from vassal_parser.game import PlacedPiece

TABLE = {
    "places": {"hexes": [{"map": "Europe", "pattern": "[we][0-9]{4}"}], "boxes": {"Delay Box": "delay"}},
    "ignore": [{"match": {"Kind": "card", "@location": "re:(?!.* Current Card$).*"}}],
    "counters": [
        {"match": {"Kind": "re:ground|air"},
         "set": {"id": "{Counter}", "kind": "{Kind}", "name": "{BasicName}"}},
        {"match": {"Strength_Level": "2"}, "set": {"flipped": "true"}, "steps_delta": -1},
    ],
    "state": [
        {"match": {"@location": "re:Turn (?P<n>[0-9]+)", "Counter": "TURN"}, "set": {"turn.number": "{n}"}},
        {"match": {"Counter": "WAR", "Kind": "marker"}, "set": {"turn.war_state": "{War}"}},
    ],
}


def piece(n: int, location: str, **properties: str) -> PlacedPiece:
    name = properties.pop("name", f"Piece {n % 3}")
    return PlacedPiece(id=str(n), basic_name=name, piece_name=name, map="Europe", x=n, y=2 * n,
                       board="West", zone=None, location=location, stack_id=None, stack_index=None,
                       deck=None, properties={"CurrentX": str(n), **properties}, memo_key=("piece", n))


PIECES = [
    piece(1, "w1001", Kind="ground", Counter="GE-1"),
    piece(2, "w1002", Kind="ground", Counter="GE-2", Strength_Level="2"),
    piece(3, "Delay Box", Kind="air", Counter="GE-3"),
    piece(4, "Turn 3", Counter="TURN"),  # a place condition comes first
    piece(5, "w1001", Counter="WAR", Kind="marker", War="Limited"),
    piece(6, "w1001", Counter="WAR", Kind="card"),  # refused by its second condition only
    piece(7, "Axis Current Card", Kind="card"),
    piece(8, "w1003", Kind="card"),  # ignored
    *[piece(n, f"w{1000 + n}", Class="Spare", name=f"Spare {n % 4}") for n in range(10, 40)],
    piece(40, "w1001", Kind="naval", Counter="GE-4"),  # a regex first condition refuses it
    piece(41, "offboard"),  # no property any rule reads
]


def test_shortcut_maps_every_piece_as_the_full_mapping_does() -> None:
    mapping = VassalMapping.from_table(TABLE, "test.toml")
    fresh = mapping.map_pieces(PIECES)
    memo = MappingMemo()
    for _ in range(2):  # filled, then read back
        remembered = mapping.map_pieces(PIECES, memo=memo)
        assert remembered == fresh
    assert fresh.unmapped_pieces["Spare 1"] > 1 and fresh.position["turn"]["number"] == "3"
    # a first condition on the place: the place is part of what decides, so each spare has its own
    assert len(memo.unmatched) == len(PIECES)


def test_refused_pieces_alike_but_for_their_place_share_one_entry() -> None:
    table = {**TABLE, "state": [{"match": {"Counter": "TURN", "@location": "re:Turn (?P<n>[0-9]+)"},
                                 "set": {"turn.number": "{n}"}}]}
    mapping = VassalMapping.from_table(table, "test.toml")
    memo = MappingMemo()
    assert mapping.map_pieces(PIECES, memo=memo) == mapping.map_pieces(PIECES)
    spares = [p for p in PIECES if p.properties.get("Class") == "Spare"]
    assert len(spares) == 30 and len(memo.unmatched) <= len(PIECES) - len(spares) + 4  # 4 spare names


def test_shortcut_is_off_when_a_first_condition_reads_an_attribute() -> None:
    table = {"counters": [{"match": {"@deck": "Hand"}, "set": {"id": "x", "kind": "card"}}]}
    mapping = VassalMapping.from_table(table, "test.toml")
    assert mapping._first_names is None
    assert mapping.map_pieces(PIECES, memo=MappingMemo()) == mapping.map_pieces(PIECES)
