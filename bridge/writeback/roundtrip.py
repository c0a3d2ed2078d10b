"""Does a written file read back as the plan's resulting position? What the pack lacks where it does not.

Why a check of its own: `apply` turns plan steps into piece moves, Layer changes and marker moves,
but the position also holds facts no step moves a piece for (a country's status, a fired event, a
current card). A file that silently reads back otherwise than the plan said would make the next
`check` re-fire an event or miss one. So `apply` reads the save it would write back through the
pack, compares it with `resulting_position` field by field, and refuses, naming what differs and the
pack fact to add ([[vassal.writeback.markers]] to move a piece, [[vassal.state]] to read it back);
`check` runs the same test, so an answer it accepts is either writable or said not to be.

Public API:
    read_back(pipeline, path) -> dict                       (the position a file maps to, normalised)
    differences(expected, got, names) -> list[str]          (one line per field that differs)
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rules.state import GameState, box_label

# Position parts compared field by field; `pack` names the pack and `actions` are the players'
# recorded actions, which no VASSAL piece holds and no plan step changes.
_COMPARED = ("turn", "countries", "counters", "posture_boxes")


def normalised(position: Mapping[str, Any]) -> dict[str, Any]:
    """The position as the engine reads it (defaults filled in), counters out of the game left out."""
    data = GameState.from_json(dict(position)).to_json()
    data["counters"] = {c["id"]: c for c in data["counters"] if c.get("location") != "removed"}
    if isinstance(data.get("turn", {}).get("fired"), list):  # which events have fired: a set, in any order
        data["turn"]["fired"] = sorted(data["turn"]["fired"])
    return data


def read_back(pipeline: Any, path: str | Path, answers: Mapping[str, Any] | None = None,
              source: str = "answers") -> dict[str, Any]:
    """The position `path` maps to through the pack (a log: after its last step), normalised.

    The game facts given with the answers (bridge/mapping/game_facts.py) are applied as the plan applied
    them: no piece carries them, in the input or in the written file, so they are the players' to give."""
    from bridge.mapping.game_facts import apply_facts, split_answers

    _game, pieces, _info = pipeline._position(Path(path), None)
    mapped = pipeline.mapping.map_pieces(pieces, pipeline.pack, pipeline.prototypes)
    _choices, given = split_answers(answers or {}, source)
    if getattr(pipeline, "facts", None) or given:
        apply_facts(pipeline.facts, given, mapped.position, source, mapped.state_paths)
    return normalised(mapped.position)


def _shown(value: Any) -> str:
    if isinstance(value, str):
        return box_label(value) or value
    return repr(value)


def differences(expected: Mapping[str, Any], got: Mapping[str, Any]) -> list[str]:
    """Every field where the written file (`got`) reads otherwise than the plan (`expected`), each with
    the pack fact that would carry it. Both are `normalised` positions."""
    lines: list[str] = []
    want_counters, got_counters = expected.get("counters", {}), got.get("counters", {})
    for counter_id in sorted(set(want_counters) | set(got_counters)):
        want, have = want_counters.get(counter_id), got_counters.get(counter_id)
        if want == have:
            continue
        name = (want or have or {}).get("name") or counter_id
        if want is None:
            lines.append(f"{name} ({counter_id}): the plan has it out of play, the written file reads it in "
                         f"{_shown(have.get('location'))}")  # type: ignore[union-attr]
        elif have is None:
            lines.append(f"{name} ({counter_id}): the plan has it in {_shown(want.get('location'))}, the "
                         "written file has no such counter in play")
        else:
            for key in sorted(set(want) | set(have)):
                if want.get(key) != have.get(key):
                    lines.append(f"{name} ({counter_id}): the plan has {key} {_shown(want.get(key))}, the "
                                 f"written file reads {_shown(have.get(key))}")
    want_countries, got_countries = expected.get("countries", {}), got.get("countries", {})
    country_lines = []
    for country in sorted(set(want_countries) | set(got_countries)):
        want, have = want_countries.get(country), got_countries.get(country)
        if want == have:
            continue
        if have is None or want is None:
            missing = "the written file" if have is None else "the plan"
            country_lines.append(f"{country}: {missing} has no such country")
            continue
        keys = [key for key in sorted(set(want) | set(have)) if want.get(key) != have.get(key)]
        planned = ", ".join(f"{key} {_shown(want.get(key))}" for key in keys)
        read = ", ".join(f"{key} {_shown(have.get(key))}" for key in keys)
        country_lines.append(f"{country}: the plan makes its {planned}; the written file reads {read}")
    if country_lines:
        lines.append("; ".join(country_lines) + " — no piece carries this: the pack needs a marker moved for "
                     "it ([[vassal.writeback.markers]], on = \"set_country\") and a [[vassal.state]] rule "
                     "reading that marker back")
    want_turn, got_turn = expected.get("turn", {}), got.get("turn", {})
    for key in sorted(set(want_turn) | set(got_turn)):
        if want_turn.get(key) != got_turn.get(key):
            hint = ("[[vassal.writeback.markers]] on = \"fired\" with a [[vassal.state]] rule setting "
                    "\"turn.fired+\"" if key == "fired" else "a [[vassal.state]] rule reading turn." + key)
            lines.append(f"turn {key}: the plan has {_shown(want_turn.get(key))}, the written file reads "
                         f"{_shown(got_turn.get(key))} — the pack needs {hint}")
    for part in _COMPARED[3:]:
        if expected.get(part) != got.get(part):
            lines.append(f"{part}: the plan has {expected.get(part)!r}, the written file reads "
                         f"{got.get(part)!r}")
    return lines
