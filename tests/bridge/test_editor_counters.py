"""The Counters pane's session and server without a browser (issue 38, item 3): accept / change / drop
written into vassal.toml in place — comments kept, only the targeted rule changed, a dropped rule's
evidence comment going with it —, the pieces each rule matches, undo and redo, the edits it refuses,
and the piece images served as the board images are (the control token, by number only, sandboxed)."""

from __future__ import annotations

import asyncio
import json
import shutil
import tomllib
from pathlib import Path

import pytest
from websockets.asyncio.client import connect

from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK
from bridge.mapping.mapper import VassalMapping
from bridge.web.editor.counters import CounterPane
from bridge.web.editor.model import EditError, EditorSession
from rules.packs import load_pack
from tests.bridge.editor_harness import EditorThread
from tests.bridge.test_editor_server import get
from vassal_parser.module import load_module

HEAD = '''# A pack for the test module.
[vassal.module]
name = "Adjutant Demo"

[vassal.places]
not_boxes = ["War State Box"]

[[vassal.places.hexes]]
map = "Europe"
pattern = "[we][0-9]{4}"

# proposed: Kind: 5 values on 32 of 42 pieces
# (ground, air, naval, ceded_land, marker)
[[vassal.counters]]
proposed = true
match = { Kind = "re:ground|air|naval|ceded_land|marker" }  # the kinds
set = { id = "{Counter}", nationality = "{Nation}", kind = "{Kind}", steps = "{Steps}" }

# proposed: Strength_Level 2 is the reduced face
[[vassal.counters]]
proposed = true
match = { Strength_Level = "2" }
set = { flipped = true }
steps_delta = -1

# proposed: the war state marker, WAR-STATE
[[vassal.state]]
proposed = true
match = { Counter = "WAR-STATE" }
set = { "turn.war_state" = "{War_Name}" }

# a hand-written rule: cards
[[vassal.ignore]]
match = {Kind = "card"}

[vassal.turn]
phasing = "Axis"
'''


def pack_with(tmp_path: Path, text: str = HEAD) -> Path:
    pack = tmp_path / "pack"
    shutil.copytree(DEMO_PACK, pack)
    (pack / "vassal.toml").write_text(text)
    return pack


def session_of(pack: Path) -> EditorSession:
    return EditorSession(pack, DEMO_MODULE)


def rules_of(session: EditorSession) -> dict[str, dict]:
    return {r["id"]: r for r in session.counters.model()["rules"]}


def test_the_pane_lists_each_rule_its_evidence_and_the_pieces_it_takes(tmp_path) -> None:
    session = session_of(pack_with(tmp_path))
    rules = rules_of(session)
    assert list(rules) == ["counters:0", "counters:1", "state:0", "ignore:0"]
    main = rules["counters:0"]
    assert main["proposed"] and main["label"] == "Counter rule #1"
    assert main["evidence"] == ["proposed: Kind: 5 values on 32 of 42 pieces",
                                "(ground, air, naval, ceded_land, marker)"]
    assert rules["ignore:0"]["evidence"] == ["a hand-written rule: cards"]
    assert not rules["ignore:0"]["proposed"]
    names = [session.counters.pieces[n].basic_name for n in main["pieces"]]
    assert "GE 1 Pz" in names and "War State" not in names
    assert [session.counters.pieces[n].basic_name for n in rules["state:0"]["pieces"]] == ["War State"]
    model = session.counters.model()
    assert model == session.counters.model()  # asked again (the rules part is kept): the same answer
    assert model["proposed"] == 3 and model["places"] == []
    unmatched = {session.counters.pieces[n].basic_name for n in model["unmatched"]}
    assert unmatched and "GE 1 Pz" not in unmatched and "War State" not in unmatched
    # Every piece is either matched by some rule or listed as matched by none.
    taken = {n for r in rules.values() for n in r["pieces"]}
    assert taken | set(model["unmatched"]) == set(range(len(session.counters.pieces)))
    assert not taken & set(model["unmatched"])


