"""The Russian Resistance Table (60.11), line by line: each line's figure, its citation, and what it read.

Why every line keeps its own figure: players check the sum against the table printed in the rules, and
the overlay shows it live; a line whose input the position lacks has figure None and names the missing
fact, and then the total is unknown (the plan says `undecided`) — a missing count is never taken as zero.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rules.awaw.board import AwawBoard
from rules.awaw.position import RUSSIA_COUNT_LABELS

IC_BASELINE = 7  # 60.11: "-1 for each IC controlled by Russia below 7; +1 for each above 7"
THRESHOLD = 0  # 60.11: "zero or less" -> Russia offers to surrender


@dataclass
class Line:
    label: str
    figure: int | None
    rule: str
    detail: str = ""
    missing: list[tuple[str, str]] = field(default_factory=list)  # (fact, text)

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "figure": self.figure, "rule": self.rule, "detail": self.detail}


def atomic_figure(attacks: int) -> int:
    """60.11: -3 for the first attack, an additional -2 for the second, -1 for each subsequent one."""
    if attacks <= 0:
        return 0
    if attacks == 1:
        return -3
    return -5 - (attacks - 2)


def ic_figures(count: int) -> tuple[int, int]:
    """60.11: (below-7 figure, above-7 figure): 6 ICs -1, 5 ICs -2, 4 ICs -3 ...; 8 ICs +1 ... 10 ICs +3."""
    return min(0, count - IC_BASELINE), max(0, count - IC_BASELINE)


def _count_line(board: AwawBoard, name: str, label: str, per: int = 1, sign: int = -1) -> Line:
    value = board.pos.count(name)
    if value is None:
        return Line(label, None, "60.11", "", [(name, f"the position gives no {RUSSIA_COUNT_LABELS[name]}")])
    figure = sign * (value // per)
    return Line(label, figure, "60.11", f"{RUSSIA_COUNT_LABELS[name]}: {value}")


def resistance_lines(board: AwawBoard) -> list[Line]:
    pos = board.pos
    lines: list[Line] = []
    dp = pos.count("dp_level")
    lines.append(
        Line(
            "Russian DP level at the end of the current Allied player turn (may be negative)",
            dp,
            "60.11",
            f"DP level {dp}" if dp is not None else "",
            [] if dp is not None else [("dp_level", "the position gives no Russian DP level")],
        )
    )
    attacks = pos.count("atomic_attacks")
    lines.append(
        Line(
            "Atomic attacks against Russia (-3 the first, -2 the second, -1 each after)",
            None if attacks is None else atomic_figure(attacks),
            "60.11",
            "" if attacks is None else f"{attacks} attack(s)",
            []
            if attacks is not None
            else [("atomic_attacks", "the position gives no count of atomic attacks against Russia")],
        )
    )
    lines.append(_count_line(board, "cities_firestormed", "Russian cities firestormed (-1 each, cumulative)"))
    lines.append(_count_line(board, "oil_effects", "Oil effects currently applicable to Russia (-1 each)"))
    lines.append(_britain_line(board))
    lines.append(
        _count_line(
            board, "unbuilt_factors", "Unbuilt Russian ground/army air factors (-1 for every ten)", per=10
        )
    )
    lines.extend(_ic_lines(board))
    western = pos.western_at_war_with_germany
    lines.append(
        Line(
            "Western Allied major powers at war with Germany (+1 each)",
            None if western is None else len(western),
            "60.11",
            "" if western is None else (", ".join(western) or "none"),
            []
            if western is not None
            else [
                (
                    "western_at_war_with_germany",
                    "the position does not say which Western Allied major powers are at war with Germany",
                )
            ],
        )
    )
    lines.append(_france_line(board))
    return lines


def _britain_line(board: AwawBoard) -> Line:
    label = "Axis forces control at least one hex in Britain (Scapa Flow included, Ulster not) (-1)"
    britain = [h for h in board.hexes() if board.in_britain(h)]
    axis = [h for h in britain if board.side_of_hex(h) == "Axis"]
    excluded = [
        h for h in board.hexes() if board.pack.hexes[h].country == "Britain" and not board.in_britain(h)
    ]
    note = f"; not counted: {', '.join(board.label(h) for h in excluded)}" if excluded else ""
    if axis:
        return Line(label, -1, "60.11", "Axis control " + ", ".join(board.label(h) for h in axis) + note)
    unknown = board.unknown_control(britain)
    if unknown:
        return Line(
            label,
            None,
            "60.11",
            "",
            [("hex_control", f"the position does not say who controls {', '.join(unknown)} (Britain)")],
        )
    if not britain:
        return Line(label, None, "60.11", "", [("country_hexes", "the pack locates no hex of Britain")])
    return Line(label, 0, "60.11", f"no Axis-controlled hex among {len(britain)} hexes of Britain" + note)


def _ic_lines(board: AwawBoard) -> list[Line]:
    """60.11's two IC lines: from the IC markers where they decide the count, else from the count the
    players state (the game fact russian_ics), checked against what the markers do show."""
    ics = board.ic_hexes()
    unknown = board.unknown_control(ics)
    below = "ICs controlled by Russia below 7 (-1 each: 6 ICs -1, 5 ICs -2, 4 ICs -3 ...)"
    above = "ICs controlled by Russia above 7 (+1 each: 8 ICs +1, 9 ICs +2, 10 ICs +3 ...)"
    russian = [h for h in ics if board.controller(h) == "Russia"]
    undecided = len(unknown) + len(board.pos.unlocated_ics)
    stated = board.pos.count("ics")

    def counted(count: int, detail: str) -> list[Line]:
        low, high = ic_figures(count)
        return [Line(below, low, "60.11", detail), Line(above, high, "60.11", detail)]

    def unknown_lines(fact: str, text: str) -> list[Line]:
        return [Line(below, None, "60.11", "", [(fact, text)]), Line(above, None, "60.11", "", [])]

    if (undecided or not ics) and stated is not None:
        # Why a stated count must fit the markers: a count below the ICs Russia visibly holds, or above
        # every IC that could be Russian, contradicts the map (the answer is asked again, never used).
        high = len(russian) + undecided if ics or board.pos.unlocated_ics else None
        if stated < len(russian) or (high is not None and stated > high):
            return unknown_lines("russian_ics", f"the stated count of ICs controlled by Russia ({stated}) "
                                 f"contradicts the IC markers ({len(russian)} Russian, {undecided} "
                                 "undecided): give the count again")
        return counted(stated, f"{stated} IC(s) controlled by Russia, as the players state it (the game "
                               "fact russian_ics)")
    if board.pos.unlocated_ics:
        where = ", ".join(board.pos.unlocated_ics)
        return unknown_lines("russian_ics", f"IC markers stand where the pack locates no hex ({where}): who "
                             "controls them is unknown; the players can state how many ICs Russia controls")
    if not ics:
        return unknown_lines("ic_hexes", "the pack locates no IC")
    if unknown:
        return unknown_lines("hex_control", "the position does not say who controls the IC hex(es) "
                             f"{', '.join(unknown)}")
    unused = (f"; the stated count {stated} is not used: the markers show every IC"
              if stated is not None and stated != len(russian) else "")
    return counted(len(russian), f"{len(russian)} IC(s) controlled by Russia: "
                   + (", ".join(board.label(h) for h in russian) or "none") + unused)


def _france_line(board: AwawBoard) -> Line:
    label = "Western Allies control at least two hexes in European France (+1)"
    france = [h for h in board.hexes() if board.in_european_france(h)]
    western = [h for h in france if board.controller(h) in board.facts.western_allies]
    if len(western) >= 2:
        return Line(
            label, 1, "60.11", "Western Allied control of " + ", ".join(board.label(h) for h in western)
        )
    unknown = board.unknown_control(france)
    if len(western) + len(unknown) >= 2 and unknown:
        return Line(
            label,
            None,
            "60.11",
            "",
            [
                (
                    "hex_control",
                    f"the position does not say who controls {', '.join(unknown)} (European France)",
                )
            ],
        )
    if not france:
        return Line(label, None, "60.11", "", [("area_hexes", "the pack locates no hex of European France")])
    return Line(label, 0, "60.11", f"Western Allies control {len(western)} hex(es) of European France")


def total(lines: list[Line]) -> int | None:
    if any(line.figure is None for line in lines):
        return None
    return sum(line.figure or 0 for line in lines)


def table_json(lines: list[Line], note: str) -> dict[str, Any]:
    """The plan's `tables` entry (docs/plan-format.md): rows, total, threshold, note."""
    return {
        "title": "Russian Resistance Table",
        "rule": "60.11",
        "rows": [line.to_json() for line in lines],
        "total": total(lines),
        "threshold": THRESHOLD,
        "note": note,
    }
