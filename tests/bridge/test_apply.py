"""`adjutant apply`: the plan written back into VASSAL files, proved by reading them back.

The proof for each demo story save whose plan has moves (and for a player's log): the written save,
and the written log replayed to its end, map to exactly the plan's `resulting_position`, counter for
counter; re-planning either shows the applied events as done (TK 16.1.1, 16.2.1, 16.3.3, 16.3.4,
16.3.5, 16.5.4 — none due again); the input is byte-identical afterwards; decoding the written
stream and encoding it again gives the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import zipfile
from pathlib import Path

import pytest

from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK
from bridge.cli.main import main
from bridge.pipeline import CheckPipeline
from bridge.writeback.applier import apply_plan
from module_patches.demo_module import moduledata_xml
from module_patches.demo_story import load_story, save_path
from module_patches.demo_world import WORLD
from rules.state import GameState
from vassal_parser.commands import ESC, decode_stream, encode_stream, iter_commands, split_log
from vassal_parser.container import open_container
from vassal_parser.patch import Change, Move, Table, java_hashmap_order, log_step
from vassal_parser.traits import Layer, decode_chain, encode_chain
from vassal_parser.writer import _fix_member_order, write_game_file

STORY = {scene.file: scene for scene in load_story()}
# Story saves whose plan (with the story's answers) has steps, and the rules each implements.
WITH_MOVES = {"02-poland-falls": ["16.1.1"], "05-case-yellow": ["16.2.1"],
              "06-finest-hour": ["16.3.3", "16.3.4"], "07-reduced-us-impact": ["16.3.5"],
              "08-london-liberated": ["16.3.5"], "09-border-defense": ["16.5.4"]}


@pytest.fixture(scope="module")
def pipeline() -> CheckPipeline:
    return CheckPipeline(DEMO_MODULE, DEMO_PACK, remember=False)


def counters(position: dict) -> dict[str, dict]:
    """Counter id -> counter, as the engine sees it; counters out of the game are simply absent."""
    every = GameState.from_json(position).to_json()["counters"]
    return {c["id"]: c for c in every if c["location"] != "removed"}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def expected_counters(applied) -> dict[str, dict]:
    """The plan's resulting position, plus the pack's status markers (a Conquered marker, a played
    card) — the only pieces Adjutant moves that the engine keeps as country/turn state instead."""
    expected = counters(applied.plan.plan["resulting_position"])
    for counter_id, place in applied.translation.marker_moves:
        if counter_id in expected:
            expected[counter_id]["location"] = place
    return expected


@pytest.mark.parametrize("suffix", [".vsav", ".vlog"])
@pytest.mark.parametrize("name", sorted(WITH_MOVES))
def test_written_file_reads_back_as_the_resulting_position(pipeline, tmp_path, name, suffix) -> None:
    source = save_path(STORY[name])
    before = digest(source)
    answers = STORY[name].answers
    applied = apply_plan(pipeline, source, tmp_path / f"{name}-adjutant{suffix}", answers)
    assert digest(source) == before, "the input must be byte-identical afterwards"
    reread = pipeline.plan_file(applied.out, answers=answers)  # a log: replayed to its end
    assert reread.plan["vassal"]["unmapped_places"] == {}
    assert counters(reread.mapping.position) == expected_counters(applied)
    # Re-planning: the applied events are done — none is due or waiting again.
    statuses = {e["rule"]: e["status"] for e in reread.plan["events"]}
    assert all(status == "not_due" for status in statuses.values()), statuses
    assert not reread.due
    assert applied.translation.rules == WITH_MOVES[name]


@pytest.mark.parametrize("name", sorted(WITH_MOVES))
def test_written_stream_is_what_the_codec_reencodes_and_vassal_loads(pipeline, tmp_path, name) -> None:
    for suffix in (".vsav", ".vlog"):
        applied = apply_plan(pipeline, save_path(STORY[name]), tmp_path / f"out{suffix}", STORY[name].answers)
        container = open_container(applied.out)
        text = container.command_text()
        assert encode_stream(decode_stream(text)) == text
        tree = decode_stream(text)
        assert not _fix_member_order(tree), "members must come before their stack"
        with zipfile.ZipFile(applied.out) as archive:
            assert archive.namelist() == ["savedGame", "savedata", "moduledata"]
            assert archive.read("savedGame")[:5] == b"!VCSK"
            assert archive.read("moduledata") == moduledata_xml(WORLD())
        assert container.metadata["description"] == applied.description
        assert applied.description.startswith("Adjutant: Conditional Events of ")


def test_continuation_log_keeps_the_save_and_appends_one_step_per_plan_step(pipeline, tmp_path) -> None:
    """16.1.1: the save's tokens byte for byte, then one LOG step per plan step with its chat line."""
    source = save_path(STORY["02-poland-falls"])
    applied = apply_plan(pipeline, source, tmp_path / "poland.vlog")
    original = open_container(source).command_text()
    written = open_container(applied.out).command_text()
    assert written.startswith(original + ESC)
    _restore, steps = split_log(decode_stream(written))
    plan_steps = [s for e in applied.plan.plan["events"] for s in e["steps"]]
    assert len(steps) == len(plan_steps) == 6
    chats = [c.fields["message"] for step in steps for c in step if c.kind == "chat"]
    assert chats[1] == ("*! Adjutant: 16.1.1 Step 2 — move PO 1 Inf from Lvov (e3706) to Western Conquered "
                        "Minor Countries Box")
    assert chats[0] == "*! Adjutant: 16.1.1 — Poland: conquered; remains aligned with the Western faction"
    ids = {c["id"] for c in applied.plan.plan["resulting_position"]["counters"]}
    assert not any(f"({i})" in chat for chat in chats for i in ids), "player-facing names only, never ids"
    assert applied.description == "Adjutant: Conditional Events of Sep-Oct 1939, Axis — 6 moves, TK 16.1.1"
    moves = [c for step in steps for c in step if c.kind == "move_piece"]
    assert len(moves) == 6 and all(len(c.text.split("/")) == 10 for c in moves)


