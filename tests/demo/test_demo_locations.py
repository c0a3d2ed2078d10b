"""The demo module opens with our own reader, and every location name VASSAL would show is right.

The expected names come from module_patches.demo_world (the demo's own numbering design, written
independently of vassal_parser.grids), so these tests cross-check the reader against the design.
"""

from __future__ import annotations

import pytest

from module_patches.demo_module import MODULE_FILE
from module_patches.demo_story import Table, load_story, save_path
from module_patches.demo_world import MAIN_MAP, WORLD
from vassal_parser.game import load_game
from vassal_parser.layout import MapLayout
from vassal_parser.module import load_module


@pytest.fixture(scope="module")
def module():
    return load_module(MODULE_FILE)


@pytest.fixture(scope="module")
def europe(module) -> MapLayout:
    map_def = module.map_by_id(MAIN_MAP)
    return MapLayout(map_def, MapLayout.default_selection(map_def))


def test_module_opens_with_two_numbered_boards_and_a_boxes_window(module) -> None:
    assert (module.name, module.version, module.vassal_version) == ("Adjutant Demo", "1.0", "3.7.12")
    europe = module.map_by_id(MAIN_MAP)
    assert [b.name for b in europe.boards] == ["West", "East"]
    assert module.map_by_id("Boxes") is not None
    assert len(module.piece_slots) == len(WORLD().counters)
    assert set(module.prototypes) == {"Unit", "Marker", "Card"}


@pytest.mark.parametrize("hex_name", sorted(WORLD().places))
def test_named_hex_centre_reads_back_as_its_name(europe, hex_name) -> None:
    """w3516 Paris, w3916 London, w4624 Oslo (16.3.5), e3609 Kiev ... (16.2.2 Step 3)."""
    x, y = WORLD().hex_point(hex_name)
    assert europe.location_name(x, y) == hex_name
    assert europe.point_for(hex_name) == (x, y)


def test_every_hex_of_both_boards_is_named_as_designed(europe) -> None:
    world = WORLD()
    wrong = [name for name in world.all_hexes()
             if europe.location_name(*world.hex_point(name)) != name]
    assert not wrong, f"{len(wrong)} hexes misnamed, e.g. {wrong[:5]}"
    assert len(world.all_hexes()) == 2 * world.hexgrid.columns * world.hexgrid.rows


def test_rules_text_hexes_exist_on_the_demo_map() -> None:
    """Hexes rule 16 names (16.2.1 Step 6 Paris, 16.3.5, 16.2.2 Step 3, 16.7 Krakow) exist here."""
    for name in ("w3516", "w3916", "w4624", "e2825", "e3609", "e3906", "e3315", "e2912", "e3501"):
        assert name in WORLD().all_hexes()


@pytest.mark.parametrize("scene_index", range(len(load_story())))
def test_every_piece_of_every_save_is_where_the_story_put_it(module, scene_index) -> None:
    world = WORLD()
    story = load_story()
    table = Table()
    for scene in story[: scene_index + 1]:
        table.apply(scene, world)
    game = load_game(save_path(story[scene_index]), module)
    by_counter = {p.properties["Counter"]: p for p in game.position()}
    assert set(by_counter) == set(table.places)
    for counter_id, place in table.places.items():
        piece = by_counter[counter_id]
        assert piece.location == place, f"{counter_id} in {story[scene_index].file}"
        assert piece.map == world.place_point(place)[0]
