"""60.6 BRPs: Russia's grants to Germany after a surrender, a recurring obligation (60.61-60.63, 60.83)."""

from __future__ import annotations

from typing import Any

from rules.engine import EventContext, event_impl
from rules.events.awaw.common import awaw_board, surrender_turn_unknown, surrender_unknown, turn_unknown


@event_impl("awaw_brp_grants")
def brp_grants(ctx: EventContext) -> None:
    """60.61: in each Russian unit construction phase from the next Russian player turn after the surrender,
    Russia grants Germany the current production value of its most valuable IC (10 if it has none);
    60.62: compulsory, a deficit lowers Russia's BRP base unless covered by Western Allied grants in the
    same phase; 60.83: a second German-Russian war ends the grants."""
    board = awaw_board(ctx)
    pos = board.pos
    grantee = ctx.require_param("grantee")
    no_ic = int(ctx.require_param("no_ic_grant"))
    surrender = pos.surrender
    if surrender_unknown(ctx, board):
        return ctx.why("whether Russia has surrendered is not known (60.61)")
    if surrender.state != "surrendered":
        return ctx.not_due("Russia has not surrendered: no BRP grants (60.61)")
    if surrender.second_war is None and surrender_turn_unknown(ctx, board, "60.61"):
        return ctx.why("Russia has surrendered: from which Russian player turn the grants are made is not "
                       "known (60.61)")
    if surrender.second_war is not None:
        return ctx.not_due(
            f"a second German-Russian war broke out (turn {surrender.second_war.turn}): Germany no "
            "longer receives BRP grants from Russia (60.83)"
        )
    russian_ics = sorted(h for h in board.ic_hexes() if board.controller(h) == "Russia")
    unknown = board.unknown_control(board.ic_hexes())
    values: dict[str, int] = {}
    for hex_id in russian_ics:
        value = pos.ic_values.get(hex_id)
        if value is None:
            ctx.missing(
                "ic_value",
                hex_id,
                f"the position gives no production value for the IC in {board.label(hex_id)} (60.61)",
            )
        else:
            values[hex_id] = value
    if unknown:
        ctx.missing(
            "hex_control",
            "Russia",
            f"the position does not say who controls the IC hex(es) {', '.join(unknown)} (60.61)",
        )
    decided = not unknown and len(values) == len(russian_ics)
    best = max(values, key=lambda h: (values[h], h)) if values else None
    amount = (values[best] if best else no_ic) if decided else None
    basis = (
        f"most valuable Russian IC {board.label(best)}: production value {values[best]}"
        if best and decided
        else f"Russia has no IC: {no_ic} BRPs"
        if decided
        else "unknown"
    )
    rows: list[dict[str, Any]] = [
        {
            "label": "Production value of Russia's most valuable IC (10 if none)",
            "figure": amount,
            "rule": "60.61",
            "detail": basis,
        }
    ]
    if turn_unknown(ctx, board, "player_turn", "phase", "game_year"):
        return ctx.why("the grant is made in a Russian unit construction phase from the next Russian "
                       "player turn on (60.61): the turn is not known")
    construction = pos.phase == "unit_construction" and pos.russian_player_turn
    started = pos.game_turn > surrender.turn
    if not (construction and started):
        first = surrender.turn + 1
        when = (
            f"from the Russian unit construction phase of turn {first} on"
            if not started
            else "at the next Russian unit construction phase"
        )
        ctx.entry.tables.append(
            _table(rows, amount, f"Recurring obligation (60.61): {when}, every such phase.")
        )
        return ctx.not_due(
            f"standing obligation: {when}, Russia must grant {grantee} "
            f"{amount if amount is not None else '?'} BRPs ({basis}) in every Russian unit "
            "construction phase (60.61, 60.62)"
        )
    if amount is None:
        ctx.entry.tables.append(_table(rows, None, "The grant cannot be summed: a fact is missing."))
        return None
    ctx.fire(
        f"Russian unit construction phase, turn {pos.game_turn} "
        f"(Russia surrendered on turn {surrender.turn}): "
        f"the BRP grant to {grantee} is due (60.61)"
    )
    ctx.record(
        None,
        "grant",
        f"Russia grants {grantee} {amount} BRPs ({basis}); compulsory, whether or not Russia "
        "has ICs and even if the BRPs are not available",
        subject="Russia",
        rule="60.61",
        amount=amount,
        to_power=grantee,
    )
    brps = pos.count("brps")
    if brps is None:
        ctx.missing(
            "brps",
            "Russia",
            "the position gives no count of Russia's BRPs available (60.62: a deficit "
            "lowers Russia's BRP base)",
        )
    else:
        covered = max(0, min(amount - brps, pos.western_grants_to_russia))
        deficit = max(0, amount - brps - covered)
        rows.append({"label": "Russia's BRPs available", "figure": brps, "rule": "60.62", "detail": ""})
        rows.append(
            {
                "label": "Western Allied BRP grants to Russia in this phase covering the deficit",
                "figure": covered,
                "rule": "60.62",
                "detail": "",
            }
        )
        rows.append(
            {"label": "Deficit lowering Russia's BRP base", "figure": -deficit, "rule": "60.62", "detail": ""}
        )
        pos.russia["brps"] = max(0, brps + covered - amount)
        if deficit:
            base = pos.count("brp_base")
            after = f" (from {base} to {base - deficit})" if base is not None else ""
            ctx.record(
                None,
                "note",
                f"the grant leaves a deficit of {deficit} BRPs not covered by Western Allied "
                f"grants in this phase: Russia's BRP base decreases by {deficit}{after}",
                subject="Russia",
                rule="60.62",
                deficit=deficit,
            )
            if base is not None:
                pos.russia["brp_base"] = base - deficit
        elif amount > brps:
            ctx.note(
                f"the deficit of {amount - brps} BRPs is covered by Western Allied grants in this phase",
                subject="Russia",
                rule="60.62",
            )
    ctx.note(
        "Russia may receive aid from the Western Allies under the normal BRP grant rules (40), and the "
        "Axis may interfere with it; the Persian BRP route may be opened",
        rule="60.63",
    )
    ctx.entry.tables.append(
        _table(rows, amount, "Compulsory every Russian unit construction phase (60.61, 60.62).")
    )


def _table(rows: list[dict[str, Any]], amount: int | None, note: str) -> dict[str, Any]:
    return {
        "title": "Russian BRP grant to Germany",
        "rule": "60.61",
        "rows": rows,
        "total": amount,
        "threshold": None,
        "note": note,
    }
