"""The Conditional Events Segment (6.2): check events in rule order against a working position.

Why over 500 lines: the segment is one loop: the event context (`EventContext`: needs, answers, moves), the
position checks run before it and the event order (6.2 Steps 1-2) are what `plan` does in turn, and every
event module is written against that one context.

Why a registry of implementations named by the pack: the pack says WHICH events a faction checks and
in what order (6.2 Step 1: its Permanent Conditional Events as listed; Step 2: its Current Card), and
WHICH implementation runs each rule with which parameters. An event shared by two editions
(conquest, liberation, reactivation, internment) is therefore written once, and the editions differ
only in pack data. See docs/engine-api.md.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Mapping
from typing import Any

from rules.board import Board
from rules.errata import entry_of, option_text, reading_of
from rules.facts import FACT_KINDS, subject_name, trusted_labels
from rules.facts import check as check_fact
from rules.packs import EventSpec, Pack, adjective, hex_label, pack_source
from rules.plan import (
    FIRED,
    IGNORED,
    NOT_DUE,
    UNDECIDED,
    WAITING,
    Choice,
    ErratumNote,
    EventEntry,
    MissingFact,
    Plan,
    Step,
    Tally,
    Violation,
)
from rules.state import (
    BOX_KINDS,
    DELAY,
    FACTIONS,
    REMOVED,
    SET_ASIDE,
    Counter,
    GameState,
    box_label,
    force_pool,
    is_box,
)
from rules.tri import Located, Verdict
from vassal_parser.errors import InputError

EventFn = Callable[["EventContext"], None]
REGISTRY: dict[str, EventFn] = {}


def event_impl(name: str) -> Callable[[EventFn], EventFn]:
    """Register an event implementation under the name packs use in `impl = "..."`."""

    def decorate(fn: EventFn) -> EventFn:
        if name in REGISTRY and REGISTRY[name] is not fn:
            raise ValueError(f"event implementation {name!r} registered twice")
        REGISTRY[name] = fn
        return fn

    return decorate


@functools.cache
def load_event_modules(impls: frozenset[str] | None = None) -> None:
    """Import the modules under rules.events that register `impls` (None: every module, Dai Senso!
    events in rules/events/ds/ too) so they register.

    Once per process and set (a walk that raised is tried again): the walk lists the package's
    folders on disk, and every plan asks (a daemon plans each save); a module imported stays
    registered. Why by implementation: importing every edition's events was a third of a small
    check's start-up (issue 27); `rules.events.IMPL_MODULES` names each one's module, and an
    implementation it does not list takes the full walk (so an unknown one is still reported)."""
    import rules.events as package

    if impls is not None:
        modules = [package.IMPL_MODULES.get(name) for name in sorted(impls)]
        modules += [extra for name in sorted(impls) for extra in package.EXTRA_MODULES.get(name, ())]
        if None not in modules:
            for module in dict.fromkeys(modules):
                importlib.import_module(f"rules.events.{module}")
            return
    import pkgutil  # only for a pack that does not name its events' modules (a small check never does)

    for info in pkgutil.walk_packages(package.__path__, prefix="rules.events."):
        importlib.import_module(info.name)


def _values_of_labels(answer: Any, options: list[Any], labels: dict[Any, str]) -> Any:
    """An answer given by an option's label ("no Influence", as the pages show it) as that option's value
    ("none"); a value, or a label two options share, is left as it is (and validated as given)."""
    if isinstance(answer, list):
        return [_values_of_labels(item, options, labels) for item in answer]
    if not isinstance(answer, str) or answer in options:
        return answer
    wanted = answer.strip().casefold()
    matches = [o for o in options if labels.get(o, str(o)).strip().casefold() == wanted]
    return matches[0] if len(matches) == 1 else answer


class WaitingForAnswer(Exception):
    """Raised by `EventContext.choose` when no answer is supplied; the engine marks the event waiting."""

    def __init__(self, choice: Choice) -> None:
        super().__init__(choice.id)
        self.choice = choice


class EventContext:
    """What an event implementation sees and how it reports: state accessors, steps, choices, why."""

    def __init__(
        self,
        state: GameState,
        pack: Pack,
        spec: EventSpec,
        entry: EventEntry,
        answers: dict[str, Any],
        answers_source: str,
    ) -> None:
        self.state = state
        self.pack = pack
        self.spec = spec
        self.entry = entry
        self.answers = answers
        self.answers_source = answers_source
        self.rule = spec.rule
        self.params = spec.params
        self.phasing = state.turn.phasing
        self._status: str | None = None
        self._deferred: list[Choice] = []
        self._not_due_lines: list[str] = []
        self.violations: list[Violation] = []  # rules an action broke, found by the event (AWAW 60.8)

    # ---- views -------------------------------------------------------------------------------
    @property
    def board(self) -> Board:
        return Board(self.state, self.pack)

    def param(self, name: str, default: Any = None) -> Any:
        return self.params.get(name, default)

    def require_param(self, name: str) -> Any:
        """A game fact the event cannot run without (a country, tag or card the pack must name).

        Why not a default: a default in code is a game fact in code; a pack that forgets the parameter
        must fail with one line naming the pack, the rule and the parameter, not act on another edition's
        fact."""
        if name not in self.params:
            raise InputError(
                self.pack.path,
                f"pack {self.pack.name}: event {self.rule} ({self.spec.impl}) needs parameter {name!r} "
                "in events.toml",
            )
        return self.params[name]

    def need(self, fact: str, subject: str) -> Any:
        """A map fact the event reads (rules.facts): its value, or None after recording it as missing.

        Why record instead of raise: an event checks many countries; the ones whose facts the pack has are
        still decided, the others make the event `undecided`, naming the fact — never `not due`. Only a fact
        the event declared in its pack `needs` may be asked for, so `adjutant pack check` counts truly."""
        value, gap = self._read(fact, subject)
        if gap is not None:
            self.undecided(gap)
            return None
        return value

    def _read(self, fact: str, subject: str) -> tuple[Any, MissingFact | None]:
        if fact not in FACT_KINDS:
            raise ValueError(f"{self.rule}: unknown fact kind {fact!r}")
        if all(n.fact != fact for n in self.spec.needs):
            raise ValueError(f"{self.rule}: reads fact {fact!r} without declaring it in the pack's needs")
        value, lacking = check_fact(self.pack, fact, subject)
        if lacking is None:
            return value, None
        shown = subject_name(self.pack, FACT_KINDS[fact], subject)
        return value, MissingFact(fact, subject, lacking, shown if shown != subject else None)

    def located(self, fact: str, subject: str) -> Located:
        """A set fact (hexes, countries) as far as the pack establishes it, recording nothing.

        Why not `need`: "all Cities of France are occupied" is already false when one located City is
        free, whatever the pack lacks; the gap rides on the value (rules.tri) and reaches `missing` only
        through `undecided`, when a condition over it is left open."""
        value, gap = self._read(fact, subject)
        items = (value,) if isinstance(value, str) else tuple(value or ())
        return Located(items, () if gap is None else (gap,))

    def undecided(self, *why: Verdict | Located | MissingFact) -> None:
        """The event (or one subject of it) acts on a condition left open: name the facts it depends on."""
        for item in why:
            for gap in (item,) if isinstance(item, MissingFact) else item.gaps:
                if gap not in self.entry.missing:
                    self.entry.missing.append(gap)

    def erratum(self, key: str, step: str | None = None) -> str:
        """The reading the pack uses for erratum (or open wording) `key`, recorded on this event.

        Why record at the point of use: a Step that applies one reading of a contradiction in the rules
        text must say so in the plan (text, JSON, overlay) -- which reading, the alternatives and the
        pack option that switches it -- never silently (rules.errata, docs/plan-format.md "errata").
        Recorded once per (key, step)."""
        kind, table = entry_of(self.pack, key)
        used = reading_of(self.pack, key)
        readings = {str(k): str(v) for k, v in table.get("readings", {}).items()}
        note = ErratumNote(
            key=key, kind=kind, rule=self.rule, step=step, reading=used, reading_text=readings.get(used, ""),
            alternatives=tuple((k, v) for k, v in readings.items() if k != used),
            option=option_text(key), conflict=str(table.get("text", "")).strip(),
        )
        if all((n.key, n.step) != (key, step) for n in self.entry.errata):
            self.entry.errata.append(note)
        return used

    def declares(self, fact: str) -> bool:
        """Does the event's pack table declare this fact in its `needs`?"""
        return any(n.fact == fact for n in self.spec.needs)

    def fact(self, fact: str, subject: str) -> Any:
        """A map fact a shared implementation reads: `need` when the event declares it (the pack says it
        reads it: missing or partial -> recorded), else the pack's value -- an empty one still recorded as
        missing, so "do not occupy none" is never read as a fact (issue 9). Returns None when missing."""
        if self.declares(fact):
            return self.need(fact, subject)
        value, lacking = check_fact(self.pack, fact, subject)
        if not value:
            self.missing(fact, subject, lacking or FACT_KINDS[fact].missing_text(subject))
            return None
        return value

    def missing(self, fact: str, subject: str | None, text: str, name: str | None = None) -> None:
        """Record a fact the event cannot read (from the pack, or a field the position leaves out)."""
        record = MissingFact(fact, subject, text, name)
        if record not in self.entry.missing:
            self.entry.missing.append(record)

    def name(self, counter_id: str) -> str:
        counter = self.state.counters.get(counter_id)
        return f"{counter.name} ({counter_id})" if counter and counter.name != counter_id else counter_id

    def adjective(self, country: str) -> str:
        """'German' for Germany (pack data): "German ground units", never "Germany ground units"."""
        return adjective(self.pack, country)

    def place(self, location: str) -> str:
        """A location as players say it: 'Paris (w3516)', 'Western Force Pool', 'Holding Box of Med HQ'."""
        if location.startswith("holding:"):
            return f"Holding Box of {self.name(location.partition(':')[2])}"
        label = box_label(location)
        return label if label is not None else hex_label(self.pack, location)

    # ---- outcome -----------------------------------------------------------------------------
    def fire(self, why: str) -> None:
        """The event's conditions hold: it must be implemented (6.2 Important)."""
        self._status = FIRED
        self.entry.why.append(why)

    def not_due(self, why: str) -> None:
        """A reason the event (or one of its subjects) is not due; once the event fires, such lines are
        detail (shown with --verbose / `why_detail`): the fired subject is what decides."""
        if self._status is None:
            self._status = NOT_DUE
        self.entry.why.append(why)
        self._not_due_lines.append(why)

    def ignore(self, why: str) -> None:
        self._status = IGNORED
        self.entry.why.append(why)

    def why(self, text: str, detail: bool = False) -> None:
        """A reason line; `detail` marks one that does not decide (a candidate that does not qualify)."""
        self.entry.why.append(text)
        if detail:
            self.entry.detail.append(text)

    def finish_why(self) -> None:
        """After the event ran: when it fired, the not-due lines of the other subjects are detail; when it
        did not, why each candidate fails is what decides, so nothing is detail."""
        if self._status == FIRED:
            self.entry.detail.extend(w for w in self._not_due_lines if w not in self.entry.detail)
        else:
            self.entry.detail.clear()

    def violation(self, rule: str, action_index: int, text: str) -> None:
        """An action the position records broke `rule` (listed with the plan's 6.1 violations)."""
        self.violations.append(Violation(rule, action_index, text))

    @property
    def fired(self) -> bool:
        return self._status == FIRED

    # ---- steps (each also applied to the working position) ----------------------------------
    def record(
        self,
        step: str | None,
        action: str,
        text: str,
        counter: Counter | None = None,
        to: str | None = None,
        subject: str | None = None,
        rule: str | None = None,
        **details: Any,
    ) -> Step:
        """Low-level: add a step of any action kind without touching the position.

        Why public: events whose step is neither a move nor a flip (dice, markers) record it here;
        the helpers below record through it too, so every step gets the same fields."""
        if counter is not None:
            owner = self.board.faction_of(counter)
        else:
            owner = self.board.country_state(subject).faction if subject in self.pack.countries else None
        record = Step(
            rule=rule or self.rule,
            step=step,
            action=action,
            text=text,
            counter=counter.id if counter else None,
            to=to,
            from_=counter.location if counter else None,
            subject=subject,
            details=details,
            faction=owner if owner in FACTIONS else None,
        )
        self.entry.steps.append(record)
        return record

    def move(
        self,
        counter: Counter,
        to: str,
        step: str | None,
        subject: str | None = None,
        why: str = "",
        rule: str | None = None,
    ) -> None:
        self._check_location(to)
        text = (f"move {self.name(counter.id)} from {self.place(counter.location)} to {self.place(to)}"
                + (f" ({why})" if why else ""))
        self._relocate(counter, to, step, "move", text, subject, rule)

    def _relocate(self, counter: Counter, to: str, step: str | None, action: str, text: str,
                  subject: str | None, rule: str | None) -> None:
        """Record the step while the counter is still where it was (its `from`), then move it."""
        self.record(step, action, text, counter, to, subject, rule)
        counter.location = to

    def remove_from_game(
        self, counter: Counter, step: str | None, subject: str | None = None, rule: str | None = None
    ) -> None:
        text = f"remove {self.name(counter.id)} from the game (was in {self.place(counter.location)})"
        self._relocate(counter, REMOVED, step, "remove_from_game", text, subject, rule)

    def set_aside(
        self, counter: Counter, step: str | None, subject: str | None = None, rule: str | None = None
    ) -> None:
        text = f"set aside {self.name(counter.id)} (was in {self.place(counter.location)})"
        self._relocate(counter, SET_ASIDE, step, "set_aside", text, subject, rule)

    def eliminate(
        self, counter: Counter, step: str | None, subject: str | None = None, rule: str | None = None
    ) -> None:
        """Eliminated units go to the Delay Box with a Delay Stripe, else to their Force Pool."""
        faction = self.board.faction_of(counter)
        to = DELAY if counter.delay_stripe or faction is None else force_pool(faction)
        text = (f"eliminate {self.name(counter.id)} in {self.place(counter.location)}: "
                f"place it in {self.place(to)}")
        self._relocate(counter, to, step, "eliminate", text, subject, rule)

    def return_to_pool(
        self,
        counter: Counter,
        faction: str,
        step: str | None,
        subject: str | None = None,
        rule: str | None = None,
    ) -> None:
        """Units with a Delay Stripe go to the Delay Box; all others to the faction's Force Pool."""
        to = DELAY if counter.delay_stripe else force_pool(faction)
        why = "Delay Stripe" if counter.delay_stripe else "no Delay Stripe"
        self.move(counter, to, step, subject, why, rule)

    def flip(
        self,
        counter: Counter,
        step: str | None,
        text: str,
        subject: str | None = None,
        rule: str | None = None,
    ) -> None:
        self.record(
            step, "flip", f"flip {self.name(counter.id)}: {text}", counter, counter.location, subject, rule
        )
        counter.flipped = not counter.flipped

    def set_country(
        self, country: str, step: str | None, text: str, rule: str | None = None, **fields: Any
    ) -> None:
        self.record(step, "set_country", f"{country}: {text}", None, None, country, rule, **fields)
        dynamic = self.state.ensure_country(country)
        for key, value in fields.items():
            setattr(dynamic, key, value)

    def note(
        self, text: str, step: str | None = None, subject: str | None = None, rule: str | None = None
    ) -> None:
        self.record(step, "note", text, None, None, subject, rule)

    def roll(
        self, table: str, step: str | None, text: str, subject: str | None = None, rule: str | None = None
    ) -> None:
        self.record(step, "roll", text, None, None, subject, rule, table=table)

    # ---- choices -----------------------------------------------------------------------------
    def settle(self) -> None:
        """Wait (raise WaitingForAnswer) if any deferred choice is still unanswered."""
        if self._deferred:
            raise WaitingForAnswer(self._deferred[0])

    def choose(
        self,
        key: str,
        decider: str,
        prompt: str,
        options: list[Any],
        labels: dict[Any, str] | None = None,
        affects_position: bool = True,
        multiple: bool = False,
        defer: bool = False,
        tally: Tally | None = None,
    ) -> Any:
        """Ask `decider`; return the supplied answer, or raise WaitingForAnswer (engine marks waiting).

        The choice id is ``"<rule>:<key>"`` — stable, so an answers file keeps working as play goes on.
        Values are validated against the enumerated legal options; `multiple` answers are lists.
        With `defer`, an unanswered choice returns None so the event can list its other choices first
        (one per country, say); the event then calls `settle()`, which waits on all of them.
        A `tally` (a list answer that must add up to a total) lets a page build the list by counts.
        """
        choice_id = f"{self.rule}:{key}"
        labels = labels or {}
        choice = Choice(
            id=choice_id,
            rule=self.rule,
            decider=decider,
            prompt=prompt,
            options=[{"value": o, "label": labels.get(o, str(o)), **(tally.option(o) if tally else {})}
                     for o in options],
            affects_position=affects_position,
            multiple=multiple,
            total=tally.total if tally else None,
            noun=tally.noun if tally else None,
        )
        self.entry.choices.append(choice)
        if choice_id not in self.answers:
            if not affects_position:
                # The position the engine models does not depend on it: keep going, list it as pending.
                self.entry.waiting_for.append(choice_id)
                return None
            if defer:
                self._deferred.append(choice)
                return None
            raise WaitingForAnswer(choice)
        answer = _values_of_labels(self.answers[choice_id], options, labels)
        given = answer if multiple and isinstance(answer, list) else [answer]
        if multiple and not isinstance(answer, list):
            raise InputError(self.answers_source, f"answer to {choice_id} must be a list")
        for value in given:
            if value not in options:
                legal = ", ".join(map(str, options)) or "none"
                raise InputError(
                    self.answers_source, f"answer {value!r} to {choice_id} is not a legal option ({legal})"
                )
        if multiple and len(set(map(str, given))) != len(given):
            raise InputError(self.answers_source, f"answer to {choice_id} repeats an option")
        choice.answer = answer
        choice.answered = True
        return answer

    def _check_location(self, location: str) -> None:
        if location in self.pack.hexes:
            return
        kind, _, qualifier = location.partition(":")
        if kind not in BOX_KINDS:
            raise ValueError(f"{self.rule}: unknown destination {location!r}")
        if BOX_KINDS[kind] == "faction" and qualifier not in FACTIONS:
            raise ValueError(f"{self.rule}: unknown destination {location!r}")


