"""bridge.mapping.mapper on hand-made pieces: what is mapped, what is reported unmapped, what is refused."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bridge.mapping.mapper import VassalMapping
from rules.packs import load_pack
from vassal_parser.errors import InputError

DEMO_PACK = Path(__file__).resolve().parents[2] / "module_patches" / "demo" / "pack"


@dataclass
class FakePiece:
    """The PlacedPiece fields the mapping reads (docs/architecture.md)."""

    id: str
    basic_name: str
    location: str
    map: str | None = "Europe"
    properties: dict[str, str] = field(default_factory=dict)
    piece_name: str = ""
    board: str | None = None
    zone: str | None = None
    hidden_by: str | None = None
    masked_by: str | None = None


def unit(piece_id: str, counter: str, location: str, map: str = "Europe", **extra: str) -> FakePiece:
    props = {"Nation": "Germany", "Kind": "ground", "Counter": counter, "Steps": "2", "Code": "",
             "Stripe": "no", "Tag": "", "Area": "", "Colonial": "", "Card": "", "Strength_Level": "1"}
    props.update(extra)
    return FakePiece(piece_id, f"GE {counter}", location, map=map, properties=props)


@pytest.fixture(scope="module")
def pack():
    return load_pack(DEMO_PACK)


@pytest.fixture(scope="module")
def mapping(pack) -> VassalMapping:
    return VassalMapping.from_pack(pack)


def test_marker_properties_become_a_counter(mapping, pack) -> None:
    result = mapping.map_pieces([unit("1", "GE-1", "w3516", Stripe="yes", Tag="a,b")], pack)
    (counter,) = result.position["counters"]
    assert counter == {"id": "GE-1", "name": "GE GE-1", "nationality": "Germany", "kind": "ground",
                       "steps": 2, "delay_stripe": True, "reinforcement": None, "tags": ["a", "b"],
                       "area": None, "colonial_of": None, "location": "w3516"}
    assert result.piece_counters == {"1": "GE-1"}


def test_reduced_layer_level_has_one_step_fewer(mapping, pack) -> None:
    result = mapping.map_pieces([unit("1", "GE-1", "w3516", Strength_Level="2")], pack)
    (counter,) = result.position["counters"]
    assert (counter["steps"], counter["flipped"]) == (1, True)


def test_zone_names_become_boxes_and_posture_boxes_by_pattern(mapping, pack) -> None:
    pieces = [unit("1", "GE-1", "Delay Box", map="Boxes"),
              unit("2", "GE-2", "Russia Posture Box", map="Boxes")]
    result = mapping.map_pieces(pieces, pack)
    assert [c["location"] for c in result.position["counters"]] == ["delay", "posture:Russia"]


def test_unknown_pieces_and_places_are_reported_with_counts_never_guessed(mapping, pack) -> None:
    pieces = [
        FakePiece("1", "Mystery", "w3516", properties={"Nation": "Mars"}),
        FakePiece("2", "Mystery", "w3516", properties={}),
        unit("3", "GE-3", "w0101"),  # a hex the pack does not know
        unit("4", "GE-4", "w0101"),
        unit("5", "GE-5", "Some Box", map="Boxes"),
        unit("6", "GE-6", "w3516"),
    ]
    result = mapping.map_pieces(pieces, pack)
    assert result.unmapped_pieces == {"Mystery": 2}
    assert result.unmapped_places == {"Europe: w0101": 2, "Boxes: Some Box": 1}
    assert [c["id"] for c in result.position["counters"]] == ["GE-6"]


def test_state_markers_set_war_state_posture_turn_and_current_card(mapping, pack) -> None:
    pieces = [
        FakePiece("1", "War State", "War State Box", "Boxes", {"Counter": "WAR-STATE", "Kind": "state",
                                                               "War_Name": "Total War"}),
        FakePiece("2", "Russia Posture", "Russia Posture Box", "Boxes",
                  {"Counter": "RU-POSTURE", "Kind": "state", "Posture_Name": "Rapallo"}),
        FakePiece("3", "Turn", "Turn 4 Mar-Apr 1940", "Boxes", {"Counter": "TURN", "Kind": "state",
                                                                 "Phasing_Name": "Western"}),
        FakePiece("4", "Card", "Axis Current Card", "Boxes", {"Kind": "card", "Card": "22a"}),
    ]
    result = mapping.map_pieces(pieces, pack)
    turn = result.position["turn"]
    assert (turn["war_state"], turn["date"], turn["phasing"]) == ("Total War", "Mar-Apr 1940", "Western")
    assert turn["current_cards"] == {"Axis": "22a"}
    assert result.position["countries"]["Russia"]["posture"] == "Rapallo"
    assert result.unmapped_pieces == {}


def test_hidden_and_masked_pieces_are_marked_concealed(mapping, pack) -> None:
    pieces = [unit("1", "GE-1", "w3516"), unit("2", "GE-2", "w3516"),
              FakePiece("3", "Card", "Set Aside", "Boxes", {"Kind": "card", "Card": "W1"},
                        masked_by="Western")]
    pieces[0].hidden_by = "Axis"
    pieces[1].masked_by = "Axis"
    result = mapping.map_pieces(pieces, pack)
    assert result.concealed == {"GE-1": "hidden", "GE-2": "masked", "piece:3": "masked"}


def test_module_warnings_name_version_and_extensions(mapping) -> None:
    assert mapping.module_warnings("Adjutant Demo", "1.0", []) == []
    warnings = mapping.module_warnings("Other", "2.5", ["Extra"])
    assert any("'Adjutant Demo'" in w and "'Other'" in w for w in warnings)
    assert any("newer than the pack's maximum 1.99" in w for w in warnings)
    assert any("'Extra'" in w for w in warnings)


def test_a_pack_without_vassal_table_is_refused_in_one_line() -> None:
    with pytest.raises(InputError, match=r"no \[vassal\] table"):
        VassalMapping.from_pack(load_pack("tk"))


@pytest.mark.parametrize("table, message", [
    ({"counters": [{"match": {}, "set": {"id": "x"}}]}, "empty 'match'"),
    ({"counters": [{"match": {"A": "1"}, "set": {"colour": "red"}}]}, "unknown counter field"),
    ({"counters": [{"match": {"A": "re:("}, "set": {}}]}, "bad pattern"),
    ({"state": [{"match": {"A": "1"}, "sett": {}}]}, "unknown key"),
    ({"places": {"hexes": [{"pattern": "x"}]}}, "has no 'map'"),
    ({"places": {"boxes": ["Delay"]}}, "must be a table"),
    ({"places": {"box_patterns": {"(.+) Posture Box": "posture:{country}"}}},
     r"box pattern '\(\.\+\) Posture Box': 'posture:\{country\}' uses a group the pattern lacks"),
    ({"places": {"hexes": [{"map": "M", "hex": "{0}"}]}}, r"hex template '\{0\}' may only use \{location\}"),
    ({"counters": [{"match": {"A": "1"}, "set": {}, "steps_delta": "x"}]},
     "steps_delta must be a whole number"),
    ({"module": {"extensions": "Extra"}}, r"\[vassal.module\] extensions must be an array of strings"),
    ({"places": {"not_boxes": "War State Box"}}, r"\[vassal.places\] not_boxes must be an array of strings"),
    ({"countries": {"Poland": "Western"}}, r"\[vassal.countries\] 'Poland' must be a table"),
    ({"counters": [{"match": {"A": "1"}, "set": {}, "proposed": "yes"}]}, "proposed must be true or false"),
    ({"places": {"boxes": {"Delay Box": "delay"}, "proposed": ["Delay"]}},
     r"\[vassal.places\] proposed names no box or box pattern: 'Delay'"),
])
def test_mapping_errors_are_precise_and_name_the_file(table, message) -> None:
    with pytest.raises(InputError, match=message) as caught:
        VassalMapping.from_table(table, "pack/vassal.toml")
    assert str(caught.value).startswith("pack/vassal.toml: ")
    assert "\n" not in str(caught.value)


def test_proposed_rules_and_boxes_are_read_and_counted() -> None:
    """Issue 38: `pack scaffold` marks what it proposed; the mapping keeps the mark for the header."""
    mapping = VassalMapping.from_table({
        "places": {"boxes": {"Delay Box": "delay"}, "box_patterns": {"(.+) Posture Box": "posture:{0}"},
                   "proposed": ["Delay Box", "(.+) Posture Box"]},
        "counters": [{"match": {"A": "1"}, "set": {"kind": "ground"}, "proposed": True},
                     {"match": {"B": "1"}, "set": {"kind": "air"}}]}, "v.toml")
    assert [r.index for r in mapping.proposed_rules] == [0]
    assert mapping.proposed_places == ("Delay Box", "(.+) Posture Box")


def test_missing_property_in_a_template_is_a_warning_and_the_piece_is_left_out(pack) -> None:
    mapping = VassalMapping.from_table({"counters": [{"match": {"@name": "re:GE.*"},
                                                      "set": {"id": "{Nope}", "kind": "ground"}}]}, "v.toml")
    result = mapping.map_pieces([unit("1", "GE-1", "w3516")], pack)
    assert result.position["counters"] == []
    assert result.warnings == ["piece 'GE GE-1': v.toml [[vassal.counters]] #1: no property 'Nope'"]


def test_prototype_rules_match_saved_pieces_through_their_piece_slot(pack) -> None:
    """Saves hold expanded pieces; `@prototype` finds the PieceSlot's prototypes by gpid."""
    from bridge.cli.commands.demo import DEMO_MODULE
    from bridge.mapping.slots import slot_prototypes
    from module_patches.demo_story import load_story, save_path
    from vassal_parser.game import load_game
    from vassal_parser.module import load_module

    module = load_module(DEMO_MODULE)
    pieces = load_game(save_path(load_story()[0]), module).position()
    mapping = VassalMapping.from_table({"counters": [
        {"match": {"@prototype": "Card"}, "set": {"id": "{Counter}", "kind": "marker"}},
        {"match": {"@prototype": "re:Un.t"}, "set": {"id": "{Counter}", "kind": "ground"}},
    ], "places": {"boxes": {"Set Aside": "set_aside"},
                  "hexes": [{"map": "Europe", "pattern": "[we][0-9]{4}"}]}}, "v.toml")
    result = mapping.map_pieces(pieces, pack, slot_prototypes(module))
    kinds = {c["id"]: c["kind"] for c in result.position["counters"]}
    assert kinds["CARD-22A"] == kinds["CARD-W1"] == "marker"
    assert kinds["GE-1"] == "ground" and "RU-POSTURE" not in kinds  # a Marker-prototype piece
    assert result.unmapped_pieces["Russia Posture"] == 1


