"""`adjutant check GAME.vlog --audit` (issue 37): was what the rules required actually done?

Every log here is a real continuation log written by `adjutant apply` -- the moves a player makes in
VASSAL. A player who goes wrong is played by the same writer with one plan step sent elsewhere before
it is written (`_misplayed`), so the log holds real VASSAL moves; the audit judges them by pieces and
places only (the logs' chat lines are Adjutant's own and are never read).
"""

from __future__ import annotations

import json

import pytest

from bridge.cli.main import main
from bridge.writeback import applier
from module_patches.demo_world import DEMO_DIR

MODULE = DEMO_DIR / "adjutant-demo.vmod"
PACK = DEMO_DIR / "pack"
SAVES = DEMO_DIR / "saves"
BORDER = "16.5.4:redeploy"
ONE_EACH = f'{BORDER}=["RU-1:1>e3806","RU-3:1>e3806"]'  # a step of RU 1 Inf and one of RU 3 Inf


def _apply(tmp_path, capsys, save: str, name: str, *answers: str) -> str:
    out = tmp_path / name
    flags = [a for answer in answers for a in ("--answer", answer)]
    assert main(["apply", str(SAVES / save), "--module", str(MODULE), "--pack", str(PACK), *flags,
                 "--out", str(out)]) == 0
    capsys.readouterr()
    return str(out)


def _misplayed(monkeypatch, counter: str, to: str) -> None:
    """The next `apply` sends `counter` to `to` instead of where its plan step puts it."""
    real = applier.translate

    def translate(plan, *args, **kwargs):
        for event in plan.get("events", []):
            for step in event.get("steps", []):
                if step.get("counter") == counter and step.get("to") is not None:
                    step["to"] = to
        plan["resulting_position"] = None  # the read-back compares with the rules' own result
        return real(plan, *args, **kwargs)

    monkeypatch.setattr(applier, "translate", translate)


def _audit(capsys, log: str, *flags: str) -> tuple[int, dict]:
    capsys.readouterr()
    status = main(["check", log, "--audit", "--module", str(MODULE), "--pack", str(PACK), "--format", "json",
                   *flags])
    return status, json.loads(capsys.readouterr().out)


def _event(audit: dict, rule: str) -> dict:
    return next(e for e in audit["events"] if e["rule"] == rule)


def test_complete_continuation_log_is_carried_out_step_by_step(tmp_path, capsys) -> None:
    """16.1.1: apply's six moves, one per log step: each step's `done_at_step` is its own, exit 0."""
    log = _apply(tmp_path, capsys, "02-poland-falls.vsav", "02.vlog")
    status, audit = _audit(capsys, log)
    assert status == 0 and audit["format"] == "adjutant-audit" and audit["settled"] is True
    conquest = _event(audit, "16.1.1")
    assert conquest["outcome"] == "carried_out" and conquest["due_at_step"] == 0
    assert conquest["faction"] == "Axis"
    assert [s["done_at_step"] for s in conquest["steps"]] == [1, 2, 3, 4, 5, 6]
    assert conquest["made"] == conquest["required"] == 6 and conquest["deviations"] == []


def test_stopped_after_three_steps_is_partial_with_the_rest_not_made(tmp_path, capsys) -> None:
    """16.1.1 Steps 2-4: after log step 3, PO Res, BR Pol and the Polish Corridor are not made; exit 1."""
    log = _apply(tmp_path, capsys, "02-poland-falls.vsav", "02.vlog")
    status, audit = _audit(capsys, log, "--step", "3")
    assert status == 1 and audit["up_to_step"] == 3 and audit["settled"] is False
    conquest = _event(audit, "16.1.1")
    assert conquest["outcome"] == "partial" and (conquest["made"], conquest["required"]) == (3, 6)
    not_made = sorted(s["counter"] for s in conquest["steps"] if s["done_at_step"] is None)
    assert not_made == ["BR-POL", "GE-CORRIDOR", "PO-RES"]


def test_nothing_made_yet_is_not_done(tmp_path, capsys) -> None:
    log = _apply(tmp_path, capsys, "02-poland-falls.vsav", "02.vlog")
    status, audit = _audit(capsys, log, "--step", "0")
    assert status == 1 and _event(audit, "16.1.1")["outcome"] == "not_done"


def test_po_2_sent_to_the_delay_box_is_wrong(tmp_path, capsys, monkeypatch) -> None:
    """16.1.1 Step 2 puts PO 2 Inf in the Western Conquered Minor Countries Box, not the Delay Box."""
    _misplayed(monkeypatch, "PO-2", "delay")
    log = _apply(tmp_path, capsys, "02-poland-falls.vsav", "02-wrong.vlog")
    status, audit = _audit(capsys, log)
    assert status == 1
    conquest = _event(audit, "16.1.1")
    assert conquest["outcome"] == "wrong"
    wrong = [s for s in conquest["steps"] if s["deviation"]]
    assert [s["counter"] for s in wrong] == ["PO-2"] and wrong[0]["done_at_step"] is None
    assert wrong[0]["deviation"] == ("PO 2 Inf (PO-2) is in the Delay Box; 16.1.1 Step 2 puts it in the "
                                     "Western Conquered Minor Countries Box")
    assert sum(s["done_at_step"] is not None for s in conquest["steps"]) == 5


