"""The protocol's pure parts: history and resync, privacy projection, client-message validation."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge.web import protocol
from tests.bridge.savefiles import HIDDEN_PIECE, sample_plan


def test_history_numbers_every_change_and_skips_no_ops() -> None:
    history = protocol.StateHistory(limit=4)
    assert history.update({"status": "ok"})["seq"] == 1
    assert history.update({"status": "ok"}) is None  # nothing changed: no delta, no new number
    delta = history.update({"file": "a.vsav", "status": "planning"})
    assert delta["seq"] == 2 and delta["set"] == {"file": "a.vsav", "status": "planning"}
    assert history.state["file"] == "a.vsav"


def test_history_resync_returns_missed_deltas_then_gives_up_when_too_old() -> None:
    history = protocol.StateHistory(limit=3)
    for n in range(6):
        history.update({"updated": n})
    assert history.seq == 6
    assert [d["seq"] for d in history.deltas_since(4)] == [5, 6]
    assert [d["seq"] for d in history.deltas_since(3)] == [4, 5, 6]
    assert history.deltas_since(2) is None  # delta 3 fell out of the bounded history
    assert history.deltas_since(6) == []
    assert history.deltas_since(99) is None  # a client of an earlier server run


def test_history_rejects_unknown_state_keys() -> None:
    with pytest.raises(KeyError, match="secret"):
        protocol.StateHistory().update({"secret": 1})


def test_stream_projection_drops_hidden_pieces_everywhere() -> None:
    """Pieces VASSAL hides or masks: gone from steps, why lines and the resulting position."""
    plan = protocol.annotate_step_keys(sample_plan())
    public = protocol.project_value("plan", plan, "stream")
    text = json.dumps(public)
    assert HIDDEN_PIECE not in text
    assert "resulting_position" not in public
    assert "GE 4-4-3 Inf" in text  # the visible move is still there
    assert len(public["events"][0]["steps"]) == 1
    assert public["events"][0]["why"] == ["Germany is at war with France (16.2.1)"]  # no hint where it is
    # the player and control views are for the players themselves and keep everything
    assert HIDDEN_PIECE in json.dumps(protocol.project_value("plan", plan, "player"))
    assert plan == protocol.annotate_step_keys(sample_plan())  # projection never mutates the state


def test_text_fields_naming_a_private_piece_are_withheld() -> None:
    plan = {
        "events": [{"rule": "9.1", "title": "Secret A moves", "why": ["ok"]}],
        "hidden_pieces": ["Secret A"],
    }
    assert protocol.public_plan(plan)["events"] == [
        {"rule": "9.1", "title": protocol.HIDDEN_TEXT, "why": ["ok"]}
    ]


def test_private_marks_by_owner_fields_and_plan_level_list() -> None:
    plan = {
        "events": [
            {"rule": "1", "steps": [{"counter": "A", "text": "move A"}, {"counter": "B", "text": "B"}]}
        ],
        "pieces": [{"name": "C", "masked_by": "player-2"}],
        "hidden_pieces": ["A"],
    }
    public = protocol.public_plan({**plan, "map": {"counters": plan["pieces"]}})
    assert public["events"][0]["steps"] == [{"counter": "B", "text": "B"}]
    assert public["map"]["counters"] == []
    assert "hidden_pieces" not in public


def test_step_keys_follow_rule_and_step_so_ticks_survive_a_replan() -> None:
    first = protocol.annotate_step_keys(sample_plan())
    second = protocol.annotate_step_keys(sample_plan(turn="Summer 1940"))
    assert protocol.step_keys(first) == protocol.step_keys(second)
    assert "16.2.1/Step 1#0" in protocol.step_keys(first)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"type":"resync","since":3}', protocol.ClientMessage(kind="resync", since=3)),
        (
            '{"type":"answer","choice":"16.2.1:country","option":"Luxembourg"}',
            protocol.ClientMessage(kind="answer", choice="16.2.1:country", option="Luxembourg"),
        ),
        ('{"type":"answer","choice":"c","option":null}', protocol.ClientMessage(kind="answer", choice="c")),
        (
            '{"type":"answer","choice":"c","option":["a","b"]}',
            protocol.ClientMessage(kind="answer", choice="c", option=("a", "b")),
        ),
        ('{"type":"tick","step":"k","done":true}', protocol.ClientMessage(kind="tick", step="k", done=True)),
        ('{"type":"ping"}', protocol.ClientMessage(kind="ping")),
    ],
)
def test_valid_client_messages(raw: str, expected: protocol.ClientMessage) -> None:
    assert protocol.parse_client_message(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "not json",
        "[1, 2]",
        '{"type":"launch-missiles"}',
        '{"type":"resync","since":-1}',
        '{"type":"resync","since":true}',
        '{"type":"answer","choice":""}',
        '{"type":"answer","choice":"c","option":[1]}',
        '{"type":"answer","choice":"c","option":{"a":1}}',
        '{"type":"tick","step":"k","done":"yes"}',
        '{"type":"tick","step":"' + "x" * 500 + '","done":true}',
        b'{"type":"ping"}',
        '{"type":"ping","pad":"' + "x" * protocol.MAX_CLIENT_MESSAGE_BYTES + '"}',
    ],
)
def test_bad_client_messages_raise_protocol_error(raw: str | bytes) -> None:
    with pytest.raises(protocol.ProtocolError):
        protocol.parse_client_message(raw)


def test_match_option_uses_the_plans_own_values() -> None:
    choice = {"id": "c", "options": [{"value": 3, "label": "three"}, {"value": "Luxembourg"}]}
    assert protocol.match_option(choice, "3") == 3
    assert protocol.match_option(choice, "Luxembourg") == "Luxembourg"
    with pytest.raises(protocol.ProtocolError):
        protocol.match_option(choice, "Narnia")


def test_replay_timeline_reports_the_step_each_event_became_due() -> None:
    """6.2: an event due from the start is at step 0; one that becomes due later at its step."""

    def plan(*due_rules: str) -> dict:
        rules = ("16.1.1", "16.2.1")
        return {"events": [{"rule": r, "status": "fired" if r in due_rules else "not_due"} for r in rules]}

    timeline = protocol.replay_timeline(
        enumerate([plan("16.1.1"), plan("16.1.1"), plan("16.1.1", "16.2.1"), plan("16.1.1"), plan("16.2.1")])
    )
    assert [(e["rule"], e["steps"]) for e in timeline] == [("16.1.1", [0]), ("16.2.1", [2, 4])]


_values = st.one_of(st.none(), st.integers(0, 3), st.sampled_from(["a", "b"]))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    updates=st.lists(
        st.dictionaries(st.sampled_from(protocol.STATE_KEYS), _values, min_size=1, max_size=2), max_size=15
    ),
    limit=st.integers(min_value=1, max_value=8),
    joined_at=st.integers(min_value=0, max_value=15),
)
def test_snapshot_plus_deltas_always_rebuilds_the_state(updates: list, limit: int, joined_at: int) -> None:
    """A client that saw the state at some seq and then asks for deltas ends with the server's state."""
    history = protocol.StateHistory(limit=limit)
    seen: tuple[int, dict] | None = None
    for index, changes in enumerate(updates):
        if index == joined_at:
            seen = (history.seq, json.loads(json.dumps(history.state)))
        history.update(changes)
    if seen is None:
        seen = (history.seq, json.loads(json.dumps(history.state)))
    since, client_state = seen
    deltas = history.deltas_since(since)
    if deltas is None:  # too old: the server answers with a snapshot instead
        assert history.seq - since > limit
        client_state = json.loads(json.dumps(history.state))
    else:
        assert [d["seq"] for d in deltas] == list(range(since + 1, history.seq + 1))
        for delta in deltas:
            client_state.update(json.loads(json.dumps(delta["set"])))
    assert client_state == json.loads(json.dumps(history.state))
