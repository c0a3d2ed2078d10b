"""Issue 22's DS and combined examples: a known fact that settles the outcome decides it, whatever else the
pack lacks (rules/tri.py); `missing` names only the facts that could change it."""

from __future__ import annotations

import json
from pathlib import Path

from rules.engine import plan
from rules.packs import load_pack
from rules.state import GameState
from tests.ds.helpers import entry, extended_pack, position, run, unit

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_16_1_3_allied_unit_in_korea_lifts_the_garrison_whatever_the_pack_lacks():
    """DS 16.1.3 Exception: "If there are Allied ground units anywhere in a Japanese Dependent being checked,
    Manchukuo Garrison requirements are lifted for all Japanese Dependents." Korea borders the Soviet Union
    (e5201), a Russian unit stands in Keijo: not due, and the neighbours and border road/rail hexes of
    Inner Mongolia, Karafuto, Korea and Manchukuo -- which cannot change that -- are not named."""
    data = json.loads((EXAMPLES / "ds" / "garrison_e5201.json").read_text(encoding="utf-8"))
    data["counters"].append(unit("ru_inf_keijo", "Russia", "w5027", steps=2))
    result = plan(GameState.from_json(data), load_pack("ds"))
    garrison = entry(result, "16.1.3")
    assert garrison.status == "not_due" and garrison.missing == []
    assert garrison.why[0].startswith("Exception: Allied ground unit ru_inf_keijo is in Korea")
    # Without the Russian unit the shipped pack's gaps matter again (e5201 is short: due, others open).
    data["counters"].pop()
    assert entry(plan(GameState.from_json(data), load_pack("ds")), "16.1.3").status == "waiting"


def test_16_3_2_india_with_a_known_free_city_is_not_due(tmp_path):
    """DS 16.3.2 "all City and Partisan Base hexes": the pack locates one City of India (not all of them);
    no Western ground unit holds it, so India cannot be liberated whatever Cities the pack lacks."""
    pack = extended_pack(tmp_path, '[hexes.w9941]\ncountry = "India"\ncity = true\nname = "Delhi"\n',
                         complete=False)
    state = position("Western", {"India": {"faction": "Axis", "status": "active"}}, [])
    liberation = entry(run(state, pack=pack), "16.3.2")
    assert liberation.status == "not_due" and liberation.missing == []
    assert "India: Western ground units do not occupy Delhi (w9941)" in liberation.why
    held = position("Western", {"India": {"faction": "Axis", "status": "active"}},
                    [unit("br_inf", "Britain", "w9941", steps=2)])
    liberation = entry(run(held, pack=pack), "16.3.2")  # every located City held: another may exist
    assert liberation.status == "undecided" and [m.subject for m in liberation.missing] == ["India"]


def test_tk_16_1_1_france_with_a_known_free_city_is_not_due_in_a_combined_game():
    """TK 16.1.1 (France case: "all Cities in France") in a combined position: the shipped TK pack locates
    Paris but not every French City; Paris is not Axis-held, so France is decided, not named as missing."""
    state = GameState.from_json({
        "pack": "tk", "turn": {"date": "1940-05", "phasing": "Axis", "combined_game": True},
        "countries": {"France": {"faction": "Western", "status": "active"}},
        "counters": [],
    })
    conquest = entry(plan(state, load_pack("tk")), "16.1.1")
    assert "France" not in [m.subject for m in conquest.missing]
    assert any(w.startswith("France: Axis ground units do not occupy Paris (w3516)") for w in conquest.why)
