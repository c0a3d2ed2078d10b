"""Shared steps of a Russian surrender (60.3, 60.4): hex control by supply, eliminations, repatriation.

Why shared: 60.72 applies 60.3 and 60.4 again to the Pacific theater when Japan makes peace, so the same
procedure runs for each theater with its own conqueror (Germany in Europe, 60.42; Japan in the Pacific —
the reading of 60.72 recorded in docs/awaw.md).
"""

from __future__ import annotations

from rules.awaw.board import AwawBoard
from rules.awaw.supply import axis_limited_supply, russian_full_supply
from rules.engine import EventContext
from rules.state import Counter


def awaw_board(ctx: EventContext) -> AwawBoard:
    return AwawBoard(ctx.state, ctx.pack)


TURN_FACT_TEXT = {
    "player_turn": "whose player turn it is (Axis, or which Allied powers): the VASSAL game shows no "
                   "marker for it",
    "phase": "which phase of the player turn it is (end of the player turn, or unit construction)",
    "game_year": "the game year: the turn track shows the season only",
}


def surrender_unknown(ctx: EventContext, board: AwawBoard) -> bool:
    """Record the surrender state as missing where the position does not know it (a VASSAL game: no
    piece shows whether Russia surrendered or Germany rejected an offer); True when unknown."""
    if board.pos.surrender.state != "unknown":
        return False
    ctx.missing("russian_surrender", None, "the position does not say whether Russia has surrendered, or "
                "Germany rejected an offer, and when (no save carries it)")
    return True


def surrender_turn_unknown(ctx: EventContext, board: AwawBoard, rule: str) -> bool:
    """Record the turn of the surrender as missing where Russia has surrendered and the position does not
    say when (the game fact russian_surrender_turn); True when unknown. Why: "this game turn" (60.21,
    60.71) and "from the next Russian player turn" (60.61) are then unknown, never "not this turn". Asked
    only once the state says there was a surrender: with `none`, no answer to it changes anything
    (issue 41)."""
    surrender = board.pos.surrender
    if surrender.state != "surrendered" or surrender.turn is not None:
        return False
    ctx.missing("russian_surrender_turn", None, f"the position does not say in which game turn Russia "
                f"surrendered ({rule})")
    return True


def turn_unknown(ctx: EventContext, board: AwawBoard, *names: str) -> bool:
    """Record the turn facts among `names` (game facts, bridge/mapping/game_facts.py) the position leaves
    unknown; True when any is. Why through `ctx.missing`: an event that needs one is `undecided`,
    naming it, never not due (issue 25: a fact no save carries is asked, never guessed)."""
    unknown = [n for n in board.pos.unknown_turn_facts() if n in names]
    for name in unknown:
        ctx.missing(name, None, f"the position does not say {TURN_FACT_TEXT[name]}")
    return bool(unknown)


def set_control(
    ctx: EventContext,
    board: AwawBoard,
    hex_id: str,
    power: str,
    rule: str,
    why: str,
    subject: str | None = None,
) -> None:
    """Record and apply a change of hex control (step action `set_control`)."""
    before = board.controller(hex_id)
    ctx.record(
        None,
        "set_control",
        f"{board.label(hex_id)} passes from {adjective(before)} to {adjective(power)} control: {why}",
        to=hex_id,
        subject=subject,
        rule=rule,
        hex=hex_id,
        before=before,
        after=power,
    )
    board.set_control(hex_id, power)


ADJECTIVES = {
    "Germany": "German",
    "Russia": "Russian",
    "Japan": "Japanese",
    "Britain": "British",
    "France": "French",
    "USA": "U.S.",
    "Italy": "Italian",
}


def adjective(power: str | None) -> str:
    """'German control', as the rules text says it; a minor country keeps its name."""
    return "unknown" if power is None else ADJECTIVES.get(power, power)


def units_in(ctx: EventContext, hex_id: str) -> list[Counter]:
    return [c for c in ctx.state.counters_at(hex_id) if c.is_unit]


def is_partisan(counter: Counter) -> bool:
    return "partisan" in counter.tags


def side_of(ctx: EventContext, counter: Counter) -> str | None:
    return ctx.board.faction_of(counter)


