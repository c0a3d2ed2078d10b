"""Owed steps (issue 37; 6.2 Important: a fired event is carried out in full): rules/owed.py and `check`.

The demo cases are built with `adjutant apply` itself; the judgement is by pieces and places (the
position's counters), never by a chat line.
"""

from __future__ import annotations

import copy
import json
import random

from bridge.cli.main import main
from bridge.pipeline import CheckPipeline
from bridge.reports.referee import owed_against
from module_patches.demo_world import DEMO_DIR
from rules.owed import DEVIATION, DONE, REMAINING, UNSEEN, judge_event, judge_step, mark_owed

MODULE = DEMO_DIR / "adjutant-demo.vmod"
PACK = DEMO_DIR / "pack"
SAVES = DEMO_DIR / "saves"


def _check_json(capsys, *args: str) -> tuple[int, dict]:
    capsys.readouterr()
    status = main(["check", *args, "--module", str(MODULE), "--pack", str(PACK), "--format", "json"])
    return status, json.loads(capsys.readouterr().out)


def _poland_log(tmp_path, capsys):
    out = tmp_path / "02.vlog"
    assert main(["apply", str(SAVES / "02-poland-falls.vsav"), "--module", str(MODULE), "--pack", str(PACK),
                 "--out", str(out)]) == 0
    capsys.readouterr()
    return out


def test_poland_after_the_marker_only_is_owed_with_its_five_moves(tmp_path, capsys) -> None:
    """16.1.1: after step 1 (the Poland Conquered mark) Steps 2-4 are owed, exit 1 — not "not due"."""
    log = _poland_log(tmp_path, capsys)
    status, plan = _check_json(capsys, str(log), "--step", "1")
    assert status == 1
    conquest = next(e for e in plan["events"] if e["rule"] == "16.1.1")
    assert conquest["status"] == "owed"
    assert sorted(s["counter"] for s in conquest["remaining"]) == [
        "BR-POL", "GE-CORRIDOR", "PO-1", "PO-2", "PO-RES"]
    assert {s["step"] for s in conquest["remaining"]} == {"Step 2", "Step 3", "Step 4"}
    assert conquest["deviations"] == []
    capsys.readouterr()
    assert main(["check", str(log), "--step", "1", "--module", str(MODULE), "--pack", str(PACK)]) == 1
    text = capsys.readouterr().out
    assert "16.1.1 Allied Minor Country Conquest [permanent]: OWED" in text and "Poland" in text


def test_every_step_made_is_carried_out_not_owed(tmp_path, capsys) -> None:
    """16.1.1: the whole log made: nothing owed, exit 0."""
    log = _poland_log(tmp_path, capsys)
    status, plan = _check_json(capsys, str(log))
    assert status == 0
    conquest = next(e for e in plan["events"] if e["rule"] == "16.1.1")
    assert conquest["status"] == "not_due" and any(w.startswith("carried out") for w in conquest["why"])


def test_po_2_in_the_delay_box_is_a_deviation(tmp_path, capsys) -> None:
    """16.1.1 Step 2 puts PO 2 Inf in the Western Conquered Minor Countries Box, not the Delay Box."""
    log = _poland_log(tmp_path, capsys)
    pipeline = CheckPipeline(MODULE, PACK)
    result = pipeline.plan_file(log)
    position = copy.deepcopy(result.mapping.position)
    for counter in position["counters"]:
        if counter["id"] == "PO-2":
            counter["location"] = "delay"
    base = pipeline.plan_file(log, step=0).plan
    plan = copy.deepcopy(result.plan)
    assert owed_against(plan, base, position) == ["16.1.1"]
    conquest = next(e for e in plan["events"] if e["rule"] == "16.1.1")
    assert conquest["status"] == "owed" and conquest["remaining"] == []
    assert conquest["deviations"] == ["PO 2 Inf (PO-2) is in the Delay Box; 16.1.1 Step 2 puts it in the "
                                      "Western Conquered Minor Countries Box"]