def test_accept_and_change_write_only_their_rule_comments_kept(tmp_path) -> None:
    pack = pack_with(tmp_path)
    session = session_of(pack)
    session.apply({"type": "rule", "rule": "counters:1", "action": "accept"})
    rule = rules_of(session)["counters:0"]
    session.apply({"type": "rule", "rule": "counters:0", "action": "change",
                   "match": {"Kind": "re:ground|air|naval"}, "set": {**rule["set"], "steps": "{Steps}"}})
    assert session.dirty and session.unsaved() == 2
    assert session.save() == ["vassal.toml"]
    expected = HEAD.replace(
        'proposed = true\nmatch = { Kind = "re:ground|air|naval|ceded_land|marker" }  # the kinds',
        'match = { Kind = "re:ground|air|naval" }  # the kinds').replace(
        '[[vassal.counters]]\nproposed = true\nmatch = { Strength_Level = "2" }',
        '[[vassal.counters]]\nmatch = { Strength_Level = "2" }')
    assert (pack / "vassal.toml").read_text() == expected
    mapping = VassalMapping.from_pack(load_pack(pack))
    assert [r.index for r in mapping.proposed_rules] == [0]  # the war-state rule only
    assert mapping.proposed_rules[0].kind == "state"
    assert mapping.counters[1].values == {"flipped": True}  # a true stays true, not "true"
    assert not session.dirty


def test_a_changed_match_keeps_the_files_style_and_a_sub_table_stays_one(tmp_path) -> None:
    text = HEAD.replace('[[vassal.ignore]]\nmatch = {Kind = "card"}',
                        '[[vassal.ignore]]\n[vassal.ignore.match]\n# which pieces\nKind = "card"')
    pack = pack_with(tmp_path, text)
    session = session_of(pack)
    session.apply({"type": "rule", "rule": "ignore:0", "action": "change",
                   "match": {"Kind": "card", "@location": "Set Aside"}, "set": {}})
    session.apply({"type": "rule", "rule": "state:0", "action": "change",
                   "match": {"Counter": "WAR-STATE", "@name": "War State"},
                   "set": {"turn.war_state": "{War_Name}"}})
    session.save()
    after = (pack / "vassal.toml").read_text()
    assert '[vassal.ignore.match]\n# which pieces\nKind = "card"\n"@location" = "Set Aside"\n' in after
    assert 'match = { Counter = "WAR-STATE", "@name" = "War State" }\n' in after
    assert after.replace('"@location" = "Set Aside"\n', "").replace(', "@name" = "War State"', "") \
        .replace("[[vassal.state]]\nmatch", "[[vassal.state]]\nproposed = true\nmatch") == text
    raw = tomllib.loads(after)["vassal"]
    assert raw["ignore"][0]["match"] == {"Kind": "card", "@location": "Set Aside"}


def test_drop_takes_the_rule_and_its_evidence_and_leaves_the_next_rules(tmp_path) -> None:
    pack = pack_with(tmp_path)
    session = session_of(pack)
    session.apply({"type": "rule", "rule": "counters:0", "action": "drop"})
    session.apply({"type": "rule", "rule": "state:0", "action": "drop"})
    assert rules_of(session)["counters:0"]["dropped"]
    assert session.counters.model()["proposed"] == 1
    session.save()
    after = (pack / "vassal.toml").read_text()
    assert "proposed: Kind: 5 values" not in after and "(ground, air" not in after
    assert "the war state marker" not in after and "WAR-STATE" not in after
    # The next rules keep their own evidence right above them, the rest of the file as it was.
    assert ('pattern = "[we][0-9]{4}"\n\n# proposed: Strength_Level 2 is the reduced face\n'
            '[[vassal.counters]]\nproposed = true\nmatch = { Strength_Level = "2" }') in after
    assert 'steps_delta = -1\n\n# a hand-written rule: cards\n[[vassal.ignore]]\n' in after
    assert after.startswith("# A pack for the test module.\n[vassal.module]\n")
    assert after.endswith('[vassal.turn]\nphasing = "Axis"\n')
    raw = tomllib.loads(after)["vassal"]
    assert len(raw["counters"]) == 1 and "state" not in raw
    # The pane goes on with the rules left: the ids of the others stay, the dropped ones are gone.
    assert list(rules_of(session)) == ["counters:1", "ignore:0"]
    assert not session.dirty
    session.apply({"type": "rule", "rule": "counters:1", "action": "accept"})
    session.save()
    assert "proposed = true" not in (pack / "vassal.toml").read_text()


