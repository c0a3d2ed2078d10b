"""A plan as one self-contained HTML file to attach to a PBEM email: inline CSS, insets as inline SVG.

All text comes from save files other people wrote: every piece of it is escaped.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from bridge.reports.contents import (
    STATUS_HUMAN,
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
from bridge.reports.report_inset import inset_html
from rules.owed import is_done

# ---- html ---------------------------------------------------------------------------------------

HTML_STYLE = """
body{font-family:"Segoe UI","Helvetica Neue",Arial,sans-serif;color:#1d232b;background:#f7f5ef}
body{margin:0;padding:1em 1.5em;max-width:60em}
h1{font-size:1.3em;border-bottom:2px solid #8a1c1c;padding-bottom:.3em}
.head{color:#5f6b76;margin:.2em 0}
.warning{color:#8a5a00}
.event{background:#fff;border-left:4px solid #8a1c1c;margin:.8em 0;padding:.5em .8em}
.event.status-waiting{border-left-color:#c99a00}
.event.status-owed{border-left-color:#b3261e}
li.done{text-decoration:line-through;color:#555}
.deviations li{color:#b3261e}
.event.status-undecided{border-left-color:#5a4fcf;border-left-style:dashed}
.event.status-not_due,.event.status-ignored{border-left-color:#c5c9cc;opacity:.75}
.event h2{font-size:1.05em;margin:0 0 .3em}
.rule{font-family:ui-monospace,Menlo,Consolas,monospace;color:#8a1c1c;margin-right:.4em}
.badge{font-size:.75em;padding:.1em .4em;border-radius:3px;background:#eee;margin-left:.4em}
.badge-fired{background:#8a1c1c;color:#fff}
.badge-waiting{background:#f3e2a9}
.badge-undecided{background:#dedbf7;color:#2d2580}
.missing{color:#2d2580}
.why{color:#5f6b76;font-size:.92em}
.choice{background:#f2efe6;padding:.4em .6em;margin:.4em 0}
table{border-collapse:collapse}
td,th{padding:.1em .6em;text-align:left;border-bottom:1px solid #ddd}
.insets{display:flex;flex-wrap:wrap;align-items:center;gap:.4em}
.inset-panel{margin:0}
.inset-panel figcaption{font-size:.85em;color:#5f6b76;text-align:center}
.inset-link{font-size:.9em;color:#5a4320}
pre.answer-hint{white-space:pre-wrap;overflow-wrap:anywhere;max-width:100%;background:#f2efe6}
pre.answer-hint{padding:.5em .7em;font-size:.9em}
svg.inset{background:#e9e4d6;border-radius:4px;margin:.4em 0;max-width:100%;height:auto}
svg .hex{fill:#f6e7c4;stroke:#a08455;stroke-width:1}
svg .hex.focus{fill:#e8b45c;stroke:#5a4320;stroke-width:2.5}
svg .counter{fill:#8a1c1c;stroke:#fff}
svg text{font-family:Arial,sans-serif;fill:#1d232b}
svg text.place{font-weight:700}
svg text.hex-id{fill:#5a4320}
""".strip()


DONE_CLASS = ' class="done"'  # a step of an owed event the position shows made (rules/owed.py)


def _h(text: Any) -> str:
    return html.escape(str(text), quote=True)


def render_html(plan: Mapping[str, Any], only_due: bool = False, faction: str | None = None) -> str:
    head = header_lines(plan)
    body = [f"<h1>Adjutant: {_h(head[-1])}</h1>"]
    body += [f'<p class="head">{_h(line)}</p>' for line in head[:-1]]
    body += [f'<p class="warning">warning: {_h(w)}</p>' for w in warning_lines(plan)]
    body += [f'<p class="warning">{_h(line)}</p>' for line in unmapped_lines(plan)]
    if not only_due:
        body += [f'<p class="head">note: {_h(n)}</p>' for n in plan.get("notes", [])]
        body += [f'<p class="head">{_h(r)}</p>' for r in reading_texts(plan)]
    body += [f'<p class="missing">missing: {_h(m)}</p>' for m in plan_missing(plan)]
    body += [f'<p class="fact">{_h(f)}</p>' for f in fact_lines(plan)]
    for table in plan.get("tables") or []:
        rows = "".join(
            f"<tr><td>{_h(r.get('label', ''))}</td><td>{_h(r.get('figure', ''))}</td>"
            f'<td class="rule">{_h(r.get("rule", ""))}</td></tr>'
            for r in table.get("rows", [])
        )
        total = (
            f"<tr><th>total</th><th>{_h(table['total'])}</th><td>threshold {_h(table.get('threshold', ''))}"
            f"</td></tr>"
            if table.get("total") is not None
            else ""
        )
        note = f"<p>{_h(table['note'])}</p>" if table.get("note") else ""
        body.append(
            f'<section class="table"><h2><span class="rule">{_h(table.get("rule", ""))}</span>'
            f"{_h(table.get('title', 'Table'))}</h2><table>{rows}{total}</table>{note}</section>"
        )
    if plan.get("violations"):
        items = "".join(
            f'<li><span class="rule">{_h(v["rule"])}</span>action #{v["action_index"] + 1}: '
            f"{_h(v['text'])}</li>"
            for v in plan["violations"]
        )
        body.append(
            f'<section class="event status-fired"><h2>{_h(violations_heading(plan))}</h2>'
            f"<ul>{items}</ul></section>"
        )
    events = selected_events(plan, only_due, faction)
    for event in events:
        status = event.get("status", "")
        parts = [
            f'<article class="event status-{_h(status)}" data-rule="{_h(event.get("rule", ""))}">',
            f'<h2><span class="rule">{_h(event.get("rule", ""))}</span>{_h(event.get("title", ""))}'
            f'<span class="badge badge-{_h(status)}">{_h(STATUS_HUMAN.get(status, status))}</span></h2>',
        ]
        parts += [f'<p class="missing">missing fact: {_h(text)}</p>' for text in missing_texts(event)]
        if event.get("why"):
            parts.append('<ul class="why">' + "".join(f"<li>{_h(w)}</li>" for w in event["why"]) + "</ul>")
        parts += [f'<p class="why">{_h(text)}</p>' for text in errata_texts(event)]
        if event.get("steps"):
            parts.append(
                "<ol>"
                + "".join(
                    f'<li{DONE_CLASS if is_done(s, event) else ""}><span class="rule">'
                    f'{_h(step_label(s))}</span>{_h(s.get("text", ""))}</li>'
                    for s in event["steps"]
                )
                + "</ol>"
            )
        if event.get("deviations"):
            parts.append('<ul class="deviations">' + "".join(
                f"<li>deviation: {_h(text)}</li>" for text in event["deviations"]) + "</ul>")
        parts.append(inset_html(event.get("map"), event.get("steps") or []))
        for choice in event.get("choices", []):
            parts.append(
                f'<div class="choice"><b>{_h(choice.get("decider"))} decides</b> '
                f"(<code>{_h(choice.get('id'))}</code>): {_h(choice.get('prompt'))} "
                f"Options: {_h(options_text(choice))}. ({_h(choice_state(choice))})</div>"
            )
        parts.append("</article>")
        body.append("".join(parts))
    nothing = nothing_line(plan, events)
    if nothing:
        body.append(f"<p><i>{_h(nothing)}</i></p>")
    hint = answer_hint(plan)
    if hint:
        body.append('<pre class="answer-hint">' + _h("\n".join(hint)) + "</pre>")
    title = _h(f"Adjutant — {head[0]}")
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{title}</title><style>{HTML_STYLE}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )
