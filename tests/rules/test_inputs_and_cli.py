"""Bad positions, packs and answers give one clear InputError line; the `adjutant plan` command;
the worked examples under examples/tk/ run as documented (docs/plan-format.md)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bridge.cli.main import main
from rules.engine import plan
from rules.packs import load_pack
from rules.state import GameState
from tests.rules.builder import MINI_PACK_DIR, Position, mini_pack
from vassal_parser.errors import InputError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "tk"
TK_PACK = Path(__file__).resolve().parents[2] / "rules" / "packs" / "tk"


def error_line(position: Position) -> str:
    with pytest.raises(InputError) as info:
        position.plan()
    line = str(info.value)
    assert "\n" not in line and line.startswith("test-position.json: ")
    return line


def test_unknown_hex_or_box():
    assert "unknown hex or box 'x9999'" in error_line(Position().unit("u", "Germany", "x9999"))
    assert "unknown box 'force_pool:Japan'" in error_line(Position().unit("u", "Germany", "force_pool:Japan"))


def test_counter_in_two_places():
    position = Position().unit("u", "Germany", "g1").unit("u", "Germany", "g2")
    assert "listed twice" in error_line(position)


def test_missing_or_unknown_country_and_card():
    assert "unknown country 'Atlantis'" in error_line(Position().country("Atlantis", "Axis"))
    assert "unknown nationality 'Atlantis'" in error_line(Position().unit("u", "Atlantis", "g1"))
    assert "card '99z'" in error_line(Position().card("Axis", "99z"))


def test_bad_shapes_are_one_line():
    for data, message in [
        ([], "must be a JSON object"),
        ({"turn": {"phasing": "Japan"}}, "turn.phasing"),
        ({"counters": [{"id": "a", "location": "g1"}]}, "has no 'kind'"),
        ({"counters": [{"id": "a", "kind": "tank", "location": "g1"}]}, "unknown kind 'tank'"),
        ({"countries": {"Germany": {"faction": "Axis", "colour": "red"}}}, "unknown field(s) colour"),
        (
            {"counters": [{"id": "a", "kind": "ground", "location": "g1", "steps": "2"}]},
            "'steps' must be a whole",
        ),
        (
            {"counters": [{"id": "a", "kind": "ground", "location": "g1", "exp": 1}]},
            "'exp' must be true/false",
        ),
        ({"counters": [{"id": 7, "kind": "ground", "location": "g1"}]}, "text 'id'"),
        ({"counters": [{"id": "a", "kind": "ground", "location": "g1", "tags": [1]}]}, "list of text"),
        ({"turn": {"fired": "16.2.1"}}, "'fired' must be a list"),
        ({"turn": {"current_cards": {"Axis": ["22a"]}}}, "current_cards must map"),
        ({"actions": [{"type": "reduce_truce", "markers": ["Russia"]}]}, "'markers' must be a list"),
        ({"actions": [{"type": "declare_war", "target": ["Norway"]}]}, "'target' must be text"),
    ]:
        with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
            GameState.from_json(data, source="p.json")


def test_illegal_answer_names_the_answers_file():
    position = (
        Position("Axis")
        .country("Germany", "Axis")
        .country("Italy", "Axis")
        .unit("g", "Germany", "i1", steps=3)
    )
    with pytest.raises(InputError, match=r"^test-answers.json: answer 'surrender'"):
        position.plan({"16.1.2:remedy:Italy": "surrender"})


def test_pack_by_name_by_directory_and_unknown_tables_kept(tmp_path):
    assert load_pack("tk").name == "tk"
    pack_dir = tmp_path / "mypack"
    shutil.copytree(MINI_PACK_DIR, pack_dir)
    (pack_dir / "vassal.toml").write_text('[vassal]\nmap = "Main Map"\n', encoding="utf-8")
    (pack_dir / "pack.toml").write_text(
        (pack_dir / "pack.toml").read_text(encoding="utf-8").replace('base = "tk"', f'base = "{TK_PACK}"'),
        encoding="utf-8",
    )
    pack = load_pack(pack_dir)
    assert pack.extra == {"vassal": {"map": "Main Map"}}
    assert pack.order == mini_pack().order


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('[hexes.z1]\ncountry = "Narnia"\n', "hex z1 names unknown country 'Narnia'"),
        ('[hexes.z1]\ncountry = "Germany"\nadjacent = ["nowhere"]\n', "adjacent to unknown hex"),
        ("[hexes.z1\n", "not valid TOML"),
        ('[hexes.g1]\ncountry = "Germany"\n', "redefines g1"),
        ('[hexes.z1]\ncountry = "Germany"\nmountain = true\n', "unknown field(s) mountain"),
    ],
)
def test_bad_pack_is_one_line_naming_the_file(tmp_path, content, message):
    pack_dir = tmp_path / "bad"
    shutil.copytree(MINI_PACK_DIR, pack_dir)
    (pack_dir / "pack.toml").write_text(
        (pack_dir / "pack.toml").read_text(encoding="utf-8").replace('base = "tk"', f'base = "{TK_PACK}"'),
        encoding="utf-8",
    )
    (pack_dir / "zz.toml").write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_pack(pack_dir)
    assert message in str(info.value) and "\n" not in str(info.value)
    assert str(pack_dir) in str(info.value)


def test_unknown_pack_name():
    with pytest.raises(InputError, match="no such pack"):
        load_pack("no-such-pack")


def test_plan_does_not_change_the_callers_position():
    state = (
        Position().country("Germany", "Axis").country("Poland", "Western").unit("g", "Germany", "p1").state()
    )
    before = json.dumps(state.to_json(), sort_keys=True)
    plan(state, mini_pack())
    assert json.dumps(state.to_json(), sort_keys=True) == before


# ---- the command line and the worked examples -------------------------------------------------
def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["plan", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_quiet_turn_exits_0(capsys):
    status, out, _ = run(capsys, str(EXAMPLES / "quiet-turn.position.json"))
    assert status == 0 and "Nothing is due." in out


def test_cli_ostland_example_exits_1_with_steps(capsys):
    """16.2.2 Ostland Accord Step 3 through the CLI: a due event exits 1 and lists its moves."""
    status, out, _ = run(
        capsys,
        str(EXAMPLES / "ostland-accord.position.json"),
        "--answers",
        str(EXAMPLES / "ostland-accord.answers.json"),
    )
    assert status == 1
    assert "16.2.2 Ostland Accord [card:27b]: DUE" in out
    assert "(16.2.2 Step 3) move German Ukraine Region" in out


def test_cli_json_form_is_the_documented_shape(capsys):
    status, out, _ = run(
        capsys,
        str(EXAMPLES / "reduced-us-impact.position.json"),
        "--answers",
        str(EXAMPLES / "reduced-us-impact.answers.json"),
        "--json",
    )
    data = json.loads(out)
    assert status == 1 and data["format"] == "adjutant-plan" and data["version"] == 1
    by_rule = {e["rule"]: e for e in data["events"]}
    assert by_rule["16.3.5"]["status"] == "fired"
    assert by_rule["16.3.5"]["steps"][0]["to"] == "strategic_warfare"
    assert set(by_rule["16.3.5"]) >= {
        "rule",
        "title",
        "source",
        "status",
        "why",
        "steps",
        "choices",
        "waiting_for",
    }


def test_cli_war_peace_violations_exit_1(capsys):
    """AE 6.1.1 Declare War / 6.1.2 Reduce Truce Markers violations are reported and exit 1."""
    status, out, _ = run(capsys, str(EXAMPLES / "war-peace.position.json"))
    assert status == 1 and "! 6.1.1" in out and "! 6.1.2" in out


def test_cli_waiting_without_answers_lists_pending_choice(capsys):
    status, out, _ = run(capsys, str(EXAMPLES / "reduced-us-impact.position.json"), "--json")
    assert status == 1 and json.loads(out)["pending_choices"] == ["16.3.7:marker"]


@pytest.mark.parametrize(
    ("content", "message"),
    [("{not json", "not valid JSON"), ("[1, 2]", "must be a JSON object"), (None, "position not found")],
)
def test_cli_bad_input_exits_2_with_one_line(capsys, tmp_path, content, message):
    path = tmp_path / "pos.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    status, out, err = run(capsys, str(path))
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and message in err and err.startswith("adjutant: ")


def test_cli_bad_answers_file_exits_2(capsys, tmp_path):
    answers = tmp_path / "a.json"
    answers.write_text('["x"]', encoding="utf-8")
    status, _, err = run(capsys, str(EXAMPLES / "quiet-turn.position.json"), "--answers", str(answers))
    assert status == 2 and "answers must be a JSON object" in err


def test_cli_answer_to_no_event_of_the_pack_is_refused_in_one_line(capsys, tmp_path):
    """6.2 choice ids are "<rule>:<key>": an id whose rule is no event of the pack is a typo, refused (exit 2)
    rather than silently ignored; a real event's id that this position does not ask is accepted."""
    typo = tmp_path / "answers.json"
    typo.write_text(json.dumps({"16.9.9:country": "France"}), encoding="utf-8")
    status, out, err = run(capsys, str(EXAMPLES / "quiet-turn.position.json"), "--answers", str(typo))
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "16.9.9:country" in err and "no event 16.9.9" in err
    unasked = tmp_path / "unasked.json"
    unasked.write_text(json.dumps({"16.2.1:country": "France"}), encoding="utf-8")
    status, _, _ = run(capsys, str(EXAMPLES / "quiet-turn.position.json"), "--answers", str(unasked))
    assert status == 0
