"""PBEM reports of a plan: text, Markdown, one self-contained HTML file, or JSON.

Why one module for every format: a PBEM player pastes the Markdown into an email or a forum post,
attaches the HTML, or reads the text in a terminal — and each must say the same thing: which file,
module, extensions and VASSAL version the plan was read from, whose turn it is, the warnings, then
every event with its rule number. `--only-due` keeps what needs the players (due, waiting for an
answer, undecided for lack of a fact, rule violations, the choices) and nothing else.

All text comes from save files other people wrote: the HTML escapes every piece of it.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Mapping
from typing import Any

FORMATS = ("text", "markdown", "html", "json")
DUE_STATUSES = ("fired", "waiting", "undecided")
STATUS_WORD = {
    "fired": "DUE",
    "waiting": "WAITING",
    "undecided": "UNDECIDED",
    "not_due": "not due",
    "ignored": "ignored",
}
STATUS_HUMAN = {
    "fired": "due",
    "waiting": "waiting for an answer",
    "undecided": "undecided",
    "not_due": "not due",
    "ignored": "ignored",
}


# ---- what a report holds ------------------------------------------------------------------------


def header_lines(plan: Mapping[str, Any]) -> list[str]:
    """File, module and version, extensions (EXT), VASSAL version, position in a log, turn, phasing."""
    vassal = plan.get("vassal") or {}
    module = vassal.get("module") or {}
    versions = vassal.get("extension_versions") or {}
    extensions = ", ".join(
        f"{name} {versions.get(name, '')}".rstrip() for name in vassal.get("extensions", [])
    )
    lines = []
    if vassal:
        lines.append(
            f"{vassal.get('file', '?')}: module {module.get('name') or '?'} "
            f"{module.get('version') or ''}".rstrip()
            + (f", extensions: {extensions}" if extensions else ", no extensions")
        )
        lines.append(f"VASSAL {module.get('vassal_version') or 'version not recorded'}")
        if vassal.get("step") is not None:
            lines.append(f"log position after step {vassal['step']} of {vassal['steps']}")
    lines.append(
        f"{plan.get('phasing') or '?'} faction phasing, {plan.get('turn') or 'turn ?'} "
        f"[pack {plan.get('pack', '?')}]"
    )
    return lines


def warning_lines(plan: Mapping[str, Any]) -> list[str]:
    """Module/version/extension and mapping warnings, and answers this plan never asked for."""
    vassal = plan.get("vassal") or {}
    lines = [str(w) for w in vassal.get("warnings", [])]
    lines += [
        f"answer to {choice_id} was not used: this plan does not ask that choice"
        for choice_id in vassal.get("unused_answers", [])
    ]
    return lines


def unmapped_lines(plan: Mapping[str, Any]) -> list[str]:
    """What the pack could not place: pieces it does not know, counters on places it does not map."""
    vassal = plan.get("vassal") or {}
    lines = []
    pieces = vassal.get("unmapped_pieces") or {}
    if pieces:
        lines.append(
            f"unmapped pieces ({sum(pieces.values())}, not in the position): "
            + ", ".join(f"{name} x{count}" for name, count in pieces.items())
        )
    places = vassal.get("unmapped_places") or {}
    if places:
        total = sum(places.values())
        lines.append(
            f"unmapped places ({total} counter{'' if total == 1 else 's'} left out): "
            + ", ".join(f"{name} x{count}" for name, count in places.items())
        )
    return lines


def matches_faction(name: str | None, faction: str | None) -> bool:
    return faction is None or (name or "").casefold() == faction.casefold()


def selected_events(
    plan: Mapping[str, Any], only_due: bool = False, faction: str | None = None
) -> list[dict[str, Any]]:
    """The events a report shows: all (6.2 order), or only those that need the players."""
    events = [e for e in plan.get("events", []) if not only_due or e.get("status") in DUE_STATUSES]
    if faction is None or matches_faction(plan.get("phasing"), faction):
        return events
    # Every event that moves that faction's counters (plan `factions`, issue 12 item 19) or asks it to choose.
    return [
        e for e in events
        if any(matches_faction(f, faction) for f in e.get("factions", []))
        or any(matches_faction(c.get("decider"), faction) for c in e.get("choices", []))
    ]


def nothing_line(plan: Mapping[str, Any], events: list[Mapping[str, Any]]) -> str | None:
    """'Nothing is due.' — only when nothing is due AND nothing is undecided (unknown is never not due),
    worded as the engine words it (rules/plan.py `Plan.render_text`)."""
    statuses = {e.get("status") for e in events}
    if plan.get("violations") or statuses & {"fired", "waiting"}:
        return None
    undecided = [str(e.get("rule")) for e in events if e.get("status") == "undecided" or e.get("missing")]
    whole = plan_missing(plan)
    if whole:
        also = f" (and undecided for lack of a fact: {', '.join(undecided)})" if undecided else ""
        return "Nothing is decided: " + "; ".join(whole) + also + "."
    if undecided:
        return (
            "Nothing is due that the pack can decide; undecided for lack of a fact: "
            + ", ".join(undecided)
            + "."
        )
    return "Nothing is due."


def plan_missing(plan: Mapping[str, Any]) -> list[str]:
    """Facts missing for the position as a whole (e.g. most pieces of the save unmapped)."""
    return [str(m.get("text") if isinstance(m, Mapping) else m) for m in plan.get("missing") or []]


def reading_texts(plan: Mapping[str, Any]) -> list[str]:
    """The readings of the rules the plan used (rules/plan_tables.py `reading_lines`, from JSON)."""
    return [
        f"reading {r.get('rules', '')}: {r.get('reading', '')} — {r.get('text', '')} "
        f"(options: {', '.join(r.get('options', []))}; to switch: {r.get('switch', '')})"
        for r in plan.get("readings") or []
        if isinstance(r, Mapping)
    ]


def errata_texts(event: Mapping[str, Any]) -> list[str]:
    return [str(e.get("text") if isinstance(e, Mapping) else e) for e in event.get("errata") or []]


def violations_heading(plan: Mapping[str, Any]) -> str:
    war_peace = any(str(v.get("rule", "")).startswith("6.") for v in plan.get("violations") or [])
    return "War & Peace Segment (6.1) violations" if war_peace else "Rules broken by recorded actions"


def missing_texts(event: Mapping[str, Any]) -> list[str]:
    """Each fact an undecided event needs, as the engine's text names it: rule, subject, what is missing."""
    texts = []
    for item in event.get("missing") or []:
        if isinstance(item, Mapping):
            subject = f"{item['subject']}: " if item.get("subject") else ""
            text = f"{event.get('rule')} {subject}{item.get('text') or item.get('fact') or 'a fact'}"
        else:
            text = str(item)
        texts.append(text)
    return texts


