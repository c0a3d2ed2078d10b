"""`MapLayout.place_at` (per-board cell namers, issue 15) gives exactly `place_at_reference`'s answers.

Why random: the fast path answers from per-pixel tables and precomputed board boxes, and a point
that falls to the reference must write the same `problems`. So tens of thousands of points, on
layouts drawn over every grid VASSAL has (hex: sideways, h/v descending, stagger, oblique, edges and
corners legal; square; region; zoned, with zones that have their own grid or use the parent's;
reversed boards; draw piles at exact points; boards of unknown size; grid values too large to name),
are located both ways — and also by the separate lookups (`board_at`, `zone_at`, `location_name`,
which keep no caches) — and must agree on board, zone, LocationName and problems (spec §5.5, §6.2-§6.8).
"""

from __future__ import annotations

import copy
import math
import random
from pathlib import Path

import pytest

from module_patches.demo_module import MODULE_FILE
from vassal_parser import grids
from vassal_parser.errors import InputError
from vassal_parser.layout import MapLayout
from vassal_parser.module import BoardDef, DrawPileDef, MapDef, load_module

FORMATS = ["$gridLocation$", "w$gridLocation$", "$column$-$row$ $prop$", "$row$/$column$", "x$gridLocation$$"]
ZONE_FORMATS = ["$name$", "$name$ $gridLocation$", "", "$gridLocation$", "$name$:$zprop$"]
PROPERTIES = {"prop": "P", "zprop": "module-z"}


def _pitch(rng: random.Random) -> float:
    choice = rng.random()
    if choice < 0.3:
        return float(rng.choice([24, 42, 48, 50, 64]))  # exact halves fall on pixels
    if choice < 0.5:
        return rng.choice([55.42562584220407, 62.35382907247958, 41.569219381653056])
    if choice < 0.55:
        return -rng.uniform(20, 70)  # VASSAL takes a negative pitch too
    if choice < 0.6:
        return rng.uniform(0.02, 0.5)  # many cells: long alphabetic names (GridValueError)
    return rng.uniform(12, 90)


def _numbering(rng: random.Random, cls: type[grids.RegularGridNumbering]) -> grids.RegularGridNumbering:
    fields = {
        "first": rng.choice("HV"),
        "sep": rng.choice(["", "-", ","]),
        "h_type": rng.choice("NNA"),
        "v_type": rng.choice("NNA"),
        "h_leading": rng.choice([0, 1, 2, 3, 1500]) if rng.random() < 0.05 else rng.choice([0, 1, 2]),
        "v_leading": rng.choice([0, 1, 2]),
        "h_off": rng.randint(-5, 30),
        "v_off": rng.randint(-5, 30),
        "h_descend": rng.random() < 0.4,
        "v_descend": rng.random() < 0.4,
        "location_format": rng.choice(FORMATS),
    }
    if cls is grids.HexGridNumbering:
        return grids.HexGridNumbering(stagger=rng.random() < 0.6, **fields)
    if cls is grids.ObliqueHexGridNumbering:
        return grids.ObliqueHexGridNumbering(
            stagger=rng.random() < 0.6, direction=rng.random() < 0.5, **fields
        )
    return cls(**fields)


def _container(rng: random.Random, size: tuple[int, int] | None) -> tuple[int, int] | None:
    if rng.random() < 0.1:
        return None  # a descending numbering then cannot be computed (GridSizeUnknown)
    if rng.random() < 0.1:
        return (rng.randint(50, 900), rng.randint(50, 900))  # a zone's size, not the board's
    return size


