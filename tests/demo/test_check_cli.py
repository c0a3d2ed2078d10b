"""`adjutant check`: exit 0 nothing due, 1 due, 2 bad input (one line, never a traceback); logs by step."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK
from bridge.cli.main import main
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


def test_answer_to_a_choice_no_event_of_the_pack_asks_exits_2_in_one_line(tmp_path, capsys) -> None:
    """6.2 choices are answered by id ("<rule>:<key>"); an id naming no event of the pack is a typo that
    would otherwise be ignored silently, leaving the player's answer unused."""
    answers = tmp_path / "a.json"
    answers.write_text(json.dumps({"16.1.2:remedy:Hungary": "intern", "16.9.9:country": "France"}))
    status, out, err = check(capsys, save_path(STORY[3]), "--answers", answers)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and str(answers) in err and "'16.9.9:country'" in err


def test_bad_choice_value_exits_2_in_one_line(tmp_path, capsys) -> None:
    """16.1.2: the remedy answer must be one of the legal options."""
    answers = tmp_path / "a.json"
    answers.write_text(json.dumps({"16.1.2:remedy:Hungary": "bogus"}))
    status, out, err = check(capsys, save_path(STORY[3]), "--answers", answers)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "not a legal option (intern, remove)" in err


def test_answer_this_position_does_not_ask_for_is_a_warning(tmp_path, capsys) -> None:
    """An answers file is kept as play goes on (choice ids are stable), so an answer to a real event's
    choice that this position does not ask (16.2.1 in the opening) is reported, not refused."""
    answers = tmp_path / "a.json"
    answers.write_text(json.dumps({"16.2.1:country": "France"}))
    status, out, _ = check(capsys, save_path(STORY[0]), "--answers", answers)
    assert status == 0
    assert "warning: answer to 16.2.1:country was not used: this plan does not ask that choice" in out


def test_extension_in_the_save_the_pack_does_not_map_is_a_warning_with_its_version(tmp_path, capsys) -> None:
    """The header states the module and every extension (with its version) the save was made with."""
    from vassal_parser.commands import decode_stream, encode_stream, leaf_command
    from vassal_parser.writer import write_save

    tree = decode_stream(scene_streams(WORLD())[0][1])
    tree.children.insert(1, leaf_command("EXT\tDemo Extra\t1.2"))
    path = write_save(tmp_path / "ext.vsav", encode_stream(tree), module_metadata=moduledata_xml(WORLD()),
                      module_version="1.0", key=7)
    status, out, _ = check(capsys, path)
    lines = out.splitlines()
    assert status == 0
    assert lines[0].endswith("module Adjutant Demo 1.0, extensions: Demo Extra 1.2")
    assert "warning: extension 'Demo Extra' is in use but the pack does not map it" in lines


def test_unmapped_place_count_reads_in_the_singular(tmp_path, capsys) -> None:
    """A counter moved into the Boxes window outside every zone stands nowhere the pack knows."""
    world = WORLD()
    stream = scene_streams(world)[0][1]
    x, y = world.hex_point("w3928")  # GE 1 Pz, the first piece, starts in Berlin
    move = move_piece_command(str(FIRST_PIECE_ID), world.boxes_window, 5, 5, MAIN_MAP, x, y)
    path = tmp_path / "astray.vlog"
    write_log(path, ESC.join([stream, "LOG\t" + move.text]), module_metadata=moduledata_xml(world), key=7)
    status, out, _ = check(capsys, path)
    assert status == 0 and "unmapped places (1 counter left out): Boxes: offboard x1" in out.splitlines()


def test_text_tells_a_pbem_player_what_to_write_in_the_answers_file(tmp_path, capsys) -> None:
    """16.1.2: the text names the choice id, who decides, and the option values an answers file takes
    (the labels alone do not say that "intern" is what to write); answering it gives no hint."""
    status, out, _ = check(capsys, save_path(STORY[3]))
    assert status == 1
    lines = out.splitlines()
    hint = lines.index("to answer, pass --answer ID=VALUE (repeatable), or put these choice ids in a "
                       "JSON object and pass it with --answers FILE.json:")
    assert lines[hint + 1] == '  "16.1.2:remedy:Hungary" (Axis): "intern" or "remove"'
    answers = tmp_path / "a.json"
    answers.write_text(json.dumps({"16.1.2:remedy:Hungary": "intern"}))
    _status, out, _ = check(capsys, save_path(STORY[3]), "--answers", answers)
    assert "to answer, " not in out


def _opening_save(tmp_path, name: str, module_version: str, extension: str | None = None) -> Path:
    from vassal_parser.commands import decode_stream, encode_stream, leaf_command
    from vassal_parser.writer import write_save

    tree = decode_stream(scene_streams(WORLD())[0][1])
    if extension:
        tree.children.insert(1, leaf_command(extension))
    return write_save(tmp_path / name, encode_stream(tree), module_metadata=moduledata_xml(WORLD()),
                      module_version=module_version, key=7)


def test_save_from_another_version_of_the_module_warns(tmp_path, capsys) -> None:
    """VASSAL warns when a save was written by another version of the module; so do we, even when the
    version is inside the pack's range (the pieces read may not be the module's)."""
    status, out, _ = check(capsys, _opening_save(tmp_path, "v15.vsav", "1.5"))
    assert status == 0
    assert ("warning: the file was saved with module version 1.5, --module adjutant-demo.vmod is version 1.0"
            in out.splitlines())


def test_extension_in_the_save_not_loaded_with_extension_warns(tmp_path, capsys) -> None:
    """An extension's PieceSlots (and prototypes) are only known when it is passed with --extension."""
    status, out, _ = check(capsys, _opening_save(tmp_path, "ext.vsav", "1.0", "EXT\tDemo Extra\t1.2"))
    assert status == 0
    assert "warning: the file uses extension 'Demo Extra', not loaded: pass it with --extension" in out


def test_counters_in_a_zone_the_pack_does_not_map_are_reported_not_placed(tmp_path, capsys) -> None:
    """16.5.4 scene: five counters wait in the Delay Box; a pack without that box must leave them out
    of the position and say where they stand, with the count."""
    pack = tmp_path / "pack"
    pack.mkdir()
    for source in Path(DEMO_PACK).glob("*.toml"):
        (pack / source.name).write_text(source.read_text().replace('"Delay Box" = "delay"\n', ""))
    status = main(["check", str(save_path(STORY[-1])), "--module", str(DEMO_MODULE), "--pack", str(pack),
                   "--format", "json"])
    vassal = json.loads(capsys.readouterr().out)["vassal"]
    assert status == 1 and vassal["unmapped_places"] == {"Boxes: Delay Box": 5}  # 16.5.4 still due
    assert main(["check", str(save_path(STORY[-1])), "--module", str(DEMO_MODULE), "--pack", str(pack)]) == 1
    assert "unmapped places (5 counters left out): Boxes: Delay Box x5" in capsys.readouterr().out
