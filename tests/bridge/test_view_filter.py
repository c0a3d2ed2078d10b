"""Issue 23: every message a page is sent passes one view filter (bridge/web/view_filter.py), and the stream
view learns nothing of a hidden piece — not its name, id, hex or hex name, nor anything derived from
them (an inset drawn around its hex, an answer's label, the "Moves written" line, a folder path).

The demo module, pack and world (module_patches/demo) give real plans: a copy of the story's save 09
with the Soviet RU 1 Inf hidden (the issue's case), and generated saves with random hidden and masked
pieces answered at random (the property test). Loopback only.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from bridge.web import protocol, server, view_filter
from bridge.web.server import OverlayServer, _Client
from tests.bridge.harness import daemon_running, receive_until, run, ws_url
from tests.bridge.savefiles import HIDDEN_PIECE, sample_plan, save_bytes, write_in_place
from vassal_parser.errors import InputError

PROJECT = Path(__file__).resolve().parents[2]
DEMO = PROJECT / "module_patches" / "demo"
MODULE = DEMO / "adjutant-demo.vmod"
FAST = {"debounce": 0.03, "retry": 0.05}
REDEPLOY = "16.5.4:redeploy"
needs_demo = pytest.mark.skipif(not MODULE.exists(),
                                reason=f"demo module not built at {MODULE} (scripts/make_demo.py builds it)")


# --- the demo world with chosen pieces hidden -----------------------------------------------------


def demo_save(folder: Path, scene_file: str, hide: dict[str, str] = {}, mask: dict[str, str] = {}) -> Path:  # noqa: B006
    """The story's save `scene_file` with the counters in `hide` hidden (Invisible, by that side) and
    those in `mask` masked, written by the project's writer as the story's own saves are."""
    from module_patches.demo_module import moduledata_xml
    from module_patches.demo_story import FIXED_KEY, Table, load_story, save_stream
    from module_patches.demo_world import WORLD
    from vassal_parser.writer import write_save

    shared = WORLD()  # (one World for the whole process: changed only in a copy)
    world = dataclasses.replace(shared, counters=[dataclasses.replace(c, hide=True) if c.id in hide else c
                                                  for c in shared.counters])
    table = Table()
    for scene in load_story():
        table.apply(scene, world)
        if scene.file == scene_file:
            break
    table.hidden.update(hide)
    table.masks.update({k: v for k, v in mask.items() if world.counter(k).mask})
    path = folder / f"{scene_file}-{len(list(folder.glob('*.vsav')))}.vsav"  # (a name that names no piece)
    write_save(path, save_stream(table, world), module_metadata=moduledata_xml(world), key=FIXED_KEY,
               ensure=False)
    return path


def secrets_of(hide: dict[str, str], scene_file: str) -> set[str]:
    """What the stream must never name for these hidden counters, worked out here from the demo
    world and pack (not from the pipeline's report): counter id, counter name (unless a visible counter
    has it too), VASSAL piece id, and where it stands when that is a map hex: hex id and hex name."""
    from module_patches.demo_story import FIRST_PIECE_ID, Table, load_story
    from module_patches.demo_world import WORLD
    from rules.packs import load_pack

    world = WORLD()
    table = Table()
    for scene in load_story():
        table.apply(scene, world)
        if scene.file == scene_file:
            break
    hexes = load_pack(DEMO / "pack").hexes
    visible_names = {c.name for c in world.counters if c.id not in hide and c.id in table.places}
    found: set[str] = set()
    for index, counter in enumerate(world.counters):
        if counter.id not in hide:
            continue
        found.add(counter.id)
        found.add(str(FIRST_PIECE_ID + index))
        if counter.name not in visible_names:
            found.add(counter.name)
        place = table.places.get(counter.id)
        if place in hexes:
            found.add(place)
            if hexes[place].name:
                found.add(hexes[place].name)
    return found


@pytest.fixture(scope="module")
def pipeline() -> Any:
    if not MODULE.exists():
        pytest.skip(f"demo module not built at {MODULE} (scripts/make_demo.py builds it)")
    from bridge.pipeline import CheckPipeline

    return CheckPipeline(MODULE, DEMO / "pack")


def _stream_client(overlay: OverlayServer, view: str = "stream") -> _Client:
    """A page of `view` as the server sees it, whose outgoing queue the test reads (no socket)."""
    client = _Client(None, view, 100_000)  # type: ignore[arg-type]
    overlay.clients.add(client)
    return client


def _sent(client: _Client) -> list[str]:
    texts = []
    while not client.queue.empty():
        texts.append(client.queue.get_nowait())
    return texts


def _event(plan: dict, rule: str) -> dict:
    return next(event for event in plan["events"] if event["rule"] == rule)


# --- the case: a hidden unit's hex through a stored answer --------------------------------


@needs_demo
def test_answering_a_redeploy_of_a_hidden_unit_puts_nothing_of_it_on_the_stream(
        tmp_path: Path, pipeline: Any) -> None:
    """16.5.4 Border Defense: the control view redeploys the hidden RU 1 Inf (in Moscow, e4314). Before,
    the stream's 16.5.4 inset got {"name": "e4314", "label": "Moscow", "focus": true} and the answer's
    label "(hidden)"; now the inset holds only what the stream may see (Brest-Litovsk and its
    neighbours) and the label only the options it is shown."""
    save = demo_save(tmp_path, "09-border-defense", hide={"RU-1": "demo-soviet"})
    forbidden = secrets_of({"RU-1": "demo-soviet"}, "09-border-defense")
    assert {"RU-1", "RU 1 Inf", "e4314", "Moscow"} <= forbidden
    watched = tmp_path / "watched"
    watched.mkdir()

    def planner(path: Path, answers: Any) -> dict:
        return pipeline.plan_file(save, answers=answers).plan

    async def scenario() -> list[dict]:
        async with daemon_running(watched, plan_function=planner, **FAST) as daemon, \
                connect(ws_url(daemon, "control")) as control, connect(ws_url(daemon, "stream")) as stream:
            write_in_place(watched / "turn.vsav", save_bytes(sample_plan()))
            await receive_until(control, lambda m: bool((m.get("state") or m.get("set") or {}).get("plan")))
            await control.send(json.dumps({"type": "answer", "choice": REDEPLOY, "option": ["RU-1:2>e3806"]}))

            def answered(m: dict) -> bool:
                plan = (m.get("set") or {}).get("plan")
                return bool(plan) and _event(plan, "16.5.4")["choices"][0]["answered"]

            last = await receive_until(control, answered)
            # the players' own view has it
            assert "e4314" in json.dumps(_event(last["set"]["plan"], "16.5.4")["map"])
            seen: list[dict] = []
            await receive_until(stream, lambda m: seen.append(m) or m.get("seq", 0) >= last["seq"])
            async with connect(ws_url(daemon, "stream")) as later:  # the stored answer, on a later page
                seen.append(json.loads(await later.recv()))
            return seen

    seen = run(scenario)
    text = json.dumps(seen, ensure_ascii=False)
    assert [name for name in sorted(forbidden) if name in text] == []
    final = next(m for m in reversed(seen) if m["type"] == "snapshot")["state"]["plan"]
    inset = _event(final, "16.5.4")["map"]
    assert "e3806" in {entry["name"] for entry in inset["hexes"] if entry["focus"]}
    choice = _event(final, "16.5.4")["choices"][0]
    assert choice["answer"] == [] and choice["answer_label"] is None


# --- one filter for every message type ------------------------------------------------------------


def test_every_message_type_a_stream_page_is_sent_goes_through_the_view_filter(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """snapshot, delta, heartbeat, pong and error: each passes `view_filter.for_view`, and none names
    the hidden piece (the error would echo a message type naming it: "(hidden)" on the stream)."""
    passed: list[tuple[str, str]] = []
    real = view_filter.for_view

    def spy(message: Any, view: str, *args: Any, **kwargs: Any) -> dict:
        passed.append((str(message.get("type")), view))
        return real(message, view, *args, **kwargs)

    monkeypatch.setattr(server.view_filter, "for_view", spy)

    async def scenario() -> list[dict]:
        async with daemon_running(tmp_path, heartbeat_interval=0.2, **FAST) as daemon, \
                connect(ws_url(daemon, "stream")) as stream:
            received = [json.loads(await stream.recv())]
            write_in_place(tmp_path / "a.vsav", save_bytes(sample_plan()))
            received.append(await receive_until(stream, lambda m: "plan" in (m.get("set") or {})))
            await stream.send(json.dumps({"type": "ping"}))
            received.append(await receive_until(stream, lambda m: m["type"] == "pong"))
            await stream.send(json.dumps({"type": f"move {HIDDEN_PIECE}"}))  # "unknown message type '…'"
            received.append(await receive_until(stream, lambda m: m["type"] == "error"))
            beat = json.loads(await asyncio.wait_for(_next_heartbeat(stream), 5))
            return [*received, beat]

    received = run(scenario)
    assert [m["type"] for m in received] == ["snapshot", "delta", "pong", "error", "heartbeat"]
    assert {kind for kind, view in passed if view == "stream"} >= {"snapshot", "delta", "pong", "error",
                                                                     "heartbeat"}
    assert HIDDEN_PIECE not in json.dumps(received)
    assert received[3]["message"] == protocol.HIDDEN_TEXT


async def _next_heartbeat(connection: Any) -> str:
    while True:
        text = await connection.recv()
        if json.loads(text)["type"] == "heartbeat":
            return text


def test_an_empty_view_is_an_unknown_view_closed_with_1008(tmp_path: Path) -> None:
    """`/ws?view=` used to get a full player snapshot (parse_qs drops blank values)."""

    async def scenario() -> None:
        async with daemon_running(tmp_path) as daemon:
            url = ws_url(daemon).replace("view=player", "view=")
            assert "view=&" in url or url.endswith("view=")
            async with connect(url) as ws:
                with pytest.raises(ConnectionClosed) as closed:
                    await ws.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008

    run(scenario)


def test_public_views_name_files_by_their_base_name(tmp_path: Path) -> None:
    """A refused save's notice carried the player's absolute folder (`/home/alice/Dropbox/vassal/
    turn12.vsav: …`); the stream and the players' views now say `turn12.vsav: …`, the control view
    keeps the path (it is the players' own desk)."""
    folder = tmp_path / "Dropbox folder" / "vassal games"
    folder.mkdir(parents=True)

    def planner(path: Path, answers: Any) -> dict:
        if path.name == "turn12.vsav":
            raise InputError(path, "BoardPicker names a board the module lacks")
        return sample_plan()

    async def scenario() -> dict[str, str]:
        async with daemon_running(folder, plan_function=planner, **FAST) as daemon:
            notices = {}
            for view in ("stream", "player", "control"):
                async with connect(ws_url(daemon, view)) as ws:
                    if view == "stream":
                        write_in_place(folder / "turn12.vsav", save_bytes(sample_plan()))
                    message = await receive_until(ws, lambda m: bool((m.get("state") or m.get("set") or {})
                                                                     .get("notice")))
                    notices[view] = (message.get("state") or message.get("set"))["notice"]
            return notices

    notices = run(scenario)
    assert notices["stream"].startswith("turn12.vsav: BoardPicker"), notices
    assert notices["player"].startswith("turn12.vsav: BoardPicker"), notices
    assert str(folder) not in notices["stream"] + notices["player"]
    assert notices["control"].startswith(str(folder / "turn12.vsav"))


def test_base_names_only_leaves_the_text_around_a_path() -> None:
    shown = view_filter.base_names_only("/home/a/x.vsav: bad (see /var/log/y.log)")
    assert shown == "x.vsav: bad (see y.log)"
    assert view_filter.base_names_only(r"C:\Users\al\turn.vsav: bad") == "turn.vsav: bad"
    assert view_filter.base_names_only("/my games/t.vsav: bad", ["/my games"]) == "t.vsav: bad"
    assert view_filter.base_names_only("1/2 of Poland, and/or e3806") == "1/2 of Poland, and/or e3806"


# --- the property: random saves, random answers, nothing of a hidden piece on the stream ------------

SCENES = ["02-poland-falls", "04-hungary-occupied", "05-case-yellow", "06-finest-hour", "09-border-defense"]


def _scene_counters(scene_file: str) -> tuple[list[str], list[str]]:
    from module_patches.demo_story import Table, load_story
    from module_patches.demo_world import WORLD

    world = WORLD()
    table = Table()
    for scene in load_story():
        table.apply(scene, world)
        if scene.file == scene_file:
            break
    placed = [c.id for c in world.counters if c.id in table.places and c.kind not in ("marker", "state")
              and c.id != "TURN"]
    cards = [c.id for c in world.counters if c.id in table.places and c.mask]
    return placed, cards


@st.composite
def games(draw: Any) -> tuple[str, dict[str, str], dict[str, str], list[tuple[int, int]]]:
    scene = draw(st.sampled_from(SCENES))
    placed, cards = _scene_counters(scene)
    hidden = draw(st.lists(st.sampled_from(placed), min_size=1, max_size=3, unique=True))
    sides = st.sampled_from(["demo-axis", "demo-west", "demo-soviet"])
    hide = {counter: draw(sides) for counter in hidden}
    mask = {card: draw(sides) for card in draw(st.lists(st.sampled_from(cards), max_size=2, unique=True))} \
        if cards else {}
    answers = draw(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 20)), max_size=3))
    return scene, hide, mask, answers


