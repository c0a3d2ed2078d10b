"""Issue 41, A World at War: what the plan of the corpus A3R/AWAW 1939 save says next to its verdicts.

A fact is asked only where an answer can change a verdict (`russian_surrender_turn` after no surrender:
60.12, 60.21, 60.61 need it only after a rejection or a surrender); the header names the player turn in
rule 60's words and the whole date; no reading line without readings; the ICs Russia controls can be
stated by the players (60.11) where IC markers stand off the pack's map, and a count the markers
contradict is asked again, never used."""

from __future__ import annotations

import json
from pathlib import Path

from bridge.cli.main import main
from tests.awaw.vassal_situation import FOLDER, MODULE, SAVE

ALLIED_END = ["--fact", "player_turn=Allied", "--fact", "phase=end_of_player_turn",
              "--fact", "game_year=1939"]
COUNTS = ["--fact", "dp_level=0", "--fact", "atomic_attacks=0", "--fact", "cities_firestormed=0",
          "--fact", "oil_effects=0", "--fact", "unbuilt_factors=0",
          "--fact", "western_at_war_with_germany=Britain,France"]


def _check(corpus_dir: Path, capsys, *extra: str, fmt: str = "json"):  # type: ignore[no-untyped-def]
    code = main(["check", str(corpus_dir / FOLDER / SAVE), "--module", str(corpus_dir / FOLDER / MODULE),
                 "--pack", "awaw", "--format", fmt, *extra])
    out = capsys.readouterr().out
    return code, (json.loads(out) if fmt == "json" else out)


def _asked(plan: dict) -> set[str]:
    return {q["name"] for q in plan["game_facts"]["questions"]}


def _rows(plan: dict) -> dict[str, dict]:
    table = next(t for t in plan["tables"] if t["rule"] == "60.11")
    return {row["label"].split(" (")[0]: row for row in table["rows"]}


def test_no_surrender_turn_is_asked_without_a_surrender_60_12_60_21(corpus_dir: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    _code, plan = _check(corpus_dir, capsys, "--fact", "russian_surrender=none", *ALLIED_END)
    assert "russian_surrender_turn" not in _asked(plan)
    assert "russian_surrender_turn" in plan["game_facts"]["not_asked"]
    assert all(m["fact"] != "russian_surrender_turn" for e in plan["events"] for m in e.get("missing") or [])


def test_a_surrender_asks_its_turn_60_21(corpus_dir: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    _code, plan = _check(corpus_dir, capsys, "--fact", "russian_surrender=surrendered", *ALLIED_END)
    assert "russian_surrender_turn" in _asked(plan)
    event = next(e for e in plan["events"] if e["rule"] == "60.2")
    assert event["status"] == "undecided"
    assert "russian_surrender_turn" in {m["fact"] for m in event["missing"]}


def test_the_header_names_the_player_turn_and_the_whole_date(corpus_dir: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    _code, text = _check(corpus_dir, capsys, "--fact", "russian_surrender=none", *ALLIED_END, fmt="text")
    assert "Allied player turn, end of the player turn, Fall 1939 [pack awaw]" in text
    assert "faction phasing" not in text and "Soviet" not in text
    _code, plan = _check(corpus_dir, capsys, *ALLIED_END)
    assert plan["turn"] == "Fall 1939"
    assert plan["player_turn"] == "Allied player turn, end of the player turn"


def test_no_empty_reading_line_in_any_report(corpus_dir: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    for fmt in ("text", "markdown", "html"):
        _code, text = _check(corpus_dir, capsys, "--fact", "russian_surrender=none", *ALLIED_END, fmt=fmt)
        assert "reading :" not in text and "reading\\ :" not in text
        assert "(options: ; to switch: )" not in text
        # the reading the plan used is still said once, with the others and how to switch (60.1 erratum)
        assert "used as" in text and "other readings: allied" in text


def test_the_ic_count_is_a_game_fact_asked_once_60_11(corpus_dir: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    facts = ["--fact", "russian_surrender=none", *ALLIED_END, *COUNTS]
    _code, plan = _check(corpus_dir, capsys, *facts)
    assert "russian_ics" in _asked(plan)  # three IC markers stand where the sample map has no hex
    assert _rows(plan)["ICs controlled by Russia below 7"]["figure"] is None
    _code, plan = _check(corpus_dir, capsys, *facts, "--fact", "russian_ics=8")
    assert "russian_ics" not in _asked(plan)
    rows = _rows(plan)
    assert rows["ICs controlled by Russia below 7"]["figure"] == 0
    assert rows["ICs controlled by Russia above 7"]["figure"] == 1  # 8 ICs +1
    assert "as the players state it" in rows["ICs controlled by Russia above 7"]["detail"]
    event = next(e for e in plan["events"] if e["rule"] == "60.1")
    assert "russian_ics" not in {m["fact"] for m in event.get("missing") or []}


def test_an_ic_count_the_markers_contradict_is_asked_again_60_11(corpus_dir: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """Five located IC markers are Russian's and three stand off the map: more than eight cannot be."""
    _code, plan = _check(corpus_dir, capsys, "--fact", "russian_surrender=none", *ALLIED_END, *COUNTS,
                         "--fact", "russian_ics=9")
    assert _rows(plan)["ICs controlled by Russia above 7"]["figure"] is None
    event = next(e for e in plan["events"] if e["rule"] == "60.1")
    texts = [m["text"] for m in event["missing"] if m["fact"] == "russian_ics"]
    assert texts and "contradicts the IC markers" in texts[0]
