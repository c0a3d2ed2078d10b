"""Owed steps: a fired event's steps judged against a position (the brief: "fired is not done").

Why a module of its own: the engine plans what a position requires; a referee must also say what a
position already shows. An event's mark (16.1.1 Step 1's status change, a card set aside) switches
the event off in the position that follows, but every other step it implies stays owed until the
pieces stand where the step puts them. This module compares plan steps (the JSON form of
`rules.plan.Step`) with where the pieces are, by piece and place only — never by any chat line.

A step is one of:
* done — the counter stands where the step puts it (`to`), or the country shows the change;
* remaining — the counter still stands where the step takes it from (`from`);
* deviation — the counter stands somewhere else: the step puts it elsewhere (16.1.1 Step 2 puts PO 2 Inf
  in the Western Conquered Minor Countries Box, not the Delay Box);
* unseen — a die roll or note a position cannot show (the log audit judges it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from rules.state import box_label

OWED = "owed"  # an event that fired (its mark shows it applied) whose steps the position does not all show

DONE, REMAINING, DEVIATION, UNSEEN = "done", "remaining", "deviation", "unseen"
GONE = {"removed", "eliminated", "remove_from_game"}  # steps that take a counter off the map for good


def locations_of(position: Mapping[str, Any]) -> dict[str, str | None]:
    """counter id -> location, from a position's JSON (`counters` as a list or a mapping)."""
    return {str(c.get("id")): c.get("location") for c in _counters(position)}


