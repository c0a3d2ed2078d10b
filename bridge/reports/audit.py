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

import copy
import html
import json
from bisect import bisect_left
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bridge.common.jsonout import header
from bridge.reports.contents import header_lines, warning_lines
from bridge.reports.obligation import Obligation
from bridge.reports.recognise import Recognition
from rules.owed import DEVIATION, UNSEEN, counter_label, counter_names, deviation_text, step_label
from rules.packs import hex_label

OUTCOMES = ("carried_out", "partial", "wrong", "not_done", "lapsed", "waiting")
SETTLED = ("carried_out", "lapsed")  # exit 0 only when every audited event is one of these


RECOGNITION_ROUNDS = 8  # each answer read from the moves may open a later event's choice (16.1.2, 16.1.3)
ASKING = ("fired", "waiting")  # the statuses in which an event is due at a step


def build_audit(pipeline: Any, path: str | Path, answers: Mapping[str, Any] | None = None,
                answers_source: str = "<answers>", up_to: int | None = None) -> dict[str, Any]:
    """Every event due at some step of the log (up to step `up_to`), with its outcome; JSON-able.

    An unanswered choice is judged by which legal option the moves amount to
    (bridge/reports/recognise.py), at the position that asked it: the same choice asked again at a
    later turn of the log is read again, from that turn's moves."""
    from vassal_parser.errors import InputError

    game, info = pipeline.load(path)
    if game.kind != "log":
        raise InputError(path, "--audit needs a log (.vlog); this file is a save with no replay steps")
    if up_to is not None and not 0 <= up_to <= info["steps"]:
        raise InputError(path, f"--step {up_to} is out of range: this log has {info['steps']} replay steps")
    hex_name = lambda h: hex_label(pipeline.pack, h)  # noqa: E731
    given = dict(answers or {})
    owed, positions, final, phasing, last_step, live = _replay(pipeline, game, info, given, answers_source,
                                                               up_to)
    source = f"{info['file']} (as mapped by {pipeline.mapping.source})"
    owed = _read_choices(pipeline.pack, owed, positions, given, answers_source, source, hex_name)
    last_position = positions[-1][1] if positions else None
    events = [_report(o, hex_name, last_position, phasing) for o in owed]
    events.sort(key=lambda e: (e["due_at_step"], e["rule"]))
    if not final:  # stopped before the last step: the header of the position audited to
        final = pipeline.plan_file(path, step=last_step, answers=live or None,
                                   answers_source=answers_source).plan
        phasing = phasing or final.get("phasing")
    return {**header("audit"), "file": str(path), "steps": info["steps"], "up_to_step": last_step,
            "phasing": phasing, "events": events,
            "settled": all(e["outcome"] in SETTLED for e in events), "plan": final}


def _replay(pipeline: Any, game: Any, info: Mapping[str, Any], answers: Mapping[str, Any], source: str,
            up_to: int | None) -> tuple[list[Obligation], list[tuple[int, Mapping[str, Any]]],
                                        dict[str, Any], str | None, int, dict[str, Any]]:
    """One pass over the log: the obligations (events due at some step), the mapped positions where
    they changed, the last step's full plan, the phasing faction, the last step audited and the
    answers still live there.

    An obligation is judged at every position until every step it requires stands made (then it is
    settled: later moves are play, not a taking back), until its event is due afresh (a later turn's
    firing is a new obligation), or to the end. An answer is taken back once its event fired: it
    belongs to the position that asked it, and the choice asked again after the moves (its options
    changed) is not a new obligation."""
    from bridge.reports.step_plans import step_plans

    live = dict(answers)
    spent: set[str] = set()
    open_: dict[tuple[str, str], Obligation] = {}
    settled: set[tuple[str, str]] = set()  # carried out, its event still asking: not owed again
    done: list[Obligation] = []
    positions: list[tuple[int, Mapping[str, Any]]] = []
    final: dict[str, Any] = {}
    phasing = None
    last_step = 0
    for planned in step_plans(pipeline, game, info, live, source):
        step = planned.step
        if up_to is not None and step > up_to:
            break
        last_step = step
        if planned.result is not None:
            final = planned.result.plan
            phasing = final.get("phasing")
        if planned.position is not None:
            positions.append((step, planned.position))
            phasing = phasing or (planned.position.get("turn") or {}).get("phasing")
        for event in planned.events:
            key = (event["rule"], event.get("source", ""))
            status = event["status"]
            if status not in ASKING:
                settled.discard(key)
            owed = open_.get(key)
            if owed is not None and owed.status not in ASKING and status in ASKING and owed.steps:
                done.append(open_.pop(key))  # due afresh: the earlier firing is judged as it stood
                owed = None
            if owed is None and status in ASKING and key not in settled:
                waits = set(event.get("waiting_for") or ())
                if status == "waiting" and waits and waits <= spent:
                    continue  # asked again only because a spent answer was taken back
                owed = open_[key] = Obligation(event, step, phasing)
            if owed is None:
                continue
            owed.status = status
            if status == "waiting":
                owed.waiting_for = list(event.get("waiting_for") or ())  # what it last waited on
            if not (owed.asked_own and step > owed.due_at_step):
                # An event that waited on its own choice is judged by the answer read from the moves
                # at the position that asked it, never by a firing the moves themselves brought about.
                owed.take_steps(event)
            if owed.steps:
                for choice in owed.choices:
                    if choice.get("answered") and choice.get("id") in live:
                        spent.add(str(choice["id"]))
                        live.pop(str(choice["id"]))
            if status not in ASKING and not owed.steps:
                # Waited, never fired, and no longer asks: nothing was owed -- unless the moves show
                # an answer made (bridge/reports/recognise.py reads it).
                owed.closed_lapsed = True
                done.append(open_.pop(key))
        if planned.position is not None:
            for key, owed in list(open_.items()):
                owed.judge(step, planned.position)
                if owed.complete():
                    done.append(open_.pop(key))
                    if owed.status in ASKING:
                        settled.add(key)
                elif owed.status not in ASKING and not owed.any_done() and not owed.tally()[DEVIATION]:
                    owed.closed_lapsed = True  # its condition stopped holding before anything was made
                    done.append(open_.pop(key))
    if positions:
        phasing = phasing or (positions[-1][1].get("turn") or {}).get("phasing")
    return [*done, *open_.values()], positions, final, phasing, last_step, live