def validate_position(state: GameState, pack: Pack) -> None:
    """Every location, country and area the position names must exist in the pack (one-line errors)."""
    src = state.source
    for counter in state.counters.values():
        location = counter.location
        if not is_box(location):
            if location not in pack.hexes:
                raise InputError(src, f"counter {counter.id!r} is in unknown hex or box {location!r}")
            continue
        kind, _, qualifier = location.partition(":")
        need = BOX_KINDS[kind]
        if need is None and qualifier:
            raise InputError(src, f"counter {counter.id!r}: box {kind!r} takes no qualifier ({location!r})")
        if need == "faction" and qualifier not in FACTIONS:
            raise InputError(
                src, f"counter {counter.id!r}: unknown box {location!r} (expected {kind}:Axis|Western|Soviet)"
            )
        if need == "country" and qualifier not in pack.countries:
            raise InputError(src, f"counter {counter.id!r}: posture box of unknown country {qualifier!r}")
        if need == "counter" and qualifier not in state.counters:
            raise InputError(src, f"counter {counter.id!r}: holding box of unknown counter {qualifier!r}")
        if need == "any" and not qualifier:
            raise InputError(src, f"counter {counter.id!r}: box {kind!r} needs a qualifier")
    for counter in state.counters.values():
        if counter.nationality is not None and counter.nationality not in pack.countries:
            raise InputError(src, f"counter {counter.id!r}: unknown nationality {counter.nationality!r}")
        if counter.area is not None and counter.area not in pack.areas:
            raise InputError(src, f"counter {counter.id!r}: unknown area {counter.area!r}")
    for name in state.countries:
        if name not in pack.countries:
            raise InputError(src, f"unknown country {name!r} (not in pack {pack.name})")
    validate_country_model(state, pack)
    shared = pack.extra.get("posture_boxes", {})
    for box in state.posture_boxes:
        if box not in shared:
            known = ", ".join(shared) or "none"
            raise InputError(src, f"posture_boxes: {box!r} is no shared Posture Box of pack {pack.name} "
                                  f"(known: {known})")
    board = Board(state, pack)
    for name, cstate in state.countries.items():
        box = board.shared_posture_box(name) if cstate.markers else None
        if box is not None:
            raise InputError(src, f"country {name!r}: its Policy/Truce markers are in the {box} Posture Box; "
                                  f"list them under posture_boxes.{box!r}, not under the country")
    for faction, card in state.turn.current_cards.items():
        if faction not in FACTIONS:
            raise InputError(src, f"turn.current_cards: unknown faction {faction!r}")
        resolve_card(pack, faction, card, src)


