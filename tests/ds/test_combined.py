"""The combined Axis Empires game (AE 6.2 ©): TK map first, its cross-map effects, then DS."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bridge.cli.main import main
from rules.combined import is_combined, plan_combined
from rules.packs import load_pack
from tests.ds.helpers import DS, ceded, entry, position, run, unit
from vassal_parser.errors import InputError

TK_PACK_DIR = load_pack("tk").path


@pytest.fixture(scope="module")
def TK(tmp_path_factory):
    """The TK pack plus one more French City: the shipped pack knows only Paris (see its `incomplete`),
    and with Paris as France's only City the 16.1.1 France case would fire before Case Yellow."""
    folder = tmp_path_factory.mktemp("tk_pack")
    for source in TK_PACK_DIR.glob("*.toml"):
        (folder / source.name).write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "zz_test_city.toml").write_text(
        '[hexes.w0001]\ncountry = "France"\ncity = true\nname = "second French City (test only)"\n',
        encoding="utf-8")
    return load_pack(folder)


def _tk_case_yellow_position() -> dict:
    """TK: Axis plays card 22a Case Yellow with a supplied German unit in Paris (w3516)."""
    return {
        "pack": "tk",
        "turn": {"date": "1940-05", "phasing": "Axis", "war_state": "Limited War",
                 "current_cards": {"Axis": "22a"}},
        "countries": {"Germany": {"faction": "Axis", "status": "active"},
                      "France": {"faction": "Western", "status": "active", "posture": "War"},
                      "Britain": {"faction": "Western", "status": "active", "posture": "War"}},
        "counters": [
            {"id": "de_pz", "nationality": "Germany", "kind": "ground", "location": "w3516", "steps": 2,
             "supplied": True},
            {"id": "france_defeated", "kind": "marker", "location": "set_aside", "tags": ["france_defeated"]},
        ],
    }


def _ds_garrison_position() -> dict:
    """DS: Russia Neutral, Inner Mongolia a Japanese Dependent, and a French (non-F) unit in Kalgan
    (w5322) — an Allied ground unit in a checked Dependent, which lifts 16.1.3."""
    state = position(
        countries={"Russia": {"faction": "Soviet", "status": "active", "posture": "Neutrality"},
                   "Mongolia": {"faction": "Soviet", "status": "active"},
                   "France": {"faction": "Western", "status": "active", "posture": "War"}},
        counters=[ceded("inner_mongolia", "ceded_lands"),
                  unit("fr_inf", "France", "w5322"),
                  unit("fr_f_inf", "France", "force_pool:Western", reinforcement="F"),
                  unit("jp_inf", "Japan", "w4427", steps=2),
                  unit("jp_e5201", "Japan", "e5201", steps=2),
                  {"id": "ds_france_defeated", "kind": "marker", "location": "set_aside",
                   "tags": ["france_defeated"]}])
    return state.to_json()


def _combined() -> dict:
    return {"maps": {"TK": _tk_case_yellow_position(), "DS": _ds_garrison_position()}}


def test_ds_alone_the_french_unit_lifts_the_garrison_check():
    """16.1.3 Exception, DS on its own: the French unit in Inner Mongolia lifts the requirement."""
    from rules.state import GameState

    result = run(GameState.from_json(_ds_garrison_position()))
    assert entry(result, "16.1.3").status == "not_due"


def test_combined_tk_case_yellow_france_defeated_changes_the_ds_garrison_check(TK):
    """AE 6.2 ©: TK 16.2.1 (France case) runs first; its Step 7 places France Defeated in the DS
    Strategic Warfare Box and removes the non-F French units in DS, so the DS 16.1.3 check no longer
    sees an Allied unit in Inner Mongolia and Kalgan (w5322) must be garrisoned."""
    answers = {"TK": {"16.2.1:country": "France", "16.2.1:influence": "none"}}
    result = plan_combined(_combined(), TK, DS, answers)
    assert result.order == ("TK", "DS")
    assert entry(result.plans["TK"], "16.2.1").status == "fired"
    bridge = {(s.counter, s.to) for s in result.bridge}
    assert ("ds_france_defeated", "strategic_warfare") in bridge
    assert ("fr_inf", "removed") in bridge
    assert ("fr_f_inf", "removed") not in bridge, "F French units stay (TK 16.2.1 Step 7)"
    garrison = entry(result.plans["DS"], "16.1.3")
    assert garrison.status == "waiting"
    assert garrison.choices[0].id == "16.1.3:fill:w5322"
    assert result.to_json()["pending_choices"] == ["DS/16.1.3:fill:w5322"]


