"""`bridge.mapping.fill` with its shortcuts (plain text, one whole `{Name}`) against the general
`{Name}` substitution, on random templates and variables: the same value, or the same one-line
problem naming the missing property (docs/vassal-mapping.md, `set` templates)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.mapping import _MissingValue, fill, fill_general


def outcome(fn: Any, template: Any, variables: dict[str, Any]) -> tuple[str, Any]:
    try:
        return "value", fn(template, variables, "rule #1")
    except _MissingValue as problem:
        return "missing", str(problem)
    except TypeError as problem:  # a variable that is no text: re.sub refuses it
        return "type", type(problem).__name__


names = st.sampled_from(["Counter", "Kind", "n", "Steps", "a b", ""])
pieces = st.one_of(names.map(lambda n: "{" + n + "}"), st.sampled_from(["GE-", "-", "{", "}", "{}", "x"]))
templates = st.one_of(st.lists(pieces, max_size=4).map("".join), st.integers(0, 3), st.booleans(),
                      st.lists(st.text(max_size=2), max_size=2))
values = st.one_of(st.text(max_size=3), st.none(), st.integers(0, 3))


@settings(max_examples=500, deadline=None)
@given(templates, st.dictionaries(names, values, max_size=4))
def test_fill_answers_as_the_general_substitution(template: Any, variables: dict[str, Any]) -> None:
    assert outcome(fill, template, variables) == outcome(fill_general, template, variables)


def test_the_shortcut_forms() -> None:
    assert fill("{Counter}", {"Counter": "GE-1"}, "w") == "GE-1"
    assert fill("ground", {}, "w") == "ground"
    assert fill("{Nation}-{Counter}", {"Nation": "GE", "Counter": "1"}, "w") == "GE-1"
    assert outcome(fill, "{Counter}", {}) == ("missing", "w: no property 'Counter'".replace("w", "rule #1"))