def _read_choices(pack: Any, owed: list[Obligation], positions: list[tuple[int, Mapping[str, Any]]],
                  given: Mapping[str, Any], answers_source: str, source: str,
                  hex_name: Any) -> list[Obligation]:
    """Each unanswered choice read from the moves that follow it, at the position that asked it; the
    events that only waited on it are planned again there with that answer (dropped where it leaves
    them not due)."""
    from bridge.reports.recognise import recognise
    from bridge.reports.step_plans import events_of

    by_step: dict[int, list[Obligation]] = {}
    for obligation in owed:
        by_step.setdefault(obligation.due_at_step, []).append(obligation)
    # An obligation's moves are looked for up to the step its event is due afresh (a later turn).
    due_steps: dict[tuple[str, str], list[int]] = {}
    for obligation in sorted(owed, key=lambda o: o.due_at_step):
        due_steps.setdefault(obligation.key, []).append(obligation.due_at_step)

    until = {id(o): next((s for s in due_steps[o.key] if s > o.due_at_step), None) for o in owed}
    steps_of = [s for s, _p in positions]
    planned: dict[tuple[int, str], list[dict[str, Any]]] = {}  # a log's positions repeat (its turns)

    def window(obligation: Obligation) -> list[tuple[int, Mapping[str, Any]]]:
        """The positions from its due step to the step its event is due afresh."""
        end = until[id(obligation)]
        return positions[bisect_left(steps_of, obligation.due_at_step):
                         len(positions) if end is None else bisect_left(steps_of, end)]

    kept: list[Obligation] = []
    for due, group in sorted(by_step.items()):
        at_due = next((p for s, p in reversed(positions) if s <= due), None)
        if at_due is None:
            kept += group
            continue
        answered = dict(given)
        tried: set[int] = set()

        def events_at(answers: Mapping[str, Any],
                      position: Mapping[str, Any] = at_due) -> list[dict[str, Any]]:
            key = (id(position), json.dumps(answers, sort_keys=True, default=str))
            if key not in planned:
                planned[key] = events_of(pack, position, answers, answers_source, source)
            return copy.deepcopy(planned[key])

        dropped: set[int] = set()
        for _ in range(RECOGNITION_ROUNDS):
            target = next((o for o in group if id(o) not in tried and o.own_open_choices()
                           and not o.steps), None)
            if target is None:
                break
            tried.add(id(target))
            found = recognise(events_at, target, window(target), answered, hex_name)
            target.reading = found
            if found is None or found.value is None or found.trial is None:
                continue
            answered[found.choice_id] = found.value
            target.adopt(found.trial)
            events = {(e["rule"], e.get("source", "")): e for e in events_at(answered)}
            for other in group:
                if other is target or found.choice_id not in other.waiting_for:
                    continue
                event = events.get(other.key)
                if event is None or event["status"] not in ASKING:
                    dropped.add(id(other))  # it only waited on the decision, and is not due with it
                    continue
                other.status, other.waiting_for = event["status"], list(event.get("waiting_for") or ())
                other.choices = list(event.get("choices", []))
                other.take_steps(event)
                if other.steps:
                    other.closed_lapsed = False
                    other.judge_all(window(other))
        kept += [o for o in group if id(o) not in dropped]
    return kept


