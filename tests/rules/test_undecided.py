"""Unknown is never "not due": an event whose map fact the pack lacks is `undecided`, naming the fact.

16.1.1 reads the City hexes of each active Allied Minor Country; the shipped TK pack locates Cities of
only a few countries, so a conquest check of any other country cannot be decided from it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rules.engine import plan
from rules.facts import coverage
from rules.packs import PACKS_DIR, load_pack
from rules.plan import EXIT_DUE, EXIT_NOTHING_DUE, EXIT_UNDECIDED, NOT_DUE, UNDECIDED
from rules.state import GameState
from vassal_parser.errors import InputError

PROJECT = Path(__file__).resolve().parents[2]


def position(countries: dict, counters: list | None = None) -> GameState:
    return GameState.from_json({
        "pack": "tk", "turn": {"date": "1939-09", "phasing": "Axis"},
        "countries": countries, "counters": counters or [],
    })


def event(result, rule):
    return next(e for e in result.events if e.rule == rule)


def test_16_1_1_country_without_located_city_is_undecided_naming_the_fact():
    # 16.1.1: "all City and Partisan Base hexes" — Belgium-Holland's Cities are not in the shipped pack.
    result = plan(position({"Belgium-Holland": {"faction": "Western", "status": "active"}}), load_pack("tk"))
    entry = event(result, "16.1.1")
    assert entry.status == UNDECIDED
    assert [(m.fact, m.subject) for m in entry.missing] == [("city_hexes", "Belgium-Holland")]
    assert entry.missing[0].text == "the pack locates no City hex of Belgium-Holland"
    assert result.undecided and not result.due
    assert result.exit_status == EXIT_UNDECIDED
    data = result.to_json()
    assert data["undecided"] is True
    assert data["events"][0]["missing"][0]["subject"] == "Belgium-Holland"
    text = result.render_text()
    assert "16.1.1 Allied Minor Country Conquest [permanent]: UNDECIDED" in text
    assert "missing: 16.1.1 Belgium-Holland: the pack locates no City hex of Belgium-Holland" in text
    assert "Nothing is due." not in text


def test_16_1_1_located_country_is_still_decided_beside_an_undecided_one(tk_with_complete):
    # A pack that declares Poland's Cities complete (the shipped one locates Krakow only: see below).
    pack = load_pack(tk_with_complete('[complete]\ncity_hexes = ["Poland"]\n'))
    result = plan(position({"Poland": {"faction": "Western", "status": "active"}}), pack)
    entry = event(result, "16.1.1")
    assert entry.status == NOT_DUE and not entry.missing
    assert result.exit_status == EXIT_NOTHING_DUE


def test_16_1_1_fires_for_a_located_country_and_lists_the_undecided_one(tk_with_complete):
    pack = load_pack(tk_with_complete('[complete]\ncity_hexes = ["Poland"]\n'))
    counters = [{"id": "GE-1", "nationality": "Germany", "kind": "ground", "steps": 2, "location": "e3501"}]
    result = plan(position({"Poland": {"faction": "Western", "status": "active"},
                            "Belgium-Holland": {"faction": "Western", "status": "active"}}, counters),
                  pack)
    entry = event(result, "16.1.1")
    assert entry.status == "fired"
    assert [m.subject for m in entry.missing] == ["Belgium-Holland"]
    assert result.exit_status == EXIT_DUE  # due wins: there is something to do


def test_16_1_1_shipped_tk_pack_is_honest_krakow_alone_does_not_conquer_poland():
    """16.1.1 "all City ... hexes": the shipped pack locates Krakow, the one Polish City the rules text names
    (16.7 example); its [complete] table does not claim Poland's Cities, so Poland is undecided."""
    counters = [{"id": "GE-1", "nationality": "Germany", "kind": "ground", "steps": 2, "location": "e3501"}]
    result = plan(position({"Poland": {"faction": "Western", "status": "active"}}, counters), load_pack("tk"))
    entry = event(result, "16.1.1")
    assert entry.status == UNDECIDED and not entry.steps
    assert entry.missing[0].text.startswith("the pack locates only some City hexes of Poland")


@pytest.fixture
def tk_with_complete(tmp_path):
    made = []

    def make(complete_toml: str) -> Path:
        made.append(complete_toml)
        pack_dir = tmp_path / f"tkc{len(made)}"
        shutil.copytree(PACKS_DIR / "tk", pack_dir)
        (pack_dir / "complete.toml").write_text(complete_toml, encoding="utf-8")
        return pack_dir
    return make


def test_complete_table_makes_a_partly_located_country_undecided(tk_with_complete):
    # The shipped pack locates Krakow only; with [complete] not naming Poland, 16.1.1 cannot conquer it
    # when Krakow is held -- and (issue 22) a free Krakow already decides "not all Cities occupied".
    pack = load_pack(tk_with_complete('[complete]\ncity_hexes = ["Norway"]\n'))
    held = [{"id": "GE-1", "nationality": "Germany", "kind": "ground", "steps": 2, "location": "e3501"}]
    result = plan(position({"Poland": {"faction": "Western", "status": "active"}}, held), pack)
    entry = event(result, "16.1.1")
    assert entry.status == UNDECIDED
    assert "locates only some City hexes of Poland" in entry.missing[0].text
    result = plan(position({"Poland": {"faction": "Western", "status": "active"}}), pack)
    assert event(result, "16.1.1").status == NOT_DUE and not event(result, "16.1.1").missing
    pack_all = load_pack(tk_with_complete('[complete]\ncity_hexes = "all"\narea_hexes = "all"\n'))
    assert event(plan(position({"Poland": {"faction": "Western", "status": "active"}}), pack_all),
                 "16.1.1").status == NOT_DUE


def test_complete_table_refuses_unknown_fact_or_country(tk_with_complete):
    with pytest.raises(InputError, match="unknown fact 'cities'"):
        load_pack(tk_with_complete('[complete]\ncities = "all"\n'))
    with pytest.raises(InputError, match="names unknown Atlantis"):
        load_pack(tk_with_complete('[complete]\ncity_hexes = ["Atlantis"]\n'))


def test_coverage_counts_the_16_1_1_city_hexes_per_minor_country(tk_with_complete):
    pack = load_pack("tk")
    line = next(c for c in coverage(pack) if c.rule == "16.1.1" and c.fact == "city_hexes")
    minors = sorted(n for n, c in pack.countries.items() if c.kind == "minor")
    assert sorted(line.have + line.lack) == minors
    assert line.have == ()  # the rules text locates no country's Cities in full
    completed = load_pack(tk_with_complete('[complete]\ncity_hexes = ["Poland"]\n'))
    line = next(c for c in coverage(completed) if c.rule == "16.1.1" and c.fact == "city_hexes")
    assert "Poland" in line.have and "Belgium-Holland" in line.lack


def test_plan_command_exits_3_when_only_undecided(tmp_path):
    source = tmp_path / "p.json"
    source.write_text(json.dumps({
        "pack": "tk", "turn": {"date": "1939-09", "phasing": "Axis"},
        "countries": {"Belgium-Holland": {"faction": "Western", "status": "active"}}, "counters": [],
    }), encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "bridge", "plan", str(source)],
                         capture_output=True, text=True, cwd=PROJECT)
    assert run.returncode == 3, run.stderr
    assert "UNDECIDED" in run.stdout
