"""`BoundedCache.put_many` (the first read's memo puts at once, issue 15) leaves the table exactly as
the same `put` calls one by one would: both generations, their keys, values and order."""

from __future__ import annotations

import random

from vassal_parser.game import BoundedCache


def _state(cache: BoundedCache) -> tuple:
    return list(cache._new.items()), list(cache._old.items()), cache.capacity


def test_put_many_is_put_one_by_one() -> None:
    rng = random.Random(2026)
    turned = 0
    for _ in range(3000):
        capacity = rng.randint(1, 9)
        bulk, single = BoundedCache(capacity), BoundedCache(capacity)
        for _ in range(rng.randint(0, 3)):  # a history: earlier puts and lookups
            key = rng.randint(0, 12)
            for cache in (bulk, single):
                cache.put(key, "old")
            key = rng.randint(0, 12)
            assert bulk.get(key) == single.get(key)
        items = [(rng.randint(0, 15), rng.random()) for _ in range(rng.randint(0, 30))]  # repeats too
        before = bulk._old
        bulk.put_many(items)
        for key, value in items:
            single.put(key, value)
        assert _state(bulk) == _state(single), (capacity, items)
        turned += bulk._old is not before
    assert turned > 1000  # generations turned over inside the bulk put, not only after it
