"""A number shown by several markers at once: one marker per part, the number their boxes' values' sum.

Why: a printed digit track shows a count with one marker per digit (the A3R scenario card's BRP tracks: a
hundreds, a tens and a units row, one `RUS BRP` marker on each); no single piece gives the count, so each
marker's state write is one term (`[[vassal.state]] sum`), and the count is written once every piece is
read. Why all parts or nothing: a marker off its track, or two in one row, leaves a sum that is some other
number; the count is then left out (the rules ask it as a game fact) with a warning saying why, never
written from the terms that are there. Format: docs/vassal-mapping.md, "Sums".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SumTerm:
    """One marker's term of a sum: the part it stands for (its row), its value, the parts the sum needs."""

    part: str
    value: Any
    parts: tuple[str, ...]
    piece: str  # the marker's name, for the warning


def resolve_sums(terms: dict[str, list[SumTerm]]) -> tuple[dict[str, int], list[str]]:
    """(path -> the sum, for each path whose terms give every part exactly once; warnings for the rest)."""
    sums: dict[str, int] = {}
    warnings: list[str] = []
    for path, found in terms.items():
        problem = _problem(found)
        if problem is None:
            sums[path] = sum(term.value for term in found)
        else:
            warnings.append(f"{path} is not read from the map ({problem}): it is left unknown")
    return sums, warnings


def _problem(terms: Iterable[SumTerm]) -> str | None:
    terms = list(terms)
    parts = terms[0].parts
    names = ", ".join(sorted({t.piece for t in terms}))
    bad = [t for t in terms if not isinstance(t.value, int) or isinstance(t.value, bool)]
    if bad:
        return f"{names}: {bad[0].value!r} is not a whole number"
    stray = sorted({t.part for t in terms} - set(parts))
    if stray:
        return f"{names} in {', '.join(stray)}, which is none of {', '.join(parts)}"
    counted = {part: sum(1 for t in terms if t.part == part) for part in parts}
    lacking = [part for part, n in counted.items() if n == 0]
    doubled = [part for part, n in counted.items() if n > 1]
    said = []
    if lacking:
        said.append(f"no {names} marker in {', '.join(lacking)}")
    if doubled:
        said.append(f"more than one in {', '.join(doubled)}")
    return "; ".join(said) or None


def collect(terms: dict[str, list[SumTerm]], path: str, term: SumTerm) -> None:
    terms.setdefault(path, []).append(term)


def term_parts(raw: Any) -> tuple[str, ...] | None:
    """A sum's `parts` as given, or None when it is not a list of distinct, non-empty texts."""
    if (not isinstance(raw, list) or not raw or not all(isinstance(p, str) and p for p in raw)
            or len(set(raw)) != len(raw)):
        return None
    return tuple(raw)
