"""PBEM reports of a plan: text, Markdown, one self-contained HTML file, or JSON.

Why one report in several formats: a PBEM player pastes the Markdown into an email or a forum post,
attaches the HTML, or reads the text in a terminal — and each must say the same thing: which file,
module, extensions and VASSAL version the plan was read from, whose turn it is, the warnings, then
every event with its rule number. `--only-due` keeps what needs the players (due, waiting for an
answer, undecided for lack of a fact, rule violations, the choices) and nothing else.

What every format holds is in `contents.py`; Markdown and HTML have their own modules, this one the
plain text, the JSON and the dispatch (`render`). All text comes from save files other people wrote: the
HTML escapes every piece of it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from bridge.reports.contents import (
    STATUS_WORD,
    answer_hint,
    choice_state,
    errata_texts,
    fact_lines,
    header_lines,
    missing_texts,
    nothing_line,
    options_text,
    plan_missing,
    reading_texts,
    selected_events,
    step_label,
    unmapped_lines,
    violations_heading,
    warning_lines,
)

FORMATS = ("text", "markdown", "html", "json")


# ---- text ---------------------------------------------------------------------------------------


def render_text(plan: Mapping[str, Any], only_due: bool = False, faction: str | None = None) -> str:
    lines = header_lines(plan)
    lines += [f"warning: {w}" for w in warning_lines(plan)]
    lines += unmapped_lines(plan)
    if not only_due:
        lines += [f"note: {note}" for note in plan.get("notes", [])]
        lines += reading_texts(plan)
    lines += [f"missing: {text}" for text in plan_missing(plan)]
    lines += fact_lines(plan)
    lines += table_text(plan)
    if plan.get("violations"):
        lines.append(violations_heading(plan) + ":")
        lines += [
            f"  ! {v['rule']}: action #{v['action_index'] + 1}: {v['text']}" for v in plan["violations"]
        ]
    events = selected_events(plan, only_due, faction)
    for event in events:
        lines += event_text(event, show_why=True)
    nothing = nothing_line(plan, events)
    if nothing:
        lines.append(nothing if faction is None else nothing.replace(" is due", f" is due for {faction}"))
    lines += answer_hint(plan)
    return "\n".join(lines)


def event_text(event: Mapping[str, Any], show_why: bool = True, indent: str = "") -> list[str]:
    status = event.get("status", "")
    lines = [
        f"{indent}{event.get('rule')} {event.get('title')} [{event.get('source', '')}]: "
        f"{STATUS_WORD.get(status, status)}"
    ]
    if show_why:
        lines += [f"{indent}    why: {reason}" for reason in event.get("why", [])]
    lines += [f"{indent}    missing: {text}" for text in missing_texts(event)]
    lines += [f"{indent}    {text}" for text in errata_texts(event)]
    if status == "owed":  # rules/owed.py: only what is still to make, and what stands elsewhere
        lines += [f"{indent}    - owed ({step_label(step)}) {step.get('text', '')}"
                  for step in event.get("remaining", [])]
        lines += [f"{indent}    ! deviation: {text}" for text in event.get("deviations", [])]
    else:
        lines += [f"{indent}    - ({step_label(step)}) {step.get('text', '')}"
                  for step in event.get("steps", [])]
    for choice in event.get("choices", []):
        lines.append(
            f"{indent}    ? [{choice.get('id')}] {choice.get('decider')}: {choice.get('prompt')} "
            f"Options: {options_text(choice)}. ({choice_state(choice)})"
        )
    if event.get("waiting_for") and status == "waiting":
        lines.append(f"{indent}    waiting for: {', '.join(event['waiting_for'])}")
    return lines


def table_text(plan: Mapping[str, Any]) -> list[str]:
    """The plan's `tables` (e.g. AWAW's Russian Resistance Table): one block each."""
    lines: list[str] = []
    for table in plan.get("tables") or []:
        lines.append(f"{table.get('title', 'Table')} ({table.get('rule', '')}):".replace(" ():", ":"))
        for row in table.get("rows", []):
            rule = f" ({row['rule']})" if row.get("rule") else ""
            lines.append(f"    {row.get('label', '')}: {row.get('figure', '')}{rule}")
        if table.get("total") is not None:
            threshold = f" (threshold {table['threshold']})" if table.get("threshold") is not None else ""
            lines.append(f"    total: {table['total']}{threshold}")
        if table.get("note"):
            lines.append(f"    {table['note']}")
    return lines


# ---- json ---------------------------------------------------------------------------------------


def report_json(
    plan: Mapping[str, Any], only_due: bool = False, faction: str | None = None
) -> dict[str, Any]:
    """The plan JSON (format adjutant-plan), its events cut down as the text report cuts them."""
    data = dict(plan)
    if only_due or faction:
        data["events"] = selected_events(plan, only_due, faction)
        data["only_due"] = only_due
        if faction:
            data["faction"] = faction
    return data


def render(plan: Mapping[str, Any], fmt: str, only_due: bool = False, faction: str | None = None) -> str:
    if fmt == "json":
        return json.dumps(report_json(plan, only_due, faction), indent=2, ensure_ascii=False)
    if fmt == "markdown":  # each format's module imported only when asked for (issue 27: a small check)
        from bridge.reports.markdown import render_markdown

        return render_markdown(plan, only_due, faction)
    if fmt == "html":
        from bridge.reports.html import render_html

        return render_html(plan, only_due, faction)
    return render_text(plan, only_due, faction)


def event_statuses(events: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    return {str(e.get("rule")): str(e.get("status")) for e in events}
