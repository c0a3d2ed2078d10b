"""rules/records.py against the general forms it stands in for: `deep_copy` is `copy.deepcopy` (equal
values, and the same sharing: a value met twice stays shared), `record_json` is `dataclasses.asdict`
(key order too), on random data — plain JSON, and data holding tuples, sets, records, shared lists —
and on the plan's records (steps with details, choices with options, missing facts)."""

from __future__ import annotations

import copy
import json
from dataclasses import asdict, dataclass, field
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.plan import Choice, MissingFact, Step, Violation
from rules.records import NOT_PLAIN, NotPlain, deep_copy, plain_copy, record_copy, record_json

atoms = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False),
                  st.text(max_size=3))
plain = st.recursive(atoms, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                    st.dictionaries(st.text(max_size=2), inner, max_size=3)),
                     max_leaves=10)
odd = st.one_of(st.tuples(atoms), st.frozensets(st.integers(0, 3), max_size=2),
                st.dictionaries(st.integers(0, 3), atoms, max_size=2))  # a tuple, a set, non-text keys
anything = st.recursive(st.one_of(atoms, odd), lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=2), inner, max_size=3)), max_leaves=10)


def shape(value: Any, ids: dict[int, int] | None = None) -> Any:
    """The value with every container numbered by first meeting: equal shapes share alike."""
    ids = {} if ids is None else ids
    if isinstance(value, (list, dict, set, frozenset, tuple)):
        first = id(value) not in ids
        number = ids.setdefault(id(value), len(ids))
        if not first:
            return ("again", number)
        items = value.items() if isinstance(value, dict) else enumerate(value)
        return (type(value).__name__, number, [(k, shape(v, ids)) for k, v in items])
    return value


@settings(max_examples=300, deadline=None)
@given(anything)
def test_deep_copy_is_deepcopy(value: Any) -> None:
    copied = deep_copy(value)
    assert copied == copy.deepcopy(value)
    assert shape(copied) == shape(copy.deepcopy(value))
    assert json.dumps(copied, default=repr) == json.dumps(copy.deepcopy(value), default=repr)


@settings(max_examples=200, deadline=None)
@given(plain, st.data())
def test_shared_values_stay_shared(value: Any, data: st.DataObject) -> None:
    shared = [value, data.draw(plain)]
    twice = {"a": shared, "b": [shared, 1]}  # one list in two places
    assert plain_copy(twice, set()) is NOT_PLAIN
    assert shape(deep_copy(twice)) == shape(copy.deepcopy(twice))
    assert plain_copy(twice) is not NOT_PLAIN  # without `seen` (asdict's way) it is copied twice
    assert plain_copy(twice) == twice


@dataclass
class Record:
    name: str
    tags: list[Any] = field(default_factory=list)
    table: dict[str, Any] = field(default_factory=dict)
    other: Any = None


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=3), anything, anything, anything)
def test_record_json_is_asdict(name: str, tags: Any, table: Any, other: Any) -> None:
    record = Record(name, tags, table, other)
    assert json.dumps(record_json(record), default=repr) == json.dumps(asdict(record), default=repr)
    assert record_json(record) == asdict(record)
    assert record_json(record, ("name", "other")) == {k: v for k, v in asdict(record).items()
                                                       if k in ("name", "other")}
    nested = Record(name, [Record("inner", [1])], {"r": Record("x")})  # records inside: asdict's walk
    assert record_json(nested) == asdict(nested)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=3), anything, anything)
def test_record_copy_is_deepcopy_or_refused(name: str, tags: Any, table: Any) -> None:
    record = Record(name, tags, table)
    try:
        copied = record_copy(record, set())
    except NotPlain:
        assert plain_copy(tags, set()) is NOT_PLAIN or plain_copy(table, set()) is NOT_PLAIN
        return
    assert copied == copy.deepcopy(record)
    assert shape(copied.__dict__) == shape(copy.deepcopy(record).__dict__)


@settings(max_examples=200, deadline=None)
@given(plain, st.lists(st.fixed_dictionaries({"value": plain, "label": st.text(max_size=3)}), max_size=3),
       st.booleans())
def test_the_plans_records(details: Any, options: list[dict[str, Any]], answered: bool) -> None:
    step = Step("16.1.1", "Step 3", "move", "Move it", counter="GE-1", from_="w0101",
                details={"d": details})
    choice = Choice("16.1.2:x", "16.1.2", "Axis", "Intern?", options, answer=options[0]["value"] if options
                    else None, answered=answered)
    missing = MissingFact("city_hexes", "Poland", "the pack locates no City hex of Poland")
    violation = Violation("6.1.1", 0, "no")
    for record in (step, choice, missing, violation):
        assert json.dumps(record_json(record)) == json.dumps(asdict(record))
    expected = asdict(step)
    expected["from"] = expected.pop("from_")
    assert step.to_json() == expected
