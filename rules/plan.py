"""The Plan: what the phasing faction must do in its Conditional Events Segment, and why.

Why a separate value object: the CLI, the daemon and the overlay all show the same plan, so its JSON
form (`Plan.to_json`) is the wire contract, documented in docs/plan-format.md. Add fields; never rename.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rules.plan_tables import table_lines, unique_readings
from rules.records import record_json

PLAN_FORMAT_VERSION = 1

# Event statuses.
FIRED = "fired"  # conditions held; steps and choices follow
NOT_DUE = "not_due"  # conditions failed (or once-per-game event already used)
IGNORED = "ignored"  # the rule itself says to ignore the event in this position
WAITING = "waiting"  # needs an answer (its own choice, or an earlier choice that changes the position)
UNDECIDED = "undecided"  # a fact it needs is missing from the pack or position: never read as "not due"

# Exit statuses of `adjutant plan` / `adjutant check` (2 is bad input, raised as InputError).
EXIT_NOTHING_DUE = 0
EXIT_DUE = 1
EXIT_UNDECIDED = 3


@dataclass
class Step:
    """One thing to do at the table, citing its rule and Step."""

    rule: str
    step: str | None  # "Step 3", or None when the rule has no numbered steps
    action: str  # move | remove_from_game | set_aside | flip | breakdown | intern | eliminate | lose_steps
    #              | set_country | roll | note
    text: str
    counter: str | None = None
    to: str | None = None
    from_: str | None = None
    subject: str | None = None  # the country (or region) this step is about
    details: dict[str, Any] = field(default_factory=dict)
    faction: str | None = None  # whose counter it moves / country it changes: that player's view shows it

    def to_json(self) -> dict[str, Any]:
        data = record_json(self)  # = asdict(self), rules/records.py
        data["from"] = data.pop("from_")
        return data


@dataclass(frozen=True)
class Tally:
    """How a list answer adds up: `total` of `noun` (2 "step"); per option value its amount and the
    group of options it is one count of (the same unit into the same hex), with the group's name."""

    total: int
    noun: str
    amounts: dict[Any, tuple[str, str, int]]  # value -> (group key, group label, amount)

    def option(self, value: Any) -> dict[str, Any]:
        if value not in self.amounts:
            return {}
        group, label, amount = self.amounts[value]
        return {"group": group, "group_label": label, "amount": amount}


@dataclass
class Choice:
    """A decision a faction must make; answered by `id` in the answers file."""

    id: str
    rule: str
    decider: str
    prompt: str
    options: list[dict[str, Any]]  # each {"value": ..., "label": "..."}
    answer: Any = None
    answered: bool = False
    affects_position: bool = True  # when unanswered, later events are reported as waiting
    multiple: bool = False  # the answer is a list of option values (e.g. 16.5.4 redeployments)
    # A list answer whose options add up to an exact total (16.5.4: "exactly 2 steps"): the total and
    # what it counts; each option then has "amount", and options that are the same unit and place with
    # another amount share a "group" (shown as one count, never two toggles).
    total: int | None = None
    noun: str | None = None

    def label_of(self, value: Any) -> str:
        """An option value as players read it: its label ("Remove all of the Minor Country's units ...")."""
        for option in self.options:
            if option.get("value") == value:
                return str(option.get("label", value))
        return str(value)

    def answer_words(self) -> str:
        """The answer by its option label(s) (issue 12.17: "Answered: remove" showed the value)."""
        if isinstance(self.answer, list):
            return ", ".join(self.label_of(v) for v in self.answer) or "none"
        return self.label_of(self.answer)

    def to_json(self) -> dict[str, Any]:
        data = record_json(self)  # = asdict(self), rules/records.py
        data["answer_label"] = self.answer_words() if self.answered else None
        return data


@dataclass(frozen=True)
class MissingFact:
    """A fact an event needed and could not read: 'the pack locates no City hex of Poland'."""

    fact: str  # a rules.facts kind, or a position field
    subject: str | None  # the country or area it is about
    text: str  # player-facing, as the rules text names things
    name: str | None = None  # the subject as players name it (an area's name), when not the id itself

    def to_json(self) -> dict[str, Any]:
        return record_json(self)  # = asdict(self), rules/records.py


def _subject(missing: MissingFact) -> str:
    return f"{missing.name or missing.subject}: " if missing.subject else ""
