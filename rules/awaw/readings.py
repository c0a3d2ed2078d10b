"""When the Russian Resistance Table is consulted: 60.11 and 60.12 say it differently.

60.11: "Russia offers to surrender at the end of any Allied player turn in which the Russian resistance
level ... is zero or less", and the table's Explanation: "Check at the end of each Allied player turn".
60.12, after a rejection: "At the end of each subsequent Russian player turn, the Russian Resistance
Table is again consulted", and Germany "must await a new offer at the end of a later Russian player turn".
The two agree only when every Allied player turn is also a Russian player turn. The pack chooses the
reading (`[awaw.readings] check_timing`), and every plan that checks the table says which one it used
and how to switch (never picked silently):

* `as_written` — each clause as written: before any rejection, at the end of any Allied player turn
  (60.11); after a rejection, only at the end of a Russian player turn (60.12).
* `allied_turn` — always at the end of any Allied player turn (60.11 and its Explanation govern).
* `russian_turn` — always at the end of a Russian player turn (60.12's wording governs throughout).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rules.awaw.position import AwawPosition

CHECK_TIMING: dict[str, str] = {
    "as_written": "60.11 before any rejection (end of any Allied player turn), 60.12 after one "
    "(end of a Russian player turn only)",
    "allied_turn": "end of any Allied player turn, also after a rejection (60.11 and its Explanation govern)",
    "russian_turn": "end of a Russian player turn only, also for a first offer (60.12's wording governs)",
}
DEFAULT_TIMING = "as_written"
SWITCH = "set [awaw.readings] check_timing in the pack (rules/packs/awaw/awaw.toml)"


@dataclass(frozen=True)
class Reading:
    """A reading the plan shows (plan JSON `readings`): which rules, which reading, how to switch."""

    id: str
    rules: str
    reading: str
    text: str
    options: tuple[str, ...]
    switch: str

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "rules": self.rules,
            "reading": self.reading,
            "text": self.text,
            "options": list(self.options),
            "switch": self.switch,
        }


def timing_reading(readings: dict[str, Any], where: str) -> Reading:
    from vassal_parser.errors import InputError

    chosen = readings.get("check_timing", DEFAULT_TIMING)
    if chosen not in CHECK_TIMING:
        raise InputError(where, f"[awaw.readings] check_timing must be one of {', '.join(CHECK_TIMING)}")
    return Reading("check_timing", "60.11/60.12", chosen, CHECK_TIMING[chosen], tuple(CHECK_TIMING), SWITCH)


def check_point(pos: AwawPosition, reading: str, after_rejection: bool) -> tuple[bool, str]:
    """Is the end of this player turn a point where the table is consulted, under `reading`?"""
    if pos.phase != "end_of_player_turn" or pos.side != "Allied":
        return False, "the table is consulted only at the end of an Allied player turn (60.11, 60.12)"
    russian = pos.russian_player_turn
    whose = ", ".join(pos.powers)
    if reading == "allied_turn" or (reading == "as_written" and not after_rejection):
        return True, f"end of an Allied player turn ({whose}): the table is consulted (60.11)"
    rule = "60.12" if after_rejection else "60.11/60.12 (reading russian_turn)"
    if russian:
        return True, f"end of a Russian player turn ({whose}): the table is consulted ({rule})"
    return False, (
        f"end of an Allied player turn without Russia ({whose}): under reading {reading!r} the "
        f"table is consulted only at the end of a Russian player turn ({rule})"
    )
