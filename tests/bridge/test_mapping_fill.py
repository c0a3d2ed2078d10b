"""`bridge.mapping.mapper.fill` with its shortcuts (plain text, one whole `{Name}`) against the general
`{Name}` substitution, on random templates and variables: the same value, or the same one-line
problem naming the missing property (docs/vassal-mapping.md, `set` templates)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.mapping.pack_rules import _MissingValue, fill, fill_general


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


def _general_setters(mapping: Any) -> Any:
    """The same mapping with every text template filled the general way (form "")."""
    import copy

    general = copy.deepcopy(mapping)
    for rule in general.counters:
        object.__setattr__(rule, "setters", tuple((n, t, "" if isinstance(t, str) else None)
                                                   for n, t, _form in rule.setters))
    return general


field_templates = st.dictionaries(
    st.sampled_from(["name", "nationality", "steps", "exp", "tags", "area"]),
    st.one_of(templates, st.sampled_from(["{Counter}", "{Steps}", "{Missing}", "2", "yes", "a, b"])),
    max_size=4)


@settings(max_examples=150, deadline=None)
@given(field_templates, st.lists(st.dictionaries(st.sampled_from(["Counter", "Steps", "Kind", "n"]),
                                                 st.text(max_size=3), max_size=4), max_size=6))
def test_counter_fields_inline_fill_as_general(values: dict[str, Any],
                                               properties: list[dict[str, str]]) -> None:
    """`_counter_fields` fills its rules' templates inline: the counters and the problems it reports
    are those of filling every template the general way."""
    from bridge.mapping.mapper import VassalMapping
    from vassal_parser.game import PlacedPiece

    table = {"places": {"hexes": [{"map": "Europe"}]},
             "counters": [{"match": {"Kind": "re:.*"},
                           "set": {"id": "{Counter}", "kind": "ground", **values}}]}
    mapping = VassalMapping.from_table(table, "test.toml")
    pieces = [PlacedPiece(id=str(n), basic_name=f"P{n}", piece_name=f"P{n}", map="Europe", x=n, y=n,
                          board=None, zone=None, location="0101", stack_id=None, stack_index=None, deck=None,
                          properties={"Kind": "ground", "Counter": f"C{n}", **props})
              for n, props in enumerate(properties)]
    try:
        expected = _general_setters(mapping).map_pieces(pieces)
    except TypeError:  # a non-text variable: both ways refuse it alike
        return
    assert mapping.map_pieces(pieces) == expected