@dataclass(frozen=True)
class ErratumNote:
    """A Step applied one reading of an erratum (or open wording) of the rules text: which, the others,
    and the pack option that switches it (rules.errata; recorded by `EventContext.erratum`)."""

    key: str  # the pack's errata/readings key, e.g. "irkutsk"
    kind: str  # "errata" (the text contradicts itself) | "readings" (the wording leaves it open)
    rule: str  # the event it was applied in
    step: str | None  # "Step 4", or None
    reading: str  # the reading used
    reading_text: str  # what that reading says, as the pack words it
    alternatives: tuple[tuple[str, str], ...]  # (reading, its text) for every other reading
    option: str  # how to switch: '[options] irkutsk = "<reading>"'
    conflict: str  # the pack's `text`: what the rules text says, both ways

    @property
    def text(self) -> str:
        """One player-facing line: 'Irkutsk is printed ...; used: ...; other readings: ...; switch: ...'."""
        where = f"{self.rule} {self.step}" if self.step else self.rule
        others = ", ".join(name for name, _ in self.alternatives) or "none"
        label = "erratum" if self.kind == "errata" else "reading"
        return (f"{label} {self.key} ({where}): {self.conflict} Used: {self.reading} — {self.reading_text}. "
                f"Other readings: {others}. Switch: {self.option} in the pack.")

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "kind": self.kind, "rule": self.rule, "step": self.step,
                "reading": self.reading, "reading_text": self.reading_text,
                "alternatives": [{"reading": r, "text": t} for r, t in self.alternatives],
                "option": self.option, "conflict": self.conflict, "text": self.text}


@dataclass
class EventEntry:
    """One event checked in rule order: its status, why, and the steps it asks for."""

    rule: str
    title: str
    source: str  # "permanent" or "card:<id>"
    status: str
    why: list[str] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    choices: list[Choice] = field(default_factory=list)
    waiting_for: list[str] = field(default_factory=list)  # choice ids
    missing: list[MissingFact] = field(default_factory=list)  # facts it could not read (undecided)
    # Why lines that do not decide the outcome (e.g. each country that did NOT trigger an event that fired):
    # kept for `--verbose` and the JSON `why_detail`, left out of the default text and overlay (issue 12.15).
    detail: list[str] = field(default_factory=list)
    factions: list[str] = field(default_factory=list)  # whose counters it moves / who must choose (views)

    @property
    def deciding_why(self) -> list[str]:
        hidden = set(self.detail)
        return [w for w in self.why if w not in hidden]
    errata: list[ErratumNote] = field(default_factory=list)  # readings of errata its Steps applied
    tables: list[dict[str, Any]] = field(default_factory=list)  # e.g. AWAW 60.11 (rules/plan_tables.py)

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "title": self.title,
            "source": self.source,
            "status": self.status,
            "why": self.deciding_why,
            "why_detail": [w for w in self.why if w in set(self.detail)],
            "factions": list(self.factions),
            "steps": [s.to_json() for s in self.steps],
            "choices": [c.to_json() for c in self.choices],
            "waiting_for": list(self.waiting_for),
            "missing": [m.to_json() for m in self.missing],
            "errata": [e.to_json() for e in self.errata],
        }


@dataclass
class Violation:
    """A War & Peace Segment action (6.1) the rules do not allow."""

    rule: str
    action_index: int
    text: str

    def to_json(self) -> dict[str, Any]:
        return record_json(self)  # = asdict(self), rules/records.py


def trusted_line(pack: str, trusted: list[str]) -> str:
    """The header line naming the facts a pack trusts rather than locates."""
    return (f"trusted, not located: pack {pack} takes what it locates of {', '.join(trusted)} as the whole "
            "fact (no [complete] entry names them)")


