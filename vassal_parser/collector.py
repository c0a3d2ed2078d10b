"""Python's cyclic garbage collector paused while a file is decoded.

Why: decoding a big save allocates hundreds of thousands of objects (traits, their field
dicts, chain lists, pieces) and none of them in a reference cycle; still, every 700 allocations
start a collection that walks the young objects, and every so often all of them: a tenth of the
largest corpus save's decode (benchmarks/parse.py). Reference counting frees everything as
usual meanwhile, and the collector is back on, with its counts, when the decode ends.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic collection inside the block; nested blocks and a collector already off are left
    as they are."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
