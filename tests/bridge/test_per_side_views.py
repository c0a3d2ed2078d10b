"""Issue 43: each printed URL's token opens its own view only, and a player view shows what VASSAL shows
that faction's side(s): its own hidden and masked pieces, no other side's.

The demo's sides are Axis, Western and Soviet (its PlayerRoster; the pack's `[vassal.sides]`). The
save is the story's 09 with RU 1 Inf hidden in Moscow by the Soviet side (VASSAL's Invisible trait,
side access: `hide;…;side:;…`, state `Soviet`), as the issue tried it. Tokens are read from the URLs
the server prints (`OverlayServer.view_url`), so each test asks what a user holding that URL gets.
Real sockets, 127.0.0.1 only.
"""

from __future__ import annotations

import asyncio
import http.client
import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from bridge.mapping.sides import Concealment, faction_sees, parse_access
from bridge.web import protocol, view_filter
from bridge.web.server import OverlayServer, _Client
from tests.bridge.harness import daemon_running, receive_until, run
from tests.bridge.savefiles import sample_plan, save_bytes, write_in_place
from tests.bridge.test_view_filter import (
    DEMO,
    FAST,
    MODULE,
    SCENES,
    _scene_counters,
    _sent,
    demo_save,
    needs_demo,
    secrets_of,
)
from vassal_parser.errors import InputError

FACTIONS = ("Axis", "Western", "Soviet")
HIDE = {"RU-1": "Soviet"}  # hidden by the Soviet side (the demo's Invisible trait has side access)
SCENE = "09-border-defense"


@pytest.fixture(scope="module")
def pipeline() -> Any:
    if not MODULE.exists():
        pytest.skip(f"demo module not built at {MODULE} (scripts/make_demo.py builds it)")
    from bridge.pipeline import CheckPipeline

    return CheckPipeline(MODULE, DEMO / "pack")


def token_of(url: str) -> str:
    return parse_qs(urlsplit(url).query)["token"][0]


def _get(port: int, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str]]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}
    finally:
        connection.close()


def _ws(port: int, query: str) -> str:
    return f"ws://127.0.0.1:{port}/ws?{query}"


async def _snapshot_with_plan(url: str, **options: Any) -> dict:
    async with connect(url, max_size=None, **options) as ws:
        return await receive_until(ws, lambda m: bool((m.get("state") or {}).get("plan")))


async def _planned(daemon: Any) -> None:
    """Until the daemon has planned the save (each page opened after that gets it in its snapshot)."""
    while daemon.server.history.state.get("plan") is None:
        await asyncio.sleep(0.02)


async def _refused(url: str, **options: Any) -> int:
    with pytest.raises(InvalidStatus) as refused:
        async with connect(url, **options):
            pass
    return refused.value.response.status_code


def _planner(pipeline: Any, save: Path) -> Any:
    def plan(_path: Path, answers: Any) -> dict:
        return pipeline.plan_file(save, answers=answers).plan

    return plan


# --- the stream URL is not a key to anything else --------------------------------------------------------


