"""The methods `dataclasses` writes for each record class, compiled once and kept between runs.

Why: for every `@dataclass` the standard library writes `__init__`, `__repr__`, `__eq__` (and for a
frozen one `__setattr__`, `__delattr__`, `__hash__`) as source text and compiles each with `exec` —
on every start, since no `__pycache__` holds them. A `check` of the demo save creates 64 record
classes and spent about 40 ms, a third of the whole process, in those compiles (issue 27).

How: `dataclasses` looks `exec` up in its own module namespace before the builtins, so giving it an
`exec` of ours there is enough: for a source text it runs the code object compiled from exactly
that text, taken from the user cache (vassal_parser/user_cache.py) or compiled now and kept. The
code object is the one `exec` would have made: the same text, the file name `<string>`, and no
compiler flags inherited (`dont_inherit=True`; `dataclasses` itself uses no `__future__` import),
so the classes are the same classes. Anything that is not a source text goes to the builtin.

Why `inspect` waits (`defer_inspect`): `dataclasses` imports it — with `ast`, `dis` and `tokenize`,
35 M instructions, a tenth of a small check — only to write a signature as the docstring of a class
that has none, and every record class of ours has one. So before `dataclasses` is imported a
stand-in module takes `inspect`'s place in `sys.modules`; the first attribute anything asks of it
imports the real module (under a lock), puts it back in `sys.modules` and copies its names into the
stand-in, so a module that bound the stand-in sees the real functions from then on. (The standard
`importlib.util.LazyLoader` does not do here: on Python 3.11 the next `import inspect` anywhere
— `dataclasses`' own — reads it and so loads it at once.)
"""

from __future__ import annotations

import _thread
import builtins
import sys
import types
from typing import Any

from vassal_parser import user_cache

STORE_NAME = "dataclass-code"


def cached_exec(source: Any, globals: dict[str, Any] | None = None,
                locals: dict[str, Any] | None = None) -> None:
    """`exec` as `dataclasses` calls it, with the code of a source text from the store."""
    if not isinstance(source, str):
        return builtins.exec(source, globals, locals)
    store = user_cache.store(STORE_NAME)
    code = store.get(source)
    if not isinstance(code, types.CodeType):
        code = compile(source, "<string>", "exec", dont_inherit=True)
        store.put(source, code)
    return builtins.exec(code, globals, locals)


def install() -> None:
    """Route `dataclasses`' compiles through the cache (once per process; harmless to repeat)."""
    if "dataclasses" not in sys.modules:
        defer_inspect()
    import dataclasses

    dataclasses.exec = cached_exec  # type: ignore[attr-defined]


_INSPECT_LOCK = _thread.allocate_lock()


def defer_inspect() -> None:
    """Put a stand-in for `inspect` in `sys.modules` that imports the real one when first used."""
    if "inspect" in sys.modules:
        return
    stand_in = types.ModuleType("inspect", "Stand-in for the standard `inspect`, imported on first use.")

    def __getattr__(name: str) -> Any:
        return getattr(_real_inspect(stand_in), name)

    stand_in.__getattr__ = __getattr__  # type: ignore[method-assign]
    sys.modules["inspect"] = stand_in


def _real_inspect(stand_in: types.ModuleType) -> types.ModuleType:
    import importlib

    with _INSPECT_LOCK:
        if sys.modules.get("inspect") is stand_in:
            del sys.modules["inspect"]
        real = importlib.import_module("inspect")
        stand_in.__dict__.update(real.__dict__)
    return real
