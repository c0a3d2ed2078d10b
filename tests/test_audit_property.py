"""Property (issue 37 item 4), at the log level: a continuation log that makes a random part of a plan,
or sends one required counter elsewhere, is audited as exactly that (`adjutant check --audit`).

The logs are written by `adjutant apply` itself — real VASSAL moves — with the plan cut down (or one
step's destination changed) just before it is written; the audit is given no answer and reads
pieces and places only. Families: 16.1.1 conquest (02), 16.1.2 occupation remedy (04), 16.2.1 Case
Yellow (05), 16.3.3 Their Finest Hour (06), 16.3.5 Reduced US Impact (07), 16.5.4 Border Defense (09).
"""

from __future__ import annotations

import json
import random

import pytest

from bridge.cli.main import main
from bridge.writeback import applier
from module_patches.demo_world import DEMO_DIR

MODULE = DEMO_DIR / "adjutant-demo.vmod"
PACK = DEMO_DIR / "pack"
SAVES = DEMO_DIR / "saves"
REMEDY = ("04-hungary-occupied.vsav", "16.1.2", ["16.1.2:remedy:Hungary=remove"])  # one placement
ONE_PLACEMENT = [REMEDY, ("07-reduced-us-impact.vsav", "16.3.5", [])]
CASES = [("02-poland-falls.vsav", "16.1.1", []),
         ("05-case-yellow.vsav", "16.2.1", ["16.2.1:country=France", "16.2.1:influence=none"]),
         ("06-finest-hour.vsav", "16.3.3", []),
         ("09-border-defense.vsav", "16.5.4", ['16.5.4:redeploy=["RU-1:1>e3806","RU-3:1>e3806"]'])]


def _placements(plan, rule: str) -> list[dict]:
    event = next(e for e in plan["events"] if e["rule"] == rule)
    return [s for s in event["steps"] if s.get("counter") and s.get("to")]


def _write(tmp_path, capsys, monkeypatch, save: str, answers: list[str], cut) -> tuple[str, list[dict]]:
    """apply with `cut(plan)` changing the plan just before it is written; returns the log and the plan
    steps of the event as planned (before the cut)."""
    real = applier.translate
    planned: list[dict] = []

    def translate(plan, *args, **kwargs):
        planned.extend(json.loads(json.dumps(plan["events"])))
        cut(plan)
        plan["resulting_position"] = None
        return real(plan, *args, **kwargs)

    monkeypatch.setattr(applier, "translate", translate)
    out = tmp_path / f"{save}.vlog"
    flags = [a for answer in answers for a in ("--answer", answer)]
    status = main(["apply", str(SAVES / save), "--module", str(MODULE), "--pack", str(PACK), *flags,
                   "--partial", "--out", str(out)])
    monkeypatch.setattr(applier, "translate", real)
    capsys.readouterr()
    return (str(out) if status == 0 else ""), planned


def _audit(capsys, log: str, rule: str) -> dict:
    capsys.readouterr()
    main(["check", log, "--audit", "--module", str(MODULE), "--pack", str(PACK), "--format", "json"])
    audit = json.loads(capsys.readouterr().out)
    return next(e for e in audit["events"] if e["rule"] == rule)


def _key(step: dict) -> tuple:
    return step.get("counter"), step.get("to"), step.get("step"), step.get("text")


@pytest.mark.parametrize("save, rule, answers", CASES)
@pytest.mark.parametrize("seed", [1, 2])
def test_a_random_part_made_names_exactly_the_rest(tmp_path, capsys, monkeypatch, save, rule, answers,
                                                  seed) -> None:
    """Keep a random non-empty, not-whole subset of the event's placements: the audit's steps not made
    are exactly the dropped ones (every other step of the event made, none elsewhere)."""
    rng = random.Random(f"{save}:{seed}")
    dropped: list[tuple] = []

    def cut(plan):
        event = next(e for e in plan["events"] if e["rule"] == rule)
        placements = [s for s in event["steps"] if s.get("counter") and s.get("to")]
        lose = rng.sample(placements, rng.randint(1, len(placements) - 1))
        dropped.extend(_key(s) for s in lose)
        event["steps"] = [s for s in event["steps"] if s not in lose]

    log, _planned = _write(tmp_path, capsys, monkeypatch, save, answers, cut)
    assert len(dropped) >= 1, f"{rule} on {save}: at least two placements to cut from"
    assert log, "apply wrote the cut plan"
    event = _audit(capsys, log, rule)
    not_made = sorted(_key(s) for s in event["steps"] if s["seen"] and s["done_at_step"] is None)
    assert not_made == sorted(dropped), event
    assert event["outcome"] == "partial" and event["deviations"] == []


@pytest.mark.parametrize("save, rule, answers", [*CASES, *ONE_PLACEMENT])
def test_one_counter_sent_elsewhere_is_the_one_deviation(tmp_path, capsys, monkeypatch, save, rule,
                                                         answers) -> None:
    """Send one required counter to another place the plan uses (a legal-looking place): it is the one
    step WRONG, named with where it stands."""
    rng = random.Random(save)
    moved: list[tuple] = []

    def cut(plan):
        event = next(e for e in plan["events"] if e["rule"] == rule)
        placements = [s for s in event["steps"] if s.get("counter") and s.get("to")]
        by_counter: dict[str, list] = {}
        for step in placements:
            by_counter.setdefault(step["counter"], []).append(step)
        singles = [steps[0] for steps in by_counter.values() if len(steps) == 1]
        places = sorted({s["to"] for s in placements} | {s["from"] for s in placements if s.get("from")}
                        | {"delay", "e3706"})  # and the Delay Box, Lvov: places the demo uses
        for step in rng.sample(singles, len(singles)):
            elsewhere = [p for p in places if p not in (step["to"], step.get("from"))]
            if elsewhere:
                step["to"] = rng.choice(elsewhere)
                moved.append((step["counter"], step["to"]))
                return

    log, _planned = _write(tmp_path, capsys, monkeypatch, save, answers, cut)
    assert moved, f"{rule} on {save}: a counter placed once, with another place to send it"
    event = _audit(capsys, log, rule)
    wrong = [s["counter"] for s in event["steps"] if s["deviation"]]
    assert wrong in ([], [moved[0][0]]), event  # no other step is called wrong
    # Named wherever it is judged: as the answer's step, or (no answer has a step made) as a move
    # that fits no legal answer of the event's choice.
    assert [d for d in event["deviations"] if moved[0][0] in d], event
    assert event["outcome"] == "wrong"
