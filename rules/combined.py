"""The combined Axis Empires game: plan the TK map, carry its cross-map effects over, then plan DS.

Why a separate step and not one merged position: the two maps number their hexes independently (TK
Minsk and DS Saipan are both e3906) and each edition checks its own events with its own rule numbers
(16.2.1 is Case Yellow on TK and Army Program on DS). AE 6.2 ©: each faction performs all Conditional
Event checks on the TK map before the DS map, and an event's effects apply only on its own map unless
the rule says otherwise -- TK 16.2.1 Step 7 and 16.2.2 Step 11 do (rules/packs/ds/combined.toml).

Position form (docs/position-format.md): ``{"maps": {"TK": <position>, "DS": <position>}}``; answers
form: ``{"TK": {<choice id>: ...}, "DS": {...}}``. `adjutant plan` (bridge/cli/commands/plan.py) calls
`plan_combined` for such a position.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from rules.engine import plan
from rules.packs import Pack
from rules.plan import EXIT_DUE, EXIT_NOTHING_DUE, EXIT_UNDECIDED, FIRED, WAITING, Plan, Step
from rules.state import REMOVED, SET_ASIDE, STRATEGIC_WARFARE, GameState
from vassal_parser.errors import InputError

MAPS = ("TK", "DS")
COMBINED_FORMAT = "adjutant-combined-plan"


def is_combined(data: Any) -> bool:
    """Does this position JSON hold both maps (the form `plan_combined` takes)?"""
    return isinstance(data, dict) and isinstance(data.get("maps"), dict)


@dataclass
class CombinedPlan:
    """Both maps' plans in the order they are performed, with the cross-map steps between them."""

    phasing: str
    plans: dict[str, Plan]
    bridge: list[Step] = field(default_factory=list)
    order: tuple[str, ...] = MAPS

    @property
    def due(self) -> bool:
        return bool(self.bridge) or any(p.due for p in self.plans.values())

    @property
    def undecided(self) -> bool:
        return any(p.undecided for p in self.plans.values())

    @property
    def exit_status(self) -> int:
        """As `Plan.exit_status`, over both maps: due on either map wins over undecided."""
        if self.due:
            return EXIT_DUE
        return EXIT_UNDECIDED if self.undecided else EXIT_NOTHING_DUE

    @property
    def pending_choices(self) -> list[str]:
        return [f"{name}/{c.id}" for name in self.order for c in self.plans[name].pending_choices]

    def to_json(self) -> dict[str, Any]:
        return {
            "format": COMBINED_FORMAT,
            "version": 1,
            "phasing": self.phasing,
            "order": list(self.order),
            "due": self.due,
            "undecided": self.undecided,
            "maps": {name: self.plans[name].to_json() for name in self.order},
            "bridge": [s.to_json() for s in self.bridge],
            "pending_choices": self.pending_choices,
        }

    def render_text(self, verbose: bool = False) -> str:
        """Both maps' plans, then ONE closing line for the whole game (20: a map's own "Nothing is due."
        must not close the text while the other map has something due)."""
        lines = [f"Axis Empires combined game (AE 6.2) — {self.phasing} faction: "
                 "TK map first, then DS"]
        for name in self.order:
            lines.append(f"== {name} map ==")
            lines.append(self.plans[name].render_text(verbose=verbose, closing=False))
            if name == "TK" and self.bridge:
                lines.append("== carried over to the DS map ==")
                lines.extend(f"    - ({s.rule} {s.step}) {s.text}" for s in self.bridge)
        due = [name for name in self.order if self.plans[name].due]
        undecided = [name for name in self.order if self.plans[name].undecided]
        if self.due:
            where = " and ".join(f"the {n} map" for n in due) or "the DS map (carried over)"
            also = " and ".join(f"the {n} map" for n in undecided)
            lines.append(f"Due on {where}." + (f" Some events are undecided on {also}." if undecided else ""))
        elif undecided:
            lines.append("Nothing is due that the packs can decide; undecided on "
                         + " and ".join(f"the {n} map" for n in undecided) + ".")
        else:
            lines.append("Nothing is due on either map.")
        return "\n".join(lines)


def _split(data: dict[str, Any], source: str) -> dict[str, GameState]:
    maps = data["maps"]
    missing = [name for name in MAPS if not isinstance(maps.get(name), dict)]
    if missing:
        raise InputError(source, "a combined position needs maps.TK and maps.DS "
                                 f"(missing {', '.join(missing)})")
    unknown = sorted(set(maps) - set(MAPS))
    if unknown:
        raise InputError(source, f"unknown map(s) {', '.join(unknown)} (expected TK and DS)")
    states = {name: GameState.from_json(maps[name], source=f"{source} maps.{name}") for name in MAPS}
    phasing = {states[name].turn.phasing for name in MAPS}
    if len(phasing) != 1:
        raise InputError(source, "maps.TK and maps.DS disagree on the phasing faction")
    for state in states.values():
        state.turn.combined_game = True
    return states


def _answers_for(answers: dict[str, Any] | None, name: str, source: str) -> dict[str, Any]:
    if not answers:
        return {}
    unknown = sorted(set(answers) - set(MAPS))
    if unknown:
        # A flat single-map answers file would otherwise be silently ignored.
        raise InputError(source, f"answers for a combined position are split per map "
                                 f'({{"TK": {{...}}, "DS": {{...}}}}); unknown key(s): {", ".join(unknown)}')
    part = answers.get(name, {})
    if not isinstance(part, dict):
        raise InputError(source, f"answers.{name} must be an object keyed by choice id")
    return part