def test_save_rebuilds_stacks_and_sets_old_properties(pipeline, tmp_path) -> None:
    """16.1.1 Step 2: PO 1 Inf leaves Lvov (its stack disappears) and lands on top of the box's stack."""
    applied = apply_plan(pipeline, save_path(STORY["02-poland-falls"]), tmp_path / "poland.vsav")
    game = pipeline.load(applied.out)[0]
    placed = {p.basic_name: p for p in game.position()}
    po1 = placed["PO 1 Inf"]
    box = [p for p in placed.values() if p.stack_id == po1.stack_id]
    assert po1.location == "Western Conquered Minor Countries Box"
    assert [p.basic_name for p in sorted(box, key=lambda p: p.stack_index)][-3:] == \
        ["PO 1 Inf", "PO 2 Inf", "PO Res 0-1-2"]  # in plan order, each on top of the one before
    props = po1.properties
    assert (props["OldLocationName"], props["OldMap"], props["OldBoard"], props["OldZone"]) == \
        ("e3706", "Europe", "East", "")
    assert (props["OldX"], props["OldY"], props["OldDeckName"]) == ("1323", "528", "")
    text = open_container(applied.out).command_text()
    assert "stack/Europe;1323;528;" not in text, "the emptied stack at Lvov is dropped"
    unchanged = open_container(save_path(STORY["02-poland-falls"])).command_text().split(ESC)
    kept = set(text.split(ESC))
    untouched = [t for t in unchanged if "Italy" in t or "PLAYER" in t]
    assert untouched and all(t in kept for t in untouched), "every other token is kept byte for byte"


def test_hashmap_order_matches_vassal_379_save(corpus_dir) -> None:
    """BasicPiece.getState writes persistent properties in java.util.HashMap order (ragnarok, 3.7.9)."""
    path = corpus_dir / "jzedwards__vassal-hex-n-counters-template/ragnarok/vassal/ragnarok-start.vsav"
    if not path.exists():
        pytest.skip(f"{path} not in the corpus")
    checked = 0
    for command in iter_commands(decode_stream(open_container(path).command_text())):
        if command.kind != "add_piece" or "OldX" not in command.text:
            continue
        basic = command.fields["state"].split("\t")[-1]
        tokens = basic.rstrip("\\").split(";")
        keys = tokens[5::2]
        insertion = ["UniqueID", *[k for k in keys if k != "UniqueID"]]
        assert java_hashmap_order(insertion) == keys
        checked += 1
    assert checked > 10


def test_unanswered_choice_writes_nothing_and_lists_the_choice(tmp_path, capsys) -> None:
    """16.1.2: the Axis must choose the remedy for Hungary before anything is written."""
    out = tmp_path / "hungary.vlog"
    status = main(["apply", str(save_path(STORY["04-hungary-occupied"])), "--module", str(DEMO_MODULE),
                   "--pack", str(DEMO_PACK), "--out", str(out)])
    err = capsys.readouterr().err
    assert status == 1 and not out.exists()
    assert '"16.1.2:remedy:Hungary" (Axis): "intern" or "remove"' in err
    assert list(tmp_path.iterdir()) == []