def test_rule_edits_undo_and_redo_with_the_editor(tmp_path) -> None:
    pack = pack_with(tmp_path)
    session = session_of(pack)
    session.apply({"type": "set", "hexes": ["w4925"], "field": "country", "value": "France"})
    session.apply({"type": "rule", "rule": "counters:0", "action": "accept"})
    session.apply({"type": "rule", "rule": "counters:1", "action": "drop"})
    version = session.edit_state()["counters_version"]
    assert session.undo()
    assert not rules_of(session)["counters:1"]["dropped"]
    assert session.edit_state()["counters_version"] != version  # the page redraws the pane
    assert session.undo()
    assert rules_of(session)["counters:0"]["proposed"]
    assert session.unsaved() == 1  # the hex only
    assert session.redo() and not rules_of(session)["counters:0"]["proposed"]
    assert session.unsaved() == 2
    session.apply({"type": "rule", "rule": "counters:1", "action": "drop"})
    session.save()
    # The dropped rule is no longer in the file: its step is forgotten, the others can still be undone.
    assert session.undo()
    assert rules_of(session)["counters:0"]["proposed"]
    assert session.undo()
    assert "w4925" not in session.hexes
    assert not session.undo()


@pytest.mark.parametrize(("message", "error"), [
    ({"rule": "counters:9", "action": "accept"}, "is not a rule of the pack"),
    ({"rule": "counters:0", "action": "burn"}, "unknown rule action"),
    ({"rule": "counters:0", "action": "change", "match": {}, "set": {}}, "never empty"),
    ({"rule": "counters:0", "action": "change", "match": {"Kind": "re:(unclosed"}, "set": {}}, "bad pattern"),
    ({"rule": "counters:0", "action": "change", "match": {"Kind": "x"}, "set": {"colour": "red"}},
     "unknown counter field"),
    ({"rule": "counters:0", "action": "change", "match": {"Kind": 3}, "set": {}}, "a name and a text"),
    ({"rule": "counters:0", "action": "change", "match": ["Kind"], "set": {}}, "is an object"),
])
def test_edits_the_pane_refuses(tmp_path, message, error) -> None:
    session = session_of(pack_with(tmp_path))
    with pytest.raises(EditError, match=error):
        session.apply({"type": "rule", **message})
    assert not session.dirty and not session.history.undo_steps


def test_a_dropped_rule_is_only_kept_again_through_keep_or_undo(tmp_path) -> None:
    session = session_of(pack_with(tmp_path))
    session.apply({"type": "rule", "rule": "counters:0", "action": "drop"})
    with pytest.raises(EditError, match="dropped"):
        session.apply({"type": "rule", "rule": "counters:0", "action": "accept"})
    session.apply({"type": "rule", "rule": "counters:0", "action": "restore"})
    assert not session.dirty


def test_a_pack_whose_rules_are_not_in_its_own_file_is_shown_not_edited(tmp_path) -> None:
    pack = load_pack(pack_with(tmp_path))
    mapping = VassalMapping.from_pack(pack)
    mapping.counters.append(mapping.counters[0])  # a list the file does not have
    pane = CounterPane(pack.path, mapping, load_module(DEMO_MODULE))
    model = pane.model()
    assert not model["editable"] and "not the one the pack reads" in model["reason"]
    with pytest.raises(ValueError, match="not the one the pack reads"):
        pane.apply({"type": "rule", "rule": "counters:0", "action": "accept"})


def test_piece_images_need_the_token_come_by_number_and_are_sandboxed(tmp_path) -> None:
    with EditorThread(pack_with(tmp_path), DEMO_MODULE) as editor:
        model = json.loads(get(editor, "/model.json")[2])
        pieces = model["counter_pieces"]
        ge = next(p for p in pieces if p["name"] == "GE 1 Pz")
        assert ge["image"] == f"/piece/{ge['n']}" and ge["properties"]["Nation"] == "Germany"
        status, headers, body = get(editor, ge["image"])
        assert status == 200 and headers["content-type"] == "image/svg+xml" and body.startswith(b"<")
        assert headers["content-security-policy"].startswith("sandbox")
        assert get(editor, ge["image"], token=None)[0] == 403
        for path in ("/piece/999", "/piece/-1", "/piece/1.svg", "/piece/../buildFile.xml", "/piece/"):
            assert get(editor, path)[0] == 404, path
        assert get(editor, "/piece/1.svg", token=None)[0] == 403  # a suffix makes no piece path public
        assert model["counters"]["rules"][0]["proposed"]

        port = editor.server.port

        async def scenario() -> None:
            url = f"ws://127.0.0.1:{port}/ws?token={editor.server.tokens.control}"
            async with connect(url, origin=f"http://127.0.0.1:{port}") as ws:
                await ws.send(json.dumps({"type": "rule", "rule": "counters:0", "action": "accept", "id": 1}))
                reply = json.loads(await ws.recv())
                assert reply["type"] == "applied" and reply["dirty"] is True
                await ws.send(json.dumps({"type": "counters"}))
                reply = json.loads(await ws.recv())
                assert reply["type"] == "counters" and not reply["counters"]["rules"][0]["proposed"]

        asyncio.run(asyncio.wait_for(scenario(), 20))


