"""Plan and written file agree (issue 28, item 5): every demo save, every answer its plan lists.

For each demo save and each combination of answers its plan offers (every option of every choice,
every subset of a multiple choice, the choices the answers open in turn) that `check` accepts:
`apply` writes the continuation log and the save with the moves made; reading either back through
the pack gives the plan's `resulting_position` exactly — every counter, every country's state, the
turn (fired events, current cards); re-planning the written file shows each applied event done
(not due, or due with nothing left to change: TK 16.1.2's Occupation lasts while the occupying unit
stays, and the rules let it recur). Where the pack cannot carry a state, `apply` refuses naming the
pack fact and `check` says the same, never a silent difference (shown with a pack that lacks a marker).
"""

from __future__ import annotations

import itertools
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bridge.cli.commands.check import note_writeback_gap
from bridge.cli.commands.demo import DEMO_MODULE, DEMO_PACK
from bridge.pipeline import CheckPipeline
from bridge.writeback.applier import apply_plan, writeback_gap
from bridge.writeback.roundtrip import differences, normalised, read_back
from module_patches.demo_story import SAVES_DIR
from vassal_parser.errors import InputError

SAVES = sorted(SAVES_DIR.glob("*.vsav"))


@pytest.fixture(scope="module")
def pipeline() -> CheckPipeline:
    return CheckPipeline(DEMO_MODULE, DEMO_PACK, remember=False)


def _options(choice: dict[str, Any]) -> list[Any]:
    values = [option["value"] for option in choice["options"]]
    if choice.get("multiple"):
        return [list(c) for n in range(len(values) + 1) for c in itertools.combinations(values, n)]
    return values


def answer_combinations(pipeline: CheckPipeline, path: Path,
                        answers: dict[str, Any] | None = None) -> Iterator[tuple[dict[str, Any], dict]]:
    """(answers, plan) for every way of answering the plan's choices that the plan accepts."""
    answers = answers or {}
    plan = pipeline.plan_file(path, answers=answers).plan
    pending = plan.get("pending_choices") or []
    if not pending:
        yield answers, plan
        return
    choice = next(c for e in plan["events"] for c in e.get("choices", []) if c["id"] == pending[0])
    for value in _options(choice):
        tried = {**answers, choice["id"]: value}
        try:
            pipeline.plan_file(path, answers=tried)
        except InputError:  # `check` refuses this answer too (e.g. 16.5.4 needs exactly two steps)
            continue
        yield from answer_combinations(pipeline, path, tried)


def _writes(plan: dict) -> bool:
    return any(e["status"] == "fired" and e.get("steps") for e in plan["events"])


def _cases(pipeline: CheckPipeline) -> list[tuple[Path, dict[str, Any], dict]]:
    return [(save, answers, plan) for save in SAVES for answers, plan in answer_combinations(pipeline, save)
            if _writes(plan)]


@pytest.fixture(scope="module")
def cases(pipeline) -> list[tuple[Path, dict[str, Any], dict]]:
    return _cases(pipeline)


def test_the_property_covers_every_listed_option(cases) -> None:
    """The issue's cases are among them: Case Yellow on each of its three countries, both France
    Influence answers, both Hungary remedies, every legal Border Defense redeployment."""
    chosen = {(save.stem, tuple(sorted((k, str(v)) for k, v in answers.items())))
              for save, answers, _ in cases}
    yellow = {dict(a).get("16.2.1:country") for stem, a in chosen if stem == "05-case-yellow"}
    assert yellow == {"Belgium-Holland", "France", "Poland"}
    assert sum(1 for stem, _ in chosen if stem == "05-case-yellow") >= 4  # France: with and without Influence
    assert {dict(a).get("16.1.2:remedy:Hungary") for stem, a in chosen if stem == "04-hungary-occupied"} == {
        "intern", "remove"}
    assert sum(1 for stem, _ in chosen if stem == "09-border-defense") >= 2
    assert len(cases) >= 15


@pytest.mark.parametrize("suffix", [".vsav", ".vlog"])
def test_every_answer_writes_a_file_that_reads_back_as_the_plan(pipeline, cases, tmp_path, suffix) -> None:
    for index, (save, answers, plan) in enumerate(cases):
        where = f"{save.name} {answers}"
        out = tmp_path / f"{index}-{save.stem}{suffix}"
        applied = apply_plan(pipeline, save, out, answers)
        assert applied.out == out and out.exists(), where
        got = read_back(pipeline, out)
        expected = normalised(plan["resulting_position"])
        assert differences(expected, got) == [], where
        assert got == expected, where  # counters, countries and turn, field for field
        # `check` on the written file: every applied event is done.
        again = pipeline.plan_file(out, answers=answers).plan
        applied_rules = {e["rule"] for e in plan["events"] if e["status"] == "fired"}
        for event in again["events"]:
            if event["rule"] in applied_rules and event["status"] != "not_due":
                assert event["status"] == "fired", where
                assert normalised(again["resulting_position"]) == got, f"{where}: {event['rule']} left work"
        assert not again.get("pending_choices") or again["pending_choices"] == plan.get("pending_choices")


def test_check_says_every_demo_answer_is_writable(pipeline, cases) -> None:
    for save, answers, plan in cases:
        note_writeback_gap(pipeline, save, None, answers, plan)
        assert "not_writable" not in plan["vassal"], (save.name, answers, plan["vassal"].get("not_writable"))


@pytest.fixture
def pack_without_neutral_marker(tmp_path) -> Path:
    """The demo pack without its Neutral marker rule: France's and Syria's status have no piece."""
    pack = tmp_path / "pack"
    shutil.copytree(DEMO_PACK, pack)
    text = (pack / "vassal.toml").read_text(encoding="utf-8")
    start = text.index('[[vassal.writeback.markers]]\nnote = "a country made Neutral')
    end = text.index("[[vassal.writeback.markers]]", start + 1)
    (pack / "vassal.toml").write_text(text[:start] + text[end:], encoding="utf-8")
    return pack


@pytest.mark.parametrize("suffix", [".vsav", ".vlog"])
def test_a_state_no_piece_carries_is_refused_by_apply_and_named_by_check(
        pack_without_neutral_marker, tmp_path, suffix) -> None:
    """16.2.1 France without a marker for a Neutral country: never a silent difference."""
    pipeline = CheckPipeline(DEMO_MODULE, pack_without_neutral_marker, remember=False)
    save = SAVES_DIR / "05-case-yellow.vsav"
    answers = {"16.2.1:country": "France", "16.2.1:influence": "none"}
    out = tmp_path / f"france{suffix}"
    with pytest.raises(InputError) as refused:
        apply_plan(pipeline, save, out, answers)
    assert not out.exists(), "nothing is written"
    message = refused.value.message
    assert "France: the plan makes its faction Neutral" in message and "Syria" in message
    assert "[[vassal.writeback.markers]]" in message and "[[vassal.state]]" in message
    assert writeback_gap(pipeline, save, None, answers) == message
    plan = pipeline.plan_file(save, answers=answers).plan
    note_writeback_gap(pipeline, save, None, answers, plan)
    assert plan["vassal"]["not_writable"] == message
    assert any("adjutant apply cannot write this plan" in w for w in plan["vassal"]["warnings"])
