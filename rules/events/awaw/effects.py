"""60.2-60.5 Effects of a Russian Surrender (Europe) and 60.7 Japanese Participation (the Pacific theater).

The procedure's order: 60.45 (partisan-held hexes are not Russian), 60.41-60.44 with 60.32 and 60.33
(rules/events/awaw/common.py), 60.34/60.35 partisans, 60.51/60.52 minor countries, 60.22 the U.S.
election after the procedure, 60.61 the grants that follow.
"""

from __future__ import annotations

from rules.engine import EventContext, event_impl
from rules.events.awaw.common import (
    adjective,
    awaw_board,
    eliminate_partisans,
    eliminate_russian_units,
    repatriate,
    set_control,
    surrender_turn_unknown,
    surrender_unknown,
    turn_unknown,
    units_and_hexes,
    units_in,
)


@event_impl("awaw_surrender_effects")
def surrender_effects(ctx: EventContext) -> None:
    """60.21: Germany accepted -> Russia surrenders with the results of 60.22-60.6, in this plan's turn."""
    board = awaw_board(ctx)
    pos = board.pos
    conqueror = ctx.require_param("conqueror")
    surrender = pos.surrender
    if surrender_unknown(ctx, board):
        return ctx.why("whether Russia surrendered this game turn is not known (60.21)")
    if surrender.state == "surrendered" and (turn_unknown(ctx, board, "game_year")
                                             | surrender_turn_unknown(ctx, board, "60.21")):
        return ctx.why("Russia has surrendered: whether on this game turn is not known (60.21)")
    if surrender.state != "surrendered" or surrender.turn != pos.game_turn:
        return ctx.not_due("Russia has not surrendered this game turn (60.21)")
    if surrender.procedure_done:
        return ctx.not_due(f"the surrender procedure of turn {surrender.turn} is already concluded")
    ctx.fire(
        f"Germany accepted the Russian surrender offer: Russia surrenders on turn {pos.game_turn} (60.21)"
    )
    ctx.note("All Russian units except partisans remain in play", rule="60.31")
    for hex_id, power in sorted(pos.partisan_held.items()):
        set_control(
            ctx,
            board,
            hex_id,
            power,
            "60.45",
            "Russian partisans are not taken into account in determining hex control",
        )
    pos.partisan_held.clear()
    supplied = units_and_hexes(ctx, board, "Europe", conqueror, "repatriate")
    eliminate_partisans(ctx, board, ("Europe", "Pacific"), "60.34")
    ctx.record(
        None,
        "restriction",
        "Standing restriction until Russia reenters the war: the Western Allies may "
        "not construct partisans in Europe (a later build is a violation, 60.8); Western Allied partisans "
        "on the board remain in play",
        rule="60.35",
        restriction="no_western_partisans_in_europe",
    )
    if supplied is not None:
        _minor_countries(ctx, board, supplied, conqueror)
    western = pos.western_at_war_with_germany
    if western is None:
        ctx.missing(
            "western_at_war_with_germany",
            "USA",
            "the position does not say whether the U.S. is at war with Germany (60.22)",
        )
    elif "USA" in western:
        ctx.note(
            f"U.S. election calculation at the end of game turn {pos.game_turn}, after the Russian surrender "
            "procedure is concluded — for Europe only: none for the Pacific, and U.S.–Japanese relations "
            "are unaffected",
            rule="60.22",
        )
    else:
        ctx.why("the U.S. is not at war with Germany: no post-surrender U.S. election (60.22)")
    ctx.note(
        f"From the next Russian player turn (turn {pos.game_turn + 1}) on, "
        "in every Russian unit construction "
        "phase Russia must grant Germany BRPs equal to the production value of its most valuable IC (10 if "
        "it has none), compulsory even if the BRPs are not available (60.61, 60.62)",
        rule="60.61",
    )
    surrender.procedure_done = True


