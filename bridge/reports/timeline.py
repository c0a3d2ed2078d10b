"""`adjutant check GAME.vlog --timeline`: at which step of a log each event became due, and stopped.

Why: a PBEM log holds a whole turn's play; the opponent wants to know not only what is due at the
end but when it became due — which move, which chat line — so they can check the play that made it
so. Each replay step is planned in order (the file is read once); a row is written for every step
at which some event's status changed, with that step's own chat text and moves.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from bridge.common.jsonout import header
from bridge.reports.contents import DUE_STATUSES, STATUS_WORD, header_lines, warning_lines

MAX_DESCRIBED = 4  # commands of one step described by name; the rest are counted


def describe_step(commands: Sequence[Any], before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """What one replay step did, as a player reads it: chat lines, then moved/added/removed pieces."""
    chat: list[str] = []
    moves: list[str] = []
    for command in commands:
        kind = command.kind
        if kind == "chat":
            text = command.fields.get("message", "").strip()
            if text:
                chat.append(text)
            continue
        piece_id = (
            command.fields.get("id")
            if kind in ("move_piece", "add_piece", "remove_piece", "change_piece")
            else None
        )
        if piece_id is None:
            continue
        now, was = after.get(piece_id), before.get(piece_id)
        if kind == "remove_piece" and was is not None:
            moves.append(f"removed {was.piece_name} from {was.location}")
        elif kind == "add_piece" and now is not None:
            moves.append(f"added {now.piece_name} at {now.location}")
        elif now is not None and was is not None and (now.map, now.location) != (was.map, was.location):
            moves.append(f"moved {now.piece_name} from {was.location} to {now.location}")
        elif now is not None and kind == "change_piece":
            moves.append(f"changed {now.piece_name} at {now.location}")
    unique = list(dict.fromkeys(moves))
    if len(unique) > MAX_DESCRIBED:
        unique = [*unique[:MAX_DESCRIBED], f"and {len(unique) - MAX_DESCRIBED} more"]
    return [*(f"chat: {line}" for line in chat), *unique]


def build_timeline(
    pipeline: Any,
    path: str | Path,
    answers: Mapping[str, Any] | None = None,
    answers_source: str = "<answers>",
) -> dict[str, Any]:
    """Every step's status changes; the final plan; JSON-able (format adjutant-timeline).

    The steps' plans come from `bridge.reports.step_plans` (the log replayed once, the engine run only
    where a step changed the mapped position); the last step's is the full plan."""
    from bridge.reports.step_plans import step_plans
    from vassal_parser.errors import InputError

    game, info = pipeline.load(path)
    if game.kind != "log":
        raise InputError(path, "--timeline needs a log (.vlog); this file is a save with no replay steps")
    rows: list[dict[str, Any]] = []
    previous_status: dict[str, str] = {}
    fired_as: dict[str, dict[str, Any]] = {}  # rule -> its entry where it last fired (its steps)
    owed_open: dict[str, dict[str, Any]] = {}  # rule -> its fired entry, while steps of it are owed
    position: Mapping[str, Any] = {}
    final: dict[str, Any] = {}
    for planned in step_plans(pipeline, game, info, answers, answers_source):
        step = planned.step
        if planned.result is not None:
            final = planned.result.plan
        if planned.position is not None:
            position = planned.position
        changes = []
        for event in planned.events:
            if event["status"] in DUE_STATUSES:
                owed_open.pop(event["rule"], None)  # due again: its own rows say so
                continue
            earlier = owed_open.get(event["rule"])
            if earlier is not None and planned.position is not None:
                change, still_owed = _ended(earlier, position)
                if not still_owed:
                    del owed_open[event["rule"]]
                    changes.append({"rule": event["rule"], "title": event["title"],
                                    "change": f"{change} (its owed steps made)", "status": "not_due"})
        for event in planned.events:
            rule, status = event["rule"], event["status"]
            if status == "fired":
                fired_as[rule] = event
            was = previous_status.get(rule, "not_due" if step else None)
            previous_status[rule] = status
            if was == status or (was is None and status not in DUE_STATUSES):
                continue
            if status in DUE_STATUSES:
                change = _status_change(event, was is None or was not in DUE_STATUSES)
            else:
                ended = fired_as.pop(rule, None)
                change, still_owed = _ended(ended, position)
                if still_owed and ended is not None:
                    owed_open[rule] = ended
            entry = {"rule": rule, "title": event["title"], "change": change, "status": status}
            if status == "undecided":
                entry["missing"] = [
                    m.get("text", "") for m in event.get("missing") or [] if isinstance(m, Mapping)
                ]
            changes.append(entry)
        if changes:
            what = (describe_step(game.steps[step - 1], planned.before, planned.after) if step
                    else ["the log as opened"])
            rows.append({"step": step, "did": what, "changes": changes})
    owed = [{"rule": rule, "title": event.get("title", ""), "change": _ended(event, position)[0]}
            for rule, event in owed_open.items()]
    return {**header("timeline"), "file": str(path), "steps": info["steps"], "rows": rows, "plan": final,
            "owed_at_end": owed}