@needs_demo
def test_the_stream_urls_token_opens_no_player_view_and_no_control_view(tmp_path: Path,
                                                                        pipeline: Any) -> None:
    """Before, the stream URL's (read) token opened `?view=player&faction=Axis`, which named the hidden
    RU 1 Inf, its counter id and Moscow."""
    save = demo_save(tmp_path, SCENE, hide=HIDE)
    watched = tmp_path / "watched"
    watched.mkdir()

    async def scenario() -> list[str]:
        async with daemon_running(watched, plan_function=_planner(pipeline, save), **FAST) as daemon:
            server, port = daemon.server, daemon.server.port
            stream = token_of(server.view_url("view=stream"))
            write_in_place(watched / "turn.vsav", save_bytes(sample_plan()))
            await _planned(daemon)
            shown = await _snapshot_with_plan(_ws(port, f"view=stream&token={stream}"))
            for query in (*(f"view=player&faction={f}" for f in FACTIONS), "view=player", "view=control"):
                assert (await asyncio.to_thread(_get, port, f"/?{query}&token={stream}"))[0] == 403, query
                assert await _refused(_ws(port, f"{query}&token={stream}")) == 403, query
            # nor through its cookie, from the page's own origin
            status, headers = await asyncio.to_thread(_get, port, f"/?view=stream&token={stream}")
            cookie = headers["set-cookie"].split(";")[0]
            assert status == 200 and cookie == f"adjutant-{port}-stream={stream}"
            own = {"origin": f"http://127.0.0.1:{port}", "additional_headers": {"Cookie": cookie}}
            for query in ("view=player&faction=Axis", "view=player", "view=control"):
                assert (await asyncio.to_thread(_get, port, f"/?{query}", {"Cookie": cookie}))[0] == 403
                assert await _refused(_ws(port, query), **own) == 403, query
            return [json.dumps(shown)]

    texts = run(scenario)
    assert [name for name in sorted(secrets_of(HIDE, SCENE)) if name in texts[0]] == []


# --- a player's URL is their own ---------------------------------------------------------------------------


@needs_demo
def test_each_player_url_shows_its_own_sides_hidden_pieces_and_no_other_sides(tmp_path: Path,
                                                                               pipeline: Any) -> None:
    """The Soviet player's URL shows the Soviet-hidden RU 1 Inf (16.5.4 may redeploy it); the Axis and
    Western URLs name nothing of it (id, name, VASSAL id, Moscow, e4314); the control URL has it all."""
    save = demo_save(tmp_path, SCENE, hide=HIDE)
    watched = tmp_path / "watched"
    watched.mkdir()

    async def scenario() -> dict[str, dict]:
        async with daemon_running(watched, plan_function=_planner(pipeline, save), **FAST) as daemon:
            server, port = daemon.server, daemon.server.port
            write_in_place(watched / "turn.vsav", save_bytes(sample_plan()))
            await _planned(daemon)
            seen = {}
            for faction in FACTIONS:
                url = server.view_url(f"view=player&faction={faction}")
                seen[faction] = await _snapshot_with_plan(_ws(port, f"view=player&faction={faction}"
                                                                   f"&token={token_of(url)}"))
            seen["control"] = await _snapshot_with_plan(_ws(port, f"view=control&token="
                                                                  f"{token_of(server.view_url('view=control'))}"))
            return seen

    seen = run(scenario)
    forbidden = secrets_of(HIDE, SCENE)
    assert {"RU-1", "RU 1 Inf", "e4314", "Moscow"} <= forbidden
    for faction in ("Axis", "Western"):
        text = json.dumps(seen[faction], ensure_ascii=False)
        assert [name for name in sorted(forbidden) if name in text] == [], faction
    soviet = seen["Soviet"]["state"]["plan"]
    options = [option["value"] for event in soviet["events"] if event["rule"] == "16.5.4"
               for choice in event["choices"] for option in choice["options"]]
    assert any(str(value).startswith("RU-1:") for value in options), options  # its own piece, shown
    assert "vassal" not in soviet or "concealed_from" not in soviet["vassal"]  # who hides what: control's
    control = json.dumps(seen["control"], ensure_ascii=False)
    assert {"RU-1", "RU 1 Inf", "e4314"} <= {name for name in forbidden if name in control}


