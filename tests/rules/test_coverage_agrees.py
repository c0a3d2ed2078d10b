"""`adjutant pack check` (and the editor, which shows the same rules.facts.coverage) agrees with the engine
(issue 22): every map fact a plan names as missing is one pack check lists as missing for that event, and
the facts a pack trusts rather than locates are the same in both -- on every shipped pack, on the shipped
example positions and on random positions over packs with facts removed (tests/rules/completions.py)."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import pytest

from bridge.reports.pack_report import coverage_report
from rules.engine import plan
from rules.facts import FACT_KINDS, coverage, trusted_facts
from rules.packs import load_pack
from rules.state import GameState
from tests.rules.completions import atoms_of, without
from tests.rules.test_three_valued import DS_ADDED, demo_position, ds_position

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SHIPPED = ("tk", "ds", "demo", "awaw")


def disagreements(result, pack) -> list[str]:  # type: ignore[no-untyped-def]
    lack = {(line.rule, line.fact, s) for line in coverage(pack) for s in line.lack}
    return [f"{e.rule} {m.fact} {m.subject}: named by the plan, not by pack check"
            for e in result.events for m in e.missing
            if m.fact in FACT_KINDS and (e.rule, m.fact, m.subject) not in lack]


@pytest.mark.parametrize("path", sorted(p for p in EXAMPLES.glob("*/*.json") if "answers" not in p.name),
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_examples_missing_facts_are_the_ones_pack_check_lists(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    pack = load_pack(data.get("pack", "tk"))
    result = plan(GameState.from_json(data, str(path)), pack)
    assert disagreements(result, pack) == []
    assert result.trusted == [f"{FACT_KINDS[f].label} ({f})" for f in trusted_facts(pack)]


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_packs_trust_nothing_and_pack_check_says_the_same(name: str) -> None:
    """No shipped pack trusts a fact it does not locate; pack check's JSON says so as the plans do."""
    pack = load_pack(name)
    assert trusted_facts(pack) == []
    assert coverage_report(pack)["trusted_facts"] == []


def test_random_positions_over_reduced_packs_agree_with_pack_check() -> None:
    rng = random.Random(2222)
    demo = load_pack("demo")
    ds = load_pack("ds")
    ds = dataclasses.replace(ds, hexes={**ds.hexes, **DS_ADDED})
    problems: list[str] = []
    for case in range(60):
        world = demo if case % 2 else ds
        state, _phasing = demo_position(rng, world) if world is demo else ds_position(rng, world)
        atoms = atoms_of(world, ("city", "area", "claim", "rail", "road", "border"))
        reduced = without(world, rng.sample(atoms, min(len(atoms), rng.randint(0, 6))))
        if rng.random() < 0.3 and reduced.complete is not None:  # trust, the way a copied template may
            reduced = dataclasses.replace(reduced, complete={**reduced.complete, "others": "trusted"})
        result = plan(state, reduced)
        problems += [f"case {case}: {p}" for p in disagreements(result, reduced)]
        assert result.trusted == [f"{FACT_KINDS[f].label} ({f})" for f in trusted_facts(reduced)]
        assert coverage_report(reduced)["trusted_facts"] == trusted_facts(reduced)
    assert problems == []
