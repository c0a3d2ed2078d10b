"""ZonedGrid.findZone (spec §6.7) through the bucket index: the first zone in build order whose
polygon holds the point, exactly as the plain scan over every zone answers."""

from __future__ import annotations

import random

from vassal_parser.grids import Zone, ZonedGrid, _is_rectangle, polygon_contains


def _scan(zones: list[Zone], x: float, y: float) -> Zone | None:
    return next((zone for zone in zones if polygon_contains(zone.xs, zone.ys, x, y)), None)


def _random_zone(rng: random.Random, name: str) -> Zone:
    kind = rng.random()
    x, y = rng.randint(-50, 900), rng.randint(-50, 700)
    w, h = rng.randint(0, 300), rng.randint(0, 300)
    if kind < 0.5:  # a box, corners in any tracing order
        corners = [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]
        start = rng.randrange(4)
        corners = corners[start:] + corners[:start]
        if rng.random() < 0.5:
            corners.reverse()
        if rng.random() < 0.1:  # crossed: not a box
            corners[1], corners[2] = corners[2], corners[1]
    else:  # any polygon, concave or self-crossing ones too
        corners = [(rng.randint(x, x + w), rng.randint(y, y + h)) for _ in range(rng.randint(0, 8))]
    return Zone(name=name, xs=[c[0] for c in corners], ys=[c[1] for c in corners])


def test_index_answers_as_the_scan_on_random_charts() -> None:
    rng = random.Random(615)
    for chart in range(60):
        zones = [_random_zone(rng, f"z{chart}-{n}") for n in range(rng.randint(0, 40))]
        grid = ZonedGrid(zones=zones)
        points = [(rng.randint(-100, 1300), rng.randint(-100, 1100)) for _ in range(400)]
        # corners and edges of every zone, where the half-open rule decides
        points += [(x + dx, y + dy) for zone in zones for x, y in zip(zone.xs, zone.ys, strict=True)
                   for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
        points += [(x + 0.5, y - 0.5) for x, y in points[:50]]
        for x, y in points:
            assert grid.zone_at(x, y) is _scan(zones, x, y), (chart, x, y)


def test_rectangles_are_recognised_only_when_the_polygon_is_the_box() -> None:
    rng = random.Random(7)
    assert _is_rectangle([0, 10, 10, 0], [0, 0, 5, 5], (0, 10, 0, 5))
    assert not _is_rectangle([0, 10, 0, 10], [0, 0, 5, 5], (0, 10, 0, 5))  # crossed
    assert not _is_rectangle([0, 10, 10, 0, 0], [0, 0, 5, 5, 0], (0, 10, 0, 5))  # five corners
    assert not _is_rectangle([0, 0, 0, 0], [0, 0, 5, 5], (0, 0, 0, 5))  # flat
    for _ in range(200):
        zone = _random_zone(rng, "r")
        xs, ys = zone.xs or [0], zone.ys or [0]
        box = (min(xs), max(xs), min(ys), max(ys))
        if not _is_rectangle(zone.xs, zone.ys, box):
            continue
        for _ in range(50):
            x, y = rng.randint(box[0] - 2, box[1] + 2), rng.randint(box[2] - 2, box[3] + 2)
            inside = box[0] <= x < box[1] and box[2] <= y < box[3]
            assert polygon_contains(zone.xs, zone.ys, x, y) == inside


def test_piled_boxes_and_a_changed_zone_list() -> None:
    # every zone covering the whole chart: the index gives way to the scan, same answers
    zones = [Zone(name=f"all{n}", xs=[0, 1000, 1000, 0], ys=[0, 0, 800, 800]) for n in range(50)]
    zones.append(Zone(name="small", xs=[5, 6, 6, 5], ys=[5, 5, 6, 6]))
    grid = ZonedGrid(zones=zones)
    assert grid.zone_at(5, 5).name == "all0"
    assert grid.zone_at(1000, 5) is None
    grid.zones.insert(0, Zone(name="first", xs=[0, 10, 10, 0], ys=[0, 0, 10, 10]))
    assert grid.zone_at(5, 5).name == "first"  # made again for the new list
    long_thin = ZonedGrid(zones=[Zone(name=f"s{n}", xs=[n * 10**6, n * 10**6 + 5, n * 10**6 + 5, n * 10**6],
                                      ys=[0, 0, 1, 1]) for n in range(3)])
    assert long_thin.zone_at(2 * 10**6 + 1, 0).name == "s2"
    assert len(long_thin._index.buckets) <= 8 * 3 + 64


def test_zone_names_that_do_not_read_the_point() -> None:
    from vassal_parser.grids import SquareGrid

    plain = Zone(name="Delay Box", xs=[0, 10, 10, 0], ys=[0, 0, 10, 10], location_format="$name$ (box)")
    assert not plain.name_reads_point()
    gridded = Zone(name="Sea", xs=[0, 10, 10, 0], ys=[0, 0, 10, 10], location_format="$name$ $gridLocation$",
                   grid=SquareGrid(dx=5, dy=5))
    assert gridded.name_reads_point()
    no_grid = Zone(name="Sea", location_format="$name$ $gridLocation$")
    assert not no_grid.name_reads_point()  # no grid: nothing
    assert Zone(name="Sea", location_format="$name$ $Weather$").name_reads_point()  # asked of the map/module
    assert not Zone(name="Sea", location_format="$name$ $Weather").name_reads_point()  # unclosed: literal
