"""`VassalMapping._refused_by_all` (bridge/mapping/mapper.py): the first conditions of every rule, grouped by
the variable they read, against asking each rule's `Rule.refused_at_first` in turn — on random rule
tables (plain values and regexes, shared and distinct variables) and random pieces' variables, and
on the shipped packs' tables (docs/vassal-mapping.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.mapping.mapper import VassalMapping

ROOT = Path(__file__).resolve().parents[2]
NAMES = ["Kind", "Counter", "Class", "@name", "@location", "@map"]
VALUES = ["ground", "air", "GE-1", "Spare", "w1001", ""]
PATTERNS = ["re:ground|air", "re:GE-.*", "re:(?P<n>[0-9]+)", "re:w1.*", "re:"]

conditions = st.dictionaries(st.sampled_from(NAMES), st.sampled_from(VALUES + PATTERNS),
                             min_size=1, max_size=2)
rules = st.lists(st.fixed_dictionaries({"match": conditions}), max_size=5)
variables = st.dictionaries(
    st.sampled_from(["Kind", "Counter", "Class", "BasicName", "location", "map", "Other"]),
    st.sampled_from([*VALUES, "naval", "12", "w1999", "GE-7x"]), max_size=6)


def every_rule_refuses(mapping: VassalMapping, found: dict[str, str]) -> bool:
    return all(rule.refused_at_first(found) for rule in (*mapping.ignore, *mapping.state, *mapping.counters))


@settings(max_examples=300, deadline=None)
@given(rules, rules, rules, variables)
def test_grouped_first_conditions_answer_as_each_rule(ignore, state, counters, found):  # type: ignore[no-untyped-def]
    mapping = VassalMapping.from_table({"ignore": ignore, "state": state, "counters": counters}, "test.toml")
    assert mapping._refused_by_all(found) == every_rule_refuses(mapping, found)


@pytest.mark.parametrize("pack", ["module_patches/demo/pack", "rules/packs/awaw"])  # the packs with [vassal]
def test_shipped_tables(pack: str) -> None:
    from rules.packs import load_pack

    mapping = VassalMapping.from_pack(load_pack(ROOT / pack))
    names = {rule._conditions[0][1] for rule in (*mapping.ignore, *mapping.state, *mapping.counters)}
    expected = {rule._conditions[0][3] for rule in (*mapping.ignore, *mapping.state, *mapping.counters)}
    samples = [*expected, "none of them", "", "1", "Germany"]
    checked = 0
    for name in names:
        for value in samples:
            for other in (None, "ground"):
                found = {name: value, **({"Kind": other} if other else {})}
                assert mapping._refused_by_all(found) == every_rule_refuses(mapping, found)
                checked += 1
    assert checked