@dataclass
class Plan:
    """The engine's whole answer for one position: events in rule order, violations, the position after."""

    pack: str
    phasing: str
    turn: str
    events: list[EventEntry] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    resulting_position: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)  # about the position as a whole (e.g. `*` counters)
    pack_source: str = ""  # which pack folder was used, as players read it ("built-in", "./tk beside ...")
    # Facts missing for the position as a whole (e.g. most pieces of a save unmapped): no event can be
    # ruled out, so the plan is undecided even where every event says "not due".
    missing: list[MissingFact] = field(default_factory=list)
    # Map facts the pack trusts rather than locates (rules.facts.trusted_labels): a located value of one
    # is taken as the whole fact, so the header says so (issue 22).
    trusted: list[str] = field(default_factory=list)
    # A World at War: whose player turn and which point of it in rule 60's words (rules/awaw/position.py
    # `player_turn_words`); None in Axis Empires, whose plans name the phasing faction (6.2).
    player_turn: str | None = None

    @property
    def pending_choices(self) -> list[Choice]:
        return [c for e in self.events for c in e.choices if not c.answered]

    @property
    def due(self) -> bool:
        """True when the faction has something to do: an event fired or waits, or an action broke 6.1."""
        return bool(self.violations) or any(e.status in (FIRED, WAITING) for e in self.events)

    @property
    def undecided(self) -> bool:
        """True when some event could not be decided for lack of a fact (or a decided one lacked one)."""
        return bool(self.missing) or any(e.status == UNDECIDED or e.missing for e in self.events)

    @property
    def exit_status(self) -> int:
        """0 nothing due and nothing undecided, 1 due or violated, 3 nothing due but something undecided."""
        if self.due:
            return EXIT_DUE
        return EXIT_UNDECIDED if self.undecided else EXIT_NOTHING_DUE

    def to_json(self) -> dict[str, Any]:
        return {
            "format": "adjutant-plan",
            "version": PLAN_FORMAT_VERSION,
            "pack": self.pack,
            "pack_source": self.pack_source,
            "trusted": list(self.trusted),
            "phasing": self.phasing,
            "player_turn": self.player_turn,
            "turn": self.turn,
            "due": self.due,
            "undecided": self.undecided,
            "violations": [v.to_json() for v in self.violations],
            "events": [e.to_json() for e in self.events],
            "pending_choices": [c.id for c in self.pending_choices],
            "resulting_position": self.resulting_position,
            "notes": list(self.notes),
            "tables": [t for e in self.events for t in e.tables],
            "readings": unique_readings(self.events),
            "missing": [m.to_json() for m in self.missing],
        }

    def render_text(self, verbose: bool = False, closing: bool = True) -> str:
        """The plan as players read it; `verbose` adds the why lines that do not decide (`why_detail`)."""
        source = f": {self.pack_source}" if self.pack_source else ""
        whose = (f"Russian Surrender (60) — {self.player_turn}" if self.player_turn
                 else f"Conditional Events Segment (6.2) — {self.phasing} faction")
        lines = [f"{whose}, {self.turn or 'turn ?'} [pack {self.pack}{source}]"]
        if self.trusted:
            lines.append(trusted_line(self.pack, self.trusted))
        lines.extend(f"note: {note}" for note in self.notes)
        lines.extend(f"missing: {m.text}" for m in self.missing)
        if self.violations:
            war_peace = any(v.rule.startswith("6.") for v in self.violations)
            lines.append("War & Peace Segment (6.1) violations:" if war_peace
                         else "Rules broken by recorded actions:")
            lines.extend(f"  ! {v.rule}: action #{v.action_index + 1}: {v.text}" for v in self.violations)
        for entry in self.events:
            mark = {FIRED: "DUE", NOT_DUE: "not due", IGNORED: "ignored", WAITING: "WAITING",
                    UNDECIDED: "UNDECIDED"}[entry.status]
            lines.append(f"{entry.rule} {entry.title} [{entry.source}]: {mark}")
            hidden = set(entry.detail)
            lines.extend(f"    why: {reason}" for reason in entry.why if verbose or reason not in hidden)
            lines.extend(line for table in entry.tables for line in table_lines(table))
            lines.extend(f"    missing: {entry.rule} {_subject(m)}{m.text}" for m in entry.missing)
            lines.extend(f"    {note.text}" for note in entry.errata)
            for step in entry.steps:
                label = f"{step.rule} {step.step}" if step.step else step.rule
                lines.append(f"    - ({label}) {step.text}")
            for choice in entry.choices:
                options = ", ".join(str(o.get("label", o["value"])) for o in choice.options) or "none"
                state = f"answered: {choice.answer_words()}" if choice.answered else "UNANSWERED"
                lines.append(
                    f"    ? [{choice.id}] {choice.decider}: {choice.prompt} Options: {options}. ({state})"
                )
            if entry.waiting_for and entry.status == WAITING:
                lines.append(f"    waiting for: {', '.join(entry.waiting_for)}")
        undecided = [e.rule for e in self.events if e.status == UNDECIDED or e.missing]
        if not closing:
            pass  # a combined game closes once for both maps (rules/combined.py)
        elif not self.due and self.missing:
            also = f" (and undecided for lack of a fact: {', '.join(undecided)})" if undecided else ""
            lines.append("Nothing is decided: " + "; ".join(m.text for m in self.missing) + also + ".")
        elif not self.due and undecided:
            lines.append("Nothing is due that the pack can decide; undecided for lack of a fact: "
                         + ", ".join(undecided) + ".")
        elif not self.due:
            lines.append("Nothing is due.")
        return "\n".join(lines)
