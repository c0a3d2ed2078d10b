"""Issue 9 section 1 for Totaler Krieg!: every TK event that reads a map fact declares it (events.toml
`needs`) and, on the shipped `tk` pack (which locates only what the rules text names, see its
`[complete]` table), a position that needs a fact the pack lacks makes the event `undecided`, naming the
fact -- never `not due` -- and `adjutant plan` exits 3."""

from __future__ import annotations

import json

import pytest

from bridge.cli.main import main
from rules.engine import plan
from rules.packs import load_pack
from rules.plan import FIRED, UNDECIDED
from rules.state import GameState

TK = load_pack("tk")


def pos(phasing: str, countries: dict, counters: list, cards: dict | None = None, **turn) -> dict:
    return {"pack": "tk", "turn": {"date": "1940-05", "phasing": phasing, "war_state": "Limited War",
                                   "current_cards": cards or {}, **turn},
            "countries": countries, "counters": counters}


def unit(cid: str, nationality: str, location: str, steps: int = 2, **more) -> dict:
    return {"id": cid, "nationality": nationality, "kind": "ground", "steps": steps, "location": location,
            **more}


def ceded(cid: str, area: str, faction: str = "Axis", nationality: str = "Germany") -> dict:
    return {"id": cid, "kind": "ceded_land", "area": area, "faction": faction, "nationality": nationality,
            "location": "ceded_lands"}


CORRIDOR = ceded("mk-corridor", "polish_corridor")
EASTERN_POLAND = ceded("mk-ep", "eastern_poland", "Soviet", "Russia")

# rule -> (position, (fact, subject) that must be named as missing)
CASES = {
    # 16.1.1 "all City and Partisan Base hexes in an active Allied Minor Country"
    "16.1.1": (pos("Axis", {"Belgium-Holland": {"faction": "Western", "status": "active"}}, []),
               ("city_hexes", "Belgium-Holland")),
    # 16.1.2: which hexes are the Axis Minor's now depends on the Polish Corridor's hexes
    "16.1.2": (pos("Axis", {"Poland": {"faction": "Axis", "status": "active"}},
                   [CORRIDOR, unit("ge-pz", "Germany", "e3501", 3)]),
               ("area_hexes", "polish_corridor")),
    # 16.1.3 / 16.7: is Krakow Poland (Neutral: intern) or the ceded Polish Corridor (Germany)?
    "16.1.3": (pos("Axis", {}, [CORRIDOR, unit("ge-inf", "Germany", "e3501", 1)]),
               ("area_hexes", "polish_corridor")),
    # 16.2.1 "the Capital or any three City hexes within the selected Country"
    "16.2.1": (pos("Axis", {"Belgium-Holland": {"faction": "Western", "status": "active"}}, [],
                   {"Axis": "22a"}), ("capital", "Belgium-Holland")),
    # 16.3.1 "if that Country's Capital hex does not contain an enemy unit"
    "16.3.1": (pos("Western", {"Belgium-Holland": {"faction": "Western", "status": "conquered"}}, []),
               ("capital", "Belgium-Holland")),
    # 16.3.2 "occupy all City and Partisan Base hexes of an Axis or Soviet Minor Country"
    "16.3.2": (pos("Western", {"Hungary": {"faction": "Axis", "status": "active"}}, []),
               ("city_hexes", "Hungary")),
    # 16.3.6: "a City in that region that does not contain a German unit" -- Paris is German-held
    "16.3.6": (pos("Western", {}, [ceded("mk-occfr", "occupied_france"), unit("ge-p", "Germany", "w3516")]),
               ("area_hexes", "occupied_france")),
    "16.3.8": (pos("Western", {}, [CORRIDOR, unit("ge-inf", "Germany", "e3501", 1)]),
               ("area_hexes", "polish_corridor")),
    # 16.4.2 "If a supplied US ground unit occupies a City within the selected Country"
    "16.4.2": (pos("Western", {"Hungary": {"faction": "Axis", "status": "active"}}, [],
                   {"Western": "operation-avalanche"}), ("city_hexes", "Hungary")),
    # 16.5.1 (Soviet) Capital
    "16.5.1": (pos("Soviet", {"Rumania": {"faction": "Soviet", "status": "conquered"}}, []),
               ("capital", "Rumania")),
    # 16.5.2 "occupy all City and Partisan Base hexes in an Axis or Western Minor Country"
    "16.5.2": (pos("Soviet", {"Hungary": {"faction": "Axis", "status": "active"}}, []),
               ("city_hexes", "Hungary")),
    # 16.5.3 "an Axis unit is in a hex in Russia": Krakow may be in Eastern Poland, now Russia's
    "16.5.3": (pos("Soviet", {}, [EASTERN_POLAND, unit("ge-inf", "Germany", "e3501", 1)]),
               ("area_hexes", "eastern_poland")),
    # 16.5.4 "Each hex that shares a Border with Germany or Poland in this Region"
    "16.5.4": (pos("Soviet", {"Russia": {"faction": "Soviet", "status": "active", "posture": "Pact"}},
                   [EASTERN_POLAND]), ("border_hexes", "eastern_poland")),
    # 16.5.5 "a City in an Ostland Region ... does not contain a German unit" -- Minsk is German-held
    "16.5.5": (pos("Soviet", {"Russia": {"faction": "Soviet", "status": "active", "posture": None,
                                         "markers": ["Ostland Accord"]}},
                   [ceded("mk-byel", "byelorussia"), unit("ge-minsk", "Germany", "e3906")]),
               ("area_hexes", "byelorussia")),
    "16.5.7": (pos("Soviet", {}, [CORRIDOR, unit("ge-inf", "Germany", "e3501", 1)]),
               ("area_hexes", "polish_corridor")),
}
# Events that read no map fact beyond the hexes the rules text itself lists: 16.3.3/16.3.4 read only
# countries (tested below), 16.3.5 its three white-star hexes, 16.3.7/16.4.1/16.5.6 no hex at all.
NO_MAP_FACT = {"16.3.5", "16.3.7", "16.4.1", "16.5.6"}