def repatriate(
    ctx: EventContext,
    board: AwawBoard,
    counter: Counter,
    candidates: list[str],
    key: str,
    rule: str,
    what: str,
    whats: str,
) -> None:
    """Move `counter` to the nearest of `candidates` (hexes counted on the grid) with room under the
    stacking limit; several at the same distance are a choice for the unit's owner (options enumerated)."""
    here = counter.location
    limit = board.facts.stacking_limit
    side = side_of(ctx, counter)
    if limit is None:
        ctx.missing("stacking_limit", None, "the pack gives no stacking limit ([awaw] stacking_limit)")

    stacked: dict[str, int] = {}
    if limit is not None and counter.is_ground:  # one pass over the counters, not one per candidate
        for other in ctx.state.counters.values():
            if other.is_ground and side_of(ctx, other) == side:
                stacked[other.location] = stacked.get(other.location, 0) + 1
    distances = sorted((board.distance(here, h), h) for h in candidates if h != here)
    open_hexes = [
        (d, h) for d, h in distances if limit is None or not counter.is_ground or stacked.get(h, 0) < limit
    ]
    if not open_hexes:
        ctx.note(
            f"{ctx.name(counter.id)} in {board.label(here)}: no {what} with room under the stacking "
            "limit — settle by the stacking rules",
            rule=rule,
        )
        return
    nearest = open_hexes[0][0]
    options = [h for d, h in open_hexes if d == nearest]
    reason = f"repatriated to the nearest {what}, {nearest} hex(es) away, subject to stacking limits"
    if len(options) == 1:
        ctx.move(counter, options[0], None, why=reason, rule=rule)
        return
    owner = counter.nationality or side or "owner"
    answer = ctx.choose(
        f"{key}:{counter.id}",
        owner,
        f"{ctx.name(counter.id)} in {board.label(here)} is repatriated ({rule}): "
        f"which of the nearest {whats} "
        f"({nearest} hexes away, with room under the stacking limit)?",
        options,
        labels={h: board.label(h) for h in options},
        # A ground unit's options depend on where earlier ones went (stacking): ask them one at a time,
        # so an answer legal when shown stays legal; others are all asked at once.
        defer=not (counter.is_ground and limit is not None),
    )
    if answer is not None:
        ctx.move(counter, answer, None, why=reason, rule=rule)


def units_by_hex(ctx: EventContext) -> dict[str, list[Counter]]:
    """Where every unit stands, read once (a 3,000-hex board x 1,000 counters would otherwise be scanned
    per hex). Readers filter on `location` again, so a unit moved since is never found where it was."""
    index: dict[str, list[Counter]] = {}
    for counter in ctx.state.counters.values():
        if counter.is_unit:
            index.setdefault(counter.location, []).append(counter)
    return index


def eliminate_russian_units(
    ctx: EventContext, hex_id: str, index: dict[str, list[Counter]] | None = None
) -> None:
    """60.32: Russian units in a hex passing to German control are eliminated and return to the Russian
    force pool as allowable builds; 60.43: Russian fortifications and fortresses there are eliminated."""
    found = (
        units_in(ctx, hex_id) if index is None else [c for c in index.get(hex_id, []) if c.location == hex_id]
    )
    for counter in found:
        if counter.nationality != "Russia" or is_partisan(counter):
            continue
        if counter.kind == "fortress":
            ctx.eliminate(counter, None, rule="60.43")
        else:
            ctx.move(
                counter,
                f"force_pool:{side_of(ctx, counter) or 'Soviet'}",
                None,
                why="eliminated: returned to the Russian force pool as an allowable build",
                rule="60.32",
            )


def _say_overrides(ctx: EventContext, board: AwawBoard, hexes: list[str], key: str) -> None:
    """The plan says which supply the position decided (rules outside rule 60), hex by hex."""
    parts = []
    for hex_id in hexes:
        entry = board.pos.supply[hex_id]
        if key in entry:
            reason = f" — {entry['why']}" if entry.get("why") else ""
            parts.append(f"{hex_id} {entry[key]}{reason}")
    if parts:
        whose = "Russian" if key == "russian" else "Axis"
        ctx.why(f"{whose} supply as the position gives it (rules outside rule 60): " + ", ".join(parts))