def step_label(step: Mapping[str, Any]) -> str:
    return f"{step.get('rule')} {step['step']}" if step.get("step") else str(step.get("rule") or "")


def options_text(choice: Mapping[str, Any]) -> str:
    return ", ".join(str(o.get("label", o.get("value"))) for o in choice.get("options", [])) or "none"


def choice_state(choice: Mapping[str, Any]) -> str:
    if not choice.get("answered"):
        return "UNANSWERED"
    label = choice.get("answer_label")  # the option's label, as players read it (issue 12 item 17)
    return f"answered: {label}" if label else f"answered: {choice.get('answer')!r}"


def fact_lines(plan: Mapping[str, Any]) -> list[str]:
    """The game facts given (with who gave them) and the questions still open (bridge/game_facts.py)."""
    from bridge.game_facts import render_lines

    return render_lines(plan.get("game_facts") or {})


def answer_hint(plan: Mapping[str, Any]) -> list[str]:
    """How to answer the open choices: `--answer ID=VALUE` with each id and its values."""
    open_ids = set(plan.get("pending_choices", []))
    choices = [c for e in plan.get("events", []) for c in e.get("choices", []) if c.get("id") in open_ids]
    if not choices:
        return []
    lines = [
        "to answer, pass --answer ID=VALUE (repeatable), or put these choice ids in a JSON object "
        "and pass it with --answers FILE.json:"
    ]
    for choice in choices:
        values = [json.dumps(o["value"], ensure_ascii=False) for o in choice.get("options", [])]
        listed = ", ".join(values[:-1]) + f" or {values[-1]}" if len(values) > 1 else "".join(values)
        if choice.get("multiple"):
            listed = f"a list of {', '.join(values)}"
        lines.append(f'  "{choice["id"]}" ({choice.get("decider")}): {listed or "no option"}')
    return lines


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
    lines += [f"{indent}    - ({step_label(step)}) {step.get('text', '')}" for step in event.get("steps", [])]
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
        lines += [f"- [ ] ({_md(step_label(s))}) {_md(s.get('text', ''))}" for s in event.get("steps", [])]
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


# ---- html ---------------------------------------------------------------------------------------