def test_version_range_compares_numbers_whatever_their_toml_type() -> None:
    """`min_version = 1.0` (a TOML float) and a module version "1" are the same version as "1.0"."""
    mapping = VassalMapping.from_table({"module": {"name": "Adjutant Demo", "min_version": 1.0,
                                                   "max_version": "1.0"}}, "v.toml")
    assert mapping.module_warnings("Adjutant Demo", "1", []) == []
    assert mapping.module_warnings("Adjutant Demo", "1.0.1", []) == [
        "module version 1.0.1 is newer than the pack's maximum 1.0"]


def test_an_off_map_window_without_zones_is_a_box_by_its_reported_place(pack) -> None:
    """A module's separate window (a Force Pool map with no grid) gives every piece in it the location
    `offboard`; the box is then named as the unmapped-places report shows it: "MAP: LOCATION"."""
    table = {"places": {"boxes": {"Axis Pool Window: offboard": "force_pool:Axis"}},
             "counters": [{"match": {"Kind": "ground"}, "set": {"id": "{Counter}", "kind": "ground"}}]}
    mapping = VassalMapping.from_table(table, "v.toml")
    in_window = unit("1", "GE-1", "offboard", map="Axis Pool Window")
    elsewhere = unit("2", "GE-2", "offboard", map="Other Window")
    result = mapping.map_pieces([in_window, elsewhere], pack)
    assert [(c["id"], c["location"]) for c in result.position["counters"]] == [("GE-1", "force_pool:Axis")]
    assert result.unmapped_places == {"Other Window: offboard": 1}