def test_hungary_remedy_is_read_from_the_moves(tmp_path, capsys) -> None:
    """16.1.2: no answer given to the audit; HU 1 Inf went to the Delay Box: the remedy "remove" was
    made (the choice is read from the moves, and said so)."""
    log = _apply(tmp_path, capsys, "04-hungary-occupied.vsav", "04r.vlog", "16.1.2:remedy:Hungary=remove")
    status, audit = _audit(capsys, log)
    assert status == 0
    occupation = _event(audit, "16.1.2")
    assert occupation["outcome"] == "carried_out"
    choice = next(c for c in occupation["choices"] if c["id"] == "16.1.2:remedy:Hungary")
    assert choice["recognised_from_moves"] is True and choice["answer"] == "remove"
    assert [s["done_at_step"] for s in occupation["steps"]] == [1]


def test_hungary_remedy_intern_is_read_as_intern(tmp_path, capsys) -> None:
    """The other remedy (16.1.2 "intern") made: the audit reads that answer, not "remove"."""
    log = _apply(tmp_path, capsys, "04-hungary-occupied.vsav", "04i.vlog", "16.1.2:remedy:Hungary=intern")
    status, audit = _audit(capsys, log)
    occupation = _event(audit, "16.1.2")
    choice = next(c for c in occupation["choices"] if c["id"] == "16.1.2:remedy:Hungary")
    assert choice["recognised_from_moves"] is True and choice["answer"] == "intern"
    assert occupation["outcome"] == "carried_out" and status == 0


def test_border_defense_redeployment_is_read_from_the_moves(tmp_path, capsys) -> None:
    """16.5.4: the Axis redeployed one step of RU 1 Inf and one of RU 3 Inf to Brest-Litovsk; the audit,
    given no answer, reads exactly that list answer and finds it carried out."""
    log = _apply(tmp_path, capsys, "09-border-defense.vsav", "09.vlog", ONE_EACH)
    status, audit = _audit(capsys, log)
    assert status == 0
    border = _event(audit, "16.5.4")
    assert border["outcome"] == "carried_out" and border["faction"] == "Axis"  # the Axis decides (16.5.4)
    choice = next(c for c in border["choices"] if c["id"] == BORDER)
    assert sorted(choice["answer"]) == ["RU-1:1>e3806", "RU-3:1>e3806"] and choice["recognised_from_moves"]
    assert [e["rule"] for e in audit["events"]] == ["16.5.4"]  # 16.5.5-16.5.7 only waited on it


def test_border_defense_two_steps_of_one_unit_is_the_other_answer(tmp_path, capsys) -> None:
    log = _apply(tmp_path, capsys, "09-border-defense.vsav", "09b.vlog", f'{BORDER}=["RU-1:2>e3806"]')
    status, audit = _audit(capsys, log)
    choice = next(c for c in _event(audit, "16.5.4")["choices"] if c["id"] == BORDER)
    assert choice["answer"] == ["RU-1:2>e3806"] and status == 0


def test_border_defense_half_made_is_partial(tmp_path, capsys) -> None:
    """Stopped before RU 3 Inf moved: the answer is still read (the one the moves so far fit) and the
    RU 3 Inf step is the one not made."""
    log = _apply(tmp_path, capsys, "09-border-defense.vsav", "09.vlog", ONE_EACH)
    status, audit = _audit(capsys, log, "--step", "3")
    border = _event(audit, "16.5.4")
    assert status == 1 and border["outcome"] == "partial"
    assert [s["counter"] for s in border["steps"] if s["seen"] and s["done_at_step"] is None] == ["RU-3"]


def test_border_defense_unit_sent_elsewhere_is_wrong(tmp_path, capsys, monkeypatch) -> None:
    """RU 3 Inf sent to Lvov, which no legal 16.5.4 answer puts it in: wrong, with that deviation."""
    _misplayed(monkeypatch, "RU-3", "e3706")
    log = _apply(tmp_path, capsys, "09-border-defense.vsav", "09w.vlog", ONE_EACH)
    status, audit = _audit(capsys, log)
    border = _event(audit, "16.5.4")
    assert status == 1 and border["outcome"] == "wrong"
    assert any("RU 3 Inf (RU-3)" in d and "Lvov" in d for d in border["deviations"])
    choice = next(c for c in border["choices"] if c["id"] == BORDER)
    assert choice["closest_only"] is True