def test_the_refusal_names_both_ways_to_answer_and_the_named_answer_is_taken(tmp_path, capsys) -> None:
    """Issue 41: the refusal names `--answer ID=VALUE` as well as `--answers FILE`, as `check` does,
    and the answer written as it says lets 16.1.2 be written."""
    out = tmp_path / "hungary.vlog"
    argv = ["apply", str(save_path(STORY["04-hungary-occupied"])), "--module", str(DEMO_MODULE),
            "--pack", str(DEMO_PACK), "--out", str(out)]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "pass --answer ID=VALUE (repeatable), or put these choice ids in a JSON object and pass it " \
           "with --answers FILE.json:" in err
    assert main([*argv, "--answer", "16.1.2:remedy:Hungary=intern"]) == 0 and out.is_file()
    capsys.readouterr()


def test_quiet_apply_writes_the_file_and_prints_nothing(tmp_path, capsys) -> None:
    """Issue 41: -q is "only errors" for `apply` too: the file is written, nothing is printed."""
    out = tmp_path / "poland.vlog"
    argv = ["apply", str(save_path(STORY["02-poland-falls"])), "--module", str(DEMO_MODULE),
            "--pack", str(DEMO_PACK), "--out", str(out)]
    assert main([*argv, "-q"]) == 0 and out.is_file()
    assert capsys.readouterr() == ("", "")
    out.unlink()
    assert main(["-q", *argv]) == 0 and out.is_file()
    assert capsys.readouterr() == ("", "")


def test_partial_writes_the_steps_before_the_first_unanswered_choice(tmp_path, capsys) -> None:
    """16.3.3 is written; 16.3.4 waits for its Influence choice, so it and what follows are not."""
    out = tmp_path / "finest.vlog"
    status = main(["apply", str(save_path(STORY["06-finest-hour"])), "--module", str(DEMO_MODULE),
                   "--pack", str(DEMO_PACK), "--partial", "--out", str(out)])
    printed = capsys.readouterr().out
    assert status == 0 and "stopped before 16.3.4 Paris Threatened: waiting for 16.3.4:influence" in printed
    _restore, steps = split_log(decode_stream(open_container(out).command_text()))
    chats = [c.fields["message"] for step in steps for c in step if c.kind == "chat"]
    assert len(chats) == 2 and all(chat.startswith("*! Adjutant: 16.3.3 Step 1") for chat in chats)


def test_step_the_pack_cannot_place_is_an_error_and_nothing_is_written(tmp_path, capsys) -> None:
    """16.1.1 Step 3 sends BR 1-2-2 Pol to the Delay Box; a pack without that box cannot place it."""
    pack = tmp_path / "pack"
    shutil.copytree(DEMO_PACK, pack, symlinks=False)
    mapping = (pack / "vassal.toml").read_text(encoding="utf-8")
    (pack / "vassal.toml").write_text(mapping.replace('"Delay Box" = "delay"\n', ""), encoding="utf-8")
    out = tmp_path / "poland.vsav"
    status = main(["apply", str(save_path(STORY["02-poland-falls"])), "--module", str(DEMO_MODULE),
                   "--pack", str(pack), "--out", str(out)])
    err = capsys.readouterr().err
    assert status == 2 and not out.exists()
    assert "16.1.1 Step 3 (move BR 1-2-2 Pol from Western Conquered Minor Countries Box to Delay Box" in err
    assert "the pack maps no VASSAL location to Delay Box ('delay')" in err
    assert len(err.strip().splitlines()) == 1


def test_output_is_always_a_new_file(tmp_path, capsys) -> None:
    source = tmp_path / "game.vsav"
    shutil.copy(save_path(STORY["07-reduced-us-impact"]), source)
    base = ["apply", str(source), "--module", str(DEMO_MODULE), "--pack", str(DEMO_PACK)]
    assert main([*base, "--out", str(source), "--force"]) == 2
    assert "never writes over the players' file" in capsys.readouterr().err
    out = tmp_path / "new.vsav"
    out.write_bytes(b"keep me")
    assert main([*base, "--out", str(out)]) == 2
    assert "already exists" in capsys.readouterr().err and out.read_bytes() == b"keep me"
    assert main([*base, "--out", str(out), "--force"]) == 0
    assert out.read_bytes()[:2] == b"PK"
    assert main([*base, "--out", str(tmp_path / "new.txt")]) == 2
    capsys.readouterr()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.vsav", "new.vsav"]  # no temp file left


