"""A plan as Markdown, to paste into an email or a forum post."""

from __future__ import annotations

from collections.abc import Mapping
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
from rules.owed import is_done

# ---- markdown -----------------------------------------------------------------------------------


def _md(text: Any) -> str:
    """Plain text safe inside Markdown: the characters that would start formatting are escaped."""
    out = str(text)
    for char in "\\`*_[]<>|#":
        out = out.replace(char, "\\" + char)
    return out


def render_markdown(plan: Mapping[str, Any], only_due: bool = False, faction: str | None = None) -> str:
    head = header_lines(plan)
    lines = [f"## Adjutant: {_md(head[-1])}", ""]
    file = str((plan.get("vassal") or {}).get("file", ""))
    for line in head[:-1]:
        if file and line.startswith(file + ":") and "`" not in file:
            lines.append(f"- `{file}`:{_md(line[len(file) + 1 :])}")  # a path reads best as code
        else:
            lines.append(f"- {_md(line)}")
    lines += [f"- **warning:** {_md(w)}" for w in warning_lines(plan)]
    lines += [f"- {_md(line)}" for line in unmapped_lines(plan)]
    if not only_due:
        lines += [f"- note: {_md(n)}" for n in plan.get("notes", [])]
        lines += [f"- {_md(r)}" for r in reading_texts(plan)]
    lines += [f"- **missing:** {_md(m)}" for m in plan_missing(plan)]
    lines += [f"- {_md(f)}" for f in fact_lines(plan)]
    lines.append("")
    for table in plan.get("tables") or []:
        lines.append(f"**{_md(table.get('title', 'Table'))}** ({_md(table.get('rule', ''))})")
        lines.append("")
        lines += ["| | figure | rule |", "|---|---|---|"]
        lines += [
            f"| {_md(r.get('label', ''))} | {_md(r.get('figure', ''))} | {_md(r.get('rule', ''))} |"
            for r in table.get("rows", [])
        ]
        if table.get("total") is not None:
            lines.append(
                f"| **total** | **{_md(table['total'])}** | threshold {_md(table.get('threshold', ''))} |"
            )
        if table.get("note"):
            lines += ["", _md(table["note"])]
        lines.append("")
    if plan.get("violations"):
        lines.append(f"**{violations_heading(plan)}**")
        lines += [
            f"- {_md(v['rule'])}: action #{v['action_index'] + 1}: {_md(v['text'])}"
            for v in plan["violations"]
        ]
        lines.append("")
    events = selected_events(plan, only_due, faction)
    for event in events:
        status = event.get("status", "")
        lines.append(
            f"### {_md(event.get('rule'))} {_md(event.get('title'))}: {STATUS_WORD.get(status, status)}"
        )
        lines += [f"- **missing fact:** {_md(text)}" for text in missing_texts(event)]
        lines += [f"- why: {_md(reason)}" for reason in event.get("why", [])]
        lines += [f"- {_md(text)}" for text in errata_texts(event)]
        lines += [f"- [{'x' if is_done(s, event) else ' '}] ({_md(step_label(s))}) {_md(s.get('text', ''))}"
                  for s in event.get("steps", [])]
        lines += [f"- **deviation:** {_md(text)}" for text in event.get("deviations", [])]
        for choice in event.get("choices", []):
            lines.append(
                f"- **{_md(choice.get('decider'))} decides** `{choice.get('id')}`: "
                f"{_md(choice.get('prompt'))} Options: {_md(options_text(choice))}. "
                f"({_md(choice_state(choice))})"
            )
        lines.append("")
    nothing = nothing_line(plan, events)
    if nothing:
        lines += [f"_{_md(nothing)}_", ""]
    hint = answer_hint(plan)
    if hint:
        lines += ["```", *hint, "```"]
    return "\n".join(lines).rstrip() + "\n"
