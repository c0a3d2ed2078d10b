"""Rule 60 on the real A3R/AWAW VASSAL game (issue 25): the corpus 1939 save gives a plan, a surrender
situation written by Adjutant's own writer gives the offer (60.11), Germany's choice (60.21) and, after
acceptance, the moves written back as a continuation log that `adjutant pieces` reads back (60.33); the
game facts no save carries are asked once (bridge/mapping/game_facts.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bridge.cli.main import main
from bridge.mapping.game_facts import GivenFact, apply_facts, fact_table
from bridge.pipeline import CheckPipeline
from rules.packs import load_pack
from tests.awaw.vassal_situation import FOLDER, MODULE, SAVE, surrender_save
from vassal_parser.errors import InputError

TURN_FACTS = ["--fact", "player_turn=Axis", "--fact", "phase=end_of_player_turn"]
SURRENDER_FACTS = {
    "player_turn": "Russia", "phase": "end_of_player_turn", "game_year": 1942, "dp_level": -1,
    "atomic_attacks": 0, "cities_firestormed": 0, "oil_effects": 0, "unbuilt_factors": 0,
    "western_at_war_with_germany": ["Britain", "France"], "japan_at_war_with_russia": "no",
    "brps": 20, "brp_base": 100, "russian_surrender": "none",
}


def _check(corpus_dir: Path, save: Path, *extra: str, capsys) -> tuple[int, dict]:  # type: ignore[no-untyped-def]
    code = main(["check", str(save), "--module", str(corpus_dir / FOLDER / MODULE), "--pack", "awaw",
                 "--json", *extra])
    out = capsys.readouterr()
    assert "needs its 'awaw' object" not in out.out + out.err
    return code, json.loads(out.out)


def _event(plan: dict, rule: str) -> dict:
    return next(e for e in plan["events"] if e["rule"] == rule)


def test_corpus_1939_save_gives_a_plan_60_1_not_due_in_the_axis_turn(corpus_dir: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """60.11: the table is consulted at the end of an Allied player turn; the 1939 template is the Axis
    player turn of Fall 1939 (Season marker on the turn track's Fall box, player turn given as a fact)."""
    code, plan = _check(corpus_dir, corpus_dir / FOLDER / SAVE, *TURN_FACTS, capsys=capsys)
    assert code == 3  # a plan; undecided as a whole: the pack's sample map locates only part of the save
    assert plan["game_facts"]["turn"] == "Fall"  # read from the Season marker's box (the track)
    assert plan["turn"] == "Fall (year not given)"  # the whole date, once game_year is given (issue 41)
    rule = _event(plan, "60.1")
    assert rule["status"] == "not_due"
    assert any("only at the end of an Allied player turn" in w for w in rule["why"])
    given = {f["name"]: f for f in plan["game_facts"]["given"]}
    assert given["player_turn"]["by"] == "command line (--fact)"
    # ICs: six RUS Industrial Center markers stand on hexes of the pack, three where it has none
    awaw = plan["resulting_position"]["awaw"]
    assert sorted(awaw["unlocated_ics"]) == ["D44", "O39", "U48"]
    assert awaw["ic_values"]["H47"] == 10


def test_without_the_player_turn_60_1_is_undecided_naming_the_facts(corpus_dir: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    code, plan = _check(corpus_dir, corpus_dir / FOLDER / SAVE, capsys=capsys)
    assert code == 3
    rule = _event(plan, "60.1")
    assert rule["status"] == "undecided"
    # Whose turn is not known, and an Allied turn's end would consult the table: every fact that completion
    # needs is named at once (issue 41), the IC count among them (three IC markers stand off the sample map)
    assert {m["fact"] for m in rule["missing"]} == {
        "player_turn", "phase", "russian_surrender", "game_year", "dp_level", "atomic_attacks",
        "cities_firestormed", "oil_effects", "unbuilt_factors", "russian_ics", "western_at_war_with_germany"}
    questions = {q["name"]: q for q in plan["game_facts"]["questions"]}
    assert questions["dp_level"]["type"] == "int" and questions["dp_level"]["rules"] == ["60.11"]
    assert questions["player_turn"]["values"] == ["Axis", "Allied", "Western Allies", "Russia"]
    assert not plan["game_facts"]["given"]


@pytest.fixture
def surrender(corpus_dir: Path, tmp_path: Path) -> Path:
    return surrender_save(corpus_dir, tmp_path / "surrender.vsav")


def test_surrender_situation_gives_the_offer_and_germanys_choice_60_11(corpus_dir: Path, surrender: Path,
                                                                       tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    answers = tmp_path / "facts.json"
    answers.write_text(json.dumps({"facts": SURRENDER_FACTS}))
    code, plan = _check(corpus_dir, surrender, "--answers", str(answers), capsys=capsys)
    assert code == 1
    table = plan["tables"][0]
    assert table["rule"] == "60.11" and table["total"] == 0  # DP -1, ICs 5 (-2), Britain+France +2, France +1
    rows = {r["label"].split(" (")[0]: r["figure"] for r in table["rows"]}
    assert rows["ICs controlled by Russia below 7"] == -2  # four ICs taken (their German side)
    rule = _event(plan, "60.1")
    assert rule["status"] == "waiting"
    choice = rule["choices"][0]
    assert choice["id"] == "60.1:germany" and choice["decider"] == "Germany"
    assert [o["value"] for o in choice["options"]] == ["accept", "reject"]
    assert {f["by"] for f in plan["game_facts"]["given"]} == {f"answers file {answers}"}


def test_the_surrender_state_is_a_fact_the_russian_turn_end_needs(corpus_dir: Path, surrender: Path,
                                                                  tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """No piece shows whether Russia surrendered: at the end of a Russian player turn 60.1 is undecided
    naming `russian_surrender` (never "not due"), and 60.2 too; in the Axis turn 60.1 is not due anyway."""
    facts = {k: v for k, v in SURRENDER_FACTS.items() if k != "russian_surrender"}
    answers = tmp_path / "facts.json"
    answers.write_text(json.dumps({"facts": facts}))
    code, plan = _check(corpus_dir, surrender, "--answers", str(answers), capsys=capsys)
    assert code == 3
    for rule in ("60.1", "60.2"):
        event = _event(plan, rule)
        assert event["status"] == "undecided" and "russian_surrender" in {m["fact"] for m in event["missing"]}
    assert _event(plan, "60.8")["status"] == "not_due"  # no action to validate, whatever the state
    answers.write_text(json.dumps({"facts": {**facts, "player_turn": "Axis"}}))
    _code, plan = _check(corpus_dir, surrender, "--answers", str(answers), capsys=capsys)
    assert _event(plan, "60.1")["status"] == "not_due"


def test_accepted_surrender_is_written_back_and_read_back_60_21_60_33(corpus_dir: Path, surrender: Path,
                                                                      tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"60.1:germany": "accept", "facts": SURRENDER_FACTS}))
    code, plan = _check(corpus_dir, surrender, "--answers", str(answers), capsys=capsys)
    assert code == 1 and _event(plan, "60.2")["status"] == "fired"
    # the surrender state is a fact no save carries: the plan says what to give for the next save
    turn = plan["resulting_position"]["awaw"]["game_turn"]
    after = {(a["name"], a["value"]) for a in plan["game_facts"]["after_plan"]}
    assert after >= {("russian_surrender", "surrendered"), ("russian_surrender_turn", turn)}
    moves = [s for s in _event(plan, "60.2")["steps"] if s["action"] == "move"]
    assert moves and all(s["rule"] == "60.33" for s in moves)
    out = tmp_path / "next.vlog"
    module = str(corpus_dir / FOLDER / MODULE)
    assert main(["apply", str(surrender), "--module", module, "--pack", "awaw", "--answers", str(answers),
                 "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["pieces", str(out), "--module", module]) == 0
    listing = capsys.readouterr().out
    pipeline = CheckPipeline(module, "awaw", remember=False)
    pieces, _info = pipeline.pieces_of(out)
    mapped = pipeline.mapping.map_pieces(pieces, pipeline.pack)
    where = {c["id"]: c["location"] for c in mapped.position["counters"]}
    for step in moves:
        assert where[step["counter"]] == step["to"]
        assert f"{step['counter']}\t" in listing and step["to"] in listing


def test_a_fact_given_at_another_game_turn_is_asked_again() -> None:
    """`asked_again = "game_turn"`: the DP level given in Summer is a question again in Fall."""
    pack = load_pack("awaw")
    table = fact_table(pack)
    position = {"awaw": {"date": {"season": "Fall"}}}
    summer = {"dp_level": GivenFact(3, "control view", "Summer")}
    section = apply_facts(table, summer, position, "<answers>")
    again = next(q for q in section["questions"] if q["name"] == "dp_level")
    assert "given for Summer" in again["again"] and "dp_level" not in position["awaw"].get("russia", {})
    fall = {"dp_level": GivenFact(3, "control view", "Fall")}
    section = apply_facts(table, fall, position, "<answers>")
    assert position["awaw"]["russia"]["dp_level"] == 3
    assert [g["name"] for g in section["given"]] == ["dp_level"]


def test_a_bad_fact_is_one_line_naming_it_and_its_legal_values() -> None:
    table = fact_table(load_pack("awaw"))
    with pytest.raises(InputError, match="player_turn: 'Soviet' is not one of Axis, Allied"):
        apply_facts(table, {"player_turn": GivenFact("Soviet", "cli")}, {}, "--fact")
    with pytest.raises(InputError, match="no game fact dp in this pack"):
        apply_facts(table, {"dp": GivenFact(1, "cli")}, {}, "--fact")
    with pytest.raises(InputError, match=r"atomic_attacks: -1 is outside 0\.\."):
        apply_facts(table, {"atomic_attacks": GivenFact("-1", "cli")}, {}, "--fact")


def test_pack_check_says_per_country_which_module_hexes_the_pack_locates(corpus_dir: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """The 265-hex sample stays what it is: `pack check` counts the module's hexes it locates (257 of the
    A3R European Front's), per country, the facts each lacks, the game facts asked, the unverified tracks."""
    module = str(corpus_dir / FOLDER / MODULE)
    assert main(["pack", "check", "awaw", "--module", module, "--json"]) == 1
    report = json.loads(capsys.readouterr().out)["countries"]
    assert report["located"] == 257 and report["module_hexes"] > 1000
    russia = report["countries"]["Russia"]
    assert russia["hexes_located"] > 100 and not russia["missing"]
    assert "no hex of the module located" in report["countries"]["Belgium"]["missing"]
    assert any("Capital" in m for m in report["countries"]["Belgium"]["missing"])
    assert "dp_level" in {f["name"] for f in report["game_facts"]}
    assert {t["name"]: t["verified"] for t in report["tracks"]}["Turn Record Track"] is False
    assert main(["pack", "check", "awaw", "--module", module]) == 1
    text = capsys.readouterr().out
    assert "module hexes the pack locates: 257 of" in text and "  Russia: " in text