# ---- proposed boxes (`[vassal.places] proposed`) --------------------------------------------------------
PLACES = '''[vassal.places]
not_boxes = ["War State Box"]
# proposed: zones named as the rules' boxes
proposed = ["Delay Box", "Axis Force Pool", "Set Aside", "(.+) Posture Box"]

[vassal.places.boxes]
"Delay Box" = "delay"
"Axis Force Pool" = "force_pool:Axis"
"Set Aside" = "set_aside"
"Ceded Lands Box" = "ceded_lands"

[vassal.places.box_patterns]
"(.+) Posture Box" = "posture:{0}"
'''


def places_pack(tmp_path: Path) -> Path:
    return pack_with(tmp_path, HEAD.replace('[vassal.places]\nnot_boxes = ["War State Box"]\n', PLACES))


def places_of(session: EditorSession) -> dict[str, dict]:
    return {p["name"]: p for p in session.counters.model()["places"]}


def test_proposed_boxes_are_accepted_chosen_or_dropped_and_leave_the_proposed_list(tmp_path) -> None:
    pack = places_pack(tmp_path)
    session = session_of(pack)
    shown = places_of(session)
    assert list(shown) == ["Delay Box", "Axis Force Pool", "Set Aside", "(.+) Posture Box"]
    assert all(p["proposed"] for p in shown.values()) and shown["(.+) Posture Box"]["pattern"]
    version = session.edit_state()["counters_version"]
    session.apply({"type": "place", "name": "Delay Box", "action": "accept"})
    # The zone editor's own edits: a person's choice is reviewed; a zone given no box is no box at all.
    session.apply({"type": "box", "zone": "Axis Force Pool", "box": "set_aside"})
    session.apply({"type": "box", "zone": "Set Aside", "box": None})
    assert session.edit_state()["counters_version"] != version
    shown = places_of(session)
    assert shown["Delay Box"]["accepted"] and shown["Axis Force Pool"]["edited"]
    assert shown["Set Aside"]["dropped"]
    assert not any(shown[n]["proposed"] for n in ("Delay Box", "Axis Force Pool", "Set Aside"))
    session.save()
    after = (pack / "vassal.toml").read_text()
    raw = tomllib.loads(after)["vassal"]["places"]
    assert raw["proposed"] == ["(.+) Posture Box"]
    assert raw["boxes"] == {"Delay Box": "delay", "Axis Force Pool": "set_aside",
                            "Ceded Lands Box": "ceded_lands"}
    assert "# proposed: zones named as the rules' boxes\nproposed = [" in after
    assert VassalMapping.from_pack(load_pack(pack)).proposed_places == ("(.+) Posture Box",)
    assert list(places_of(session)) == ["(.+) Posture Box"]
    # The pattern: dropped from the pane, then the list goes with its last name.
    session.apply({"type": "place", "name": "(.+) Posture Box", "action": "drop"})
    assert places_of(session)["(.+) Posture Box"]["dropped"]
    session.save()
    raw = tomllib.loads((pack / "vassal.toml").read_text())["vassal"]["places"]
    assert "proposed" not in raw and "box_patterns" in raw and raw["box_patterns"] == {}
    assert not session.counters.model()["places"]


def test_a_proposed_zone_dropped_in_the_zone_editor_saves(tmp_path) -> None:
    """Without the pane's pruning the zone editor's save wrote a `proposed` list naming a box no longer
    there, which the pack refuses on reload: the save was rolled back with an error."""
    pack = places_pack(tmp_path)
    session = session_of(pack)
    session.apply({"type": "box", "zone": "Delay Box", "box": None})
    session.save()
    mapping = VassalMapping.from_pack(load_pack(pack))
    assert "Delay Box" not in mapping.boxes and "Delay Box" not in mapping.proposed_places