def placement_chains(steps: Iterable[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    """counter id -> its placement steps in plan order (16.2.2: a unit broken down, then moved):
    the `chain` judge_step reads."""
    chains: dict[str, list[Mapping[str, Any]]] = {}
    for step in steps:
        if step.get("counter") is not None and step.get("to") is not None:
            chains.setdefault(str(step["counter"]), []).append(step)
    return chains


def chain_of(step: Mapping[str, Any],
             chains: Mapping[str, list[Mapping[str, Any]]]) -> tuple[Mapping[str, Any], ...]:
    """The placement chain `step` belongs to (empty for a step that puts nothing anywhere)."""
    return tuple(chains.get(str(step.get("counter")), ())) if step.get("to") is not None else ()


def counter_names(position: Mapping[str, Any]) -> dict[str, Any]:
    return {str(c.get("id")): c.get("name") for c in _counters(position)}


def counter_label(names: Mapping[str, Any], counter_id: str) -> str:
    """'PO 2 Inf (PO-2)': the counter's name with its id, or the id alone where no name is known."""
    name = names.get(counter_id)
    return f"{name} ({counter_id})" if name and name != counter_id else counter_id


def step_label(step: Mapping[str, Any]) -> str:
    """'16.1.1 Step 2', or the rule alone for a step without a number."""
    return f"{step.get('rule')} {step.get('step')}" if step.get("step") else str(step.get("rule"))


def place_name(location: str | None, hex_name: Callable[[str], str]) -> str:
    """A location as the rules text names it: 'the Delay Box', 'Lvov (e3706)', 'set aside'."""
    if location is None:
        return "off the map (not in the position)"
    label = box_label(location)
    if label is not None:  # "out of the game", "set aside" are states, not boxes: no article
        return f"the {label}" if label[:1].isupper() else label
    return hex_name(location)


def judge_step(step: Mapping[str, Any], where: Mapping[str, str | None],
               countries: Mapping[str, Any], chain: tuple[Mapping[str, Any], ...] = ()) -> str:
    """done / remaining / deviation / unseen for one plan step against a position.

    `chain`: the event's other placement steps of the same counter, in plan order, this one among
    them (16.2.2: a unit broken down, then moved): a step is done where the counter stands at its
    own or a later step's destination, remaining where it stands at its own or an earlier step's
    origin (the chain not reached yet)."""
    counter, to = step.get("counter"), step.get("to")
    if step.get("action") == "set_country":
        wanted = step.get("details") or {}
        country = countries.get(step.get("subject") or "") or {}
        if not wanted:
            return UNSEEN
        return DONE if all(country.get(k) == v for k, v in wanted.items()) else REMAINING
    if counter is None or to is None:
        return UNSEEN
    links = list(chain) or [step]
    index = next((i for i, link in enumerate(links) if link is step), 0)
    later = {link.get("to") for link in links[index:]}
    earlier = {link.get("from") for link in links[: index + 1]} | {link.get("to") for link in links[:index]}
    if counter not in where:
        # The counter left the position: a step that removes it is done, any other went wrong --
        # unless it was never placed yet (a step from nowhere: a new counter to place).
        if step.get("action") in GONE or later & GONE:
            return DONE
        return REMAINING if None in earlier else DEVIATION
    at = where[counter]
    if at in later:
        return DONE
    if at in earlier:
        return REMAINING
    return DEVIATION


def deviation_text(step: Mapping[str, Any], at: str | None, name: str,
                   hex_name: Callable[[str], str]) -> str:
    """'PO 2 Inf (PO-2) is in the Delay Box; 16.1.1 Step 2 puts it in the Western Conquered Minor
    Countries Box' — counter and box named as the rules text names them."""
    return (f"{name} is {_in(place_name(at, hex_name))}; {step_label(step)} puts it "
            f"{_in(place_name(step.get('to'), hex_name))}")


def _in(place: str) -> str:
    return place if place.startswith(("off ", "out of ", "set aside")) else f"in {place}"


def judge_event(event: Mapping[str, Any], position: Mapping[str, Any],
                hex_name: Callable[[str], str] = str) -> dict[str, Any]:
    """A fired event's steps against `position`: {done, remaining, deviations, unseen} (steps as JSON)."""
    where = locations_of(position)
    names = counter_names(position)
    countries = position.get("countries") or {}
    out: dict[str, Any] = {DONE: [], REMAINING: [], "deviations": [], UNSEEN: []}
    chains = placement_chains(event.get("steps", []))
    for step in event.get("steps", []):
        verdict = judge_step(step, where, countries, chain_of(step, chains))
        if verdict == DEVIATION:
            cid = str(step.get("counter"))
            out["deviations"].append({
                "step": dict(step),
                "at": where.get(cid),
                "text": deviation_text(step, where.get(cid), counter_label(names, cid), hex_name),
            })
        else:
            out[verdict].append(dict(step))
    return out


def _counters(position: Mapping[str, Any]) -> Iterable[Mapping[str, Any]]:
    counters = position.get("counters") or []
    return counters.values() if isinstance(counters, Mapping) else counters


def mark_owed(current: dict[str, Any], fired_before: Mapping[str, Any], position: Mapping[str, Any],
              hex_name: Callable[[str], str] = str) -> bool:
    """Turn `current` (an event of the plan of `position`, no longer fired there) into `owed` when the
    event fired in an earlier position (`fired_before`, its plan entry there), at least one of its
    steps shows it was applied, and some step is not reflected yet. True when it became owed.

    Why "at least one step shows": an event whose condition stopped holding before anything was done
    (the Axis left a City) has lapsed, nothing is owed; one whose mark was set has fired (6.2
    Important: a fired event must be implemented in full)."""
    if fired_before.get("status") != "fired" or current.get("status") in ("fired", "waiting"):
        return False
    judged = judge_event(fired_before, position, hex_name)
    current["done"] = judged[DONE]
    current["unseen"] = judged[UNSEEN]
    if not judged[DONE]:
        return False  # lapsed: nothing of it was ever made
    if not judged[REMAINING] and not judged["deviations"]:
        current.setdefault("why", []).append(
            f"carried out: every step of {current.get('rule')} the position can show is made "
            f"({len(judged[DONE])} of {len(fired_before.get('steps', []))})")
        return False
    current["status"] = OWED
    current["remaining"] = judged[REMAINING]
    current["deviations"] = [d["text"] for d in judged["deviations"]]
    current["deviation_details"] = judged["deviations"]
    if not current.get("steps"):
        current["steps"] = list(fired_before.get("steps", []))
    total = len(fired_before.get("steps", []))
    subjects = sorted({str(s["subject"]) for s in fired_before.get("steps", []) if s.get("subject")})
    about = f" ({', '.join(subjects)})" if subjects else ""
    current["why"] = [f"fired{about}: {len(judged[DONE])} of {total} steps made; the rest are owed "
                      "(6.2: a fired event is carried out in full)",
                      *[w for w in current.get("why", []) if not w.startswith("no condition")]]
    if judged[UNSEEN]:
        current["why"].append(f"{len(judged[UNSEEN])} step(s) cannot be seen in a position "
                              "(a die roll or note): the log audit judges them")
    return True


def is_done(step: Mapping[str, Any], event: Mapping[str, Any]) -> bool:
    """Whether a step of an owed event is among those the position shows made (reports tick it)."""
    return any(dict(step) == dict(made) for made in event.get(DONE) or [])


def carried_out(event: Mapping[str, Any], position: Mapping[str, Any]) -> bool:
    """True when every step of `event` (a plan entry) is already shown by `position` (none remaining,
    none elsewhere, none a position cannot show): e.g. 16.1.2's remedy "remove" once no unit of the
    country is left to remove."""
    judged = judge_event(event, position)
    return not judged[REMAINING] and not judged["deviations"] and not judged[UNSEEN]
