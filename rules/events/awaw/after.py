"""60.8 Russia after a Surrender: the actions the position records are validated (60.81, 60.82, 60.35),
and a second German-Russian war is recorded with its effects (60.83).

Actions (`awaw.actions`, docs/position-format.md): `{"type": "diplomatic_target", "power", "target"}`,
`{"type": "declare_war", "by", "on"}`, `{"type": "build_partisan", "by", "theater", "hex"}`.
"""

from __future__ import annotations

from typing import Any

from rules.engine import EventContext, event_impl
from rules.events.awaw.common import awaw_board, surrender_unknown

EUROPEAN_AXIS = ("Germany", "Italy")


@event_impl("awaw_after_surrender")
def after_surrender(ctx: EventContext) -> None:
    board = awaw_board(ctx)
    pos = board.pos
    surrender = pos.surrender
    if surrender.state == "unknown":
        if not pos.actions:  # nothing 60.8 could find broken, whatever the state
            return ctx.not_due("no action of this turn that rule 60.8 governs")
        surrender_unknown(ctx, board)
        return ctx.why("the actions are checked against the surrender state, which is not known (60.8)")
    if surrender.state != "surrendered":
        return ctx.not_due("Russia is not in a state of surrender (60.8)")
    in_surrender = surrender.second_war is None
    if in_surrender:
        ctx.why(
            "Russia continues play: BRPs at each YSS, RPs and DPs allocated and activated, ICs increase in "
            "value normally; Western Allied units may enter Russia as 53.47 permits (60.81)"
        )
    checked = 0
    for index, action in enumerate(pos.actions):
        kind = action.get("type")
        if kind == "diplomatic_target":
            checked += 1
            _diplomatic_target(ctx, index, action, in_surrender)
        elif kind == "declare_war":
            checked += 1
            _declare_war(ctx, index, action, in_surrender)
        elif kind == "build_partisan":
            checked += 1
            _build_partisan(ctx, board.facts.western_allies, index, action, in_surrender)
    if not checked:
        ctx.not_due("no action of this turn that rule 60.8 governs")


def _diplomatic_target(ctx: EventContext, index: int, action: dict[str, Any], in_surrender: bool) -> None:
    if action.get("power") == "Russia" and in_surrender:
        ctx.violation(
            "60.81",
            index,
            f"Russia named {action.get('target', 'a')} as a diplomatic target while in a state of surrender",
        )
        ctx.why(
            f"action #{index + 1}: Russia may not name diplomatic targets while in a state of surrender "
            "(60.81)"
        )


def _declare_war(ctx: EventContext, index: int, action: dict[str, Any], in_surrender: bool) -> None:
    pos = ctx.state.awaw
    by, on = action.get("by"), action.get("on")
    if by == "Russia" and on in (*EUROPEAN_AXIS, "Japan"):
        if not in_surrender:
            return None
        level = pos.last_russian_turn_level
        if level is None:
            ctx.missing(
                "last_russian_turn_level",
                "Russia",
                "the position does not give the Russian resistance "
                "level at the end of the preceding Russian player turn (60.82)",
            )
            return None
        if level <= 0:
            ctx.violation(
                "60.82",
                index,
                f"Russia declared war on {on} after its surrender, but the Russian "
                f"resistance level at the end of the preceding Russian player turn was "
                f"{level} (it must be greater than zero)",
            )
            return None
        ctx.fire(
            f"Russia declares war on {on} after its surrender; the resistance level at the end of the "
            f"preceding Russian player turn was {level}, greater than zero (60.82)"
        )
        ctx.note("normal BRP cost; affects USAT and USJT normally", rule="60.82")
        if on in EUROPEAN_AXIS:
            _second_war(ctx, "Russia")
        else:
            pos.japan_at_war_with_russia = True
        return None
    if by in ("Germany", "Japan") and on == "Russia" and in_surrender:
        ctx.fire(f"{by} declares war on Russia after the Russian surrender: allowed at any time (60.82)")
        ctx.note("normal BRP cost; affects USAT and USJT normally", rule="60.82")
        if by == "Germany":
            _second_war(ctx, "Germany")
        else:
            pos.japan_at_war_with_russia = True
            ctx.note("Japan resumes fighting Russia", rule="60.72")
    return None


def _second_war(ctx: EventContext, declared_by: str) -> None:
    pos = ctx.state.awaw
    pos.surrender.second_war = _make_second_war(declared_by, pos.game_turn)
    ctx.record(
        None,
        "set_surrender",
        "a second German-Russian war: Germany no longer receives BRP grants from "
        "Russia"
        + (
            "; resistance level calculations continue and a second Russian surrender is possible"
            if declared_by == "Russia"
            else "; no second Russian surrender is possible and no further resistance calculations are made"
        ),
        subject="Russia",
        rule="60.83",
        second_war=declared_by,
        turn=pos.game_turn,
    )
    ctx.note(
        "Russia reenters the war: the Western Allies may construct partisans in Europe again", rule="60.35"
    )


def _make_second_war(declared_by: str, turn: int) -> Any:
    from rules.awaw.position import SecondWar

    return SecondWar(declared_by, turn)


def _build_partisan(
    ctx: EventContext, western: tuple[str, ...], index: int, action: dict[str, Any], in_surrender: bool
) -> None:
    if action.get("by") in western and action.get("theater", "Europe") == "Europe" and in_surrender:
        where = f" in {action['hex']}" if action.get("hex") else ""
        ctx.violation(
            "60.35",
            index,
            f"{action.get('by')} built a partisan{where} in Europe after the Russian "
            "surrender, before Russia reentered the war",
        )
