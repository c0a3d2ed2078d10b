"""Three-valued conditions over incomplete packs: true, false, or unknown for lack of named facts.

Why: a pack made from the rules text locates only part of the map, so a condition such as "Axis ground
units occupy all City hexes of France" is often neither provably true nor provably false -- but often it
is: one located City of France that the Axis does not hold makes it false whatever else the pack lacks.
An event is `undecided` only where some completion of the missing facts could change its outcome, and
its `missing` names only those facts (docs/plan-format.md "undecided"). So a value read from the pack is
a `Located` set -- the members the pack establishes plus the gaps (missing facts) that could add more --
and a condition over it is a `Verdict` that carries, when unknown, exactly the gaps it depends on. The
usual rules of Kleene's logic apply: a conjunction with a known false is false, a disjunction with a known
true is true, a quantifier over a set with unknown members is unknown only if the known ones do not
already settle it. Events record the gaps of a verdict only when they act on it unknown
(`EventContext.undecided`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from rules.plan import MissingFact

Gaps = tuple[MissingFact, ...]


def merge_gaps(*groups: Iterable[MissingFact]) -> Gaps:
    """The gaps of several operands, each named once, in the order first met."""
    out: list[MissingFact] = []
    for group in groups:
        for gap in group:
            if gap not in out:
                out.append(gap)
    return tuple(out)


@dataclass(frozen=True)
class Verdict:
    """A condition's value: True, False, or None (unknown) with the missing facts that leave it open.

    Why no `__bool__`: an unknown verdict used as `if verdict:` would silently read as false -- the very
    "unknown is not due" the type exists to prevent; callers test `.true` / `.false` / `.unknown`."""

    value: bool | None
    gaps: Gaps = ()

    def __bool__(self) -> bool:
        raise TypeError("a Verdict has three values: test .true, .false or .unknown")

    @property
    def true(self) -> bool:
        return self.value is True

    @property
    def false(self) -> bool:
        return self.value is False

    @property
    def unknown(self) -> bool:
        return self.value is None

    def __invert__(self) -> Verdict:
        return self if self.value is None else Verdict(not self.value)


TRUE = Verdict(True)
FALSE = Verdict(False)

Truth = bool | Verdict


def as_verdict(value: Truth) -> Verdict:
    if isinstance(value, Verdict):
        return value
    return TRUE if value else FALSE


def unknown(*gaps: MissingFact) -> Verdict:
    return Verdict(None, merge_gaps(gaps))


def all_of(values: Iterable[Truth]) -> Verdict:
    """Kleene AND: one known false decides (false, no gaps); else unknown with the open operands' gaps."""
    open_gaps: list[Gaps] = []
    for value in values:
        verdict = as_verdict(value)
        if verdict.false:
            return FALSE
        if verdict.unknown:
            open_gaps.append(verdict.gaps)
    return Verdict(None, merge_gaps(*open_gaps)) if open_gaps else TRUE


def any_of(values: Iterable[Truth]) -> Verdict:
    """Kleene OR: one known true decides (true, no gaps); else unknown with the open operands' gaps."""
    open_gaps: list[Gaps] = []
    for value in values:
        verdict = as_verdict(value)
        if verdict.true:
            return TRUE
        if verdict.unknown:
            open_gaps.append(verdict.gaps)
    return Verdict(None, merge_gaps(*open_gaps)) if open_gaps else FALSE


@dataclass(frozen=True)
class Located:
    """A set fact as far as the pack establishes it: `items` are certain members; `gaps` are the
    missing facts that could add members (empty: the set is whole)."""

    items: tuple[str, ...]
    gaps: Gaps = ()
    # Members the gaps may add or not, when they can add no other: a City of a country whose ceded area
    # the pack locates only in part is the country's or the area's (`closed`: no member beyond these).
    possible: tuple[str, ...] = ()
    closed: bool = False

    @property
    def complete(self) -> bool:
        return not self.gaps

    def holds(self, test: Callable[[tuple[str, ...]], bool], cap: int = 10) -> Verdict:
        """A condition on the whole set, decided exactly where the members are known to lie within
        `items` + `possible` (every choice of the possible ones is tried, up to `cap` of them): known
        where all choices agree. An open set decides only through `every` / `some`."""
        if self.complete:
            return as_verdict(test(self.items))
        if not self.closed or len(self.possible) > cap:
            return Verdict(None, self.gaps)
        seen: set[bool] = set()
        for mask in range(2 ** len(self.possible)):
            chosen = tuple(p for i, p in enumerate(self.possible) if mask >> i & 1)
            seen.add(bool(test((*self.items, *chosen))))
            if len(seen) == 2:
                return Verdict(None, self.gaps)
        return as_verdict(seen.pop())

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def every(self, pred: Callable[[str], Truth]) -> Verdict:
        """"All members hold": a known member that fails decides it false, whatever the gaps hide; the
        set's gaps leave it open only when every known member holds."""
        verdict = all_of(pred(item) for item in self.items)
        if verdict.false or self.complete:
            return verdict
        return Verdict(None, merge_gaps(verdict.gaps, self.gaps))

    def some(self, pred: Callable[[str], Truth]) -> Verdict:
        """"Some member holds": a known member that holds decides it true; else the gaps leave it open."""
        verdict = any_of(pred(item) for item in self.items)
        if verdict.true or self.complete:
            return verdict
        return Verdict(None, merge_gaps(verdict.gaps, self.gaps))

    def some_exactly(self, pred: Callable[[str], bool]) -> Verdict:
        """`some`, and where that leaves it open on a closed set, every choice of the possible members."""
        verdict = self.some(pred)
        return self.holds(lambda items: any(pred(i) for i in items)) if verdict.unknown else verdict

    def is_empty(self) -> Verdict:
        """"It has no member": false once one is known; true only when the set is whole."""
        if self.items:
            return FALSE
        return TRUE if self.complete else Verdict(None, self.gaps)

    def union(self, other: Located | Iterable[str]) -> Located:
        if isinstance(other, Located):
            items = {*self.items, *other.items}
            return Located(tuple(sorted(items)), merge_gaps(self.gaps, other.gaps),
                           tuple(sorted({*self.possible, *other.possible} - items)),
                           (self.closed or self.complete) and (other.closed or other.complete))
        items = {*self.items, *other}
        return Located(tuple(sorted(items)), self.gaps, tuple(sorted(set(self.possible) - items)),
                       self.closed)


__all__ = ["FALSE", "TRUE", "Located", "Verdict", "all_of", "any_of", "as_verdict", "merge_gaps", "unknown"]
