"""Supply lines for a Russian surrender (60.41-60.45, 60.51): a breadth-first trace over the hex graph.

Why so little of AWAW's supply rules: rule 60 says what to ignore — Axis ZoCs and interception of sea
supply lines for Russia (60.41, 60.51), Russian ZoCs, air supply and interception for the Axis (60.44),
Russian partisans for both (60.45) — and the rest (terrain, sea supply lines, what is an Axis supply
source) belongs to rules outside this text. So the tracer walks friendly-controlled land hexes of the
pack's graph, and the position may override any hex (`awaw.supply`: `{"russian": "full"|"none", "axis":
"limited"|"none", "why": ...}`) where those other rules decide; the plan lists every override it used.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from rules.awaw.board import AwawBoard


@dataclass
class Trace:
    supplied: set[str]
    overrides_used: list[str] = field(default_factory=list)  # hexes whose supply the position decided


def trace(
    board: AwawBoard, sources: Iterable[str], passable: Callable[[str], bool], key: str, good: str
) -> Trace:
    """Hexes reachable from `sources` through `passable` hexes; `awaw.supply[hex][key]` overrides:
    `good` makes the hex supplied (and a source), anything else makes it unsupplied and a barrier."""
    overrides = {h: e[key] for h, e in board.pos.supply.items() if key in e}

    def open_hex(h: str) -> bool:
        if h in overrides:
            return overrides[h] == good
        return passable(h)

    start = [h for h in sources if passable(h) and overrides.get(h, good) == good]
    start += [h for h, v in overrides.items() if v == good and passable(h) and h not in start]
    seen = set(start)
    queue = deque(start)
    while queue:
        here = queue.popleft()
        for there in board.neighbors(here):
            if there not in seen and open_hex(there):
                seen.add(there)
                queue.append(there)
    used = sorted(h for h in overrides if passable(h))
    return Trace(seen, used)


def russian_full_supply(board: AwawBoard, theater: str) -> Trace:
    """60.41: full supply traced from the eastern edge of the board (Pacific: the pack's Russian
    Pacific supply sources) through Russian-controlled hexes; Axis ZoCs and interception are not
    taken into account (nothing here models them), nor Russian partisans (60.45: the surrender
    procedure first hands each hex held only through partisans, `awaw.partisan_held`, to the power
    that holds it without them); an IC or air supply
    gives only partial supply, so neither is a source (60.41)."""
    sources = board.facts.east_edge if theater == "Europe" else board.facts.pacific_supply_sources

    def russian(h: str) -> bool:
        return board.theater(h) == theater and board.russian_controlled(h)

    return trace(board, sorted(sources), russian, "russian", "full")


def axis_limited_supply(board: AwawBoard, theater: str) -> Trace:
    """60.44: at least limited supply from an Axis supply source (the pack's `axis_supply_sources`)
    through Axis-controlled hexes; Russian ZoCs, air supply and interception are not taken into account."""

    def axis(h: str) -> bool:
        return board.theater(h) == theater and board.side_of_hex(h) == "Axis"

    return trace(board, sorted(board.facts.axis_supply_sources), axis, "axis", "limited")