def test_hungary_remedy_remove_made_is_carried_out(tmp_path, capsys) -> None:
    """16.1.2: the remedy "remove" written by apply; the save shows it made, so it is not asked again."""
    out = tmp_path / "04r.vsav"
    assert main(["apply", str(SAVES / "04-hungary-occupied.vsav"), "--module", str(MODULE), "--pack",
                 str(PACK), "--answer", "16.1.2:remedy:Hungary=remove", "--out", str(out)]) == 0
    status, plan = _check_json(capsys, str(out))
    occupation = next(e for e in plan["events"] if e["rule"] == "16.1.2")
    assert occupation["status"] == "not_due", occupation
    assert occupation["recognised_answer"] == {"choice": "16.1.2:remedy:Hungary", "value": "remove"}
    assert status == 0
    # The save before the remedy still waits: nothing there shows either option made.
    status, plan = _check_json(capsys, str(SAVES / "04-hungary-occupied.vsav"))
    assert status == 1
    assert next(e for e in plan["events"] if e["rule"] == "16.1.2")["status"] == "waiting"


# ---- the judgement itself, on plan steps of any edition ------------------------------------------

def _step(counter: str, to: str, frm: str, rule: str = "16.1.1", step: str = "Step 2") -> dict:
    return {"rule": rule, "step": step, "action": "move", "counter": counter, "to": to, "from": frm,
            "text": f"move {counter}", "subject": "X", "details": {}}


def test_judge_step_kinds() -> None:
    """done / remaining / deviation / unseen, by place only (DS 16.1.1, AWAW 60.41 steps alike)."""
    where = {"A": "delay", "B": "w0101", "C": "force_pool:Axis"}
    assert judge_step(_step("A", "delay", "w0101"), where, {}) == DONE
    assert judge_step(_step("B", "delay", "w0101"), where, {}) == REMAINING
    assert judge_step(_step("C", "delay", "w0101"), where, {}) == DEVIATION
    assert judge_step({"rule": "60.41", "step": None, "action": "roll", "text": "roll"}, where, {}) == UNSEEN
    mark = {"rule": "16.1.1", "step": None, "action": "set_country", "subject": "Poland",
            "details": {"status": "conquered"}}
    assert judge_step(mark, where, {"Poland": {"status": "conquered"}}) == DONE
    assert judge_step(mark, where, {"Poland": {"status": "active"}}) == REMAINING


def test_random_subsets_are_named_exactly() -> None:
    """Property (issue 37 item 4): make a random subset of a fired event's moves, move one other piece
    elsewhere: `remaining` is exactly the unmade ones, `deviations` exactly the misplaced one."""
    rng = random.Random(37)
    for _ in range(200):
        n = rng.randint(2, 8)
        steps = [_step(f"U{i}", f"to{i}", f"from{i}", rule=rng.choice(["16.1.1", "16.2.1", "60.41"]))
                 for i in range(n)]
        mark = {"rule": "16.1.1", "step": "Step 1", "action": "set_country", "subject": "X",
                "details": {"status": "conquered"}}
        event = {"rule": "16.1.1", "status": "fired", "steps": [mark, *steps]}
        made = set(rng.sample(range(n), rng.randint(0, n - 1)))
        wrong = rng.choice([i for i in range(n) if i not in made])
        position = {"countries": {"X": {"status": "conquered"}},
                    "counters": [{"id": f"U{i}", "name": f"U{i}",
                                  "location": f"to{i}" if i in made else ("elsewhere" if i == wrong
                                                                          else f"from{i}")}
                                 for i in range(n)]}
        judged = judge_event(event, position)
        assert {s["counter"] for s in judged[REMAINING]} == {f"U{i}" for i in range(n)} - {
            f"U{i}" for i in made} - {f"U{wrong}"}
        assert [d["step"]["counter"] for d in judged["deviations"]] == [f"U{wrong}"]
        current = {"rule": "16.1.1", "status": "not_due", "why": []}
        assert mark_owed(current, event, position) and current["status"] == "owed"


def test_nothing_made_is_lapsed_not_owed() -> None:
    """An event whose condition stopped holding before any step was made owes nothing (lapsed)."""
    event = {"rule": "16.1.1", "status": "fired", "steps": [_step("A", "to", "from")]}
    current = {"rule": "16.1.1", "status": "not_due", "why": []}
    assert not mark_owed(current, event, {"counters": [{"id": "A", "location": "from"}]})
    assert current["status"] == "not_due"
