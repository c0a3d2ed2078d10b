"""`InsetGeometry` (bridge/mapping/inset.py): the insets' grid answers remembered per layout, and filled at
the daemon's start-up (`CheckPipeline.warm_insets`).

Why: a remembered cell, outline or neighbour list must be exactly what the layout itself answers, for
pack hexes and for any other cell of the grid, and an inset drawn with it must equal the one drawn
without; a plan from a warmed pipeline must equal a fresh one's on every demo save and log step.
"""

from __future__ import annotations

import random

import pytest

from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK
from bridge.mapping.inset import InsetGeometry, build_inset, grid_cell, neighbours
from bridge.pipeline import CheckPipeline
from vassal_parser.layout import MapLayout

SAVES = sorted((DEMO_MODULE.parent / "saves").glob("*.vsav"))


@pytest.fixture(scope="module")
def fresh() -> CheckPipeline:
    return CheckPipeline(DEMO_MODULE, DEMO_PACK, remember=False)


@pytest.fixture(scope="module")
def warmed() -> CheckPipeline:
    pipeline = CheckPipeline(DEMO_MODULE, DEMO_PACK)
    pipeline.warm_up()
    return pipeline


def default_layouts(pipeline: CheckPipeline) -> dict[str, MapLayout]:
    return {m.identifier: MapLayout(m, MapLayout.default_selection(m), pipeline.module.module_property)
            for m in pipeline.module.maps}


def test_warm_up_fills_the_cells_of_every_pack_hex(warmed: CheckPipeline) -> None:
    assert warmed.inset_geometry is not None
    layouts = {map_id: warmed.position_memo.layouts[(map_id, None)]  # type: ignore[union-attr]
               for map_id in {p.map_id for p in warmed.hex_places.values()}}
    for place in warmed.hex_places.values():
        cells, _around = warmed.inset_geometry._of(layouts[place.map_id])
        assert place.location in cells
        assert cells[place.location] == grid_cell(layouts[place.map_id], place.location)


def test_remembered_cells_and_neighbours_equal_the_layouts_own(fresh: CheckPipeline) -> None:
    """Random points of every map: the cell named there, its outline and its neighbours."""
    rng = random.Random(15)
    geometry = InsetGeometry()
    for layout in default_layouts(fresh).values():
        width, height = layout.size
        names = [layout.location_name(rng.randrange(-50, width + 50), rng.randrange(-50, height + 50))
                 for _ in range(150)]
        names += ["", "no such place", "99999", "A1"]
        for name in [n for n in names if n is not None] * 2:  # the second pass answers from memory
            assert geometry.cell(layout, name) == grid_cell(layout, name)
            found = grid_cell(layout, name)
            if found is not None:
                assert geometry.neighbours(layout, found[0]) == neighbours(layout, found[0])


def test_insets_with_geometry_equal_insets_without(fresh: CheckPipeline) -> None:
    """Random events naming pack hexes (in steps or why lines): the same inset, fresh or remembered."""
    rng = random.Random(6)
    hexes = sorted(fresh.pack.hexes)
    layouts = default_layouts(fresh)
    pieces = fresh.pieces_of(SAVES[1])[0]
    geometry = InsetGeometry()
    for _ in range(120):
        named = rng.sample(hexes, rng.randint(1, 5))
        event = ({"steps": [{"from": h, "text": f"to {rng.choice(hexes)}"} for h in named]}
                 if rng.random() < 0.7 else {"why": [" ".join(named)]})
        plain = build_inset(event, pieces, layouts.get, fresh.pack.hexes, fresh.hex_places)
        remembered = build_inset(event, pieces, layouts.get, fresh.pack.hexes, fresh.hex_places,
                                 geometry=geometry)
        assert remembered == plain


def test_an_answer_that_records_a_layout_problem_is_not_remembered() -> None:
    class Layout:
        def __init__(self) -> None:
            self.problems: list[str] = []
            self.calls = 0

        def point_for(self, name: str) -> tuple[int, int] | None:
            self.calls += 1
            self.problems.append(f"problem {self.calls}")
            return None

    layout = Layout()
    geometry = InsetGeometry()
    assert geometry.cell(layout, "0101") is None  # type: ignore[arg-type]
    assert geometry.cell(layout, "0101") is None  # type: ignore[arg-type]
    assert layout.calls == 2  # asked again: a new call records its problem as the first did


def test_layouts_are_told_apart_and_bounded(fresh: CheckPipeline) -> None:
    geometry = InsetGeometry()
    map_def = fresh.module.maps[0]
    place = next(p for p in fresh.hex_places.values() if p.map_id == map_def.identifier)
    made = [MapLayout(map_def, MapLayout.default_selection(map_def), fresh.module.module_property)
            for _ in range(InsetGeometry.MAX_LAYOUTS + 3)]
    for layout in made:
        assert geometry.cell(layout, place.location) == grid_cell(layout, place.location)
    assert len(geometry._tables) == InsetGeometry.MAX_LAYOUTS
    assert all(entry[0] is made[-1] or entry[0] in made for entry in geometry._tables.values())


@pytest.mark.parametrize("save", SAVES, ids=lambda p: p.stem)
def test_a_warmed_pipeline_plans_every_demo_save_as_a_fresh_one(warmed: CheckPipeline, fresh: CheckPipeline,
                                                                 save) -> None:  # type: ignore[no-untyped-def]
    warm, cold = warmed.plan_file(save), fresh.plan_file(save)
    assert warm.plan == cold.plan
    assert warm.text == cold.text


def test_a_warmed_pipeline_plans_every_story_step_as_a_fresh_one(warmed: CheckPipeline,
                                                                 fresh: CheckPipeline) -> None:
    log = DEMO_MODULE.parent / "saves" / "story.vlog"
    insets = 0
    for (step, warm), (_step, cold) in zip(warmed.plan_steps(log), fresh.plan_steps(log), strict=True):
        assert warm.plan == cold.plan, step
        insets += sum("map" in event for event in warm.plan["events"])
    assert insets  # the story's due events draw insets
