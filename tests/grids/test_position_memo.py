"""`PositionMemo`: per-piece work kept across reads of one game gives exactly the fresh positions.

Why on real files: the memo's keys must hold every input of a located piece (spec §3.2: a piece in
a stack or deck is where its container is; §5.5: LocationName, CurrentZone from the chosen boards),
and the corpus has stacks, decks, several boards per map and logs whose steps move pieces.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vassal_parser.game import BoundedCache, PositionMemo, load_game
from vassal_parser.module import load_module

TLD_TMP = "uckelman__tld-mod/tmp"
SAVES = ["campaign.sav", "scenario_1.sav", "scenario_2.sav", "scenario_3.sav", "scenario_4.sav"]


def test_bounded_cache_forgets_the_least_recently_used_first() -> None:
    cache = BoundedCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # "a" is now the most recent
    cache.put("c", 3)
    assert cache.get("b") is BoundedCache.MISSING
    assert (cache.get("a"), cache.get("c"), len(cache)) == (1, 3, 2)
    cache.put("none", None)  # None is a value, not a miss
    assert cache.get("none") is None
    cache.resize(1)
    assert len(cache) == 1 and cache.get("none") is None


def test_bounded_cache_keeps_the_keys_used_last_and_at_most_twice_its_capacity() -> None:
    """Random puts and lookups against a plain recency list: every key among the `capacity`
    distinct keys used last is there with its last value; nothing beyond 2 x capacity."""
    import random

    for seed in range(200):
        rng = random.Random(seed)
        capacity = rng.randint(1, 12)
        cache, recent, values = BoundedCache(capacity), [], {}
        for _ in range(300):
            key = rng.randint(0, 30)
            if rng.random() < 0.5:
                values[key] = rng.random()
                cache.put(key, values[key])
            elif cache.get(key) is BoundedCache.MISSING:
                continue  # a miss uses nothing
            else:
                assert cache.get(key) == values[key]
            if key in recent:
                recent.remove(key)
            recent.append(key)
            for kept in recent[-capacity:]:
                assert cache.get(kept) == values[kept], (seed, kept)
                recent.remove(kept)
                recent.append(kept)  # looked up: used
            assert len(cache) <= 2 * capacity


def test_a_growing_cache_keeps_what_it_held() -> None:
    cache = BoundedCache(4)
    for key in range(7):
        cache.put(key, str(key))
    held = [key for key in range(7) if key in (cache._new.keys() | cache._old.keys())]
    assert held[-4:] == [3, 4, 5, 6]
    cache.resize(10)  # PositionMemo.fit: a bigger game
    assert [cache.get(key) for key in held] == [str(key) for key in held]


def test_memoised_saves_of_one_module_give_the_fresh_positions_6_5(corpus_dir: Path) -> None:
    """Five tld-mod saves (five boards, stacks, zones) read in turn through one memo, then again."""
    module = load_module(corpus_dir / TLD_TMP / "buildFile")
    memo = PositionMemo(module)
    for name in [*SAVES, *reversed(SAVES)]:
        path = corpus_dir / TLD_TMP / name
        remembered = load_game(path, module, memo=memo).position()
        assert remembered == load_game(path, module).position(), name
    assert memo.hits > 0
    assert len(memo.placed) <= 2 * memo.placed.capacity  # BoundedCache: at most two generations


def test_memoised_log_steps_give_the_fresh_positions_3_5(corpus_dir: Path) -> None:
    """A log's replay steps move, merge and change pieces (spec §3.5): each step's position, memoised
    (forward, then from the start again), equals the fresh replay."""
    module = load_module(corpus_dir / "uckelman__tld-mod/buildFile")
    path = corpus_dir / "uckelman__tld-mod/game/0611-2"
    fresh = load_game(path, module)
    steps = min(len(fresh.steps), 15)
    assert steps > 0
    expected = [fresh.position_at(step) for step in range(steps + 1)]
    memo = PositionMemo(module)
    for _ in range(2):
        game = load_game(path, module, memo=memo)
        assert [game.position_at(step) for step in range(steps + 1)] == expected
    assert memo.hits > 0


def test_memo_given_another_module_starts_again(corpus_dir: Path) -> None:
    """The memo's layouts and locations belong to one module (spec §6): another one empties it."""
    first = load_module(corpus_dir / TLD_TMP / "buildFile")
    memo = PositionMemo(first)
    path = corpus_dir / TLD_TMP / "scenario_1.sav"
    load_game(path, first, memo=memo).position()
    token = memo.token
    assert len(memo.placed) > 0
    second = load_module(corpus_dir / TLD_TMP / "buildFile")  # equal content, another object
    positions = load_game(path, second, memo=memo).position()
    assert memo.module is second and memo.token != token
    assert positions == load_game(path, second).position()