def test_given_answer_is_audited_against_that_answer(tmp_path, capsys) -> None:
    """An answered choice is audited against the answer: the log made one redeployment, the answer
    says another: wrong."""
    log = _apply(tmp_path, capsys, "09-border-defense.vsav", "09.vlog", ONE_EACH)
    status, audit = _audit(capsys, log, "--answer", f'{BORDER}=["RU-1:2>e3806"]')
    border = _event(audit, "16.5.4")
    assert status == 1 and border["outcome"] in ("wrong", "partial")
    assert not any(c.get("recognised_from_moves") for c in border["choices"])


@pytest.mark.parametrize("fmt, marks", [
    ("markdown", ["| Rule | Event | Due at step | Faction | Outcome |", "| 16.1.1 |", "made at step 6"]),
    ("html", ["<table>", "<td>16.1.1</td>", "made at step 6"]),
    ("text", ["16.1.1 Allied Minor Country Conquest", "carried out", "made at step 1"]),
])
def test_reports_carry_the_audit(tmp_path, capsys, fmt, marks) -> None:
    """The PBEM reports carry the audit as a table a forum post can paste."""
    log = _apply(tmp_path, capsys, "02-poland-falls.vsav", "02.vlog")
    assert main(["check", log, "--audit", "--module", str(MODULE), "--pack", str(PACK), "--format", fmt]) == 0
    out = capsys.readouterr().out
    assert all(mark in out for mark in marks), out


def test_read_answer_is_said_in_the_text(tmp_path, capsys) -> None:
    log = _apply(tmp_path, capsys, "04-hungary-occupied.vsav", "04r.vlog", "16.1.2:remedy:Hungary=remove")
    assert main(["check", log, "--audit", "--module", str(MODULE), "--pack", str(PACK)]) == 0
    assert "answer read from the moves (no answer was given): Remove" in capsys.readouterr().out


def test_a_save_or_a_step_out_of_range_is_one_line_exit_2(tmp_path, capsys) -> None:
    log = _apply(tmp_path, capsys, "02-poland-falls.vsav", "02.vlog")
    for args in ([str(SAVES / "02-poland-falls.vsav")], [log, "--step", "7"]):
        status = main(["check", *args, "--audit", "--module", str(MODULE), "--pack", str(PACK)])
        err = capsys.readouterr().err.strip().splitlines()
        assert status == 2 and len(err) == 1 and "Traceback" not in err[0]


def test_each_turn_of_a_long_log_is_its_own_obligation(tmp_path, capsys) -> None:
    """The demo story three times over (benchmarks/long_log.py): 16.1.1 fires each cycle; each firing is
    audited by the moves of its own cycle, not taken back by the next cycle's return to the start."""
    import sys

    sys.path.insert(0, str(DEMO_DIR.parents[1]))
    from benchmarks.long_log import story_steps, write_long_log

    cycle = len(story_steps()[1])
    log = write_long_log(tmp_path / "long.vlog", steps=3 * cycle, pieces=60)
    _status, audit = _audit(capsys, str(log))
    conquests = [e for e in audit["events"] if e["rule"] == "16.1.1"]
    assert len(conquests) == 3
    for conquest in conquests:
        assert conquest["outcome"] == "carried_out"
        made = [s["done_at_step"] for s in conquest["steps"]]
        assert all(conquest["due_at_step"] <= at < conquest["due_at_step"] + cycle for at in made)
    assert [e["due_at_step"] for e in conquests] == [c["due_at_step"] for c in conquests[:1]] + [
        conquests[0]["due_at_step"] + cycle, conquests[0]["due_at_step"] + 2 * cycle]


def test_check_of_the_misplayed_log_is_owed_with_the_deviation(tmp_path, capsys, monkeypatch) -> None:
    """Plain `check` of the same log (issue 37's second Poland case): 16.1.1 OWED, exit 1, the Delay Box
    named as where PO 2 Inf stands instead (6.2: a fired event is carried out in full)."""
    _misplayed(monkeypatch, "PO-2", "delay")
    log = _apply(tmp_path, capsys, "02-poland-falls.vsav", "02-wrong.vlog")
    status = main(["check", log, "--module", str(MODULE), "--pack", str(PACK), "--format", "json"])
    conquest = _event(json.loads(capsys.readouterr().out), "16.1.1")
    assert status == 1 and conquest["status"] == "owed" and conquest["remaining"] == []
    assert conquest["deviations"] == ["PO 2 Inf (PO-2) is in the Delay Box; 16.1.1 Step 2 puts it in the "
                                      "Western Conquered Minor Countries Box"]
    assert main(["check", log, "--module", str(MODULE), "--pack", str(PACK)]) == 1
    text = capsys.readouterr().out
    assert "OWED" in text and "PO 2 Inf (PO-2) is in the Delay Box" in text