def test_plain_input_gives_plain_output(pipeline, tmp_path) -> None:
    source = save_path(STORY["07-reduced-us-impact"])
    plain = tmp_path / "plain.vsav"
    write_game_file(plain, open_container(source).command_text(), module_metadata=moduledata_xml(WORLD()),
                    ensure=False, plain=True)
    applied = apply_plan(pipeline, plain, tmp_path / "out.vsav")
    with zipfile.ZipFile(applied.out) as archive:
        assert archive.read("savedGame").startswith(b"begin_save")


def test_fresh_key_each_time(pipeline, tmp_path) -> None:
    source = save_path(STORY["07-reduced-us-impact"])
    keys = set()
    for index in range(8):
        applied = apply_plan(pipeline, source, tmp_path / f"out{index}.vlog")
        with zipfile.ZipFile(applied.out) as archive:
            keys.add(archive.read("savedGame")[5:7])
    assert len(keys) > 1


# ---- a player's log ---------------------------------------------------------------------------------
@pytest.fixture()
def player_log(pipeline, tmp_path) -> Path:
    """The Axis turn of scene 2 as a player's log from scene 1's save: GE 1 Pz and GE 2 Pz take Warsaw
    and Krakow, then PO 1 Inf falls back to Lvov and is reduced, PO 2 Inf goes to the Force Pool."""
    opening = save_path(STORY["01-opening"])
    game = pipeline.load(opening)[0]
    placed = game.position()
    by_counter = {p.properties.get("Counter"): p.id for p in placed}
    layout = game.layout
    table = Table.from_placed(placed, lambda _m: True, lambda m, x, y: ("", "", "", ""))
    table.reserve_ids(p.id for p in placed)

    europe = layout("Europe")
    boxes = layout("Boxes")
    moves = [("GE-1", europe, "e3804"), ("GE-2", europe, "e3501"), ("PO-1", europe, "e3706"),
             ("PO-2", boxes, "Western Force Pool")]
    tree = decode_stream(open_container(opening).command_text())
    for counter, where, name in moves:
        x, y = where.point_for(name)
        commands = table.apply(Move(by_counter[counter], where.map_def.identifier, x, y))
        if counter == "PO-1":
            commands += table.apply(Change(by_counter["PO-1"], "Strength", 2))
        tree.children.append(log_step(commands, f"* PO moves: {counter} to {name}"))
    path = tmp_path / "poland-turn.vlog"
    write_game_file(path, encode_stream(tree), module_metadata=moduledata_xml(WORLD()), ensure=False,
                    key=0x21)
    return path


def test_log_input_keeps_the_players_steps_and_reads_back(pipeline, player_log, tmp_path) -> None:
    """The plan of the log's last position (16.1.1 due) is appended after the player's own steps."""
    before = digest(player_log)
    original = open_container(player_log).command_text()
    for suffix in (".vlog", ".vsav"):
        applied = apply_plan(pipeline, player_log, tmp_path / f"continued{suffix}")
        assert applied.translation.rules == ["16.1.1"]
        reread = pipeline.plan_file(applied.out)
        assert counters(reread.mapping.position) == expected_counters(applied)
        assert all(e["status"] == "not_due" for e in reread.plan["events"])
        written = open_container(applied.out).command_text()
        assert encode_stream(decode_stream(written)) == written
        if suffix == ".vlog":
            assert written.startswith(original + ESC), "the player's steps are kept byte for byte"
            assert len(split_log(decode_stream(written))[1]) == 4 + 6
        else:
            assert split_log(decode_stream(written))[1] == []
    assert digest(player_log) == before


def test_log_step_option_keeps_only_the_steps_planned(pipeline, player_log, tmp_path) -> None:
    """--step 2: both Polish Cities are taken (16.1.1 due) before the Poles moved; the continuation keeps
    the player's first two steps, drops the later two, and appends 16.1.1's steps for that position."""
    original = decode_stream(open_container(player_log).command_text())
    applied = apply_plan(pipeline, player_log, tmp_path / "at-2.vlog", step=2)
    written = decode_stream(open_container(applied.out).command_text())
    _restore, steps = split_log(written)
    player_steps = split_log(original)[1]
    assert steps[:2] == player_steps[:2] and len(steps) == 2 + 6
    chats = [c.fields["message"] for step in steps[2:] for c in step if c.kind == "chat"]
    assert "move PO 1 Inf from Warsaw (e3804) to Western Conquered Minor Countries Box" in chats[1]
    reread = pipeline.plan_file(applied.out)
    assert counters(reread.mapping.position) == expected_counters(applied)
    assert all(e["status"] == "not_due" for e in reread.plan["events"])
    # --step 1: only Warsaw is taken; Poland is not conquered, nothing to write.
    with pytest.raises(Exception, match="nothing is due"):
        apply_plan(pipeline, player_log, tmp_path / "early.vlog", step=1)
    assert not (tmp_path / "early.vlog").exists()


