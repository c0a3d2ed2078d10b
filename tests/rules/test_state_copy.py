"""`GameState.clone` and `GameState.to_json` (rules/state.py) against the general forms they replace.

Why: both run on every plan (the engine works on a clone and writes its resulting position), and
their fast forms copy the position's records field by field. They must give exactly what
`copy.deepcopy` and `dataclasses.asdict` give, on random states and on the real ones the demo saves
and the example positions make, and a clone must share no mutable value with its original, for
every field — including a field added later (then `test_the_full_state_sets_every_field` fails
until the field is given a value here, and the sharing test checks it is copied).
"""

from __future__ import annotations

import copy
import json
from dataclasses import MISSING, asdict, fields, is_dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.state import Counter, CountryState, GameState, Turn

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "module_patches" / "demo"


def reference_json(state: GameState) -> dict[str, Any]:
    """The position's JSON as `dataclasses.asdict` makes it (the form `to_json` had before)."""
    return {
        "pack": state.pack,
        "turn": asdict(state.turn),
        "countries": {n: {k: v for k, v in asdict(c).items() if k != "name"}
                      for n, c in state.countries.items()},
        "counters": [asdict(c) for c in state.counters.values()],
        "actions": copy.deepcopy(state.actions),
        **({"posture_boxes": {n: {"markers": list(m)} for n, m in state.posture_boxes.items()}}
           if state.posture_boxes else {}),
        **({"awaw": state.awaw.to_json()} if state.awaw is not None else {}),
    }


def mutable_parts(value: Any, found: dict[int, Any]) -> dict[int, Any]:
    """Every mutable object reachable from `value` (lists, dicts, sets, dataclass instances), by id."""
    if isinstance(value, (list, dict, set)) or (is_dataclass(value) and not isinstance(value, type)):
        if id(value) in found:
            return found
        found[id(value)] = value
        items = (value.values() if isinstance(value, dict) else value.__dict__.values()
                 if is_dataclass(value) else value)
        for item in items:
            mutable_parts(item, found)
    return found


def assert_same_and_separate(original: GameState, clone: GameState) -> None:
    assert clone == original
    assert clone == copy.deepcopy(original)
    assert clone.to_json() == original.to_json()
    shared = set(mutable_parts(original, {})) & set(mutable_parts(clone, {}))
    assert not shared, "the clone shares mutable values with the original"


# ---- random states ------------------------------------------------------------------------------
text = st.text(max_size=6)
atoms = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), text)
# Mostly flat values (the fast path); sometimes a nested one (the general fallback).
nested = st.one_of(st.lists(st.lists(text, max_size=2), max_size=2),
                   st.dictionaries(text, st.lists(text), max_size=2))
flat_list = st.one_of(st.lists(text, max_size=3), nested)
flat_dict = st.one_of(st.dictionaries(text, text, max_size=3), nested)


@st.composite
def counters(draw: Any) -> Counter:
    maybe = st.none() | text
    return Counter(id=draw(text), name=draw(text), nationality=draw(maybe), faction=draw(maybe),
                   kind=draw(text), location=draw(text), steps=draw(st.integers(0, 4)),
                   exp=draw(st.booleans()),
                   delay_stripe=draw(st.booleans()), reinforcement=draw(st.none() | text),
                   partnership=draw(st.booleans()), multinational=draw(st.booleans()),
                   colonial_of=draw(st.none() | text), area=draw(st.none() | text), tags=draw(flat_list),
                   flipped=draw(st.booleans()), supplied=draw(st.booleans()),
                   overland_supply=draw(st.booleans()),
                   star=draw(st.booleans()))


@st.composite
def states(draw: Any) -> GameState:
    turn = Turn(date=draw(text), seasonal=draw(st.booleans()), phasing=draw(text), segment=draw(text),
                war_state=draw(text), current_cards=draw(flat_dict), cards_played=draw(flat_list),
                fired=draw(flat_list), combined_game=draw(st.booleans()))
    countries = {name: CountryState(name=name, faction=draw(text), status=draw(text),
                                    posture=draw(st.none() | text),
                                    markers=draw(flat_list), annexed_to=draw(st.none() | text),
                                    dependent_of=draw(st.none() | text), flags=draw(flat_list))
                 for name in draw(st.lists(text, max_size=4, unique=True))}
    listed = draw(st.lists(counters(), max_size=6))
    actions = draw(st.lists(st.dictionaries(text, atoms, max_size=3), max_size=2))
    boxes = draw(st.dictionaries(text, st.lists(text, max_size=2), max_size=2))
    return GameState(pack=draw(st.none() | text), turn=turn, countries=countries,
                     counters={c.id: c for c in listed}, actions=actions, source=draw(text),
                     posture_boxes=boxes)


@settings(max_examples=150, deadline=None)
@given(states())
def test_clone_and_json_equal_the_general_forms_on_random_states(state: GameState) -> None:
    assert state.to_json() == reference_json(state)
    assert json.dumps(state.to_json()) == json.dumps(reference_json(state))  # key order too
    assert_same_and_separate(state, state.clone())