def test_every_tk_event_is_covered_here():
    assert set(CASES) | NO_MAP_FACT | {"16.2.2", "16.3.3", "16.3.4"} == set(TK.events)
    for rule in NO_MAP_FACT:
        assert TK.events[rule].needs == (), f"{rule} reads no map fact"


@pytest.mark.parametrize("rule", sorted(CASES))
def test_tk_event_missing_fact_is_undecided_naming_it(rule):
    data, (fact, subject) = CASES[rule]
    result = plan(GameState.from_json(data), TK)
    entry = next(e for e in result.events if e.rule == rule)
    assert entry.status == UNDECIDED, entry.why
    assert (fact, subject) in {(m.fact, m.subject) for m in entry.missing}
    assert not any("none" in w.split() for w in entry.why), entry.why  # never "do not occupy none"
    assert result.exit_status == 3, [(e.rule, e.status) for e in result.events]
    text = result.render_text()
    assert f"{rule} {entry.title} [{entry.source}]: UNDECIDED" in text and "Nothing is due." not in text


@pytest.mark.parametrize("rule", ["16.1.1", "16.3.2", "16.5.4"])
def test_adjutant_plan_exits_3_for_an_undecided_tk_event(rule, tmp_path, capsys):
    data, _ = CASES[rule]
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main(["plan", str(path)]) == 3
    out = capsys.readouterr().out
    assert "UNDECIDED" in out and "missing: " + rule in out


@pytest.mark.parametrize("rule,countries", [("16.3.3", {}), ("16.3.4", {})])
def test_16_3_3_and_16_3_4_ask_only_about_the_countries_they_name(rule, countries):
    """"an Axis unit is in a hex in Britain, a British Dependent, France, or Belgium-Holland": a German unit
    in Krakow (Poland or the ceded Polish Corridor, Germany) is in none of them either way -- decided."""
    data = pos("Western", countries, [CORRIDOR, unit("ge-inf", "Germany", "e3501", 1)])
    entry = next(e for e in plan(GameState.from_json(data), TK).events if e.rule == rule)
    assert entry.status == "not_due" and not entry.missing
    # but a German unit in a French hex of a ceded French area the pack does not locate: undecided
    data = pos("Western", {"France": {"faction": "Western", "status": "active"}},
               [ceded("mk-al", "alsace_lorraine"), unit("ge-inf", "Germany", "w3516", 1)])
    entry = next(e for e in plan(GameState.from_json(data), TK).events if e.rule == rule)
    assert entry.status == UNDECIDED
    assert ("area_hexes", "alsace_lorraine") in {(m.fact, m.subject) for m in entry.missing}


def test_16_2_2_fires_and_names_the_facts_it_could_not_read():
    """16.2.2 always fires on its card; Step 2 ("If the Baltic States, Finland, Poland, or Rumania is
    re-created") needs the hexes of a country whose Russian Ceded Land marker returns, which the shipped
    pack does not locate."""
    data = pos("Axis", {"Russia": {"faction": "Soviet", "status": "active", "posture": "War"}},
               [{"id": "accord", "kind": "marker", "tags": ["ostland_accord"],
                 "location": "conditional_events:Axis"},
                ceded("mk-bs", "baltic_states", "Soviet", "Russia")],
               {"Axis": "27b"}, date="1940-07")
    result = plan(GameState.from_json(data), TK, {"16.2.2:influence": "none"})
    entry = next(e for e in result.events if e.rule == "16.2.2")
    assert entry.status == FIRED
    named = {(m.fact, m.subject) for m in entry.missing}
    assert ("country_hexes", "Baltic States") in named
    assert not any(m.fact == "region_strategic_hex" for m in entry.missing)  # the text lists them all
    assert any(m.text == "the pack locates no hex of Baltic States" for m in entry.missing)
    assert not any(m.subject == "Finland" for m in entry.missing)  # no Finnish area returns: not asked