def resolve_card(pack: Pack, faction: str, card: str, source: str) -> str:
    """The pack's id for a faction's Current Card as the text writes it ("card 29" -> `29W` for Western).

    Why: the rules text writes bare numbers, and DS prints two card 29s (errata card_29: the Western and
    Soviet decks); a bare number is accepted where exactly one card of that faction carries it, else the
    one-line error names the ids that exist (issue 12 item 12)."""
    if card in pack.cards and pack.cards[card].faction == faction:
        return card
    bare = card.strip()
    if bare.lower().startswith("card "):
        bare = bare[5:].strip()
    numbered = sorted(cid for cid in pack.cards if cid == bare or
                      (cid.startswith(bare) and bare and cid[len(bare):].isalpha()))
    mine = [cid for cid in numbered if pack.cards[cid].faction == faction]
    if len(mine) == 1:
        return mine[0]
    if numbered:
        listed = ", ".join(f"{cid} ({pack.cards[cid].faction}: {pack.cards[cid].title})" for cid in numbered)
        raise InputError(source, f"turn.current_cards: {faction} card {card!r} is not one card of pack "
                                 f"{pack.name}; the cards numbered {bare} are {listed}")
    raise InputError(source, f"turn.current_cards: {faction} card {card!r} is not in pack {pack.name}")


