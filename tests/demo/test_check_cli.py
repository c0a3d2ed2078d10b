"""`adjutant check`: exit 0 nothing due, 1 due, 2 bad input (one line, never a traceback); logs by step."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bridge.cli import main
from bridge.commands.demo import DEMO_MODULE, DEMO_PACK
from module_patches.demo_module import moduledata_xml
from module_patches.demo_story import FIRST_PIECE_ID, load_story, save_path, scene_streams
from module_patches.demo_world import MAIN_MAP, WORLD
from vassal_parser.commands import ESC, move_piece_command
from vassal_parser.writer import write_log

STORY = load_story()


def check(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["check", *map(str, args), "--module", str(DEMO_MODULE), "--pack", str(DEMO_PACK)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_nothing_due_exits_0_and_states_module_and_extensions(capsys) -> None:
    status, out, _ = check(capsys, save_path(STORY[0]))
    assert status == 0
    assert "module Adjutant Demo 1.0, no extensions" in out.splitlines()[0]
    assert "Nothing is due." in out


def test_16_1_1_due_exits_1_and_cites_the_rule(capsys) -> None:
    status, out, _ = check(capsys, save_path(STORY[1]))
    assert status == 1
    assert "16.1.1 Allied Minor Country Conquest [permanent]: DUE" in out
    assert "(16.1.1 Step 4) move GE Polish Corridor" in out


def test_json_format_carries_the_plan_and_the_vassal_report(capsys) -> None:
    status, out, _ = check(capsys, save_path(STORY[1]), "--format", "json")
    data = json.loads(out)
    assert status == 1 and data["due"] is True and data["format"] == "adjutant-plan"
    assert data["vassal"]["module"]["name"] == "Adjutant Demo"
    assert data["vassal"]["unmapped_pieces"] == {} and data["vassal"]["kind"] == "save"


def test_answers_file_is_used(tmp_path, capsys) -> None:
    """16.2.1: with the Axis answer the event is carried out instead of waiting."""
    answers = tmp_path / "a.json"
    answers.write_text(json.dumps({"16.2.1:country": "France", "16.2.1:influence": "none"}))
    status, out, _ = check(capsys, save_path(STORY[4]), "--answers", answers, "--format", "json")
    event = next(e for e in json.loads(out)["events"] if e["rule"] == "16.2.1")
    assert status == 1 and event["status"] == "fired"


@pytest.mark.parametrize("content, message", [("{", "not valid JSON"), ("[1]", "must be a JSON object")])
def test_bad_answers_file_exits_2_in_one_line(tmp_path, capsys, content, message) -> None:
    answers = tmp_path / "a.json"
    answers.write_text(content)
    status, out, err = check(capsys, save_path(STORY[0]), "--answers", answers)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and message in err and str(answers) in err


def test_save_from_another_module_is_refused(corpus_dir, capsys) -> None:
    folder = corpus_dir / "jzedwards__vassal-hex-n-counters-template" / "ragnarok" / "vassal"
    other = folder / "ragnarok-start.vsav"
    status, out, err = check(capsys, other)
    assert status == 2 and out == ""
    assert err == (f"adjutant: {other}: was saved with module 'Ragnarok (SPI) 1981', not 'Adjutant Demo' "
                   "(adjutant-demo.vmod); pass that module with --module\n")


def test_not_a_save_and_missing_file_exit_2(tmp_path, capsys) -> None:
    status, _, err = check(capsys, DEMO_MODULE)
    assert status == 2 and "not a VASSAL saved game or log" in err
    status, _, err = check(capsys, tmp_path / "nope.vsav")
    assert status == 2 and err.count("\n") == 1


def test_step_on_a_save_is_refused(capsys) -> None:
    status, _, err = check(capsys, save_path(STORY[0]), "--step", "1")
    assert status == 2 and "--step applies to logs" in err


@pytest.fixture
def demo_log(tmp_path) -> Path:
    """A log that starts at scene 1 and records two moves: GE 1 Pz to Warsaw, GE 2 Pz to Krakow."""
    world = WORLD()
    stream = scene_streams(world)[0][1]
    steps = []
    for index, target in enumerate(("e3804", "e3501")):  # GE-1, GE-2 are the first two pieces
        x, y = world.hex_point(target)
        ox, oy = world.hex_point("w3928")
        move = move_piece_command(str(FIRST_PIECE_ID + index), MAIN_MAP, x, y, MAIN_MAP, ox, oy)
        steps.append("LOG\t" + move.text)
    path = tmp_path / "poland.vlog"
    write_log(path, ESC.join([stream, *steps]), module_metadata=moduledata_xml(world), key=7)
    return path


def test_log_is_planned_at_the_end_by_default_and_at_any_step(demo_log, capsys) -> None:
    """16.1.1 becomes due only after the second move puts German units in both Polish cities."""
    status, out, _ = check(capsys, demo_log)
    assert status == 1 and "log position after step 2 of 2" in out
    assert "16.1.1 Allied Minor Country Conquest [permanent]: DUE" in out
    for step, expected in ((0, 0), (1, 0), (2, 1)):
        status, out, _ = check(capsys, demo_log, "--step", step)
        assert status == expected, f"--step {step}"


def test_log_step_out_of_range_exits_2(demo_log, capsys) -> None:
    status, _, err = check(capsys, demo_log, "--step", "3")
    assert status == 2 and "out of range: this log has 2 replay steps" in err


def test_pack_for_another_module_warns(tmp_path, capsys) -> None:
    pack = tmp_path / "pack"
    pack.mkdir()
    for source in Path(DEMO_PACK).glob("*.toml"):
        text = source.read_text()
        (pack / source.name).write_text(text.replace('max_version = "1.99"', 'max_version = "0.9"'))
    status = main(["check", str(save_path(STORY[0])), "--module", str(DEMO_MODULE), "--pack", str(pack)])
    out = capsys.readouterr().out
    assert status == 0
    assert "warning: module version 1.0 is newer than the pack's maximum 0.9" in out


def test_plan_steps_gives_every_position_of_a_log_from_one_read(demo_log) -> None:
    """16.1.1: due only at the last of the log's three positions."""
    from bridge.pipeline import CheckPipeline

    pipeline = CheckPipeline(DEMO_MODULE, DEMO_PACK)
    plans = list(pipeline.plan_steps(demo_log))
    assert [step for step, _ in plans] == [0, 1, 2]
    assert [result.exit_status for _, result in plans] == [0, 0, 1]
    assert [result.plan["vassal"]["step"] for _, result in plans] == [0, 1, 2]
    assert plans[2][1].plan == pipeline.plan_file(demo_log).plan