def _performed(tk_plan: Plan, rule: str, step: str) -> bool:
    return any(e.rule == rule and e.status == FIRED and any(s.step == step for s in e.steps)
               for e in tk_plan.events)


def _link_value(ds_pack: Pack, link: dict[str, Any], key: str) -> Any:
    """A field of a `[[combined.cross_map]]` entry; missing -> one line naming the pack and the field."""
    if key not in link:
        raise InputError(ds_pack.path, f"pack {ds_pack.name}: a [[combined.cross_map]] entry needs {key!r} "
                                       "(combined.toml)")
    return link[key]


def carry_over(tk_plan: Plan, ds_state: GameState, ds_pack: Pack) -> list[Step]:
    """Apply the TK events' DS-map effects (combined.toml) to the DS position; return the steps.

    Which marker goes to the DS Strategic Warfare Box and whose units leave the game (TK 16.2.1 Step 7:
    "all non-F French units in play in DS") are pack data: `marker_tag`, `remove_nationality`,
    `remove_without_code`."""
    steps: list[Step] = []
    for link in ds_pack.extra.get("combined", {}).get("cross_map", []):
        tk_rule, tk_step = _link_value(ds_pack, link, "tk_rule"), _link_value(ds_pack, link, "tk_step")
        tag, cites = _link_value(ds_pack, link, "marker_tag"), _link_value(ds_pack, link, "cites")
        if not _performed(tk_plan, tk_rule, tk_step):
            continue
        rule, step = f"TK {tk_rule}", tk_step
        markers = [c for c in ds_state.counters.values() if tag in c.tags]
        for marker in markers:
            if marker.location != STRATEGIC_WARFARE:
                text = f"place {marker.name} ({marker.id}) in the DS Strategic Warfare Box ({cites})"
                steps.append(Step(rule, step, "move", text, counter=marker.id, to=STRATEGIC_WARFARE,
                                  from_=marker.location))
                marker.location = STRATEGIC_WARFARE
        if not markers:
            steps.append(Step(rule, step, "note", f"place the {tag} marker in the DS Strategic Warfare Box "
                              "(the DS position has no such counter)"))
        code = link.get("remove_without_code")
        if code is None:
            continue
        nationality = _link_value(ds_pack, link, "remove_nationality")
        for counter in sorted(ds_state.counters.values(), key=lambda c: c.id):
            if counter.nationality == nationality and counter.kind != "ceded_land" and \
                    counter.reinforcement != code and counter.location not in (REMOVED, SET_ASIDE):
                text = (f"remove {counter.name} ({counter.id}) from the game: a {nationality} unit without "
                        f"the {code} code, in play in DS ({cites})")
                steps.append(Step(rule, step, "remove_from_game", text, counter=counter.id, to=REMOVED,
                                  from_=counter.location, subject=nationality))
                counter.location = REMOVED
    return steps


def ds_pack_for_combined(ds_pack: Pack, european_war: str) -> Pack:
    """The DS pack with the European war state (TK map) handed to the `*` events (16.3.6, 16.5.4)."""
    events = dict(ds_pack.events)
    for rule, spec in ds_pack.events.items():
        if spec.impl == "ds_european_reserves":
            events[rule] = replace(spec, params={**spec.params, "european_war": european_war})
    return replace(ds_pack, events=events)


def plan_combined(data: dict[str, Any], tk_pack: Pack, ds_pack: Pack, answers: dict[str, Any] | None = None,
                  source: str = "<position>", answers_source: str = "<answers>") -> CombinedPlan:
    """Plan the phasing faction's Conditional Events Segment on both maps, TK first (AE 6.2 ©)."""
    states = _split(data, source)
    tk_plan = plan(states["TK"], tk_pack, _answers_for(answers, "TK", answers_source), answers_source)
    ds_state = states["DS"].clone()
    bridge: list[Step] = []
    tk_blocked = [c.id for c in tk_plan.pending_choices if c.affects_position]
    if not tk_blocked:
        bridge = carry_over(tk_plan, ds_state, ds_pack)
    # The European war state after the TK events (a Policy ended in Pre-War starts Limited War, 16.7).
    after_tk = tk_plan.resulting_position or {}
    european_war = after_tk.get("turn", {}).get("war_state", states["TK"].turn.war_state)
    ds_plan = plan(ds_state, ds_pack_for_combined(ds_pack, european_war),
                   _answers_for(answers, "DS", answers_source), answers_source)
    if tk_blocked:
        for entry in ds_plan.events:
            entry.status = WAITING
            entry.waiting_for = [f"TK/{c}" for c in tk_blocked]
            entry.steps, entry.choices = [], []
            entry.why = ["the TK map's Conditional Events are performed first (AE 6.2, combined game) and "
                         "wait for " + ", ".join(tk_blocked)]
        ds_plan.resulting_position = None
    phasing = states["TK"].turn.phasing
    return CombinedPlan(phasing=phasing, plans={"TK": tk_plan, "DS": ds_plan}, bridge=bridge)


__all__ = ["CombinedPlan", "carry_over", "ds_pack_for_combined", "is_combined", "plan_combined"]