@needs_demo
def test_the_masked_card_of_one_side_is_its_own_and_a_piece_hidden_by_a_player_id_is_nobodys(
        tmp_path: Path, pipeline: Any) -> None:
    """Masked (Mask, side access) by the Western side: only the Western view knows the card's face. Hidden
    by a player's password (`demo-soviet`, not a side): no side can be placed, so no player view shows
    it, the Soviet one neither (VASSAL would show it to that one player only)."""
    save = demo_save(tmp_path, SCENE, hide={"RU-1": "demo-soviet"})
    plan = protocol.annotate_step_keys(pipeline.plan_file(save).plan)
    state = {**protocol.empty_state(), "plan": plan}
    masked = [name for name, by in plan["vassal"]["concealed_from"]["Soviet"]["kept_by"].items()
              if by == "the Western side" and not name.startswith("piece:")]
    assert masked, plan["vassal"]["concealed_from"]  # the story's face-down Western card
    views = {faction: json.dumps(view_filter.for_view({"type": "snapshot", "state": state}, "player", state,
                                                      faction=faction), ensure_ascii=False)
             for faction in FACTIONS}
    for faction in FACTIONS:
        assert "RU 1 Inf" not in views[faction] and '"RU-1' not in views[faction], faction
    assert plan["vassal"]["concealed_from"]["Western"]["names"].count(masked[0]) == 0
    assert masked[0] not in views["Soviet"] and masked[0] not in views["Axis"]


@needs_demo
def test_the_axis_url_edited_to_another_faction_opens_nothing(tmp_path: Path, pipeline: Any) -> None:
    """By the query or by the cookie, page or websocket: `faction=Soviet` (or `soviet`) with the Axis
    player's token is refused; the Axis view itself and its cookie reload keep working (the bookmark
    and the VASSAL extension's `?view=player&faction=$PlayerSide$` link)."""
    save = demo_save(tmp_path, SCENE, hide=HIDE)
    watched = tmp_path / "watched"
    watched.mkdir()

    async def scenario() -> None:
        async with daemon_running(watched, plan_function=_planner(pipeline, save), **FAST) as daemon:
            server, port = daemon.server, daemon.server.port
            axis = token_of(server.view_url("view=player&faction=Axis"))
            write_in_place(watched / "turn.vsav", save_bytes(sample_plan()))
            await _planned(daemon)
            status, headers = await asyncio.to_thread(_get, port, f"/?view=player&faction=Axis&token={axis}")
            cookie = headers["set-cookie"].split(";")[0]
            assert status == 200 and cookie == f"adjutant-{port}-player-Axis={axis}"
            own = {"origin": f"http://127.0.0.1:{port}", "additional_headers": {"Cookie": cookie}}
            for other in ("Soviet", "soviet", "Western", "Soviet%20"):
                query = f"view=player&faction={other}"
                assert (await asyncio.to_thread(_get, port, f"/?{query}&token={axis}"))[0] == 403, other
                by_cookie = await asyncio.to_thread(_get, port, f"/?{query}", {"Cookie": cookie})
                assert by_cookie[0] == 403, other
                assert await _refused(_ws(port, f"{query}&token={axis}")) == 403, other
                assert await _refused(_ws(port, query), **own) == 403, other
            reload = await asyncio.to_thread(_get, port, "/?view=player&faction=axis", {"Cookie": cookie})
            assert reload[0] == 200
            shown = await _snapshot_with_plan(_ws(port, "view=player&faction=Axis"), **own)
            assert shown["access"] == "read" and "RU 1 Inf" not in json.dumps(shown)
            # the control URL opens every view, any faction's player view too
            control = token_of(server.view_url("view=control"))
            soviet = await _snapshot_with_plan(_ws(port, f"view=player&faction=Soviet&token={control}"))
            assert "RU 1 Inf" in json.dumps(soviet, ensure_ascii=False)

    run(scenario)


# --- a step about another side's hidden piece: said, not named --------------------------------------------


