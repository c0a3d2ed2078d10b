"""One count of a pack's map facts (issue 38 item 5): rules.facts.count_facts, used by `pack check` and the
editor alike -- each fact of each country or area once, however many events read it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK
from bridge.cli.main import main
from bridge.web.editor.model import EditorSession
from rules.facts import CoverageLine, FactCount, count_facts, coverage
from rules.packs import load_pack


def line(rule: str, fact: str, have: tuple[str, ...], lack: tuple[str, ...], trusted: tuple[str, ...] = (),
         none: tuple[str, ...] = ()) -> CoverageLine:
    return CoverageLine(rule, fact, fact, "country", have, lack, trusted, none)


def test_a_fact_read_by_several_events_is_counted_once() -> None:
    """16.1.1 and 16.2.1 both read the City hexes of Poland and Norway: two facts, not four."""
    lines = [line("16.1.1", "city_hexes", ("Norway",), ("Poland",)),
             line("16.2.1", "city_hexes", ("Norway",), ("Poland",)),
             line("16.2.1", "capital", ("Poland",), ())]
    counted = count_facts(lines)
    assert counted == FactCount(total=3, complete=2, none=0, trusted=0, missing=1)
    # The old `pack check` sum counted Poland's Cities twice.
    assert sum(len(x.lack) for x in lines) == 2 != counted.missing


def test_declared_none_and_trusted_are_counted_apart() -> None:
    lines = [line("16.1.1", "port_hexes", ("Poland", "Norway"), ("Spain",), none=("Poland",)),
             line("16.4.4", "strategic_hexes", ("Poland",), (), trusted=("Poland",)),
             line("16.4.5", "strategic_hexes", ("Poland",), (), trusted=("Poland",))]
    counted = count_facts(lines)
    assert counted == FactCount(total=4, complete=2, none=1, trusted=1, missing=1)
    assert counted.text() == ("2 of 4 map facts complete (1 declared none), 1 trusted, not confirmed, "
                              "1 missing")
    assert count_facts([x.to_json() for x in lines]) == counted  # the JSON form the editor adjusts


def test_missing_in_any_line_is_missing() -> None:
    """The editor moves a Capital the module lacks to missing in its JSON line: that wins."""
    moved = line("16.1.1", "capital", ("France",), ()).to_json()
    moved["have"], moved["missing"] = [], ["France"]
    counted = count_facts([line("16.2.1", "capital", ("France",), ()), moved])
    assert counted.missing == 1 and counted.complete == 0 and counted.total == 1


@pytest.mark.parametrize("pack", ["tk", "ds", str(DEMO_PACK)])
def test_pack_check_prints_the_count_its_json_gives(pack, capsys) -> None:
    main(["pack", "check", pack, "--json"])
    report = json.loads(capsys.readouterr().out)
    counted = count_facts(coverage(load_pack(pack)))
    assert report["facts"] == counted.to_json() and report["facts_missing"] == counted.missing
    main(["pack", "check", pack])
    assert f"map facts the events need (each counted once): {counted.text()}" in capsys.readouterr().out


def scaffolded(tmp_path: Path, module: Path, capsys) -> Path:
    pack = tmp_path / "pack"
    assert main(["pack", "scaffold", str(module), "--base", "tk", "-o", str(pack)]) == 0
    capsys.readouterr()
    return pack


def check_json(pack: Path, module: Path, capsys) -> dict:
    main(["pack", "check", str(pack), "--module", str(module), "--json"])
    return json.loads(capsys.readouterr().out)


def test_the_editor_and_pack_check_count_the_same_facts_on_the_demo(tmp_path, capsys) -> None:
    pack = scaffolded(tmp_path, DEMO_MODULE, capsys)
    editor = EditorSession(pack, DEMO_MODULE).edit_state()["facts"]
    report = check_json(pack, DEMO_MODULE, capsys)
    assert editor == {**report["facts"], "text": FactCount(**report["facts"]).text()}
    main(["pack", "check", str(pack)])  # without the module too: every tk Capital is a demo hex
    assert editor["text"] in capsys.readouterr().out


def test_a_capital_the_module_lacks_is_missing_in_both(tmp_path, corpus_dir, capsys) -> None:
    """tk's France Capital w3516 is no hex of another game's map: the editor counts it missing, and so
    does `pack check --module` (without the module it cannot know, and counts it located)."""
    module = corpus_dir / "uckelman__tld-mod" / "buildFile"
    pack = scaffolded(tmp_path, module, capsys)
    editor = EditorSession(pack, module).edit_state()["facts"]
    report = check_json(pack, module, capsys)
    assert {k: v for k, v in editor.items() if k != "text"} == report["facts"]
    capital = next(x for x in report["coverage"] if x["fact"] == "capital")
    assert "France" in capital["missing"] and "w3516" in capital["notes"]["France"]
    main(["pack", "check", str(pack), "--json"])
    alone = json.loads(capsys.readouterr().out)["facts"]
    assert alone["missing"] < report["facts"]["missing"]
