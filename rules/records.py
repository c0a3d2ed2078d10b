"""Copies of the engine's records and of JSON data, exactly as `copy.deepcopy` and `dataclasses.asdict`
make them, without their generic walks.

Why: every plan copies its position (the mapping's starting tables, `GameState.clone`) and writes its
records as JSON (`GameState.to_json`, the plan's steps and choices). `deepcopy` and `asdict` look up a
handler, consult a memo and recurse for every value, about 2 µs each; on the demo's first save they
were a quarter of the plan stage (10 M of 40 M instructions). These data are plain — dicts with
text keys, lists, text, numbers, true/false, null — and are copied here by a direct walk; anything
else (a nested record, a tuple, a set, a value two places share, which `deepcopy` would keep
shared) makes the copy say so (`NOT_PLAIN`), and the caller falls back to the general form.
tests/rules/test_records.py compares both on random data.
"""

from __future__ import annotations

import copy
from dataclasses import asdict, fields
from functools import cache
from typing import Any, TypeVar

ATOMS = frozenset({str, int, bool, float, type(None)})
NOT_PLAIN = object()  # what `plain_copy` returns for data it does not copy
_Record = TypeVar("_Record")


def plain_copy(value: Any, seen: set[int] | None = None) -> Any:
    """A copy of plain JSON data, or NOT_PLAIN. With `seen` (ids of the containers met so far in one
    copy), a container met twice is NOT_PLAIN too: `deepcopy` keeps such sharing, `asdict` does not."""
    kind = value.__class__
    if kind in ATOMS:
        return value
    if kind is list:
        if seen is not None and not _first_meeting(value, seen):
            return NOT_PLAIN
        items = []
        for item in value:
            if item.__class__ not in ATOMS:
                item = plain_copy(item, seen)
                if item is NOT_PLAIN:
                    return NOT_PLAIN
            items.append(item)
        return items
    if kind is dict:
        if seen is not None and not _first_meeting(value, seen):
            return NOT_PLAIN
        entries = {}
        for key, item in value.items():
            if key.__class__ not in ATOMS:
                return NOT_PLAIN
            if item.__class__ not in ATOMS:
                item = plain_copy(item, seen)
                if item is NOT_PLAIN:
                    return NOT_PLAIN
            entries[key] = item
        return entries
    return NOT_PLAIN


def _first_meeting(container: Any, seen: set[int]) -> bool:
    """Whether this copy meets the container for the first time (and note it)."""
    if id(container) in seen:
        return False
    seen.add(id(container))
    return True


def deep_copy(value: Any) -> Any:
    """`copy.deepcopy(value)`, by `plain_copy` when the value is plain."""
    copied = plain_copy(value, set())
    return copy.deepcopy(value) if copied is NOT_PLAIN else copied


class NotPlain(Exception):
    """Raised by `record_copy` and `checked_copy` for data they do not copy (use `copy.deepcopy`)."""


def checked_copy(value: Any, seen: set[int]) -> Any:
    """`plain_copy(value, seen)`, raising NotPlain instead of returning NOT_PLAIN."""
    copied = plain_copy(value, seen)
    if copied is NOT_PLAIN:
        raise NotPlain
    return copied


def record_copy(record: _Record, seen: set[int]) -> _Record:
    """What `copy.deepcopy` makes of a dataclass instance (every attribute copied, no `__init__` run);
    raises NotPlain when an attribute is not plain. `seen` as in `plain_copy`, shared by every record
    of one copy so that a value two records share is noticed."""
    attributes = getattr(record, "__dict__", None)
    if attributes is None:  # a slotted record
        raise NotPlain
    attributes = attributes.copy()
    for name, value in attributes.items():
        if value.__class__ not in ATOMS:  # most fields: kept as they are
            attributes[name] = checked_copy(value, seen)  # a value replaced, no key added: the walk goes on
    new = object.__new__(record.__class__)
    new.__dict__.update(attributes)
    return new


@cache
def field_names(kind: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(kind))


def record_json(record: Any, names: tuple[str, ...] | None = None) -> dict[str, Any]:
    """`dataclasses.asdict(record)`, limited to the fields `names` (default: all), in field order; a
    record holding anything but plain data goes through `asdict` itself."""
    if names is None:
        names = field_names(record.__class__)
    attributes = getattr(record, "__dict__", None)
    if attributes is None:  # a slotted record
        return {k: v for k, v in asdict(record).items() if k in names}
    data = attributes.copy()  # the fields in field order, as `__init__` set them, most often
    if tuple(data) != names:
        data = {name: attributes[name] for name in names}
    for name, value in data.items():
        if value.__class__ not in ATOMS:
            copied = plain_copy(value)
            if copied is NOT_PLAIN:
                return {k: v for k, v in asdict(record).items() if k in names}
            data[name] = copied
    return data