def test_a_step_about_another_sides_hidden_piece_says_whose_it_is_without_naming_it() -> None:
    plan = protocol.annotate_step_keys({
        "events": [{"rule": "16.5.4", "title": "Border Defense", "status": "fired",
                    "steps": [{"step": "Step 1", "text": "move RU 1 Inf (RU-1) from Moscow to e3806"},
                              {"step": "Step 2", "text": "move RU 3 Inf (RU-3) to e3807"}],
                    "choices": [{"id": "16.5.4:which", "decider": "Soviet", "prompt": "Which of RU 1 Inf?",
                                 "options": [{"value": "a", "label": "a"}]}]}],
        "resulting_position": {"counters": {"RU-1": {"hex": "e3806"}, "RU-3": {"hex": "e3807"}}},
        "vassal": {"unmapped_pieces": {"RU 1 Inf": 1, "Spare marker": 2}, "concealed_from": {
            "Axis": {"names": ["RU 1 Inf", "RU-1"], "places": ["Moscow"],
                     "kept_by": {"RU 1 Inf": "the Soviet side", "RU-1": "the Soviet side"}},
            "Soviet": {"names": [], "places": [], "kept_by": {}}}}})
    state = {**protocol.empty_state(), "plan": plan, "ticks": {plan["events"][0]["steps"][0]["key"]: True}}

    def view(faction: str) -> dict:
        message = {"type": "snapshot", "state": state}
        return view_filter.for_view(message, "player", state, faction=faction)["state"]

    axis = view("Axis")
    event = axis["plan"]["events"][0]
    assert event["steps"][0] == {"text": "A step for a piece the Soviet side keeps hidden", "withheld": True,
                                 "key": plan["events"][0]["steps"][0]["key"]}
    assert event["steps"][1]["text"] == "move RU 3 Inf (RU-3) to e3807"
    assert event["choices"][0]["prompt"] == "A choice about a piece the Soviet side keeps hidden"
    assert event["choices"][0]["options"] == [] and event["choices"][0]["decider"] == "Soviet"
    text = json.dumps(axis)
    assert "RU 1 Inf" not in text and "RU-1" not in text and "Moscow" not in text
    assert axis["plan"]["vassal"]["unmapped_pieces"] == {"Spare marker": 2}  # counted by name: keys too
    assert list(axis["plan"]["resulting_position"]["counters"]) == ["RU-3"]
    assert axis["ticks"] == state["ticks"]  # the withheld step's tick still finds it (its key names nothing)
    soviet = view("Soviet")
    assert soviet["plan"]["events"][0]["steps"][0]["text"] == "move RU 1 Inf (RU-1) from Moscow to e3806"
    assert "vassal" in soviet["plan"] and "concealed_from" not in soviet["plan"]["vassal"]
    # an observer's player view (no faction) and an unknown faction: no side's hidden piece
    for faction in (None, "?"):
        shown = view_filter.for_view({"type": "snapshot", "state": state}, "player", state, faction=faction)
        assert "RU 1 Inf" not in json.dumps(shown), faction


# --- VASSAL's access rules ---------------------------------------------------------------------------------


def test_vassal_access_side_sides_and_player_as_piece_access_decides_it() -> None:
    """SideAccess: the owner side; SpecifiedSideAccess: every listed side if the owner is listed, else
    none; PlayerAccess (and an old trait without an access field): no side."""
    assert parse_access("side:") == ("side", ())
    assert parse_access("sides:Western:Soviet") == ("sides", ("Western", "Soviet"))
    assert parse_access("player:") == ("player", ()) and parse_access("") == ("player", ())
    side = Concealment("hidden", "Soviet", *parse_access("side:"))
    listed = Concealment("hidden", "Soviet", *parse_access("sides:Western:Soviet"))
    unlisted = Concealment("hidden", "Axis", *parse_access("sides:Western:Soviet"))
    player = Concealment("hidden", "demo-soviet", *parse_access("player:"))
    assert [side.seen_by(s) for s in FACTIONS] == [False, False, True]
    assert [listed.seen_by(s) for s in FACTIONS] == [False, True, True]
    assert [unlisted.seen_by(s) for s in FACTIONS] == [False, False, False]
    assert [player.seen_by(s) for s in FACTIONS] == [False, False, False]
    # a faction of two sides sees what both would: whichever the player took, nothing VASSAL hides from it
    assert faction_sees([listed], ["Western", "Soviet"]) and not faction_sees([side], ["Western", "Soviet"])
    assert not faction_sees([side, player], ["Soviet"]) and not faction_sees([side], [])


