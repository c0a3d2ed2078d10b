"""When the Russian Resistance Table is consulted: 60.11 and 60.12 say it differently.

60.11: "Russia offers to surrender at the end of any Allied player turn in which the Russian resistance
level ... is zero or less", and the table's Explanation: "Check at the end of each Allied player turn".
60.12, after a rejection: "At the end of each subsequent Russian player turn, the Russian Resistance
Table is again consulted", and Germany "must await a new offer at the end of a later Russian player turn".
The two agree only when every Allied player turn is also a Russian player turn. The pack records the
contradiction as the erratum `check_timing` (rules/packs/awaw/errata.toml, the shared mechanism of
rules/errata.py): 60.1 reads it through `EventContext.erratum`, so every plan that checks the table shows
the reading used, the others and the `[options]` switch. The readings this module knows:

* `as_written` — each clause as written: before any rejection, at the end of any Allied player turn
  (60.11); after a rejection, only at the end of a Russian player turn (60.12).
* `allied_turn` — always at the end of any Allied player turn (60.11 and its Explanation govern).
* `russian_turn` — always at the end of a Russian player turn (60.12's wording governs throughout).
"""

from __future__ import annotations

from rules.awaw.position import AwawPosition

TIMINGS = ("as_written", "allied_turn", "russian_turn")


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
    return False, (f"end of an Allied player turn without Russia ({whose}): under reading {reading!r} the "
                   f"table is consulted only at the end of a Russian player turn ({rule})")
