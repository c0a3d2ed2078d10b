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

Why a process freezes its start-up state through `freeze_start_up_state`, not `gc.freeze()`:
`gc.get_freeze_count()` is not a counter but a walk of the whole permanent generation, object by
object through memory the decode has just pushed out of the caches (2 ms for a start-up state of
26,000 objects between two decodes, measured 2026-12-03; 0.2 ms when asked twice in a row), and a
block asked it at every decode. A freeze made here is known without that walk; one made elsewhere
is still found by it.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

_start_up_frozen = False  # freeze_start_up_state's freeze is in force


def freeze_start_up_state() -> None:
    """Everything alive now out of the collector's sight for good (a worker's or a daemon's module,
    pack and imports; a process about to fork, so no collection in a child writes to the pages it
    shares with its parent). Reference counting still frees these objects."""
    global _start_up_frozen
    gc.freeze()
    _start_up_frozen = True


def unfreeze_start_up_state() -> None:
    """The frozen objects back in the oldest generation (a batch whose forked workers are gone)."""
    global _start_up_frozen
    gc.unfreeze()
    _start_up_frozen = False


def _anything_frozen() -> bool:
    return _start_up_frozen or gc.get_freeze_count() != 0


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
        if not _anything_frozen():
            gc.freeze()  # every generation into the permanent one (and the young count to 0) ...
            gc.unfreeze()  # ... and all of it back as the oldest generation
        gc.enable()