def test_the_invisible_traits_access_is_read_from_its_type() -> None:
    from module_patches.demo_pieces import hide_trait
    from vassal_parser.traits import Invisible

    type_, _state = hide_trait()
    assert Invisible(type_, "Soviet", "hide;").access == "side:"
    assert Invisible("hide;73,130;Hide", "Soviet", "hide;").access == ""  # an old trait: player access


# --- which sides a faction plays: pack data, proposed by `pack scaffold` -----------------------------------


def test_the_pack_says_which_sides_each_faction_plays_and_a_bad_table_is_one_line(tmp_path: Path) -> None:
    from bridge.mapping.mapper import VassalMapping
    from vassal_parser.errors import InputError

    table = {"sides": {"Western": ["Britain", "France"], "Soviet": "USSR"}}
    mapping = VassalMapping.from_table(table, "v.toml")
    assert mapping.sides == {"Western": ["Britain", "France"], "Soviet": ["USSR"]}
    assert VassalMapping.from_table({}, "v.toml").sides == {}  # then: the side named like the faction
    with pytest.raises(InputError) as bad:
        VassalMapping.from_table({"sides": {"Allies": ["Britain"]}}, "v.toml")
    assert bad.value.one_line() == \
        "v.toml: [vassal.sides] 'Allies' is not a faction (one of Axis, Western, Soviet)"
    with pytest.raises(InputError):
        VassalMapping.from_table({"sides": {"Axis": [1]}}, "v.toml")


@needs_demo
def test_scaffold_proposes_the_sides_from_the_player_roster_by_name(corpus_dir: Path) -> None:
    import dataclasses
    import tomllib

    from bridge.cli.commands.pack import scaffold_text
    from bridge.mapping.mapper import VassalMapping
    from vassal_parser.module import load_module

    demo = load_module(MODULE)
    assert demo.sides == ["Axis", "Western", "Soviet"]
    text = scaffold_text(demo)["vassal.toml"]
    assert 'Axis = ["Axis"]\nWestern = ["Western"]\nSoviet = ["Soviet"]' in text and "PROPOSED" in text
    assert VassalMapping.from_table(tomllib.loads(text)["vassal"], "v.toml").sides == {
        "Axis": ["Axis"], "Western": ["Western"], "Soviet": ["Soviet"]}
    other = dataclasses.replace(demo, sides=["Axis Powers", "Western Allies", "USSR"])
    text = scaffold_text(other)["vassal.toml"]
    assert 'Axis = ["Axis Powers"]' in text and 'Western = ["Western Allies"]' in text
    assert "# Soviet = []" in text and "No faction matched by name (add each where it belongs): USSR" in text
    real = corpus_dir / "uckelman__tld-mod" / "buildFile"
    if real.is_file():  # a real module's roster: Allies and Germans, neither named like a faction
        module = load_module(real)
        assert module.sides == ["Allies", "Germans"]
        assert "No faction matched by name (add each where it belongs): Allies, Germans" in \
            scaffold_text(module)["vassal.toml"]


# --- the rule on random games -----------------------------------------------------------------------------

OWNERS = ["Axis", "Western", "Soviet", "demo-soviet"]  # three sides and a player's password (no side)