def test_accepting_a_box_undoes_and_a_zone_cannot_be_dropped_as_a_pattern(tmp_path) -> None:
    session = session_of(places_pack(tmp_path))
    session.apply({"type": "place", "name": "Delay Box", "action": "accept"})
    assert session.dirty and session.undo() and not session.dirty
    assert places_of(session)["Delay Box"]["proposed"]
    with pytest.raises(EditError, match="is a zone: choose its box"):
        session.apply({"type": "place", "name": "Delay Box", "action": "drop"})
    with pytest.raises(EditError, match="not a box the pack lists as proposed"):
        session.apply({"type": "place", "name": "Ceded Lands Box", "action": "accept"})


# ---- rules added in the pane (for the pieces no rule matches) ------------------------------------------
def test_an_added_rule_is_appended_after_its_kind_and_undoes(tmp_path) -> None:
    pack = pack_with(tmp_path)
    session = session_of(pack)
    unmatched = {session.counters.pieces[n].basic_name for n in session.counters.model()["unmatched"]}
    assert "Poland Conquered" in unmatched
    session.apply({"type": "rule", "action": "add", "kind": "counters", "match": {"Tag": "conquered"},
                   "set": {"id": "{Counter}", "kind": "marker"}})
    added = rules_of(session)["counters:+1"]
    assert added["new"] and not added["proposed"] and added["label"] == "Counter rule #3"
    assert {session.counters.pieces[n].basic_name for n in added["pieces"]} == {
        "Poland Conquered", "Belgium-Holland Conquered"}
    assert not {"Poland Conquered", "Belgium-Holland Conquered"} & {
        session.counters.pieces[n].basic_name for n in session.counters.model()["unmatched"]}
    assert session.unsaved() == 1 and session.undo() and "counters:+1" not in rules_of(session)
    assert not session.dirty and session.redo() and "counters:+1" in rules_of(session)
    session.save()
    after = (pack / "vassal.toml").read_text()
    # After the last counter rule, before the next section's comment (which stays above its own table).
    assert ('steps_delta = -1\n\n[[vassal.counters]]\nmatch = { Tag = "conquered" }\n'
            'set = { id = "{Counter}", kind = "marker" }\n\n# proposed: the war state marker') in after
    assert tomllib.loads(after)["vassal"]["counters"][2] == {"match": {"Tag": "conquered"},
                                                            "set": {"id": "{Counter}", "kind": "marker"}}
    # Undone after the save, the rule is in the file: taking it away is dropping it.
    assert session.undo() and rules_of(session)["counters:+1"]["dropped"]
    session.save()
    assert (pack / "vassal.toml").read_text() == HEAD


def test_a_rule_added_to_a_kind_the_file_lacks_gets_its_own_list(tmp_path) -> None:
    text = HEAD.replace('# a hand-written rule: cards\n[[vassal.ignore]]\nmatch = {Kind = "card"}\n\n', "")
    pack = pack_with(tmp_path, text)
    session = session_of(pack)
    session.apply({"type": "rule", "action": "add", "kind": "ignore", "match": {"Kind": "card"},
                   "set": {"ignored": "x"}})  # an ignore rule sets nothing: its set is left out
    session.save()
    raw = tomllib.loads((pack / "vassal.toml").read_text())["vassal"]
    assert raw["ignore"] == [{"match": {"Kind": "card"}}]
    assert (pack / "vassal.toml").read_text().startswith(text.rstrip("\n").rsplit("\n\n", 1)[0])


@pytest.mark.parametrize(("message", "error"), [
    ({"kind": "counter", "match": {"Kind": "card"}, "set": {}}, "is not a kind of rule"),
    ({"kind": "counters", "match": {}, "set": {}}, "never empty"),
    ({"kind": "counters", "match": {"Kind": "card"}, "set": {"colour": "red"}}, "unknown counter field"),
    ({"kind": "state", "match": {"Kind": "re:("}, "set": {}}, "bad pattern"),
])
def test_additions_the_pane_refuses(tmp_path, message, error) -> None:
    session = session_of(pack_with(tmp_path))
    with pytest.raises(EditError, match=error):
        session.apply({"type": "rule", "action": "add", **message})
    assert not session.dirty and not session.history.undo_steps