def _simple_grid(rng: random.Random, size: tuple[int, int] | None, depth: int = 0) -> grids.Grid | None:
    choice = rng.random()
    if choice < 0.45:
        numbering = None if rng.random() < 0.05 else _numbering(
            rng, rng.choice([grids.HexGridNumbering, grids.HexGridNumbering, grids.ObliqueHexGridNumbering])
        )
        return grids.HexGrid(
            dx=_pitch(rng), dy=_pitch(rng), x0=rng.randint(-80, 80), y0=rng.randint(-80, 80),
            sideways=rng.random() < 0.4, edges_legal=rng.random() < 0.3, corners_legal=rng.random() < 0.3,
            numbering=numbering,  # type: ignore[arg-type]
            container_size=_container(rng, size),
        )
    if choice < 0.75:
        numbering = None if rng.random() < 0.05 else _numbering(rng, grids.SquareGridNumbering)
        return grids.SquareGrid(
            dx=_pitch(rng), dy=_pitch(rng), x0=rng.randint(-80, 80), y0=rng.randint(-80, 80),
            edges_legal=rng.random() < 0.3, corners_legal=rng.random() < 0.3,
            numbering=numbering,  # type: ignore[arg-type]
            container_size=_container(rng, size),
        )
    if choice < 0.9:
        count = rng.choice([1, 3, 20, 40])
        regions = [
            grids.Region(rng.choice(["R1", "R2", f"R{n}"]), rng.randint(-50, 600), rng.randint(-50, 600))
            for n in range(count)
        ]
        return grids.RegionGrid(regions=regions, container_size=size)
    return None