def units_and_hexes(
    ctx: EventContext, board: AwawBoard, theater: str, conqueror: str, key: str, cite: str = ""
) -> set[str] | None:
    """60.41-60.44 and 60.32, 60.33 for one theater; returns the hexes Russia fully supplied (for 60.51),
    or None when hex control is not known everywhere (then nothing is decided and the fact is named)."""
    via = " (applied to the Pacific theater by 60.72)" if cite else ""
    hexes = board.hexes(theater)
    unknown = board.unknown_control(hexes)
    if unknown:
        ctx.missing(
            "hex_control",
            theater,
            f"the position does not say who controls {len(unknown)} hex(es) of "
            f"the {theater} theater ({', '.join(unknown[:8])}{' ...' if len(unknown) > 8 else ''})",
        )
        ctx.why(f"60.4 not applied to the {theater} theater: hex control is not known everywhere")
        return None
    russian = russian_full_supply(board, theater)
    sources = board.facts.east_edge if theater == "Europe" else board.facts.pacific_supply_sources
    origin = (
        "the eastern edge of the board"
        if theater == "Europe"
        else "the pack's Russian Pacific supply sources"
    )
    ctx.why(
        f"60.41{via}: Russian supply traced from {origin} "
        f"({', '.join(sorted(sources))}) through Russian-controlled hexes; Axis ZoCs and interception of sea "
        "supply lines not taken into account, IC and air supply insufficient"
    )
    _say_overrides(ctx, board, russian.overrides_used, "russian")
    index = units_by_hex(ctx)
    lost = [h for h in hexes if board.controller(h) == "Russia" and h not in russian.supplied]
    if not lost:
        ctx.why(f"60.42{via}: every Russian-controlled hex of the {theater} theater traces supply")
    for hex_id in lost:
        special = [
            t
            for t, on in (("IC", hex_id in board.ic_hexes()), ("objective", hex_id in board.facts.objectives))
            if on
        ]
        rule = "60.43" if special else "60.42"
        why = (
            f"cannot trace a supply line from {origin}"
            + (f"; no exception for an {' and '.join(special)} (60.43)" if special else "")
            + via
        )
        set_control(ctx, board, hex_id, conqueror, rule, why)
        eliminate_russian_units(ctx, hex_id, index)
    axis = axis_limited_supply(board, theater)
    # "revert to Russian control": hexes of Russia and of the minors Russia controls (docs/awaw.md).
    russian_lands = {"Russia"} | {
        m for m, e in board.pos.minors.items() if e.get("controller", "Russia") == "Russia"
    }
    _say_overrides(ctx, board, axis.overrides_used, "axis")
    isolated = [
        h
        for h in hexes
        if board.side_of_hex(h) == "Axis"
        and h not in axis.supplied
        and board.pack.hexes[h].country in russian_lands
    ]
    ctx.why(
        f"60.44{via}: Axis supply traced from {', '.join(sorted(board.facts.axis_supply_sources))} through "
        "Axis-controlled hexes; Russian ZoCs, air supply and interception not taken into account"
    )
    for hex_id in isolated:
        set_control(
            ctx,
            board,
            hex_id,
            "Russia",
            "60.44",
            "Axis-controlled, cannot receive at least limited supply from an Axis supply source" + via,
        )
    supplied_axis = sorted(h for h in hexes if board.side_of_hex(h) == "Axis" and h in axis.supplied)
    for hex_id in isolated:
        for counter in [c for c in index.get(hex_id, []) if c.location == hex_id]:
            if side_of(ctx, counter) == "Axis":
                repatriate(
                    ctx,
                    board,
                    counter,
                    supplied_axis,
                    f"{key}:axis",
                    "60.44",
                    "supplied Axis-controlled hex",
                    "supplied Axis-controlled hexes",
                )
    russian_hexes = sorted(h for h in hexes if board.controller(h) == "Russia")
    for hex_id in hexes:
        if board.controller(hex_id) not in board.facts.western_allies:
            continue
        for counter in [c for c in index.get(hex_id, []) if c.location == hex_id]:
            if counter.nationality == "Russia" and not is_partisan(counter):
                repatriate(
                    ctx,
                    board,
                    counter,
                    russian_hexes,
                    f"{key}:russian",
                    "60.33",
                    "Russian-controlled hex",
                    "Russian-controlled hexes",
                )
    return russian.supplied


def eliminate_partisans(ctx: EventContext, board: AwawBoard, theaters: tuple[str, ...], rule: str) -> None:
    """60.34: Russian and communist partisans are eliminated, Communist Chinese partisans unaffected;
    Western Allied partisans on the board remain in play (60.35)."""
    for counter in sorted(ctx.state.counters.values(), key=lambda c: c.id):
        if not is_partisan(counter) or not ctx.state.on_map(counter):
            continue
        if board.theater(counter.location) not in theaters:
            continue
        if "communist_chinese" in counter.tags:
            ctx.why(f"{ctx.name(counter.id)}: Communist Chinese partisans are unaffected (60.34)")
            continue
        if counter.nationality == "Russia" or "communist" in counter.tags:
            ctx.eliminate(counter, None, rule=rule)
        elif counter.nationality in board.facts.western_allies:
            ctx.why(f"{ctx.name(counter.id)}: Western Allied partisans on the board remain in play (60.35)")