def _all_choices(plan: dict) -> list[dict]:
    return [*plan.get("choices", []), *(c for e in plan.get("events", []) for c in e.get("choices", []))]


def _an_answer(choice: dict, pick: int, count: int) -> Any:
    values = [option["value"] for option in choice.get("options") or []]
    if not values:
        return None
    if choice.get("multiple"):
        return [values[(pick + k) % len(values)] for k in range(1 + count % min(3, len(values)))]
    return values[pick % len(values)]


@needs_demo
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(game=games())
def test_no_byte_of_any_stream_message_names_a_hidden_piece(tmp_path: Path, pipeline: Any, game: Any) -> None:
    """For random saves with hidden and masked pieces and random answer sequences (each published as
    the daemon publishes it: answers, then the re-plan, a refused answer taken back), no byte of any
    message to a stream page, nor of a stream page's snapshot or catch-up, names a hidden piece, its
    counter id, its VASSAL id, its hex or its hex's name, nor a masked card's name."""
    scene, hide, mask, picks = game
    save = demo_save(tmp_path, scene, hide, mask)
    forbidden = secrets_of(hide, scene)
    overlay = OverlayServer(port=0)
    overlay.private_folders = (str(tmp_path),)
    stream = _stream_client(overlay)
    answers: dict[str, Any] = {}
    plan = pipeline.plan_file(save, answers=answers).plan
    forbidden |= {name for name in plan["vassal"]["concealed_names"] if name.startswith("Card ")}
    overlay.publish({"status": "ok", "file": save.name, "plan": protocol.annotate_step_keys(plan),
                     "notice": f"{save}: planned"})
    for pick, count in picks:
        choices = _all_choices(plan)
        if not choices:
            break
        choice = choices[pick % len(choices)]
        value = _an_answer(choice, pick, count)
        if value is None:
            continue
        tried = {**answers, choice["id"]: value}
        overlay.publish({"answers": tried})
        try:
            plan = pipeline.plan_file(save, answers=tried).plan
        except InputError:
            overlay.publish({"answers": answers})  # taken back, as the daemon does
            continue
        answers = tried
        overlay.publish({"plan": protocol.annotate_step_keys(plan), "answers": answers})
    texts = _sent(stream)
    overlay._catch_up(stream, None)  # a page connecting now: a snapshot
    overlay._catch_up(stream, 0, overlay.history.run)  # a page catching up from the start: every delta
    texts += _sent(stream)
    leaked = sorted(name for name in forbidden if any(name in text for text in texts))
    assert leaked == [], f"{scene} hide={hide} mask={mask} answers={answers}: {leaked}"
    assert str(tmp_path) not in "".join(texts)


