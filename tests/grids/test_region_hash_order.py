"""§6.8 region ties: VASSAL's `RegionGrid.doSnap` walks a `HashMap<Point, Region>` and keeps the
first region of strictly smallest distance, so a point equally far from two origins is named by
whichever origin Java's HashMap iterates first.

The expected orders below are worked by hand from the JDK's rules (and were checked once against
OpenJDK 17's own `HashMap<java.awt.Point, …>`):
  * `Point2D.hashCode`: bits = doubleToLongBits(x) ^ doubleToLongBits(y) * 31; hash = low ^ high word.
    For 500.0 the high word is 0x407F4000 (exponent 1031, mantissa 0.111101b); for 850.0 it is
    0x408A9000, times 31 (mod 2^32) 0xD0C77000; both low words are 0, so hashCode(500, 850) =
    0x407F4000 ^ 0xD0C77000 = 0x90B83000.
  * `HashMap.hash` = h ^ (h >>> 16) = 0x90B8A0B8; bucket = hash & (table size - 1) = 8 of 16.
  * The table starts at 16 and doubles when the 13th (25th, 49th, …) entry goes in; a bucket keeps
    its entries in insertion order; iteration is bucket 0 upwards.
"""

from __future__ import annotations

from pathlib import Path

from vassal_parser.grids import Region, RegionGrid, ZonedGrid
from vassal_parser.javahash import iteration_order, point_hash
from vassal_parser.module import load_module


def _signed(value: int) -> int:
    return value - (1 << 32) if value & 0x80000000 else value


def test_6_8_point_hash_is_point2d_hashcode() -> None:
    """§6.8: the hand-worked Point2D.hashCode values of the module docstring."""
    assert point_hash(500, 850) == _signed(0x90B83000)
    assert point_hash(1400, 850) == _signed(0x90529000)
    assert point_hash(0, 0) == 0  # doubleToLongBits(0.0) is 0


# Almoravid's "Christian Hidden Lords" RegionGrid (7 regions, table of 16). Buckets (hash & 15):
# (500,850) 8, (1400,850) 2, (2300,850) 6, (3200,850) 14, (500,2150) 7, (1400,2150) 13, (2300,2150) 9.
ALMORAVID_LORDS = [
    ("Christian Hidden Lord 1", 500, 850),
    ("Christian Hidden Lord 2", 1400, 850),
    ("Christian Hidden Lord 3", 2300, 850),
    ("Christian Hidden Lord 4", 3200, 850),
    ("Christian Hidden Lord 5", 500, 2150),
    ("Christian Hidden Lord 6", 1400, 2150),
    ("Christian Hidden Lord 7", 2300, 2150),
]


def test_6_8_iteration_follows_buckets_not_build_order() -> None:
    """§6.8: bucket order 2, 6, 7, 8, 9, 13, 14 (hand-worked above)."""
    points = [(x, y) for _, x, y in ALMORAVID_LORDS]
    assert iteration_order(points) == [
        (1400, 850), (2300, 850), (500, 2150), (500, 850), (2300, 2150), (1400, 2150), (3200, 850)
    ]


def test_6_8_a_midpoint_tie_goes_to_the_origin_the_hashmap_visits_first() -> None:
    """§6.8: (950, 850) is 450 px from Lord 1 and Lord 2; bucket 2 (Lord 2) comes before bucket 8."""
    grid = RegionGrid(regions=[Region(name, x, y) for name, x, y in ALMORAVID_LORDS])
    assert grid.location_name(950, 850) == "Christian Hidden Lord 2"
    assert grid.location_name(949, 850) == "Christian Hidden Lord 1"  # not a tie: nearer Lord 1
    # build order does not matter, only the hashes do
    reordered = RegionGrid(regions=[Region(name, x, y) for name, x, y in reversed(ALMORAVID_LORDS)])
    assert reordered.location_name(950, 850) == "Christian Hidden Lord 2"


def test_6_8_the_almoravid_module_answers_the_tie_as_vassal(corpus_dir: Path) -> None:
    """§6.8 on the real module: the region grid inside the Alhambra board's zone."""
    module = load_module(corpus_dir / "Cattlesquat__Almoravid/buildFile.xml")
    grids = []
    for map_def in module.maps:
        for board in map_def.boards:
            if isinstance(board.grid, ZonedGrid):
                grids += [zone.grid for zone in board.grid.zones if isinstance(zone.grid, RegionGrid)]
    lords = next(
        grid for grid in grids if any(region.name == "Christian Hidden Lord 1" for region in grid.regions)
    )
    assert lords.location_name(950, 850) == "Christian Hidden Lord 2"


# A tie whose answer changes when the table grows: A = (670, 1000) has hash 0x91DC3000, spread
# 0x91DCA1DC; B = (1330, 1000) has 0x91CC0800, spread 0x91CC99CC. In a table of 16 both are in
# bucket 12 (0xC), A first because it was put first; in a table of 32 A is in bucket 28 (0x1C) and
# B in bucket 12, so B comes first. (1000, 1000) is 330 px from both.
TIE_A = Region("A", 670, 1000)
TIE_B = Region("B", 1330, 1000)