def _minor_countries(ctx: EventContext, board: object, supplied: set[str], conqueror: str) -> None:
    """60.51: Russia keeps a minor ally, associated or diplomatically controlled minor or conquest whose
    capital it fully supplies from the eastern edge; otherwise it comes under German control as a conquest
    and its units are permanently eliminated. 60.52: Western Allied units in the minors Russia keeps are
    repatriated to the nearest Western Allied-controlled hex."""
    from rules.awaw.board import AwawBoard

    assert isinstance(board, AwawBoard)
    pos = board.pos
    for name, entry in sorted(pos.minors.items()):
        if entry.get("controller", "Russia") != "Russia":
            continue
        capital = ctx.need("capital", name)
        if capital is None:
            continue
        relation = {
            "ally": "minor ally",
            "associated": "associated minor country",
            "diplomatic": "diplomatically controlled minor country",
            "conquest": "conquest",
        }[entry["relation"]]
        if capital in supplied:
            ctx.why(
                f"{name} (Russian {relation}): its capital {board.label(capital)} "
                "traces a supply line from the "
                "eastern edge — Russia retains it (60.51)"
            )
            western_hexes = sorted(
                h for h in board.hexes("Europe") if board.controller(h) in board.facts.western_allies
            )
            for hex_id in sorted(h for h in board.hexes("Europe") if board.pack.hexes[h].country == name):
                for counter in units_in(ctx, hex_id):
                    if counter.nationality in board.facts.western_allies:
                        repatriate(
                            ctx,
                            board,
                            counter,
                            western_hexes,
                            "repatriate:western",
                            "60.52",
                            "Western Allied-controlled hex",
                            "Western Allied-controlled hexes",
                        )
            continue
        ctx.set_country(
            name,
            None,
            f"comes under {adjective(conqueror)} control as a conquest: its capital "
            f"{board.label(capital)} cannot trace a supply line from the eastern edge",
            rule="60.51",
            faction="Axis",
            status="conquered",
        )
        pos.minors[name] = {"relation": "conquest", "controller": conqueror}
        for hex_id in sorted(h for h in board.hexes() if board.pack.hexes[h].country == name):
            if board.controller(hex_id) in ("Russia", name):
                set_control(
                    ctx,
                    board,
                    hex_id,
                    conqueror,
                    "60.51",
                    f"{name} comes under {adjective(conqueror)} control",
                    name,
                )
                eliminate_russian_units(ctx, hex_id)
        for counter in sorted(ctx.state.counters.values(), key=lambda c: c.id):
            if counter.nationality == name and counter.is_unit and counter.location != "removed":
                ctx.remove_from_game(counter, None, subject=name, rule="60.51")


@event_impl("awaw_japanese_participation")
def japanese_participation(ctx: EventContext) -> None:
    """60.71: Japan at war with Russia when Russia surrenders decides then: peace (60.72: 60.3 and 60.4
    applied to the Pacific theater, Communist Chinese partisans unaffected) or war (60.73)."""
    board = awaw_board(ctx)
    pos = board.pos
    decider = ctx.require_param("decider")
    surrender = pos.surrender
    if surrender_unknown(ctx, board):
        return ctx.why("whether Russia surrendered this game turn is not known (60.71)")
    if surrender.state == "surrendered" and (turn_unknown(ctx, board, "game_year")
                                             | surrender_turn_unknown(ctx, board, "60.71")):
        return ctx.why("Russia has surrendered: whether on this game turn is not known (60.71)")
    if surrender.state != "surrendered" or surrender.turn != pos.game_turn:
        return ctx.not_due("Russia has not surrendered this game turn (60.71)")
    if surrender.japan is not None:
        return ctx.not_due(f"Japan has decided: {surrender.japan} (60.71)")
    if pos.japan_at_war_with_russia is None:
        ctx.missing(
            "japan_at_war_with_russia",
            "Japan",
            "the position does not say whether Japan is at war with Russia (60.71)",
        )
        return None
    if not pos.japan_at_war_with_russia:
        return ctx.not_due("Japan is not at war with Russia when Russia surrenders (60.71)")
    ctx.fire("Japan is at war with Russia when Russia surrenders: the Japanese player decides now (60.71)")
    answer = ctx.choose(
        "japan",
        decider,
        "Does Japan adhere to the peace treaty (60.72) or continue fighting Russia (60.73)?",
        ["peace", "war"],
        labels={
            "peace": "peace: 60.3 and 60.4 apply to the Pacific theater (60.72)",
            "war": "war: fighting between Japan and Russia continues indefinitely (60.73)",
        },
    )
    surrender.japan = answer
    if answer == "war":
        ctx.note(
            "Japan declines to adhere to the German-Russian treaty: fighting between Japan and Russia "
            "continues indefinitely",
            rule="60.73",
        )
        return None
    ctx.note(
        "Japan adheres to the peace treaty; Japan may later declare war on Russia and resume fighting",
        rule="60.72",
    )
    pos.japan_at_war_with_russia = False
    if pos.scenario == "European" or not board.hexes("Pacific"):
        ctx.why("no Pacific theater on the board: nothing more to apply (60.72)")
        return None
    ctx.why(
        "60.72 read with Japan in Germany's place: Russian hexes of the Pacific theater that cannot trace "
        "supply come under Japanese control (docs/awaw.md)"
    )
    units_and_hexes(ctx, board, "Pacific", "Japan", "repatriate", cite="60.72")