HTML_STYLE = """
body{font-family:"Segoe UI","Helvetica Neue",Arial,sans-serif;color:#1d232b;background:#f7f5ef}
body{margin:0;padding:1em 1.5em;max-width:60em}
h1{font-size:1.3em;border-bottom:2px solid #8a1c1c;padding-bottom:.3em}
.head{color:#5f6b76;margin:.2em 0}
.warning{color:#8a5a00}
.event{background:#fff;border-left:4px solid #8a1c1c;margin:.8em 0;padding:.5em .8em}
.event.status-waiting{border-left-color:#c99a00}
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
svg.inset{background:#e9e4d6;border-radius:4px;margin:.4em 0;max-width:100%;height:auto}
svg .hex{fill:#f6e7c4;stroke:#a08455;stroke-width:1}
svg .hex.focus{fill:#e8b45c;stroke:#5a4320;stroke-width:2.5}
svg .counter{fill:#8a1c1c;stroke:#fff}
svg text{font-family:Arial,sans-serif;fill:#1d232b}
""".strip()


def _h(text: Any) -> str:
    return html.escape(str(text), quote=True)


def inset_svg(inset: Mapping[str, Any] | None, width: int = 420) -> str:
    """An event's map inset (bridge/inset.py shape) as inline SVG: its hexes, names and counters."""
    if not isinstance(inset, Mapping):
        return ""
    hexes = [h for h in inset.get("hexes", []) if isinstance(h, Mapping) and len(h.get("points") or []) >= 3]
    if not hexes:
        return ""
    xs = [float(p[0]) for h in hexes for p in h["points"]]
    ys = [float(p[1]) for h in hexes for p in h["points"]]
    left, top, right, bottom = min(xs), min(ys), max(xs), max(ys)
    span = max(right - left, 1.0)
    unit = span / 30
    parts = [
        f'<svg class="inset" xmlns="http://www.w3.org/2000/svg" width="{width}" '
        f'viewBox="{left - unit:.1f} {top - unit:.1f} {span + 2 * unit:.1f} {bottom - top + 2 * unit:.1f}" '
        f'role="img" aria-label="map inset">'
    ]
    for cell in hexes:
        points = " ".join(f"{float(x):.1f},{float(y):.1f}" for x, y in cell["points"])
        parts.append(f'<polygon class="hex{" focus" if cell.get("focus") else ""}" points="{points}"/>')
        cx, cy = cell.get("center") or (
            sum(float(p[0]) for p in cell["points"]) / len(cell["points"]),
            sum(float(p[1]) for p in cell["points"]) / len(cell["points"]),
        )
        if cell.get("label"):
            parts.append(
                f'<text x="{float(cx):.1f}" y="{float(cy) - unit:.1f}" font-size="{unit * 1.1:.1f}" '
                f'text-anchor="middle" font-weight="700">{_h(cell["label"])}</text>'
            )
        parts.append(
            f'<text x="{float(cx):.1f}" y="{float(cy) + unit * 0.4:.1f}" font-size="{unit * 0.9:.1f}" '
            f'text-anchor="middle">{_h(cell.get("name", ""))}</text>'
        )
    for index, counter in enumerate(inset.get("counters", [])):
        if not isinstance(counter, Mapping) or counter.get("x") is None or counter.get("y") is None:
            continue
        x, y = float(counter["x"]), float(counter["y"]) + unit * (1 + index % 3)
        parts.append(
            f'<rect class="counter" x="{x - unit * 0.6:.1f}" y="{y - unit * 0.6:.1f}" '
            f'width="{unit * 1.2:.1f}" height="{unit * 1.2:.1f}"><title>{_h(counter.get("name", ""))}'
            f"</title></rect>"
        )
    parts.append("</svg>")
    return "".join(parts)


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
                    f'<li><span class="rule">{_h(step_label(s))}</span>{_h(s.get("text", ""))}</li>'
                    for s in event["steps"]
                )
                + "</ol>"
            )
        parts.append(inset_svg(event.get("map")))
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
        body.append("<pre>" + _h("\n".join(hint)) + "</pre>")
    title = _h(f"Adjutant — {head[0]}")
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{title}</title><style>{HTML_STYLE}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


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
    if fmt == "markdown":
        return render_markdown(plan, only_due, faction)
    if fmt == "html":
        return render_html(plan, only_due, faction)
    return render_text(plan, only_due, faction)


def event_statuses(events: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    return {str(e.get("rule")): str(e.get("status")) for e in events}