def test_combined_ds_waits_while_tk_waits_for_a_position_changing_answer(TK):
    """AE 6.2 ©: the DS checks come after all TK checks; an unanswered TK choice blocks them all."""
    result = plan_combined(_combined(), TK, DS, {})
    assert entry(result.plans["TK"], "16.2.1").status == "waiting"
    assert all(e.status == "waiting" for e in result.plans["DS"].events)
    assert result.bridge == []
    assert all(w.startswith("TK/") for e in result.plans["DS"].events for w in e.waiting_for)


def test_combined_european_reserves_skipped_by_default_and_read_tk_war_state_otherwise(TK, tmp_path):
    """16.5.4 (*): default reading — not used in the combined game; reading "tk" — TK's war state."""
    tk = _tk_case_yellow_position()
    tk["turn"].update({"phasing": "Soviet", "current_cards": {}, "war_state": "Total War"})
    ds = position("Soviet", {"Russia": {"faction": "Soviet", "status": "active", "posture": "Neutrality"}},
                  [{"id": "ru_twr", "kind": "marker", "location": "conditional_events:Soviet",
                    "tags": ["russian_total_war_reserves"]}], war_state="Pre-War").to_json()
    data = {"maps": {"TK": tk, "DS": ds}}
    skipped = plan_combined(data, TK, DS, {})
    assert entry(skipped.plans["DS"], "16.5.4").status == "not_due"
    for source in DS.path.glob("*.toml"):
        text = source.read_text(encoding="utf-8")
        if source.name == "errata.toml":
            text = text.replace("[options]\n", '[options]\neuropean_reserves_in_combined = "tk"\n')
        (tmp_path / source.name).write_text(text, encoding="utf-8")
    used = plan_combined(data, TK, load_pack(tmp_path), {})
    assert entry(used.plans["DS"], "16.5.4").status == "fired"


def test_is_combined_recognises_the_two_map_form():
    assert is_combined(_combined())
    assert not is_combined(_tk_case_yellow_position())


def test_combined_position_missing_a_map_is_one_line_input_error(TK):
    with pytest.raises(InputError, match=r"maps\.TK and maps\.DS") as caught:
        plan_combined({"maps": {"TK": _tk_case_yellow_position()}}, TK, DS, {}, source="pos.json")
    assert "\n" not in str(caught.value) and "pos.json" in str(caught.value)


def test_combined_maps_must_agree_on_the_phasing_faction(TK):
    data = _combined()
    data["maps"]["DS"]["turn"]["phasing"] = "Western"
    with pytest.raises(InputError, match="phasing"):
        plan_combined(data, TK, DS, {})


def test_carry_over_tk_16_2_2_step_11_places_russia_defeated_in_the_ds_box():
    """TK 16.2.2 Step 11 ©: the Russia Defeated marker goes to the DS Strategic Warfare Box."""
    from rules.combined import carry_over
    from rules.plan import EventEntry, Plan, Step
    from rules.state import GameState

    tk_plan = Plan(pack="tk", phasing="Axis", turn="1941-07", events=[
        EventEntry(rule="16.2.2", title="Ostland Accord", source="card:27b", status="fired",
                   steps=[Step("16.2.2", "Step 11", "note", "place the Russia Defeated marker ...")])])
    ds = GameState.from_json(position(counters=[
        {"id": "rd", "kind": "marker", "location": "set_aside", "tags": ["russia_defeated"]},
        unit("fr_inf", "France", "w5322")]).to_json())
    steps = carry_over(tk_plan, ds, DS)
    moved = [(s.rule, s.step, s.counter, s.to) for s in steps]
    assert moved == [("TK 16.2.2", "Step 11", "rd", "strategic_warfare")]
    assert ds.counters["rd"].location == "strategic_warfare"
    assert ds.counters["fr_inf"].location == "w5322", "only TK 16.2.1 Step 7 removes French units"
    not_fired = Plan(pack="tk", phasing="Axis", turn="1941-07")
    assert carry_over(not_fired, ds, DS) == []


