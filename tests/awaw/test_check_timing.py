"""60.11 vs 60.12: when the table is consulted — the pack's erratum `check_timing` (rules/errata.py),
switchable with `[options]`, shown in every plan that checks the table."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rules.packs import PACKS_DIR, Pack, load_pack
from rules.plan import NOT_DUE, WAITING
from tests.awaw.helpers import entry, example, run
from vassal_parser.errors import InputError


def pack_with(tmp_path: Path, timing: str) -> Pack:
    folder = tmp_path / f"awaw-{timing}"
    shutil.copytree(PACKS_DIR / "awaw", folder)
    (folder / "options.toml").write_text(f'[options]\ncheck_timing = "{timing}"\n', encoding="utf-8")
    return load_pack(folder)


def western_turn(rejected_on: int | None = None, turn: int = 21) -> dict:
    data = example()
    data["awaw"].update(game_turn=turn, powers=["Britain", "USA"])
    if rejected_on is not None:
        data["awaw"]["surrender"] = {"state": "rejected", "turn": rejected_on}
    return data


@pytest.mark.parametrize(
    ("timing", "first_offer", "after_rejection"),
    [
        ("as_written", WAITING, NOT_DUE),  # 60.11 for a first offer, 60.12 after a rejection
        ("allied_turn", WAITING, WAITING),  # 60.11 and its Explanation govern throughout
        ("russian_turn", NOT_DUE, NOT_DUE),  # 60.12's "Russian player turn" governs throughout
    ],
)
def test_allied_turn_without_russia_under_each_reading_60_11_60_12(
    tmp_path: Path, timing: str, first_offer: str, after_rejection: str
) -> None:
    pack = pack_with(tmp_path, timing)
    assert entry(run(western_turn(), pack=pack), "60.1").status == first_offer
    assert entry(run(western_turn(rejected_on=20), pack=pack), "60.1").status == after_rejection


def test_russian_player_turn_is_a_check_under_every_reading_60_12(tmp_path: Path) -> None:
    for timing in ("as_written", "allied_turn", "russian_turn"):
        data = example()
        data["awaw"].update(game_turn=21, surrender={"state": "rejected", "turn": 20})
        assert entry(run(data, pack=pack_with(tmp_path, timing)), "60.1").status == WAITING


def test_the_plan_names_the_reading_and_how_to_switch_60_11_60_12(tmp_path: Path) -> None:
    result = run(example())
    note = entry(result, "60.1").errata[0]
    assert (note.key, note.kind, note.reading) == ("check_timing", "errata", "as_written")
    assert {name for name, _ in note.alternatives} == {"allied_turn", "russian_turn"}
    assert note.option == '[options] check_timing = "<reading>"'
    assert "60.11" in note.conflict and "60.12" in note.conflict
    assert result.to_json()["readings"][0]["key"] == "check_timing"  # plan level, once
    assert "erratum check_timing (60.1)" in result.render_text()
    other = entry(run(example(), pack=pack_with(tmp_path, "russian_turn")), "60.1").errata[0]
    assert other.reading == "russian_turn"


def test_no_reading_shown_where_the_timing_is_not_applied_60_91() -> None:
    data = example()
    data["awaw"]["scenario"] = "Pacific"
    assert not entry(run(data), "60.1").errata


def test_unknown_reading_is_one_line_naming_the_pack(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is not one of its readings"):
        run(example(), pack=pack_with(tmp_path, "whenever"))


def test_rejection_cannot_be_reversed_in_the_same_turn_60_12() -> None:
    data = example()
    data["awaw"]["surrender"] = {"state": "rejected", "turn": 20}
    first = entry(run(data), "60.1")
    assert first.status == NOT_DUE and "60.12" in first.why[-1]
    data["awaw"]["game_turn"] = 21
    assert entry(run(data), "60.1").status == WAITING  # a new offer at a later Russian player turn


def test_no_check_at_the_end_of_an_axis_turn_or_in_construction_60_11() -> None:
    data = example()
    data["awaw"].update(side="Axis", powers=["Germany"])
    axis = run(data)
    assert axis.phasing == "Axis"
    # The Axis turn checks the whole list (issue 25); 60.1 is not due there, and says why.
    axis_check = entry(axis, "60.1")
    assert axis_check.status == NOT_DUE
    assert "only at the end of an Allied player turn" in " ".join(axis_check.why)
    data = example()
    data["awaw"]["phase"] = "unit_construction"
    assert entry(run(data), "60.1").status == NOT_DUE


def test_level_at_the_end_of_a_russian_turn_is_kept_for_60_82() -> None:
    data = example()
    data["awaw"]["russia"]["dp_level"] = 5  # total +3: no offer
    result = run(data)
    assert result.resulting_position["awaw"]["last_russian_turn_level"] == 3


def test_missing_inputs_do_not_matter_where_no_check_is_made_60_12() -> None:
    """After a rejection, a Western-only Allied player turn is no check (reading as_written): the plan is
    `not due`, not `undecided`, even without a DP level."""
    data = western_turn(rejected_on=20)
    del data["awaw"]["russia"]["dp_level"]
    first = entry(run(data), "60.1")
    assert first.status == NOT_DUE and not first.missing