@pytest.mark.parametrize("name", ["scenario_2.sav"])
def test_placed_pieces_carry_a_memo_key_only_when_memoised(corpus_dir: Path, name: str) -> None:
    module = load_module(corpus_dir / TLD_TMP / "buildFile")
    path = corpus_dir / TLD_TMP / name
    assert all(p.memo_key is None for p in load_game(path, module).position())
    assert all(p.memo_key is not None for p in load_game(path, module, memo=PositionMemo(module)).position())


@pytest.mark.parametrize(
    "module_path",
    [
        "uckelman__tld-mod/tmp/buildFile",
        "uckelman__tld-mod/buildFile",
        "jzedwards__vassal-hex-n-counters-template/ragnarok/vassal/buildFile.xml",
        "module_patches/demo/adjutant-demo.vmod",
    ],
)
def test_place_at_equals_board_zone_and_location_lookups_6_7(corpus_dir: Path, module_path: str) -> None:
    """`MapLayout.place_at` (one pass) answers what `board_at`, `zone_at` (CurrentZone, never reversed)
    and `location_name` (§5.5, §6.7) answer one by one, on a sweep of points over every map, with the
    boards as chosen by default and with every board reversed."""
    from vassal_parser.layout import MapLayout

    root = Path(__file__).resolve().parents[2]
    in_project = module_path.startswith("module_patches")
    module = load_module(root / module_path if in_project else corpus_dir / module_path)
    checked = 0
    for map_def in module.maps:
        default = MapLayout.default_selection(map_def)
        flipped = [(name, not reversed_, col, row) for name, reversed_, col, row in default]
        for selection in (default, flipped):
            layout = MapLayout(map_def, selection, module.module_property)
            width, height = layout.size or (2000, 2000)
            points = [(x, y) for x in range(-20, width + 20, 23) for y in range(-20, height + 20, 29)]
            points += list(layout.draw_pile_positions.values())
            for x, y in points:
                board, zone, location = layout.place_at(x, y)
                assert board is layout.board_at(x, y)
                assert zone is layout.zone_at(x, y)
                assert location == layout.location_name(x, y), (map_def.identifier, x, y)
                checked += 1
    assert checked > 1000


def test_memo_makes_room_for_a_whole_position_on_its_first_read(corpus_dir: Path) -> None:
    """Sized before the pieces are read: the second read of a save bigger than the minimum is all hits."""
    module = load_module(corpus_dir / TLD_TMP / "buildFile")
    path = corpus_dir / TLD_TMP / "campaign.sav"
    memo = PositionMemo(module, minimum=10)
    first = load_game(path, module, memo=memo).position()
    assert len(first) > 10 and memo.misses == len(first)
    second = load_game(path, module, memo=memo).position()
    assert memo.hits == len(second) == len(first)
    assert all(a is b for a, b in zip(first, second, strict=True))


def test_placed_pieces_are_built_in_their_field_order() -> None:
    """`Game._placed` passes PlacedPiece's fields by position: a field added anywhere but the end
    (with a default) would shift every later one (docs/architecture.md: fields are added, never
    renamed)."""
    from dataclasses import fields

    from vassal_parser.game import _PLACED_FIELDS, PlacedPiece

    assert tuple(f.name for f in fields(PlacedPiece))[: len(_PLACED_FIELDS)] == _PLACED_FIELDS