def _report(owed: Obligation, hex_name: Any, position: Mapping[str, Any] | None,
            phasing: str | None) -> dict[str, Any]:
    own = [owed.reading] if owed.reading is not None else []
    unmatched = [line for r in own for line in r.unmatched]
    notes = [r.note for r in own if r.note]
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
    if unmatched:
        outcome = "wrong"  # the counters its choice governs moved, and no legal answer amounts to it
    elif owed.closed_lapsed:
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
            "faction": _owed_by(owed) or owed.faction or phasing, "outcome": outcome, "made": len(made),
            "required": len(seen),
            "unseen": unseen, "steps": steps,
            "deviations": [s["deviation"] for s in steps if s["deviation"]] + unmatched,
            "notes": notes,
            "choices": [_choice(c, owed.reading if owed.reading is not None
                                and owed.reading.choice_id == str(c.get("id")) else None)
                        for c in owed.choices]}


def _owed_by(owed: Obligation) -> str | None:
    """The faction whose decision the event's choice is (16.5.4: the Axis redeploys Russian steps)."""
    return next((str(c["decider"]) for c in owed.choices if c.get("decider")), None)


def _choice(choice: Mapping[str, Any], found: Recognition | None) -> dict[str, Any]:
    """A choice as audited: its answer, and whether that answer was read from the moves."""
    recognised = found is not None and found.value is not None
    return {"id": choice.get("id"), "answered": bool(choice.get("answered")), "answer": choice.get("answer"),
            "answer_label": ", ".join(found.labels) if recognised else choice.get("answer_label"),
            "recognised_from_moves": recognised,
            "closest_only": recognised and not found.exact}


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
        lines = [f"## {title}", "", *(f"- {_md(line)}" for line in head),
                 *(f"- **warning:** {_md(w)}" for w in warnings), "",
                 "| Rule | Event | Due at step | Faction | Outcome |", "|---|---|---|---|---|"]
        lines += [f"| {r} | {_md(t)} | {d} | {f} | {o} |" for r, t, d, f, o, _ in rows]
        for *_, event in rows:
            lines += ["", f"### {event['rule']} {_md(event['title'])}: {outcome_words(event)}"]
            lines += [f"- {_md(line)}" for line in _event_lines(event)]
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
                        + "".join(f"<li>{h(line)}</li>" for line in _event_lines(event))
                        + "".join(f"<li>{h(_step_line(s))}</li>" for s in event["steps"]) + "</ul>")
        return ("<!doctype html><html><head><meta charset=\"utf-8\"><title>" + h(title)
                + "</title><style>td,th{border:1px solid #999;padding:2px 6px}table{border-collapse:collapse}"
                  ".outcome-wrong,.outcome-not_done,.outcome-partial{background:#fbe3e1}</style></head><body>"
                + "".join(body) + "</body></html>\n")
    lines = [title, *head, *(f"warning: {w}" for w in warnings)]
    for *_, event in rows:
        lines.append(f"{event['rule']} {event['title']} [{event['source']}]: {outcome_words(event)} "
                     f"(due at step {event['due_at_step']}, {event['faction'] or 'faction ?'})")
        lines += [f"    {line}" for line in _event_lines(event)]
        lines += [f"    {_step_line(s)}" for s in event["steps"]]
    if not rows:
        lines.append("No event was due in this log.")
    return "\n".join(lines)


def _event_lines(event: Mapping[str, Any]) -> list[str]:
    """What the event says beyond its steps: an answer read from the moves, moves that fit no legal
    answer, and why a choice was left unread."""
    lines = [(f"no legal answer fits the moves; the closest (no answer was given): {c['answer_label']}"
              if c.get("closest_only") else
              f"answer read from the moves (no answer was given): {c['answer_label']}")
             for c in event.get("choices", []) if c.get("recognised_from_moves")]
    steps_wrong = {s["deviation"] for s in event.get("steps", []) if s.get("deviation")}
    lines += [f"WRONG: {d}" for d in event.get("deviations", []) if d not in steps_wrong]
    lines += [f"note: {n}" for n in event.get("notes", [])]
    return lines


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