# ---- trait changes ------------------------------------------------------------------------------------
def test_flip_step_changes_the_layer_the_pack_names(pipeline, tmp_path) -> None:
    """A plan `flip` step (e.g. 16.7's Port-a-Fort) becomes a `D/` change of the pack's Layer level."""
    from bridge.writeback.translate import Targets, Writeback, translate

    source = save_path(STORY["02-poland-falls"])
    game, pieces, info = pipeline._position(source, None)
    result = pipeline.plan_pieces(pieces, info, {}, layout_for=game.layout)
    plan = {"events": [{"rule": "16.7", "status": "fired", "choices": [], "steps": [
        {"rule": "16.7", "step": None, "action": "flip", "counter": "PO-1", "to": "e3706", "from": "e3706",
         "text": "flip PO 1 Inf (PO-1): back to its full side", "details": {}, "subject": None}]}]}
    writeback = Writeback.from_pack(pipeline.pack)
    targets = Targets(game, pipeline.module, pipeline.mapping, writeback, pipeline.pack)
    counter_table = {c["id"]: c for c in result.mapping.position["counters"]}
    assert counter_table["PO-1"]["flipped"] is True
    translation = translate(plan, pieces, result.mapping.piece_counters, counter_table, targets, writeback)
    (step,) = translation.steps
    assert step.chat == "*! Adjutant: 16.7 — flip PO 1 Inf: back to its full side"
    (op,) = step.ops
    assert isinstance(op, Change) and (op.layer, op.level) == ("Strength", 1)
    table = Table.from_placed(pieces, lambda _m: True, lambda m, x, y: ("", "", "", ""))
    (command,) = table.apply(op)
    assert command.kind == "change_piece"
    piece = next(p for p in pieces if p.id == op.piece_id)
    type_string = encode_chain(piece.traits)[0]

    def strength(state: str) -> int:
        return next(t.value for t in decode_chain(type_string, state) if isinstance(t, Layer))

    assert (strength(command.fields["old_state"]), strength(command.fields["new_state"])) == (2, 1)


def test_apply_cli_prints_what_it_wrote(tmp_path, capsys) -> None:
    out = tmp_path / "case-yellow.vlog"
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(STORY["05-case-yellow"].answers), encoding="utf-8")
    status = main(["apply", str(save_path(STORY["05-case-yellow"])), "--module", str(DEMO_MODULE),
                   "--pack", str(DEMO_PACK), "--answers", str(answers), "--out", str(out)])
    printed = capsys.readouterr().out
    assert status == 0 and out.exists()
    assert f"wrote {out} (continuation log)" in printed
    assert "File > Load Game or Log" in printed
    _restore, steps = split_log(decode_stream(open_container(out).command_text()))
    kinds = [c.kind for step in steps for c in step]
    assert kinds.count("remove_piece") == 3  # FR 1, FR 2, FR Syria removed from the game (16.2.1 Steps 1, 4)
    chats = [c.fields["message"] for step in steps for c in step if c.kind == "chat"]
    assert chats[-1] == "*! Adjutant: 16.2.1 — Case Yellow carried out: set the Case Yellow marker aside"


def test_undecided_event_writes_nothing_and_names_the_missing_fact(tmp_path, capsys) -> None:
    """16.1.1 with a pack that does not locate all of Poland's Cities ([complete] names only Norway):
    the conquest is undecided, so nothing is written (exit 3, as `check`), the fact is named."""
    pack = tmp_path / "pack"
    shutil.copytree(DEMO_PACK, pack)
    meta = pack / "pack.toml"  # the demo's own claim, `city_hexes = "all"`, gives way to complete.toml's
    meta.write_text(meta.read_text().replace('city_hexes = "all"\n', ""), encoding="utf-8")
    (pack / "complete.toml").write_text('[complete]\ncity_hexes = ["Norway"]\n', encoding="utf-8")
    out = tmp_path / "poland.vlog"
    base = ["apply", str(save_path(STORY["02-poland-falls"])), "--module", str(DEMO_MODULE),
            "--pack", str(pack)]
    status = main([*base, "--out", str(out)])
    err = capsys.readouterr().err
    assert status == 3 and not out.exists()
    assert "16.1.1 Allied Minor Country Conquest: " in err and "Poland" in err
    assert main([*base, "--partial", "--out", str(out)]) == 2
    assert "no step comes before 16.1.1" in capsys.readouterr().err and not out.exists()
