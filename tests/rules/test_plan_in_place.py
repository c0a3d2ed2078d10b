"""`rules.engine.plan(in_place=True)` (the pipeline's way: its state is made for the one plan) gives
the plan the cloning default gives, on random positions (the engine-properties strategies), on the
example positions, and on the demo saves through the pipeline — where the mapping's position must be
left as the mapping made it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK
from bridge.pipeline import CheckPipeline
from rules.engine import plan
from rules.packs import load_pack
from rules.state import GameState
from tests.rules.test_engine_properties import PACK, areas, build, counters, countries
from vassal_parser.errors import InputError

ROOT = Path(__file__).resolve().parents[2]


def both_ways(data: dict, pack) -> tuple[dict | str, dict | str]:  # type: ignore[no-untyped-def,type-arg]
    outcomes = []
    for in_place in (False, True):
        try:
            outcomes.append(plan(GameState.from_json(json.loads(json.dumps(data)), "p.json"), pack,
                                 in_place=in_place).to_json())
        except InputError as problem:
            outcomes.append(str(problem))
    return outcomes[0], outcomes[1]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["Axis", "Western", "Soviet"]),
       st.sampled_from(["Pre-War", "Limited War", "Total War"]),
       countries, counters, areas, st.sampled_from(["War", "Pact", "Neutrality"]))
def test_in_place_plans_equal_cloned_ones(phasing, war, cs, cts, ceded, posture) -> None:  # type: ignore[no-untyped-def]
    cloned, in_place = both_ways(build(phasing, war, cs, cts, ceded, posture), PACK)
    assert in_place == cloned


@pytest.mark.parametrize("path", sorted(p for p in (ROOT / "examples").glob("*/*.json")
                                        if "answers" not in p.name and "combined" not in p.name),
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_example_positions(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    cloned, in_place = both_ways(data, load_pack(data.get("pack") or "tk"))
    assert in_place == cloned


def test_the_pipeline_leaves_the_mapped_position_as_mapped() -> None:
    pipeline = CheckPipeline(DEMO_MODULE, DEMO_PACK, remember=False)
    fired = 0
    for save in sorted((DEMO_MODULE.parent / "saves").glob("*.vsav")):
        pieces, info = pipeline.pieces_of(save)
        result = pipeline.plan_pieces(pieces, info)
        assert result.mapping is not None
        fresh = pipeline.mapping.map_pieces(pieces, pipeline.pack, pipeline.prototypes)
        assert result.mapping.position == fresh.position
        fired += sum(event["status"] == "fired" for event in result.plan["events"])
    assert fired  # events that change the position ran