def test_a_state_append_never_leaks_into_the_next_position(pack) -> None:
    """16.3.3 is once per game (turn.fired): a pack listing `fired = []` in [vassal.turn] must start
    every save from that empty list, not from what the previous save's markers appended (daemon)."""
    table = {"turn": {"fired": []},
             "state": [{"match": {"Tag": "their_finest_hour"}, "set": {"turn.fired+": "16.3.3"}}]}
    mapping = VassalMapping.from_table(table, "v.toml")
    marker = unit("1", "BR-TFH-1", "w3916", Tag="their_finest_hour")
    assert mapping.map_pieces([marker], pack).position["turn"]["fired"] == ["16.3.3"]
    assert mapping.map_pieces([], pack).position["turn"]["fired"] == []


def test_a_state_path_through_a_value_is_a_warning_not_a_crash(pack) -> None:
    """`turn.war_state.level` cannot be written when turn.war_state is text: say so, keep mapping."""
    table = {"turn": {"war_state": "Pre-War"},
             "state": [{"match": {"Counter": "WAR-STATE"}, "set": {"turn.war_state.level": "2"}}]}
    result = VassalMapping.from_table(table, "v.toml").map_pieces([unit("1", "WAR-STATE", "x")], pack)
    assert result.position["turn"]["war_state"] == "Pre-War"
    assert result.warnings == ["state path 'turn.war_state.level': 'war_state' is not a table"]


def test_slot_prototypes_are_worked_out_only_for_rules_that_read_them(pack) -> None:
    """`SlotPrototypes` (issue 27: a small check): the demo pack never reads `@prototype`, so a plan
    leaves the module's PieceSlots undecoded; read, the table is the eager one, and rules that
    match `@prototype` through it find the same kinds."""
    from bridge.cli.commands.demo import DEMO_MODULE
    from bridge.mapping.slots import SlotPrototypes, slot_prototypes
    from bridge.pipeline import CheckPipeline
    from module_patches.demo_story import load_story, save_path
    from vassal_parser.game import load_game
    from vassal_parser.module import load_module

    pipeline = CheckPipeline(DEMO_MODULE, DEMO_MODULE.parent / "pack")
    pipeline.plan_file(save_path(load_story()[0]))
    assert pipeline.prototypes._table is None
    module = load_module(DEMO_MODULE)
    lazy = SlotPrototypes(module)
    assert dict(lazy) == slot_prototypes(module) and len(lazy) > 0
    pieces = load_game(save_path(load_story()[0]), module).position()
    mapping = VassalMapping.from_table({"counters": [
        {"match": {"@prototype": "re:Un.t"}, "set": {"id": "{Counter}", "kind": "ground"}},
    ], "places": {"hexes": [{"map": "Europe", "pattern": "[we][0-9]{4}"}]}}, "v.toml")
    assert (mapping.map_pieces(pieces, pack, SlotPrototypes(module)).position
            == mapping.map_pieces(pieces, pack, slot_prototypes(module)).position)
