"""Python's cyclic garbage collector paused while a file is decoded.

Why: decoding a big save allocates hundreds of thousands of objects (traits, their field
dicts, chain lists, pieces) and none of them in a reference cycle; still, every 700 allocations
start a collection that walks the young objects, and every so often all of them: a tenth of the
largest corpus save's decode (benchmarks/parse.py). Reference counting frees everything as
usual meanwhile, and the collector is back on when the decode ends.

Why the decode's objects leave the block as old ones: switched back on, the collector would
at once walk everything the block allocated as one young generation (what survived is the
decoded game, held by the caller: 5-10 ms of that save's decode, for no garbage). Moving the
young generations into the oldest one instead is what `gc.freeze()` followed by `gc.unfreeze()`
does, in constant time; cycles among them, if ever there were any, are still found, by the next
full collection. Not done when something else froze objects (a worker that froze its start-up
state on purpose: unfreezing would undo that).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic collection inside the block, and what it allocated joins the oldest generation;
    nested blocks and a collector already off are left as they are."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if gc.get_freeze_count() == 0:
            gc.freeze()  # every generation into the permanent one (and the young count to 0) ...
            gc.unfreeze()  # ... and all of it back as the oldest generation
        gc.enable()
