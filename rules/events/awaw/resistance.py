"""60.1 Determining Russian Surrender: the Russian Resistance Table (60.11), the offer, Germany's choice
(60.11, 60.12, 60.21); 60.91 (Pacific theater scenarios); 60.82/60.83 (when the table is still consulted)."""

from __future__ import annotations

from rules.awaw.readings import TIMINGS, check_point
from rules.awaw.resistance import resistance_lines, table_json, total
from rules.engine import EventContext, event_impl
from rules.events.awaw.common import awaw_board, surrender_unknown, turn_unknown
from vassal_parser.errors import InputError

ACCEPT, REJECT = "accept", "reject"


@event_impl("awaw_russian_resistance")
def russian_resistance(ctx: EventContext) -> None:
    """60.11: at the check point the pack's reading names, sum the table; zero or less -> Russia offers
    to surrender and Germany accepts (60.21) or rejects (60.12)."""
    board = awaw_board(ctx)
    pos = board.pos
    decider = ctx.require_param("decider")
    if board.facts.sample_map:
        ctx.why(
            f"pack {ctx.pack.name}: its hex graph is a worked-example sample, not the whole AWAW map "
            "(docs/awaw.md)"
        )
    if pos.scenario == "Pacific":
        return ctx.ignore("60.91: in Pacific theater scenarios, Russia never surrenders")
    surrender = pos.surrender
    second = surrender.second_war
    if second is not None and second.declared_by == "Germany":
        return ctx.not_due(
            f"Germany declared war on Russia after the surrender (turn {second.turn}): no second "
            "Russian surrender is possible and no further resistance calculations are made (60.83)"
        )
    in_surrender = surrender.state == "surrendered" and second is None
    when = "" if surrender.turn is None else f" (turn {surrender.turn})"  # a game fact may leave it unsaid
    if second is not None:
        ctx.why(
            f"Russia declared war after its surrender (turn {second.turn}): resistance calculations "
            "continue and a second Russian surrender is possible (60.83)"
        )
    lines = resistance_lines(board)
    level = total(lines)
    table = "Zero or less: Russia offers to surrender (60.11)."

    def need_inputs() -> None:
        """Missing inputs matter only where the level is used (a check, or 60.82's Russian turn end)."""
        for line in lines:
            for fact, text in line.missing:
                ctx.missing(fact, "Russia", text)

    def offer_blocked() -> str | None:
        """Why no offer is made at any check whatever else is unknown (the turn, the surrender state):
        then no answer to those facts changes the verdict, so none is asked (issue 41)."""
        if level is not None and level > 0:
            return f"Russian resistance level {level} is greater than zero: no offer (60.11)"
        if surrender.state == "rejected" and surrender.turn is not None and pos.game_turn is not None \
                and pos.game_turn <= surrender.turn:
            return (f"Germany rejected the offer of turn {surrender.turn}: it cannot change its mind and "
                    "must await a new offer at a later check (60.12)")
        return None

    def offer_needs() -> None:
        """What an offer needs besides the level: the game turn it is recorded with, and after a rejection
        the turn of that rejection (60.12: a new offer only at a later game turn)."""
        turn_unknown(ctx, board, "game_year")
        if surrender.state == "rejected" and surrender.turn is None:
            ctx.missing("russian_surrender_turn", None, "the position does not say in which game turn "
                        "Germany rejected the offer (60.12: a new offer only at a later game turn)")

    if set(pos.unknown_turn_facts()) & {"player_turn", "phase"}:
        ctx.entry.tables.append(table_json(lines, table))
        if in_surrender:
            return ctx.not_due(
                f"Russia has surrendered{when}: no offer while in a state of surrender, "
                "whoever's player turn it is (the level kept for 60.82 at the end of a Russian player turn "
                "needs whose player turn it is)"
            )
        if pos.phase not in (None, "end_of_player_turn") or pos.side not in (None, "Allied"):
            return ctx.not_due("the table is consulted only at the end of an Allied player turn "
                               "(60.11, 60.12)")
        blocked = offer_blocked()
        if blocked:
            return ctx.not_due(blocked + ", whoever's player turn it is")
        # An Allied player turn's end would consult the table: what that completion needs is asked at once
        turn_unknown(ctx, board, "player_turn", "phase")
        surrender_unknown(ctx, board)
        need_inputs()
        offer_needs()
        return ctx.why("the table is consulted only at the end of an Allied player turn (60.11, 60.12): "
                       "whose player turn and which phase it is are not known")
    russian_turn_end = pos.russian_player_turn and pos.phase == "end_of_player_turn"
    if surrender.state == "unknown":
        # Not due whatever the state, where neither a check (60.11, 60.12) nor 60.82's Russian turn end is.
        timing = ctx.erratum("check_timing")
        open_check = any(check_point(pos, timing, rejected)[0] for rejected in (False, True))
        ctx.entry.tables.append(table_json(lines, table))
        if not open_check and not russian_turn_end:
            return ctx.not_due(check_point(pos, timing, False)[1])
        blocked = offer_blocked()
        if blocked:  # the level is known: no offer in any state; 60.82 keeps it at a Russian turn end
            if russian_turn_end:
                pos.last_russian_turn_level = level
            return ctx.not_due(blocked + ", whatever the surrender state")
        surrender_unknown(ctx, board)
        need_inputs()
        offer_needs()
        return ctx.why("whether the table is consulted depends on the surrender state (60.11, 60.12, 60.82)")

    if in_surrender:
        note = (
            "Russia is in a state of surrender: the level at the end of a Russian player turn decides "
            "whether Russia may declare war (60.82: greater than zero)"
        )
        ctx.entry.tables.append(table_json(lines, note))
        if not russian_turn_end:
            return ctx.not_due(
                f"Russia has surrendered{when}: no offer while in a state of surrender"
            )
        need_inputs()
        if level is None:
            return ctx.why("the level for 60.82 cannot be summed: a line's input is missing")
        pos.last_russian_turn_level = level
        return ctx.not_due(
            f"Russia has surrendered{when}: no offer; resistance level {level} "
            "at the end of this Russian player turn is recorded for 60.82"
        )
    after_rejection = surrender.state == "rejected"
    timing = ctx.erratum("check_timing")  # 60.11 vs 60.12: the plan shows the reading and its switch
    if timing not in TIMINGS:
        raise InputError(ctx.pack.path, f"pack {ctx.pack.name}: [errata.check_timing] reading {timing!r} is "
                                        f"not one rule 60 knows ({', '.join(TIMINGS)})")
    due, why = check_point(pos, timing, after_rejection)
    ctx.entry.tables.append(table_json(lines, table + (" " + why if not due else "")))
    if russian_turn_end:
        need_inputs()
        if level is not None:
            pos.last_russian_turn_level = level  # 60.82: the level at the end of a Russian turn
    if not due:
        return ctx.not_due(why)
    ctx.why(why)
    blocked = offer_blocked()
    if blocked:
        return ctx.not_due(blocked)
    need_inputs()
    offer_needs()
    if level is None:
        return ctx.why("the resistance level cannot be summed: a line's input is missing")
    if pos.game_turn is None:
        return ctx.why("the game turn is not known (an offer and Germany's answer are recorded with it)")
    if after_rejection and surrender.turn is None:
        return ctx.why("whether this is a later game turn than Germany's rejection is not known (60.12)")
    ctx.fire(f"Russian resistance level {level} is zero or less: Russia offers to surrender (60.11)")
    answer = ctx.choose(
        "germany",
        decider,
        f"Russia offers to surrender (resistance level {level}). Does Germany accept (60.21) or reject it in "
        "the hope of imposing more severe terms (60.12)?",
        [ACCEPT, REJECT],
        labels={ACCEPT: "accept: Russia surrenders (60.21)", REJECT: "reject: the war goes on (60.12)"},
    )
    if answer == ACCEPT:
        surrender.state, surrender.turn, surrender.procedure_done = "surrendered", pos.game_turn, False
        surrender.second_war, surrender.japan = None, None
        ctx.record(
            None,
            "set_surrender",
            f"Germany accepts: Russia surrenders on turn {pos.game_turn} "
            "(60.21); the results follow (60.2-60.7)",
            subject="Russia",
            rule="60.21",
            state="surrendered",
            turn=pos.game_turn,
        )
    else:
        surrender.state, surrender.turn = "rejected", pos.game_turn
        ctx.record(
            None,
            "set_surrender",
            f"Germany rejects the offer (turn {pos.game_turn}): Russia and Germany "
            "remain at war; the table is consulted again at the end of each subsequent Russian player "
            "turn, and Germany must await a new offer at a later check (60.12)",
            subject="Russia",
            rule="60.12",
            state="rejected",
            turn=pos.game_turn,
        )