def test_what_the_stream_is_told_is_waited_for_is_only_what_it_is_shown() -> None:
    """A choice withheld (its prompt names a hidden piece) is no longer listed in `pending_choices` or an
    event's `waiting_for` on the stream: the ids would say a choice about something hidden is open."""
    plan = {"pending_choices": ["16.5.4:redeploy", "16.2.1:country"], "hidden_pieces": [HIDDEN_PIECE],
            "events": [{"rule": "16.5.4", "status": "waiting", "waiting_for": ["16.5.4:redeploy"],
                        "choices": [{"id": "16.5.4:redeploy", "prompt": f"Where does {HIDDEN_PIECE} go?",
                                     "options": []}]},
                       {"rule": "16.2.1", "status": "waiting", "waiting_for": ["16.2.1:country"],
                        "choices": [{"id": "16.2.1:country", "prompt": "Which country?", "options": []}]}]}
    state = {**protocol.empty_state(), "plan": plan}
    shown = view_filter.for_view({"type": "snapshot", "state": state}, "stream", state)["state"]["plan"]
    assert shown["pending_choices"] == ["16.2.1:country"]
    assert [event["waiting_for"] for event in shown["events"]] == [[], ["16.2.1:country"]]
    control = view_filter.for_view({"type": "snapshot", "state": state}, "control", state)["state"]["plan"]
    assert control["pending_choices"] == plan["pending_choices"]