def _far(count: int) -> list[Region]:
    return [Region(f"far {i}", 20000 + 100 * i, 20000) for i in range(count)]


def test_6_8_same_bucket_keeps_insertion_order_before_a_resize() -> None:
    """§6.8: 12 entries (no resize yet): A and B share bucket 12, A was put first."""
    grid = RegionGrid(regions=[TIE_A, TIE_B, *_far(10)])
    assert grid.location_name(1000, 1000) == "A"
    swapped = RegionGrid(regions=[TIE_B, TIE_A, *_far(10)])
    assert swapped.location_name(1000, 1000) == "B"


def test_6_8_the_13th_region_resizes_the_table_and_changes_the_answer() -> None:
    """§6.8: 13 entries exceed the threshold 12, the table doubles to 32: B (bucket 12) before A (28)."""
    grid = RegionGrid(regions=[TIE_A, TIE_B, *_far(11)])
    assert grid.location_name(1000, 1000) == "B"


def test_6_8_same_origin_later_put_wins_in_the_earlier_place() -> None:
    """§6.8: `put` on an existing origin replaces the value and keeps the entry where it was."""
    grid = RegionGrid(regions=[TIE_A, TIE_B, Region("A again", 670, 1000), *_far(10)])
    assert grid.location_name(1000, 1000) == "A again"  # still bucket 12 before B, 12 entries
    assert grid.location("A again") == (670, 1000)
    assert grid.location("A") is None


def test_6_8_find_region_by_name_takes_the_first_in_hash_order() -> None:
    """§6.8 `findRegion`: two regions with one name at different origins: the first one visited."""
    grid = RegionGrid(regions=[Region("Twin", 670, 1000), Region("Twin", 1330, 1000), *_far(11)])
    assert grid.location("Twin") == (1330, 1000)  # table of 32: bucket 12 before 28


def test_6_8_treeified_bucket_matches_the_jdk() -> None:
    """§6.8: 20 points sharing their low 8 hash bits land in one bucket of a 64-slot table, which the
    JDK turns into a red-black tree (`treeifyBin`); new entries then follow their tree parent.
    Expected order recorded from OpenJDK 17 (not worked by hand: it is the tree's)."""
    points = [
        (2578, 813), (2969, 2313), (2922, 811), (2841, 547), (2687, 398), (2371, 551), (2869, 1655),
        (1558, 194), (1265, 191), (1790, 806), (2345, 1135), (895, 2233), (2639, 813), (2884, 31),
        (2979, 1124), (1713, 807), (1590, 545), (2652, 195), (2295, 1664), (22, 695),
    ]
    assert iteration_order(points) == [
        (2922, 811), (2578, 813), (2969, 2313), (2295, 1664), (895, 2233), (2841, 547), (2687, 398),
        (2652, 195), (2371, 551), (1590, 545), (2869, 1655), (1558, 194), (2884, 31), (1265, 191),
        (1790, 806), (22, 695), (2639, 813), (1713, 807), (2345, 1135), (2979, 1124),
    ]


def test_6_8_distance_wraps_like_java_int() -> None:
    """§6.8: doSnap squares in `int`; 50000² overflows to a negative number and so looks nearest."""
    grid = RegionGrid(regions=[Region("near", 10, 0), Region("wrapped", 50000, 0)])
    # 50000^2 = 2,500,000,000 wraps to -1,794,967,296 < 100
    assert grid.location_name(0, 0) == "wrapped"


def _lattice_grid(seed: int) -> RegionGrid:
    """Regions on a coarse lattice (so many points are exactly as far from two or four origins),
    some sharing an origin (the later put replaces the earlier one), in shuffled build order."""
    import random

    chooser = random.Random(seed)
    regions = []
    for n in range(chooser.randrange(16, 400)):
        x = chooser.randrange(0, 40) * 50
        y = chooser.randrange(0, 30) * 50
        regions.append(Region(f"R{n}", x, y))
    return RegionGrid(regions=regions)


def test_6_8_the_bucket_index_answers_as_the_hashmap_walk_does() -> None:
    """§6.8: `nearest` answers from a bucket index for big grids; on every point of a fine raster
    (midpoints and centres of the lattice included, so ties are common) it gives the region that
    `doSnap`'s literal walk in HashMap order gives — ties included."""
    for seed in range(6):
        grid = _lattice_grid(seed)
        for x in range(-10, 2000, 25):
            for y in range(-10, 1500, 25):
                assert grid.nearest(x, y) is grid._walk(x, y), (seed, x, y)


def test_6_8_far_points_and_huge_coordinates_are_walked() -> None:
    """§6.8: outside the regions' box, or with coordinates whose squared distances would wrap
    Java's int, the literal walk answers (the index is only a shortcut where it is exact)."""
    grid = _lattice_grid(7)
    assert grid.nearest(-5000, 99999) is grid._walk(-5000, 99999)
    huge = RegionGrid(regions=[Region(f"H{n}", n * 4000, 0) for n in range(20)])
    for x in (0, 30000, 46341, 60000, 80000):
        assert huge.nearest(x, 5) is huge._walk(x, 5)
