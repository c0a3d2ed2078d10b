"""The AWAW position (docs/position-format.md) and `adjutant plan` on the examples in examples/awaw/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bridge.cli.main import main
from rules.state import GameState
from tests.awaw.helpers import EXAMPLES, example
from vassal_parser.errors import InputError


def plan_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["plan", *args])
    return code, capsys.readouterr().out


def test_plan_shows_table_offer_and_waits_for_germany(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = plan_cli(capsys, str(EXAMPLES / "offer.position.json"))
    assert code == 1
    assert "[pack awaw: built-in]" in out
    assert "table: Russian Resistance Table (60.11)" in out
    assert "  -3  total (threshold: 0 or less)" in out
    assert "? [60.1:germany] Germany:" in out and "(UNANSWERED)" in out
    assert "erratum check_timing (60.1):" in out and "Used: as_written" in out


def test_plan_with_both_answers(capsys: pytest.CaptureFixture[str]) -> None:
    position = str(EXAMPLES / "offer.position.json")
    code, accepted = plan_cli(capsys, position, "--answers", str(EXAMPLES / "offer.accept.answers.json"))
    assert code == 1
    for cited in ("(60.21)", "(60.31)", "(60.42)", "(60.43)", "(60.32)", "(60.44)", "(60.33)", "(60.34)",
                  "(60.35)", "(60.45)", "(60.51)", "(60.52)", "(60.22)", "(60.61)", "(60.72)"):
        assert cited in accepted, cited
    code, rejected = plan_cli(capsys, position, "--answers", str(EXAMPLES / "offer.reject.answers.json"))
    assert code == 1 and "- (60.12) Germany rejects the offer (turn 20)" in rejected
    assert "(60.42)" not in rejected


def test_plan_json_has_tables_and_readings(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = plan_cli(capsys, str(EXAMPLES / "grant.position.json"), "--json")
    data = json.loads(out)
    assert code == 1
    titles = [t["title"] for t in data["tables"]]
    assert titles == ["Russian Resistance Table", "Russian BRP grant to Germany"]
    assert data["readings"] == []  # Russia has surrendered: the timing of 60.11/60.12 is not applied
    assert any(s["action"] == "grant" for e in data["events"] for s in e["steps"])


@pytest.mark.parametrize(("name", "status"), [("rejected", 0), ("pacific", 0), ("missing", 3), ("after", 1)])
def test_every_example_plans(capsys: pytest.CaptureFixture[str], name: str, status: int) -> None:
    code, _ = plan_cli(capsys, str(EXAMPLES / f"{name}.position.json"))
    assert code == status


def test_awaw_position_without_pack_key_picks_the_awaw_pack(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    data = example()
    del data["pack"]
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    code, out = plan_cli(capsys, str(path))
    assert code == 1 and "[pack awaw: built-in]" in out


def test_awaw_position_with_tk_pack_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["plan", str(EXAMPLES / "offer.position.json"), "--pack", "tk"])
    assert code == 2
    err = capsys.readouterr().err
    assert "needs an AWAW pack" in err and "Traceback" not in err


@pytest.mark.parametrize(("change", "message"), [
    ({"phase": "lunch"}, "awaw.phase must be one of"),
    ({"side": "Soviet"}, "awaw.side must be one of"),
    ({"powers": []}, "awaw.powers"),
    ({"game_turn": "20"}, "awaw.game_turn must be a whole number"),
    ({"russia": {"dp_level": 1.5}}, "awaw.russia.dp_level must be a whole number"),
    ({"russia": {"oil_effects": -1}}, "cannot be negative"),
    ({"russia": {"morale": 1}}, "unknown field"),
    ({"surrender": {"state": "offered"}}, "needs the game 'turn'"),
    ({"supply": {"O48": {"russian": "partial"}}}, "russian must be full or none"),
    ({"control_default": "everyone"}, "control_default"),
    ({"minors": {"Finland": {"relation": "friend"}}}, "relation must be one of"),
    ({"teatime": 1}, "unknown field"),
])
def test_bad_awaw_fields_are_one_line(change: dict, message: str) -> None:
    data = example()
    data["awaw"].update(change)
    with pytest.raises(InputError, match=message):
        GameState.from_json(data, "bad.json")


def test_contradicting_phasing_is_refused() -> None:
    data = example()
    data["turn"]["phasing"] = "Axis"
    with pytest.raises(InputError, match="contradicts awaw side/powers"):
        GameState.from_json(data, "bad.json")


def test_unknown_hex_in_control_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = example()
    data["awaw"]["control"]["ZZ99"] = "Russia"
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main(["plan", str(path)]) == 2
    assert "awaw.control names unknown hex(es) ZZ99" in capsys.readouterr().err


def test_position_round_trips_through_json() -> None:
    state = GameState.from_json(example(), "p.json")
    again = GameState.from_json(state.to_json(), "again.json")
    assert again.awaw == state.awaw
    assert state.turn.phasing == "Soviet"  # an Allied player turn with Russia


@pytest.mark.parametrize(("change", "message"), [
    ({"powers": ["Russsia"]}, "not a major power"),
    ({"powers": ["Germany"]}, "not on the Allied side"),
    ({"western_at_war_with_germany": ["Russia"]}, "not a Western Allied major power"),
    ({"minors": {"Atlantis": {"relation": "ally"}}}, "unknown country 'Atlantis'"),
])
def test_powers_and_minors_are_checked_against_the_pack(change: dict, message: str) -> None:
    from tests.awaw.helpers import run

    data = example()
    data["awaw"].update(change)
    with pytest.raises(InputError, match=message):
        run(data)