def _ended(fired: Mapping[str, Any] | None, position: Mapping[str, Any]) -> tuple[str, bool]:
    """What became of an event that stopped being due, judged by pieces and places (rules/owed.py):
    "carried out", "carried out in part (1 of 6 steps): owed", or "lapsed" (nothing of it made: its
    condition stopped holding, 6.2). An event that waited and never fired: "no longer due". With it,
    whether steps of it are still owed."""
    from rules.owed import DONE, REMAINING, judge_event

    if fired is None or not fired.get("steps"):
        return "no longer due", False
    judged = judge_event(fired, position)
    seen = len(judged[DONE]) + len(judged[REMAINING]) + len(judged["deviations"])
    if not judged[DONE]:
        return "lapsed", False
    if len(judged[DONE]) == seen:
        return "carried out", False
    wrong = f", {len(judged['deviations'])} elsewhere" if judged["deviations"] else ""
    return f"carried out in part ({len(judged[DONE])} of {seen} steps{wrong}): owed", True


def _status_change(event: Mapping[str, Any], newly: bool) -> str:
    """The status as `check` shows it (issue 22): an event waiting on an earlier event's answer is
    WAITING for it, never "due"; undecided is undecided."""
    status = event["status"]
    if status == "waiting":
        waits = ", ".join(str(w) for w in event.get("waiting_for") or [])
        word = f"WAITING for {waits}" if waits else "WAITING"
    else:
        word = "due" if status == "fired" else "undecided"
    return f"became {word}" if newly else f"now {word if status == 'waiting' else STATUS_WORD[status]}"


def due_at_end(timeline: Mapping[str, Any]) -> list[str]:
    return [e["rule"] for e in timeline["plan"]["events"] if e["status"] in DUE_STATUSES] + [
        e["rule"] for e in timeline.get("owed_at_end", [])]


def render(timeline: Mapping[str, Any], fmt: str) -> str:
    if fmt == "json":
        return json.dumps(timeline, indent=2, ensure_ascii=False)
    plan = timeline["plan"]
    head = [line for line in header_lines(plan) if not line.startswith("log position")]
    head.append(f"timeline of {timeline['steps']} replay steps (step N = the position after step N)")
    warnings = warning_lines(plan)
    if fmt == "markdown":
        lines = [f"## Adjutant timeline: {head[0]}", ""]
        lines += [f"- {line}" for line in head[1:]] + [f"- **warning:** {w}" for w in warnings] + [""]
        lines += ["| step | what happened | events |", "|---|---|---|"]
        for row in timeline["rows"]:
            did = "<br>".join(_md_cell(d) for d in row["did"]) or "—"
            events = "<br>".join(_md_cell(_change_text(c)) for c in row["changes"])
            lines.append(f"| {row['step']} | {did} | {events} |")
        if not timeline["rows"]:
            lines.append("| — | — | no event became due at any step |")
        return "\n".join(lines) + "\n"
    if fmt == "html":
        from bridge.reports.html import HTML_STYLE

        def h(text: Any) -> str:
            return html.escape(str(text), quote=True)

        body = [f"<h1>Adjutant timeline: {h(head[0])}</h1>"]
        body += [f'<p class="head">{h(line)}</p>' for line in head[1:]]
        body += [f'<p class="warning">warning: {h(w)}</p>' for w in warnings]
        body.append("<table><tr><th>step</th><th>what happened</th><th>events</th></tr>")
        for row in timeline["rows"]:
            body.append(
                f"<tr><td>{row['step']}</td><td>{'<br>'.join(h(d) for d in row['did'])}</td><td>"
                + "<br>".join(
                    f'<span class="status-{h(c["status"])}">{h(_change_text(c))}</span>'
                    for c in row["changes"]
                )
                + "</td></tr>"
            )
        body.append("</table>")
        if not timeline["rows"]:
            body.append("<p><i>No event became due at any step.</i></p>")
        return (
            f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{h(head[0])}</title>'
            f"<style>{HTML_STYLE}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
        )
    lines = [*head, *(f"warning: {w}" for w in warnings)]
    for row in timeline["rows"]:
        lines.append(f"step {row['step']}: " + ("; ".join(row["did"]) or "(no commands)"))
        lines += [f"    {_change_text(change)}" for change in row["changes"]]
    if not timeline["rows"]:
        lines.append("no event became due at any step")
    events = timeline["plan"]["events"]
    due = [e["rule"] for e in events if e["status"] == "fired"]
    waiting = [e["rule"] for e in events if e["status"] == "waiting"]
    undecided = [e["rule"] for e in events if e["status"] == "undecided"]
    ending = [f"{', '.join(due)} due"] if due else []
    ending += [f"{', '.join(waiting)} waiting"] if waiting else []
    ending += [f"{', '.join(undecided)} undecided"] if undecided else []
    owed = [e["rule"] for e in timeline.get("owed_at_end", [])]
    ending += [f"{', '.join(owed)} owed (fired, not carried out in full)"] if owed else []
    lines.append("at the end: " + ("; ".join(ending) or "nothing is due"))
    return "\n".join(lines)


def _change_text(change: Mapping[str, Any]) -> str:
    text = f"{change['rule']} {change['title']}: {change['change']}"
    if change.get("missing"):
        text += f" (missing: {'; '.join(change['missing'])})"
    return text


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")
