"""`adjutant check GAME.vlog --audit`: was what the rules required actually done, step by step?

Why a replay (bridge/reports/step_plans.py, the one pass `--timeline` makes): an event becomes due
at one step of a PBEM log and its steps are made at later ones; the referee needs the step each was
made at, judged by pieces and places (rules/owed.py) — a player's own log has no Adjutant chat line.

Outcomes (docs/json-formats.md, format `adjutant-audit`):
  carried_out  every step the positions can show was made as required (6.2 Important);
  partial      some made, the rest not (none elsewhere);
  wrong        a required piece stands somewhere the event does not put it;
  not_done     due, and nothing of it made;
  lapsed       its condition stopped holding before anything was made (e.g. the Axis left a City);
  waiting      a decision it needs is still unmade.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bridge.common.jsonout import header
from bridge.reports.contents import header_lines, warning_lines
from rules.owed import (
    DEVIATION,
    DONE,
    UNSEEN,
    chain_of,
    counter_label,
    counter_names,
    deviation_text,
    judge_step,
    locations_of,
    placement_chains,
    step_label,
)
from rules.packs import hex_label

OUTCOMES = ("carried_out", "partial", "wrong", "not_done", "lapsed", "waiting")
SETTLED = ("carried_out", "lapsed")  # exit 0 only when every audited event is one of these


class _Obligation:
    """One event due in the log: the steps it required, and at which step each was seen made."""

    def __init__(self, event: Mapping[str, Any], step: int, faction: str | None) -> None:
        self.rule, self.title, self.source = event["rule"], event.get("title", ""), event.get("source", "")
        self.due_at_step = step
        self.faction = faction
        self.status = event["status"]
        self.closed_lapsed = False
        self.steps: list[dict[str, Any]] = []
        self.choices = list(event.get("choices", []))
        self.take_steps(event)

    def take_steps(self, event: Mapping[str, Any]) -> None:
        """The required steps: those of the first plan in which the event fired (answered choices
        applied: an answered choice is audited against its answer)."""
        if self.steps or event.get("status") != "fired":
            return
        self.steps = [{"required": dict(s), "done_at_step": None, "verdict": None} for s in event["steps"]]
        self.choices = list(event.get("choices", []))
        chains = placement_chains(item["required"] for item in self.steps)
        for item in self.steps:
            item["chain"] = chain_of(item["required"], chains)

    def judge(self, step: int, position: Mapping[str, Any]) -> None:
        where = locations_of(position)
        countries = position.get("countries") or {}
        for item in self.steps:
            verdict = judge_step(item["required"], where, countries, item["chain"])
            item["verdict"], item["at"] = verdict, where.get(str(item["required"].get("counter")))
            if verdict == DONE:
                if item["done_at_step"] is None:
                    item["done_at_step"] = step
            else:
                item["done_at_step"] = None  # taken back: made only if it stands at the end

    def any_done(self) -> bool:
        return any(item["verdict"] == DONE for item in self.steps)


def build_audit(pipeline: Any, path: str | Path, answers: Mapping[str, Any] | None = None,
                answers_source: str = "<answers>", up_to: int | None = None) -> dict[str, Any]:
    """Every event due at some step of the log (up to step `up_to`), with its outcome; JSON-able."""
    from bridge.reports.step_plans import step_plans
    from vassal_parser.errors import InputError

    game, info = pipeline.load(path)
    if game.kind != "log":
        raise InputError(path, "--audit needs a log (.vlog); this file is a save with no replay steps")
    if up_to is not None and not 0 <= up_to <= info["steps"]:
        raise InputError(path, f"--step {up_to} is out of range: this log has {info['steps']} replay steps")
    hex_name = lambda h: hex_label(pipeline.pack, h)  # noqa: E731
    open_: dict[tuple[str, str], _Obligation] = {}
    done: list[_Obligation] = []
    final: dict[str, Any] = {}
    phasing = None
    last_position: Mapping[str, Any] | None = None
    last_step = 0
    for planned in step_plans(pipeline, game, info, answers, answers_source):
        step = planned.step
        if up_to is not None and step > up_to:
            break
        last_step = step
        if planned.result is not None:
            final = planned.result.plan
            phasing = final.get("phasing")
        if planned.position is not None:
            last_position = planned.position
            phasing = phasing or (planned.position.get("turn") or {}).get("phasing")
        for event in planned.events:
            key = (event["rule"], event.get("source", ""))
            status = event["status"]
            owed = open_.get(key)
            if owed is None and status in ("fired", "waiting"):
                owed = open_[key] = _Obligation(event, step, phasing)
            if owed is None:
                continue
            owed.status = status
            owed.take_steps(event)
            if status not in ("fired", "waiting") and not owed.steps:
                # Waited, never fired, and no longer asks: nothing was owed.
                owed.closed_lapsed = True
                done.append(open_.pop(key))
        if planned.position is not None:
            for key, owed in list(open_.items()):
                owed.judge(step, planned.position)
                if owed.status not in ("fired", "waiting") and not owed.any_done():
                    owed.closed_lapsed = True  # its condition stopped holding before anything was made
                    done.append(open_.pop(key))
    if last_position is not None:
        phasing = phasing or (last_position.get("turn") or {}).get("phasing")
    events = [_report(o, hex_name, last_position, phasing) for o in [*done, *open_.values()]]
    events.sort(key=lambda e: (e["due_at_step"], e["rule"]))
    if not final:  # stopped before the last step: the header of the position audited to
        final = pipeline.plan_file(path, step=last_step, answers=answers, answers_source=answers_source).plan
        phasing = phasing or final.get("phasing")
    plan_head = final
    return {**header("audit"), "file": str(path), "steps": info["steps"], "up_to_step": last_step,
            "phasing": phasing, "events": events,
            "settled": all(e["outcome"] in SETTLED for e in events), "plan": plan_head}


def _report(owed: _Obligation, hex_name: Any, position: Mapping[str, Any] | None,
            phasing: str | None) -> dict[str, Any]:
    names = counter_names(position or {})
    steps = []
    for item in owed.steps:
        required = item["required"]
        entry = {**required, "done_at_step": item["done_at_step"],
                 "seen": item["verdict"] != UNSEEN, "deviation": None}
        if item["verdict"] == DEVIATION:
            name = counter_label(names, str(required.get("counter")))
            entry["deviation"] = deviation_text(required, item.get("at"), name, hex_name)
        steps.append(entry)
    seen = [s for s in steps if s["seen"]]
    made = [s for s in seen if s["done_at_step"] is not None]
    if owed.closed_lapsed:
        outcome = "lapsed"
    elif owed.status == "waiting" and not owed.steps:
        outcome = "waiting"
    elif any(s["deviation"] for s in steps):
        outcome = "wrong"
    elif seen and len(made) == len(seen):
        outcome = "carried_out"
    elif not seen:
        outcome = "carried_out" if owed.status not in ("fired", "waiting") else "not_done"
    elif made:
        outcome = "partial"
    else:
        outcome = "not_done"
    unseen = len(steps) - len(seen)
    return {"rule": owed.rule, "title": owed.title, "source": owed.source, "due_at_step": owed.due_at_step,
            "faction": owed.faction or phasing, "outcome": outcome, "made": len(made), "required": len(seen),
            "unseen": unseen, "steps": steps,
            "choices": [{"id": c.get("id"), "answered": c.get("answered"), "answer": c.get("answer")}
                        for c in owed.choices]}


OUTCOME_WORD = {"carried_out": "carried out", "partial": "carried out in part", "wrong": "WRONG",
                "not_done": "NOT DONE", "lapsed": "lapsed", "waiting": "WAITING"}


def outcome_words(event: Mapping[str, Any]) -> str:
    word = OUTCOME_WORD[event["outcome"]]
    if event["outcome"] in ("partial", "not_done", "wrong") and event["required"]:
        word += f" ({event['made']} of {event['required']} steps)"
    return word


def render(audit: Mapping[str, Any], fmt: str) -> str:
    if fmt == "json":
        return json.dumps(audit, indent=2)
    head = header_lines(audit["plan"]) if audit.get("plan") else [str(audit["file"])]
    warnings = warning_lines(audit["plan"]) if audit.get("plan") else []
    title = f"Audit of {audit['file']}, steps 0-{audit['up_to_step']} of {audit['steps']}"
    rows = [(e["rule"], e["title"], str(e["due_at_step"]), e["faction"] or "", outcome_words(e), e)
            for e in audit["events"]]
    if fmt == "markdown":
        lines = [f"## {title}", "", *head, "", *(f"- warning: {w}" for w in warnings),
                 "| Rule | Event | Due at step | Faction | Outcome |", "|---|---|---|---|---|"]
        lines += [f"| {r} | {_md(t)} | {d} | {f} | {o} |" for r, t, d, f, o, _ in rows]
        for *_, event in rows:
            lines += ["", f"### {event['rule']} {_md(event['title'])}: {outcome_words(event)}"]
            lines += [f"- {_step_line(s, md=True)}" for s in event["steps"]]
        if not rows:
            lines.append("_No event was due in this log._")
        return "\n".join(lines) + "\n"
    if fmt == "html":
        h = html.escape
        body = [f"<h1>{h(title)}</h1>", *(f"<p>{h(x)}</p>" for x in head),
                *(f'<p class="warning">{h(w)}</p>' for w in warnings),
                "<table><tr><th>Rule</th><th>Event</th><th>Due at step</th><th>Faction</th>"
                "<th>Outcome</th></tr>"]
        body += [f'<tr class="outcome-{h(e["outcome"])}"><td>{h(r)}</td><td>{h(t)}</td><td>{d}</td>'
                 f"<td>{h(f)}</td><td>{h(o)}</td></tr>" for r, t, d, f, o, e in rows]
        body.append("</table>")
        for *_, event in rows:
            body.append(f"<h2>{h(event['rule'])} {h(event['title'])}: {h(outcome_words(event))}</h2><ul>"
                        + "".join(f"<li>{h(_step_line(s))}</li>" for s in event["steps"]) + "</ul>")
        return ("<!doctype html><html><head><meta charset=\"utf-8\"><title>" + h(title)
                + "</title><style>td,th{border:1px solid #999;padding:2px 6px}table{border-collapse:collapse}"
                  ".outcome-wrong,.outcome-not_done,.outcome-partial{background:#fbe3e1}</style></head><body>"
                + "".join(body) + "</body></html>\n")
    lines = [title, *head, *(f"warning: {w}" for w in warnings)]
    for *_, event in rows:
        lines.append(f"{event['rule']} {event['title']} [{event['source']}]: {outcome_words(event)} "
                     f"(due at step {event['due_at_step']}, {event['faction'] or 'faction ?'})")
        lines += [f"    {_step_line(s)}" for s in event["steps"]]
    if not rows:
        lines.append("No event was due in this log.")
    return "\n".join(lines)


def _step_line(step: Mapping[str, Any], md: bool = False) -> str:
    label = step_label(step)
    if not step["seen"]:
        state = "cannot be seen in a position"
    elif step["done_at_step"] is not None:
        state = f"made at step {step['done_at_step']}"
    elif step["deviation"]:
        state = f"WRONG: {step['deviation']}"
    else:
        state = "NOT MADE"
    text = _md(str(step.get("text", ""))) if md else step.get("text", "")
    return f"({label}) {text}: {state}"


def _md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("*", "\\*").replace("_", "\\_")
