"""`java.awt.Polygon.contains` (spec §6.7): `polygon_contains` and the bands of edges
(`grids.EdgeBands`) give the answer of the Java loop, transcribed literally here, for every polygon
and point; a polygon too costly to band is left to the plain test."""

from __future__ import annotations

import random

from vassal_parser import grids
from vassal_parser.grids import MAX_BAND_EDGES, EdgeBands, Zone, ZonedGrid, polygon_contains


def _java_contains(xs: list[int], ys: list[int], x: float, y: float) -> bool:
    """Polygon.contains(double, double) statement by statement: the bounding box, then every edge
    from the last corner round, counting the rightward crossings."""
    n = len(xs)
    if n <= 2 or not (min(xs) <= x < max(xs) and min(ys) <= y < max(ys)):
        return False
    hits = 0
    last_x, last_y = xs[-1], ys[-1]
    for i in range(n):
        cur_x, cur_y = xs[i], ys[i]
        try:
            if cur_y == last_y:
                continue
            if (cur_x < last_x and x >= last_x) or (cur_x >= last_x and x >= cur_x):
                continue
            left_x = min(cur_x, last_x)
            if cur_y < last_y:
                if y < cur_y or y >= last_y:
                    continue
                test1, test2 = x - cur_x, y - cur_y
            else:
                if y < last_y or y >= cur_y:
                    continue
                test1, test2 = x - last_x, y - last_y
            if x < left_x or test1 < (test2 / (last_y - cur_y) * (last_x - cur_x)):
                hits += 1
        finally:
            last_x, last_y = cur_x, cur_y
    return (hits & 1) != 0


def _random_polygon(rng: random.Random) -> tuple[list[int], list[int]]:
    """Concave, self-crossing, with repeated corners, horizontal and vertical edges."""
    count = rng.randint(3, 60)
    spread = rng.choice([3, 20, 400])
    xs = [rng.randint(0, spread) for _ in range(count)]
    ys = [rng.randint(0, spread) for _ in range(count)]
    for _ in range(rng.randint(0, 3)):  # a corner repeated, an edge made horizontal or vertical
        i, j = rng.randrange(count), rng.randrange(count)
        if rng.random() < 0.5:
            xs[i], ys[i] = xs[j], ys[j]
        elif rng.random() < 0.5:
            ys[i] = ys[i - 1]
        else:
            xs[i] = xs[i - 1]
    return xs, ys


def _points(rng: random.Random, xs: list[int], ys: list[int]) -> list[tuple[float, float]]:
    """Random points, every corner and its neighbours (where the half-open rule decides), edge
    midpoints and fractional points."""
    low_x, high_x, low_y, high_y = min(xs) - 2, max(xs) + 2, min(ys) - 2, max(ys) + 2
    points: list[tuple[float, float]] = [(rng.randint(low_x, high_x), rng.randint(low_y, high_y))
                                         for _ in range(150)]
    points += [(rng.uniform(low_x, high_x), rng.uniform(low_y, high_y)) for _ in range(100)]
    points += [(x + dx, y + dy) for x, y in zip(xs, ys, strict=True)
               for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
    points += [((xs[i] + xs[i - 1]) / 2, (ys[i] + ys[i - 1]) / 2) for i in range(len(xs))]
    return points


def test_the_plain_test_and_the_bands_answer_as_the_java_loop_on_random_polygons() -> None:
    """Spec §6.7: even-odd rule, left/top edges in, right/bottom out, as Polygon.contains."""
    rng = random.Random(67)
    for case in range(300):
        xs, ys = _random_polygon(rng)
        bands = EdgeBands.build(xs, ys)
        assert bands is not None, (case, xs, ys)
        for x, y in _points(rng, xs, ys):
            expected = _java_contains(xs, ys, x, y)
            assert polygon_contains(xs, ys, x, y) == expected, (case, xs, ys, x, y)
            assert bands.contains(x, y) == expected, (case, xs, ys, x, y)


def test_fewer_than_three_corners_hold_nothing() -> None:
    assert EdgeBands.build([0, 10], [0, 10]) is None
    assert EdgeBands.build([], []) is None
    flat = EdgeBands.build([0, 10, 20], [5, 5, 5])  # every edge horizontal: an empty polygon
    assert flat is not None and not flat.contains(10, 5)


def _comb(teeth: int) -> tuple[list[int], list[int]]:
    """Corners alternating between the bottom row and ever higher tips: nearly every edge spans
    nearly every band, so the bands would list about teeth² / 4 edges."""
    xs = list(range(2 * teeth))
    ys = [0 if i % 2 == 0 else 1000 + i for i in range(2 * teeth)]
    return xs, ys


def test_a_polygon_too_costly_to_band_keeps_the_plain_test() -> None:
    """Bounded: bands may list at most MAX_BAND_EDGES edges per corner; past that `build` gives
    None, and the zone index tests such a zone edge by edge, with the same answers."""
    small_xs, small_ys = _comb(20)
    assert EdgeBands.build(small_xs, small_ys) is not None
    xs, ys = _comb(4 * MAX_BAND_EDGES)
    assert EdgeBands.build(xs, ys) is None
    zone = Zone(name="comb", xs=xs, ys=ys)
    grid = ZonedGrid(zones=[zone])
    rng = random.Random(4)
    for _ in range(300):
        x, y = rng.uniform(-1, len(xs)), rng.uniform(-1, max(ys) + 1)
        assert (grid.zone_at(x, y) is zone) == _java_contains(xs, ys, x, y)


def test_the_zone_index_uses_bands_and_answers_as_the_plain_test() -> None:
    """ZonedGrid.findZone through the index, each zone tested by its bands: the zone the plain scan
    in build order finds, for zones that overlap."""
    rng = random.Random(68)
    zones = []
    for n in range(30):
        xs, ys = _random_polygon(rng)
        shift_x, shift_y = rng.randint(0, 600), rng.randint(0, 600)
        zones.append(Zone(name=f"z{n}", xs=[x + shift_x for x in xs], ys=[y + shift_y for y in ys]))
    grid = ZonedGrid(zones=zones)
    for zone in zones:
        for x, y in _points(rng, zone.xs, zone.ys):
            expected = next((z for z in zones if _java_contains(z.xs, z.ys, x, y)), None)
            assert grid.zone_at(x, y) is expected, (zone.name, x, y)


def test_the_bands_of_a_huge_polygon_stay_within_a_fixed_size(monkeypatch) -> None:
    """Bounded whatever the module holds: past MAX_BAND_ENTRIES entries in all, no bands (the cap
    lowered here so that a small polygon meets it)."""
    xs, ys = _comb(20)
    assert EdgeBands.build(xs, ys) is not None
    monkeypatch.setattr(grids, "MAX_BAND_ENTRIES", 50)
    assert EdgeBands.build(xs, ys) is None