# ---- `adjutant plan` on a combined position (AE 6.2 ©) ------------------------------------------------

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ds" / "combined_axis_turn.json"


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["plan", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_plans_the_combined_example_tk_map_first(capsys, tmp_path):
    """AE 6.2 ©: `adjutant plan` recognises the two-map form and plans TK before DS. With the shipped TK
    pack the 16.1.1 France case ("all Cities in France") is undecided: the pack locates only Paris. With a
    pack that declares Paris France's only City, the France case fires and the exit status is 1."""
    status, out, err = _cli(capsys, str(EXAMPLE))
    assert err == "" and out.index("== TK map ==") < out.index("== DS map ==")
    assert "16.1.1 Allied Minor Country Conquest [permanent]: UNDECIDED" in out
    assert "missing: 16.1.1 France: the pack locates only some City hexes of France" in out
    assert "Nothing is due." not in out  # issue 12.20: never a map's closing line while the other map speaks
    header = out.splitlines()[0]
    assert "©" not in header and "combined game" in header  # issue 12.20: no copyright sign
    folder = tmp_path / "tk_paris_only"
    folder.mkdir()
    for source in TK_PACK_DIR.glob("*.toml"):
        (folder / source.name).write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "zz_complete.toml").write_text('[complete]\ncity_hexes = ["France"]\n', encoding="utf-8")
    status, out, err = _cli(capsys, str(EXAMPLE), "--tk-pack", str(folder))
    assert status == 1 and err == ""
    assert "16.1.1 Allied Minor Country Conquest [permanent]: DUE" in out
    assert out.rstrip().splitlines()[-1].startswith("Due on the TK map.")
    status, out, _ = _cli(capsys, str(EXAMPLE), "--json", "--tk-pack", str(folder))
    shown = json.loads(out)
    assert status == 1 and shown["format"] == "adjutant-combined-plan" and shown["order"] == ["TK", "DS"]
    tk = {e["rule"]: e["status"] for e in shown["maps"]["TK"]["events"]}
    ds = {e["rule"]: e["status"] for e in shown["maps"]["DS"]["events"]}
    assert tk["16.1.1"] == "fired"
    # The shipped DS pack locates no Japanese Dependent's borders in full (issue 9), but the French unit in
    # Inner Mongolia (a Dependent known to border Mongolia) decides DS 16.1.3 by its Exception: "If there
    # are Allied ground units anywhere in a Japanese Dependent being checked, Manchukuo Garrison
    # requirements are lifted for all Japanese Dependents" -- not due, nothing missing (issue 22).
    assert ds["16.1.3"] == "not_due"
    garrison = next(e for e in shown["maps"]["DS"]["events"] if e["rule"] == "16.1.3")
    assert garrison["missing"] == [] and "Exception: Allied ground unit fr_inf" in garrison["why"][0]


def test_cli_combined_carries_tk_case_yellow_over_with_packs_and_answers(capsys, tmp_path, TK):
    """TK 16.2.1 Step 7 (©) through the CLI: `--tk-pack` names the TK pack folder, the answers file is
    split per map, and the DS 16.1.3 garrison choice is then pending."""
    position_file = tmp_path / "combined.json"
    position_file.write_text(json.dumps(_combined()), encoding="utf-8")
    answers_file = tmp_path / "answers.json"
    answers_file.write_text(json.dumps({"TK": {"16.2.1:country": "France", "16.2.1:influence": "none"}}),
                            encoding="utf-8")
    status, out, _ = _cli(capsys, str(position_file), "--tk-pack", str(TK.path), "--ds-pack", "ds",
                          "--answers", str(answers_file), "--json")
    shown = json.loads(out)
    assert status == 1
    assert {(s["counter"], s["to"]) for s in shown["bridge"]} >= {("ds_france_defeated", "strategic_warfare"),
                                                                   ("fr_inf", "removed")}
    assert shown["pending_choices"] == ["DS/16.1.3:fill:w5322"]


@pytest.mark.parametrize(("argv", "message"), [
    (["--pack", "tk"], "use --tk-pack/--ds-pack, not --pack"),
    (["--tk-pack", "nosuchpack"], "nosuchpack"),
])
def test_cli_combined_pack_options_are_checked_in_one_line(capsys, argv, message):
    status, out, err = _cli(capsys, str(EXAMPLE), *argv)
    assert status == 2 and out == "" and message in err and err.count("\n") == 1


def test_cli_single_map_position_refuses_the_combined_pack_options(capsys, tmp_path):
    single = tmp_path / "tk.json"
    single.write_text(json.dumps(_tk_case_yellow_position()), encoding="utf-8")
    status, _, err = _cli(capsys, str(single), "--ds-pack", "ds")
    assert status == 2 and "not a combined position" in err and err.count("\n") == 1


def test_cli_combined_answers_must_be_split_per_map(capsys, tmp_path):
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"TK": ["16.2.1:country"]}), encoding="utf-8")
    status, _, err = _cli(capsys, str(EXAMPLE), "--answers", str(answers))
    assert status == 2 and "answers.TK must be an object" in err


def test_cli_combined_flat_answers_are_refused_not_ignored(capsys, tmp_path):
    """A single-map answers file given for a combined position would answer nothing: one line, exit 2."""
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"16.2.1:country": "France"}), encoding="utf-8")
    status, _, err = _cli(capsys, str(EXAMPLE), "--answers", str(answers))
    assert status == 2 and "split per map" in err and "16.2.1:country" in err