# ---- a state with every field set ----------------------------------------------------------------
def full_state() -> GameState:
    """A state in which every field of every record differs from its default and holds values."""
    counter = Counter(id="GE-1", name="German 1", nationality="Germany", faction="Axis", kind="ground",
                      location="w0101", steps=2, exp=True, delay_stripe=True, reinforcement="V",
                      partnership=True, multinational=True, colonial_of="France", area="ostland",
                      tags=["lend_lease"], flipped=True,
                      supplied=False, overland_supply=False, star=True)
    country = CountryState(name="Poland", faction="Western", status="active", posture="War",
                           markers=["Truce"], annexed_to="Germany", dependent_of="Britain", flags=["vichy"])
    turn = Turn(date="1939-09", seasonal=True, phasing="Western", segment="war_peace", war_state="Total War",
                current_cards={"Axis": "4"}, cards_played=["4d"], fired=["16.1.1"], combined_game=True)
    from rules.awaw.position import AwawPosition

    awaw = AwawPosition(game_turn=3, phase="unit_construction", side="Allied", powers=["Russia"],
                        scenario="European", russia={"dp_level": 2})
    return GameState(pack="tk", turn=turn, countries={"Poland": country}, counters={"GE-1": counter},
                     actions=[{"kind": "declare_war", "markers": [{"country": "Poland", "from": "x"}]}],
                     source="<full>", posture_boxes={"Soviet Minors": ["Truce"]}, awaw=awaw)


def _default(spec: Any) -> Any:
    if spec.default is not MISSING:
        return spec.default
    return spec.default_factory() if spec.default_factory is not MISSING else MISSING


def test_the_full_state_sets_every_field() -> None:
    """A field added to a record later must be given a value in `full_state`, so the tests below see
    whether `clone` copies it."""
    state = full_state()
    records = [state, state.turn, *state.countries.values(), *state.counters.values()]
    for record in records:
        for spec in fields(record):
            value = getattr(record, spec.name)
            where = f"full_state: give {type(record).__name__}.{spec.name} a value"
            assert value != _default(spec), where
            assert value not in ([], {}, None, ""), where


def test_mutating_a_clone_never_touches_the_original() -> None:
    state = full_state()
    before = copy.deepcopy(state)
    clone = state.clone()
    assert_same_and_separate(state, clone)
    for part in mutable_parts(clone, {}).values():  # every list, dict and record reachable from the clone
        if isinstance(part, list):
            part.append("changed")
        elif isinstance(part, dict):
            part["changed"] = "changed"
        elif is_dataclass(part):
            for spec in fields(part):
                if isinstance(getattr(part, spec.name), (str, int, type(None))):
                    setattr(part, spec.name, "changed")
    assert state == before


def test_a_record_holding_other_values_is_copied_the_general_way() -> None:
    """A record field holding a nested value (not made by `from_json`) still copies and converts as
    `deepcopy` and `asdict` do."""
    state = full_state()
    state.counters["GE-1"].tags = [["nested"], {"a": ["b"]}]  # type: ignore[list-item]
    state.turn.current_cards = {"Axis": ["4", "5"]}  # type: ignore[dict-item]
    assert state.to_json() == reference_json(state)
    assert_same_and_separate(state, state.clone())


def test_a_record_with_an_attribute_beyond_its_fields() -> None:
    """`asdict` writes only fields; `deepcopy` copies every attribute (the clone must too)."""
    state = full_state()
    state.counters["GE-1"].note = ["kept"]  # type: ignore[attr-defined]
    state.turn.__dict__ = {"fired": [], **state.turn.__dict__}  # the same fields, in another order
    assert json.dumps(state.to_json()) == json.dumps(reference_json(state))
    clone = state.clone()
    assert clone.counters["GE-1"].__dict__ == copy.deepcopy(state).counters["GE-1"].__dict__
    assert clone.counters["GE-1"].note is not state.counters["GE-1"].note  # type: ignore[attr-defined]
    assert_same_and_separate(state, clone)


def test_a_value_two_records_share_stays_shared_as_deepcopy_keeps_it() -> None:
    state = full_state()
    twin = copy.copy(state.counters["GE-1"])
    twin.id = "GE-2"
    state.counters["GE-2"] = twin  # the same `tags` list in two counters
    clone = state.clone()
    assert clone == copy.deepcopy(state)
    assert clone.counters["GE-1"].tags is clone.counters["GE-2"].tags
    assert clone.counters["GE-1"].tags is not state.counters["GE-1"].tags


def test_from_json_shares_nothing_with_its_data() -> None:
    """The engine may work on a state in place (`plan(in_place=True)`): none of its changes may reach
    the JSON the state was read from."""
    data = full_state().to_json()
    data["awaw"] = json.loads((ROOT / "examples" / "awaw" / "offer.position.json").read_text())["awaw"]
    del data["turn"]["phasing"]  # the AWAW part gives it
    state = GameState.from_json(data, source="<full>")
    assert state.turn.fired and state.counters["GE-1"].tags and state.actions and state.awaw is not None
    shared = set(mutable_parts(state, {})) & set(mutable_parts(data, {}))
    assert not shared, "from_json keeps lists or objects of its data"


# ---- real states -------------------------------------------------------------------------------
def _example_positions() -> list[Path]:
    return sorted(p for p in (ROOT / "examples").glob("*/*.json") if "answers" not in p.name)


@pytest.mark.parametrize("path", _example_positions(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_example_positions(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    parts = data["maps"].values() if "maps" in data else [data]  # a combined game: one position per map
    for part in parts:
        state = GameState.from_json(part, source=path)
        assert state.to_json() == reference_json(state)
        assert json.dumps(state.to_json()) == json.dumps(reference_json(state))
        assert_same_and_separate(state, state.clone())


def test_demo_save_positions() -> None:
    from bridge.pipeline import CheckPipeline

    pipeline = CheckPipeline(DEMO / "adjutant-demo.vmod", str(DEMO / "pack"))
    saves = sorted((DEMO / "saves").glob("*.vsav"))
    assert saves
    for save in saves:
        pieces, _info = pipeline.pieces_of(save)
        mapped = pipeline.mapping.map_pieces(pieces, pipeline.pack, pipeline.prototypes)
        state = GameState.from_json(mapped.position, source=save)
        assert json.dumps(state.to_json()) == json.dumps(reference_json(state))
        assert_same_and_separate(state, state.clone())