@st.composite
def side_games(draw: Any) -> tuple[str, dict[str, str], dict[str, str], list[tuple[int, int]]]:
    scene = draw(st.sampled_from(SCENES))
    placed, cards = _scene_counters(scene)
    hidden = draw(st.lists(st.sampled_from(placed), min_size=1, max_size=3, unique=True))
    hide = {counter: draw(st.sampled_from(OWNERS)) for counter in hidden}
    mask = {card: draw(st.sampled_from(OWNERS))
            for card in draw(st.lists(st.sampled_from(cards), max_size=2, unique=True))} if cards else {}
    answers = draw(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 20)), max_size=2))
    return scene, hide, mask, answers


@needs_demo
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(game=side_games())
def test_no_player_view_message_names_a_piece_another_side_conceals(tmp_path: Path, pipeline: Any,
                                                                     game: Any) -> None:
    """Random saves with pieces hidden and cards masked by random sides (or a player's password), random
    answers published as the daemon publishes them: no byte of any message to a faction's player page, nor
    of its snapshot or catch-up, names a piece hidden from that faction (id, name, VASSAL id, hex, hex
    name) or a card another side masks; the concealing side's own page is filtered by the same gate."""
    from module_patches.demo_world import WORLD

    scene, hide, mask, picks = game
    save = demo_save(tmp_path, scene, hide, mask)
    world = WORLD()
    overlay = OverlayServer(port=0)
    clients = {faction: _Client(None, "player", 100_000, "read", faction)  # type: ignore[arg-type]
               for faction in FACTIONS}
    overlay.clients.update(clients.values())
    answers: dict[str, Any] = {}
    plan = pipeline.plan_file(save, answers=answers).plan
    overlay.publish({"status": "ok", "file": save.name, "plan": protocol.annotate_step_keys(plan)})
    for pick, count in picks:
        choices = [*plan.get("choices", []), *(c for e in plan["events"] for c in e.get("choices", []))]
        values = [option["value"] for choice in choices[pick % len(choices):][:1]
                  for option in choice.get("options") or []] if choices else []
        if not values:
            break
        choice = choices[pick % len(choices)]
        value = [values[(pick + k) % len(values)] for k in range(1 + count % min(3, len(values)))] \
            if choice.get("multiple") else values[pick % len(values)]
        tried = {**answers, choice["id"]: value}
        overlay.publish({"answers": tried})
        try:
            plan = pipeline.plan_file(save, answers=tried).plan
        except InputError:
            overlay.publish({"answers": answers})
            continue
        answers = tried
        overlay.publish({"plan": protocol.annotate_step_keys(plan), "answers": answers})
    for faction, client in clients.items():
        texts = _sent(client)
        overlay._catch_up(client, None)
        overlay._catch_up(client, 0, overlay.history.run)
        texts += _sent(client)
        forbidden = secrets_of({c: owner for c, owner in hide.items() if owner != faction}, scene)
        forbidden |= {world.counter(card).name for card, owner in mask.items()
                      if owner != faction and world.counter(card).name.startswith("Card ")}
        leaked = sorted(name for name in forbidden if any(name in text for text in texts))
        assert leaked == [], f"{faction}: {scene} hide={hide} mask={mask} answers={answers}: {leaked}"


def test_pack_check_says_when_a_faction_plays_no_side_of_the_module() -> None:
    from bridge.mapping.sides import side_warnings

    assert side_warnings({}, ["Axis", "Western", "Soviet"], FACTIONS) == []  # the demo
    assert side_warnings({}, [], FACTIONS) == []  # a module without a roster: nothing to check against
    assert side_warnings({"Western": ["Britian"]}, ["Axis", "Britain", "Soviet"], FACTIONS) == [
        "[vassal.sides]: the module's PlayerRoster (Axis, Britain, Soviet) has no side Western ('Britian'): "
        "their player views would show none of their own hidden pieces"]
    assert side_warnings({}, ["Allies", "Germans"], FACTIONS) == [
        "[vassal.sides]: the module's PlayerRoster (Allies, Germans) has no side Axis ('Axis', by default); "
        "Western ('Western', by default); Soviet ('Soviet', by default): their player views would show none "
        "of their own hidden pieces"]