def _zoned(rng: random.Random, size: tuple[int, int] | None) -> grids.ZonedGrid:
    zoned = grids.ZonedGrid(container_size=size)
    width, height = size or (600, 600)
    for n in range(rng.choice([1, 2, 5, 12])):
        left, top = rng.randint(-20, width), rng.randint(-20, height)
        right, bottom = left + rng.randint(0, 300), top + rng.randint(0, 300)
        if rng.random() < 0.7:
            xs, ys = [left, right, right, left], [top, top, bottom, bottom]
        else:
            xs, ys = [left, right, (left + right) // 2], [top, top, bottom]
        zone = grids.Zone(
            name=rng.choice([f"Zone {n}", "", "Box"]), xs=xs, ys=ys,
            location_format=rng.choice(ZONE_FORMATS), use_parent_grid=rng.random() < 0.25, parent=zoned,
        )
        if rng.random() < 0.5:
            zone.grid = _simple_grid(rng, zone.bounds()[2:])  # type: ignore[arg-type]
        if rng.random() < 0.2:
            zone.properties["zprop"] = "own-z"
        zoned.zones.append(zone)
    if rng.random() < 0.7:
        zoned.background = _simple_grid(rng, size)
    return zoned


def _random_map(rng: random.Random) -> tuple[MapDef, list[tuple[str, bool, int, int]]]:
    boards: list[BoardDef] = []
    selection: list[tuple[str, bool, int, int]] = []
    cells = [(0, 0), (1, 0), (0, 1), (1, 1), (2, 0)]
    for n in range(rng.choice([1, 1, 2, 2, 3, 4])):
        known = rng.random() < 0.85
        width, height = (rng.randint(1, 700), rng.randint(1, 700)) if known else (None, None)
        size = (width, height) if known else None
        grid = _zoned(rng, size) if rng.random() < 0.25 else _simple_grid(rng, size)  # type: ignore[arg-type]
        name = f"Board {n}"
        boards.append(BoardDef(name, f"b{n}.png", width, height, True, grid))
        col, row = cells[n] if rng.random() < 0.8 else (0, 0)  # now and then two boards overlap
        selection.append((name, rng.random() < 0.3, col, row))
    piles = []
    for n in range(rng.choice([0, 0, 1, 3])):
        owner = rng.choice([None, *[b.name for b in boards]])
        piles.append(DrawPileDef(f"Deck {n % 2}", rng.randint(0, 400), rng.randint(0, 400), owner))
    map_def = MapDef(
        "Main", "Main", "Map0", "Map", rng.randint(0, 40), rng.randint(0, 40), boards, draw_pile_defs=piles
    )
    return map_def, selection


def _points(rng: random.Random, layout: MapLayout, count: int) -> list[tuple[int, int]]:
    """Random points over the map and past it, every board's corners and edges, the draw piles,
    and points next to each grid's cell boundaries (where a changed rounding would show)."""
    right = max((p.x + (p.board.size or (900, 900))[0] for p in layout.boards), default=900)
    bottom = max((p.y + (p.board.size or (900, 900))[1] for p in layout.boards), default=900)
    points = [(rng.randint(-30, right + 30), rng.randint(-30, bottom + 30)) for _ in range(count)]
    points += list(layout.draw_pile_positions.values())
    for placed in layout.boards:
        w, h = placed.board.size or (900, 900)
        for x in (placed.x - 1, placed.x, placed.x + 1, placed.x + w - 1, placed.x + w):
            for y in (placed.y - 1, placed.y, placed.y + 1, placed.y + h - 1, placed.y + h):
                points.append((x, y))
        grid = placed.board.grid
        if isinstance(grid, grids.ZonedGrid):
            grid = grid.background
        if isinstance(grid, (grids.HexGrid, grids.SquareGrid)) and abs(grid.dx) > 5 and abs(grid.dy) > 5:
            for _ in range(count // 4):
                k, j = rng.randint(-2, 25), rng.randint(-2, 25)
                a = grid.x0 + int((k + 0.5) * grid.dx) + rng.randint(-1, 1)
                b = grid.y0 + int(j * grid.dy / 2) + rng.randint(-1, 1)
                if getattr(grid, "sideways", False):
                    a, b = b, a
                if placed.reversed and placed.board.size is not None:
                    a, b = w - a, h - b
                points.append((placed.x + a, placed.y + b))
    return points


def _answer(found: tuple) -> tuple:
    placed, zone, name = found
    return (None if placed is None else (placed.name, placed.x, placed.y), id(zone) if zone else None, name)


def _names(found: tuple) -> tuple:
    placed, zone, name = found
    return (placed.name if placed else None, zone.name if zone else None, name)


def _check_layout(layout_args: tuple, points: list[tuple[int, int]]) -> None:
    """`place_at`, `place_at_reference`, the separate lookups and `names_at` (what `Game._placed`
    records: the names, asked twice, the second time from its table where it keeps one) agree."""
    fast, reference, separate, named = (MapLayout(*layout_args) for _ in range(4))
    for x, y in points:
        got = _answer(fast.place_at(x, y))
        expected = reference.place_at_reference(x, y)
        assert got == _answer(expected), (x, y)
        apart = (separate.board_at(x, y), separate.zone_at(x, y), separate.location_name(x, y))
        assert got == _answer(apart), (x, y)
        assert named.names_at(x, y) == _names(expected) == named.names_at(x, y), (x, y)
    assert fast.problems == reference.problems == named.problems
    assert set(fast.problems) == set(separate.problems)


def test_fast_place_at_agrees_with_the_reference_on_random_layouts_6_4_to_6_8() -> None:
    rng = random.Random(20261201)
    located = fast_boards = 0
    for _ in range(400):
        map_def, selection = _random_map(rng)
        layout = MapLayout(map_def, selection, PROPERTIES.get)
        fast_boards += sum(1 for entry in layout._fast if entry[5] is not None)
        points = _points(rng, layout, 80)
        located += len(points)
        _check_layout((map_def, selection, PROPERTIES.get), points)
    assert located > 40_000
    assert fast_boards > 200  # the fast path is what was compared, not only the reference


def test_every_point_of_a_board_agrees_with_the_reference_6_4() -> None:
    """Every pixel of small boards (each table entry), plain, sideways, descending and reversed."""
    rng = random.Random(7)
    for sideways in (False, True):
        for reversed_ in (False, True):
            numbering = grids.HexGridNumbering(h_descend=rng.random() < 0.5, v_descend=True, stagger=True)
            grid = grids.HexGrid(dx=13.856406460551018, dy=16.0, x0=3, y0=8, sideways=sideways,
                                 numbering=numbering, container_size=(90, 70))
            board = BoardDef("B", "b.png", 90, 70, True, grid)
            map_def = MapDef("M", "M", "Map0", "Map", 5, 5, [board])
            points = [(x, y) for x in range(0, 100) for y in range(0, 80)]
            _check_layout((map_def, [("B", reversed_, 0, 0)], None), points)


def test_the_row_quotient_keeps_java_operation_order_6_4() -> None:
    """An odd column's row is `((py - y0) - dy/2) / dy` rounded (HexGridNumbering.getRawRow): with
    dy = 0.7000000000000001, y0 = 16, the pixel py = 9 rounds to row -10 that way and to -11 as
    `(py - (y0 + dy/2)) / dy`; the namer's tables must give the former."""
    dy, y0, py = 0.7000000000000001, 16, 9
    java = math.floor(((py - y0) - dy / 2) / dy + 0.5)
    assert (java, math.floor((py - (y0 + dy / 2)) / dy + 0.5)) == (-10, -11)
    numbering = grids.HexGridNumbering(stagger=False, sep=",")
    grid = grids.HexGrid(dx=1.0, dy=dy, x0=0, y0=y0, numbering=numbering, container_size=(10, 100))
    namer = grids.cell_namer(grid, 10, 100, False)
    assert namer is not None and namer[1] is False
    assert namer[0](1, py) == grid.location_name(1, py) == numbering.format_name(java, 1) == "02,-09"


def _corpus_layouts(corpus_dir: Path) -> list[tuple]:
    found = []
    for build in sorted([*corpus_dir.rglob("buildFile*"), *corpus_dir.rglob("*.vmod")]):
        if build.suffix not in ("", ".xml", ".vmod") or not build.is_file():
            continue
        try:
            module = load_module(build)
        except InputError:  # a corpus file this reader refuses is not what is tested here
            continue
        for map_def in module.maps:
            selection = MapLayout.default_selection(map_def)
            if not selection:
                selection = [(board.name, False, 0, 0) for board in map_def.boards[:1]]
            found.append((build, map_def, selection, module.module_property))
    return found


def test_fast_place_at_agrees_with_the_reference_on_corpus_layouts_6_2(corpus_dir: Path) -> None:
    """Every map of every corpus module, its default boards as chosen and reversed; boards whose
    image the bare buildFile lacks also get a made-up size (so the fast path meets their grids)."""
    rng = random.Random(15)
    layouts = _corpus_layouts(corpus_dir)
    assert len(layouts) > 50
    fast_boards = 0
    for _build, map_def, selection, properties in layouts:
        sized = copy.deepcopy(map_def)
        for board in sized.boards:
            if board.size is None:
                board.width, board.height = 1200, 900
                for grid in (board.grid, getattr(board.grid, "background", None)):
                    if grid is not None and grid.container_size is None:
                        grid.container_size = (1200, 900)
        reversed_ = [(name, not flag, col, row) for name, flag, col, row in selection]
        for variant in ((map_def, selection), (sized, selection), (sized, reversed_)):
            layout = MapLayout(*variant, properties)
            fast_boards += sum(1 for entry in layout._fast if entry[5] is not None)
            _check_layout((*variant, properties), _points(rng, layout, 150))
    assert fast_boards > 50


def test_fast_place_at_agrees_with_the_reference_on_the_demo_maps_6_5() -> None:
    """The demo module's maps (Europe: the benchmark's two descending hex boards; Boxes: zones), as
    chosen and with every board reversed, on 20,000 random points each."""
    module = load_module(MODULE_FILE)
    rng = random.Random(5)
    for map_def in module.maps:
        selection = MapLayout.default_selection(map_def)
        for variant in (selection, [(name, not flag, col, row) for name, flag, col, row in selection]):
            layout = MapLayout(map_def, variant, module.module_property)
            assert all(entry[5] is not None for entry in layout._fast) or any(
                placed.reversed and isinstance(placed.board.grid, grids.ZonedGrid) for placed in layout.boards
            )
            _check_layout((map_def, variant, module.module_property), _points(rng, layout, 20_000))


def test_namer_bounds_keep_the_answers_6_4(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past MAX_NAMER_NAMES a namer formats names without keeping them, and a board side over
    MAX_TABLE_SIDE gets no namer (the reference answers): the same answers either way."""
    monkeypatch.setattr(grids, "MAX_NAMER_NAMES", 3)
    rng = random.Random(99)
    for _ in range(60):
        map_def, selection = _random_map(rng)
        layout = MapLayout(map_def, selection, PROPERTIES.get)
        _check_layout((map_def, selection, PROPERTIES.get), _points(rng, layout, 60))
    monkeypatch.setattr(grids, "MAX_TABLE_SIDE", 100)
    grid = grids.SquareGrid(numbering=grids.SquareGridNumbering(v_descend=True), container_size=(300, 80))
    assert grids.cell_namer(grid, 300, 80, False) is None
    assert grids.cell_namer(grid, 100, 80, False) is not None
    map_def = MapDef("M", "M", "Map0", "Map", 0, 0, [BoardDef("B", "b.png", 300, 80, True, grid)])
    layout = MapLayout(map_def, [("B", False, 0, 0)])
    assert layout._fast[0][5] is None
    points = [(x, y) for x in range(0, 310, 7) for y in range(85)]
    _check_layout((map_def, [("B", False, 0, 0)], None), points)
