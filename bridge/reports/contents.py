"""What every report of a plan holds, whatever its format: the header (file, module, extensions, VASSAL
version, whose turn), the warnings, the events selected (`--only-due`, a faction), their steps, choices,
missing facts and errata. The text, Markdown and HTML renderers all read it from here, so each says
the same thing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bridge.mapping.proposal import proposed_lines

DUE_STATUSES = ("fired", "waiting", "undecided", "owed")
STATUS_WORD = {
    "fired": "DUE",
    "owed": "OWED",
    "waiting": "WAITING",
    "undecided": "UNDECIDED",
    "not_due": "not due",
    "ignored": "ignored",
}
STATUS_HUMAN = {
    "fired": "due",
    "owed": "owed (fired, not carried out in full)",
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
    # A World at War names its player turns (60.11 "Allied player turn"), not a phasing faction (issue 41)
    whose = plan.get("player_turn") or f"{plan.get('phasing') or '?'} faction phasing"
    lines.append(f"{whose}, {plan.get('turn') or 'turn ?'} [pack {plan.get('pack', '?')}]")
    lines += proposed_lines(vassal)
    return lines


def warning_lines(plan: Mapping[str, Any]) -> list[str]:
    """Module/version/extension and mapping warnings, and answers this plan never asked for."""
    vassal = plan.get("vassal") or {}
    lines = [str(w) for w in vassal.get("warnings", [])]
    if plan.get("trusted"):  # every report names the facts the pack trusts rather than locates (issue 22)
        from rules.plan import trusted_line

        lines.append(trusted_line(str(plan.get("pack", "?")), list(plan["trusted"])))
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
    if plan.get("violations") or statuses & {"fired", "waiting", "owed"}:
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
    """The readings the plan used, once each (plan JSON `readings`, rules/plan.py `ErratumNote.to_json`):
    which one, the others, how to switch; the event's own erratum line says what the rules text says.

    Only a reading with other readings is a line: with none there is nothing to choose, and the keys a
    fixed template read printed "reading : as_written ... (options: ; to switch: )" (issue 41)."""
    lines = []
    for note in plan.get("readings") or []:
        if not isinstance(note, Mapping):
            continue
        others = [str(a.get("reading")) for a in note.get("alternatives") or []
                  if isinstance(a, Mapping) and a.get("reading")]
        if not others or not note.get("reading"):
            continue
        label = "erratum" if note.get("kind") == "errata" else "reading"
        where = " ".join(str(part) for part in (note.get("rule"), note.get("step")) if part)
        line = f"{label} {note.get('key') or '?'}" + (f" ({where})" if where else "")
        line += f": used {note['reading']}"
        if note.get("reading_text"):
            line += f" — {note['reading_text']}"
        line += f"; other readings: {', '.join(others)}"
        if note.get("option"):
            line += f"; to switch: {note['option']} in the pack"
        lines.append(line)
    return lines


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
    """The game facts given (with who gave them) and the questions still open (mapping/game_facts.py)."""
    from bridge.mapping.game_facts import render_lines

    return render_lines(plan.get("game_facts") or {})


def answer_hint(plan: Mapping[str, Any]) -> list[str]:
    """How to answer the open choices: `--answer ID=VALUE` or `--answers FILE` with each id and its
    values, worded as `apply`'s refusal words it (bridge/pipeline.py `answers_hint`)."""
    from bridge.pipeline import answers_hint

    return answers_hint(plan)