def validate_country_model(state: GameState, pack: Pack) -> None:
    """Refuse positions that contradict the position model (docs/position-format.md "countries"):

    * posture and Policy markers: a Policy marker (pack `[pack] policy_markers`, TK: Ostland Accord) stands in
      a Posture Box instead of a Posture of War -- 16.5.5 "remove the Ostland Accord marker ... and change
      Russia's Posture to War" -- so `posture: "War"` beside one is a contradiction. Truce markers (6.1.2)
      are not Policy markers and do not contradict War.
    * annexed countries: `annexed_to` names another pack country (no loop); an annexed country is part of
      that country (16.7 Reich Annex example), so it cannot also be an `active` Minor Country."""
    src = state.source
    policy = set(pack.meta.get("policy_markers", ()))
    for name, country in state.countries.items():
        standing = sorted(policy & set(country.markers))
        if standing and country.posture == "War":
            raise InputError(src, f"country {name!r}: posture War contradicts the {', '.join(standing)} "
                                  "Policy marker in its Posture Box (a Policy marker stands instead of a "
                                  "Posture of War: TK 16.5.5, DS 16.3.8/16.5.5)")
        target = country.annexed_to
        if target is None:
            continue
        if target not in pack.countries or target == name:
            raise InputError(src, f"country {name!r}: annexed_to {target!r} must name another country of "
                                  f"pack {pack.name}")
        seen = {name}
        while target is not None:
            if target in seen:
                raise InputError(src, f"country {name!r}: annexed_to loops back to {target!r}")
            seen.add(target)
            listed = state.countries.get(target)
            target = listed.annexed_to if listed is not None else None
        if country.status == "active":
            raise InputError(src, f"country {name!r} is annexed to {country.annexed_to}: it counts as part "
                                  f"of {country.annexed_to} (16.7), not as an active Minor Country -- "
                                  "give its status as conquered or neutral, or leave annexed_to out")


