"""`_check_types` (rules/state.py): its exact-class fast test against the general one it skips.

Why: every counter of a save is checked field by field, so the common case (a JSON value of one of
the field's exact classes) is decided first; on any value — bools where numbers are due, subclasses,
lists holding non-text, unknown keys — the answer (pass, or the one-line error) must be the general
test's."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.state import FIELD_TYPES, _check_types, _check_types_general
from vassal_parser.errors import InputError


class Text(str):
    pass


class Number(int):
    pass


values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False), st.text(max_size=3),
              st.builds(Text, st.text(max_size=3)), st.builds(Number, st.integers(0, 3))),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.text(max_size=2), inner, max_size=2)),
    max_leaves=6,
)


def outcome(check: Any, what: str, fields: dict[str, Any]) -> str | None:
    try:
        check("<src>", what, "label", fields)
    except InputError as problem:
        return str(problem)
    return None


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(sorted(FIELD_TYPES)), st.data())
def test_fast_check_answers_as_the_general_one(what: str, data: st.DataObject) -> None:
    keys = [*FIELD_TYPES[what], "unknown_key"]
    fields = data.draw(st.dictionaries(st.sampled_from(keys), values, max_size=6))
    assert outcome(_check_types, what, fields) == outcome(_check_types_general, what, fields)


def test_bools_are_no_numbers_and_lists_hold_text() -> None:
    assert outcome(_check_types, "counter", {"steps": True}) is not None
    assert outcome(_check_types, "counter", {"steps": 2, "exp": True, "tags": ["a"]}) is None
    mixed = {"tags": ["a", 1]}
    assert outcome(_check_types, "counter", mixed) == outcome(_check_types_general, "counter", mixed)
    assert outcome(_check_types, "counter", mixed) is not None