def _events_in_order(state: GameState, pack: Pack) -> list[tuple[str, str]]:
    """6.2 Step 1 then Step 2: (rule, source) pairs for the phasing faction."""
    phasing = state.turn.phasing
    ordered = [(rule, "permanent") for rule in pack.order.get(phasing, ())]
    card_id = state.turn.current_cards.get(phasing)
    if card_id is not None:
        ordered.extend((rule, f"card:{card_id}") for rule in pack.cards[card_id].events)
    return ordered


def _factions_of(entry: EventEntry) -> list[str]:
    """Factions a player view must show this event to (19): whose counters or countries its steps change,
    and who decides one of its choices."""
    found = {s.faction for s in entry.steps if s.faction} | {c.decider for c in entry.choices}
    return sorted(f for f in found if f in FACTIONS)


def plan(
    state: GameState, pack: Pack, answers: dict[str, Any] | None = None, answers_source: str = "<answers>",
    in_place: bool = False,
) -> Plan:
    """Check the phasing faction's events in 6.2 order, applying each fired event before the next.

    The events work on a clone of `state`, so the caller's state is never changed; with `in_place`
    (a caller that made the state only for this plan, e.g. `bridge.pipeline` from the mapping's
    position) they work on `state` itself, which saves the clone (about 1 M instructions of the
    demo's first save) and gives the same plan."""
    from rules.war_peace import validate_actions

    load_event_modules(frozenset(spec.impl for spec in pack.events.values()))
    validate_position(state, pack)
    answers = dict(answers or {})
    work = state if in_place else state.clone()
    # "card 29" as the text writes it: the faction's one card with that number (issue 12 item 12).
    work.turn.current_cards = {f: resolve_card(pack, f, c, state.source)
                               for f, c in work.turn.current_cards.items()}
    for name, info in pack.countries.items():
        if info.kind == "major" and not info.faction and name not in work.countries:
            # Neither the position nor the pack says whose it is: its units would belong to no faction.
            raise InputError(state.source, f"the position does not list the Major Power {name} and pack "
                                           f"{pack.name} gives it no faction: add it under countries")
        # A Major Power the position does not mention keeps its pack alignment (never "Neutral" by omission).
        if info.faction and name not in work.countries:
            work.ensure_country(name).faction = info.faction
            work.countries[name].status = "active"
    result = Plan(pack=pack.name, phasing=work.turn.phasing, turn=work.turn.date,
                  pack_source=pack_source(pack), trusted=trusted_labels(pack))
    if work.awaw is not None:  # A World at War: the game's own words for the turn and the whole date
        result.player_turn = work.awaw.player_turn_words()
        result.turn = work.awaw.date_words(work.turn.date)
    result.violations = validate_actions(work, pack)
    if work.turn.combined_game:
        starred = sorted(cid for cid, c in work.counters.items() if c.star)
        for cid in starred:
            del work.counters[cid]  # `*`: not used in the combined game — no event may see it
        if starred:
            result.notes.append(
                "`*` counters are not used in the combined game; ignored: " + ", ".join(starred)
            )
    blocked_by: list[str] = []
    blocking: dict[str, str] = {}  # choice id -> how players name it ("the Axis decision in 16.1.2")
    for rule, source in _events_in_order(work, pack):
        spec = pack.event(rule)
        entry = EventEntry(rule=rule, title=spec.title, source=source, status=NOT_DUE)
        result.events.append(entry)
        if blocked_by:
            entry.status = WAITING
            entry.waiting_for = list(blocked_by)
            entry.why.append("checked after the position is settled by "
                             + ", ".join(blocking.get(c, c) for c in blocked_by))
            continue
        if spec.once and work.fired(rule):
            entry.why.append("once per game, and it has already occurred")
            continue
        impl = REGISTRY.get(spec.impl)
        if impl is None:
            raise InputError(pack.path, f"event {rule}: no implementation named {spec.impl!r}")
        ctx = EventContext(work, pack, spec, entry, answers, answers_source)
        try:
            try:
                impl(ctx)
                ctx.settle()
            finally:
                ctx.finish_why()
                entry.factions = _factions_of(entry)
        except WaitingForAnswer as waiting:
            unanswered = list({c.id: c for c in [*ctx._deferred, waiting.choice] if not c.answered}.values())
            ids = [c.id for c in unanswered]
            entry.status = WAITING
            entry.waiting_for = [*entry.waiting_for, *(i for i in ids if i not in entry.waiting_for)]
            for choice in unanswered:
                entry.why.append(f"waiting for the {choice.decider} faction's decision: {choice.prompt}")
            blocked_by.extend(c.id for c in unanswered if c.affects_position and c.id not in blocked_by)
            blocking.update({c.id: f"the {c.decider} decision in {c.rule} ({c.id})" for c in unanswered})
            continue
        result.violations.extend(ctx.violations)
        entry.status = ctx._status or NOT_DUE
        if entry.missing and entry.status == NOT_DUE:
            # Unknown is never "not due": what the pack lacks might have made the event due.
            entry.status = UNDECIDED
        if not entry.why and not entry.missing:
            entry.why.append("no condition of this event holds")
        if entry.status == FIRED and spec.once and rule not in work.turn.fired:
            work.turn.fired.append(rule)
    if not blocked_by:
        result.resulting_position = work.to_json()
    return result


__all__ = [
    "REGISTRY",
    "EventContext",
    "WaitingForAnswer",
    "event_impl",
    "load_event_modules",
    "plan",
    "validate_position",
]


def check_answer_ids(answers: Mapping[str, Any], pack: Pack, source: str) -> None:
    """Refuse an answer whose choice id names no event of the pack (6.2: ids are "<rule>:<key>").

    Why only the rule part: an answers file is kept as play goes on, so an answer to a real event's
    choice that this position does not ask is legitimate (see `unused_answers`); an id whose
    rule is no event at all is a typo that would otherwise be ignored without a word."""
    for choice_id in answers:
        rule = str(choice_id).split(":", 1)[0]
        if rule not in pack.events:
            raise InputError(source, f"{choice_id!r} is not a choice of pack {pack.name}: "
                                     f"it has no event {rule} "
                                     "(choice ids are shown in the plan as '? [16.2.1:country] ...')")
